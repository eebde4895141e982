build-mine/wrapper/ksnvcc.o: wrapper/ksnvcc.c wrapper/ksnvcc.h \
 wrapper/../src/core/buf.h wrapper/../src/core/conf.h \
 wrapper/../src/core/fs.h wrapper/../src/core/log.h \
 wrapper/../src/core/stats.h wrapper/../src/core/strv.h \
 wrapper/../src/core/util.h wrapper/args.h wrapper/nvccver.h \
 wrapper/passthru.h wrapper/record.h
wrapper/ksnvcc.h:
wrapper/../src/core/buf.h:
wrapper/../src/core/conf.h:
wrapper/../src/core/fs.h:
wrapper/../src/core/log.h:
wrapper/../src/core/stats.h:
wrapper/../src/core/strv.h:
wrapper/../src/core/util.h:
wrapper/args.h:
wrapper/nvccver.h:
wrapper/passthru.h:
wrapper/record.h:
