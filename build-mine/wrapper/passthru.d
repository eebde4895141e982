build-mine/wrapper/passthru.o: wrapper/passthru.c wrapper/passthru.h \
 wrapper/../src/core/buf.h wrapper/../src/core/fs.h \
 wrapper/../src/core/util.h
wrapper/passthru.h:
wrapper/../src/core/buf.h:
wrapper/../src/core/fs.h:
wrapper/../src/core/util.h:
