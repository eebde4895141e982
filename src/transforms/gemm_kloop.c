/*
 * gemm_kloop: recognition of a k-loop accumulating a product of two
 * operands (gemm_kloop.h).
 */
#include <stdlib.h>
#include <string.h>

#include "../analysis/facts.h"
#include "../analysis/inventory.h"
#include "../core/buf.h"
#include "../core/util.h"
#include "gemm_kloop.h"
#include "xfbody.h"

void
ks_kloop_release(struct ks_kloop *kl)
{
	for (int i = 0; i < 2; i++) {
		struct ks_kl_operand *o = &kl->op[i];

		free(o->c0);
		free(o->cz);
		free(o->cx);
		free(o->cy);
		free(o->ck);
	}
	free(kl->trip);
	free(kl->limx);
	free(kl->limy);
	free(kl->limz);
	free(kl->acc);
	for (int i = 0; i < kl->nedits; i++)
		free(kl->edits[i].with);
	ks_xfk_release(&kl->x);
	memset(kl, 0, sizeof(*kl));
}

/* The form of the global index of dimension d (0 x, 1 y). */
static void
global_index(struct ks_form *out, int d)
{
	struct ks_form b, dim;

	ks_form_src(out, (enum ks_src)(KS_SRC_TID_X + d));
	ks_form_src(&b, (enum ks_src)(KS_SRC_BID_X + d));
	ks_form_sym(&dim, (unsigned)(KS_SYM_BDIM_X + d));
	ks_form_mul(&b, &b, &dim);
	ks_form_add(out, out, &b);
}

static int
poly_nonzero(const struct ks_poly *p)
{
	return p->n || p->opaque;
}

/* The operand's element index, as coefficients. */
static int
operand(struct ks_kloop *kl, int which, int acc_i, struct ks_buf *reason)
{
	const struct ks_facts *f = kl->x.f;
	const struct ks_kernel *k = kl->x.k;
	const struct ks_access *a = &f->acc[acc_i];
	const struct ks_array *arr = &f->arrays[a->array];
	const int lsrc = KS_SRC_LOOP0 + f->loops[kl->loop].depth;
	struct ks_kl_operand *o = &kl->op[which];
	struct ks_form g = a->offset;
	unsigned src = ks_form_sources(&a->offset), allowed;
	long long one;

	o->access = acc_i;
	o->line = a->line;
	if (arr->space != KS_SPACE_GLOBAL || arr->param < 0)
		return ks_xfk_decline(reason, "the operand %s on line %u is not read "
					      "through a pointer parameter",
				      arr->name, a->line);
	o->param = arr->param;
	o->name = k->params[arr->param].name;
	if (a->scalar != KS_T_FLOAT || a->bytes != 4 || a->lanes != 1 ||
	    (a->flags & (KS_ACC_VECTOR | KS_ACC_SIZE_GUESSED)))
		return ks_xfk_decline(reason, "the operand %s on line %u is not a "
					      "float (the template is for fp32)",
				      o->name, a->line);
	if (a->offset.data)
		return ks_xfk_decline(reason, "the index of %s on line %u depends on "
					      "data read from memory",
				      o->name, a->line);
	if (a->offset.rem || a->offset.nonlinear)
		return ks_xfk_decline(reason, "the index of %s on line %u is not affine "
					      "in the thread indices and the loop (a "
					      "product, division or remainder of them)",
				      o->name, a->line);
	allowed = KS_SRC_THREAD_MASK | KS_SRC_BIT(lsrc) | KS_SRC_BIT(KS_SRC_ONE);
	if (src & ~allowed)
		return ks_xfk_decline(reason, "the index of %s on line %u depends on "
					      "another loop",
				      o->name, a->line);
	if (!(src & KS_SRC_BIT(lsrc)))
		return ks_xfk_decline(reason, "the index of %s on line %u does not "
					      "move with the loop",
				      o->name, a->line);
	/* x and y only as the global indices (z: blockIdx.z, the batch) */
	memset(&g.c[KS_SRC_TID_Z], 0, sizeof(g.c[0]));
	memset(&g.c[KS_SRC_BID_Z], 0, sizeof(g.c[0]));
	if (!ks_form_global_index_only(&g))
		return ks_xfk_decline(reason, "the index of %s on line %u uses "
					      "threadIdx or blockIdx other than as "
					      "blockIdx*blockDim + threadIdx",
				      o->name, a->line);
	if (!ks_form_multiple_of(&a->offset, 4))
		return ks_xfk_decline(reason, "the index of %s on line %u is not a "
					      "whole number of elements",
				      o->name, a->line);
	if (poly_nonzero(&a->offset.c[KS_SRC_TID_X]))
		o->dep |= KS_KL_DEP_X;
	if (poly_nonzero(&a->offset.c[KS_SRC_TID_Y]))
		o->dep |= KS_KL_DEP_Y;
	o->c0 = ks_xfk_poly_c(&kl->x, &a->offset.c[KS_SRC_ONE], 4);
	o->cz = ks_xfk_poly_c(&kl->x, &a->offset.c[KS_SRC_BID_Z], 4);
	o->cx = ks_xfk_poly_c(&kl->x, &a->offset.c[KS_SRC_TID_X], 4);
	o->cy = ks_xfk_poly_c(&kl->x, &a->offset.c[KS_SRC_TID_Y], 4);
	o->ck = ks_xfk_poly_c(&kl->x, &a->offset.c[lsrc], 4);
	if (!o->c0 || !o->cz || !o->cx || !o->cy || !o->ck)
		return ks_xfk_decline(reason, "the index of %s on line %u has a "
					      "coefficient that is not an expression "
					      "of the kernel's parameters",
				      o->name, a->line);
	o->unit_x = ks_form_coef_const(&a->offset, KS_SRC_TID_X, &one) && one == 4;
	o->unit_y = ks_form_coef_const(&a->offset, KS_SRC_TID_Y, &one) && one == 4;
	o->unit_k = ks_form_coef_const(&a->offset, (enum ks_src)lsrc, &one) &&
		    one == 4;
	for (size_t i = 0; i < f->nacc; i++)
		if (f->acc[i].array == a->array &&
		    (f->acc[i].flags & (KS_ACC_STORE | KS_ACC_ATOMIC)))
			return ks_xfk_decline(reason, "the operand %s is written on "
						      "line %u",
					      o->name, f->acc[i].line);
	return 0;
}

/* The bounds checks in front of the loop: gx < limx, gy < limy,
 * blockIdx.z < limz. Anything else that decides whether the loop runs
 * declines. */
static int
limits(struct ks_kloop *kl, struct ks_buf *reason)
{
	const struct ks_facts *f = kl->x.f;
	unsigned kline = f->loops[kl->loop].line;
	struct ks_form gx, gy, bz;

	global_index(&gx, 0);
	global_index(&gy, 1);
	ks_form_src(&bz, KS_SRC_BID_Z);
	for (size_t i = 0; i < f->nbranches; i++) {
		const struct ks_branch *b = &f->branches[i];
		char **slot = NULL, *lim;
		int plus1;

		if (b->kind == KS_BR_UNIFORM || b->stmt == KS_BRS_LOOP ||
		    b->line > kline)
			continue;
		if (b->loop >= 0)
			return ks_xfk_decline(reason, "a condition inside a loop "
						      "(line %u) decides whether the "
						      "k-loop runs",
					      b->line);
		if (b->kind == KS_BR_BOUNDS && ks_form_equal(&b->subject, &gx))
			slot = &kl->limx;
		else if (b->kind == KS_BR_BOUNDS && ks_form_equal(&b->subject, &gy))
			slot = &kl->limy;
		else if (b->kind == KS_BR_BOUNDS && ks_form_equal(&b->subject, &bz))
			slot = &kl->limz;
		if (!slot)
			return ks_xfk_decline(reason, "the condition on line %u is not a "
						      "bounds check of a global thread "
						      "index (gx, gy) or blockIdx.z",
					      b->line);
		if (!b->early_exit && (b->cmp == KS_CMP_LT || b->cmp == KS_CMP_LE))
			plus1 = b->cmp == KS_CMP_LE;
		else if (b->early_exit && (b->cmp == KS_CMP_GE || b->cmp == KS_CMP_GT))
			plus1 = b->cmp == KS_CMP_GT;
		else
			return ks_xfk_decline(reason, "the bounds check on line %u does "
						      "not keep the indices below a limit",
					      b->line);
		lim = ks_xfk_uniform_c(&kl->x, &b->limit);
		if (!lim)
			return ks_xfk_decline(reason, "the limit of the bounds check on "
						      "line %u is not an expression of "
						      "the kernel's parameters",
					      b->line);
		if (*slot) {
			/* two checks of one index: the smaller limit */
			struct ks_buf m = KS_BUF_INIT;

			ks_buf_addf(&m, "ks_min_ll(%s, %s%s)", *slot, lim,
				    plus1 ? " + 1" : "");
			free(*slot);
			free(lim);
			*slot = ks_buf_detach(&m, NULL);
		} else if (plus1) {
			struct ks_buf m = KS_BUF_INIT;

			ks_buf_addf(&m, "(%s + 1)", lim);
			free(lim);
			*slot = ks_buf_detach(&m, NULL);
		} else {
			*slot = lim;
		}
	}
	return 0;
}

/* The product of a k-loop's statement as spelled: its two loads and
 * (scaled) the factors beside them, as C ("alpha * 2.0f"). */
struct spelled {
	const struct ks_access *pa, *pb;
	int scaled;
	struct ks_buf factors;
	/* the locals the loop's body loads P and Q into first (`float a =
	 * A[..];`), their tokens, or NULL */
	const struct ks_xfk_tok *name[2];
};

/* Token `i` is the local named by `n`, or n is NULL. */
static int
is_name(const char *text, const struct ks_xfk_toks *ts, size_t i,
	const struct ks_xfk_tok *n)
{
	return n && ks_xfk_tok_same(text, &ts->t[i], n);
}

/* Tokens [i, ..) are terms joined by `*` up to `sep`: P and Q once each
 * and, only where the product is scaled (the facts say so), factors of
 * one token each (a name or a number: the analysis found them free of
 * data and of loops), collected into sp->factors. The index after `sep`,
 * or 0. */
static size_t
spell_terms(const char *text, const struct ks_xfk_toks *ts, size_t i,
	    size_t to, const char *sep, struct spelled *sp)
{
	int np = 0, nq = 0, nf = 0;

	ks_buf_reset(&sp->factors);
	for (;;) {
		size_t j;

		if ((j = ks_xfk_past_access(ts, i, to, sp->pa)) ||
		    (is_name(text, ts, i, sp->name[0]) && (j = i + 1) < to))
			np++;
		else if ((j = ks_xfk_past_access(ts, i, to, sp->pb)) ||
			 (is_name(text, ts, i, sp->name[1]) && (j = i + 1) < to))
			nq++;
		else if (i + 1 < to && (ts->t[i].kind == 'i' || ts->t[i].kind == 'n')) {
			j = i + 1;
			if (nf++)
				ks_buf_adds(&sp->factors, " * ");
			ks_buf_add(&sp->factors, text + ts->t[i].begin,
				   ts->t[i].end - ts->t[i].begin);
		} else {
			break;
		}
		if (ks_xfk_tok_is(text, &ts->t[j], sep) && np == 1 && nq == 1 &&
		    !nf == !sp->scaled)
			return j + 1;
		if (!ks_xfk_tok_is(text, &ts->t[j], "*"))
			break;
		i = j + 1;
	}
	ks_buf_reset(&sp->factors);
	return 0;
}

/* The accumulator spelled at token i (`which`: its load rather than its
 * store, for `C[..] = C[..] + ..`; a local's name either way): the index
 * past it, or 0. The first call binds a local's name. */
static size_t
spell_acc(struct ks_kloop *kl, const char *text, const struct ks_xfk_toks *ts,
	  size_t i, size_t to, int which)
{
	const struct ks_xfk_tok *id;

	if (i >= to)
		return 0;
	if (kl->mem_acc)
		return ks_xfk_past_access(ts, i, to, &kl->x.f->acc[which ? kl->acc_ld : kl->acc_st]);
	id = &ts->t[i];
	if (id->kind != 'i' || i + 1 >= to)
		return 0;
	if (!kl->acc) {
		kl->acc = ks_xstrndup(text + id->begin, id->end - id->begin);
		return i + 1;
	}
	return strlen(kl->acc) == id->end - id->begin &&
			       !memcmp(kl->acc, text + id->begin, id->end - id->begin)
		       ? i + 1
		       : 0;
}

/* "P , Q ," in either order: the index after the second comma, or 0. */
static size_t
spell_args(const char *text, const struct ks_xfk_toks *ts, size_t i, size_t to,
	   const struct ks_access *p, const struct ks_access *q)
{
	return ks_xfk_spell_two(text, ts, i, to, p, q, ",", ",");
}

/* The loop statement on the k-loop's line, its condition's comparison,
 * and the accumulation. */
static int
loop_text(struct ks_kloop *kl, const struct ks_xf_input *in,
	  const struct ks_product *pr, struct ks_buf *reason)
{
	const struct ks_kernel *k = kl->x.k;
	const struct ks_facts *f = kl->x.f;
	const struct ks_loop *l = &f->loops[kl->loop];
	const char *t = in->text;
	struct ks_xfk_toks ts = { NULL, 0, 0 };
	size_t fo = 0, nfor = 0, op, cp, s1 = 0, s2 = 0, b, e, i;
	const struct ks_access *pa = &f->acc[pr->a], *pb = &f->acc[pr->b];
	struct ks_buf rep = KS_BUF_INIT;
	int rc = -1, lt = 0, outer_var, braced;
	long long step;

	ks_xfk_tokens(t, k->body.begin, k->body.end, k->body.line, &ts);
	for (i = 0; i < ts.n; i++)
		if (ts.t[i].line == l->line && ts.t[i].kind == 'i' &&
		    ks_xfk_tok_is(t, &ts.t[i], "for")) {
			fo = i;
			nfor++;
		}
	if (nfor != 1) {
		ks_xfk_decline(reason, "%s for loops on line %u, where the k-loop is",
			       nfor ? "several" : "no", l->line);
		goto out;
	}
	op = fo + 1;
	if (op >= ts.n || !ks_xfk_tok_is(t, &ts.t[op], "(") || (cp = ks_xfk_match(t, &ts, op)) >= ts.n) {
		ks_xfk_decline(reason, "the k-loop on line %u is not a for statement",
			       l->line);
		goto out;
	}
	for (i = op + 1; i < cp; i++)
		if (ks_xfk_tok_is(t, &ts.t[i], ";")) {
			if (!s1)
				s1 = i;
			else if (!s2)
				s2 = i;
		}
	/* the condition: `var < bound`, `var <= bound` or `var != bound`,
	 * the variable the increment steps */
	if (!s1 || !s2 || s2 < s1 + 3 || ts.t[s1 + 1].kind != 'i') {
		ks_xfk_decline(reason, "the k-loop's condition (line %u) is not "
				       "`k < bound`",
			       l->line);
		goto out;
	}
	{
		const struct ks_xfk_tok *c = &ts.t[s1 + 2], *c2 = &ts.t[s1 + 3];
		int found = 0;

		if (ks_xfk_tok_is(t, c, "<") && !ks_xfk_tok_is(t, c2, "=") && !ks_xfk_tok_is(t, c2, "<"))
			lt = 1;
		else if (ks_xfk_tok_is(t, c, "<") && ks_xfk_tok_is(t, c2, "="))
			lt = 2;
		else if (ks_xfk_tok_is(t, c, "!") && ks_xfk_tok_is(t, c2, "="))
			lt = 3;
		for (i = s2 + 1; i < cp && !found; i++)
			found = ts.t[i].kind == 'i' &&
				ts.t[i].end - ts.t[i].begin ==
					ts.t[s1 + 1].end - ts.t[s1 + 1].begin &&
				!memcmp(t + ts.t[i].begin, t + ts.t[s1 + 1].begin,
					ts.t[i].end - ts.t[i].begin);
		if (!lt || !found) {
			ks_xfk_decline(reason, "the k-loop's condition (line %u) is not "
					       "`k < bound` or `k <= bound` on the "
					       "variable it steps",
				       l->line);
			goto out;
		}
	}
	/* a variable declared before the loop keeps the value the loop
	 * left in it, which the replacement does not give it: checked
	 * below, where the loop's end is known */
	outer_var = ks_xfk_tok_same(t, &ts.t[op + 1], &ts.t[s1 + 1]);
	if (!ks_form_is_const(&l->step, &step) || step <= 0 ||
	    (lt == 3 && step != 1)) {
		ks_xfk_decline(reason, "the k-loop (line %u) does not count up by a "
				       "constant step",
			       l->line);
		goto out;
	}
	{
		char *init = ks_xfk_uniform_c(&kl->x, &l->init);
		char *bound = ks_xfk_uniform_c(&kl->x, &l->bound);
		struct ks_buf tr = KS_BUF_INIT;

		if (!init || !bound) {
			free(init);
			free(bound);
			ks_xfk_decline(reason, "the k-loop's start or bound (line %u) is "
					       "not an expression of the kernel's "
					       "parameters",
				       l->line);
			goto out;
		}
		/* iterations of for (k = init; k < bound; k += step) */
		ks_buf_addf(&tr, "ks_trip(%s, %s%s, %lldLL)", init, bound,
			    lt == 2 ? " + 1LL" : "", step);
		free(init);
		free(bound);
		kl->trip = ks_buf_detach(&tr, NULL);
	}
	/* the body: one statement, braced or not */
	b = cp + 1;
	braced = b < ts.n && ks_xfk_tok_is(t, &ts.t[b], "{");
	if (braced) {
		size_t cb = ks_xfk_match(t, &ts, b);

		if (cb >= ts.n)
			goto bad_body;
		kl->loop_end = ts.t[cb].end;
		e = cb;
		b++;
	} else {
		for (e = b; e < ts.n && !ks_xfk_tok_is(t, &ts.t[e], ";"); e++)
			if (ks_xfk_tok_is(t, &ts.t[e], "(") || ks_xfk_tok_is(t, &ts.t[e], "{"))
				e = ks_xfk_match(t, &ts, e);
		if (e >= ts.n)
			goto bad_body;
		kl->loop_end = ts.t[e].end;
		e++;
	}
	kl->loop_begin = ts.t[fo].begin;
	for (i = e; outer_var && i < ts.n; i++)
		if (ks_xfk_tok_same(t, &ts.t[i], &ts.t[s1 + 1])) {
			ks_xfk_decline(reason, "the k-loop's variable (line %u) is "
					       "declared before the loop and read after "
					       "it (line %u)",
				       l->line, ts.t[i].line);
			goto out;
		}
	/* acc += P * Q;  acc = acc + P * Q;  acc = P * Q + acc;
	 * acc = fmaf(P, Q, acc); the product perhaps with factors */
	{
		struct spelled sp;
		size_t j = 0, m;

		memset(&sp, 0, sizeof(sp));
		sp.pa = pa;
		sp.pb = pb;
		sp.scaled = pr->scaled;
		/* `T a = P; T b = Q;` first: the product then names them */
		while (braced && b < e) {
			size_t d = b, x;
			int w, typed = 0;

			/* the value kept as it was read: float (the template's
			 * type), const, auto */
			for (; d + 1 < e && ts.t[d + 1].kind == 'i'; d++) {
				if (ks_xfk_tok_is(t, &ts.t[d], "float") ||
				    ks_xfk_tok_is(t, &ts.t[d], "auto"))
					typed = 1;
				else if (!ks_xfk_tok_is(t, &ts.t[d], "const"))
					break;
			}
			if (!typed || ts.t[d].kind != 'i')
				break;
			d++;
			if (!ks_xfk_tok_is(t, &ts.t[d], "="))
				break;
			w = (x = ks_xfk_past_access(&ts, d + 1, e, pa)) ? 0
			    : (x = ks_xfk_past_access(&ts, d + 1, e, pb)) ? 1
								    : -1;
			if (w < 0 || sp.name[w] || !ks_xfk_tok_is(t, &ts.t[x], ";"))
				break;
			sp.name[w] = &ts.t[d - 1];
			b = x + 1;
		}
		if (!(m = spell_acc(kl, t, &ts, b, e, 0)))
			goto bad_body;
		if (ks_xfk_tok_is(t, &ts.t[m], "+") && m + 1 < e &&
		    ks_xfk_tok_is(t, &ts.t[m + 1], "=")) {
			j = spell_terms(t, &ts, m + 2, e, ";", &sp);
		} else if (ks_xfk_tok_is(t, &ts.t[m], "=")) {
			size_t n = m + 1, r;

			if ((r = spell_acc(kl, t, &ts, n, e, 1)) &&
			    ks_xfk_tok_is(t, &ts.t[r], "+"))
				j = spell_terms(t, &ts, r + 1, e, ";", &sp);
			else if ((j = spell_terms(t, &ts, n, e, "+", &sp)) &&
				 (r = spell_acc(kl, t, &ts, j, e, 1)) &&
				 ks_xfk_tok_is(t, &ts.t[r], ";"))
				j = r + 1;
			else if (!sp.scaled &&
				 (ks_xfk_tok_is(t, &ts.t[n], "fmaf") ||
				  ks_xfk_tok_is(t, &ts.t[n], "__fmaf_rn")) &&
				 ks_xfk_tok_is(t, &ts.t[n + 1], "(") &&
				 (j = spell_args(t, &ts, n + 2, e, pa, pb)) &&
				 (r = spell_acc(kl, t, &ts, j, e, 1)) &&
				 ks_xfk_tok_is(t, &ts.t[r], ")") &&
				 ks_xfk_tok_is(t, &ts.t[r + 1], ";"))
				j = r + 2;
			else
				j = 0;
		}
		if (!j || j != e) {
			ks_xfk_decline(reason, "the k-loop's body (line %u) is not just "
					       "`acc += %s%s[..] * %s[..]`",
				       l->line, pr->scaled ? "factor * " : "",
				       kl->op[0].name, kl->op[1].name);
			goto out;
		}
		ks_buf_addf(&rep, " += %s%sks_gemm_v;", sp.factors.len ? sp.factors.buf : "",
			    sp.factors.len ? " * " : "");
		ks_buf_release(&sp.factors);
		if (kl->mem_acc) {
			/* the element's own text stays, renamed like the body */
			kl->edits[0].begin = kl->loop_begin;
			kl->edits[0].end = ts.t[b].begin;
			kl->edits[0].with = ks_xstrdup("");
			kl->edits[1].begin = ts.t[m - 1].end;
			kl->edits[1].end = kl->loop_end;
			kl->edits[1].with = ks_buf_detach(&rep, NULL);
			kl->nedits = 2;
		} else {
			struct ks_buf w = KS_BUF_INIT;

			ks_buf_adds(&w, kl->acc);
			ks_buf_add(&w, rep.buf, rep.len);
			kl->edits[0].begin = kl->loop_begin;
			kl->edits[0].end = kl->loop_end;
			kl->edits[0].with = ks_buf_detach(&w, NULL);
			kl->nedits = 1;
		}
	}
	rc = 0;
	goto out;
bad_body:
	ks_xfk_decline(reason, "the k-loop's body (line %u) is not one accumulating "
			       "statement",
		       l->line);
out:
	free(ts.t);
	ks_buf_release(&rep);
	return rc;
}

/* The k-loop's other accesses: none (a local accumulates), or the load
 * and the store of one element of global memory at an index the loop
 * does not move, in an array neither operand reads. */
static int
accumulator(struct ks_kloop *kl, const struct ks_product *pr,
	    struct ks_buf *reason)
{
	const struct ks_facts *f = kl->x.f;
	const struct ks_loop *l = &f->loops[kl->loop];
	const struct ks_access *st, *ld;
	int bad = -1;

	kl->acc_st = kl->acc_ld = -1;
	for (size_t i = 0; i < f->nacc && bad < 0; i++) {
		const struct ks_access *a = &f->acc[i];

		if (!ks_facts_loop_within(f, a->loop, kl->loop) ||
		    (int)i == pr->a || (int)i == pr->b)
			continue;
		if ((a->flags & KS_ACC_STORE) && kl->acc_st < 0)
			kl->acc_st = (int)i;
		else if (!(a->flags & KS_ACC_STORE) && kl->acc_ld < 0)
			kl->acc_ld = (int)i;
		else
			bad = (int)i;
	}
	if (bad < 0 && kl->acc_st < 0 && kl->acc_ld < 0)
		return 0;
	if (bad < 0 && (kl->acc_st < 0 || kl->acc_ld < 0))
		bad = kl->acc_st < 0 ? kl->acc_ld : kl->acc_st;
	if (bad < 0) {
		st = &f->acc[kl->acc_st];
		ld = &f->acc[kl->acc_ld];
		if (st->array == ld->array && ks_form_equal(&st->offset, &ld->offset)) {
			const char *n = f->arrays[st->array].name;

			if (st->array == f->acc[pr->a].array ||
			    st->array == f->acc[pr->b].array)
				return ks_xfk_decline(reason, "the k-loop (line %u) "
							      "accumulates into %s, "
							      "which its product reads",
						      l->line, n);
			if (ks_form_sources(&st->offset) & KS_SRC_LOOP_MASK)
				return ks_xfk_decline(reason, "the k-loop (line %u) "
							      "accumulates into %s at "
							      "an index the loop moves",
						      l->line, n);
		}
		if (st->array != ld->array || !ks_form_equal(&st->offset, &ld->offset) ||
		    f->arrays[st->array].param < 0 ||
		    (f->arrays[st->array].space != KS_SPACE_GLOBAL &&
		     f->arrays[st->array].space != KS_SPACE_UNKNOWN) ||
		    ((st->flags | ld->flags) & (KS_ACC_ATOMIC | KS_ACC_VECTOR)) ||
		    st->bytes != 4 || st->offset.data || st->offset.nonlinear ||
		    (ks_form_sources(&st->offset) & KS_SRC_LOOP_MASK))
			bad = kl->acc_ld;
	}
	if (bad >= 0) {
		const struct ks_access *a = &f->acc[bad];

		return ks_xfk_decline(reason, "the k-loop (line %u) also %s %s on line %u",
				      l->line,
				      (a->flags & KS_ACC_STORE) ? "stores" : "reads",
				      f->arrays[a->array].name, a->line);
	}
	kl->mem_acc = 1;
	return 0;
}

int
ks_kloop_init(struct ks_kloop *kl, const struct ks_xf_input *in,
	      struct ks_buf *reason)
{
	const struct ks_kernel *k = in->kernel;
	const struct ks_facts *f = &k->facts;
	const struct ks_product *pr = NULL;
	const struct ks_loop *l;
	int np = 0;

	memset(kl, 0, sizeof(*kl));
	kl->loop = -1;
	if (ks_xfbody_plain_kernel(k, 0, reason) || ks_xfk_init(&kl->x, in, reason))
		return -1;
	for (size_t i = 0; i < f->nacc; i++)
		if (f->acc[i].flags & KS_ACC_ATOMIC)
			return ks_xfk_decline(reason, "%s has atomics (line %u)", k->name,
					      f->acc[i].line);
	for (size_t i = 0; i < f->nproducts; i++)
		if (f->products[i].accumulate && f->products[i].loop >= 0) {
			if (pr)
				return ks_xfk_decline(reason, "%s accumulates more than "
							      "one product in loops "
							      "(lines %u, %u)",
						      k->name, pr->line,
						      f->products[i].line);
			pr = &f->products[i];
			np++;
		}
	if (!pr)
		return ks_xfk_decline(reason, "%s has no loop accumulating a product "
					      "of two loaded values",
				      k->name);
	kl->loop = pr->loop;
	l = &f->loops[kl->loop];
	if (f->declares_double || f->nfp64)
		return ks_xfk_decline(reason, "%s computes in double: the template "
					      "accumulates in float",
				      k->name);
	if (l->parent >= 0)
		return ks_xfk_decline(reason, "the k-loop (line %u) is inside another "
					      "loop (line %u)",
				      l->line, f->loops[l->parent].line);
	for (size_t i = 0; i < f->nloops; i++)
		if (f->loops[i].parent == kl->loop)
			return ks_xfk_decline(reason, "the k-loop (line %u) has a loop "
						      "inside (line %u)",
					      l->line, f->loops[i].line);
	if (l->step_kind != KS_STEP_ADD)
		return ks_xfk_decline(reason, "the k-loop (line %u) does not step by "
					      "addition",
				      l->line);
	if (pr->loop != kl->loop || f->acc[pr->a].loop != kl->loop ||
	    f->acc[pr->b].loop != kl->loop)
		return ks_xfk_decline(reason, "the product on line %u is not in the "
					      "k-loop's body",
				      pr->line);
	if (accumulator(kl, pr, reason))
		return -1;
	for (size_t i = 0; i < f->ncalls; i++)
		if (ks_facts_loop_within(f, f->calls[i].loop, kl->loop) &&
		    strcmp(f->calls[i].name, "fmaf") &&
		    strcmp(f->calls[i].name, "__fmaf_rn"))
			return ks_xfk_decline(reason, "the k-loop calls %s (line %u)",
					      f->calls[i].name, f->calls[i].line);
	for (size_t i = 0; i < f->nbranches; i++)
		if (ks_facts_loop_within(f, f->branches[i].loop, kl->loop))
			return ks_xfk_decline(reason, "the k-loop has a condition "
						      "inside (line %u)",
					      f->branches[i].line);
	if (operand(kl, 0, pr->a, reason) || operand(kl, 1, pr->b, reason))
		return -1;
	if (limits(kl, reason) || loop_text(kl, in, pr, reason))
		return -1;
	(void)np;
	return 0;
}

static const struct ks_xfbody_rename renames[] = {
	{ "threadIdx", "ks_tid" },
	{ "blockIdx", "ks_bid" },
	{ "blockDim", "ks_bdim" },
	{ "gridDim", "ks_gdim" },
	{ NULL, NULL },
};

int
ks_kloop_body(const struct ks_kloop *kl, const struct ks_xf_input *in,
	      const char *prefix, struct ks_buf *out, struct ks_buf *reason)
{
	const struct ks_kernel *k = kl->x.k;
	struct ks_xfbody_edit ed[2];
	struct ks_buf params = KS_BUF_INIT, body = KS_BUF_INIT;
	int rc = -1;

	for (int i = 0; i < kl->nedits; i++) {
		ed[i].begin = kl->edits[i].begin;
		ed[i].end = kl->edits[i].end;
		ed[i].with = kl->edits[i].with;
	}
	if (ks_xfbody_params(k, -1, NULL, -1, NULL, &params, reason) ||
	    ks_xfbody_copy(in->text, in->len, k, ed, (size_t)kl->nedits, renames,
			   &body, reason))
		goto out;
	ks_buf_adds(out, "#pragma nv_diagnostic push\n"
			 "#pragma nv_diag_suppress 177\n"
			 "#pragma nv_diag_suppress 550\n");
	ks_buf_addf(out,
		    "/* The body of %s at thread ks_tid of block ks_bid, its "
		    "k-loop's sum given\n   as ks_gemm_v. */\n"
		    "__device__ __forceinline__ static void\n"
		    "%s_body_%s(const uint3 ks_tid, const uint3 ks_bid, "
		    "const dim3 ks_bdim,\n\tconst dim3 ks_gdim, %s, "
		    "const float ks_gemm_v)\n",
		    k->name, prefix, k->name, params.buf);
	ks_buf_add(out, body.buf, body.len);
	ks_buf_adds(out, "\n");
	/* the loop's operands may leave locals of the body unused */
	ks_buf_adds(out, "#pragma nv_diagnostic pop\n\n");
	rc = 0;
out:
	ks_buf_release(&params);
	ks_buf_release(&body);
	return rc;
}
