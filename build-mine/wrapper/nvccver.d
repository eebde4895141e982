build-mine/wrapper/nvccver.o: wrapper/nvccver.c wrapper/nvccver.h \
 wrapper/../src/core/buf.h wrapper/../src/core/fs.h \
 wrapper/../src/core/hash.h wrapper/../src/core/log.h \
 wrapper/../src/core/proc.h wrapper/../src/core/util.h
wrapper/nvccver.h:
wrapper/../src/core/buf.h:
wrapper/../src/core/fs.h:
wrapper/../src/core/hash.h:
wrapper/../src/core/log.h:
wrapper/../src/core/proc.h:
wrapper/../src/core/util.h:
