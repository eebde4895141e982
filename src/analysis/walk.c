/*
 * The AST walk: kernels, launch sites and host facts out of a parsed TU,
 * and each kernel reduced to facts (facts.h).
 *
 * A kernel body is evaluated abstractly. Every integer expression gets a
 * form (an affine expression over thread indices and loop inductions),
 * every pointer a memory object and a byte offset; memory accesses,
 * loops, branches, calls and products are recorded as they are met.
 * Calls to __device__ functions of the TU are walked in place with their
 * parameters bound to the arguments (up to a small depth), so a helper
 * doing the loads counts as the kernel's own. Nothing here decides a
 * feature: features.c does, from the facts.
 */
#include <stdlib.h>
#include <string.h>

#include "../core/buf.h"
#include "../core/fs.h"
#include "../core/strv.h"
#include "../core/util.h"
#include "tu.h"

#define MAX_INLINE_DEPTH 3

/* ---- cursor utilities ---------------------------------------------------- */

struct kids {
	CXCursor *v;
	size_t n, alloc;
};

static enum CXChildVisitResult
kids_visit(CXCursor c, CXCursor parent, CXClientData data)
{
	struct kids *k = data;

	(void)parent;
	if (k->n == k->alloc) {
		k->alloc = k->alloc ? 2 * k->alloc : 8;
		k->v = ks_xrealloc(k->v, k->alloc * sizeof(*k->v));
	}
	k->v[k->n++] = c;
	return CXChildVisit_Continue;
}

static void
kids_of(CXCursor c, struct kids *k)
{
	k->v = NULL;
	k->n = k->alloc = 0;
	ks_cx.visitChildren(c, kids_visit, k);
}

static void
kids_release(struct kids *k)
{
	free(k->v);
	k->v = NULL;
	k->n = 0;
}

static enum CXCursorKind
kind(CXCursor c)
{
	return ks_cx.getCursorKind(c);
}

static char *
spelling(CXCursor c)
{
	return ks_cx_str(ks_cx.getCursorSpelling(c));
}

static int
spelled(CXCursor c, const char *s)
{
	char *n = spelling(c);
	int eq = !strcmp(n, s);

	free(n);
	return eq;
}

static int
same(CXCursor a, CXCursor b)
{
	return ks_cx.equalCursors(ks_cx.getCanonicalCursor(a),
				  ks_cx.getCanonicalCursor(b));
}

static unsigned
offset_of(CXSourceLocation loc)
{
	unsigned off = 0;

	ks_cx.getExpansionLocation(loc, NULL, NULL, NULL, &off);
	return off;
}

static unsigned
begin_of(CXCursor c)
{
	return offset_of(ks_cx.getRangeStart(ks_cx.getCursorExtent(c)));
}

static unsigned
end_of(CXCursor c)
{
	return offset_of(ks_cx.getRangeEnd(ks_cx.getCursorExtent(c)));
}

/* Skip implicit wrappers: unexposed casts and parentheses. */
static CXCursor
strip(CXCursor c)
{
	for (;;) {
		enum CXCursorKind k = kind(c);
		struct kids ch;

		if (k != CXCursor_UnexposedExpr && k != CXCursor_ParenExpr)
			return c;
		kids_of(c, &ch);
		if (ch.n != 1) {
			kids_release(&ch);
			return c;
		}
		c = ch.v[0];
		kids_release(&ch);
	}
}

static int
has_attr(CXCursor c, enum CXCursorKind attr)
{
	struct kids ch;
	size_t i;
	int found = 0;

	kids_of(c, &ch);
	for (i = 0; i < ch.n && !found; i++)
		found = kind(ch.v[i]) == attr;
	kids_release(&ch);
	return found;
}

/* Tokens of a cursor's extent (spelling and offset each). */
struct toks {
	CXToken *t;
	unsigned n;
	CXTranslationUnit tu;
};

static void
toks_of(CXTranslationUnit tu, CXSourceRange r, struct toks *t)
{
	t->tu = tu;
	t->t = NULL;
	t->n = 0;
	ks_cx.tokenize(tu, r, &t->t, &t->n);
}

static void
toks_release(struct toks *t)
{
	if (t->t)
		ks_cx.disposeTokens(t->tu, t->t, t->n);
	t->t = NULL;
	t->n = 0;
}

static char *
tok_str(struct toks *t, unsigned i)
{
	return ks_cx_str(ks_cx.getTokenSpelling(t->tu, t->t[i]));
}

static int
tok_is(struct toks *t, unsigned i, const char *s)
{
	char *x = tok_str(t, i);
	int eq = !strcmp(x, s);

	free(x);
	return eq;
}

static unsigned
tok_begin(struct toks *t, unsigned i)
{
	return offset_of(
		ks_cx.getRangeStart(ks_cx.getTokenExtent(t->tu, t->t[i])));
}

static unsigned
tok_end(struct toks *t, unsigned i)
{
	return offset_of(
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
static int
binop(CXTranslationUnit tu, CXCursor c, CXCursor lhs)
{
	struct toks t;
	unsigned i, after;
	int op = 0;

	if (ks_cx.getCursorBinaryOperatorKind)
		return ks_cx.getCursorBinaryOperatorKind(c);
	/* libclang 16: the first token after the left operand. */
	after = end_of(lhs);
	toks_of(tu, ks_cx.getCursorExtent(c), &t);
	for (i = 0; i < t.n; i++) {
		if (tok_begin(&t, i) >= after) {
			char *s = tok_str(&t, i);
			size_t k;

			for (k = 0; k < KS_ARRAY_SIZE(binops); k++)
				if (!strcmp(binops[k].s, s))
					op = binops[k].op;
			free(s);
			break;
		}
	}
	toks_release(&t);
	return op;
}

static int
unop(CXTranslationUnit tu, CXCursor c)
{
	struct toks t;
	int op = 0;

	if (ks_cx.getCursorUnaryOperatorKind)
		return ks_cx.getCursorUnaryOperatorKind(c);
	toks_of(tu, ks_cx.getCursorExtent(c), &t);
	if (t.n) {
		char *first = tok_str(&t, 0), *last = tok_str(&t, t.n - 1);

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
	toks_release(&t);
	return op;
}

static int
is_relational(int op)
{
	return op >= KS_CXBO_LT && op <= KS_CXBO_NE;
}

/* An integer constant expression's value. */
static int
int_value(CXCursor c, long long *v)
{
	CXEvalResult r;
	int ok = 0;

	switch (kind(c)) {
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

static long long
type_size(CXType t)
{
	long long n = ks_cx.Type_getSizeOf(ks_cx.getCanonicalType(t));

	return n > 0 ? n : -1;
}

static int
is_pointer(CXType t)
{
	enum CXTypeKind k = ks_cx.getCanonicalType(t).kind;

	return k == CXType_Pointer;
}

static int
is_array(CXType t)
{
	enum CXTypeKind k = ks_cx.getCanonicalType(t).kind;

	return k == CXType_ConstantArray || k == CXType_IncompleteArray ||
	       k == CXType_VariableArray || k == CXType_DependentSizedArray;
}

/* Scalar kind, lanes and vector-ness of a type. */
static enum ks_scalar
scalar_of(CXType t, int *lanes, int *vector)
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

static int
type_is_double(CXType t)
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

static int
type_is_floaty(CXType t)
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
	s = scalar_of(c, &lanes, &vec);
	return s == KS_T_FLOAT || s == KS_T_HALF || s == KS_T_BF16;
}

static int
type_is_vector(CXType t)
{
	CXType c = ks_cx.getCanonicalType(t);
	int lanes, vec;

	while (c.kind == CXType_Pointer || c.kind == CXType_ConstantArray ||
	       c.kind == CXType_IncompleteArray)
		c = ks_cx.getCanonicalType(
			c.kind == CXType_Pointer
				? ks_cx.getPointeeType(c)
				: ks_cx.getArrayElementType(c));
	scalar_of(c, &lanes, &vec);
	return vec;
}

/* ---- the kernel walk ----------------------------------------------------- */

struct val {
	int ptr;		/* a pointer into `array` at byte offset f */
	int array;		/* facts array, or -1 */
	struct ks_form f;
	int load;		/* the access whose value this is, or -1 */
	int prod;		/* a product of two loads (a fact), or -1 */
	int sum;		/* went through an addition */
	int literal;		/* a literal constant (integer or floating) */
	int minmax;		/* the result of min/max (a reduction step) */
};

struct var {
	CXCursor decl;
	struct val v;
	int is_array;		/* the variable is the memory object itself */
	int carried;		/* assigned in the loop being walked */
};

struct walk {
	struct ks_tu *t;
	CXTranslationUnit tu;
	struct ks_facts *f;
	struct var *vars;
	size_t nvars, avars;
	int loop;		/* innermost loop, or -1 */
	int depth;
	int guards;
	CXCursor inl[MAX_INLINE_DEPTH + 1];
	int ninl;
	struct val ret;		/* value of the inlined function's return */
	int have_ret;
	/* a condition being evaluated: comparisons become branches */
	int in_cond;
	enum ks_branch_stmt cond_stmt;
	int cond_loop;
	int cond_recorded;
	int unknown_array;
	int impure;		/* scratch of impure() */
};

static void eval(struct walk *w, CXCursor c, struct val *out);
static void stmt(struct walk *w, CXCursor c);

static void
val_scalar(struct val *v, const struct ks_form *f)
{
	v->ptr = 0;
	v->array = -1;
	v->f = *f;
	v->load = -1;
	v->prod = -1;
	v->sum = 0;
	v->literal = 0;
	v->minmax = 0;
}

static void
val_const(struct val *v, long long k)
{
	struct ks_form f;

	ks_form_const(&f, k);
	val_scalar(v, &f);
}

static void
val_unknown(struct val *v)
{
	struct ks_form f;

	ks_form_zero(&f);
	f.c[KS_SRC_ONE].opaque = 1;
	val_scalar(v, &f);
}

static struct var *
var_find(struct walk *w, CXCursor decl)
{
	size_t i;

	for (i = w->nvars; i-- > 0;)
		if (same(w->vars[i].decl, decl))
			return &w->vars[i];
	return NULL;
}

static struct var *
var_bind(struct walk *w, CXCursor decl, const struct val *v)
{
	struct var *x;

	if (w->nvars == w->avars) {
		w->avars = w->avars ? 2 * w->avars : 32;
		w->vars = ks_xrealloc(w->vars, w->avars * sizeof(*w->vars));
	}
	x = &w->vars[w->nvars++];
	x->decl = decl;
	x->v = *v;
	x->is_array = 0;
	x->carried = 0;
	return x;
}

static int
add_array(struct walk *w, const char *name, enum ks_space space, int param,
	  CXType t)
{
	struct ks_array a;

	memset(&a, 0, sizeof(a));
	a.name = (char *)name;
	a.space = space;
	a.param = param;
	a.bytes = is_array(t) ? type_size(t) : -1;
	if (is_pointer(t)) {
		CXType p = ks_cx.getPointeeType(t);

		a.is_const = ks_cx.isConstQualifiedType(p);
		a.is_restrict = ks_cx.isRestrictQualifiedType(t);
	} else {
		a.is_const = ks_cx.isConstQualifiedType(t);
	}
	return ks_facts_add_array(w->f, &a);
}

static int
unknown_array(struct walk *w)
{
	struct ks_array a;

	if (w->unknown_array >= 0)
		return w->unknown_array;
	memset(&a, 0, sizeof(a));
	a.name = (char *)"(pointer from memory)";
	a.space = KS_SPACE_UNKNOWN;
	a.param = -1;
	a.bytes = -1;
	w->unknown_array = ks_facts_add_array(w->f, &a);
	return w->unknown_array;
}

/* The memory space of a file-scope or static variable. */
static enum ks_space
var_space(CXCursor decl)
{
	if (has_attr(decl, CXCursor_CUDASharedAttr))
		return KS_SPACE_SHARED;
	if (has_attr(decl, CXCursor_CUDAConstantAttr))
		return KS_SPACE_CONSTANT;
	if (has_attr(decl, CXCursor_CUDADeviceAttr))
		return KS_SPACE_GLOBAL;
	return ks_cx.isConstQualifiedType(ks_cx.getCursorType(decl))
		       ? KS_SPACE_CONSTANT : KS_SPACE_GLOBAL;
}

static void
record_access(struct walk *w, const struct val *where, CXCursor c, CXType t,
	      unsigned flags, int value_from, const char *op, int *id)
{
	struct ks_access a;
	int vec;
	long long size = type_size(t);

	memset(&a, 0, sizeof(a));
	a.array = where->array >= 0 ? where->array : unknown_array(w);
	a.flags = flags;
	a.offset = where->f;
	a.scalar = scalar_of(t, &a.lanes, &vec);
	if (vec)
		a.flags |= KS_ACC_VECTOR;
	if (size <= 0) {
		size = 4;
		a.flags |= KS_ACC_SIZE_GUESSED;
	}
	a.bytes = (unsigned)size;
	a.loop = w->loop;
	a.guards = w->guards;
	a.value_from = value_from;
	a.line = ks_cx_line(c);
	ks_cx_range(c, &a.begin, &a.end, &a.in_main);
	a.op = (char *)op;
	*id = ks_facts_add_access(w->f, &a);
	if (a.scalar == KS_T_FLOAT || a.scalar == KS_T_HALF ||
	    a.scalar == KS_T_BF16)
		w->f->float_code = 1;
}

/* A location: memory (where->ptr) or a variable. */
struct loc {
	int is_mem;
	struct val where;	/* memory: array + byte offset */
	struct var *var;	/* variable, or NULL */
	CXType type;		/* of the accessed object */
};

static void locate(struct walk *w, CXCursor c, struct loc *l);

static void
eval_children(struct walk *w, CXCursor c, struct ks_form *mix)
{
	struct kids ch;
	size_t i;

	ks_form_zero(mix);
	kids_of(c, &ch);
	for (i = 0; i < ch.n; i++) {
		struct val v;
		enum CXCursorKind k = kind(ch.v[i]);

		if (k == CXCursor_TypeRef || k == CXCursor_TemplateRef ||
		    k == CXCursor_NamespaceRef ||
		    k == CXCursor_OverloadedDeclRef)
			continue;
		eval(w, ch.v[i], &v);
		if (!v.ptr)
			ks_form_mix(mix, mix, &v.f);
	}
	kids_release(&ch);
}

static int
builtin_index(CXCursor member, struct walk *w, struct ks_form *out)
{
	struct kids ch;
	CXCursor base;
	char *bname, *field;
	struct toks t;
	int d, found = 1;

	kids_of(member, &ch);
	if (ch.n != 1) {
		kids_release(&ch);
		return 0;
	}
	base = strip(ch.v[0]);
	kids_release(&ch);
	if (kind(base) != CXCursor_DeclRefExpr)
		return 0;
	bname = spelling(base);
	field = spelling(member);
	if (!*field || ks_starts_with(field, "__fetch_builtin_")) {
		free(field);
		field = NULL;
		toks_of(w->tu, ks_cx.getCursorExtent(member), &t);
		if (t.n)
			field = tok_str(&t, t.n - 1);
		toks_release(&t);
		if (!field)
			field = ks_xstrdup("");
	}
	d = !strcmp(field, "x") ? 0 : !strcmp(field, "y") ? 1
		: !strcmp(field, "z") ? 2 : -1;
	if (d < 0)
		found = 0;
	else if (!strcmp(bname, "threadIdx"))
		ks_form_src(out, (enum ks_src)(KS_SRC_TID_X + d));
	else if (!strcmp(bname, "blockIdx"))
		ks_form_src(out, (enum ks_src)(KS_SRC_BID_X + d));
	else if (!strcmp(bname, "blockDim"))
		ks_form_sym(out, KS_SYM_BDIM_X + (unsigned)d);
	else if (!strcmp(bname, "gridDim"))
		ks_form_sym(out, KS_SYM_GDIM_X + (unsigned)d);
	else
		found = 0;
	free(bname);
	free(field);
	return found;
}

/* The text of a cursor's extent, for naming members of parameters. */
static char *
text_of(struct walk *w, CXCursor c)
{
	struct toks t;
	struct ks_buf b = KS_BUF_INIT;
	unsigned i;

	toks_of(w->tu, ks_cx.getCursorExtent(c), &t);
	for (i = 0; i < t.n; i++) {
		char *s = tok_str(&t, i);

		ks_buf_adds(&b, s);
		free(s);
	}
	toks_release(&t);
	return ks_buf_detach(&b, NULL);
}

static void
eval_declref(struct walk *w, CXCursor c, struct val *out)
{
	CXCursor d = ks_cx.getCursorReferenced(c);
	enum CXCursorKind dk = kind(d);
	struct var *v;
	long long k;
	char *name;

	v = var_find(w, d);
	if (v) {
		if (v->is_array) {
			/* a scalar __shared__ or __device__ variable: memory */
			int id;

			record_access(w, &v->v, c, ks_cx.getCursorType(c),
				      KS_ACC_LOAD, -1, NULL, &id);
			ks_form_data(&out->f, &v->v.f);
			out->ptr = 0;
			out->array = -1;
			out->load = id;
			out->prod = -1;
			out->sum = 0;
			return;
		}
		*out = v->v;
		out->prod = -1;
		out->sum = 0;
		out->literal = 0;
		out->minmax = 0;
		return;
	}
	name = spelling(d);
	if (!strcmp(name, "warpSize")) {
		val_const(out, 32);
	} else if (dk == CXCursor_EnumConstantDecl || int_value(c, &k)) {
		if (dk == CXCursor_EnumConstantDecl && !int_value(c, &k))
			val_unknown(out);
		else
			val_const(out, k);
	} else if (dk == CXCursor_VarDecl &&
		   (is_array(ks_cx.getCursorType(d)) ||
		    var_space(d) != KS_SPACE_CONSTANT ||
		    has_attr(d, CXCursor_CUDAConstantAttr))) {
		/* A file-scope or static object: memory. */
		CXType t = ks_cx.getCursorType(d);
		struct val mem;
		struct var *x;

		val_const(&mem, 0);
		mem.ptr = 1;
		mem.array = add_array(w, name, var_space(d), -1, t);
		x = var_bind(w, d, &mem);
		if (is_array(t)) {
			*out = mem;
		} else {
			x->is_array = 1;
			eval_declref(w, c, out);
		}
	} else {
		/* A uniform value of unknown size: a template parameter, a
		 * constant without a known value. */
		struct ks_form f;

		ks_form_sym(&f, ks_facts_sym(w->f, name));
		val_scalar(out, &f);
	}
	free(name);
}

/* Record a comparison inside a condition as a branch. */
static void
record_compare(struct walk *w, int op, const struct val *a, const struct val *b,
	       unsigned line)
{
	struct ks_branch br;
	unsigned sa = ks_form_sources(&a->f) & KS_SRC_THREAD_MASK;
	unsigned sb = ks_form_sources(&b->f) & KS_SRC_THREAD_MASK;

	memset(&br, 0, sizeof(br));
	br.stmt = w->cond_stmt;
	br.loop = w->cond_loop;
	br.body_loop = -1;
	br.line = line;
	br.rem = (a->f.rem | b->f.rem) & 1;
	if (a->f.data || b->f.data) {
		br.kind = KS_BR_DATA;
	} else if (!sa && !sb) {
		br.kind = KS_BR_UNIFORM;
	} else if (op != KS_CXBO_EQ && op != KS_CXBO_NE &&
		   ((sa && !sb &&
		     !(ks_form_sources(&b->f) & KS_SRC_LOOP_MASK)) ||
		    (sb && !sa &&
		     !(ks_form_sources(&a->f) & KS_SRC_LOOP_MASK)))) {
		br.kind = KS_BR_BOUNDS;
		br.subject = sa ? a->f : b->f;
		br.limit = sa ? b->f : a->f;
		br.cmp = ks_cx_cmp(op, !sa);
	} else {
		br.kind = KS_BR_THREAD;
	}
	ks_facts_add_branch(w->f, &br);
	w->cond_recorded++;
}

static void
record_fp64(struct walk *w, CXCursor c, CXCursor l, CXCursor r)
{
	enum ks_fp64_kind k = KS_FP64_ARITH;

	if ((kind(strip(l)) == CXCursor_FloatingLiteral &&
	     type_is_double(ks_cx.getCursorType(strip(l)))) ||
	    (kind(strip(r)) == CXCursor_FloatingLiteral &&
	     type_is_double(ks_cx.getCursorType(strip(r)))))
		k = KS_FP64_LITERAL;
	ks_facts_add_fp64(w->f, k, w->loop, ks_cx_line(c));
}

static int
is_integer_type(CXType t)
{
	enum CXTypeKind k = ks_cx.getCanonicalType(t).kind;

	return k >= CXType_Bool && k <= CXType_Int128 && k != CXType_Float;
}

/* a op b for an arithmetic operator; pointers keep their object. */
static void
arith(struct walk *w, int op, CXCursor c, const struct val *a,
      const struct val *b, struct val *out)
{
	struct ks_form r;
	long long k;

	if ((op == KS_CXBO_ADD || op == KS_CXBO_SUB) && (a->ptr || b->ptr)) {
		/* pointer arithmetic: scale the integer by the pointee size */
		const struct val *p = a->ptr ? a : b, *i = a->ptr ? b : a;
		CXType pt = ks_cx.getPointeeType(ks_cx.getCursorType(c));
		long long size = type_size(pt);
		struct ks_form scaled;

		if (a->ptr && b->ptr) {	/* difference of pointers */
			ks_form_mix(&r, &a->f, &b->f);
			val_scalar(out, &r);
			return;
		}
		ks_form_scale(&scaled, &i->f, size > 0 ? size : 4);
		*out = *p;
		if (op == KS_CXBO_ADD)
			ks_form_add(&out->f, &p->f, &scaled);
		else
			ks_form_sub(&out->f, &p->f, &scaled);
		out->load = -1;
		return;
	}
	switch (op) {
	case KS_CXBO_ADD:
		ks_form_add(&r, &a->f, &b->f);
		break;
	case KS_CXBO_SUB:
		ks_form_sub(&r, &a->f, &b->f);
		break;
	case KS_CXBO_MUL:
		ks_form_mul(&r, &a->f, &b->f);
		break;
	case KS_CXBO_DIV:
	case KS_CXBO_REM:
		ks_form_div(&r, &a->f, &b->f, op == KS_CXBO_REM);
		break;
	case KS_CXBO_SHL:
		if (ks_form_is_const(&b->f, &k) && k >= 0 && k < 62)
			ks_form_scale(&r, &a->f, 1ll << k);
		else
			ks_form_mix(&r, &a->f, &b->f);
		break;
	case KS_CXBO_SHR:
		if (ks_form_is_const(&b->f, &k) && k >= 0 && k < 62) {
			struct ks_form d;

			ks_form_const(&d, 1ll << k);
			ks_form_div(&r, &a->f, &d, 0);
		} else {
			ks_form_mix(&r, &a->f, &b->f);
		}
		break;
	default:
		ks_form_mix(&r, &a->f, &b->f);
		break;
	}
	val_scalar(out, &r);
	(void)w;
}

static void
eval_binary(struct walk *w, CXCursor c, struct val *out)
{
	struct kids ch;
	struct val a, b;
	int op;

	kids_of(c, &ch);
	if (ch.n != 2) {
		struct ks_form m;

		kids_release(&ch);
		eval_children(w, c, &m);
		val_scalar(out, &m);
		return;
	}
	op = binop(w->tu, c, ch.v[0]);
	if (op == KS_CXBO_ASSIGN) {
		struct loc l;

		eval(w, ch.v[1], &b);
		locate(w, ch.v[0], &l);
		if (l.is_mem) {
			int id;

			record_access(w, &l.where, ch.v[0], l.type,
				      KS_ACC_STORE, b.load, NULL, &id);
		} else if (l.var) {
			/* m = fmaxf(m, x[i]) in a loop: a reduction step */
			if (l.var->carried && b.minmax && b.f.data)
				w->f->loop_accumulations++;
			l.var->v = b;
		}
		if (b.prod >= 0 && b.sum)
			w->f->products[b.prod].accumulate = 1;
		*out = b;
		kids_release(&ch);
		return;
	}
	if (op == KS_CXBO_LAND || op == KS_CXBO_LOR) {
		eval(w, ch.v[0], &a);
		eval(w, ch.v[1], &b);
		ks_form_mix(&out->f, &a.f, &b.f);
		val_scalar(out, &out->f);
		kids_release(&ch);
		return;
	}
	if (op == KS_CXBO_COMMA) {
		eval(w, ch.v[0], &a);
		eval(w, ch.v[1], out);
		kids_release(&ch);
		return;
	}
	eval(w, ch.v[0], &a);
	eval(w, ch.v[1], &b);
	if (is_relational(op)) {
		if (w->in_cond)
			record_compare(w, op, &a, &b, ks_cx_line(c));
		ks_form_mix(&out->f, &a.f, &b.f);
		val_scalar(out, &out->f);
		kids_release(&ch);
		return;
	}
	if ((op == KS_CXBO_DIV || op == KS_CXBO_REM) &&
	    is_integer_type(ks_cx.getCursorType(c)) &&
	    !ks_form_is_const(&b.f, &(long long){0}))
		ks_facts_add_divmod(w->f, op == KS_CXBO_REM, w->loop,
				    ks_cx_line(c));
	if (op >= KS_CXBO_MUL && op <= KS_CXBO_SUB &&
	    type_is_double(ks_cx.getCursorType(c)) && !a.ptr && !b.ptr)
		record_fp64(w, c, ch.v[0], ch.v[1]);
	arith(w, op, c, &a, &b, out);
	if (op == KS_CXBO_MUL && a.load >= 0 && b.load >= 0) {
		struct ks_product p;

		p.a = a.load;
		p.b = b.load;
		p.loop = w->loop;
		p.accumulate = 0;
		p.line = ks_cx_line(c);
		out->prod = ks_facts_add_product(w->f, &p);
	} else if (op == KS_CXBO_ADD || op == KS_CXBO_SUB) {
		out->prod = a.prod >= 0 ? a.prod : b.prod;
		out->sum = 1;
	}
	kids_release(&ch);
}

static void
eval_compound(struct walk *w, CXCursor c, struct val *out)
{
	struct kids ch;
	struct loc l;
	struct val cur, rhs;
	int op;

	kids_of(c, &ch);
	if (ch.n != 2) {
		struct ks_form m;

		kids_release(&ch);
		eval_children(w, c, &m);
		val_scalar(out, &m);
		return;
	}
	op = binop(w->tu, c, ch.v[0]);
	eval(w, ch.v[1], &rhs);
	locate(w, ch.v[0], &l);
	if (l.is_mem) {
		int ld, st;

		record_access(w, &l.where, ch.v[0], l.type, KS_ACC_LOAD, -1,
			      NULL, &ld);
		record_access(w, &l.where, ch.v[0], l.type, KS_ACC_STORE, -1,
			      NULL, &st);
		ks_form_data(&cur.f, &l.where.f);
		val_scalar(&cur, &cur.f);
	} else if (l.var) {
		cur = l.var->v;
		/* sum += x[i] in a loop: a reduction step */
		if (l.var->carried && rhs.f.data &&
		    (op == KS_CXBO_ADDASSIGN || op == KS_CXBO_SUBASSIGN ||
		     op == KS_CXBO_MULASSIGN))
			w->f->loop_accumulations++;
	} else {
		val_unknown(&cur);
	}
	if ((op == KS_CXBO_ADDASSIGN || op == KS_CXBO_SUBASSIGN) &&
	    rhs.prod >= 0)
		w->f->products[rhs.prod].accumulate = 1;
	if ((op == KS_CXBO_DIVASSIGN || op == KS_CXBO_REMASSIGN) &&
	    is_integer_type(ks_cx.getCursorType(c)) &&
	    !ks_form_is_const(&rhs.f, &(long long){ 0 }))
		ks_facts_add_divmod(w->f, op == KS_CXBO_REMASSIGN, w->loop,
				    ks_cx_line(c));
	if (op >= KS_CXBO_MULASSIGN && op <= KS_CXBO_SUBASSIGN &&
	    type_is_double(ks_cx.getCursorType(c)))
		record_fp64(w, c, ch.v[0], ch.v[1]);
	arith(w, op - KS_CXBO_MULASSIGN + KS_CXBO_MUL, c, &cur, &rhs, out);
	if (op == KS_CXBO_ANDASSIGN || op == KS_CXBO_ORASSIGN ||
	    op == KS_CXBO_XORASSIGN)
		ks_form_mix(&out->f, &cur.f, &rhs.f);
	if (l.var && !l.is_mem)
		l.var->v = *out;
	kids_release(&ch);
}

static void
eval_unary(struct walk *w, CXCursor c, struct val *out)
{
	struct kids ch;
	int op = unop(w->tu, c);
	struct val a;

	kids_of(c, &ch);
	if (ch.n != 1) {
		kids_release(&ch);
		val_unknown(out);
		return;
	}
	switch (op) {
	case KS_CXUO_ADDROF: {
		struct loc l;

		locate(w, ch.v[0], &l);
		if (l.is_mem) {
			*out = l.where;
			out->ptr = 1;
			out->load = -1;
		} else {
			val_unknown(out);
		}
		break;
	}
	case KS_CXUO_DEREF: {
		struct loc l;
		int id;

		locate(w, c, &l);
		if (is_array(ks_cx.getCursorType(c))) {
			*out = l.where;
			break;
		}
		record_access(w, &l.where, c, l.type, KS_ACC_LOAD, -1, NULL,
			      &id);
		ks_form_data(&out->f, &l.where.f);
		val_scalar(out, &out->f);
		out->load = id;
		break;
	}
	case KS_CXUO_PREINC:
	case KS_CXUO_PREDEC:
	case KS_CXUO_POSTINC:
	case KS_CXUO_POSTDEC: {
		struct loc l;
		struct val one, r;

		locate(w, ch.v[0], &l);
		val_const(&one, 1);
		if (l.is_mem) {
			int id;

			record_access(w, &l.where, ch.v[0], l.type, KS_ACC_LOAD,
				      -1, NULL, &id);
			record_access(w, &l.where, ch.v[0], l.type,
				      KS_ACC_STORE, -1, NULL, &id);
			val_unknown(out);
		} else if (l.var) {
			arith(w, op == KS_CXUO_PREINC || op == KS_CXUO_POSTINC
					 ? KS_CXBO_ADD : KS_CXBO_SUB,
			      ch.v[0], &l.var->v, &one, &r);
			*out = op == KS_CXUO_PREINC || op == KS_CXUO_PREDEC
				       ? r
				       : l.var->v;
			l.var->v = r;
		} else {
			val_unknown(out);
		}
		break;
	}
	case KS_CXUO_MINUS: {
		struct ks_form zero;

		eval(w, ch.v[0], &a);
		ks_form_zero(&zero);
		ks_form_sub(&zero, &zero, &a.f);
		val_scalar(out, &zero);
		break;
	}
	case KS_CXUO_PLUS:
		eval(w, ch.v[0], out);
		break;
	default:
		eval(w, ch.v[0], &a);
		ks_form_mix(&a.f, &a.f, &a.f);
		val_scalar(out, &a.f);
		break;
	}
	kids_release(&ch);
}

/* The memory behind `base[index]`, `*p`, `p->m`, `s.m`, or a variable. */
static void
locate(struct walk *w, CXCursor c, struct loc *l)
{
	enum CXCursorKind k;
	struct kids ch;

	memset(l, 0, sizeof(*l));
	l->type = ks_cx.getCursorType(c);
	c = strip(c);
	k = kind(c);
	if (k == CXCursor_ArraySubscriptExpr) {
		struct val base, idx;
		struct ks_form scaled;
		long long size = type_size(ks_cx.getCursorType(c));

		kids_of(c, &ch);
		if (ch.n == 2) {
			eval(w, ch.v[0], &base);
			eval(w, ch.v[1], &idx);
			if (!base.ptr) {
				/* idx[base] or a pointer we could not follow */
				base.array = base.ptr ? base.array
						      : unknown_array(w);
				ks_form_data(&base.f, &base.f);
			}
			ks_form_scale(&scaled, &idx.f, size > 0 ? size : 4);
			l->is_mem = 1;
			l->where = base;
			l->where.ptr = 1;
			ks_form_add(&l->where.f, &base.f, &scaled);
		}
		kids_release(&ch);
		return;
	}
	if (k == CXCursor_UnaryOperator && unop(w->tu, c) == KS_CXUO_DEREF) {
		struct val p;

		kids_of(c, &ch);
		if (ch.n == 1) {
			eval(w, ch.v[0], &p);
			if (!p.ptr) {
				p.array = unknown_array(w);
				ks_form_data(&p.f, &p.f);
			}
			l->is_mem = 1;
			l->where = p;
			l->where.ptr = 1;
		}
		kids_release(&ch);
		return;
	}
	if (k == CXCursor_MemberRefExpr) {
		kids_of(c, &ch);
		if (ch.n == 1) {
			CXType bt = ks_cx.getCursorType(ch.v[0]);

			if (is_pointer(bt)) {	/* p->m */
				struct val p;

				eval(w, ch.v[0], &p);
				if (!p.ptr) {
					p.array = unknown_array(w);
					ks_form_data(&p.f, &p.f);
				}
				l->is_mem = 1;
				l->where = p;
				l->where.ptr = 1;
			} else {	/* s.m: the struct's location */
				struct loc inner;

				locate(w, ch.v[0], &inner);
				l->is_mem = inner.is_mem;
				l->where = inner.where;
				l->var = inner.var;
			}
		}
		kids_release(&ch);
		return;
	}
	if (k == CXCursor_DeclRefExpr) {
		CXCursor d = ks_cx.getCursorReferenced(c);
		struct var *v = var_find(w, d);

		if (!v && kind(d) == CXCursor_VarDecl) {
			struct val dummy;

			/* binds file-scope objects */
			eval_declref(w, c, &dummy);
			v = var_find(w, d);
		}
		if (v && v->is_array) {
			l->is_mem = 1;
			l->where = v->v;
		} else {
			l->var = v;
		}
		return;
	}
}

static int
is_shuffle_or_load(const char *name)
{
	return ks_starts_with(name, "__ldg") ||
	       ks_starts_with(name, "__ldcg") ||
	       ks_starts_with(name, "__ldca") ||
	       ks_starts_with(name, "__ldcs") ||
	       ks_starts_with(name, "__ldlu") || ks_starts_with(name, "__ldcv");
}

static int
is_assign_operator(const char *name)
{
	static const char *const ops[] = {
		"operator=",  "operator+=", "operator-=",
		"operator*=", "operator/=",
	};
	size_t i;

	for (i = 0; i < KS_ARRAY_SIZE(ops); i++)
		if (!strcmp(name, ops[i]))
			return 1;
	return 0;
}

static void inline_call(struct walk *w, CXCursor def, struct val *args,
			size_t nargs, struct val *out);

static void
eval_call(struct walk *w, CXCursor c, struct val *out)
{
	CXCursor callee = ks_cx.getCursorReferenced(c);
	char *name = spelling(c);
	enum ks_call_kind ck;
	struct val *args = NULL;
	CXCursor *argc = NULL;
	struct ks_form mix;
	int n = ks_cx.Cursor_getNumArguments(c), i;
	unsigned line = ks_cx_line(c);

	if (!*name) {
		free(name);
		name = spelling(callee);
	}
	/* Constructors and conversions (dim3, float4) are calls too. */
	if (n < 0) {
		eval_children(w, c, &mix);
		val_scalar(out, &mix);
		free(name);
		return;
	}
	args = ks_xcalloc((size_t)n + 1, sizeof(*args));
	argc = ks_xcalloc((size_t)n + 1, sizeof(*argc));
	ks_form_zero(&mix);
	ck = ks_facts_call_kind(name);
	for (i = 0; i < n; i++) {
		argc[i] = ks_cx.Cursor_getArgument(c, (unsigned)i);
		/* an assignment's target is located (below), not loaded */
		if (i == 0 && n == 2 && is_assign_operator(name)) {
			val_unknown(&args[i]);
			continue;
		}
		eval(w, argc[i], &args[i]);
		if (!args[i].ptr)
			ks_form_mix(&mix, &mix, &args[i].f);
	}
	val_scalar(out, &mix);
	if (ck == KS_CALL_ATOMIC && n >= 1 && args[0].ptr) {
		CXType pt = ks_cx.getPointeeType(ks_cx.getCursorType(argc[0]));
		int id;

		record_access(w, &args[0], c, pt,
			      KS_ACC_LOAD | KS_ACC_STORE | KS_ACC_ATOMIC, -1,
			      name, &id);
		ks_form_data(&out->f, &args[0].f);
	} else if (is_shuffle_or_load(name) && n >= 1 && args[0].ptr) {
		CXType pt = ks_cx.getPointeeType(ks_cx.getCursorType(argc[0]));
		int id;

		record_access(w, &args[0], c, pt, KS_ACC_LOAD, -1, NULL, &id);
		ks_form_data(&out->f, &args[0].f);
		out->load = id;
	} else if (ks_starts_with(name, "__st") && n >= 2 && args[0].ptr) {
		CXType pt = ks_cx.getPointeeType(ks_cx.getCursorType(argc[0]));
		int id;

		record_access(w, &args[0], c, pt, KS_ACC_STORE, args[1].load,
			      NULL, &id);
	} else if ((!strcmp(name, "fma") || !strcmp(name, "fmaf") ||
		    ks_starts_with(name, "__fmaf_") ||
		    ks_starts_with(name, "__fma_") ||
		    !strcmp(name, "__hfma")) &&
		   n == 3) {
		if (args[0].load >= 0 && args[1].load >= 0) {
			struct ks_product p;

			p.a = args[0].load;
			p.b = args[1].load;
			p.loop = w->loop;
			p.accumulate = 1;
			p.line = line;
			ks_facts_add_product(w->f, &p);
		}
		ck = KS_CALL_MATH;
	} else if (n == 2 && is_assign_operator(name)) {
		/* v = w, v += w on a struct or vector type: an assignment */
		struct loc l;
		int id;

		locate(w, argc[0], &l);
		if (l.is_mem) {
			if (strcmp(name, "operator="))
				record_access(w, &l.where, argc[0], l.type,
					      KS_ACC_LOAD, -1, NULL, &id);
			record_access(w, &l.where, argc[0], l.type,
				      KS_ACC_STORE, args[1].load, NULL, &id);
		} else if (l.var && !strcmp(name, "operator=")) {
			l.var->v = args[1];
		}
		*out = args[1];
		ck = KS_CALL_OTHER;
	} else if ((!strcmp(name, "__mul24") || !strcmp(name, "__umul24")) &&
		   n == 2) {
		ks_form_mul(&out->f, &args[0].f, &args[1].f);
	} else if ((!strcmp(name, "min") || !strcmp(name, "max")) && n == 2) {
		/* min(i, n): keeps the sources, not their linearity */
		ks_form_mix(&out->f, &args[0].f, &args[1].f);
	} else if (ks_cx.isCursorDefinition(
			   ks_cx.getCursorDefinition(callee)) &&
		   !ks_cx_is_system(ks_cx.getCursorDefinition(callee)) &&
		   !has_attr(ks_cx.getCursorDefinition(callee),
			     CXCursor_CUDAGlobalAttr)) {
		CXCursor def = ks_cx.getCursorDefinition(callee);

		ck = KS_CALL_DEVICE;
		inline_call(w, def, args, (size_t)n, out);
	} else if (ck == KS_CALL_OTHER || ck == KS_CALL_TENSOR) {
		/* an unknown function: its result may come from memory */
		ks_form_data(&out->f, &mix);
	}
	if (!strcmp(name, "min") || !strcmp(name, "max") ||
	    !strcmp(name, "fminf") || !strcmp(name, "fmaxf") ||
	    !strcmp(name, "fmin") || !strcmp(name, "fmax") ||
	    !strcmp(name, "__hmin") || !strcmp(name, "__hmax"))
		out->minmax = 1;
	if (ck != KS_CALL_OTHER || ck == KS_CALL_DEVICE) {
		int fp64 =
			(ck == KS_CALL_TRANSCENDENTAL || ck == KS_CALL_MATH) &&
			ks_cx.getCanonicalType(ks_cx.getCursorType(c)).kind ==
				CXType_Double;

		ks_facts_add_call(w->f, name, ck, fp64, w->loop, line);
		if (fp64)
			ks_facts_add_fp64(w->f, KS_FP64_CALL, w->loop, line);
	}
	free(args);
	free(argc);
	free(name);
}

static void
eval_member(struct walk *w, CXCursor c, struct val *out)
{
	struct ks_form f;
	struct kids ch;
	struct loc l;
	CXType t = ks_cx.getCursorType(c);

	if (builtin_index(c, w, &f)) {
		val_scalar(out, &f);
		return;
	}
	kids_of(c, &ch);
	if (ch.n == 1 && kind(strip(ch.v[0])) == CXCursor_DeclRefExpr) {
		CXCursor d = ks_cx.getCursorReferenced(strip(ch.v[0]));
		struct var *v = var_find(w, d);

		/* A member of a by-value parameter (or uniform struct):
		 * uniform; a pointer member is a memory object of its own. */
		if (v && !v->is_array && !v->v.ptr &&
		    ks_form_is_uniform(&v->v.f) &&
		    !is_pointer(ks_cx.getCursorType(ch.v[0]))) {
			char *name = text_of(w, c);

			if (is_pointer(t) || is_array(t)) {
				struct val mem;

				val_const(&mem, 0);
				mem.ptr = 1;
				mem.array = add_array(w, name, KS_SPACE_GLOBAL,
						      -1, t);
				var_bind(w, c, &mem);
				*out = mem;
			} else {
				ks_form_sym(&f, ks_facts_sym(w->f, name));
				val_scalar(out, &f);
			}
			free(name);
			kids_release(&ch);
			return;
		}
	}
	kids_release(&ch);
	locate(w, c, &l);
	if (l.is_mem) {
		int id;

		if (is_array(t)) {
			*out = l.where;
			return;
		}
		record_access(w, &l.where, c, t, KS_ACC_LOAD, -1, NULL, &id);
		ks_form_data(&f, &l.where.f);
		val_scalar(out, &f);
		out->load = id;
	} else if (l.var) {
		/* a field of a local struct or vector: as unknown as the
		 * struct's value */
		*out = l.var->v;
		out->prod = -1;
		out->sum = 0;
		if (out->ptr && !is_pointer(t))
			val_unknown(out);
	} else {
		eval_children(w, c, &f);
		val_scalar(out, &f);
	}
}

static void
eval_cond_op(struct walk *w, CXCursor c, struct val *out)
{
	struct kids ch;
	struct val a, b;
	long long k;
	int cond_data = 0;

	kids_of(c, &ch);
	if (ch.n != 3) {
		struct ks_form m;

		kids_release(&ch);
		eval_children(w, c, &m);
		val_scalar(out, &m);
		return;
	}
	{
		int saved = w->in_cond, rec = w->cond_recorded;
		enum ks_branch_stmt ss = w->cond_stmt;
		int sl = w->cond_loop;
		struct val cv;

		w->in_cond = 1;
		w->cond_stmt = KS_BRS_COND;
		w->cond_loop = w->loop;
		w->cond_recorded = 0;
		eval(w, ch.v[0], &cv);
		if (!w->cond_recorded) {
			struct val zero;

			val_const(&zero, 0);
			record_compare(w, KS_CXBO_EQ, &cv, &zero,
				       ks_cx_line(c));
		}
		w->in_cond = saved;
		w->cond_stmt = ss;
		w->cond_loop = sl;
		w->cond_recorded = rec;
		cond_data = cv.f.data;
	}
	eval(w, ch.v[1], &a);
	eval(w, ch.v[2], &b);
	/* which arm is taken depends on what the condition depends on */
	if (cond_data) {
		a.f.data = 1;
		b.f.data = 1;
	}
	if (a.ptr && b.ptr && a.array == b.array) {
		*out = a;
		ks_form_mix(&out->f, &a.f, &b.f);
	} else {
		ks_form_mix(&out->f, &a.f, &b.f);
		val_scalar(out, &out->f);
		/* c ? A[i] : 0 still stores what A[i] holds */
		if (a.load >= 0 && (b.literal || ks_form_is_const(&b.f, &k)))
			out->load = a.load;
		else if (b.load >= 0 &&
			 (a.literal || ks_form_is_const(&a.f, &k)))
			out->load = b.load;
	}
	kids_release(&ch);
}

static void
eval(struct walk *w, CXCursor c, struct val *out)
{
	enum CXCursorKind k = kind(c);
	struct ks_form f;
	struct kids ch;
	long long v;

	switch (k) {
	case CXCursor_IntegerLiteral:
	case CXCursor_CharacterLiteral:
	case CXCursor_CXXBoolLiteralExpr:
	case CXCursor_UnaryExpr:
		if (int_value(c, &v))
			val_const(out, v);
		else
			val_unknown(out);
		return;
	case CXCursor_FloatingLiteral:
		val_unknown(out);
		out->literal = 1;
		return;
	case CXCursor_StringLiteral:
	case CXCursor_CXXNullPtrLiteralExpr:
		val_unknown(out);
		return;
	case CXCursor_DeclRefExpr:
		eval_declref(w, c, out);
		return;
	case CXCursor_MemberRefExpr:
		eval_member(w, c, out);
		return;
	case CXCursor_ArraySubscriptExpr: {
		struct loc l;
		int id;

		locate(w, c, &l);
		if (is_array(ks_cx.getCursorType(c))) {
			*out = l.where;	/* t[i] of t[][]: still an address */
			return;
		}
		record_access(w, &l.where, c, l.type, KS_ACC_LOAD, -1, NULL,
			      &id);
		ks_form_data(&f, &l.where.f);
		val_scalar(out, &f);
		out->load = id;
		return;
	}
	case CXCursor_BinaryOperator:
		eval_binary(w, c, out);
		return;
	case CXCursor_CompoundAssignOperator:
		eval_compound(w, c, out);
		return;
	case CXCursor_UnaryOperator:
		eval_unary(w, c, out);
		return;
	case CXCursor_ConditionalOperator:
		eval_cond_op(w, c, out);
		return;
	case CXCursor_CallExpr:
		eval_call(w, c, out);
		return;
	case CXCursor_ParenExpr:
	case CXCursor_UnexposedExpr:
	case CXCursor_CStyleCastExpr:
	case CXCursor_CXXStaticCastExpr:
	case CXCursor_CXXReinterpretCastExpr:
	case CXCursor_CXXConstCastExpr:
	case CXCursor_CXXFunctionalCastExpr: {
		/* casts and wrappers: the value of the last expression child */
		size_t i, last = (size_t)-1;

		kids_of(c, &ch);
		for (i = 0; i < ch.n; i++) {
			enum CXCursorKind ck = kind(ch.v[i]);

			if (ck != CXCursor_TypeRef &&
			    ck != CXCursor_TemplateRef &&
			    ck != CXCursor_NamespaceRef)
				last = i;
		}
		if (last == (size_t)-1) {
			val_unknown(out);
		} else if (ch.n > 1 && k == CXCursor_UnexposedExpr) {
			/* an unexposed node with several operands (an
			 * overloaded operator in a template, a construction) */
			kids_release(&ch);
			eval_children(w, c, &f);
			val_scalar(out, &f);
			return;
		} else {
			eval(w, ch.v[last], out);
			if (k != CXCursor_ParenExpr &&
			    k != CXCursor_UnexposedExpr) {
				CXType t = ks_cx.getCursorType(c);

				if (type_is_vector(t))
					w->f->uses_vector_types = 1;
				/* (int)x of a pointer or a float: not an index
				 */
				if (out->ptr && !is_pointer(t))
					val_unknown(out);
			}
		}
		kids_release(&ch);
		return;
	}
	case CXCursor_LambdaExpr:
		val_unknown(out);
		return;
	default:
		eval_children(w, c, &f);
		val_scalar(out, &f);
		return;
	}
}

/* ---- statements ---------------------------------------------------------- */

static void
condition(struct walk *w, CXCursor c, enum ks_branch_stmt s, int early_exit,
	  int *nonuniform)
{
	int saved = w->in_cond, rec = w->cond_recorded;
	enum ks_branch_stmt ss = w->cond_stmt;
	int sl = w->cond_loop;
	size_t first = w->f->nbranches, i;
	struct val v;

	w->in_cond = 1;
	w->cond_stmt = s;
	w->cond_loop = w->loop;
	w->cond_recorded = 0;
	eval(w, c, &v);
	if (!w->cond_recorded) {
		struct val zero;

		val_const(&zero, 0);
		record_compare(w, KS_CXBO_NE, &v, &zero, ks_cx_line(c));
	}
	*nonuniform = 0;
	for (i = first; i < w->f->nbranches; i++) {
		w->f->branches[i].early_exit = early_exit;
		if (w->f->branches[i].kind != KS_BR_UNIFORM)
			*nonuniform = 1;
	}
	w->in_cond = saved;
	w->cond_stmt = ss;
	w->cond_loop = sl;
	w->cond_recorded = rec;
}

static int
is_return(CXCursor c)
{
	struct kids ch;
	int r;

	if (kind(c) == CXCursor_ReturnStmt)
		return 1;
	if (kind(c) != CXCursor_CompoundStmt)
		return 0;
	kids_of(c, &ch);
	r = ch.n == 1 && kind(ch.v[0]) == CXCursor_ReturnStmt;
	kids_release(&ch);
	return r;
}

static void
declare(struct walk *w, CXCursor d)
{
	CXType t = ks_cx.getCursorType(d);
	struct kids ch;
	struct val v;
	size_t i;
	int shared = has_attr(d, CXCursor_CUDASharedAttr);
	char *name = spelling(d);

	if (type_is_double(t))
		w->f->declares_double = 1;
	if (type_is_floaty(t))
		w->f->float_code = 1;
	if (type_is_vector(t))
		w->f->uses_vector_types = 1;
	if (shared || has_attr(d, CXCursor_CUDAConstantAttr) || is_array(t)) {
		struct var *x;

		val_const(&v, 0);
		v.ptr = 1;
		v.array = add_array(w, name,
				    shared ? KS_SPACE_SHARED
				    : has_attr(d, CXCursor_CUDAConstantAttr)
					    ? KS_SPACE_CONSTANT
					    : KS_SPACE_LOCAL,
				    -1, t);
		w->f->shared_decls += shared;
		x = var_bind(w, d, &v);
		x->is_array = !is_array(t);
		/* initializers of local arrays: evaluate for their accesses */
		kids_of(d, &ch);
		for (i = 0; i < ch.n; i++)
			if (kind(ch.v[i]) == CXCursor_InitListExpr) {
				struct ks_form m;

				eval_children(w, ch.v[i], &m);
			}
		kids_release(&ch);
		free(name);
		return;
	}
	val_unknown(&v);
	kids_of(d, &ch);
	for (i = 0; i < ch.n; i++) {
		enum CXCursorKind k = kind(ch.v[i]);

		if (k == CXCursor_TypeRef || k == CXCursor_TemplateRef ||
		    k == CXCursor_NamespaceRef || k >= CXCursor_FirstAttr)
			continue;
		eval(w, ch.v[i], &v);
	}
	kids_release(&ch);
	if (v.ptr && !is_pointer(t) && !is_array(t) &&
	    ks_cx.getCanonicalType(t).kind != CXType_LValueReference)
		val_unknown(&v);
	v.prod = -1;
	v.sum = 0;
	var_bind(w, d, &v);
	free(name);
}

/* Variables assigned in a loop body, and how. */
struct assigned {
	CXCursor decl;
	int count;
	int add;		/* a single `v += e`, `v -= e`, `v++`, `v--` */
	int mul;		/* a single *=, /=, <<=, >>= */
	CXCursor step;		/* e of `v += e`, or a null cursor */
	int negative;
	int was_carried;	/* the variable's mark before this loop */
};

struct scan {
	struct walk *w;
	unsigned begin, end;	/* the loop's extent: decls inside are local */
	struct assigned *a;
	size_t n;
};

static void
scan_note(struct scan *s, CXCursor lhs, int add, int mul, CXCursor step,
	  int neg)
{
	CXCursor d;
	size_t i;
	unsigned off;

	lhs = strip(lhs);
	if (kind(lhs) != CXCursor_DeclRefExpr)
		return;
	d = ks_cx.getCursorReferenced(lhs);
	if (kind(d) != CXCursor_VarDecl && kind(d) != CXCursor_ParmDecl)
		return;
	off = begin_of(d);
	if (off >= s->begin && off < s->end)
		return;		/* declared inside the loop */
	for (i = 0; i < s->n; i++)
		if (same(s->a[i].decl, d))
			break;
	if (i == s->n) {
		s->a = ks_xrealloc(s->a, (s->n + 1) * sizeof(*s->a));
		memset(&s->a[i], 0, sizeof(s->a[i]));
		s->a[i].decl = d;
		s->a[i].step = ks_cx.getNullCursor();
		s->n++;
	}
	s->a[i].count++;
	s->a[i].add = add;
	s->a[i].mul = mul;
	s->a[i].step = step;
	s->a[i].negative = neg;
}

static enum CXChildVisitResult
scan_visit(CXCursor c, CXCursor parent, CXClientData data)
{
	struct scan *s = data;
	enum CXCursorKind k = kind(c);
	struct kids ch;

	(void)parent;
	if (k == CXCursor_BinaryOperator ||
	    k == CXCursor_CompoundAssignOperator) {
		kids_of(c, &ch);
		if (ch.n == 2) {
			int op = binop(s->w->tu, c, ch.v[0]);

			if (op == KS_CXBO_ADDASSIGN || op == KS_CXBO_SUBASSIGN)
				scan_note(s, ch.v[0], 1, 0, ch.v[1],
					  op == KS_CXBO_SUBASSIGN);
			else if (op == KS_CXBO_MULASSIGN ||
				 op == KS_CXBO_DIVASSIGN ||
				 op == KS_CXBO_SHLASSIGN ||
				 op == KS_CXBO_SHRASSIGN)
				scan_note(s, ch.v[0], 0, 1,
					  ks_cx.getNullCursor(), 0);
			else if (op == KS_CXBO_ASSIGN ||
				 k == CXCursor_CompoundAssignOperator)
				scan_note(s, ch.v[0], 0, 0,
					  ks_cx.getNullCursor(), 0);
		}
		kids_release(&ch);
	} else if (k == CXCursor_UnaryOperator) {
		int op = unop(s->w->tu, c);

		if (op >= KS_CXUO_POSTINC && op <= KS_CXUO_PREDEC) {
			kids_of(c, &ch);
			if (ch.n == 1)
				scan_note(s, ch.v[0], 1, 0,
					  ks_cx.getNullCursor(),
					  op == KS_CXUO_POSTDEC ||
						  op == KS_CXUO_PREDEC);
			kids_release(&ch);
		}
	}
	return CXChildVisit_Recurse;
}

static enum CXChildVisitResult
impure_visit(CXCursor c, CXCursor parent, CXClientData data)
{
	enum CXCursorKind k = kind(c);
	struct ks_form f;

	(void)parent;
	if (k == CXCursor_MemberRefExpr &&
	    builtin_index(c, (struct walk *)data, &f))
		return CXChildVisit_Continue;
	if (k == CXCursor_ArraySubscriptExpr || k == CXCursor_CallExpr ||
	    k == CXCursor_MemberRefExpr ||
	    (k == CXCursor_UnaryOperator &&
	     unop(((struct walk *)data)->tu, c) == KS_CXUO_DEREF)) {
		((struct walk *)data)->impure = 1;
		return CXChildVisit_Break;
	}
	return CXChildVisit_Recurse;
}

/*
 * Whether evaluating `c` could record facts (a load, a call): then it is
 * not evaluated a second time for a loop's step or bound, which would
 * count its accesses twice. threadIdx.x and friends are member
 * references too, and pure.
 */
static int
impure(struct walk *w, CXCursor c)
{
	struct ks_form f;

	w->impure = 0;
	if (kind(c) == CXCursor_MemberRefExpr && builtin_index(c, w, &f))
		return 0;
	ks_cx.visitChildren(c, impure_visit, w);
	if (!w->impure && kind(c) == CXCursor_CallExpr)
		w->impure = 1;
	return w->impure;
}

/* Drop loop `d`'s source from a value that outlives the loop. */
static void
forget_loop(struct ks_form *f, int d)
{
	unsigned bits = 0;
	int s;

	for (s = KS_SRC_LOOP0 + d; s < KS_SRC_ONE; s++) {
		struct ks_form z;

		ks_form_zero(&z);
		if (ks_form_sources(f) & KS_SRC_BIT(s))
			bits |= KS_SRC_BIT(s);
		f->c[s] = z.c[s];
		f->nonlinear &= ~KS_SRC_BIT(s);
	}
	if (bits) {
		struct ks_form z;

		ks_form_zero(&z);
		ks_form_mix(f, f, &z);
		f->c[KS_SRC_ONE].opaque = 1;
	}
}

static long long
trip_count(const struct ks_loop *l, int op, int induction_left)
{
	long long init, bound, step, n = 0, i;

	if (!ks_form_is_const(&l->init, &init) ||
	    !ks_form_is_const(&l->bound, &bound))
		return -1;
	if (!induction_left) {	/* n > i  is  i < n */
		switch (op) {
		case KS_CXBO_LT: op = KS_CXBO_GT; break;
		case KS_CXBO_GT: op = KS_CXBO_LT; break;
		case KS_CXBO_LE: op = KS_CXBO_GE; break;
		case KS_CXBO_GE: op = KS_CXBO_LE; break;
		default: break;
		}
	}
	if (l->step_kind == KS_STEP_ADD) {
		if (!ks_form_is_const(&l->step, &step) || step == 0)
			return -1;
	} else {
		return -1;
	}
	/* Simulate (bounded): clear and exact for every operator. */
	for (i = init; n <= 1 << 20; i += step, n++) {
		int go;

		switch (op) {
		case KS_CXBO_LT: go = i < bound; break;
		case KS_CXBO_LE: go = i <= bound; break;
		case KS_CXBO_GT: go = i > bound; break;
		case KS_CXBO_GE: go = i >= bound; break;
		case KS_CXBO_NE: go = i != bound; break;
		default: return -1;
		}
		if (!go)
			return n;
	}
	return -1;
}

/* Multiplicative loops (s *= 2, s >>= 1) with constant bounds. */
static long long
trip_count_mul(CXTranslationUnit tu, CXCursor inc, const struct ks_loop *l,
	       int op, int left)
{
	long long init, bound, k, i, n = 0;
	struct kids ch;
	int sop = 0;

	if (!ks_form_is_const(&l->init, &init) ||
	    !ks_form_is_const(&l->bound, &bound))
		return -1;
	inc = strip(inc);
	if (kind(inc) != CXCursor_CompoundAssignOperator)
		return -1;
	kids_of(inc, &ch);
	if (ch.n == 2 && int_value(strip(ch.v[1]), &k))
		sop = binop(tu, inc, ch.v[0]);
	kids_release(&ch);
	if (!sop || k <= 0 || (sop == KS_CXBO_MULASSIGN && k < 2))
		return -1;
	if (!left)
		op = op == KS_CXBO_LT   ? KS_CXBO_GT
		     : op == KS_CXBO_GT ? KS_CXBO_LT
		     : op == KS_CXBO_LE ? KS_CXBO_GE
		     : op == KS_CXBO_GE ? KS_CXBO_LE
					: op;
	for (i = init; n < 128; n++) {
		int go = op == KS_CXBO_LT   ? i < bound
			 : op == KS_CXBO_LE ? i <= bound
			 : op == KS_CXBO_GT ? i > bound
			 : op == KS_CXBO_GE ? i >= bound
			 : op == KS_CXBO_NE ? i != bound
					    : -1;

		if (go < 0)
			return -1;
		if (!go)
			return n;
		switch (sop) {
		case KS_CXBO_MULASSIGN: i *= k; break;
		case KS_CXBO_DIVASSIGN: i /= k; break;
		case KS_CXBO_SHLASSIGN: i <<= k; break;
		case KS_CXBO_SHRASSIGN: i >>= k; break;
		default: return -1;
		}
	}
	return -1;
}

/* The parts of a for statement, told apart by the positions of its ';'s. */
static void
for_parts(struct walk *w, CXCursor c, CXCursor part[4])
{
	struct kids ch;
	struct toks t;
	unsigned semi[2] = { 0, 0 }, rparen = 0, i;
	int depth = 0, nsemi = 0, found_paren = 0;
	size_t k;

	for (k = 0; k < 4; k++)
		part[k] = ks_cx.getNullCursor();
	kids_of(c, &ch);
	toks_of(w->tu, ks_cx.getCursorExtent(c), &t);
	for (i = 0; i < t.n; i++) {
		char *s = tok_str(&t, i);

		if (!strcmp(s, "(")) {
			depth++;
			found_paren = 1;
		} else if (!strcmp(s, ")")) {
			if (--depth == 0 && found_paren) {
				rparen = tok_begin(&t, i);
				free(s);
				break;
			}
		} else if (!strcmp(s, ";") && depth == 1 && nsemi < 2) {
			semi[nsemi++] = tok_begin(&t, i);
		}
		free(s);
	}
	toks_release(&t);
	if (nsemi == 2 && rparen) {
		for (k = 0; k < ch.n; k++) {
			unsigned b = begin_of(ch.v[k]);
			int slot = b < semi[0]   ? 0
				   : b < semi[1] ? 1
				   : b < rparen  ? 2
						 : 3;

			part[slot] = ch.v[k];
		}
	} else if (ch.n == 4) {
		for (k = 0; k < 4; k++)
			part[k] = ch.v[k];
	} else if (ch.n) {
		part[3] = ch.v[ch.n - 1];
	}
	kids_release(&ch);
}

/* The induction variable compared in a loop condition, and its bound. */
static int
loop_bound(struct walk *w, CXCursor cond, CXCursor *var, struct ks_form *bound,
	   int *op, int *left)
{
	struct kids ch;
	int found = 0;

	cond = strip(cond);
	if (ks_cx.Cursor_isNull(cond) || kind(cond) != CXCursor_BinaryOperator)
		return 0;
	kids_of(cond, &ch);
	if (ch.n == 2) {
		int o = binop(w->tu, cond, ch.v[0]);

		if (is_relational(o)) {
			int side;

			for (side = 0; side < 2 && !found; side++) {
				CXCursor s = strip(ch.v[side]);

				if (kind(s) == CXCursor_DeclRefExpr) {
					struct val b;
					int saved = w->in_cond;

					*var = ks_cx.getCursorReferenced(s);
					w->in_cond = 0;
					if (impure(w, ch.v[1 - side])) {
						/* j < ptr[r + 1]: read once,
						 * by the condition itself */
						val_unknown(&b);
						b.f.data = 1;
					} else {
						eval(w, ch.v[1 - side], &b);
					}
					w->in_cond = saved;
					*bound = b.f;
					*op = o;
					*left = side == 0;
					found = 1;
				}
			}
		}
	}
	kids_release(&ch);
	return found;
}

static void
loop_stmt(struct walk *w, CXCursor c, CXCursor init, CXCursor cond,
	  CXCursor inc, CXCursor body)
{
	struct scan s;
	struct ks_loop l;
	int id, d = w->depth < KS_MAX_LOOP_DEPTH ? w->depth
						 : KS_MAX_LOOP_DEPTH - 1;
	size_t i, first_call, nvars_before;
	int nonuniform, op = 0, left = 1;
	CXCursor ivar = ks_cx.getNullCursor();
	struct ks_form bound;
	struct ks_form lsrc;

	if (!ks_cx.Cursor_isNull(init))
		stmt(w, init);
	nvars_before = w->nvars;
	memset(&s, 0, sizeof(s));
	s.w = w;
	/* Variables declared in the body are fresh each iteration; those
	 * of a for's init (before the body) are carried. */
	s.begin = ks_cx.Cursor_isNull(body) ? end_of(c) : begin_of(body);
	s.end = end_of(c);
	/* the body itself may be the one assignment (no braces) */
	if (!ks_cx.Cursor_isNull(body)) {
		scan_visit(body, c, &s);
		ks_cx.visitChildren(body, scan_visit, &s);
	}
	if (!ks_cx.Cursor_isNull(inc)) {
		scan_visit(inc, c, &s);
		ks_cx.visitChildren(inc, scan_visit, &s);
	}
	memset(&l, 0, sizeof(l));
	l.parent = w->loop;
	l.depth = d;
	l.line = ks_cx_line(c);
	ks_form_zero(&l.init);
	ks_form_zero(&l.step);
	ks_form_zero(&l.bound);
	ks_form_src(&lsrc, (enum ks_src)(KS_SRC_LOOP0 + d));
	ks_form_zero(&bound);
	if (!ks_cx.Cursor_isNull(cond))
		loop_bound(w, cond, &ivar, &bound, &op, &left);
	/* Loop-carried variables: v0 + L*step for a single v += uniform. */
	for (i = 0; i < s.n; i++) {
		struct assigned *a = &s.a[i];
		struct var *v = var_find(w, a->decl);
		int is_ind = !ks_cx.Cursor_isNull(ivar) && same(ivar, a->decl);
		struct val step;

		if (!v)
			continue;
		a->was_carried = v->carried;
		v->carried = 1;
		if (a->count == 1 && a->add) {
			if (ks_cx.Cursor_isNull(a->step)) {
				val_const(&step, 1);
			} else if (impure(w, a->step)) {
				/* sum += x[i]: not an induction */
				val_unknown(&step);
				step.f.data = 1;
			} else {
				eval(w, a->step, &step);
			}
			if (a->negative) {
				struct ks_form z;

				ks_form_zero(&z);
				ks_form_sub(&step.f, &z, &step.f);
			}
			if (is_ind) {
				l.step_kind = KS_STEP_ADD;
				l.init = v->v.f;
				l.step = step.f;
			}
			if (ks_form_is_uniform(&step.f) && !v->v.ptr) {
				struct ks_form t;

				ks_form_mul(&t, &lsrc, &step.f);
				ks_form_add(&v->v.f, &v->v.f, &t);
			} else if (v->v.ptr && ks_form_is_uniform(&step.f)) {
				/* p += n: the pointer advances n elements */
				CXType pt = ks_cx.getPointeeType(
					ks_cx.getCursorType(a->decl));
				long long size = type_size(pt);
				struct ks_form t;

				ks_form_mul(&t, &lsrc, &step.f);
				ks_form_scale(&t, &t, size > 0 ? size : 4);
				ks_form_add(&v->v.f, &v->v.f, &t);
			} else {
				ks_form_mix(&v->v.f, &v->v.f, &lsrc);
			}
		} else {
			if (is_ind) {
				l.step_kind = a->count == 1 && a->mul
						      ? KS_STEP_MUL
						      : KS_STEP_OTHER;
				l.init = v->v.f;
			}
			ks_form_mix(&v->v.f, &v->v.f, &lsrc);
		}
		v->v.load = -1;
		v->v.prod = -1;
	}
	l.bound = bound;
	if (l.step_kind == KS_STEP_ADD)
		l.trip = trip_count(&l, op, left);
	else if (l.step_kind == KS_STEP_MUL && !ks_cx.Cursor_isNull(inc))
		l.trip = trip_count_mul(w->tu, inc, &l, op, left);
	else
		l.trip = -1;
	l.has_trip = l.trip >= 0;
	if (!l.has_trip)
		l.trip = 0;
	id = ks_facts_add_loop(w->f, &l);
	first_call = w->f->ncalls;
	{
		int saved_loop = w->loop, saved_depth = w->depth;
		int saved_guards = w->guards;
		size_t b0 = w->f->nbranches, k;

		w->loop = id;
		w->depth++;
		if (!ks_cx.Cursor_isNull(cond)) {
			condition(w, cond, KS_BRS_LOOP, 0, &nonuniform);
			for (k = b0; k < w->f->nbranches; k++) {
				w->f->branches[k].body_loop = id;
				w->f->branches[k].loop = saved_loop;
			}
			if (nonuniform)
				w->guards++;
		}
		if (!ks_cx.Cursor_isNull(body))
			stmt(w, body);
		if (!ks_cx.Cursor_isNull(inc)) {
			struct val dummy;

			eval(w, inc, &dummy);
		}
		w->loop = saved_loop;
		w->depth = saved_depth;
		w->guards = saved_guards;
	}
	for (i = first_call; i < w->f->ncalls; i++) {
		if (w->f->calls[i].kind == KS_CALL_SYNC)
			w->f->loops[id].has_sync = 1;
		if (w->f->calls[i].kind == KS_CALL_WARP)
			w->f->loops[id].has_warp = 1;
	}
	/* Variables declared in the loop go out of scope; those carried
	 * by it lose the induction. */
	w->nvars = nvars_before;
	for (i = 0; i < s.n; i++) {
		struct var *v = var_find(w, s.a[i].decl);

		if (v) {
			forget_loop(&v->v.f, d);
			v->carried = s.a[i].was_carried;
		}
	}
	free(s.a);
}

/*
 * After a branch whose condition depends on the thread or on data: a
 * variable it assigned holds either its old or its new value, so its
 * form is the mix of both (not the last assignment: `if (b > n - 1)
 * b = n - 1;` leaves b data-dependent), and depends on data when the
 * condition does.
 */
static void
merge_branch(struct walk *w, const struct val *before, size_t n, int cond_data)
{
	for (size_t i = 0; i < n && i < w->nvars; i++) {
		struct val *v = &w->vars[i].v;

		if (w->vars[i].is_array ||
		    (ks_form_equal(&v->f, &before[i].f) &&
		     v->ptr == before[i].ptr && v->array == before[i].array))
			continue;
		if (v->ptr != before[i].ptr || v->array != before[i].array) {
			ks_form_mix(&v->f, &v->f, &before[i].f);
			v->f.data = 1;	/* which object: unknown here */
			continue;
		}
		ks_form_mix(&v->f, &v->f, &before[i].f);
		if (cond_data)
			v->f.data = 1;
	}
}

static void
stmt(struct walk *w, CXCursor c)
{
	enum CXCursorKind k = kind(c);
	struct kids ch;
	size_t i, mark;
	int nonuniform;

	switch (k) {
	case CXCursor_CompoundStmt:
		mark = w->nvars;
		kids_of(c, &ch);
		for (i = 0; i < ch.n; i++)
			stmt(w, ch.v[i]);
		kids_release(&ch);
		w->nvars = mark;
		return;
	case CXCursor_DeclStmt:
		kids_of(c, &ch);
		for (i = 0; i < ch.n; i++)
			if (kind(ch.v[i]) == CXCursor_VarDecl)
				declare(w, ch.v[i]);
		kids_release(&ch);
		return;
	case CXCursor_IfStmt: {
		int saved = w->guards, cond_data = 0;
		struct val *before = NULL;

		kids_of(c, &ch);
		mark = w->nvars;
		/* if (init; cond) / if (T x = ...): the condition is the
		 * child before the branches */
		if (ch.n >= 2) {
			size_t ci = ch.n >= 3 &&
						    kind(ch.v[ch.n - 1]) !=
							    CXCursor_NullStmt &&
						    ch.n == 4
					    ? 1
					    : 0;

			for (i = 0; i < ci; i++)
				stmt(w, ch.v[i]);
			if (kind(ch.v[ci]) == CXCursor_VarDecl)
				declare(w, ch.v[ci]);
			size_t b0 = w->f->nbranches;

			condition(w, ch.v[ci], KS_BRS_IF,
				  is_return(ch.v[ci + 1]), &nonuniform);
			if (nonuniform) {
				w->guards++;
				before = ks_xcalloc(mark + 1, sizeof(*before));
				for (i = 0; i < mark; i++)
					before[i] = w->vars[i].v;
				for (i = b0; i < w->f->nbranches; i++)
					if (w->f->branches[i].kind == KS_BR_DATA)
						cond_data = 1;
			}
			for (i = ci + 1; i < ch.n; i++)
				stmt(w, ch.v[i]);
		}
		if (before) {
			merge_branch(w, before, mark, cond_data);
			free(before);
		}
		w->guards = saved;
		w->nvars = mark;
		kids_release(&ch);
		return;
	}
	case CXCursor_SwitchStmt: {
		int saved = w->guards;

		kids_of(c, &ch);
		if (ch.n >= 2) {
			condition(w, ch.v[0], KS_BRS_SWITCH, 0, &nonuniform);
			if (nonuniform)
				w->guards++;
			for (i = 1; i < ch.n; i++)
				stmt(w, ch.v[i]);
		}
		w->guards = saved;
		kids_release(&ch);
		return;
	}
	case CXCursor_ForStmt: {
		CXCursor p[4];

		mark = w->nvars;
		for_parts(w, c, p);
		loop_stmt(w, c, p[0], p[1], p[2], p[3]);
		w->nvars = mark;
		return;
	}
	case CXCursor_WhileStmt:
		kids_of(c, &ch);
		mark = w->nvars;
		if (ch.n == 2)
			loop_stmt(w, c, ks_cx.getNullCursor(), ch.v[0],
				  ks_cx.getNullCursor(), ch.v[1]);
		w->nvars = mark;
		kids_release(&ch);
		return;
	case CXCursor_DoStmt:
		kids_of(c, &ch);
		if (ch.n == 2)
			loop_stmt(w, c, ks_cx.getNullCursor(), ch.v[1],
				  ks_cx.getNullCursor(), ch.v[0]);
		kids_release(&ch);
		return;
	case CXCursor_CXXForRangeStmt:
		kids_of(c, &ch);
		if (ch.n)
			loop_stmt(w, c, ks_cx.getNullCursor(),
				  ks_cx.getNullCursor(), ks_cx.getNullCursor(),
				  ch.v[ch.n - 1]);
		kids_release(&ch);
		return;
	case CXCursor_ReturnStmt:
		kids_of(c, &ch);
		if (ch.n) {
			struct val v;

			eval(w, ch.v[0], &v);
			if (w->ninl) {
				if (w->have_ret)
					ks_form_mix(&w->ret.f, &w->ret.f, &v.f);
				else
					w->ret = v;
				w->have_ret = 1;
			}
		}
		kids_release(&ch);
		return;
	case CXCursor_GCCAsmStmt:
		w->f->inline_asm++;
		return;
	case CXCursor_CaseStmt:
	case CXCursor_DefaultStmt:
	case CXCursor_LabelStmt:
		kids_of(c, &ch);
		for (i = 0; i < ch.n; i++)
			if (kind(ch.v[i]) >= CXCursor_FirstStmt)
				stmt(w, ch.v[i]);
			else if (k != CXCursor_CaseStmt || i > 0) {
				struct val v;

				eval(w, ch.v[i], &v);
			}
		kids_release(&ch);
		return;
	case CXCursor_NullStmt:
	case CXCursor_BreakStmt:
	case CXCursor_ContinueStmt:
	case CXCursor_GotoStmt:
		return;
	default:
		if (k >= CXCursor_FirstExpr && k <= CXCursor_LastExpr) {
			struct val v;

			eval(w, c, &v);
		} else {
			kids_of(c, &ch);
			for (i = 0; i < ch.n; i++)
				stmt(w, ch.v[i]);
			kids_release(&ch);
		}
		return;
	}
}

static void
inline_call(struct walk *w, CXCursor def, struct val *args, size_t nargs,
	    struct val *out)
{
	struct kids ch;
	size_t i, np = 0, mark = w->nvars;
	struct val saved_ret = w->ret;
	int saved_have = w->have_ret, saved_loop = w->loop;
	int d;

	for (d = 0; d < w->ninl; d++)
		if (same(w->inl[d], def))
			break;
	if (w->ninl >= MAX_INLINE_DEPTH || d < w->ninl) {
		struct ks_form m;

		ks_form_zero(&m);
		for (i = 0; i < nargs; i++)
			if (!args[i].ptr)
				ks_form_mix(&m, &m, &args[i].f);
		ks_form_data(&out->f, &m);
		val_scalar(out, &out->f);
		return;
	}
	w->inl[w->ninl++] = def;
	w->have_ret = 0;
	kids_of(def, &ch);
	for (i = 0; i < ch.n; i++) {
		if (kind(ch.v[i]) == CXCursor_ParmDecl) {
			struct val v;

			if (np < nargs)
				v = args[np];
			else
				val_unknown(&v);
			np++;
			v.prod = -1;
			v.sum = 0;
			var_bind(w, ch.v[i], &v);
		}
	}
	for (i = 0; i < ch.n; i++)
		if (kind(ch.v[i]) == CXCursor_CompoundStmt)
			stmt(w, ch.v[i]);
	kids_release(&ch);
	if (w->have_ret)
		*out = w->ret;
	else
		val_unknown(out);
	out->prod = -1;
	out->sum = 0;
	w->ret = saved_ret;
	w->have_ret = saved_have;
	w->loop = saved_loop;
	w->nvars = mark;
	w->ninl--;
}

static void
walk_kernel(struct ks_tu *t, CXCursor kernel, struct ks_facts *f)
{
	struct walk w;
	struct kids ch;
	size_t i;
	int np = 0;

	memset(&w, 0, sizeof(w));
	w.t = t;
	w.tu = t->tu;
	w.f = f;
	w.loop = -1;
	w.unknown_array = -1;
	w.cond_loop = -1;
	kids_of(kernel, &ch);
	for (i = 0; i < ch.n; i++) {
		CXCursor p = ch.v[i];
		CXType pt;
		struct val v;
		char *name;

		if (kind(p) != CXCursor_ParmDecl)
			continue;
		pt = ks_cx.getCursorType(p);
		name = spelling(p);
		if (!*name) {
			free(name);
			name = ks_xasprintf("param%d", np);
		}
		if (type_is_double(pt))
			f->declares_double = 1;
		if (type_is_floaty(pt))
			f->float_code = 1;
		if (type_is_vector(pt))
			f->uses_vector_types = 1;
		if (is_pointer(pt)) {
			val_const(&v, 0);
			v.ptr = 1;
			v.array = add_array(&w, name, KS_SPACE_GLOBAL, np, pt);
		} else {
			struct ks_form sym;

			ks_form_sym(&sym, ks_facts_sym(f, name));
			val_scalar(&v, &sym);
		}
		var_bind(&w, p, &v);
		free(name);
		np++;
	}
	for (i = 0; i < ch.n; i++)
		if (kind(ch.v[i]) == CXCursor_CompoundStmt)
			stmt(&w, ch.v[i]);
	kids_release(&ch);
	free(w.vars);
}

/* ---- the TU: kernels, launches, host facts ------------------------------- */

struct tuwalk {
	struct ks_tu *t;
	int pass;		/* 1: kernels and macros; 2: host code */
	struct ks_inventory *inv;
	CXCursor *kcur;		/* kernel definition cursors, by index */
	size_t nk;
	/* host function being walked */
	int fn;
	char *fn_name;
	int device_fn;		/* __device__ and not __host__ */
	unsigned long loops[64][2];
	int nloops;
	/* macro definitions seen: name and body text, for launch bounds */
	struct ks_strv macro_names, macro_bodies;
};

static int
kernel_index(struct tuwalk *tw, CXCursor decl)
{
	CXCursor tmpl = ks_cx.getSpecializedCursorTemplate(decl);
	size_t i;

	for (i = 0; i < tw->nk; i++) {
		if (same(tw->kcur[i], decl))
			return (int)i;
		if (!ks_cx.Cursor_isNull(tmpl) && same(tw->kcur[i], tmpl))
			return (int)i;
	}
	return -1;
}

static char *
qualified_name(CXCursor c)
{
	struct ks_buf b = KS_BUF_INIT;
	char *name = spelling(c);
	CXCursor p = ks_cx.getCursorSemanticParent(c);

	while (!ks_cx.Cursor_isNull(p) && !ks_cx.isInvalid(kind(p)) &&
	       kind(p) != CXCursor_TranslationUnit) {
		enum CXCursorKind k = kind(p);

		if (k == CXCursor_Namespace || k == CXCursor_StructDecl ||
		    k == CXCursor_ClassDecl || k == CXCursor_ClassTemplate) {
			char *s = spelling(p);
			struct ks_buf n = KS_BUF_INIT;

			ks_buf_addf(&n, "%s::%s", *s ? s : "(anonymous)",
				    b.len ? b.buf : "");
			ks_buf_release(&b);
			b = n;
			free(s);
		}
		p = ks_cx.getCursorSemanticParent(p);
	}
	ks_buf_adds(&b, name);
	free(name);
	return ks_buf_detach(&b, NULL);
}

static void
add_instance(struct ks_kernel *k, CXCursor spec)
{
	char *m = ks_cx_str(ks_cx.Cursor_getMangling(spec));
	size_t i;

	if (!*m) {
		free(m);
		return;
	}
	for (i = 0; i < k->ninst; i++) {
		if (!strcmp(k->inst[i].mangled, m)) {
			free(m);
			return;
		}
	}
	k->inst = ks_xrealloc(k->inst, (k->ninst + 1) * sizeof(*k->inst));
	k->inst[k->ninst].mangled = m;
	{
		struct ks_buf d = KS_BUF_INIT;
		int n = ks_cx.Cursor_getNumTemplateArguments(spec), a;

		ks_buf_adds(&d, k->name);
		ks_buf_addch(&d, '<');
		for (a = 0; a < n; a++) {
			enum CXTemplateArgumentKind ak =
				ks_cx.Cursor_getTemplateArgumentKind(
					spec, (unsigned)a);

			if (a)
				ks_buf_adds(&d, ", ");
			if (ak == CXTemplateArgumentKind_Type) {
				char *ts = ks_cx_str(ks_cx.getTypeSpelling(
					ks_cx.Cursor_getTemplateArgumentType(
						spec, (unsigned)a)));

				ks_buf_adds(&d, ts);
				free(ts);
			} else if (ak == CXTemplateArgumentKind_Integral) {
				ks_buf_addf(
					&d, "%lld",
					ks_cx.Cursor_getTemplateArgumentValue(
						spec, (unsigned)a));
			} else {
				ks_buf_adds(&d, "?");
			}
		}
		ks_buf_addch(&d, '>');
		k->inst[k->ninst].display = ks_buf_detach(&d, NULL);
	}
	k->ninst++;
}

/* Text of the source between two offsets of a file. */
static char *
source_text(struct ks_tu *t, const struct ks_extent *e)
{
	CXFile f = ks_cx.getFile(t->tu, e->file);
	size_t size;
	const char *s = ks_cx_file_text(t->tu, f, &size);

	if (!s || e->end > size || e->begin > e->end)
		return ks_xstrdup("");
	return ks_xstrndup(s + e->begin, e->end - e->begin);
}

static void
launch_bounds(struct tuwalk *tw, CXCursor kc, struct ks_kernel *k)
{
	struct toks t;
	struct ks_extent e;
	unsigned i, name_off = offset_of(ks_cx.getCursorLocation(kc));

	memset(&e, 0, sizeof(e));
	k->nlb = 0;
	toks_of(tw->t->tu, ks_cx.getCursorExtent(kc), &t);
	for (i = 0; i + 1 < t.n && tok_begin(&t, i) < name_off; i++) {
		unsigned j, open, depth = 0;
		char *text;
		char *p, *save;

		if (!tok_is(&t, i, "__launch_bounds__") &&
		    !tok_is(&t, i, "launch_bounds"))
			continue;
		if (!tok_is(&t, i + 1, "("))
			continue;
		open = i + 1;
		for (j = open; j < t.n; j++) {
			if (tok_is(&t, j, "("))
				depth++;
			else if (tok_is(&t, j, ")") && --depth == 0)
				break;
		}
		if (j == t.n)
			break;
		e.file = k->extent.file;
		e.begin = tok_end(&t, open);
		e.end = tok_begin(&t, j);
		text = source_text(tw->t, &e);
		k->launch_bounds = text;
		/* values: top-level comma-separated integers or macros */
		p = ks_xstrdup(text);
		for (save = p; k->nlb < 3;) {
			char *comma = strchr(save, ',');
			char *item, *end;
			long long v;
			size_t m;

			if (comma)
				*comma = '\0';
			item = save;
			while (*item == ' ' || *item == '\t' || *item == '\n')
				item++;
			end = item + strlen(item);
			while (end > item &&
			       (end[-1] == ' ' || end[-1] == '\t' ||
				end[-1] == '\n'))
				*--end = '\0';
			v = strtoll(item, &end, 0);
			if (*item && !*end) {
				k->lb[k->nlb] = v;
			} else {
				k->lb[k->nlb] = -1;
				for (m = 0; m < tw->macro_names.n; m++) {
					if (!strcmp(tw->macro_names.v[m],
						    item)) {
						v = strtoll(
							tw->macro_bodies.v[m],
							&end, 0);
						if (*tw->macro_bodies.v[m] &&
						    !*end)
							k->lb[k->nlb] = v;
					}
				}
			}
			k->nlb++;
			if (!comma)
				break;
			save = comma + 1;
		}
		free(p);
		break;
	}
	toks_release(&t);
}

static void
add_kernel(struct tuwalk *tw, CXCursor c)
{
	struct ks_inventory *inv = tw->inv;
	struct ks_kernel *k;
	struct kids ch;
	size_t i;

	inv->kernels =
		ks_xrealloc(inv->kernels, (inv->nkernels + 1) * sizeof(*k));
	k = &inv->kernels[inv->nkernels++];
	memset(k, 0, sizeof(*k));
	tw->kcur = ks_xrealloc(tw->kcur, (tw->nk + 1) * sizeof(*tw->kcur));
	tw->kcur[tw->nk++] = c;
	k->name = spelling(c);
	k->qualified = qualified_name(c);
	k->display = ks_cx_str(ks_cx.getCursorDisplayName(c));
	k->is_template = kind(c) == CXCursor_FunctionTemplate;
	if (!k->is_template)
		k->mangled = ks_cx_str(ks_cx.Cursor_getMangling(c));
	ks_cx_extent(ks_cx.getCursorExtent(c), &k->extent);
	k->in_main_file = !strcmp(k->extent.file, tw->t->source);
	{
		CXSourceRange r = ks_cx.getCursorExtent(c);
		CXSourceLocation loc = ks_cx.getCursorLocation(c);
		unsigned off = offset_of(loc), line = 0, col = 0;

		ks_cx.getExpansionLocation(loc, NULL, &line, &col, NULL);
		k->name_ext.file = ks_xstrdup(k->extent.file);
		k->name_ext.begin = off;
		k->name_ext.end = off + strlen(k->name);
		k->name_ext.line = k->name_ext.end_line = line;
		k->name_ext.col = col;
		k->name_ext.end_col = col + (unsigned)strlen(k->name) - 1;
		(void)r;
	}
	k->body.file = ks_xstrdup("");
	kids_of(c, &ch);
	for (i = 0; i < ch.n; i++) {
		CXCursor p = ch.v[i];

		if (kind(p) == CXCursor_CompoundStmt) {
			ks_cx_extent(ks_cx.getCursorExtent(p), &k->body);
		} else if (kind(p) == CXCursor_ParmDecl) {
			struct ks_param *pa;
			CXType t = ks_cx.getCursorType(p);
			CXType ct = ks_cx.getCanonicalType(t);
			long long sz = ks_cx.Type_getSizeOf(ct),
				  al = ks_cx.Type_getAlignOf(ct);

			k->params = ks_xrealloc(k->params,
						(k->nparams + 1) * sizeof(*pa));
			pa = &k->params[k->nparams++];
			pa->name = spelling(p);
			pa->type = ks_cx_str(ks_cx.getTypeSpelling(t));
			pa->size = sz > 0 ? sz : -1;
			pa->align = al > 0 ? al : -1;
			pa->is_pointer = ct.kind == CXType_Pointer;
			pa->pointee_const = pa->is_pointer &&
					    ks_cx.isConstQualifiedType(
						    ks_cx.getPointeeType(t));
			pa->is_restrict = ks_cx.isRestrictQualifiedType(t);
		}
	}
	kids_release(&ch);
	launch_bounds(tw, c, k);
	walk_kernel(tw->t, c, &k->facts);
}

static void
ext_between(struct ks_extent *e, const char *file, struct toks *t, unsigned a,
	    unsigned b)
{
	CXSourceRange r = ks_cx.getRange(
		ks_cx.getRangeStart(ks_cx.getTokenExtent(t->tu, t->t[a])),
		ks_cx.getRangeEnd(ks_cx.getTokenExtent(t->tu, t->t[b])));

	ks_cx_extent(r, e);
	if (!e->file[0]) {
		free(e->file);
		e->file = ks_xstrdup(file);
	}
}

static char *
arg_text(struct ks_tu *t, CXCursor a)
{
	struct ks_extent e;
	char *s;

	memset(&e, 0, sizeof(e));
	if (ks_cx_line(a) == 0) {	/* a default argument: not written */
		return NULL;
	}
	ks_cx_extent(ks_cx.getCursorExtent(a), &e);
	s = source_text(t, &e);
	free(e.file);
	if (!*s) {
		free(s);
		return NULL;
	}
	return s;
}

static void
add_launch(struct tuwalk *tw, CXCursor call, CXCursor config)
{
	struct ks_inventory *inv = tw->inv;
	struct ks_launch *l;
	CXCursor ref = ks_cx.getCursorReferenced(call);
	struct kids ch, cf;
	struct toks t;
	struct ks_host_launch hl;
	unsigned i, open = 0, close = 0, lparen = 0;
	size_t a, na = 0;

	inv->launches =
		ks_xrealloc(inv->launches, (inv->nlaunches + 1) * sizeof(*l));
	l = &inv->launches[inv->nlaunches++];
	memset(l, 0, sizeof(*l));
	l->kernel = ks_cx.Cursor_isNull(ref) ? -1 : kernel_index(tw, ref);
	if (!ks_cx.Cursor_isNull(ref) && kind(ref) == CXCursor_FunctionDecl) {
		char *m = ks_cx_str(ks_cx.Cursor_getMangling(ref));

		l->mangled = *m ? m : NULL;
		if (!*m)
			free(m);
		if (l->kernel >= 0 && inv->kernels[l->kernel].is_template)
			add_instance(&inv->kernels[l->kernel], ref);
	}
	l->caller = ks_xstrdup(tw->fn_name ? tw->fn_name : "");
	l->in_loop = tw->nloops > 0;
	l->device_side = tw->device_fn;
	ks_cx_extent(ks_cx.getCursorExtent(call), &l->extent);
	/* grid, block, shared memory, stream: the configuration call's
	 * arguments (children after its callee reference) */
	kids_of(config, &cf);
	for (a = 0; a < cf.n; a++) {
		char *s;

		if (a == 0 && kind(strip(cf.v[a])) == CXCursor_DeclRefExpr &&
		    (spelled(strip(cf.v[a]), "__cudaPushCallConfiguration") ||
		     spelled(strip(cf.v[a]), "cudaConfigureCall")))
			continue;
		s = arg_text(tw->t, cf.v[a]);
		switch (na++) {
		case 0: l->grid = s; break;
		case 1: l->block = s; break;
		case 2: l->shmem = s; break;
		case 3: l->stream = s; break;
		default: free(s); break;
		}
	}
	kids_release(&cf);
	kids_of(call, &ch);
	if (ch.n)
		ks_cx_extent(ks_cx.getCursorExtent(ch.v[0]), &l->callee_ext);
	else
		l->callee_ext.file = ks_xstrdup("");
	/* the kernel arguments: the children after the callee and the
	 * configuration call */
	for (a = 1; a < ch.n; a++) {
		if (ks_cx.equalCursors(strip(ch.v[a]), config))
			continue;
		l->argtext = ks_xrealloc(l->argtext,
					 (l->nargs + 1) * sizeof(char *));
		l->argtext[l->nargs] = arg_text(tw->t, ch.v[a]);
		if (!l->argtext[l->nargs])
			l->argtext[l->nargs] = ks_xstrdup("");
		l->nargs++;
	}
	l->callee = source_text(tw->t, &l->callee_ext);
	kids_release(&ch);
	toks_of(tw->t->tu, ks_cx.getCursorExtent(call), &t);
	for (i = 0; i < t.n; i++) {
		if (!open && tok_is(&t, i, "<<<"))
			open = i + 1;
		else if (open && !close && tok_is(&t, i, ">>>"))
			close = i + 1;
		else if (close && tok_is(&t, i, "(")) {
			lparen = i + 1;
			break;
		}
	}
	if (open && close)
		ext_between(&l->config, l->extent.file, &t, open - 1,
			    close - 1);
	else
		l->config.file = ks_xstrdup("");
	if (lparen && t.n)
		ext_between(&l->args, l->extent.file, &t, lparen - 1, t.n - 1);
	else
		l->args.file = ks_xstrdup("");
	toks_release(&t);
	hl.kernel = l->kernel;
	hl.fn = tw->fn;
	hl.offset = l->extent.begin;
	hl.loop_begin = tw->nloops ? tw->loops[0][0] : 0;
	hl.loop_end = tw->nloops ? tw->loops[0][1] : 0;
	ks_host_add_launch(&inv->host, &hl);
}

static CXCursor
config_call(CXCursor call)
{
	struct kids ch;
	CXCursor found = ks_cx.getNullCursor();
	size_t i;

	kids_of(call, &ch);
	for (i = 0; i < ch.n; i++) {
		CXCursor k = strip(ch.v[i]);

		/* cudaConfigureCall: the launch API clang assumes when it
		 * does not know the CUDA version (the minimal prelude) */
		if (kind(k) == CXCursor_CallExpr &&
		    (spelled(k, "__cudaPushCallConfiguration") ||
		     spelled(k, "cudaConfigureCall"))) {
			found = k;
			break;
		}
	}
	kids_release(&ch);
	return found;
}

static enum CXChildVisitResult
host_visit(CXCursor c, CXCursor parent, CXClientData data)
{
	struct tuwalk *tw = data;
	enum CXCursorKind k = kind(c);

	(void)parent;
	if (k == CXCursor_ForStmt || k == CXCursor_WhileStmt ||
	    k == CXCursor_DoStmt || k == CXCursor_CXXForRangeStmt) {
		if (tw->nloops < 64) {
			tw->loops[tw->nloops][0] = begin_of(c);
			tw->loops[tw->nloops][1] = end_of(c);
		}
		tw->nloops++;
		ks_cx.visitChildren(c, host_visit, tw);
		tw->nloops--;
		return CXChildVisit_Continue;
	}
	if (k == CXCursor_CallExpr) {
		CXCursor cfg = config_call(c);

		if (!ks_cx.Cursor_isNull(cfg)) {
			add_launch(tw, c, cfg);
		} else {
			char *name = spelling(c);

			if (ks_host_is_blocking(name))
				ks_host_add_blocking(&tw->inv->host, tw->fn,
						     begin_of(c), name);
			free(name);
		}
	} else if (k == CXCursor_DeclRefExpr) {
		/* &tk<float>, cudaLaunchKernel((void *)tk<float>, ...) */
		CXCursor ref = ks_cx.getCursorReferenced(c);

		if (kind(ref) == CXCursor_FunctionDecl) {
			int ki = kernel_index(tw, ref);

			if (ki >= 0 && tw->inv->kernels[ki].is_template)
				add_instance(&tw->inv->kernels[ki], ref);
		}
	}
	return CXChildVisit_Recurse;
}

static int
is_function(enum CXCursorKind k)
{
	return k == CXCursor_FunctionDecl || k == CXCursor_FunctionTemplate ||
	       k == CXCursor_CXXMethod || k == CXCursor_Constructor ||
	       k == CXCursor_Destructor || k == CXCursor_ConversionFunction;
}

static enum CXChildVisitResult
tu_visit(CXCursor c, CXCursor parent, CXClientData data)
{
	struct tuwalk *tw = data;
	enum CXCursorKind k = kind(c);

	(void)parent;
	if (k == CXCursor_MacroDefinition) {
		struct ks_buf body = KS_BUF_INIT;
		struct toks t;
		unsigned i;

		if (tw->pass != 1 || ks_cx_is_system(c))
			return CXChildVisit_Continue;
		toks_of(tw->t->tu, ks_cx.getCursorExtent(c), &t);
		for (i = 1; i < t.n; i++) {
			char *s = tok_str(&t, i);

			ks_buf_adds(&body, s);
			free(s);
		}
		toks_release(&t);
		ks_strv_push_owned(&tw->macro_names, spelling(c));
		ks_strv_push_owned(&tw->macro_bodies,
				   ks_buf_detach(&body, NULL));
		return CXChildVisit_Continue;
	}
	if (k >= CXCursor_FirstPreprocessing && k <= CXCursor_LastPreprocessing)
		return CXChildVisit_Continue;
	if (ks_cx_is_system(c))
		return CXChildVisit_Continue;
	if (k == CXCursor_Namespace || k == CXCursor_LinkageSpec ||
	    k == CXCursor_UnexposedDecl || k == CXCursor_StructDecl ||
	    k == CXCursor_ClassDecl || k == CXCursor_ClassTemplate)
		return CXChildVisit_Recurse;
	if (!is_function(k))
		return CXChildVisit_Continue;
	if (has_attr(c, CXCursor_CUDAGlobalAttr)) {
		if (tw->pass == 1 && ks_cx.isCursorDefinition(c))
			add_kernel(tw, c);
		return CXChildVisit_Continue;
	}
	if (tw->pass == 1)
		return CXChildVisit_Continue;
	/* explicit instantiations of kernel templates */
	if (k == CXCursor_FunctionDecl) {
		CXCursor tmpl = ks_cx.getSpecializedCursorTemplate(c);
		int ki =
			ks_cx.Cursor_isNull(tmpl) ? -1 : kernel_index(tw, tmpl);

		if (ki >= 0) {
			add_instance(&tw->inv->kernels[ki], c);
			return CXChildVisit_Continue;
		}
	}
	if (ks_cx.isCursorDefinition(c)) {
		tw->fn_name = qualified_name(c);
		tw->fn = ks_host_add_fn(&tw->inv->host, tw->fn_name);
		tw->nloops = 0;
		tw->device_fn = has_attr(c, CXCursor_CUDADeviceAttr) &&
				!has_attr(c, CXCursor_CUDAHostAttr);
		ks_cx.visitChildren(c, host_visit, tw);
		free(tw->fn_name);
		tw->fn_name = NULL;
	}
	return CXChildVisit_Continue;
}

static void
inclusion(CXFile file, CXSourceLocation *stack, unsigned len, CXClientData data)
{
	struct ks_inventory *inv = data;
	char *name = ks_cx_str(ks_cx.getFileName(file));
	char *abs = ks_fs_realpath(name);

	(void)stack;
	(void)len;
	if (ks_strv_find(&inv->files, abs ? abs : name) < 0)
		ks_strv_push(&inv->files, abs ? abs : name);
	free(abs);
	free(name);
}

void
ks_walk(struct ks_tu *t, struct ks_inventory *inv)
{
	struct tuwalk tw;
	size_t i;

	memset(&tw, 0, sizeof(tw));
	tw.t = t;
	tw.inv = inv;
	ks_strv_init(&tw.macro_names);
	ks_strv_init(&tw.macro_bodies);
	/* Kernels first, so that a launch before the kernel's definition
	 * (declared earlier, defined later) still finds it. */
	tw.pass = 1;
	ks_cx.visitChildren(ks_cx.getTranslationUnitCursor(t->tu), tu_visit,
			    &tw);
	tw.pass = 2;
	ks_cx.visitChildren(ks_cx.getTranslationUnitCursor(t->tu), tu_visit,
			    &tw);
	for (i = 0; i < inv->nkernels; i++) {
		ks_features_compute(&inv->kernels[i].facts, &inv->host, (int)i,
				    &inv->kernels[i].features);
		inv->kernels[i].closure = ks_closure_text(t, tw.kcur[i]);
	}
	ks_strv_push(&inv->files, t->source);
	ks_cx.getInclusions(t->tu, inclusion, inv);
	ks_strv_release(&tw.macro_names);
	ks_strv_release(&tw.macro_bodies);
	free(tw.kcur);
}
