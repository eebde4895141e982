build-mine/src/cli/main.o: src/cli/main.c src/cli/ks.h
src/cli/ks.h:
