/*
 * conv_tiling: a direct convolution with one thread per output becomes an
 * implicit GEMM: shared-memory tiles of input taps and weights, a
 * register block of pixels x output channels per thread.
 *
 * Recognized in the facts: one product X[..] * W[..] accumulated in the
 * innermost of a nest of 2 to 4 loops (the outermost: the input
 * channels, any uniform trip count; the others: the filter window,
 * constant trip counts); X's element index affine in the global thread
 * indices gx, gy, the image and the loops; W's in the output channel and
 * the loops. The image and the output channel are the quotient and the
 * digit of blockIdx.z by a uniform value (n = blockIdx.z / K, k =
 * blockIdx.z % K), or the output channel is blockIdx.z itself. Stride,
 * padding and dilation are whatever the coefficients say (so are NCHW and
 * NHWC); every condition in the nest is a bounds check of an affine form
 * of gx, gy and the window loops that skips the tap (`if (iy < 0 || iy
 * >= H) continue;`), the zero padding. The text is read only to find the
 * nest and its accumulation and to check that the conditions skip.
 *
 * Output (gx, gy, n, k) is sum over t of A(m, t) * B(t, k), t the nest's
 * iteration in the original order, m the pixel of image n, A the input
 * tap (zero where a condition skips it) and B the weight. A block of the
 * variant computes bm pixels (a px-wide patch of one image) x bn output
 * channels; each slice of the sum covers cb channels' whole windows, so
 * which tap a thread loads is the same in every slice and is computed
 * once: a slice costs one add and one predicated load per element. Two
 * shared buffers: the next slice is loaded while the current one is
 * multiplied. The sums are staged in shared memory and each output then
 * runs the kernel's own body at its original thread with the loop nest
 * replaced by `acc += <the sum>`, consecutive threads on consecutive
 * pixels: the bias, any epilogue, the store and the kernel's bounds
 * checks are the kernel's. A skipped tap adds 0 * w (the original adds
 * nothing: equal unless a weight is infinite or NaN).
 *
 * Ownership: everything is local to one apply() call.
 * May include: libc, core/, analysis/ (structs only), transform.h,
 * xfkit.h, xfbody.h, gemm_kloop.h.
 */
#include <stdlib.h>
#include <string.h>

#include "../analysis/facts.h"
#include "../analysis/inventory.h"
#include "../core/buf.h"
#include "../core/util.h"
#include "gemm_kloop.h"
#include "transform.h"
#include "xfbody.h"
#include "xfkit.h"

#define CV_MAXL 4	/* loops of the nest */
#define CV_MAXC 8	/* conditions in it */

/* An affine form as C pieces: c0 + gx*cgx + gy*cgy + img*cq + ch*cd +
 * sum over d of L_d * cl[d]; NULL pieces are zero. */
struct cv_aff {
	char *c0, *cgx, *cgy, *cq, *cd, *cl[CV_MAXL];
};

struct cv_cond {
	struct cv_aff s;	/* the subject */
	char *lim;
	enum ks_bcmp cmp;
	unsigned line;
};

struct cv {
	struct ks_xfk x;
	const struct ks_facts *f;
	int nl, loops[CV_MAXL];	/* outermost first */
	long long trip[CV_MAXL];	/* d >= 1 */
	char *trip0;		/* the outer loop's, C */
	int ax, aw;		/* the accesses of X and W */
	const char *xname, *wname;
	int zq;			/* the derived quotient of blockIdx.z, or -1 */
	char *den;		/* channels per blockIdx.z step, C */
	struct cv_aff X, W;
	struct cv_cond cond[CV_MAXC];
	int ncond;
	char *limx, *limy, *limz;
	char *acc;
	size_t nest_begin, nest_end;
};

static void
aff_release(struct cv_aff *a)
{
	free(a->c0);
	free(a->cgx);
	free(a->cgy);
	free(a->cq);
	free(a->cd);
	for (int i = 0; i < CV_MAXL; i++)
		free(a->cl[i]);
}

static void
cv_release(struct cv *c)
{
	ks_xfk_release(&c->x);
	free(c->trip0);
	free(c->den);
	aff_release(&c->X);
	aff_release(&c->W);
	for (int i = 0; i < c->ncond; i++) {
		aff_release(&c->cond[i].s);
		free(c->cond[i].lim);
	}
	free(c->limx);
	free(c->limy);
	free(c->limz);
	free(c->acc);
}

static int
poly_zero(const struct ks_poly *p)
{
	return !p->n && !p->opaque;
}

/* A piece of an affine form: NULL when zero, else the C text (or the
 * failure flag set). */
static char *
piece(const struct ks_xfk *x, const struct ks_poly *p, long long div, int *bad)
{
	char *s;

	if (poly_zero(p))
		return NULL;
	s = ks_xfk_poly_c(x, p, div);
	if (!s)
		*bad = 1;
	return s;
}

/*
 * Split the exact view of `f` (divided by `div`) into an affine form
 * over gx, gy, the image (Q_zq), the channel (D_zq, or blockIdx.z when
 * zq < 0 and `z_is_ch`) and the nest's loops. Returns 0, or -1 with
 * `what` in the reason.
 */
static int
affine(const struct cv *c, const struct ks_form *f, long long div,
       struct cv_aff *out, const char *what, unsigned line,
       struct ks_buf *reason)
{
	struct ks_xform v;
	struct ks_form g;
	int bad = 0;

	memset(out, 0, sizeof(*out));
	if (f->data)
		return ks_xfk_decline(reason, "%s on line %u depends on data read from "
					      "memory", what, line);
	if (!ks_form_exact(f, &v)) {
		return ks_xfk_decline(reason, "%s on line %u is not affine in the thread "
					      "indices, blockIdx.z / n, blockIdx.z %% n "
					      "and the loops", what, line);
	}
	if (!poly_zero(&v.x[KS_SRC_TID_Z]))
		return ks_xfk_decline(reason, "%s on line %u uses threadIdx.z", what, line);
	/* x and y only as blockIdx * blockDim + threadIdx */
	ks_form_zero(&g);
	for (int s = KS_SRC_TID_X; s <= KS_SRC_BID_Y; s++)
		g.c[s] = v.x[s];
	if (!ks_form_global_index_only(&g))
		return ks_xfk_decline(reason, "%s on line %u uses threadIdx or blockIdx "
					      "other than as blockIdx*blockDim + "
					      "threadIdx", what, line);
	for (int s = KS_SRC_LOOP0; s < KS_SRC_ONE; s++) {
		int d = s - KS_SRC_LOOP0;

		if (poly_zero(&v.x[s]))
			continue;
		if (d >= c->nl)
			return ks_xfk_decline(reason, "%s on line %u moves with a loop "
						      "outside the nest", what, line);
		out->cl[d] = piece(&c->x, &v.x[s], div, &bad);
	}
	for (int q = 0; q < KS_DER_N; q++) {
		if (q == c->zq)
			continue;
		if (!poly_zero(&v.q[q]) || !poly_zero(&v.d[q]))
			return ks_xfk_decline(reason, "%s on line %u uses a division or "
						      "remainder other than of blockIdx.z",
					      what, line);
	}
	out->c0 = piece(&c->x, &v.x[KS_SRC_ONE], div, &bad);
	out->cgx = piece(&c->x, &v.x[KS_SRC_TID_X], div, &bad);
	out->cgy = piece(&c->x, &v.x[KS_SRC_TID_Y], div, &bad);
	if (c->zq >= 0) {
		if (!poly_zero(&v.x[KS_SRC_BID_Z]))
			return ks_xfk_decline(reason, "%s on line %u uses blockIdx.z "
						      "besides its quotient and remainder",
					      what, line);
		out->cq = piece(&c->x, &v.q[c->zq], div, &bad);
		out->cd = piece(&c->x, &v.d[c->zq], div, &bad);
	} else {
		out->cd = piece(&c->x, &v.x[KS_SRC_BID_Z], div, &bad);
	}
	if (bad)
		return ks_xfk_decline(reason, "%s on line %u has a coefficient that is "
					      "not an expression of the kernel's "
					      "parameters", what, line);
	return 0;
}

/* "(c0) + (cgx) * gx + ..." for the pieces not in `skip` (a bitmask:
 * 1 gx, 2 gy, 4 img, 8 ch, 16 << d loop d). */
static void
aff_emit(struct ks_buf *o, const struct cv_aff *a, unsigned skip,
	 const char *gx, const char *gy, const char *img, const char *ch,
	 const char *const *l)
{
	const char *sep = "";

	ks_buf_adds(o, "(");
	if (a->c0) {
		ks_buf_addf(o, "(%s)", a->c0);
		sep = " + ";
	}
#define TERM(p, bit, v)                                                 \
	if ((p) && !(skip & (bit))) {                                   \
		ks_buf_addf(o, "%s(%s) * (long long)(%s)", sep, p, v);  \
		sep = " + ";                                            \
	}
	TERM(a->cgx, 1u, gx)
	TERM(a->cgy, 2u, gy)
	TERM(a->cq, 4u, img)
	TERM(a->cd, 8u, ch)
	for (int d = 0; d < CV_MAXL; d++)
		TERM(a->cl[d], 16u << d, l[d])
#undef TERM
	if (!*sep)
		ks_buf_adds(o, "0LL");
	ks_buf_adds(o, ")");
}

/* ---- the text of the nest ---- */

static int
same(const char *text, const struct ks_xfk_tok *a, const struct ks_xfk_tok *b)
{
	return a->kind == b->kind && a->end - a->begin == b->end - b->begin &&
	       !memcmp(text + a->begin, text + b->begin, a->end - a->begin);
}

/* The last token of the statement starting at token i, or n. */
static size_t
stmt_end(const char *t, const struct ks_xfk_toks *ts, size_t i)
{
	size_t j;

	if (i >= ts->n)
		return ts->n;
	if (ks_xfk_tok_is(t, &ts->t[i], "{"))
		return ks_xfk_match(t, ts, i);
	if (ks_xfk_tok_is(t, &ts->t[i], "for") || ks_xfk_tok_is(t, &ts->t[i], "while") ||
	    ks_xfk_tok_is(t, &ts->t[i], "if")) {
		if (i + 1 >= ts->n || !ks_xfk_tok_is(t, &ts->t[i + 1], "("))
			return ts->n;
		j = ks_xfk_match(t, ts, i + 1);
		if (j >= ts->n)
			return ts->n;
		j = stmt_end(t, ts, j + 1);
		if (ks_xfk_tok_is(t, &ts->t[i], "if") && j + 1 < ts->n &&
		    ks_xfk_tok_is(t, &ts->t[j + 1], "else"))
			j = stmt_end(t, ts, j + 2);
		return j;
	}
	for (j = i; j < ts->n; j++) {
		if (ks_xfk_tok_is(t, &ts->t[j], ";"))
			return j;
		if (ks_xfk_tok_is(t, &ts->t[j], "(") || ks_xfk_tok_is(t, &ts->t[j], "{") ||
		    ks_xfk_tok_is(t, &ts->t[j], "["))
			j = ks_xfk_match(t, ts, j);
	}
	return ts->n;
}

/* Is token j an assignment operator's first token (=, op=, ++, --)?
 * Returns its length in tokens, or 0. */
static int
assign_op(const char *t, const struct ks_xfk_toks *ts, size_t j)
{
	const struct ks_xfk_tok *a = &ts->t[j];
	const struct ks_xfk_tok *b = j + 1 < ts->n ? &ts->t[j + 1] : NULL;
	const struct ks_xfk_tok *p = j ? &ts->t[j - 1] : NULL;

	if (a->kind != 'p')
		return 0;
	if ((ks_xfk_tok_is(t, a, "+") && b && ks_xfk_tok_is(t, b, "+")) ||
	    (ks_xfk_tok_is(t, a, "-") && b && ks_xfk_tok_is(t, b, "-")))
		return 2;
	if (ks_xfk_tok_is(t, a, "=")) {
		if (b && ks_xfk_tok_is(t, b, "="))
			return 0;
		if (p && p->kind == 'p' && p->end == a->begin &&
		    strchr("=<>!", t[p->begin]))
			return 0;
		return 1;
	}
	if (b && ks_xfk_tok_is(t, b, "=") && b->begin == a->end &&
	    strchr("+-*/%&|^", t[a->begin]) &&
	    !(j + 2 < ts->n && ks_xfk_tok_is(t, &ts->t[j + 2], "=")))
		return 2;
	return 0;
}

/* The nest's text: its extent, the accumulation, and that every
 * condition skips a tap. */
static int
nest_text(struct cv *c, const struct ks_xf_input *in,
	  const struct ks_product *pr, struct ks_buf *reason)
{
	const struct ks_kernel *k = c->x.k;
	const struct ks_facts *f = c->f;
	const struct ks_loop *l = &f->loops[c->loops[0]];
	const char *t = in->text;
	struct ks_xfk_toks ts = { NULL, 0, 0 };
	size_t fo = 0, nfor = 0, e, i, acc_at = 0, acc_end = 0;
	const struct ks_access *pa = &f->acc[pr->a], *pb = &f->acc[pr->b];
	int rc = -1;

	ks_xfk_tokens(t, k->body.begin, k->body.end, k->body.line, &ts);
	for (i = 0; i < ts.n; i++)
		if (ts.t[i].line == l->line && ks_xfk_tok_is(t, &ts.t[i], "for")) {
			fo = i;
			nfor++;
		}
	if (nfor != 1) {
		ks_xfk_decline(reason, "%s for loops on line %u, where the channel "
				       "loop is", nfor ? "several" : "no", l->line);
		goto out;
	}
	e = stmt_end(t, &ts, fo);
	if (e >= ts.n) {
		ks_xfk_decline(reason, "the loop on line %u is not a for statement",
			       l->line);
		goto out;
	}
	c->nest_begin = ts.t[fo].begin;
	c->nest_end = ts.t[e].end;
	/* the accumulation: acc += P * Q; acc = acc + P * Q;
	 * acc = fmaf(P, Q, acc); */
	for (i = fo; i + 3 <= e && !acc_at; i++) {
		size_t j = 0;

		if (ts.t[i].kind != 'i' || (i && ts.t[i - 1].kind == 'i'))
			continue;
		if (ks_xfk_tok_is(t, &ts.t[i + 1], "+") && ks_xfk_tok_is(t, &ts.t[i + 2], "="))
			j = ks_xfk_spell_two(t, &ts, i + 3, e + 1, pa, pb, "*", ";");
		else if (ks_xfk_tok_is(t, &ts.t[i + 1], "=") && i + 4 <= e) {
			size_t m = i + 2;

			if (same(t, &ts.t[m], &ts.t[i]) && ks_xfk_tok_is(t, &ts.t[m + 1], "+"))
				j = ks_xfk_spell_two(t, &ts, m + 2, e + 1, pa, pb, "*", ";");
			else if ((ks_xfk_tok_is(t, &ts.t[m], "fmaf") ||
				  ks_xfk_tok_is(t, &ts.t[m], "__fmaf_rn")) &&
				 ks_xfk_tok_is(t, &ts.t[m + 1], "(") &&
				 (j = ks_xfk_spell_two(t, &ts, m + 2, e + 1, pa, pb, ",", ",")) &&
				 j + 2 <= e && same(t, &ts.t[j], &ts.t[i]) &&
				 ks_xfk_tok_is(t, &ts.t[j + 1], ")") && ks_xfk_tok_is(t, &ts.t[j + 2], ";"))
				j += 3;
			else
				j = 0;
		}
		if (j) {
			acc_at = i;
			acc_end = j - 1;
		}
	}
	if (!acc_at) {
		ks_xfk_decline(reason, "the product on line %u is not accumulated as "
				       "`acc += %s[..] * %s[..]`", pr->line,
			       f->arrays[pa->array].name, f->arrays[pb->array].name);
		goto out;
	}
	c->acc = ks_xstrndup(t + ts.t[acc_at].begin,
			     ts.t[acc_at].end - ts.t[acc_at].begin);
	for (i = fo; i <= e; i++) {
		const struct ks_xfk_tok *tk = &ts.t[i];
		int n;

		if (ks_xfk_tok_is(t, tk, "break") || ks_xfk_tok_is(t, tk, "return") ||
		    ks_xfk_tok_is(t, tk, "goto") || ks_xfk_tok_is(t, tk, "while") || ks_xfk_tok_is(t, tk, "do") ||
		    ks_xfk_tok_is(t, tk, "switch") || ks_xfk_tok_is(t, tk, "else") || ks_xfk_tok_is(t, tk, "?")) {
			ks_xfk_decline(reason, "the loop nest has `%.*s` (line %u): its "
					       "taps are not a plain sum",
				       (int)(tk->end - tk->begin), t + tk->begin, tk->line);
			goto out;
		}
		if (ks_xfk_tok_is(t, tk, "if")) {
			size_t cp = i + 1 < e ? ks_xfk_match(t, &ts, i + 1) : ts.n;

			if (cp + 2 > e || !ks_xfk_tok_is(t, &ts.t[cp + 1], "continue") ||
			    !ks_xfk_tok_is(t, &ts.t[cp + 2], ";")) {
				ks_xfk_decline(reason, "the condition on line %u does not "
						       "skip the tap (`if (...) continue;`)",
					       tk->line);
				goto out;
			}
			for (size_t j = i + 2; j < cp; j++)
				if (ks_xfk_tok_is(t, &ts.t[j], "!") ||
				    (ks_xfk_tok_is(t, &ts.t[j], "&") && j + 1 < cp &&
				     ks_xfk_tok_is(t, &ts.t[j + 1], "&"))) {
					ks_xfk_decline(reason, "the condition on line %u is "
							       "not an `||` of bounds checks",
						       tk->line);
					goto out;
				}
			i = cp + 2;
			continue;
		}
		if (ks_xfk_tok_is(t, tk, "continue")) {
			ks_xfk_decline(reason, "the loop nest has a continue that is not "
					       "a condition's (line %u)", tk->line);
			goto out;
		}
		if (i >= acc_at && i <= acc_end)
			continue;
		if ((n = assign_op(t, &ts, i))) {
			/* the assigned name: before the operator, or after a
			 * prefix ++/-- */
			size_t v = i > 0 && ts.t[i - 1].kind == 'i' ? i - 1 :
				   i + (size_t)n < ts.n && ts.t[i + n].kind == 'i' ?
				   i + (size_t)n : ts.n;
			int declared = 0;

			if (v >= ts.n) {
				ks_xfk_decline(reason, "the loop nest assigns something "
						       "other than a variable (line %u)",
					       tk->line);
				goto out;
			}
			for (size_t j = fo + 1; j <= e && !declared; j++)
				declared = same(t, &ts.t[j], &ts.t[v]) &&
					   ((ts.t[j - 1].kind == 'i' &&
					     !ks_xfk_tok_is(t, &ts.t[j - 1], "return")) ||
					    ks_xfk_tok_is(t, &ts.t[j - 1], ","));
			if (!declared) {
				ks_xfk_decline(reason, "the loop nest assigns %.*s (line %u), "
						       "declared outside it",
					       (int)(ts.t[v].end - ts.t[v].begin),
					       t + ts.t[v].begin, tk->line);
				goto out;
			}
			if (same(t, &ts.t[v], &ts.t[acc_at])) {
				ks_xfk_decline(reason, "the loop nest assigns the "
						       "accumulator %s again (line %u)",
					       c->acc, tk->line);
				goto out;
			}
		}
	}
	/* the accumulator is declared before the nest */
	{
		int before = 0;

		for (i = 0; i < fo && !before; i++)
			before = same(t, &ts.t[i], &ts.t[acc_at]);
		if (!before) {
			ks_xfk_decline(reason, "the accumulator %s is not declared before "
					       "the loop nest", c->acc);
			goto out;
		}
	}
	rc = 0;
out:
	free(ts.t);
	return rc;
}

/* ---- the facts ---- */

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

/* The bounds checks in front of the nest: gx < limx, gy < limy,
 * blockIdx.z < limz (early exits or guards). Anything else in front of
 * it declines. */
static int
limits(struct cv *c, struct ks_buf *reason)
{
	const struct ks_facts *f = c->f;
	struct ks_form gx, gy, bz;

	global_index(&gx, 0);
	global_index(&gy, 1);
	ks_form_src(&bz, KS_SRC_BID_Z);
	for (size_t i = 0; i < f->nbranches; i++) {
		const struct ks_branch *b = &f->branches[i];
		char **slot = NULL, *lim;
		int plus1;

		/* conditions after the nest are the body's, run as written */
		if (b->kind == KS_BR_UNIFORM || b->stmt == KS_BRS_LOOP ||
		    b->loop >= 0 || b->line > f->loops[c->loops[0]].line)
			continue;
		if (b->kind == KS_BR_BOUNDS && ks_form_equal(&b->subject, &gx))
			slot = &c->limx;
		else if (b->kind == KS_BR_BOUNDS && ks_form_equal(&b->subject, &gy))
			slot = &c->limy;
		else if (b->kind == KS_BR_BOUNDS && ks_form_equal(&b->subject, &bz))
			slot = &c->limz;
		if (!slot)
			return ks_xfk_decline(reason, "the condition on line %u is not a "
						      "bounds check of gx, gy or blockIdx.z",
					      b->line);
		if (!b->early_exit && (b->cmp == KS_CMP_LT || b->cmp == KS_CMP_LE))
			plus1 = b->cmp == KS_CMP_LE;
		else if (b->early_exit && (b->cmp == KS_CMP_GE || b->cmp == KS_CMP_GT))
			plus1 = b->cmp == KS_CMP_GT;
		else
			return ks_xfk_decline(reason, "the bounds check on line %u does "
						      "not keep the index below a limit",
					      b->line);
		lim = ks_xfk_uniform_c(&c->x, &b->limit);
		if (!lim)
			return ks_xfk_decline(reason, "the limit of the bounds check on "
						      "line %u is not an expression of "
						      "the kernel's parameters", b->line);
		{
			struct ks_buf m = KS_BUF_INIT;

			if (*slot)
				ks_buf_addf(&m, "ks_cv_min(%s, (%s)%s)", *slot, lim,
					    plus1 ? " + 1" : "");
			else
				ks_buf_addf(&m, "((long long)(%s)%s)", lim,
					    plus1 ? " + 1" : "");
			free(*slot);
			free(lim);
			*slot = ks_buf_detach(&m, NULL);
		}
	}
	return 0;
}

/* The loop nest around the product: outermost first. */
static int
nest(struct cv *c, const struct ks_product *pr, struct ks_buf *reason)
{
	const struct ks_facts *f = c->f;
	int chain[KS_MAX_LOOP_DEPTH + 1], n = 0;

	for (int l = pr->loop; l >= 0; l = f->loops[l].parent) {
		if (n == CV_MAXL)
			return ks_xfk_decline(reason, "the product on line %u is inside "
						      "more than %d loops", pr->line,
					      CV_MAXL);
		chain[n++] = l;
	}
	if (n < 2)
		return ks_xfk_decline(reason, "the product on line %u is in one loop: a "
					      "dot product, not a window over channels "
					      "(gemm_register_blocking, gemv_warp_per_row)",
				      pr->line);
	c->nl = n;
	for (int d = 0; d < n; d++)
		c->loops[d] = chain[n - 1 - d];
	for (int d = 0; d < n; d++) {
		const struct ks_loop *l = &f->loops[c->loops[d]];
		long long step;

		if (l->depth != d)
			return ks_xfk_decline(reason, "the loop on line %u is not at depth "
						      "%d of the kernel", l->line, d);
		if (l->step_kind != KS_STEP_ADD || !ks_form_is_const(&l->step, &step) ||
		    step <= 0)
			return ks_xfk_decline(reason, "the loop on line %u does not count "
						      "up by a constant step", l->line);
		for (size_t i = 0; i < f->nloops; i++)
			if (f->loops[i].parent == c->loops[d] &&
			    (d + 1 == n || (int)i != c->loops[d + 1]))
				return ks_xfk_decline(reason, "the loop on line %u has "
							      "another loop inside (line %u)",
						      l->line, f->loops[i].line);
		if (d == 0) {
			char *init = ks_xfk_uniform_c(&c->x, &l->init);
			char *bound = ks_xfk_uniform_c(&c->x, &l->bound);
			struct ks_buf b = KS_BUF_INIT;

			if (!init || !bound || l->has_sync || l->has_warp) {
				free(init);
				free(bound);
				return ks_xfk_decline(reason, "the channel loop's start or "
							      "bound (line %u) is not an "
							      "expression of the kernel's "
							      "parameters", l->line);
			}
			if (l->has_trip)
				ks_buf_addf(&b, "%lldLL", l->trip);
			else
				ks_buf_addf(&b, "ks_cv_trip(%s, %s, %lldLL)", init,
					    bound, step);
			free(init);
			free(bound);
			c->trip0 = ks_buf_detach(&b, NULL);
		} else {
			if (!l->has_trip || l->trip <= 0 || l->trip > 16)
				return ks_xfk_decline(reason, "the window loop on line %u "
							      "has no constant trip count "
							      "from 1 to 16", l->line);
			c->trip[d] = l->trip;
		}
	}
	return 0;
}

static int
recognize(struct cv *c, const struct ks_xf_input *in, struct ks_buf *reason)
{
	const struct ks_kernel *k = in->kernel;
	const struct ks_facts *f = &k->facts;
	const struct ks_product *pr = NULL;
	const struct ks_access *A, *B;
	struct cv_aff a0, a1;
	int ra, rb;

	memset(c, 0, sizeof(*c));
	c->f = f;
	c->zq = -1;
	if (ks_xfbody_plain_kernel(k, 0, reason) || ks_xfk_init(&c->x, in, reason))
		return -1;
	for (size_t i = 0; i < f->nacc; i++)
		if (f->acc[i].flags & KS_ACC_ATOMIC)
			return ks_xfk_decline(reason, "%s has atomics (line %u)", k->name,
					      f->acc[i].line);
	if (f->declares_double || f->nfp64)
		return ks_xfk_decline(reason, "%s computes in double: the template "
					      "accumulates in float", k->name);
	for (size_t i = 0; i < f->nproducts; i++)
		if (f->products[i].accumulate && f->products[i].loop >= 0) {
			if (pr)
				return ks_xfk_decline(reason, "%s accumulates more than one "
							      "product in loops (lines %u, "
							      "%u)", k->name, pr->line,
						      f->products[i].line);
			pr = &f->products[i];
		}
	if (!pr)
		return ks_xfk_decline(reason, "%s has no loop accumulating a product of "
					      "two loaded values", k->name);
	if (nest(c, pr, reason))
		return -1;
	if (f->acc[pr->a].loop != pr->loop || f->acc[pr->b].loop != pr->loop)
		return ks_xfk_decline(reason, "the product on line %u is not in the "
					      "innermost loop's body", pr->line);
	for (size_t i = 0; i < f->nacc; i++)
		if (ks_facts_loop_within(f, f->acc[i].loop, c->loops[0]) &&
		    (int)i != pr->a && (int)i != pr->b)
			return ks_xfk_decline(reason, "the loop nest also %s %s on line %u",
					      (f->acc[i].flags & KS_ACC_STORE) ? "stores"
									       : "reads",
					      f->arrays[f->acc[i].array].name,
					      f->acc[i].line);
	for (size_t i = 0; i < f->ncalls; i++)
		if (ks_facts_loop_within(f, f->calls[i].loop, c->loops[0]) &&
		    strcmp(f->calls[i].name, "fmaf") &&
		    strcmp(f->calls[i].name, "__fmaf_rn"))
			return ks_xfk_decline(reason, "the loop nest calls %s (line %u)",
					      f->calls[i].name, f->calls[i].line);
	for (int s = 0; s < 2; s++) {
		const struct ks_access *a = &f->acc[s ? pr->b : pr->a];
		const struct ks_array *arr = &f->arrays[a->array];

		if (arr->space != KS_SPACE_GLOBAL || arr->param < 0)
			return ks_xfk_decline(reason, "%s on line %u is not read through a "
						      "pointer parameter", arr->name, a->line);
		if (a->scalar != KS_T_FLOAT || a->bytes != 4 || a->lanes != 1 ||
		    (a->flags & (KS_ACC_VECTOR | KS_ACC_SIZE_GUESSED)))
			return ks_xfk_decline(reason, "%s on line %u is not a float (the "
						      "template is for fp32)", arr->name,
					      a->line);
		for (size_t i = 0; i < f->nacc; i++)
			if (f->acc[i].array == a->array &&
			    (f->acc[i].flags & (KS_ACC_STORE | KS_ACC_ATOMIC)))
				return ks_xfk_decline(reason, "%s is written on line %u",
						      arr->name, f->acc[i].line);
	}
	/* blockIdx.z: the derived quotient of it, if any */
	for (size_t q = 0; q < f->ndquots; q++) {
		const struct ks_dquot *d = &f->dquots[q];
		int only_bz = d->num.x[KS_SRC_BID_Z].n == 1 &&
			      !d->num.x[KS_SRC_BID_Z].opaque &&
			      d->num.x[KS_SRC_BID_Z].m[0].k == 1;

		for (int m = 0; m < KS_MONO_SYMS && only_bz; m++)
			only_bz = !d->num.x[KS_SRC_BID_Z].m[0].sym[m];
		for (int s = 0; s < KS_SRC_N && only_bz; s++)
			only_bz = s == KS_SRC_BID_Z || poly_zero(&d->num.x[s]);
		for (int s = 0; s < KS_DER_N && only_bz; s++)
			only_bz = poly_zero(&d->num.q[s]) && poly_zero(&d->num.d[s]);
		if (only_bz && c->zq < 0) {
			c->zq = (int)q;
			c->den = ks_xfk_poly_c(&c->x, &d->den, 1);
			if (!c->den)
				return ks_xfk_decline(reason, "blockIdx.z is divided by "
							      "something that is not an "
							      "expression of the kernel's "
							      "parameters");
		}
	}
	A = &f->acc[pr->a];
	B = &f->acc[pr->b];
	ra = affine(c, &A->offset, 4, &a0, "the index of the product's first "
		    "operand", A->line, reason);
	rb = ra ? -1 : affine(c, &B->offset, 4, &a1, "the index of the "
			      "product's second operand", B->line, reason);
	if (ra || rb) {
		if (!ra)
			aff_release(&a0);
		return -1;
	}
	/* X moves with the pixel, W does not */
	{
		int x0 = a0.cgx || a0.cgy, x1 = a1.cgx || a1.cgy;

		if (x0 == x1) {
			aff_release(&a0);
			aff_release(&a1);
			return ks_xfk_decline(reason, x0 ? "both operands move with gx or "
							   "gy: not an input and a filter"
							 : "neither operand moves with gx "
							   "or gy: not a convolution");
		}
		if (x0) {
			c->X = a0;
			c->W = a1;
			c->ax = pr->a;
			c->aw = pr->b;
		} else {
			c->X = a1;
			c->W = a0;
			c->ax = pr->b;
			c->aw = pr->a;
		}
	}
	c->xname = k->params[f->arrays[f->acc[c->ax].array].param].name;
	c->wname = k->params[f->arrays[f->acc[c->aw].array].param].name;
	if (c->X.cd)
		return ks_xfk_decline(reason, "the input %s moves with the output "
					      "channel (line %u): a depthwise or grouped "
					      "convolution, which the template does not "
					      "take", c->xname, f->acc[c->ax].line);
	if (!c->W.cd)
		return ks_xfk_decline(reason, "the filter %s does not move with an "
					      "output channel (blockIdx.z %% n or "
					      "blockIdx.z)", c->wname);
	if (c->W.cq)
		return ks_xfk_decline(reason, "the filter %s moves with the image",
				      c->wname);
	if (!c->X.cl[0] || !c->W.cl[0])
		return ks_xfk_decline(reason, "the outer loop (line %u) does not move "
					      "both the input and the filter: not a loop "
					      "over input channels",
				      f->loops[c->loops[0]].line);
	if (c->zq < 0) {
		if (c->X.cq)
			return ks_xfk_decline(reason, "the input moves with the image "
						      "without a blockIdx.z division");
		c->den = ks_xstrdup("(long long)ks_og.z");
	}
	/* the conditions in the nest */
	for (size_t i = 0; i < f->nbranches; i++) {
		const struct ks_branch *b = &f->branches[i];
		struct cv_cond *cd;

		if (!ks_facts_loop_within(f, b->loop, c->loops[0]) ||
		    b->stmt == KS_BRS_LOOP)
			continue;
		if (b->kind != KS_BR_BOUNDS || b->early_exit ||
		    b->cmp == KS_CMP_NONE)
			return ks_xfk_decline(reason, "the condition on line %u in the loop "
						      "nest is not a bounds check",
					      b->line);
		if (c->ncond == CV_MAXC)
			return ks_xfk_decline(reason, "more than %d bounds checks in the "
						      "loop nest", CV_MAXC);
		cd = &c->cond[c->ncond];
		if (affine(c, &b->subject, 1, &cd->s, "the bounds check", b->line,
			   reason))
			return -1;
		c->ncond++;
		cd->cmp = b->cmp;
		cd->line = b->line;
		cd->lim = ks_xfk_uniform_c(&c->x, &b->limit);
		if (!cd->lim)
			return ks_xfk_decline(reason, "the limit of the bounds check on "
						      "line %u is not an expression of "
						      "the kernel's parameters", b->line);
		if (cd->s.cq || cd->s.cd || cd->s.cl[0])
			return ks_xfk_decline(reason, "the bounds check on line %u depends "
						      "on the image, the channel or the "
						      "channel loop", b->line);
	}
	if (limits(c, reason) || nest_text(c, in, pr, reason))
		return -1;
	return 0;
}

/* ---- the variant ---- */

static const char helpers[] =
	"#ifndef KS_CV_HELPERS\n"
	"#define KS_CV_HELPERS\n"
	"__host__ __device__ __forceinline__ static long long\n"
	"ks_cv_min(long long a, long long b)\n"
	"{\n"
	"\treturn a < b ? a : b;\n"
	"}\n"
	"/* Iterations of for (k = init; k < bound; k += step). */\n"
	"__host__ __device__ __forceinline__ static long long\n"
	"ks_cv_trip(long long init, long long bound, long long step)\n"
	"{\n"
	"\treturn bound > init ? (bound - init + step - 1) / step : 0;\n"
	"}\n"
	"/* 4 bytes global -> shared, zeros where !on: asynchronous on sm_80\n"
	"   and newer (cp.async with a source size of 0 fills zeros). */\n"
	"__device__ __forceinline__ static void\n"
	"ks_cv_cp4(float *dst, const float *src, bool on)\n"
	"{\n"
	"#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800\n"
	"\tconst unsigned d = (unsigned)__cvta_generic_to_shared(dst);\n"
	"\n"
	"\tasm volatile(\"cp.async.ca.shared.global [%0], [%1], 4, %2;\\n\" ::\n"
	"\t\t     \"r\"(d), \"l\"(src), \"r\"(on ? 4 : 0) : \"memory\");\n"
	"#else\n"
	"\t*dst = on ? __ldg(src) : 0.0f;\n"
	"#endif\n"
	"}\n"
	"/* Close the group of copies issued since the last commit. */\n"
	"__device__ __forceinline__ static void\n"
	"ks_cv_commit(void)\n"
	"{\n"
	"#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800\n"
	"\tasm volatile(\"cp.async.commit_group;\\n\" ::: \"memory\");\n"
	"#endif\n"
	"}\n"
	"/* Wait until at most ks_N committed groups are still in flight. */\n"
	"template <int ks_N>\n"
	"__device__ __forceinline__ static void\n"
	"ks_cv_wait_n(void)\n"
	"{\n"
	"#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800\n"
	"\tasm volatile(\"cp.async.wait_group %0;\\n\" :: \"n\"(ks_N) : \"memory\");\n"
	"#endif\n"
	"}\n"
	"__device__ __forceinline__ static void\n"
	"ks_cv_wait(void)\n"
	"{\n"
	"#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800\n"
	"\tasm volatile(\"cp.async.wait_all;\\n\" ::: \"memory\");\n"
	"#endif\n"
	"}\n"
	"#endif\n"
	"\n";

static const char *const cmp_c[] = { "", "<", "<=", ">", ">=" };

/* The tap of slice element ks_k (0 <= ks_k < ks_BK): the outer loop's
 * iteration ks_ci within the slice and the window's iterations
 * ks_l1.. as loop variables. */
static void
emit_tap(struct ks_buf *o, const struct cv *c, const char *ind)
{
	long long p = 1;

	for (int d = 1; d < c->nl; d++)
		p *= c->trip[d];
	ks_buf_addf(o, "%sconst int ks_ci = ks_k / %lld;\n", ind, p);
	ks_buf_addf(o, "%sint ks_r = ks_k %% %lld;\n", ind, p);
	for (int d = c->nl - 1; d >= 1; d--) {
		ks_buf_addf(o, "%sconst int ks_l%d = ks_r %% %lld;\n", ind, d,
			    c->trip[d]);
		ks_buf_addf(o, "%sks_r /= %lld;\n", ind, c->trip[d]);
	}
	ks_buf_addf(o, "%s(void)ks_r;\n", ind);
}

/* Slice `s` of A and B into shared buffer `buf` (zeros where the
 * original reads nothing): A pixel-major, B channel-major, each k-row of
 * the tile contiguous. */
static void
emit_copy(struct ks_buf *o, const struct cv *c, const char *s, const char *buf,
	  const char *ind)
{
	/* The slice's base pointers, masks and shared rows once per slice, so
	   that an element costs a select and the copy; the bound test is a
	   constant but for the last element (the tile need not be a multiple
	   of the threads). A skipped element's address is formed but not
	   read: a cp.async of source size 0 reads nothing, the fallback
	   reads only where on. */
	ks_buf_addf(o,
		    "%s{\n"
		    "%s\tconst float *const ks_xs = %s + (long long)(%s) * ks_ad;\n"
		    "%s\tconst float *const ks_ws = %s + (long long)(%s) * ks_bd;\n"
		    "%s\tconst unsigned long long ks_ma = (%s) + 1 < ks_ns ? ks_am : ks_aml;\n"
		    "%s\tconst unsigned long long ks_mb = (%s) + 1 < ks_ns ? ks_bmk : ks_bml;\n"
		    "%s\tfloat *const ks_da = ks_As + (%s) * ks_AS;\n"
		    "%s\tfloat *const ks_db = ks_Bs + (%s) * ks_BS;\n"
		    "\n",
		    ind, ind, c->xname, s, ind, c->wname, s, ind, s, ind, s, ind, buf,
		    ind, buf);
	ks_buf_addf(o,
		    "%s\t#pragma unroll\n"
		    "%s\tfor (int ks_i = 0; ks_i < ks_NA; ks_i++) {\n"
		    "%s\t\tconst int ks_e = ks_t + ks_i * ks_NT;\n"
		    "%s\t\tconst bool ks_on = ks_ma >> ks_i & 1u;\n"
		    "\n"
		    "%s\t\tif ((ks_i + 1) * ks_NT <= ks_BK * ks_BM || ks_e < ks_BK * ks_BM)\n"
		    "%s\t\t\tks_cv_cp4(&ks_da[ks_e / ks_BM * (ks_BM + 4) + ks_e %% ks_BM],\n"
		    "%s\t\t\t\t  ks_xs + ks_ao[ks_i], ks_on);\n"
		    "%s\t}\n"
		    "%s\t#pragma unroll\n"
		    "%s\tfor (int ks_i = 0; ks_i < ks_NB; ks_i++) {\n"
		    "%s\t\tconst int ks_e = ks_t + ks_i * ks_NT;\n"
		    "%s\t\tconst bool ks_on = ks_mb >> ks_i & 1u;\n"
		    "\n"
		    "%s\t\tif ((ks_i + 1) * ks_NT <= ks_BK * ks_BN || ks_e < ks_BK * ks_BN)\n"
		    "%s\t\t\tks_cv_cp4(&ks_db[ks_e %% ks_BK * (ks_BN + 4) + ks_e / ks_BK],\n"
		    "%s\t\t\t\t  ks_ws + ks_bo[ks_i], ks_on);\n"
		    "%s\t}\n"
		    "%s}\n",
		    ind, ind, ind, ind, ind, ind, ind, ind, ind, ind, ind, ind, ind,
		    ind, ind, ind, ind);
}

static enum ks_xf_result
apply(const struct ks_xf_input *in, const struct ks_xf_point *pt,
      struct ks_buf *variant, struct ks_buf *reason)
{
	const struct ks_kernel *k = in->kernel;
	const long long bm = pt->v[0], bn = pt->v[1], tm = pt->v[2];
	const long long tn = pt->v[3], px = pt->v[5], st = pt->v[6];
	long long cb = pt->v[4];
	const long long nt = (bm / tm) * (bn / tn);
	const char *const lv[CV_MAXL] = { "ks_ci", "ks_l1", "ks_l2", "ks_l3" };
	long long bk, win = 1, smem, eg;
	struct cv c;
	struct ks_kloop kl;
	struct ks_buf params = KS_BUF_INIT, args = KS_BUF_INIT;
	enum ks_xf_result rc = KS_XF_DECLINED;

	memset(&kl, 0, sizeof(kl));
	if (nt < 64 || nt > 1024 || nt % 32 || bm % tm || bn % tn || bm % px) {
		ks_buf_addf(reason, "the tile of %lld pixels (%lld wide) x %lld "
				    "channels with %lldx%lld per thread needs %lld "
				    "threads (64 to 1024, a multiple of 32)",
			    bm, px, bn, tm, tn, nt);
		return KS_XF_DECLINED;
	}
	if (recognize(&c, in, reason))
		goto out;
	for (int d = 1; d < c.nl; d++)
		win *= c.trip[d];
	/* fewer channels per slice where the window is large */
	for (;;) {
		bk = cb * win;
		smem = st * bk * (bm + 4) + st * bk * (bn + 4);
		if (smem * 4 <= 48 * 1024 || cb == 1)
			break;
		cb--;
	}
	/* the sums go out in passes of eg channels, each staged in the
	 * same shared memory */
	eg = bn;
	while (eg > 4 && eg * (bm + 1) * 4 > 48 * 1024)
		eg /= 2;
	if (smem < eg * (bm + 1))
		smem = eg * (bm + 1);
	if ((bk * bm + nt - 1) / nt > 64 || (bk * bn + nt - 1) / nt > 64) {
		ks_buf_addf(reason, "slices of %lld taps give a thread more than 64 "
				    "elements to load (fewer channels per slice, or "
				    "fewer outputs per thread)", bk);
		goto out;
	}
	if (smem * 4 > 48 * 1024) {
		ks_buf_addf(reason, "the tile of %lld pixels x %lld channels with "
				    "slices of %lld taps needs %lld bytes of shared "
				    "memory (more than 48 KiB)",
			    bm, bn, bk, smem * 4);
		goto out;
	}
	if (ks_xfbody_params(k, -1, NULL, -1, NULL, &params, reason))
		goto out;
	ks_xfbody_args(k, &args);
	/* the body with the nest replaced */
	kl.x.k = k;
	kl.loop_begin = c.nest_begin;
	kl.loop_end = c.nest_end;
	{
		struct ks_buf r = KS_BUF_INIT;

		ks_buf_addf(&r, "%s += ks_gemm_v;", c.acc);
		kl.edits[0].begin = kl.loop_begin;
		kl.edits[0].end = kl.loop_end;
		kl.edits[0].with = ks_buf_detach(&r, NULL);
		kl.nedits = 1;
	}

	ks_buf_addf(variant,
		    "// %s: an implicit GEMM of %lld pixels (%lld wide) x %lld "
		    "output channels per block of %lld threads, %lldx%lld "
		    "outputs each, slices of %lld input channels' %lld taps "
		    "double-buffered in shared memory (conv_tiling)\n",
		    k->name, bm, px, bn, nt, tm, tn, cb, win);
	ks_buf_adds(variant, "// ks-nvcc: helpers\n");
	ks_buf_adds(variant, helpers);
	if (ks_kloop_body(&kl, in, "ks_conv", variant, reason))
		goto out;
	ks_buf_addf(variant,
		    "/* Block (x, y, z): pixels gx in [x*%lld, +%lld), gy in "
		    "[y*%lld, +%lld) of image\n"
		    "   z / ks_nkt, output channels [z %% ks_nkt * %lld, +%lld), "
		    "of the original grid of\n"
		    "   ks_og blocks of ks_ob threads, blockIdx.z = image * ks_den "
		    "+ channel. */\n"
		    "__global__ void __launch_bounds__(%lld)\n"
		    "ks_conv_%s(const dim3 ks_og, const dim3 ks_ob, const long long "
		    "ks_den,\n\tconst long long ks_nkt, %s)\n"
		    "{\n"
		    "\tenum { ks_BM = %lld, ks_BN = %lld, ks_TM = %lld, ks_TN = %lld, "
		    "ks_PX = %lld, ks_CB = %lld, ks_ST = %lld,\n"
		    "\t       ks_BK = %lld, ks_NT = %lld, ks_NTX = ks_BN / ks_TN, ks_EG = %lld,\n"
		    "\t       ks_NA = (ks_BK * ks_BM + ks_NT - 1) / ks_NT,\n"
		    "\t       ks_NB = (ks_BK * ks_BN + ks_NT - 1) / ks_NT,\n"
		    "\t       ks_AS = ks_BK * (ks_BM + 4), ks_BS = ks_BK * (ks_BN + 4) };\n"
		    "\t__shared__ __align__(16) float ks_sm[%lld];\n"
		    "\tfloat *const ks_As = ks_sm, *const ks_Bs = ks_sm + ks_ST * ks_AS;\n"
		    "\tconst int ks_t = (int)threadIdx.x;\n"
		    "\tconst int ks_tx = ks_t %% ks_NTX, ks_ty = ks_t / ks_NTX;\n"
		    "\tconst long long ks_nx = (long long)ks_og.x * ks_ob.x;\n"
		    "\tconst long long ks_ny = (long long)ks_og.y * ks_ob.y;\n"
		    "\tconst long long ks_gx0 = (long long)blockIdx.x * ks_PX;\n"
		    "\tconst long long ks_gy0 = (long long)blockIdx.y * (ks_BM / ks_PX);\n"
		    "\tconst long long ks_img = blockIdx.z / ks_nkt;\n"
		    "\tconst long long ks_ch0 = blockIdx.z %% ks_nkt * ks_BN;\n",
		    px, px, bm / px, bm / px, bn, bn, nt, k->name,
		    params.buf, bm, bn, tm, tn, px, cb, st, bk, nt, eg, smem);
	ks_buf_addf(variant,
		    "\t/* reads stay inside the kernel's own bounds checks */\n"
		    "\tconst long long ks_limx = %s%s%s;\n"
		    "\tconst long long ks_limy = %s%s%s;\n"
		    "\tconst long long ks_limz = %s%s%s;\n"
		    "\tconst long long ks_T = %s;\n"
		    "\tconst long long ks_ns = (ks_T + ks_CB - 1) / ks_CB;\n"
		    "\tconst bool ks_img_ok = ks_img * ks_den < ks_limz;\n",
		    c.limx ? "ks_cv_min(ks_nx, " : "ks_nx", c.limx ? c.limx : "",
		    c.limx ? ")" : "", c.limy ? "ks_cv_min(ks_ny, " : "ks_ny",
		    c.limy ? c.limy : "", c.limy ? ")" : "",
		    c.limz ? "ks_cv_min((long long)ks_og.z, " : "(long long)ks_og.z",
		    c.limz ? c.limz : "", c.limz ? ")" : "", c.trip0);
	/* the per-thread taps of A and B, fixed for every slice */
	ks_buf_addf(variant,
		    "\t/* %s (line %u): the element of tap (ks_ci, ...) of pixel "
		    "(gx, gy);\n"
		    "\t   slice s adds s * ks_CB to ks_ci. */\n"
		    "\tlong long ks_ao[ks_NA];\n"
		    "\tunsigned long long ks_am = 0, ks_aml = 0;\n"
		    "\tconst long long ks_ad = (long long)ks_CB * ",
		    c.xname, c.f->acc[c.ax].line);
	ks_buf_addf(variant, "(%s);\n", c.X.cl[0]);
	ks_buf_adds(variant,
		    "\t#pragma unroll\n"
		    "\tfor (int ks_i = 0; ks_i < ks_NA; ks_i++) {\n"
		    "\t\tconst int ks_e = ks_t + ks_i * ks_NT;\n"
		    "\t\tconst int ks_m = ks_e % ks_BM, ks_k = ks_e / ks_BM;\n"
		    "\t\tconst long long ks_gx = ks_gx0 + ks_m % ks_PX;\n"
		    "\t\tconst long long ks_gy = ks_gy0 + ks_m / ks_PX;\n");
	emit_tap(variant, &c, "\t\t");
	ks_buf_adds(variant, "\t\tbool ks_ok = ks_e < ks_BK * ks_BM && ks_img_ok &&\n"
			     "\t\t\t     ks_gx < ks_limx && ks_gy < ks_limy;\n");
	for (int i = 0; i < c.ncond; i++) {
		ks_buf_addf(variant, "\t\t/* line %u */\n\t\tks_ok = ks_ok && !(",
			    c.cond[i].line);
		aff_emit(variant, &c.cond[i].s, 0, "ks_gx", "ks_gy", "0", "0", lv);
		ks_buf_addf(variant, " %s (long long)(%s));\n", cmp_c[c.cond[i].cmp],
			    c.cond[i].lim);
	}
	ks_buf_adds(variant, "\t\tks_ao[ks_i] = ");
	aff_emit(variant, &c.X, 0, "ks_gx", "ks_gy", "ks_img", "0", lv);
	ks_buf_adds(variant,
		    ";\n"
		    "\t\tks_am |= ks_ok ? 1ull << ks_i : 0ull;\n"
		    "\t\tks_aml |= ks_ok && (ks_ns - 1) * ks_CB + ks_ci < ks_T ? 1ull << ks_i : 0ull;\n"
		    "\t}\n");
	ks_buf_addf(variant,
		    "\t/* %s (line %u): tap-major, consecutive threads on "
		    "consecutive taps */\n"
		    "\tlong long ks_bo[ks_NB];\n"
		    "\tunsigned long long ks_bmk = 0, ks_bml = 0;\n"
		    "\tconst long long ks_bd = (long long)ks_CB * (%s);\n",
		    c.wname, c.f->acc[c.aw].line, c.W.cl[0]);
	ks_buf_adds(variant,
		    "\t#pragma unroll\n"
		    "\tfor (int ks_i = 0; ks_i < ks_NB; ks_i++) {\n"
		    "\t\tconst int ks_e = ks_t + ks_i * ks_NT;\n"
		    "\t\tconst int ks_k = ks_e % ks_BK, ks_n = ks_e / ks_BK;\n"
		    "\t\tconst long long ks_ch = ks_ch0 + ks_n;\n");
	emit_tap(variant, &c, "\t\t");
	ks_buf_adds(variant,
		    "\t\tconst bool ks_ok = ks_e < ks_BK * ks_BN && ks_ch < ks_den &&\n"
		    "\t\t\t\t   ks_ch < ks_limz;\n"
		    "\t\tks_bo[ks_i] = ");
	aff_emit(variant, &c.W, 0, "0", "0", "0", "ks_ch", lv);
	ks_buf_adds(variant,
		    ";\n"
		    "\t\tks_bmk |= ks_ok ? 1ull << ks_i : 0ull;\n"
		    "\t\tks_bml |= ks_ok && (ks_ns - 1) * ks_CB + ks_ci < ks_T ? 1ull << ks_i : 0ull;\n"
		    "\t}\n"
		    "\tfloat ks_c[ks_TM][ks_TN];\n"
		    "\n"
		    "\n"
		    "\t#pragma unroll\n"
		    "\tfor (int ks_i = 0; ks_i < ks_TM; ks_i++)\n"
		    "\t\t#pragma unroll\n"
		    "\t\tfor (int ks_j = 0; ks_j < ks_TN; ks_j++)\n"
		    "\t\t\tks_c[ks_i][ks_j] = 0.0f;\n"
		    "\t/* slices 0 .. ks_ST - 2 in flight, one commit group each */\n"
		    "\tfor (int ks_q = 0; ks_q < ks_ST - 1; ks_q++) {\n"
		    "\t\tif (ks_q < ks_ns) {\n");
	emit_copy(variant, &c, "ks_q", "ks_q", "\t\t\t");
	ks_buf_adds(variant,
		    "\t\t}\n"
		    "\t\tks_cv_commit();\n"
		    "\t}\n"
		    "\tfor (long long ks_s = 0; ks_s < ks_ns; ks_s++) {\n"
		    "\t\tconst int ks_cb = (int)(ks_s % ks_ST);\n"
		    "\t\tconst int ks_nb = (int)((ks_s + ks_ST - 1) % ks_ST);\n"
		    "\t\tconst float *const ks_a = ks_As + ks_cb * ks_AS;\n"
		    "\t\tconst float *const ks_b = ks_Bs + ks_cb * ks_BS;\n"
		    "\n"
		    "\t\t/* slice s has landed; every thread is done with slice\n"
		    "\t\t   s - 1, whose buffer slice s + ks_ST - 1 now fills */\n"
		    "\t\tks_cv_wait_n<ks_ST - 2>();\n"
		    "\t\t__syncthreads();\n"
		    "\t\tif (ks_s + ks_ST - 1 < ks_ns) {\n");
	emit_copy(variant, &c, "ks_s + ks_ST - 1", "ks_nb", "\t\t\t");
	ks_buf_adds(variant,
		    "\t\t}\n"
		    "\t\tks_cv_commit();\n"
		    "\t\t#pragma unroll\n"
		    "\t\tfor (int ks_kk = 0; ks_kk < ks_BK; ks_kk++) {\n"
		    "\t\t\tfloat ks_fa[ks_TM], ks_fb[ks_TN];\n"
		    "\n"
		    "\t\t\t#pragma unroll\n"
		    "\t\t\tfor (int ks_u = 0; ks_u < ks_TM / 4; ks_u++) {\n"
		    "\t\t\t\tconst float4 ks_v = *(const float4 *)&ks_a[ks_kk * (ks_BM + 4) +\n"
		    "\t\t\t\t\tks_u * (ks_BM / (ks_TM / 4)) + ks_ty * 4];\n"
		    "\n"
		    "\t\t\t\tks_fa[4 * ks_u] = ks_v.x;\n"
		    "\t\t\t\tks_fa[4 * ks_u + 1] = ks_v.y;\n"
		    "\t\t\t\tks_fa[4 * ks_u + 2] = ks_v.z;\n"
		    "\t\t\t\tks_fa[4 * ks_u + 3] = ks_v.w;\n"
		    "\t\t\t}\n"
		    "\t\t\t#pragma unroll\n"
		    "\t\t\tfor (int ks_u = 0; ks_u < ks_TN / 4; ks_u++) {\n"
		    "\t\t\t\tconst float4 ks_v = *(const float4 *)&ks_b[ks_kk * (ks_BN + 4) +\n"
		    "\t\t\t\t\tks_u * (ks_BN / (ks_TN / 4)) + ks_tx * 4];\n"
		    "\n"
		    "\t\t\t\tks_fb[4 * ks_u] = ks_v.x;\n"
		    "\t\t\t\tks_fb[4 * ks_u + 1] = ks_v.y;\n"
		    "\t\t\t\tks_fb[4 * ks_u + 2] = ks_v.z;\n"
		    "\t\t\t\tks_fb[4 * ks_u + 3] = ks_v.w;\n"
		    "\t\t\t}\n"
		    "\t\t\t#pragma unroll\n"
		    "\t\t\tfor (int ks_i = 0; ks_i < ks_TM; ks_i++)\n"
		    "\t\t\t\t#pragma unroll\n"
		    "\t\t\t\tfor (int ks_j = 0; ks_j < ks_TN; ks_j++)\n"
		    "\t\t\t\t\tks_c[ks_i][ks_j] = fmaf(ks_fa[ks_i], ks_fb[ks_j], "
		    "ks_c[ks_i][ks_j]);\n"
		    "\t\t}\n");
	ks_buf_addf(variant,
		    "\t}\n"
		    "\tks_cv_wait();\n"
		    "\t__syncthreads();\n"
		    "\t/* the sums through shared memory, ks_EG channels at a time, so\n"
		    "\t   that consecutive threads run the body (and its store) at\n"
		    "\t   consecutive pixels */\n"
		    "\tfor (int ks_p = 0; ks_p < ks_BN; ks_p += ks_EG) {\n"
		    "\t\tif (ks_p)\n"
		    "\t\t\t__syncthreads();\n"
		    "\t\t#pragma unroll\n"
		    "\t\tfor (int ks_i = 0; ks_i < ks_TM; ks_i++)\n"
		    "\t\t\t#pragma unroll\n"
		    "\t\t\tfor (int ks_j = 0; ks_j < ks_TN; ks_j++) {\n"
		    "\t\t\t\tconst int ks_n = ks_j / 4 * (ks_BN / (ks_TN / 4)) + ks_tx * 4 +\n"
		    "\t\t\t\t\t\t ks_j %% 4 - ks_p;\n"
		    "\n"
		    "\t\t\t\tif (ks_n >= 0 && ks_n < ks_EG)\n"
		    "\t\t\t\t\tks_sm[ks_n * (ks_BM + 1) + ks_i / 4 * (ks_BM / (ks_TM / 4)) +\n"
		    "\t\t\t\t\t      ks_ty * 4 + ks_i %% 4] = ks_c[ks_i][ks_j];\n"
		    "\t\t\t}\n"
		    "\t\t__syncthreads();\n"
		    "\t\tfor (int ks_e = ks_t; ks_e < ks_BM * ks_EG; ks_e += ks_NT) {\n"
		    "\t\t\tconst int ks_m = ks_e %% ks_BM, ks_n = ks_e / ks_BM;\n"
		    "\t\t\tconst long long ks_gx = ks_gx0 + ks_m %% ks_PX;\n"
		    "\t\t\tconst long long ks_gy = ks_gy0 + ks_m / ks_PX;\n"
		    "\t\t\tconst long long ks_ch = ks_ch0 + ks_p + ks_n;\n"
		    "\t\t\tconst long long ks_z = ks_img * ks_den + ks_ch;\n"
		    "\t\t\tconst unsigned ks_ux = (unsigned)ks_gx, ks_uy = (unsigned)ks_gy;\n"
		    "\n"
		    "\t\t\tif (ks_gx >= ks_nx || ks_gy >= ks_ny || ks_ch >= ks_den ||\n"
		    "\t\t\t    ks_z >= (long long)ks_og.z)\n"
		    "\t\t\t\tcontinue;\n"
		    "\t\t\tks_conv_body_%s(make_uint3(ks_ux %% ks_ob.x, ks_uy %% ks_ob.y, 0u),\n"
		    "\t\t\t\tmake_uint3(ks_ux / ks_ob.x, ks_uy / ks_ob.y, (unsigned)ks_z),\n"
		    "\t\t\t\tks_ob, ks_og, %s, ks_sm[ks_n * (ks_BM + 1) + ks_m]);\n"
		    "\t\t}\n"
		    "\t}\n"
		    "}\n",
		    k->name, args.buf);
	ks_buf_adds(variant, "// ks-nvcc: definition\n");
	if (ks_xfbody_definition(in->text, in->len, k, variant, reason))
		goto out;
	ks_xfbody_launcher_open(variant, k->name, params.buf, 0);
	ks_buf_addf(variant,
		    "\tconst dim3 ks_og = grid, ks_ob = block;\n"
		    "\tconst unsigned long long ks_nx = (unsigned long long)grid.x * block.x;\n"
		    "\tconst unsigned long long ks_ny = (unsigned long long)grid.y * block.y;\n"
		    "\tconst long long ks_den = %s;\n"
		    "\tconst long long ks_nkt = ks_den > 0 ? (ks_den + %lld) / %lld : 0;\n"
		    "\tconst long long ks_nimg = ks_den > 0 ? ((long long)grid.z + ks_den - 1) / "
		    "ks_den : 0;\n"
		    "\n"
		    "\t(void)ks_og;\n"
		    "\t(void)ks_ob;\n"
		    "\t/* launches the tile grid cannot cover: the original */\n"
		    "\tif (block.z != 1 || !ks_nx || !ks_ny || !grid.z || ks_den <= 0 ||\n"
		    "\t    ks_den > 0x7fffffffLL || ks_nx > 0xffffffffull || ks_ny > 0xffffffffull ||\n"
		    "\t    (ks_ny + %lld) / %lld > 65535ull || ks_nimg * ks_nkt > 65535LL) {\n"
		    "\t\t%s<<<grid, block, shmem, stream>>>(%s);\n"
		    "\t\treturn;\n"
		    "\t}\n"
		    "\tks_conv_%s<<<dim3((unsigned)((ks_nx + %lld) / %lld), "
		    "(unsigned)((ks_ny + %lld) / %lld),\n"
		    "\t\t\t   (unsigned)(ks_nimg * ks_nkt)), dim3(%lld), 0, stream>>>(grid, "
		    "block,\n\t\t\t   ks_den, ks_nkt, %s);\n"
		    "}\n",
		    c.den, bn - 1, bn, bm / px - 1, bm / px,
		    k->name, args.buf, k->name, px - 1, px, bm / px - 1, bm / px, nt,
		    args.buf);
	rc = KS_XF_APPLIED;
out:
	free(kl.edits[0].with);
	cv_release(&c);
	ks_buf_release(&params);
	ks_buf_release(&args);
	return rc;
}

const struct ks_transform ks_xf_conv_tiling = {
	.id = "conv_tiling",
	.summary = "a direct convolution as an implicit GEMM: input taps and "
		   "weights in double-buffered shared-memory slices, a "
		   "register block of pixels x output channels per thread, the "
		   "kernel's body (bias, store) per output",
	.precondition = "one product of two float operands accumulated in a "
			"loop over input channels around constant-trip window "
			"loops; the input affine in gx, gy, the image and the "
			"loops, the filter in the output channel (blockIdx.z / n, "
			"blockIdx.z % n, or blockIdx.z) and the loops; padding "
			"as bounds checks that skip taps",
	/*
	 * ks try visits points by the sum of their values' positions: 128
	 * pixels x 64 channels with 8x4 per thread (256 threads), slices
	 * of 2 channels first; then one change at a time.
	 */
	.nparams = 7,
	.params = {
		{ "bm", "pixels of the output tile", 128, 3, { 128, 64, 256 } },
		{ "bn", "output channels of the output tile", 64, 3, { 64, 32, 128 } },
		{ "tm", "pixels per thread", 8, 2, { 8, 4 } },
		{ "tn", "output channels per thread", 4, 2, { 4, 8 } },
		{ "cb", "input channels per slice", 2, 3, { 2, 1, 4 } },
		{ "px", "width of the pixel tile (along gx)", 32, 3, { 32, 64, 16 } },
		{ "st", "slices in shared memory (stages of the copy pipeline)", 2, 2, { 2, 3 } },
	},
	.apply = apply,
};
