build-mine/src/core/proc.o: src/core/proc.c src/core/proc.h \
 src/core/buf.h src/core/util.h
src/core/proc.h:
src/core/buf.h:
src/core/util.h:
