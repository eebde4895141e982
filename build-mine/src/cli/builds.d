build-mine/src/cli/builds.o: src/cli/builds.c src/cli/../core/buf.h \
 src/cli/../core/conf.h src/cli/../core/fs.h src/cli/../core/util.h \
 src/cli/ks.h
src/cli/../core/buf.h:
src/cli/../core/conf.h:
src/cli/../core/fs.h:
src/cli/../core/util.h:
src/cli/ks.h:
