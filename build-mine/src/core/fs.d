build-mine/src/core/fs.o: src/core/fs.c src/core/fs.h src/core/buf.h \
 src/core/util.h
src/core/fs.h:
src/core/buf.h:
src/core/util.h:
