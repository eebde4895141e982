build-mine/src/analysis/evidence.o: src/analysis/evidence.c \
 src/analysis/evidence.h src/analysis/../core/buf.h \
 src/analysis/../core/fs.h src/analysis/../core/log.h \
 src/analysis/../core/proc.h src/analysis/../core/strv.h \
 src/analysis/../core/util.h
src/analysis/evidence.h:
src/analysis/../core/buf.h:
src/analysis/../core/fs.h:
src/analysis/../core/log.h:
src/analysis/../core/proc.h:
src/analysis/../core/strv.h:
src/analysis/../core/util.h:
