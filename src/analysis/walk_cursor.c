/*
 * The walk's cursor utilities (walk.h): children, kinds, tokens,
 * operators, constant values and types of libclang cursors.
 */
#include <stdlib.h>
#include <string.h>

#include "../core/buf.h"
#include "../core/grow.h"
#include "../core/fs.h"
#include "../core/strv.h"
#include "../core/util.h"
#include "walk.h"

/* ---- cursor utilities ---------------------------------------------------- */


static enum CXChildVisitResult
kids_visit(CXCursor c, CXCursor parent, CXClientData data)
{
	struct kids *k = data;

	(void)parent;
	k->v = KS_GROW(k->v, k->n, &k->alloc);
	k->v[k->n++] = c;
	return CXChildVisit_Continue;
}

void
ks_walk_kids_of(CXCursor c, struct kids *k)
{
	k->v = NULL;
	k->n = k->alloc = 0;
	ks_cx.visitChildren(c, kids_visit, k);
}

void
ks_walk_kids_release(struct kids *k)
{
	free(k->v);
	k->v = NULL;
	k->n = 0;
}

enum CXCursorKind
ks_walk_kind(CXCursor c)
{
	return ks_cx.getCursorKind(c);
}

char *
ks_walk_spelling(CXCursor c)
{
	return ks_cx_str(ks_cx.getCursorSpelling(c));
}

int
ks_walk_spelled(CXCursor c, const char *s)
{
	char *n = ks_walk_spelling(c);
	int eq = !strcmp(n, s);

	free(n);
	return eq;
}

int
ks_walk_same(CXCursor a, CXCursor b)
{
	return ks_cx.equalCursors(ks_cx.getCanonicalCursor(a),
				  ks_cx.getCanonicalCursor(b));
}

unsigned
ks_walk_offset_of(CXSourceLocation loc)
{
	unsigned off = 0;

	ks_cx.getExpansionLocation(loc, NULL, NULL, NULL, &off);
	return off;
}

unsigned
ks_walk_begin_of(CXCursor c)
{
	return ks_walk_offset_of(ks_cx.getRangeStart(ks_cx.getCursorExtent(c)));
}

unsigned
ks_walk_end_of(CXCursor c)
{
	return ks_walk_offset_of(ks_cx.getRangeEnd(ks_cx.getCursorExtent(c)));
}

/* Skip implicit wrappers: unexposed casts and parentheses. */
CXCursor
ks_walk_strip(CXCursor c)
{
	for (;;) {
		enum CXCursorKind k = ks_walk_kind(c);
		struct kids ch;

		if (k != CXCursor_UnexposedExpr && k != CXCursor_ParenExpr)
			return c;
		ks_walk_kids_of(c, &ch);
		if (ch.n != 1) {
			ks_walk_kids_release(&ch);
			return c;
		}
		c = ch.v[0];
		ks_walk_kids_release(&ch);
	}
}

int
ks_walk_has_attr(CXCursor c, enum CXCursorKind attr)
{
	struct kids ch;
	size_t i;
	int found = 0;

	ks_walk_kids_of(c, &ch);
	for (i = 0; i < ch.n && !found; i++)
		found = ks_walk_kind(ch.v[i]) == attr;
	ks_walk_kids_release(&ch);
	return found;
}


void
ks_walk_toks_of(CXTranslationUnit tu, CXSourceRange r, struct toks *t)
{
	t->tu = tu;
	t->t = NULL;
	t->n = 0;
	ks_cx.tokenize(tu, r, &t->t, &t->n);
}

void
ks_walk_toks_release(struct toks *t)
{
	if (t->t)
		ks_cx.disposeTokens(t->tu, t->t, t->n);
	t->t = NULL;
	t->n = 0;
}

char *
ks_walk_tok_str(struct toks *t, unsigned i)
{
	return ks_cx_str(ks_cx.getTokenSpelling(t->tu, t->t[i]));
}

int
ks_walk_tok_is(struct toks *t, unsigned i, const char *s)
{
	char *x = ks_walk_tok_str(t, i);
	int eq = !strcmp(x, s);

	free(x);
	return eq;
}

unsigned
ks_walk_tok_begin(struct toks *t, unsigned i)
{
	return ks_walk_offset_of(
		ks_cx.getRangeStart(ks_cx.getTokenExtent(t->tu, t->t[i])));
}

unsigned
ks_walk_tok_end(struct toks *t, unsigned i)
{
	return ks_walk_offset_of(
		ks_cx.getRangeEnd(ks_cx.getTokenExtent(t->tu, t->t[i])));
}

/* Operator codes: the numbering of libclang 17's operator kinds. */
static const struct {
	const char *s;
	int op;
} binops[] = {
	{ "*", KS_CXBO_MUL }, { "/", KS_CXBO_DIV }, { "%", KS_CXBO_REM },
	{ "+", KS_CXBO_ADD }, { "-", KS_CXBO_SUB }, { "<<", KS_CXBO_SHL },
	{ ">>", KS_CXBO_SHR }, { "<", KS_CXBO_LT }, { ">", KS_CXBO_GT },
	{ "<=", KS_CXBO_LE }, { ">=", KS_CXBO_GE }, { "==", KS_CXBO_EQ },
	{ "!=", KS_CXBO_NE }, { "&", KS_CXBO_AND }, { "^", KS_CXBO_XOR },
	{ "|", KS_CXBO_OR }, { "&&", KS_CXBO_LAND }, { "||", KS_CXBO_LOR },
	{ "=", KS_CXBO_ASSIGN }, { "*=", KS_CXBO_MULASSIGN },
	{ "/=", KS_CXBO_DIVASSIGN }, { "%=", KS_CXBO_REMASSIGN },
	{ "+=", KS_CXBO_ADDASSIGN }, { "-=", KS_CXBO_SUBASSIGN },
	{ "<<=", KS_CXBO_SHLASSIGN }, { ">>=", KS_CXBO_SHRASSIGN },
	{ "&=", KS_CXBO_ANDASSIGN }, { "^=", KS_CXBO_XORASSIGN },
	{ "|=", KS_CXBO_ORASSIGN }, { ",", KS_CXBO_COMMA },
};

/* The operator of a binary or compound-assignment cursor, or 0. */
int
ks_walk_binop(CXTranslationUnit tu, CXCursor c, CXCursor lhs)
{
	struct toks t;
	unsigned i, after;
	int op = 0;

	if (ks_cx.getCursorBinaryOperatorKind)
		return ks_cx.getCursorBinaryOperatorKind(c);
	/* libclang 16: the first token after the left operand. */
	after = ks_walk_end_of(lhs);
	ks_walk_toks_of(tu, ks_cx.getCursorExtent(c), &t);
	for (i = 0; i < t.n; i++) {
		if (ks_walk_tok_begin(&t, i) >= after) {
			char *s = ks_walk_tok_str(&t, i);
			size_t k;

			for (k = 0; k < KS_ARRAY_SIZE(binops); k++)
				if (!strcmp(binops[k].s, s))
					op = binops[k].op;
			free(s);
			break;
		}
	}
	ks_walk_toks_release(&t);
	return op;
}

int
ks_walk_unop(CXTranslationUnit tu, CXCursor c)
{
	struct toks t;
	int op = 0;

	if (ks_cx.getCursorUnaryOperatorKind)
		return ks_cx.getCursorUnaryOperatorKind(c);
	ks_walk_toks_of(tu, ks_cx.getCursorExtent(c), &t);
	if (t.n) {
		char *first = ks_walk_tok_str(&t, 0), *last = ks_walk_tok_str(&t, t.n - 1);

		if (!strcmp(first, "++")) op = KS_CXUO_PREINC;
		else if (!strcmp(first, "--")) op = KS_CXUO_PREDEC;
		else if (!strcmp(first, "&")) op = KS_CXUO_ADDROF;
		else if (!strcmp(first, "*")) op = KS_CXUO_DEREF;
		else if (!strcmp(first, "+")) op = KS_CXUO_PLUS;
		else if (!strcmp(first, "-")) op = KS_CXUO_MINUS;
		else if (!strcmp(first, "~")) op = KS_CXUO_NOT;
		else if (!strcmp(first, "!")) op = KS_CXUO_LNOT;
		else if (!strcmp(last, "++")) op = KS_CXUO_POSTINC;
		else if (!strcmp(last, "--")) op = KS_CXUO_POSTDEC;
		free(first);
		free(last);
	}
	ks_walk_toks_release(&t);
	return op;
}

int
ks_walk_is_relational(int op)
{
	return op >= KS_CXBO_LT && op <= KS_CXBO_NE;
}

/* An integer constant expression's value. */
int
ks_walk_int_value(CXCursor c, long long *v)
{
	CXEvalResult r;
	int ok = 0;

	switch (ks_walk_kind(c)) {
	case CXCursor_IntegerLiteral:
	case CXCursor_CharacterLiteral:
	case CXCursor_UnaryExpr:
	case CXCursor_DeclRefExpr:
	case CXCursor_CXXBoolLiteralExpr:
		break;
	default:
		return 0;
	}
	r = ks_cx.Cursor_Evaluate(c);
	if (!r)
		return 0;
	if (ks_cx.EvalResult_getKind(r) == CXEval_Int) {
		*v = ks_cx.EvalResult_getAsLongLong(r);
		ok = 1;
	}
	ks_cx.EvalResult_dispose(r);
	return ok;
}

long long
ks_walk_type_size(CXType t)
{
	long long n = ks_cx.Type_getSizeOf(ks_cx.getCanonicalType(t));

	return n > 0 ? n : -1;
}

int
ks_walk_is_pointer(CXType t)
{
	enum CXTypeKind k = ks_cx.getCanonicalType(t).kind;

	return k == CXType_Pointer;
}

int
ks_walk_is_array(CXType t)
{
	enum CXTypeKind k = ks_cx.getCanonicalType(t).kind;

	return k == CXType_ConstantArray || k == CXType_IncompleteArray ||
	       k == CXType_VariableArray || k == CXType_DependentSizedArray;
}

/* Scalar kind, lanes and vector-ness of a type. */
enum ks_scalar
ks_walk_scalar_of(CXType t, int *lanes, int *vector)
{
	CXType c = ks_cx.getCanonicalType(t);
	enum ks_scalar s = KS_T_OTHER;

	*lanes = 1;
	*vector = 0;
	switch (c.kind) {
	case CXType_Float: return KS_T_FLOAT;
	case CXType_Double: return KS_T_DOUBLE;
	case CXType_Half: case CXType_Float16: return KS_T_HALF;
	case CXType_BFloat16: return KS_T_BF16;
	case CXType_Char_S: case CXType_Char_U: case CXType_SChar:
	case CXType_UChar: case CXType_Bool: return KS_T_INT8;
	case CXType_Short: case CXType_UShort: return KS_T_INT16;
	case CXType_Int: case CXType_UInt: return KS_T_INT32;
	case CXType_Long: case CXType_ULong: case CXType_LongLong:
	case CXType_ULongLong: return KS_T_INT64;
	case CXType_Record:
	case CXType_Elaborated: {
		char *name = ks_cx_str(ks_cx.getTypeSpelling(c));

		if (ks_facts_vector_type(name, lanes, &s)) {
			*vector = 1;
		} else if (strstr(name, "__half") || !strcmp(name, "half")) {
			s = KS_T_HALF;
		} else if (strstr(name, "bfloat16")) {
			s = KS_T_BF16;
		}
		free(name);
		return s;
	}
	default:
		return KS_T_OTHER;
	}
}

int
ks_walk_type_is_double(CXType t)
{
	CXType c = ks_cx.getCanonicalType(t);

	while (c.kind == CXType_Pointer || c.kind == CXType_ConstantArray ||
	       c.kind == CXType_IncompleteArray)
		c = ks_cx.getCanonicalType(
			c.kind == CXType_Pointer
				? ks_cx.getPointeeType(c)
				: ks_cx.getArrayElementType(c));
	return c.kind == CXType_Double;
}

int
ks_walk_type_is_floaty(CXType t)
{
	CXType c = ks_cx.getCanonicalType(t);
	int lanes, vec;
	enum ks_scalar s;

	while (c.kind == CXType_Pointer || c.kind == CXType_ConstantArray ||
	       c.kind == CXType_IncompleteArray)
		c = ks_cx.getCanonicalType(
			c.kind == CXType_Pointer
				? ks_cx.getPointeeType(c)
				: ks_cx.getArrayElementType(c));
	s = ks_walk_scalar_of(c, &lanes, &vec);
	return s == KS_T_FLOAT || s == KS_T_HALF || s == KS_T_BF16;
}

int
ks_walk_type_is_vector(CXType t)
{
	CXType c = ks_cx.getCanonicalType(t);
	int lanes, vec;

	while (c.kind == CXType_Pointer || c.kind == CXType_ConstantArray ||
	       c.kind == CXType_IncompleteArray)
		c = ks_cx.getCanonicalType(
			c.kind == CXType_Pointer
				? ks_cx.getPointeeType(c)
				: ks_cx.getArrayElementType(c));
	ks_walk_scalar_of(c, &lanes, &vec);
	return vec;
}
