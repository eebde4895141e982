build-mine/src/core/conf.o: src/core/conf.c src/core/conf.h \
 src/core/buf.h src/core/fs.h src/core/util.h
src/core/conf.h:
src/core/buf.h:
src/core/fs.h:
src/core/util.h:
