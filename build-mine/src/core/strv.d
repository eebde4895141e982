build-mine/src/core/strv.o: src/core/strv.c src/core/strv.h \
 src/core/util.h
src/core/strv.h:
src/core/util.h:
