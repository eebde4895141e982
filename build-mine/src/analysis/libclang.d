build-mine/src/analysis/libclang.o: src/analysis/libclang.c \
 src/analysis/libclang.h src/analysis/../core/buf.h \
 src/analysis/../core/log.h src/analysis/../core/strv.h \
 src/analysis/../core/util.h src/analysis/cx.h \
 /usr/lib/llvm-19/include/clang-c/Index.h \
 /usr/lib/llvm-19/include/clang-c/BuildSystem.h \
 /usr/lib/llvm-19/include/clang-c/CXErrorCode.h \
 /usr/lib/llvm-19/include/clang-c/ExternC.h \
 /usr/lib/llvm-19/include/clang-c/Platform.h \
 /usr/lib/llvm-19/include/clang-c/CXString.h \
 /usr/lib/llvm-19/include/clang-c/CXDiagnostic.h \
 /usr/lib/llvm-19/include/clang-c/CXSourceLocation.h \
 /usr/lib/llvm-19/include/clang-c/CXFile.h
src/analysis/libclang.h:
src/analysis/../core/buf.h:
src/analysis/../core/log.h:
src/analysis/../core/strv.h:
src/analysis/../core/util.h:
src/analysis/cx.h:
/usr/lib/llvm-19/include/clang-c/Index.h:
/usr/lib/llvm-19/include/clang-c/BuildSystem.h:
/usr/lib/llvm-19/include/clang-c/CXErrorCode.h:
/usr/lib/llvm-19/include/clang-c/ExternC.h:
/usr/lib/llvm-19/include/clang-c/Platform.h:
/usr/lib/llvm-19/include/clang-c/CXString.h:
/usr/lib/llvm-19/include/clang-c/CXDiagnostic.h:
/usr/lib/llvm-19/include/clang-c/CXSourceLocation.h:
/usr/lib/llvm-19/include/clang-c/CXFile.h:
