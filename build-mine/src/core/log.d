build-mine/src/core/log.o: src/core/log.c src/core/log.h src/core/util.h
src/core/log.h:
src/core/util.h:
