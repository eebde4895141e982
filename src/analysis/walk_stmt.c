/*
 * The walk's statements (walk.h): loops and their inductions, branches,
 * inlined calls, and the kernel body.
 */
#include <stdlib.h>
#include <string.h>

#include "../core/buf.h"
#include "../core/grow.h"
#include "../core/fs.h"
#include "../core/strv.h"
#include "../core/util.h"
#include "walk.h"

/* ---- statements ---------------------------------------------------------- */

static void
condition(struct walk *w, CXCursor c, enum ks_branch_stmt s, int early_exit,
	  int *nonuniform)
{
	int saved = w->in_cond, rec = w->cond_recorded;
	enum ks_branch_stmt ss = w->cond_stmt;
	int sl = w->cond_loop;
	size_t first = w->f->nbranches, i;
	unsigned sj = w->cond_join;
	struct val v;

	w->in_cond = 1;
	w->cond_stmt = s;
	w->cond_loop = w->loop;
	w->cond_recorded = 0;
	w->cond_join = KS_BRJ_AND | KS_BRJ_OR;
	ks_walk_eval(w, c, &v);
	if (!w->cond_recorded) {
		struct val zero;

		ks_walk_val_const(&zero, 0);
		ks_walk_record_compare(w, KS_CXBO_NE, &v, &zero, ks_cx_line(c));
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
	w->cond_join = sj;
}

static int
is_return(CXCursor c)
{
	struct kids ch;
	int r;

	if (ks_walk_kind(c) == CXCursor_ReturnStmt)
		return 1;
	if (ks_walk_kind(c) != CXCursor_CompoundStmt)
		return 0;
	ks_walk_kids_of(c, &ch);
	r = ch.n == 1 && ks_walk_kind(ch.v[0]) == CXCursor_ReturnStmt;
	ks_walk_kids_release(&ch);
	return r;
}

static void
declare(struct walk *w, CXCursor d)
{
	CXType t = ks_cx.getCursorType(d);
	struct kids ch;
	struct val v;
	size_t i;
	int shared = ks_walk_has_attr(d, CXCursor_CUDASharedAttr);
	char *name = ks_walk_spelling(d);

	if (ks_walk_type_is_double(t))
		w->f->declares_double = 1;
	if (ks_walk_type_is_floaty(t))
		w->f->float_code = 1;
	if (ks_walk_type_is_vector(t))
		w->f->uses_vector_types = 1;
	if (shared || ks_walk_has_attr(d, CXCursor_CUDAConstantAttr) || ks_walk_is_array(t)) {
		struct var *x;

		ks_walk_val_const(&v, 0);
		v.ptr = 1;
		v.array = ks_walk_add_array(w, name,
				    shared ? KS_SPACE_SHARED
				    : ks_walk_has_attr(d, CXCursor_CUDAConstantAttr)
					    ? KS_SPACE_CONSTANT
					    : KS_SPACE_LOCAL,
				    -1, t);
		w->f->shared_decls += shared;
		x = ks_walk_var_bind(w, d, &v);
		x->is_array = !ks_walk_is_array(t);
		/* initializers of local arrays: evaluate for their accesses */
		ks_walk_kids_of(d, &ch);
		for (i = 0; i < ch.n; i++)
			if (ks_walk_kind(ch.v[i]) == CXCursor_InitListExpr) {
				struct ks_form m;

				ks_walk_eval_children(w, ch.v[i], &m);
			}
		ks_walk_kids_release(&ch);
		free(name);
		return;
	}
	ks_walk_val_unknown(&v);
	ks_walk_kids_of(d, &ch);
	for (i = 0; i < ch.n; i++) {
		enum CXCursorKind k = ks_walk_kind(ch.v[i]);

		if (k == CXCursor_TypeRef || k == CXCursor_TemplateRef ||
		    k == CXCursor_NamespaceRef || k >= CXCursor_FirstAttr)
			continue;
		ks_walk_eval(w, ch.v[i], &v);
	}
	ks_walk_kids_release(&ch);
	if (v.ptr && !ks_walk_is_pointer(t) && !ks_walk_is_array(t) &&
	    ks_cx.getCanonicalType(t).kind != CXType_LValueReference)
		ks_walk_val_unknown(&v);
	v.prod = -1;
	v.sload = -1;
	v.sum = 0;
	ks_walk_var_bind(w, d, &v);
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

	lhs = ks_walk_strip(lhs);
	if (ks_walk_kind(lhs) != CXCursor_DeclRefExpr)
		return;
	d = ks_cx.getCursorReferenced(lhs);
	if (ks_walk_kind(d) != CXCursor_VarDecl && ks_walk_kind(d) != CXCursor_ParmDecl)
		return;
	off = ks_walk_begin_of(d);
	if (off >= s->begin && off < s->end)
		return;		/* declared inside the loop */
	for (i = 0; i < s->n; i++)
		if (ks_walk_same(s->a[i].decl, d))
			break;
	if (i == s->n) {
		s->a = KS_GROW(s->a, s->n, NULL);
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
	enum CXCursorKind k = ks_walk_kind(c);
	struct kids ch;

	(void)parent;
	if (k == CXCursor_BinaryOperator ||
	    k == CXCursor_CompoundAssignOperator) {
		ks_walk_kids_of(c, &ch);
		if (ch.n == 2) {
			int op = ks_walk_binop(s->w->tu, c, ch.v[0]);

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
		ks_walk_kids_release(&ch);
	} else if (k == CXCursor_UnaryOperator) {
		int op = ks_walk_unop(s->w->tu, c);

		if (op >= KS_CXUO_POSTINC && op <= KS_CXUO_PREDEC) {
			ks_walk_kids_of(c, &ch);
			if (ch.n == 1)
				scan_note(s, ch.v[0], 1, 0,
					  ks_cx.getNullCursor(),
					  op == KS_CXUO_POSTDEC ||
						  op == KS_CXUO_PREDEC);
			ks_walk_kids_release(&ch);
		}
	}
	return CXChildVisit_Recurse;
}

static enum CXChildVisitResult
impure_visit(CXCursor c, CXCursor parent, CXClientData data)
{
	enum CXCursorKind k = ks_walk_kind(c);
	struct ks_form f;

	(void)parent;
	if (k == CXCursor_MemberRefExpr &&
	    ks_walk_builtin_index(c, (struct walk *)data, &f))
		return CXChildVisit_Continue;
	if (k == CXCursor_ArraySubscriptExpr || k == CXCursor_CallExpr ||
	    k == CXCursor_MemberRefExpr ||
	    (k == CXCursor_UnaryOperator &&
	     ks_walk_unop(((struct walk *)data)->tu, c) == KS_CXUO_DEREF)) {
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
int
ks_walk_impure(struct walk *w, CXCursor c)
{
	struct ks_form f;

	w->impure = 0;
	if (ks_walk_kind(c) == CXCursor_MemberRefExpr && ks_walk_builtin_index(c, w, &f))
		return 0;
	ks_cx.visitChildren(c, impure_visit, w);
	if (!w->impure && ks_walk_kind(c) == CXCursor_CallExpr)
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
	inc = ks_walk_strip(inc);
	if (ks_walk_kind(inc) != CXCursor_CompoundAssignOperator)
		return -1;
	ks_walk_kids_of(inc, &ch);
	if (ch.n == 2 && ks_walk_int_value(ks_walk_strip(ch.v[1]), &k))
		sop = ks_walk_binop(tu, inc, ch.v[0]);
	ks_walk_kids_release(&ch);
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
	ks_walk_kids_of(c, &ch);
	ks_walk_toks_of(w->tu, ks_cx.getCursorExtent(c), &t);
	for (i = 0; i < t.n; i++) {
		char *s = ks_walk_tok_str(&t, i);

		if (!strcmp(s, "(")) {
			depth++;
			found_paren = 1;
		} else if (!strcmp(s, ")")) {
			if (--depth == 0 && found_paren) {
				rparen = ks_walk_tok_begin(&t, i);
				free(s);
				break;
			}
		} else if (!strcmp(s, ";") && depth == 1 && nsemi < 2) {
			semi[nsemi++] = ks_walk_tok_begin(&t, i);
		}
		free(s);
	}
	ks_walk_toks_release(&t);
	if (nsemi == 2 && rparen) {
		for (k = 0; k < ch.n; k++) {
			unsigned b = ks_walk_begin_of(ch.v[k]);
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
	ks_walk_kids_release(&ch);
}

/* The induction variable compared in a loop condition, and its bound. */
static int
loop_bound(struct walk *w, CXCursor cond, CXCursor *var, struct ks_form *bound,
	   int *op, int *left)
{
	struct kids ch;
	int found = 0;

	cond = ks_walk_strip(cond);
	if (ks_cx.Cursor_isNull(cond) || ks_walk_kind(cond) != CXCursor_BinaryOperator)
		return 0;
	ks_walk_kids_of(cond, &ch);
	if (ch.n == 2) {
		int o = ks_walk_binop(w->tu, cond, ch.v[0]);

		if (ks_walk_is_relational(o)) {
			int side;

			for (side = 0; side < 2 && !found; side++) {
				CXCursor s = ks_walk_strip(ch.v[side]);

				if (ks_walk_kind(s) == CXCursor_DeclRefExpr) {
					struct val b;
					int saved = w->in_cond;

					*var = ks_cx.getCursorReferenced(s);
					w->in_cond = 0;
					if (ks_walk_impure(w, ch.v[1 - side])) {
						/* j < ptr[r + 1]: read once,
						 * by the condition itself */
						ks_walk_val_unknown(&b);
						b.f.data = 1;
					} else {
						ks_walk_eval(w, ch.v[1 - side], &b);
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
	ks_walk_kids_release(&ch);
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
		ks_walk_stmt(w, init);
	nvars_before = w->nvars;
	memset(&s, 0, sizeof(s));
	s.w = w;
	/* Variables declared in the body are fresh each iteration; those
	 * of a for's init (before the body) are carried. */
	s.begin = ks_cx.Cursor_isNull(body) ? ks_walk_end_of(c) : ks_walk_begin_of(body);
	s.end = ks_walk_end_of(c);
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
		struct var *v = ks_walk_var_find(w, a->decl);
		int is_ind = !ks_cx.Cursor_isNull(ivar) && ks_walk_same(ivar, a->decl);
		struct val step;

		if (!v)
			continue;
		a->was_carried = v->carried;
		v->carried = 1;
		if (a->count == 1 && a->add) {
			if (ks_cx.Cursor_isNull(a->step)) {
				ks_walk_val_const(&step, 1);
			} else if (ks_walk_impure(w, a->step)) {
				/* sum += x[i]: not an induction */
				ks_walk_val_unknown(&step);
				step.f.data = 1;
			} else {
				ks_walk_eval(w, a->step, &step);
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
				long long size = ks_walk_type_size(pt);
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
		v->v.sload = -1;
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
			ks_walk_stmt(w, body);
		if (!ks_cx.Cursor_isNull(inc)) {
			struct val dummy;

			ks_walk_eval(w, inc, &dummy);
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
		struct var *v = ks_walk_var_find(w, s.a[i].decl);

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
		    ((ks_form_equal(&v->f, &before[i].f) ||
		      ks_form_same_exact(&v->f, &before[i].f)) &&
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

int
ks_walk_step(struct walk *w)
{
	struct ks_tu *t = w->t;

	if (t->max_steps && t->steps >= t->max_steps) {
		t->steps = t->max_steps + 1;	/* stopped */
		return 1;
	}
	t->steps++;
	/* the clock, every 1,024 steps (a few microseconds of walk) */
	if (!(t->steps & 1023) && ks_tu_watch_expired()) {
		t->timed_out = 1;
		if (t->max_steps)
			t->steps = t->max_steps + 1;
		return 1;
	}
	return 0;
}

void
ks_walk_stmt(struct walk *w, CXCursor c)
{
	enum CXCursorKind k = ks_walk_kind(c);
	struct kids ch;
	size_t i, mark;
	int nonuniform;

	if (ks_walk_step(w))
		return;
	switch (k) {
	case CXCursor_CompoundStmt:
		mark = w->nvars;
		ks_walk_kids_of(c, &ch);
		for (i = 0; i < ch.n; i++)
			ks_walk_stmt(w, ch.v[i]);
		ks_walk_kids_release(&ch);
		w->nvars = mark;
		return;
	case CXCursor_DeclStmt:
		ks_walk_kids_of(c, &ch);
		for (i = 0; i < ch.n; i++)
			if (ks_walk_kind(ch.v[i]) == CXCursor_VarDecl)
				declare(w, ch.v[i]);
		ks_walk_kids_release(&ch);
		return;
	case CXCursor_IfStmt: {
		int saved = w->guards, cond_data = 0;
		struct val *before = NULL;

		ks_walk_kids_of(c, &ch);
		mark = w->nvars;
		/* if (init; cond) / if (T x = ...): the condition is the
		 * child before the branches */
		if (ch.n >= 2) {
			size_t ci = ch.n >= 3 &&
						    ks_walk_kind(ch.v[ch.n - 1]) !=
							    CXCursor_NullStmt &&
						    ch.n == 4
					    ? 1
					    : 0;

			for (i = 0; i < ci; i++)
				ks_walk_stmt(w, ch.v[i]);
			if (ks_walk_kind(ch.v[ci]) == CXCursor_VarDecl)
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
				ks_walk_stmt(w, ch.v[i]);
		}
		if (before) {
			merge_branch(w, before, mark, cond_data);
			free(before);
		}
		w->guards = saved;
		w->nvars = mark;
		ks_walk_kids_release(&ch);
		return;
	}
	case CXCursor_SwitchStmt: {
		int saved = w->guards;

		ks_walk_kids_of(c, &ch);
		if (ch.n >= 2) {
			condition(w, ch.v[0], KS_BRS_SWITCH, 0, &nonuniform);
			if (nonuniform)
				w->guards++;
			for (i = 1; i < ch.n; i++)
				ks_walk_stmt(w, ch.v[i]);
		}
		w->guards = saved;
		ks_walk_kids_release(&ch);
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
		ks_walk_kids_of(c, &ch);
		mark = w->nvars;
		if (ch.n == 2)
			loop_stmt(w, c, ks_cx.getNullCursor(), ch.v[0],
				  ks_cx.getNullCursor(), ch.v[1]);
		w->nvars = mark;
		ks_walk_kids_release(&ch);
		return;
	case CXCursor_DoStmt:
		ks_walk_kids_of(c, &ch);
		if (ch.n == 2)
			loop_stmt(w, c, ks_cx.getNullCursor(), ch.v[1],
				  ks_cx.getNullCursor(), ch.v[0]);
		ks_walk_kids_release(&ch);
		return;
	case CXCursor_CXXForRangeStmt:
		ks_walk_kids_of(c, &ch);
		if (ch.n)
			loop_stmt(w, c, ks_cx.getNullCursor(),
				  ks_cx.getNullCursor(), ks_cx.getNullCursor(),
				  ch.v[ch.n - 1]);
		ks_walk_kids_release(&ch);
		return;
	case CXCursor_ReturnStmt:
		ks_walk_kids_of(c, &ch);
		if (ch.n) {
			struct val v;

			ks_walk_eval(w, ch.v[0], &v);
			if (w->ninl) {
				if (w->have_ret)
					ks_form_mix(&w->ret.f, &w->ret.f, &v.f);
				else
					w->ret = v;
				w->have_ret = 1;
			}
		}
		ks_walk_kids_release(&ch);
		return;
	case CXCursor_GCCAsmStmt:
		w->f->inline_asm++;
		return;
	case CXCursor_CaseStmt:
	case CXCursor_DefaultStmt:
	case CXCursor_LabelStmt:
		ks_walk_kids_of(c, &ch);
		for (i = 0; i < ch.n; i++)
			if (ks_walk_kind(ch.v[i]) >= CXCursor_FirstStmt)
				ks_walk_stmt(w, ch.v[i]);
			else if (k != CXCursor_CaseStmt || i > 0) {
				struct val v;

				ks_walk_eval(w, ch.v[i], &v);
			}
		ks_walk_kids_release(&ch);
		return;
	case CXCursor_NullStmt:
	case CXCursor_BreakStmt:
	case CXCursor_ContinueStmt:
	case CXCursor_GotoStmt:
		return;
	default:
		if (k >= CXCursor_FirstExpr && k <= CXCursor_LastExpr) {
			struct val v;

			ks_walk_eval(w, c, &v);
		} else {
			ks_walk_kids_of(c, &ch);
			for (i = 0; i < ch.n; i++)
				ks_walk_stmt(w, ch.v[i]);
			ks_walk_kids_release(&ch);
		}
		return;
	}
}

void
ks_walk_inline_call(struct walk *w, CXCursor def, struct val *args, size_t nargs,
	    struct val *out)
{
	struct kids ch;
	size_t i, np = 0, mark = w->nvars;
	struct val saved_ret = w->ret;
	int saved_have = w->have_ret, saved_loop = w->loop;
	int d;

	for (d = 0; d < w->ninl; d++)
		if (ks_walk_same(w->inl[d], def))
			break;
	if (w->ninl >= MAX_INLINE_DEPTH || d < w->ninl) {
		struct ks_form m;

		ks_form_zero(&m);
		for (i = 0; i < nargs; i++)
			if (!args[i].ptr)
				ks_form_mix(&m, &m, &args[i].f);
		ks_form_data(&out->f, &m);
		ks_walk_val_scalar(out, &out->f);
		return;
	}
	w->inl[w->ninl++] = def;
	w->have_ret = 0;
	ks_walk_kids_of(def, &ch);
	for (i = 0; i < ch.n; i++) {
		if (ks_walk_kind(ch.v[i]) == CXCursor_ParmDecl) {
			struct val v;

			if (np < nargs)
				v = args[np];
			else
				ks_walk_val_unknown(&v);
			np++;
			v.prod = -1;
			v.sload = -1;
			v.sum = 0;
			ks_walk_var_bind(w, ch.v[i], &v);
		}
	}
	for (i = 0; i < ch.n; i++)
		if (ks_walk_kind(ch.v[i]) == CXCursor_CompoundStmt)
			ks_walk_stmt(w, ch.v[i]);
	ks_walk_kids_release(&ch);
	if (w->have_ret)
		*out = w->ret;
	else
		ks_walk_val_unknown(out);
	out->prod = -1;
	out->sload = -1;
	out->sum = 0;
	w->ret = saved_ret;
	w->have_ret = saved_have;
	w->loop = saved_loop;
	w->nvars = mark;
	w->ninl--;
}

void
ks_walk_kernel(struct ks_tu *t, CXCursor kernel, struct ks_facts *f)
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
	ks_walk_kids_of(kernel, &ch);
	for (i = 0; i < ch.n; i++) {
		CXCursor p = ch.v[i];
		CXType pt;
		struct val v;
		char *name;

		if (ks_walk_kind(p) != CXCursor_ParmDecl)
			continue;
		pt = ks_cx.getCursorType(p);
		name = ks_walk_spelling(p);
		if (!*name) {
			free(name);
			name = ks_xasprintf("param%d", np);
		}
		if (ks_walk_type_is_double(pt))
			f->declares_double = 1;
		if (ks_walk_type_is_floaty(pt))
			f->float_code = 1;
		if (ks_walk_type_is_vector(pt))
			f->uses_vector_types = 1;
		/* an array parameter (`float A[][N]`) is a pointer */
		if (ks_walk_is_pointer(pt) || ks_walk_is_array(pt)) {
			ks_walk_val_const(&v, 0);
			v.ptr = 1;
			v.array = ks_walk_add_array(&w, name, KS_SPACE_GLOBAL, np, pt);
			/* `float A[16]` declares a pointer: no size known */
			f->arrays[v.array].bytes = -1;
		} else {
			struct ks_form sym;

			ks_form_sym(&sym, ks_facts_sym(f, name));
			ks_walk_val_scalar(&v, &sym);
		}
		ks_walk_var_bind(&w, p, &v);
		free(name);
		np++;
	}
	for (i = 0; i < ch.n; i++)
		if (ks_walk_kind(ch.v[i]) == CXCursor_CompoundStmt)
			ks_walk_stmt(&w, ch.v[i]);
	ks_walk_kids_release(&ch);
	free(w.vars);
}
