build-mine/src/core/buf.o: src/core/buf.c src/core/buf.h src/core/util.h
src/core/buf.h:
src/core/util.h:
