build-mine/wrapper/record.o: wrapper/record.c wrapper/record.h \
 wrapper/../src/core/buf.h wrapper/../src/core/fs.h \
 wrapper/../src/core/hash.h wrapper/../src/core/strv.h \
 wrapper/../src/core/util.h wrapper/args.h
wrapper/record.h:
wrapper/../src/core/buf.h:
wrapper/../src/core/fs.h:
wrapper/../src/core/hash.h:
wrapper/../src/core/strv.h:
wrapper/../src/core/util.h:
wrapper/args.h:
