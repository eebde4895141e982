/*
 * cx: the libclang C API, resolved at run time.
 *
 * ks never links libclang: ks_libclang_load() (libclang.h) dlopens it and
 * fills `ks_cx`, one function pointer per clang_* function used, through
 * dlsym. <clang-c/Index.h> is included for its types only. Functions that
 * libclang 16 lacks (the operator-kind queries of 17) are optional: their
 * pointer stays NULL and the callers fall back on tokens.
 *
 * Only the .c files of src/analysis include this header (the Makefile
 * gives those objects the libclang include directory); everything else
 * uses the clang-free headers of this directory.
 * Ownership: `ks_cx` is process-wide and read-only after a successful load;
 * CXString results must be disposed of by the caller as libclang says.
 * May include: libc, <clang-c/Index.h>.
 */
#ifndef KS_ANALYSIS_CX_H
#define KS_ANALYSIS_CX_H

#include <clang-c/Index.h>

/* Every required function: X(name) for clang_<name>. */
#define KS_CX_REQUIRED(X)                                                   \
	X(createIndex) X(disposeIndex) X(parseTranslationUnit2)             \
	X(disposeTranslationUnit) X(saveTranslationUnit)                    \
	X(getNumDiagnostics) X(getDiagnostic) X(disposeDiagnostic)          \
	X(getDiagnosticSeverity) X(getDiagnosticSpelling)                   \
	X(getDiagnosticLocation)                                            \
	X(getTranslationUnitCursor) X(visitChildren) X(getCursorKind)       \
	X(getCursorSpelling) X(getCursorDisplayName) X(getCursorType)       \
	X(getCursorReferenced) X(getCursorDefinition) X(getCanonicalCursor) \
	X(getCursorSemanticParent) X(getCursorLocation) X(getCursorExtent)  \
	X(getRangeStart) X(getRangeEnd) X(getExpansionLocation)             \
	X(getSpellingLocation) X(getFileName) X(getCString)                 \
	X(disposeString) X(Location_isInSystemHeader) X(equalCursors)       \
	X(isCursorDefinition) X(Cursor_getMangling)                         \
	X(getSpecializedCursorTemplate) X(Cursor_getNumTemplateArguments)   \
	X(Cursor_getTemplateArgumentKind) X(Cursor_getTemplateArgumentType) \
	X(Cursor_getTemplateArgumentValue) X(Cursor_getNumArguments)        \
	X(Cursor_getArgument) X(getCanonicalType) X(getPointeeType)         \
	X(isConstQualifiedType) X(isRestrictQualifiedType) X(Type_getSizeOf) \
	X(Type_getAlignOf) X(getTypeDeclaration) X(getArrayElementType)     \
	X(getArraySize) X(getElementType) X(getTypeSpelling)                \
	X(getResultType) X(tokenize) X(disposeTokens) X(getTokenSpelling)   \
	X(getTokenKind) X(getTokenExtent) X(Cursor_Evaluate)                \
	X(EvalResult_getKind) X(EvalResult_getAsLongLong)                   \
	X(EvalResult_dispose) X(getNumOverloadedDecls) X(getOverloadedDecl) \
	X(getClangVersion) X(getInclusions) X(getFileContents) X(getFile)   \
	X(isInvalid) X(getNullCursor) X(Cursor_isNull) X(getCursorUSR)      \
	X(getTypedefDeclUnderlyingType) X(Type_getNumTemplateArguments)     \
	X(Type_getTemplateArgumentAsType) X(getCursorResultType)            \
	X(getNumArgTypes) X(getArgType) X(isFunctionTypeVariadic)           \
	X(Type_getNamedType) X(getCursorLexicalParent)                       \
	X(Cursor_isMacroBuiltin)                                            \
	X(getLocationForOffset) X(getRange) X(File_isEqual)                 \
	X(getDiagnosticCategoryText) X(getCursorLinkage)                    \
	X(Location_isFromMainFile) X(getCursorPrettyPrinted)

struct ks_cx {
#define KS_CX_MEMBER(name) __typeof__(clang_##name) *name;
	KS_CX_REQUIRED(KS_CX_MEMBER)
#undef KS_CX_MEMBER
	/* Optional (libclang 17): the CX_BinaryOperatorKind and
	 * CX_UnaryOperatorKind of a cursor, declared here because a
	 * libclang 16 header lacks them. */
	int (*getCursorBinaryOperatorKind)(CXCursor);
	int (*getCursorUnaryOperatorKind)(CXCursor);
};

extern struct ks_cx ks_cx;

/*
 * The values of libclang 17's CX_BinaryOperatorKind and
 * CX_UnaryOperatorKind that the analysis reads (stable in 17-19).
 */
enum {
	KS_CXBO_MUL = 3, KS_CXBO_DIV = 4, KS_CXBO_REM = 5, KS_CXBO_ADD = 6,
	KS_CXBO_SUB = 7, KS_CXBO_SHL = 8, KS_CXBO_SHR = 9, KS_CXBO_CMP = 10,
	KS_CXBO_LT = 11, KS_CXBO_GT = 12, KS_CXBO_LE = 13, KS_CXBO_GE = 14,
	KS_CXBO_EQ = 15, KS_CXBO_NE = 16, KS_CXBO_AND = 17, KS_CXBO_XOR = 18,
	KS_CXBO_OR = 19, KS_CXBO_LAND = 20, KS_CXBO_LOR = 21,
	KS_CXBO_ASSIGN = 22, KS_CXBO_MULASSIGN = 23, KS_CXBO_DIVASSIGN = 24,
	KS_CXBO_REMASSIGN = 25, KS_CXBO_ADDASSIGN = 26, KS_CXBO_SUBASSIGN = 27,
	KS_CXBO_SHLASSIGN = 28, KS_CXBO_SHRASSIGN = 29, KS_CXBO_ANDASSIGN = 30,
	KS_CXBO_XORASSIGN = 31, KS_CXBO_ORASSIGN = 32, KS_CXBO_COMMA = 33,
};
enum {
	KS_CXUO_POSTINC = 1, KS_CXUO_POSTDEC = 2, KS_CXUO_PREINC = 3,
	KS_CXUO_PREDEC = 4, KS_CXUO_ADDROF = 5, KS_CXUO_DEREF = 6,
	KS_CXUO_PLUS = 7, KS_CXUO_MINUS = 8, KS_CXUO_NOT = 9, KS_CXUO_LNOT = 10,
};

#endif
