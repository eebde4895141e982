build-mine/wrapper/args.o: wrapper/args.c wrapper/args.h \
 wrapper/../src/core/buf.h wrapper/../src/core/strv.h \
 wrapper/../src/core/util.h wrapper/nvopts.h
wrapper/args.h:
wrapper/../src/core/buf.h:
wrapper/../src/core/strv.h:
wrapper/../src/core/util.h:
wrapper/nvopts.h:
