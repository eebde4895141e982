/*
 * stream: launch_geometry and vectorize_memory, the two transforms that
 * re-map a kernel's independent threads onto a launch of their own.
 *
 * Both run the original body unchanged as a __device__ function whose
 * threadIdx, blockIdx, blockDim and gridDim are parameters: a thread of
 * the variant's helper kernel runs the work of original thread t (block
 * t / block.x, thread t % block.x of the original launch), so whatever
 * the body computes from its coordinates stays exact; the launcher
 * passes the original geometry. The helper kernel walks the original
 * threads grid-stride, with a block size and grid of its own (the grid
 * sized by occupancy: SMs times resident blocks times `waves`, or
 * covering every thread once when waves is 0).
 *
 * vectorize_memory also groups `lanes` consecutive original threads: the
 * pointer parameters whose every access is element [global index] of the
 * thread ("streamed") are loaded and stored as one aligned 8- or 16-byte
 * pack per group, the body reading and writing registers in their place.
 * A group takes the packed path only when every lane passes every bounds
 * check of the kernel (then every lane performs every streamed access),
 * and there the body has those comparisons as the constants the group
 * check established, so that its guard costs nothing per element; other
 * groups, and launches the pattern does not fit (a 2-D launch, a block
 * size that is not a multiple of the lanes, a pointer that is not
 * aligned), run the original body per thread, or the original kernel.
 *
 * A division of the flat index g by a uniform D (a flat quotient of the
 * facts) is the same for every lane of a group when D % lanes == 0: the
 * group's first index is a multiple of the lanes, so floor((gL + j) / D)
 * = floor(gL / D) for 0 <= j < L. The packed body reads such a division
 * as the group's quotient, one 32-bit division per group, and whatever
 * the body derives from it alone (`(i / hw) % K`, the loads it indexes,
 * a sqrtf of them) is the same expression in every lane body, with no
 * global store between them: the compiler computes it once per group.
 * The launcher runs the original where a divisor is not a multiple of
 * the lanes (or not in [1, 2^31)).
 */
#include <stdlib.h>
#include <string.h>

#include "../analysis/inventory.h"
#include "../core/buf.h"
#include "../core/util.h"
#include "transform.h"
#include "xfbody.h"
#include "xfkit.h"

/* One pointer parameter's role. */
struct arg {
	int streamed;		/* every access is [global index], packable */
	int loaded, stored;
	unsigned bytes;		/* element size */
	char *type;		/* pointee type, unqualified */
};

/* A textual replacement in the packed body: [begin, end) -> register
 * `param` (fold < 0, quot < 0), or a bounds comparison the group's check
 * already decided -> its value there (fold 0 or 1), or a division of the
 * flat index -> the group's quotient ks_gq<quot> (quot >= 0). */
struct edit {
	unsigned long begin, end;
	size_t param;
	int fold;
	int quot;
};

struct plan {
	struct ks_xfk x;
	struct arg *args;
	struct edit *edits;
	size_t nedits;
	int nstreamed;
	unsigned lanes;		/* original threads per group (1: geometry) */
	unsigned ilp, block, waves;
	struct ks_buf inside;	/* the in-range predicate, C */
	/* the flat quotients the packed body reads per group: the facts'
	 * quotient index and the divisor as C over the parameters */
	int nquot;
	int qidx[KS_DER_N];
	struct ks_buf qden[KS_DER_N];
	struct ks_buf notes;	/* divisions left per lane, and why */
	const char *id;
	struct ks_buf point;
};

static void
plan_release(struct plan *p)
{
	if (p->args)
		for (size_t i = 0; i < p->x.k->nparams; i++)
			free(p->args[i].type);
	free(p->args);
	free(p->edits);
	ks_buf_release(&p->inside);
	for (int q = 0; q < KS_DER_N; q++)
		ks_buf_release(&p->qden[q]);
	ks_buf_release(&p->notes);
	ks_buf_release(&p->point);
	ks_xfk_release(&p->x);
}

/* The user's parameter list without its parentheses ("" for none). */
static char *
inner_params(const struct ks_xfk *x)
{
	size_t n = strlen(x->params);
	char *s = ks_xstrndup(x->params + 1, n >= 2 ? n - 2 : 0);

	if (x->k->nparams == 0) {
		free(s);
		return ks_xstrdup("");
	}
	return s;
}

/* ", a, b" or "" */
static void
add_args(struct ks_buf *b, const struct ks_xfk *x)
{
	if (x->k->nparams)
		ks_buf_addf(b, ", %s", x->args);
}

static int
cmp_edit(const void *a, const void *b)
{
	const struct edit *x = a, *y = b;

	return x->begin < y->begin ? -1 : x->begin > y->begin;
}

/*
 * Find the streamed parameters and the body edits. Returns 0, or -1 with
 * the reason.
 */
static int
find_streams(struct plan *p, struct ks_buf *reason)
{
	const struct ks_facts *f = p->x.f;
	const struct ks_kernel *k = p->x.k;
	size_t i, j;

	p->args = ks_xcalloc(k->nparams + 1, sizeof(*p->args));
	p->edits = ks_xcalloc(f->nacc + f->nbranches + f->ndivmods + 1,
			      sizeof(*p->edits));
	for (i = 0; i < f->narrays; i++) {
		const struct ks_array *a = &f->arrays[i];
		struct arg *g;
		int ok = 1, any = 0;

		if (a->param < 0 || (size_t)a->param >= k->nparams ||
		    a->space != KS_SPACE_GLOBAL)
			continue;
		g = &p->args[a->param];
		for (j = 0; j < f->nacc; j++) {
			const struct ks_access *c = &f->acc[j];

			if (c->array != (int)i)
				continue;
			if (!any)
				g->bytes = c->bytes;
			any = 1;
			ok &= c->lanes == 1 && !(c->flags & (KS_ACC_VECTOR |
				KS_ACC_SIZE_GUESSED | KS_ACC_ATOMIC)) &&
			      c->bytes == g->bytes && c->loop < 0 &&
			      ks_xfk_is_global_index(c);
			g->loaded |= !!(c->flags & KS_ACC_LOAD);
			g->stored |= !!(c->flags & KS_ACC_STORE);
		}
		g->type = ks_xfk_pointee(&p->x, (size_t)a->param);
		if (!any || !ok || !g->type || (g->bytes != 1 && g->bytes != 2 &&
						g->bytes != 4 && g->bytes != 8))
			continue;
		g->streamed = 1;
	}
	/* the lanes: the widest element fills the pack */
	{
		unsigned widest = 0;

		for (i = 0; i < k->nparams; i++)
			if (p->args[i].streamed && p->args[i].bytes > widest)
				widest = p->args[i].bytes;
		if (!widest) {
			ks_buf_adds(reason, "no pointer parameter is accessed only at "
					    "the thread's global index "
					    "(blockIdx.x * blockDim.x + threadIdx.x) "
					    "outside loops");
			return -1;
		}
		p->lanes = p->lanes / widest;	/* lanes held the pack bytes */
		if (p->lanes < 2) {
			ks_buf_addf(reason, "a %u-byte element does not fit twice in "
					    "the pack", widest);
			return -1;
		}
	}
	for (i = 0; i < k->nparams; i++)
		p->nstreamed += p->args[i].streamed;
	{
		int any_store = 0;

		for (i = 0; i < k->nparams; i++)
			any_store |= p->args[i].streamed && p->args[i].stored;
		if (!any_store) {
			ks_buf_adds(reason, "no streamed pointer is stored: the kernel "
					    "is not pointwise");
			return -1;
		}
	}
	/* Streamed loads must all come before streamed stores (an in-place
	 * launch, x == y, then reads what the original read). */
	{
		long last_load = -1, first_store = -1;

		for (j = 0; j < f->nacc; j++) {
			const struct ks_access *c = &f->acc[j];
			const struct ks_array *a = &f->arrays[c->array];

			if (a->param < 0 || !p->args[a->param].streamed)
				continue;
			if ((c->flags & KS_ACC_LOAD) && !(c->flags & KS_ACC_STORE))
				last_load = (long)j;
			if ((c->flags & KS_ACC_STORE) && first_store < 0)
				first_store = (long)j;
			if (!c->in_main || c->begin < p->x.body_begin ||
			    c->end > p->x.body_end) {
				ks_buf_addf(reason, "a streamed access (line %u) is not "
						    "written in the kernel's body",
					    c->line);
				return -1;
			}
			p->edits[p->nedits].begin = c->begin;
			p->edits[p->nedits].end = c->end;
			p->edits[p->nedits].param = (size_t)a->param;
			p->edits[p->nedits].fold = -1;
			p->edits[p->nedits].quot = -1;
			p->nedits++;
		}
		if (first_store >= 0 && last_load > first_store) {
			ks_buf_addf(reason, "a streamed load (line %u) follows a streamed "
					    "store", f->acc[last_load].line);
			return -1;
		}
	}
	qsort(p->edits, p->nedits, sizeof(*p->edits), cmp_edit);
	for (i = 0, j = 0; i < p->nedits; i++) {
		if (j && p->edits[i].begin == p->edits[j - 1].begin &&
		    p->edits[i].end == p->edits[j - 1].end)
			continue;	/* x[i] += v: one expression, load and store */
		if (j && p->edits[i].begin < p->edits[j - 1].end) {
			ks_buf_adds(reason, "two streamed accesses overlap in the text");
			return -1;
		}
		p->edits[j++] = p->edits[i];
	}
	p->nedits = j;
	return 0;
}

/*
 * The subject of a bounds check as C for ks_in: over the original
 * thread's flat index ks_i (= ks_bx * blockDim.x + ks_tx, which the
 * caller has) when the subject is a multiple of the global index plus a
 * uniform part, so that the packed path needs no coordinates; else over
 * ks_tx and ks_bx.
 */
static int
subject_c(const struct plan *p, const struct ks_form *s, struct ks_buf *out)
{
	if (ks_form_global_index_only(s) &&
	    (ks_form_sources(s) & KS_SRC_BIT(KS_SRC_TID_X))) {
		struct ks_form flat = *s;

		memset(&flat.c[KS_SRC_BID_X], 0, sizeof(flat.c[KS_SRC_BID_X]));
		return ks_xfk_form_c(&p->x, &flat, "ks_i", NULL, "ks_o", out);
	}
	return ks_xfk_form_c(&p->x, s, "ks_tx", "ks_bx", "ks_o", out);
}

/* A comparison of the kernel's body (outside loops, spelled in the main
 * file) that the packed body can have as its value. */
static void
add_fold(struct plan *p, const struct ks_branch *b, int value)
{
	if (!b->in_main || b->loop >= 0 || b->begin < p->x.body_begin ||
	    b->end > p->x.body_end || b->end <= b->begin)
		return;
	for (size_t e = 0; e < p->nedits; e++)
		if (b->begin < p->edits[e].end && p->edits[e].begin < b->end)
			return;	/* holds a streamed access or another fold */
	p->edits[p->nedits].begin = b->begin;
	p->edits[p->nedits].end = b->end;
	p->edits[p->nedits].fold = value;
	p->edits[p->nedits].quot = -1;
	p->nedits++;
}

/*
 * The in-range predicate of a group: every bounds check passed, each
 * check a claim about its comparison's value (true where an `if` joins
 * it with && to the body it guards, false where an early exit joins it
 * with ||, the in-range side for `?:`). Where all lanes of a group make
 * every claim, the packed body has the comparisons as those constants
 * (and the index arithmetic only they used disappears). Declines on
 * branches that could skip a streamed access for a thread inside.
 */
static int
find_inside(struct plan *p, struct ks_buf *reason)
{
	const struct ks_facts *f = p->x.f;
	int n = 0;

	for (size_t i = 0; i < f->nbranches; i++) {
		const struct ks_branch *b = &f->branches[i];
		struct ks_buf s = KS_BUF_INIT, l = KS_BUF_INIT;
		int pass_true;
		static const char *const ops[] = { "?", "<", "<=", ">", ">=" };

		if (b->stmt == KS_BRS_LOOP)
			continue;	/* streamed accesses are outside loops */
		if (b->kind == KS_BR_UNIFORM && b->stmt == KS_BRS_COND)
			continue;
		if (b->kind == KS_BR_DATA && b->stmt == KS_BRS_COND)
			continue;	/* a value chosen, no access skipped */
		if (b->kind != KS_BR_BOUNDS) {
			ks_buf_addf(reason, "the branch at line %u (%s) may skip a "
					    "streamed access", b->line,
				    b->kind == KS_BR_UNIFORM ? "on a parameter"
				    : b->kind == KS_BR_DATA ? "on loaded data"
				    : "on the thread's coordinates");
			return -1;
		}
		if (b->cmp == KS_CMP_NONE) {
			ks_buf_addf(reason, "the bounds check at line %u is not an "
					    "ordering comparison", b->line);
			return -1;
		}
		if (b->stmt == KS_BRS_SWITCH) {
			ks_buf_addf(reason, "the bounds check at line %u chooses a "
					    "switch's case", b->line);
			return -1;
		}
		if (b->stmt == KS_BRS_IF && b->early_exit) {
			if (!(b->joined & KS_BRJ_OR)) {
				ks_buf_addf(reason, "the bounds check at line %u does "
						    "not decide its early exit (it is "
						    "not joined to it by ||)", b->line);
				return -1;
			}
			pass_true = 0;	/* the exit is not taken */
		} else if (b->stmt == KS_BRS_IF) {
			if (!(b->cmp == KS_CMP_LT || b->cmp == KS_CMP_LE)) {
				ks_buf_addf(reason, "the bounds check at line %u guards "
						    "the out-of-range side", b->line);
				return -1;
			}
			if (!(b->joined & KS_BRJ_AND)) {
				ks_buf_addf(reason, "the bounds check at line %u does "
						    "not decide the statement it guards "
						    "(it is not joined to it by &&)",
					    b->line);
				return -1;
			}
			pass_true = 1;
		} else {
			pass_true = b->cmp == KS_CMP_LT || b->cmp == KS_CMP_LE;
		}
		if (subject_c(p, &b->subject, &s) ||
		    ks_xfk_form_c(&p->x, &b->limit, NULL, NULL, "ks_o", &l)) {
			ks_buf_addf(reason, "the bounds check at line %u is not an "
					    "affine function of threadIdx.x and "
					    "blockIdx.x against the parameters",
				    b->line);
			ks_buf_release(&s);
			ks_buf_release(&l);
			return -1;
		}
		ks_buf_addf(&p->inside, "%s%s(%s %s %s)", n++ ? " &&\n\t       " : "",
			    pass_true ? "" : "!", s.buf, ops[b->cmp], l.buf);
		ks_buf_release(&s);
		ks_buf_release(&l);
		add_fold(p, b, pass_true);
	}
	if (!n)
		ks_buf_adds(&p->inside, "true");
	qsort(p->edits, p->nedits, sizeof(*p->edits), cmp_edit);
	return 0;
}

/* The text [b, e) overlaps an edit already planned. */
static int
overlaps(const struct plan *p, unsigned long b, unsigned long e)
{
	for (size_t i = 0; i < p->nedits; i++)
		if (b < p->edits[i].end && p->edits[i].begin < e)
			return 1;
	return 0;
}

/*
 * The divisions of the flat index by a uniform value that the packed
 * body reads as the group's quotient. Never declines: a division that
 * does not qualify stays per lane, as before, with its reason in the
 * variant's notes. Divisions whose value is already the same across a
 * group (a remainder or quotient of a flat quotient) are left as they
 * are: they follow from the replaced one.
 */
static void
find_quotients(struct plan *p)
{
	const struct ks_facts *f = p->x.f;

	for (size_t i = 0; i < f->ndivmods; i++) {
		const struct ks_divmod *d = &f->divmods[i];
		const char *why = NULL;
		int slot;

		if (!d->thread)
			continue;	/* of uniform values: nothing per lane */
		if (d->dquot >= 0 && !d->rem && ks_facts_flat_quotient(f, d->dquot)) {
			if (!d->in_main || d->begin < p->x.body_begin ||
			    d->end > p->x.body_end || d->end <= d->begin ||
			    !ks_xfbody_pure_text(p->x.body,
						 d->begin - p->x.body_begin,
						 d->end - p->x.body_begin))
				why = "is not a plain expression written in the "
				      "kernel's body";
			else if (overlaps(p, d->begin, d->end))
				why = "overlaps a streamed access or a bounds check";
		} else if (ks_facts_divmod_group_level(f, d)) {
			continue;	/* the same for the group once the above is */
		} else {
			why = d->dquot < 0 ? "is not of the flat index by a uniform "
					     "value"
			      : d->rem ? "is a remainder that differs between "
					 "the lanes of a group"
				       : "divides more than the flat index";
		}
		for (slot = 0; !why && slot < p->nquot; slot++)
			if (p->qidx[slot] == d->dquot)
				break;
		if (!why && slot == p->nquot) {
			struct ks_form den;

			ks_form_zero(&den);
			den.c[KS_SRC_ONE] = f->dquots[d->dquot].den;
			if (ks_xfk_form_c(&p->x, &den, NULL, NULL, "ks_o",
					  &p->qden[slot])) {
				ks_buf_reset(&p->qden[slot]);
				why = "has a divisor that is not a product of "
				      "parameters and constants";
			} else {
				p->qidx[p->nquot++] = d->dquot;
			}
		}
		if (why) {
			ks_buf_addf(&p->notes, "// per lane: the %s at line %u %s\n",
				    d->rem ? "remainder" : "division", d->line, why);
			continue;
		}
		p->edits[p->nedits].begin = d->begin;
		p->edits[p->nedits].end = d->end;
		p->edits[p->nedits].fold = -1;
		p->edits[p->nedits].quot = slot;
		p->nedits++;
	}
	qsort(p->edits, p->nedits, sizeof(*p->edits), cmp_edit);
}

/* The body function: the original body, coordinates as parameters. */
static void
emit_body_fn(struct ks_buf *o, struct plan *p, int vec)
{
	const struct ks_xfk *x = &p->x;
	char *inner = inner_params(x);
	unsigned long at = x->body_begin;

	ks_buf_addf(o, "static __device__ __forceinline__ void\n"
		       "ks_%s_%s(const uint3 threadIdx, const uint3 blockIdx, "
		       "const dim3 blockDim,\n\tconst dim3 gridDim",
		    vec ? "vb" : "sb", x->k->name);
	if (vec) {
		ks_buf_adds(o, ", const int ks_j");
		for (int q = 0; q < p->nquot; q++)
			ks_buf_addf(o, ", const unsigned ks_gq%d", q);
		for (size_t i = 0; i < x->k->nparams; i++)
			if (p->args[i].streamed)
				ks_buf_addf(o, ", %s *ks_v%zu", p->args[i].type, i);
	}
	if (*inner)
		ks_buf_addf(o, ",\n\t%s", inner);
	ks_buf_adds(o, ")\n{\n\t(void)threadIdx;\n\t(void)blockIdx;\n"
		       "\t(void)blockDim;\n\t(void)gridDim;\n");
	if (vec)
		ks_buf_adds(o, "\t(void)ks_j;\n");
	ks_buf_adds(o, "\t");
	for (size_t e = 0; vec && e < p->nedits; e++) {
		const struct edit *d = &p->edits[e];

		ks_buf_add(o, x->body + (at - x->body_begin), d->begin - at);
		if (d->quot >= 0) {
			/* the group's quotient in the expression's own type;
			 * the discarded division keeps its operands used and
			 * is dropped by the compiler */
			const char *t = x->body + (d->begin - x->body_begin);
			int n = (int)(d->end - d->begin);

			ks_buf_addf(o, "((decltype(%.*s))((void)(%.*s), ks_gq%d))",
				    n, t, n, t, d->quot);
		} else if (d->fold < 0) {
			ks_buf_addf(o, "(ks_v%zu[ks_j])", d->param);
		} else {
			/* the comparison stays written (its variables stay
			 * used) but no longer decides */
			ks_buf_adds(o, d->fold ? "(true || (" : "(false && (");
			ks_buf_add(o, x->body + (d->begin - x->body_begin),
				   d->end - d->begin);
			ks_buf_adds(o, "))");
		}
		at = d->end;
	}
	ks_buf_add(o, x->body + (at - x->body_begin), x->body_end - at);
	ks_buf_adds(o, "\n}\n\n");
	free(inner);
}

/* The original thread of a pack's first element: ks_t / ks_ob.x by its
 * multiplier (Granlund-Montgomery, computed by the launcher, which also
 * proves every ks_t fits in 32 bits): a multiply-high and two shifts
 * where a division took some twenty instructions per pack. */
#define PACK_COORDS                                                            \
	"\t\t\tconst unsigned ks_t32 = (unsigned)ks_t;\n"                        \
	"\t\t\tconst unsigned ks_h = __umulhi(ks_t32, ks_mg);\n"                 \
	"\t\t\tconst unsigned ks_bx = (ks_h + ((ks_t32 - ks_h) >> ks_s1)) >> "    \
	"ks_s2;\n"                                                                \
	"\t\t\tconst unsigned ks_tx = ks_t32 - ks_bx * ks_ob.x;\n\n"

static void
emit_helpers(struct ks_buf *o, struct plan *p)
{
	const struct ks_xfk *x = &p->x;
	const char *K = x->k->name;
	char *inner = inner_params(x);
	int vec = p->lanes > 1;
	const char *it = vec ? "unsigned" : "unsigned long long";
	size_t i;

	emit_body_fn(o, p, 0);
	if (vec) {
		emit_body_fn(o, p, 1);
		for (i = 0; i < x->k->nparams; i++)
			if (p->args[i].streamed)
				ks_buf_addf(o, "struct __align__(%u) ks_pk%zu_%s {\n"
					       "\t%s v[%u];\n};\n\n",
					    p->lanes * p->args[i].bytes, i, K,
					    p->args[i].type, p->lanes);
		ks_buf_addf(o, "/* Every bounds check of the kernel passes for the "
			       "original thread\n   (ks_bx, ks_tx), ks_i = ks_bx * "
			       "blockDim.x + ks_tx. */\n"
			       "static __device__ __forceinline__ bool\n"
			       "ks_in_%s(const unsigned ks_i, const unsigned ks_tx, "
			       "const unsigned ks_bx,\n\tconst dim3 ks_ob, "
			       "const dim3 ks_og%s%s)\n{\n"
			       "\t(void)ks_i;\n\t(void)ks_tx;\n\t(void)ks_bx;\n"
			       "\treturn %s;\n}\n\n", K, *inner ? ",\n\t" : "", inner,
			    p->inside.buf);
	}
	ks_buf_addf(o, "__global__ void __launch_bounds__(%u)\nks_xf_%s(%s%s"
		       "const dim3 ks_og, const dim3 ks_ob,\n\tconst unsigned ks_mg, "
		       "const unsigned ks_s1, const unsigned ks_s2)\n{\n", p->block, K,
		    inner, *inner ? ", " : "");
	if (vec)	/* 32-bit pack indices: the launcher proves they fit */
		ks_buf_addf(o, "\tconst unsigned ks_ng =\n"
			       "\t\t(unsigned)((unsigned long long)ks_og.x * ks_ob.x / %u);\n"
			       "\tconst unsigned ks_s = gridDim.x * %u;\n",
			    p->lanes, p->block);
	/* the launcher proved each divisor in [1, 2^31) and a multiple
	 * of the lanes */
	for (int q = 0; vec && q < p->nquot; q++)
		ks_buf_addf(o, "\tconst unsigned ks_qd%d = (unsigned)%s;\n", q,
			    p->qden[q].buf);
	if (vec)
		ks_buf_addf(o, "\n\tfor (unsigned ks_g0 = blockIdx.x * %u + threadIdx.x;\n"
			       "\t     ks_g0 < ks_ng; ks_g0 += %u * ks_s) {\n",
			    p->block, p->ilp);
	else
		ks_buf_addf(o, "\tconst unsigned long long ks_ng =\n"
			       "\t\t(unsigned long long)ks_og.x * ks_ob.x / %u;\n"
			       "\tconst unsigned long long ks_s = "
			       "(unsigned long long)gridDim.x * %u;\n\n"
			       "\tfor (unsigned long long ks_g0 = (unsigned long long)blockIdx.x * "
			       "%u + threadIdx.x;\n\t     ks_g0 < ks_ng; ks_g0 += %u * ks_s) {\n",
			    p->lanes, p->block, p->block, p->ilp);
	if (vec) {
		for (i = 0; i < x->k->nparams; i++)
			if (p->args[i].streamed)
				ks_buf_addf(o, "\t\tks_pk%zu_%s ks_v%zu[%u];\n", i, K, i,
					    p->ilp);
		ks_buf_addf(o, "\t\tbool ks_full[%u];\n\n", p->ilp);
	}
	ks_buf_addf(o, "#pragma unroll\n"
		       "\t\tfor (int ks_u = 0; ks_u < %u; ks_u++) {\n"
		       "\t\t\tconst %s ks_g = ks_g0 + ks_u * ks_s;\n"
		       "\t\t\tconst %s ks_t = ks_g * %u;\n"
		       "%s",
		    p->ilp, it, it, p->lanes, PACK_COORDS);
	if (vec) {
		ks_buf_addf(o, "\t\t\tks_full[ks_u] = ks_g < ks_ng &&\n"
			       "\t\t\t\tks_in_%s(ks_t32, ks_tx, ks_bx, ks_ob, ks_og", K);
		add_args(o, x);
		ks_buf_addf(o, ") &&\n\t\t\t\tks_in_%s(ks_t32 + %u, ks_tx + %u, ks_bx, "
			       "ks_ob, ks_og", K, p->lanes - 1, p->lanes - 1);
		add_args(o, x);
		ks_buf_adds(o, ");\n\t\t\tif (!ks_full[ks_u])\n\t\t\t\tcontinue;\n");
		for (i = 0; i < x->k->nparams; i++)
			if (p->args[i].streamed && p->args[i].loaded)
				ks_buf_addf(o, "\t\t\tks_v%zu[ks_u] = *reinterpret_cast<const "
					       "ks_pk%zu_%s *>(\n\t\t\t\t%s + ks_t);\n",
					    i, i, K, x->k->params[i].name);
		ks_buf_addf(o, "\t\t}\n#pragma unroll\n"
			       "\t\tfor (int ks_u = 0; ks_u < %u; ks_u++) {\n"
			       "\t\t\tconst %s ks_g = ks_g0 + ks_u * ks_s;\n"
			       "\t\t\tconst %s ks_t = ks_g * %u;\n"
			       "%s"
			       "\t\t\tif (ks_full[ks_u]) {\n",
			    p->ilp, it, it, p->lanes, PACK_COORDS);
		/* the group's quotients, from its first index */
		for (int q = 0; q < p->nquot; q++)
			ks_buf_addf(o, "\t\t\t\tconst unsigned ks_gq%d = ks_t32 / ks_qd%d;\n",
				    q, q);
		ks_buf_addf(o, "#pragma unroll\n"
			       "\t\t\t\tfor (int ks_j = 0; ks_j < %u; ks_j++)\n"
			       "\t\t\t\t\tks_vb_%s(make_uint3(ks_tx + ks_j, 0, 0),\n"
			       "\t\t\t\t\t\tmake_uint3(ks_bx, 0, 0), ks_ob, ks_og, ks_j",
			    p->lanes, K);
		for (int q = 0; q < p->nquot; q++)
			ks_buf_addf(o, ", ks_gq%d", q);
		for (i = 0; i < x->k->nparams; i++)
			if (p->args[i].streamed)
				ks_buf_addf(o, ", ks_v%zu[ks_u].v", i);
		add_args(o, x);
		ks_buf_adds(o, ");\n");
		for (i = 0; i < x->k->nparams; i++)
			if (p->args[i].streamed && p->args[i].stored)
				ks_buf_addf(o, "\t\t\t\t*reinterpret_cast<ks_pk%zu_%s *>(%s + "
					       "ks_t) = ks_v%zu[ks_u];\n",
					    i, K, x->k->params[i].name, i);
		ks_buf_adds(o, "\t\t\t} else if (ks_g < ks_ng) {\n");
	} else {
		ks_buf_adds(o, "\t\t\tif (ks_g < ks_ng) {\n");
	}
	ks_buf_addf(o, "\t\t\t\tfor (unsigned ks_j = 0; ks_j < %u; ks_j++)\n"
		       "\t\t\t\t\tks_sb_%s(make_uint3(ks_tx + ks_j, 0, 0),\n"
		       "\t\t\t\t\t\tmake_uint3(ks_bx, 0, 0), ks_ob, ks_og",
		    p->lanes, K);
	add_args(o, x);
	ks_buf_adds(o, ");\n\t\t\t}\n\t\t}\n\t}\n}\n");
	free(inner);
}

static void
emit_launcher(struct ks_buf *o, struct plan *p)
{
	const struct ks_xfk *x = &p->x;
	const char *K = x->k->name;
	char *inner = inner_params(x);

	ks_buf_addf(o, "static void\nks_launch_%s(dim3 grid, dim3 block, size_t shmem, "
		       "cudaStream_t stream%s%s)\n{\n", K, *inner ? ",\n\t" : "", inner);
	if (p->waves)
		ks_buf_adds(o, "\t/* resident blocks of the helper kernel, per device */\n"
			       "\tstatic int ks_fill[64];\n\tint ks_dev = -1;\n");
	if (p->nquot)	/* the divisors' blockDim and gridDim */
		ks_buf_adds(o, "\tconst dim3 ks_ob = block, ks_og = grid;\n");
	ks_buf_adds(o, "\tunsigned long long ks_blocks;\n"
		       "\tunsigned ks_l = 0, ks_mg, ks_s1, ks_s2;\n\n");
	if (p->nquot)
		ks_buf_adds(o, "\t(void)ks_ob;\n\t(void)ks_og;\n");
	/* Every original thread's index fits in 32 bits (the coordinates'
	 * multiplier); with packs, so does every pack index the helper's
	 * loop reaches, one step past the last included. */
	ks_buf_addf(o, "\tif (grid.x == 0 || grid.y != 1 || grid.z != 1 || "
		       "block.y != 1 ||\n\t    block.z != 1 || block.x %% %u != 0 ||\n"
		       "\t    (unsigned long long)grid.x * block.x > %#llxULL", p->lanes,
		    0xffffffffULL - (p->lanes > 1 ? (unsigned long long)p->lanes *
							p->ilp * p->block : 0));
	for (size_t i = 0; p->lanes > 1 && i < x->k->nparams; i++)
		if (p->args[i].streamed)
			ks_buf_addf(o, " ||\n\t    (unsigned long long)(const void *)%s %% %u "
				       "!= 0", x->k->params[i].name,
				    p->lanes * p->args[i].bytes);
	/* a group's lanes share a quotient only where its divisor is a
	 * multiple of the lanes (and positive: C's division floors) */
	for (int q = 0; p->lanes > 1 && q < p->nquot; q++)
		ks_buf_addf(o, " ||\n\t    %s <= 0 || %s > 0x7fffffffLL ||\n"
			       "\t    %s %% %u != 0", p->qden[q].buf, p->qden[q].buf,
			    p->qden[q].buf, p->lanes);
	ks_buf_addf(o, ") {\n\t\t/* a launch the variant does not cover: the "
		       "original */\n\t\t%s<<<grid, block, shmem, stream>>>(%s);\n"
		       "\t\treturn;\n\t}\n", K, x->args);
	ks_buf_adds(o, "\twhile ((1ull << ks_l) < block.x)\n\t\tks_l++;\n"
		       "\tks_mg = (unsigned)(((1ull << 32) * ((1ull << ks_l) - block.x)) / "
		       "block.x + 1);\n"
		       "\tks_s1 = ks_l < 1 ? ks_l : 1;\n"
		       "\tks_s2 = ks_l > 1 ? ks_l - 1 : 0;\n");
	ks_buf_addf(o, "\tks_blocks = ((unsigned long long)grid.x * block.x / %u + "
		       "%u - 1) / %u;\n", p->lanes, p->ilp * p->block,
		    p->ilp * p->block);
	if (p->waves)
		ks_buf_addf(o, "\tif (cudaGetDevice(&ks_dev) == cudaSuccess && ks_dev >= 0 "
			       "&& ks_dev < 64) {\n"
			       "\t\tint ks_sms = 0, ks_per = 0;\n\n"
			       "\t\tif (!ks_fill[ks_dev] &&\n"
			       "\t\t    cudaDeviceGetAttribute(&ks_sms, "
			       "cudaDevAttrMultiProcessorCount,\n"
			       "\t\t\t\t\t   ks_dev) == cudaSuccess &&\n"
			       "\t\t    cudaOccupancyMaxActiveBlocksPerMultiprocessor(\n"
			       "\t\t\t    &ks_per, ks_xf_%s, %u, 0) == cudaSuccess)\n"
			       "\t\t\tks_fill[ks_dev] = ks_sms * ks_per;\n"
			       "\t\tif (ks_fill[ks_dev] > 0 &&\n"
			       "\t\t    ks_blocks > %uULL * (unsigned long long)ks_fill[ks_dev])\n"
			       "\t\t\tks_blocks = %uULL * (unsigned long long)ks_fill[ks_dev];\n"
			       "\t}\n", K, p->block, p->waves, p->waves);
	ks_buf_addf(o, "\tif (ks_blocks > 0x7fffffffULL)\n\t\tks_blocks = 0x7fffffffULL;\n"
		       "\t(void)shmem;\n"
		       "\tks_xf_%s<<<(unsigned)ks_blocks, %u, 0, stream>>>(%s%s"
		       "grid, block, ks_mg, ks_s1, ks_s2);\n}\n", K, p->block, x->args,
		    x->k->nparams ? ", " : "");
	free(inner);
}

static enum ks_xf_result
generate(struct plan *p, const struct ks_xf_input *in, struct ks_buf *variant,
	 struct ks_buf *reason)
{
	const struct ks_xfk *x = &p->x;

	ks_buf_addf(variant, "// %s: %s %s (builtin transform, arch %d)\n",
		    x->k->name, p->id, p->point.buf, in->opts.arch);
	if (p->nquot)
		ks_buf_addf(variant, "// group quotients: %d division%s of the flat "
				     "index, once per group of %u (a divisor not a "
				     "multiple of %u runs the original)\n",
			    p->nquot, p->nquot > 1 ? "s" : "", p->lanes, p->lanes);
	ks_buf_add(variant, p->notes.buf, p->notes.len);
	ks_buf_adds(variant, "// ks-nvcc: helpers\n");
	emit_helpers(variant, p);
	ks_buf_adds(variant, "// ks-nvcc: definition\n");
	ks_buf_add(variant, in->text + x->def_begin, x->k->extent.end - x->def_begin);
	ks_buf_adds(variant, "\n// ks-nvcc: launcher\n");
	emit_launcher(variant, p);
	(void)reason;
	return KS_XF_APPLIED;
}

static int
start(struct plan *p, const struct ks_transform *t, const struct ks_xf_input *in,
      const struct ks_xf_point *pt, struct ks_buf *reason)
{
	memset(p, 0, sizeof(*p));
	p->id = t->id;
	ks_xf_point_format(t, pt, &p->point);
	if (ks_xfk_init(&p->x, in, reason))
		return -1;
	if (!ks_xfk_independent(&p->x, reason))
		return -1;
	/* the launcher takes 1-D launches only */
	if (!ks_xf_launches_flat(&in->opts, 0, 0, reason))
		return -1;
	return 0;
}

/* ---- launch_geometry -------------------------------------------------------- */

static enum ks_xf_result
geometry_apply(const struct ks_xf_input *in, const struct ks_xf_point *pt,
	       struct ks_buf *variant, struct ks_buf *reason);

const struct ks_transform ks_xf_launch_geometry = {
	.id = "launch_geometry",
	.summary = "a launcher that runs the kernel's threads grid-stride with its "
		   "own block size and an occupancy-sized grid",
	.precondition = "threads are independent (no shared memory, barriers, warp "
			"intrinsics, atomics); 1-D launches",
	.nparams = 2,
	.params = {
		{ "block", "threads per block of the helper kernel", 256, 4,
		  { 256, 512, 128, 1024 } },
		{ "waves", "grid: resident blocks times this (0: one thread per "
			   "original thread)", 0, 4, { 0, 4, 1, 8 } },
	},
	.apply = geometry_apply,
};

static enum ks_xf_result
geometry_apply(const struct ks_xf_input *in, const struct ks_xf_point *pt,
	       struct ks_buf *variant, struct ks_buf *reason)
{
	struct plan p;
	enum ks_xf_result r = KS_XF_DECLINED;

	if (start(&p, &ks_xf_launch_geometry, in, pt, reason) == 0) {
		p.lanes = 1;
		p.ilp = 1;
		p.block = (unsigned)pt->v[0];
		p.waves = (unsigned)pt->v[1];
		r = generate(&p, in, variant, reason);
	}
	plan_release(&p);
	return r;
}

/* ---- vectorize_memory ------------------------------------------------------- */

static enum ks_xf_result
vectorize_apply(const struct ks_xf_input *in, const struct ks_xf_point *pt,
		struct ks_buf *variant, struct ks_buf *reason);

const struct ks_transform ks_xf_vectorize_memory = {
	.id = "vectorize_memory",
	.summary = "aligned 8/16-byte loads and stores of the streamed pointers, "
		   "several packs per thread, scalar tail and fallback",
	.precondition = "independent threads; some pointer is read or written only "
			"at [blockIdx.x * blockDim.x + threadIdx.x], outside loops; "
			"bounds checks affine in the thread index",
	.nparams = 4,
	.params = {
		{ "bytes", "bytes per load and store (16: float4, 8: float2)", 16, 2,
		  { 16, 8 } },
		{ "ilp", "packs in flight per thread", 1, 3, { 1, 2, 4 } },
		{ "block", "threads per block of the helper kernel", 256, 3,
		  { 256, 512, 128 } },
		{ "waves", "grid: resident blocks times this (0: every pack once)", 0,
		  2, { 0, 8 } },
	},
	.apply = vectorize_apply,
};

static enum ks_xf_result
vectorize_apply(const struct ks_xf_input *in, const struct ks_xf_point *pt,
		struct ks_buf *variant, struct ks_buf *reason)
{
	struct plan p;
	enum ks_xf_result r = KS_XF_DECLINED;

	if (start(&p, &ks_xf_vectorize_memory, in, pt, reason) == 0) {
		p.lanes = (unsigned)pt->v[0];	/* bytes, until find_streams */
		p.ilp = (unsigned)pt->v[1];
		p.block = (unsigned)pt->v[2];
		p.waves = (unsigned)pt->v[3];
		if (find_streams(&p, reason) == 0 && find_inside(&p, reason) == 0) {
			find_quotients(&p);
			r = generate(&p, in, variant, reason);
		}
	}
	plan_release(&p);
	return r;
}
