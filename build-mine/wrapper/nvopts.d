build-mine/wrapper/nvopts.o: wrapper/nvopts.c wrapper/nvopts.h \
 wrapper/../src/core/util.h
wrapper/nvopts.h:
wrapper/../src/core/util.h:
