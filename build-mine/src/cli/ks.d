build-mine/src/cli/ks.o: src/cli/ks.c src/cli/ks.h src/cli/../core/buf.h \
 src/cli/../core/conf.h src/cli/../core/log.h src/cli/../core/stats.h \
 src/cli/../core/util.h src/cli/version.h
src/cli/ks.h:
src/cli/../core/buf.h:
src/cli/../core/conf.h:
src/cli/../core/log.h:
src/cli/../core/stats.h:
src/cli/../core/util.h:
src/cli/version.h:
