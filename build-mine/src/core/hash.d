build-mine/src/core/hash.o: src/core/hash.c src/core/hash.h \
 src/core/util.h
src/core/hash.h:
src/core/util.h:
