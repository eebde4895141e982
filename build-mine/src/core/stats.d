build-mine/src/core/stats.o: src/core/stats.c src/core/stats.h \
 src/core/buf.h src/core/fs.h src/core/strv.h src/core/util.h
src/core/stats.h:
src/core/buf.h:
src/core/fs.h:
src/core/strv.h:
src/core/util.h:
