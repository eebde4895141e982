/*
 * The walk's memory accesses (walk.h): which memory `base[index]`,
 * `*p`, `p->m`, `s.m` or a variable is, and the evaluation of each
 * expression kind over it.
 */
#include <stdlib.h>
#include <string.h>

#include "../core/buf.h"
#include "../core/fs.h"
#include "../core/strv.h"
#include "../core/util.h"
#include "walk.h"

/* The memory behind `base[index]`, `*p`, `p->m`, `s.m`, or a variable. */
void
ks_walk_locate(struct walk *w, CXCursor c, struct loc *l)
{
	enum CXCursorKind k;
	struct kids ch;

	memset(l, 0, sizeof(*l));
	l->type = ks_cx.getCursorType(c);
	c = ks_walk_strip(c);
	k = ks_walk_kind(c);
	if (k == CXCursor_ArraySubscriptExpr) {
		struct val base, idx;
		struct ks_form scaled;
		long long size = ks_walk_type_size(ks_cx.getCursorType(c));

		ks_walk_kids_of(c, &ch);
		if (ch.n == 2) {
			ks_walk_eval(w, ch.v[0], &base);
			ks_walk_eval(w, ch.v[1], &idx);
			if (!base.ptr) {
				/* idx[base] or a pointer we could not follow */
				base.array = base.ptr ? base.array
						      : ks_walk_unknown_array(w);
				ks_form_data(&base.f, &base.f);
			}
			ks_form_scale(&scaled, &idx.f, size > 0 ? size : 4);
			l->is_mem = 1;
			l->where = base;
			l->where.ptr = 1;
			ks_form_add(&l->where.f, &base.f, &scaled);
		}
		ks_walk_kids_release(&ch);
		return;
	}
	if (k == CXCursor_UnaryOperator && ks_walk_unop(w->tu, c) == KS_CXUO_DEREF) {
		struct val p;

		ks_walk_kids_of(c, &ch);
		if (ch.n == 1) {
			ks_walk_eval(w, ch.v[0], &p);
			if (!p.ptr) {
				p.array = ks_walk_unknown_array(w);
				ks_form_data(&p.f, &p.f);
			}
			l->is_mem = 1;
			l->where = p;
			l->where.ptr = 1;
		}
		ks_walk_kids_release(&ch);
		return;
	}
	if (k == CXCursor_MemberRefExpr) {
		ks_walk_kids_of(c, &ch);
		if (ch.n == 1) {
			CXType bt = ks_cx.getCursorType(ch.v[0]);

			if (ks_walk_is_pointer(bt)) {	/* p->m */
				struct val p;

				ks_walk_eval(w, ch.v[0], &p);
				if (!p.ptr) {
					p.array = ks_walk_unknown_array(w);
					ks_form_data(&p.f, &p.f);
				}
				l->is_mem = 1;
				l->where = p;
				l->where.ptr = 1;
			} else {	/* s.m: the struct's location */
				struct loc inner;

				ks_walk_locate(w, ch.v[0], &inner);
				l->is_mem = inner.is_mem;
				l->where = inner.where;
				l->var = inner.var;
			}
		}
		ks_walk_kids_release(&ch);
		return;
	}
	if (k == CXCursor_DeclRefExpr) {
		CXCursor d = ks_cx.getCursorReferenced(c);
		struct var *v = ks_walk_var_find(w, d);

		if (!v && ks_walk_kind(d) == CXCursor_VarDecl) {
			struct val dummy;

			/* binds file-scope objects */
			ks_walk_eval_declref(w, c, &dummy);
			v = ks_walk_var_find(w, d);
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


static void
eval_call(struct walk *w, CXCursor c, struct val *out)
{
	CXCursor callee = ks_cx.getCursorReferenced(c);
	char *name = ks_walk_spelling(c);
	enum ks_call_kind ck;
	struct val *args = NULL;
	CXCursor *argc = NULL;
	struct ks_form mix;
	int n = ks_cx.Cursor_getNumArguments(c), i;
	unsigned line = ks_cx_line(c);

	if (!*name) {
		free(name);
		name = ks_walk_spelling(callee);
	}
	/* Constructors and conversions (dim3, float4) are calls too. */
	if (n < 0) {
		ks_walk_eval_children(w, c, &mix);
		ks_walk_val_scalar(out, &mix);
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
			ks_walk_val_unknown(&args[i]);
			continue;
		}
		ks_walk_eval(w, argc[i], &args[i]);
		if (!args[i].ptr)
			ks_form_mix(&mix, &mix, &args[i].f);
	}
	ks_walk_val_scalar(out, &mix);
	if (ck == KS_CALL_ATOMIC && n >= 1 && args[0].ptr) {
		CXType pt = ks_cx.getPointeeType(ks_cx.getCursorType(argc[0]));
		int id;

		ks_walk_record_access(w, &args[0], c, pt,
			      KS_ACC_LOAD | KS_ACC_STORE | KS_ACC_ATOMIC, -1,
			      name, &id);
		ks_form_data(&out->f, &args[0].f);
	} else if (is_shuffle_or_load(name) && n >= 1 && args[0].ptr) {
		CXType pt = ks_cx.getPointeeType(ks_cx.getCursorType(argc[0]));
		int id;

		ks_walk_record_access(w, &args[0], c, pt, KS_ACC_LOAD, -1, NULL, &id);
		ks_form_data(&out->f, &args[0].f);
		out->load = id;
	} else if (ks_starts_with(name, "__st") && n >= 2 && args[0].ptr) {
		CXType pt = ks_cx.getPointeeType(ks_cx.getCursorType(argc[0]));
		int id;

		ks_walk_record_access(w, &args[0], c, pt, KS_ACC_STORE, args[1].load,
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
			p.scaled = 0;
			p.line = line;
			ks_facts_add_product(w->f, &p);
		}
		ck = KS_CALL_MATH;
	} else if (n == 2 && is_assign_operator(name)) {
		/* v = w, v += w on a struct or vector type: an assignment */
		struct loc l;
		int id;

		ks_walk_locate(w, argc[0], &l);
		if (l.is_mem) {
			if (strcmp(name, "operator="))
				ks_walk_record_access(w, &l.where, argc[0], l.type,
					      KS_ACC_LOAD, -1, NULL, &id);
			ks_walk_record_access(w, &l.where, argc[0], l.type,
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
		   !ks_walk_has_attr(ks_cx.getCursorDefinition(callee),
			     CXCursor_CUDAGlobalAttr)) {
		CXCursor def = ks_cx.getCursorDefinition(callee);

		ck = KS_CALL_DEVICE;
		ks_walk_inline_call(w, def, args, (size_t)n, out);
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

	if (ks_walk_builtin_index(c, w, &f)) {
		ks_walk_val_scalar(out, &f);
		return;
	}
	ks_walk_kids_of(c, &ch);
	if (ch.n == 1 && ks_walk_kind(ks_walk_strip(ch.v[0])) == CXCursor_DeclRefExpr) {
		CXCursor d = ks_cx.getCursorReferenced(ks_walk_strip(ch.v[0]));
		struct var *v = ks_walk_var_find(w, d);

		/* A member of a by-value parameter (or uniform struct):
		 * uniform; a pointer member is a memory object of its own. */
		if (v && !v->is_array && !v->v.ptr &&
		    ks_form_is_uniform(&v->v.f) &&
		    !ks_walk_is_pointer(ks_cx.getCursorType(ch.v[0]))) {
			char *name = ks_walk_text_of(w, c);

			if (ks_walk_is_pointer(t) || ks_walk_is_array(t)) {
				struct val mem;

				ks_walk_val_const(&mem, 0);
				mem.ptr = 1;
				mem.array = ks_walk_add_array(w, name, KS_SPACE_GLOBAL,
						      -1, t);
				ks_walk_var_bind(w, c, &mem);
				*out = mem;
			} else {
				ks_form_sym(&f, ks_facts_sym(w->f, name));
				ks_walk_val_scalar(out, &f);
			}
			free(name);
			ks_walk_kids_release(&ch);
			return;
		}
	}
	ks_walk_kids_release(&ch);
	ks_walk_locate(w, c, &l);
	if (l.is_mem) {
		int id;

		if (ks_walk_is_array(t)) {
			*out = l.where;
			return;
		}
		ks_walk_record_access(w, &l.where, c, t, KS_ACC_LOAD, -1, NULL, &id);
		ks_form_data(&f, &l.where.f);
		ks_walk_val_scalar(out, &f);
		out->load = id;
	} else if (l.var) {
		/* a field of a local struct or vector: as unknown as the
		 * struct's value */
		*out = l.var->v;
		out->prod = -1;
		out->sload = -1;
		out->sum = 0;
		if (out->ptr && !ks_walk_is_pointer(t))
			ks_walk_val_unknown(out);
	} else {
		ks_walk_eval_children(w, c, &f);
		ks_walk_val_scalar(out, &f);
	}
}

static void
eval_cond_op(struct walk *w, CXCursor c, struct val *out)
{
	struct kids ch;
	struct val a, b;
	long long k;
	int cond_data = 0;

	ks_walk_kids_of(c, &ch);
	if (ch.n != 3) {
		struct ks_form m;

		ks_walk_kids_release(&ch);
		ks_walk_eval_children(w, c, &m);
		ks_walk_val_scalar(out, &m);
		return;
	}
	{
		int saved = w->in_cond, rec = w->cond_recorded;
		enum ks_branch_stmt ss = w->cond_stmt;
		int sl = w->cond_loop;
		struct val cv;

		unsigned sj = w->cond_join;

		w->in_cond = 1;
		w->cond_stmt = KS_BRS_COND;
		w->cond_loop = w->loop;
		w->cond_recorded = 0;
		w->cond_join = KS_BRJ_AND | KS_BRJ_OR;
		ks_walk_eval(w, ch.v[0], &cv);
		if (!w->cond_recorded) {
			struct val zero;

			ks_walk_val_const(&zero, 0);
			ks_walk_record_compare(w, KS_CXBO_EQ, &cv, &zero,
				       ks_cx_line(c));
		}
		w->in_cond = saved;
		w->cond_stmt = ss;
		w->cond_loop = sl;
		w->cond_recorded = rec;
		w->cond_join = sj;
		cond_data = cv.f.data;
	}
	ks_walk_eval(w, ch.v[1], &a);
	ks_walk_eval(w, ch.v[2], &b);
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
		ks_walk_val_scalar(out, &out->f);
		/* c ? A[i] : 0 still stores what A[i] holds */
		if (a.load >= 0 && (b.literal || ks_form_is_const(&b.f, &k)))
			out->load = a.load;
		else if (b.load >= 0 &&
			 (a.literal || ks_form_is_const(&a.f, &k)))
			out->load = b.load;
	}
	ks_walk_kids_release(&ch);
}

static void
eval_node(struct walk *w, CXCursor c, struct val *out)
{
	enum CXCursorKind k = ks_walk_kind(c);
	struct ks_form f;
	struct kids ch;
	long long v;

	if (ks_walk_step(w)) {
		ks_walk_val_unknown(out);
		return;
	}
	switch (k) {
	case CXCursor_IntegerLiteral:
	case CXCursor_CharacterLiteral:
	case CXCursor_CXXBoolLiteralExpr:
	case CXCursor_UnaryExpr:
		if (ks_walk_int_value(c, &v))
			ks_walk_val_const(out, v);
		else
			ks_walk_val_unknown(out);
		return;
	case CXCursor_FloatingLiteral:
		ks_walk_val_unknown(out);
		out->literal = 1;
		return;
	case CXCursor_StringLiteral:
	case CXCursor_CXXNullPtrLiteralExpr:
		ks_walk_val_unknown(out);
		return;
	case CXCursor_DeclRefExpr:
		ks_walk_eval_declref(w, c, out);
		return;
	case CXCursor_MemberRefExpr:
		eval_member(w, c, out);
		return;
	case CXCursor_ArraySubscriptExpr: {
		struct loc l;
		int id;

		ks_walk_locate(w, c, &l);
		if (ks_walk_is_array(ks_cx.getCursorType(c))) {
			*out = l.where;	/* t[i] of t[][]: still an address */
			return;
		}
		ks_walk_record_access(w, &l.where, c, l.type, KS_ACC_LOAD, -1, NULL,
			      &id);
		ks_form_data(&f, &l.where.f);
		ks_walk_val_scalar(out, &f);
		out->load = id;
		return;
	}
	case CXCursor_BinaryOperator:
		ks_walk_eval_binary(w, c, out);
		return;
	case CXCursor_CompoundAssignOperator:
		ks_walk_eval_compound(w, c, out);
		return;
	case CXCursor_UnaryOperator:
		ks_walk_eval_unary(w, c, out);
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

		ks_walk_kids_of(c, &ch);
		for (i = 0; i < ch.n; i++) {
			enum CXCursorKind ck = ks_walk_kind(ch.v[i]);

			if (ck != CXCursor_TypeRef &&
			    ck != CXCursor_TemplateRef &&
			    ck != CXCursor_NamespaceRef)
				last = i;
		}
		if (last == (size_t)-1) {
			ks_walk_val_unknown(out);
		} else if (ch.n > 1 && k == CXCursor_UnexposedExpr) {
			/* an unexposed node with several operands (an
			 * overloaded operator in a template, a construction) */
			ks_walk_kids_release(&ch);
			ks_walk_eval_children(w, c, &f);
			ks_walk_val_scalar(out, &f);
			return;
		} else {
			ks_walk_eval(w, ch.v[last], out);
			if (k != CXCursor_ParenExpr &&
			    k != CXCursor_UnexposedExpr) {
				CXType t = ks_cx.getCursorType(c);

				if (ks_walk_type_is_vector(t))
					w->f->uses_vector_types = 1;
				/* (int)x of a pointer or a float: not an index
				 */
				if (out->ptr && !ks_walk_is_pointer(t))
					ks_walk_val_unknown(out);
			}
		}
		ks_walk_kids_release(&ch);
		return;
	}
	case CXCursor_LambdaExpr:
		ks_walk_val_unknown(out);
		return;
	default:
		ks_walk_eval_children(w, c, &f);
		ks_walk_val_scalar(out, &f);
		return;
	}
}

/* A comparison joins its condition (ks_branch.joined) through
 * parentheses, implicit conversions, && and || only: any other node
 * evaluates its operands with no join. */
void
ks_walk_eval(struct walk *w, CXCursor c, struct val *out)
{
	unsigned join = w->cond_join;
	enum CXCursorKind k = ks_walk_kind(c);

	if (k != CXCursor_ParenExpr && k != CXCursor_UnexposedExpr &&
	    k != CXCursor_BinaryOperator)
		w->cond_join = 0;
	eval_node(w, c, out);
	w->cond_join = join;
}
