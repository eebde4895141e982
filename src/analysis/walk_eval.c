/*
 * The walk's abstract evaluation of expressions (walk.h): values, forms
 * and variables; declarations, operators, builtin indices.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "../core/buf.h"
#include "../core/fs.h"
#include "../core/strv.h"
#include "../core/util.h"
#include "walk.h"

/* ---- the kernel walk ----------------------------------------------------- */





void
ks_walk_val_scalar(struct val *v, const struct ks_form *f)
{
	v->ptr = 0;
	v->array = -1;
	v->f = *f;
	v->load = -1;
	v->prod = -1;
	v->sload = -1;
	v->sum = 0;
	v->literal = 0;
	v->minmax = 0;
}

void
ks_walk_val_const(struct val *v, long long k)
{
	struct ks_form f;

	ks_form_const(&f, k);
	ks_walk_val_scalar(v, &f);
}

void
ks_walk_val_unknown(struct val *v)
{
	struct ks_form f;

	ks_form_zero(&f);
	f.c[KS_SRC_ONE].opaque = 1;
	ks_walk_val_scalar(v, &f);
}

struct var *
ks_walk_var_find(struct walk *w, CXCursor decl)
{
	size_t i;

	for (i = w->nvars; i-- > 0;)
		if (ks_walk_same(w->vars[i].decl, decl))
			return &w->vars[i];
	return NULL;
}

struct var *
ks_walk_var_bind(struct walk *w, CXCursor decl, const struct val *v)
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

int
ks_walk_add_array(struct walk *w, const char *name, enum ks_space space, int param,
	  CXType t)
{
	struct ks_array a;

	memset(&a, 0, sizeof(a));
	a.name = (char *)name;
	a.space = space;
	a.param = param;
	a.bytes = ks_walk_is_array(t) ? ks_walk_type_size(t) : -1;
	if (ks_walk_is_pointer(t)) {
		CXType p = ks_cx.getPointeeType(t);

		a.is_const = ks_cx.isConstQualifiedType(p);
		a.is_restrict = ks_cx.isRestrictQualifiedType(t);
	} else {
		a.is_const = ks_cx.isConstQualifiedType(t);
	}
	return ks_facts_add_array(w->f, &a);
}

int
ks_walk_unknown_array(struct walk *w)
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
	if (ks_walk_has_attr(decl, CXCursor_CUDASharedAttr))
		return KS_SPACE_SHARED;
	if (ks_walk_has_attr(decl, CXCursor_CUDAConstantAttr))
		return KS_SPACE_CONSTANT;
	if (ks_walk_has_attr(decl, CXCursor_CUDADeviceAttr))
		return KS_SPACE_GLOBAL;
	return ks_cx.isConstQualifiedType(ks_cx.getCursorType(decl))
		       ? KS_SPACE_CONSTANT : KS_SPACE_GLOBAL;
}

void
ks_walk_record_access(struct walk *w, const struct val *where, CXCursor c, CXType t,
	      unsigned flags, int value_from, const char *op, int *id)
{
	struct ks_access a;
	int vec;
	long long size = ks_walk_type_size(t);

	memset(&a, 0, sizeof(a));
	a.array = where->array >= 0 ? where->array : ks_walk_unknown_array(w);
	a.flags = flags;
	a.offset = where->f;
	a.scalar = ks_walk_scalar_of(t, &a.lanes, &vec);
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



void
ks_walk_eval_children(struct walk *w, CXCursor c, struct ks_form *mix)
{
	struct kids ch;
	size_t i;

	ks_form_zero(mix);
	ks_walk_kids_of(c, &ch);
	for (i = 0; i < ch.n; i++) {
		struct val v;
		enum CXCursorKind k = ks_walk_kind(ch.v[i]);

		if (k == CXCursor_TypeRef || k == CXCursor_TemplateRef ||
		    k == CXCursor_NamespaceRef ||
		    k == CXCursor_OverloadedDeclRef)
			continue;
		ks_walk_eval(w, ch.v[i], &v);
		if (!v.ptr)
			ks_form_mix(mix, mix, &v.f);
	}
	ks_walk_kids_release(&ch);
}

/*
 * The field of a builtin index read, as written after the builtin's name
 * where it is spelled: `x` in `threadIdx.x`. A read that comes from a macro
 * (`#define TID threadIdx.x`) has its extent on the macro's use, whose
 * tokens (`TID`) do not name the field; its spelling location is in the
 * macro's body, nested macros included. NULL when the text there is not
 * `name . field` (a builtin passed as a macro argument).
 */
static char *
spelled_field(struct walk *w, CXCursor base, const char *name)
{
	CXFile file = NULL;
	unsigned off = 0;
	size_t size = 0, n = strlen(name), i, j;
	const char *s;

	ks_cx.getSpellingLocation(ks_cx.getCursorLocation(base), &file, NULL,
				  NULL, &off);
	s = ks_cx_file_text(w->tu, file, &size);
	if (!s || off > size || size - off < n || strncmp(s + off, name, n))
		return NULL;
	i = off + n;
	for (j = 0; j < 2; j++) {	/* blanks (and continuations), '.', blanks */
		while (i < size && (s[i] == ' ' || s[i] == '\t' || s[i] == '\\' ||
				    s[i] == '\n' || s[i] == '\r'))
			i++;
		if (j == 0) {
			if (i >= size || s[i] != '.')
				return NULL;
			i++;
		}
	}
	if (i >= size || !s[i] || !strchr("xyz", s[i]) ||
	    (i + 1 < size && (isalnum((unsigned char)s[i + 1]) || s[i + 1] == '_')))
		return NULL;
	return ks_xstrndup(s + i, 1);
}

static int
is_builtin_index(const char *name)
{
	return !strcmp(name, "threadIdx") || !strcmp(name, "blockIdx") ||
	       !strcmp(name, "blockDim") || !strcmp(name, "gridDim");
}

/* Builtin `name` read along dimension d (-1: all three), into the facts. */
static void
note_coord(struct walk *w, const char *name, int d)
{
	enum ks_coord b = !strcmp(name, "threadIdx") ? KS_COORD_TID
		: !strcmp(name, "blockIdx") ? KS_COORD_BID
		: !strcmp(name, "blockDim") ? KS_COORD_BDIM : KS_COORD_GDIM;

	if (!w->f || !is_builtin_index(name))
		return;
	for (int k = 0; k < 3; k++)
		if (d < 0 || d == k)
			w->f->coords |= KS_COORD_BIT(b, k);
}

int
ks_walk_builtin_index(CXCursor member, struct walk *w, struct ks_form *out)
{
	struct kids ch;
	CXCursor base;
	char *bname, *field;
	struct toks t;
	int d, found = 1;

	ks_walk_kids_of(member, &ch);
	if (ch.n != 1) {
		ks_walk_kids_release(&ch);
		return 0;
	}
	base = ks_walk_strip(ch.v[0]);
	ks_walk_kids_release(&ch);
	if (ks_walk_kind(base) != CXCursor_DeclRefExpr)
		return 0;
	bname = ks_walk_spelling(base);
	field = ks_walk_spelling(member);
	if (!*field || ks_starts_with(field, "__fetch_builtin_")) {
		free(field);
		field = is_builtin_index(bname) ? spelled_field(w, base, bname) : NULL;
		if (!field) {
			ks_walk_toks_of(w->tu, ks_cx.getCursorExtent(member), &t);
			if (t.n)
				field = ks_walk_tok_str(&t, t.n - 1);
			ks_walk_toks_release(&t);
		}
		if (!field)
			field = ks_xstrdup("");
	}
	d = !strcmp(field, "x") ? 0 : !strcmp(field, "y") ? 1
		: !strcmp(field, "z") ? 2 : -1;
	note_coord(w, bname, d);
	if (d < 0 && is_builtin_index(bname)) {
		/* A builtin whose field cannot be read: any of its
		 * dimensions, never a memory access (its pseudo-object type
		 * has no size libclang can compute). */
		struct ks_form deps;

		ks_form_zero(&deps);
		if (!strcmp(bname, "threadIdx") || !strcmp(bname, "blockIdx")) {
			enum ks_src s0 = !strcmp(bname, "threadIdx")
				? KS_SRC_TID_X : KS_SRC_BID_X;
			int k;

			for (k = 0; k < 3; k++) {
				struct ks_form one;

				ks_form_src(&one, (enum ks_src)(s0 + k));
				ks_form_add(&deps, &deps, &one);
			}
		}
		ks_form_data(out, &deps);
	} else if (d < 0)
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
char *
ks_walk_text_of(struct walk *w, CXCursor c)
{
	struct toks t;
	struct ks_buf b = KS_BUF_INIT;
	unsigned i;

	ks_walk_toks_of(w->tu, ks_cx.getCursorExtent(c), &t);
	for (i = 0; i < t.n; i++) {
		char *s = ks_walk_tok_str(&t, i);

		ks_buf_adds(&b, s);
		free(s);
	}
	ks_walk_toks_release(&t);
	return ks_buf_detach(&b, NULL);
}

void
ks_walk_eval_declref(struct walk *w, CXCursor c, struct val *out)
{
	CXCursor d = ks_cx.getCursorReferenced(c);
	enum CXCursorKind dk = ks_walk_kind(d);
	struct var *v;
	long long k;
	char *name;

	v = ks_walk_var_find(w, d);
	if (v) {
		if (v->is_array) {
			/* a scalar __shared__ or __device__ variable: memory */
			int id;

			ks_walk_record_access(w, &v->v, c, ks_cx.getCursorType(c),
				      KS_ACC_LOAD, -1, NULL, &id);
			ks_form_data(&out->f, &v->v.f);
			out->ptr = 0;
			out->array = -1;
			out->load = id;
			out->prod = -1;
			out->sload = -1;
			out->sum = 0;
			return;
		}
		*out = v->v;
		out->prod = -1;
		out->sload = -1;
		out->sum = 0;
		out->literal = 0;
		out->minmax = 0;
		return;
	}
	name = ks_walk_spelling(d);
	/* the whole of threadIdx, blockIdx, ... (a member read comes
	 * through ks_walk_builtin_index): each of its dimensions */
	note_coord(w, name, -1);
	if (!strcmp(name, "warpSize")) {
		ks_walk_val_const(out, 32);
	} else if (dk == CXCursor_EnumConstantDecl || ks_walk_int_value(c, &k)) {
		if (dk == CXCursor_EnumConstantDecl && !ks_walk_int_value(c, &k))
			ks_walk_val_unknown(out);
		else
			ks_walk_val_const(out, k);
	} else if (dk == CXCursor_VarDecl &&
		   (ks_walk_is_array(ks_cx.getCursorType(d)) ||
		    var_space(d) != KS_SPACE_CONSTANT ||
		    ks_walk_has_attr(d, CXCursor_CUDAConstantAttr))) {
		/* A file-scope or static object: memory. */
		CXType t = ks_cx.getCursorType(d);
		struct val mem;
		struct var *x;

		ks_walk_val_const(&mem, 0);
		mem.ptr = 1;
		mem.array = ks_walk_add_array(w, name, var_space(d), -1, t);
		x = ks_walk_var_bind(w, d, &mem);
		if (ks_walk_is_array(t)) {
			*out = mem;
		} else {
			x->is_array = 1;
			ks_walk_eval_declref(w, c, out);
		}
	} else {
		/* A uniform value of unknown size: a template parameter, a
		 * constant without a known value. */
		struct ks_form f;

		ks_form_sym(&f, ks_facts_sym(w->f, name));
		ks_walk_val_scalar(out, &f);
	}
	free(name);
}

/* Record a comparison inside a condition as a branch. */
void
ks_walk_record_compare(struct walk *w, int op, const struct val *a, const struct val *b,
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
	br.joined = w->cond_join;
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

	if ((ks_walk_kind(ks_walk_strip(l)) == CXCursor_FloatingLiteral &&
	     ks_walk_type_is_double(ks_cx.getCursorType(ks_walk_strip(l)))) ||
	    (ks_walk_kind(ks_walk_strip(r)) == CXCursor_FloatingLiteral &&
	     ks_walk_type_is_double(ks_cx.getCursorType(ks_walk_strip(r)))))
		k = KS_FP64_LITERAL;
	ks_facts_add_fp64(w->f, k, w->loop, ks_cx_line(c));
}

static int
is_integer_type(CXType t)
{
	enum CXTypeKind k = ks_cx.getCanonicalType(t).kind;

	return k >= CXType_Bool && k <= CXType_Int128 && k != CXType_Float;
}

/* a op b for an arithmetic operator; pointers keep their object. Returns
 * the derived quotient a division or remainder computes, or -1. */
static int
arith(struct walk *w, int op, CXCursor c, const struct val *a,
      const struct val *b, struct val *out)
{
	struct ks_form r;
	long long k;
	int dq = -1;

	if ((op == KS_CXBO_ADD || op == KS_CXBO_SUB) && (a->ptr || b->ptr)) {
		/* pointer arithmetic: scale the integer by the pointee size */
		const struct val *p = a->ptr ? a : b, *i = a->ptr ? b : a;
		CXType pt = ks_cx.getPointeeType(ks_cx.getCursorType(c));
		long long size = ks_walk_type_size(pt);
		struct ks_form scaled;

		if (a->ptr && b->ptr) {	/* difference of pointers */
			ks_form_mix(&r, &a->f, &b->f);
			ks_walk_val_scalar(out, &r);
			return -1;
		}
		ks_form_scale(&scaled, &i->f, size > 0 ? size : 4);
		*out = *p;
		if (op == KS_CXBO_ADD)
			ks_form_add(&out->f, &p->f, &scaled);
		else
			ks_form_sub(&out->f, &p->f, &scaled);
		out->load = -1;
		return -1;
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
		dq = ks_form_div_derived(w->f, &r, &a->f, &b->f,
					 op == KS_CXBO_REM);
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
	ks_walk_val_scalar(out, &r);
	return dq;
}

/* A value that scales a product without changing what it reads: free of
 * loaded data and of every loop's variable (alpha, 2.0f, n * h). */
static int
is_factor(const struct val *v)
{
	return !v->ptr && v->load < 0 && v->sload < 0 && v->prod < 0 &&
	       !v->f.data && !(ks_form_sources(&v->f) & KS_SRC_LOOP_MASK);
}

/* a * b: a product of two loads (a fact, `scaled` when a factor joins
 * it: alpha * A[i] * B[j], A[i] * B[j] * 2.0f), or a load times a factor
 * on its way to one. */
static void
product(struct walk *w, CXCursor c, const struct val *a, const struct val *b,
	struct val *out)
{
	int la = a->load >= 0 ? a->load : a->sload;
	int lb = b->load >= 0 ? b->load : b->sload;

	if (la >= 0 && lb >= 0) {
		struct ks_product p;

		p.a = la;
		p.b = lb;
		p.loop = w->loop;
		p.accumulate = 0;
		p.scaled = a->load < 0 || b->load < 0;
		p.line = ks_cx_line(c);
		out->prod = ks_facts_add_product(w->f, &p);
	} else if (a->prod >= 0 && is_factor(b)) {
		out->prod = a->prod;
		w->f->products[a->prod].scaled = 1;
	} else if (b->prod >= 0 && is_factor(a)) {
		out->prod = b->prod;
		w->f->products[b->prod].scaled = 1;
	} else if (la >= 0 && is_factor(b)) {
		out->sload = la;
	} else if (lb >= 0 && is_factor(a)) {
		out->sload = lb;
	}
}

void
ks_walk_eval_binary(struct walk *w, CXCursor c, struct val *out)
{
	struct kids ch;
	struct val a, b;
	int op, dm = -1, dq;
	unsigned join = w->cond_join;

	w->cond_join = 0;	/* the operands of anything but && and || */
	ks_walk_kids_of(c, &ch);
	if (ch.n != 2) {
		struct ks_form m;

		ks_walk_kids_release(&ch);
		ks_walk_eval_children(w, c, &m);
		ks_walk_val_scalar(out, &m);
		return;
	}
	op = ks_walk_binop(w->tu, c, ch.v[0]);
	if (op == KS_CXBO_ASSIGN) {
		struct loc l;

		ks_walk_eval(w, ch.v[1], &b);
		ks_walk_locate(w, ch.v[0], &l);
		if (l.is_mem) {
			int id;

			ks_walk_record_access(w, &l.where, ch.v[0], l.type,
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
		ks_walk_kids_release(&ch);
		return;
	}
	if (op == KS_CXBO_LAND || op == KS_CXBO_LOR) {
		w->cond_join = join & (op == KS_CXBO_LAND ? KS_BRJ_AND : KS_BRJ_OR);
		ks_walk_eval(w, ch.v[0], &a);
		ks_walk_eval(w, ch.v[1], &b);
		w->cond_join = 0;
		ks_form_mix(&out->f, &a.f, &b.f);
		ks_walk_val_scalar(out, &out->f);
		ks_walk_kids_release(&ch);
		return;
	}
	if (op == KS_CXBO_COMMA) {
		ks_walk_eval(w, ch.v[0], &a);
		ks_walk_eval(w, ch.v[1], out);
		ks_walk_kids_release(&ch);
		return;
	}
	ks_walk_eval(w, ch.v[0], &a);
	ks_walk_eval(w, ch.v[1], &b);
	if (ks_walk_is_relational(op)) {
		if (w->in_cond) {
			struct ks_branch *br;

			w->cond_join = join;
			ks_walk_record_compare(w, op, &a, &b, ks_cx_line(c));
			w->cond_join = 0;
			br = &w->f->branches[w->f->nbranches - 1];
			ks_cx_range(c, &br->begin, &br->end, &br->in_main);
		}
		ks_form_mix(&out->f, &a.f, &b.f);
		ks_walk_val_scalar(out, &out->f);
		ks_walk_kids_release(&ch);
		return;
	}
	if ((op == KS_CXBO_DIV || op == KS_CXBO_REM) &&
	    is_integer_type(ks_cx.getCursorType(c)) &&
	    !ks_form_is_const(&b.f, &(long long){0})) {
		dm = ks_facts_add_divmod(w->f, op == KS_CXBO_REM, w->loop,
					 ks_cx_line(c));
		w->f->divmods[dm].thread = !ks_form_is_uniform(&a.f) ||
					   !ks_form_is_uniform(&b.f);
	}
	if (op >= KS_CXBO_MUL && op <= KS_CXBO_SUB &&
	    ks_walk_type_is_double(ks_cx.getCursorType(c)) && !a.ptr && !b.ptr)
		record_fp64(w, c, ch.v[0], ch.v[1]);
	dq = arith(w, op, c, &a, &b, out);
	if (dm >= 0 && dq >= 0) {	/* the derived coordinate it computes */
		struct ks_divmod *d = &w->f->divmods[dm];

		d->dquot = dq;
		ks_cx_range(c, &d->begin, &d->end, &d->in_main);
	}
	if (op == KS_CXBO_MUL)
		product(w, c, &a, &b, out);
	else if (op == KS_CXBO_ADD || op == KS_CXBO_SUB) {
		out->prod = a.prod >= 0 ? a.prod : b.prod;
		out->sum = 1;
	}
	ks_walk_kids_release(&ch);
}

void
ks_walk_eval_compound(struct walk *w, CXCursor c, struct val *out)
{
	struct kids ch;
	struct loc l;
	struct val cur, rhs;
	int op;

	ks_walk_kids_of(c, &ch);
	if (ch.n != 2) {
		struct ks_form m;

		ks_walk_kids_release(&ch);
		ks_walk_eval_children(w, c, &m);
		ks_walk_val_scalar(out, &m);
		return;
	}
	op = ks_walk_binop(w->tu, c, ch.v[0]);
	ks_walk_eval(w, ch.v[1], &rhs);
	ks_walk_locate(w, ch.v[0], &l);
	if (l.is_mem) {
		int ld, st;

		ks_walk_record_access(w, &l.where, ch.v[0], l.type, KS_ACC_LOAD, -1,
			      NULL, &ld);
		ks_walk_record_access(w, &l.where, ch.v[0], l.type, KS_ACC_STORE, -1,
			      NULL, &st);
		ks_form_data(&cur.f, &l.where.f);
		ks_walk_val_scalar(&cur, &cur.f);
	} else if (l.var) {
		cur = l.var->v;
		/* sum += x[i] in a loop: a reduction step */
		if (l.var->carried && rhs.f.data &&
		    (op == KS_CXBO_ADDASSIGN || op == KS_CXBO_SUBASSIGN ||
		     op == KS_CXBO_MULASSIGN))
			w->f->loop_accumulations++;
	} else {
		ks_walk_val_unknown(&cur);
	}
	if ((op == KS_CXBO_ADDASSIGN || op == KS_CXBO_SUBASSIGN) &&
	    rhs.prod >= 0)
		w->f->products[rhs.prod].accumulate = 1;
	if ((op == KS_CXBO_DIVASSIGN || op == KS_CXBO_REMASSIGN) &&
	    is_integer_type(ks_cx.getCursorType(c)) &&
	    !ks_form_is_const(&rhs.f, &(long long){ 0 })) {
		int d = ks_facts_add_divmod(w->f, op == KS_CXBO_REMASSIGN,
					    w->loop, ks_cx_line(c));

		w->f->divmods[d].thread = !ks_form_is_uniform(&cur.f) ||
					  !ks_form_is_uniform(&rhs.f);
	}
	if (op >= KS_CXBO_MULASSIGN && op <= KS_CXBO_SUBASSIGN &&
	    ks_walk_type_is_double(ks_cx.getCursorType(c)))
		record_fp64(w, c, ch.v[0], ch.v[1]);
	arith(w, op - KS_CXBO_MULASSIGN + KS_CXBO_MUL, c, &cur, &rhs, out);
	if (op == KS_CXBO_ANDASSIGN || op == KS_CXBO_ORASSIGN ||
	    op == KS_CXBO_XORASSIGN)
		ks_form_mix(&out->f, &cur.f, &rhs.f);
	if (l.var && !l.is_mem)
		l.var->v = *out;
	ks_walk_kids_release(&ch);
}

void
ks_walk_eval_unary(struct walk *w, CXCursor c, struct val *out)
{
	struct kids ch;
	int op = ks_walk_unop(w->tu, c);
	struct val a;

	ks_walk_kids_of(c, &ch);
	if (ch.n != 1) {
		ks_walk_kids_release(&ch);
		ks_walk_val_unknown(out);
		return;
	}
	switch (op) {
	case KS_CXUO_ADDROF: {
		struct loc l;

		ks_walk_locate(w, ch.v[0], &l);
		if (l.is_mem) {
			*out = l.where;
			out->ptr = 1;
			out->load = -1;
		} else {
			ks_walk_val_unknown(out);
		}
		break;
	}
	case KS_CXUO_DEREF: {
		struct loc l;
		int id;

		ks_walk_locate(w, c, &l);
		if (ks_walk_is_array(ks_cx.getCursorType(c))) {
			*out = l.where;
			break;
		}
		ks_walk_record_access(w, &l.where, c, l.type, KS_ACC_LOAD, -1, NULL,
			      &id);
		ks_form_data(&out->f, &l.where.f);
		ks_walk_val_scalar(out, &out->f);
		out->load = id;
		break;
	}
	case KS_CXUO_PREINC:
	case KS_CXUO_PREDEC:
	case KS_CXUO_POSTINC:
	case KS_CXUO_POSTDEC: {
		struct loc l;
		struct val one, r;

		ks_walk_locate(w, ch.v[0], &l);
		ks_walk_val_const(&one, 1);
		if (l.is_mem) {
			int id;

			ks_walk_record_access(w, &l.where, ch.v[0], l.type, KS_ACC_LOAD,
				      -1, NULL, &id);
			ks_walk_record_access(w, &l.where, ch.v[0], l.type,
				      KS_ACC_STORE, -1, NULL, &id);
			ks_walk_val_unknown(out);
		} else if (l.var) {
			arith(w, op == KS_CXUO_PREINC || op == KS_CXUO_POSTINC
					 ? KS_CXBO_ADD : KS_CXBO_SUB,
			      ch.v[0], &l.var->v, &one, &r);
			*out = op == KS_CXUO_PREINC || op == KS_CXUO_PREDEC
				       ? r
				       : l.var->v;
			l.var->v = r;
		} else {
			ks_walk_val_unknown(out);
		}
		break;
	}
	case KS_CXUO_MINUS: {
		struct ks_form zero;

		ks_walk_eval(w, ch.v[0], &a);
		ks_form_zero(&zero);
		ks_form_sub(&zero, &zero, &a.f);
		ks_walk_val_scalar(out, &zero);
		break;
	}
	case KS_CXUO_PLUS:
		ks_walk_eval(w, ch.v[0], out);
		break;
	default:
		ks_walk_eval(w, ch.v[0], &a);
		ks_form_mix(&a.f, &a.f, &a.f);
		ks_walk_val_scalar(out, &a.f);
		break;
	}
	ks_walk_kids_release(&ch);
}
