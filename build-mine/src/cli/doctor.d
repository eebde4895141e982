build-mine/src/cli/doctor.o: src/cli/doctor.c \
 src/cli/../../wrapper/nvccver.h src/cli/../../wrapper/passthru.h \
 src/cli/../analysis/libclang.h src/cli/../core/buf.h \
 src/cli/../core/conf.h src/cli/../core/fs.h src/cli/../core/util.h \
 src/cli/ks.h
src/cli/../../wrapper/nvccver.h:
src/cli/../../wrapper/passthru.h:
src/cli/../analysis/libclang.h:
src/cli/../core/buf.h:
src/cli/../core/conf.h:
src/cli/../core/fs.h:
src/cli/../core/util.h:
src/cli/ks.h:
