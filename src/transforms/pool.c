/*
 * pool_window_rows: a sliding-window reduction with one thread per output
 * (max or average pooling, a box filter with a stride) makes each thread
 * produce several adjacent outputs of a row from a window of its input
 * held in registers.
 *
 * Recognized in the facts: the flat index g = blockIdx.x * blockDim.x +
 * threadIdx.x decomposed step by step into two digits and a top (derived
 * coordinates: D0 = g % r0, D1 = (g / r0) % r1, Q1 = g / r0 / r1, so an
 * output row is (Q1, D1) and D0 runs along it; or one quotient, Q0 the
 * row, with a window of one row); an early exit of g against a uniform
 * limit L; one store, at g; one thread-dependent load, of another array
 * I, inside two nested loops or one (each from 0 by 1 to a constant or to
 * one kernel parameter), at the element offset
 *
 *     A1 Q1 + B1 D1 + S D0 + Wr Lrow + Lcol + C
 *
 * with S (the window's stride along the row) a constant or one kernel
 * parameter and A1, B1, Wr, C uniform. Other loads must be uniform.
 *
 * The variant: thread t of a flat 1-D grid takes the row and the group of
 * `vo` adjacent outputs t / G, t % G (G = ceil(r0 / vo); 32-bit divisions
 * by multipliers the launcher computes, so no lane is left idle by rows
 * that are not a multiple of a warp), loads the rows x columns of I its
 * outputs read ((vo - 1) S + K columns) into registers (16-byte loads
 * where the launcher proves alignment), and runs the kernel's own body
 * once per output at its original coordinates, the divisions read from
 * the digits, the window load read from the registers and the store
 * collected into registers, then stored (16-byte stores where aligned).
 * The body's arithmetic, its order of operations and every boundary rule
 * are the kernel's own; the loop bounds and the stride are constants of
 * the helper (the launcher checks the parameters hold those values, else
 * launches the original), so the body's loops unroll and its window
 * indices are registers.
 *
 * A window cell holds I at its flat offset when that offset is inside [0,
 * P A1), P the number of rows' tops the outputs below L and the grid
 * reach (the load's array spans that many planes of A1 elements, as the
 * original's outputs need), and 0 elsewhere, which no read of the body
 * reaches: a read the original makes before a row's start (at the
 * previous row's end) reads the same value here.
 *
 * Ownership: everything is local to one apply() call.
 * May include: libc, core/, analysis/ (structs only), transform.h,
 * xfkit.h, xfbody.h.
 */
#include <stdlib.h>
#include <string.h>

#include "../analysis/inventory.h"
#include "../core/buf.h"
#include "transform.h"
#include "xfbody.h"
#include "xfkit.h"

/* The largest window the registers take: rows, and columns per row. */
#define PL_MAX_ROWS 8
#define PL_MAX_COLS 40

/* The windows (bound, stride) a bound or stride that is a kernel
 * parameter is specialized for, the usual pooling ones: the launcher
 * picks the instance from the run-time values and launches the original
 * for any other. */
static const struct {
	long long k, s;
} pl_windows[] = { { 3, 2 }, { 2, 2 }, { 3, 1 } };

/* The first columns (after an aligned one) the 16-byte loads take: a
 * padding of 0 or 1 over rows of a multiple of four elements; a window
 * at another offset takes the one-element loads (each instance costs
 * compile time). */
static const int pl_mis[] = { 0, 3 };

#define PL_MAX_INST (sizeof(pl_windows) / sizeof(pl_windows[0]))

static const struct ks_xfbody_rename renames[] = {
	{ "threadIdx", "ks_tid" },
	{ "blockIdx", "ks_bid" },
	{ "blockDim", "ks_bdim" },
	{ "gridDim", "ks_gdim" },
	{ NULL, NULL },
};

static const char helpers[] =
	"#ifndef KS_PL_HELPERS\n"
	"#define KS_PL_HELPERS\n"
	"/* n / d for a 32-bit n, by the multiplier and shifts of d\n"
	"   (Granlund-Montgomery) the launcher computes: v = { d, m, s1, s2 } */\n"
	"__device__ __forceinline__ static unsigned\n"
	"ks_pl_q(const unsigned n, const uint4 v)\n"
	"{\n"
	"\tconst unsigned h = __umulhi(n, v.y);\n"
	"\n"
	"\treturn (h + ((n - h) >> v.z)) >> v.w;\n"
	"}\n"
	"static inline uint4\n"
	"ks_pl_div_of(const unsigned d)\n"
	"{\n"
	"\tunsigned l = 0;\n"
	"\n"
	"\twhile ((1ull << l) < d)\n"
	"\t\tl++;\n"
	"\treturn make_uint4(d, (unsigned)(((1ull << 32) * ((1ull << l) - d)) / d + 1),\n"
	"\t\t\t  l < 1 ? l : 1, l > 1 ? l - 1 : 0);\n"
	"}\n"
	"/* ks_N (1 or 4) 4-byte elements from an address aligned to ks_N of them\n"
	"   (read-only path for a const array). */\n"
	"template <int ks_N, class ks_T> __device__ __forceinline__ static void\n"
	"ks_pl_ld(const ks_T *p, ks_T *o)\n"
	"{\n"
	"\tif (ks_N == 4) {\n"
	"\t\tconst int4 v = __ldg((const int4 *)p);\n"
	"\n"
	"\t\tmemcpy(o, &v, sizeof(v));\n"
	"\t} else {\n"
	"\t\t*o = __ldg(p);\n"
	"\t}\n"
	"}\n"
	"template <int ks_N, class ks_T> __device__ __forceinline__ static void\n"
	"ks_pl_ld(ks_T *p, ks_T *o)\n"
	"{\n"
	"\tif (ks_N == 4) {\n"
	"\t\tconst int4 v = *(const int4 *)p;\n"
	"\n"
	"\t\tmemcpy(o, &v, sizeof(v));\n"
	"\t} else {\n"
	"\t\t*o = *p;\n"
	"\t}\n"
	"}\n"
	"/* ks_N elements of o to an address aligned to ks_N * sizeof(ks_T), in\n"
	"   16-byte (or 8-byte) pieces. */\n"
	"template <int ks_N, class ks_T> __device__ __forceinline__ static void\n"
	"ks_pl_st(ks_T *p, const ks_T *o)\n"
	"{\n"
	"\tif (ks_N * sizeof(ks_T) % 16 == 0) {\n"
	"#pragma unroll\n"
	"\t\tfor (int i = 0; i < (int)(ks_N * sizeof(ks_T) / 16); i++) {\n"
	"\t\t\tint4 v;\n"
	"\n"
	"\t\t\tmemcpy(&v, (const char *)o + 16 * i, sizeof(v));\n"
	"\t\t\t*((int4 *)p + i) = v;\n"
	"\t\t}\n"
	"\t} else {\n"
	"\t\tint2 v;\n"
	"\n"
	"\t\tmemcpy(&v, o, sizeof(v));\n"
	"\t\t*(int2 *)p = v;\n"
	"\t}\n"
	"}\n"
	"#endif\n"
	"\n";

/* A window bound or stride: a constant, or one kernel parameter that the
 * launcher compares with each specialized value. */
struct pl_const {
	long long v;		/* the constant (param < 0) */
	int param;		/* -1: a constant of the kernel */
};

/* One instance of the window kernel: row bound, column bound, stride. */
struct pl_inst {
	long long kr, kc, s;
};

struct pl {
	const struct ks_kernel *k;
	const struct ks_facts *f;
	struct ks_xfk x;
	int W, S;		/* the window load and the store (accesses) */
	int early;		/* the early exit's branch */
	int m;			/* quotients: 1 (rows), 2 (rows of planes) */
	long long E;		/* element bytes */
	struct ks_xfbody_elem elem;
	int lrow, lcol;		/* loops: the row loop, the column loop */
	struct pl_const krow, kcol, stride;
	struct pl_inst inst[PL_MAX_INST];
	size_t ninst;
	unsigned long rname_b, rname_e, cname_b, cname_e;
	/* C over the kernel's parameters (elements): */
	struct ks_buf r0, r1, limit, a1, b1, wr, c0;
};

static void
pl_release(struct pl *s)
{
	ks_xfk_release(&s->x);
	ks_buf_release(&s->r0);
	ks_buf_release(&s->r1);
	ks_buf_release(&s->limit);
	ks_buf_release(&s->a1);
	ks_buf_release(&s->b1);
	ks_buf_release(&s->wr);
	ks_buf_release(&s->c0);
}

static int
is_global(const struct ks_facts *f, const struct ks_access *a)
{
	enum ks_space sp = f->arrays[a->array].space;

	return sp == KS_SPACE_GLOBAL || sp == KS_SPACE_UNKNOWN;
}

static int
poly_zero(const struct ks_poly *p)
{
	return p->n == 0 && !p->opaque;
}

/* `p` (bytes) as C over the kernel's parameters, in elements of E bytes.
 * Returns 0, or -1 (not a multiple of E, a symbol that is no parameter,
 * an opaque part). */
static int
poly_elems(const struct pl *s, const struct ks_poly *p, struct ks_buf *out)
{
	struct ks_form f;

	if (p->opaque)
		return -1;
	ks_form_zero(&f);
	f.c[KS_SRC_ONE] = *p;
	for (unsigned i = 0; i < p->n; i++) {
		if (p->m[i].k % s->E)
			return -1;
		f.c[KS_SRC_ONE].m[i].k /= s->E;
	}
	if (p->n == 0) {
		ks_buf_adds(out, "(0LL)");
		return 0;
	}
	return ks_xfk_form_c(&s->x, &f, NULL, NULL, "ks_o", out);
}

/* The kernel parameter a user symbol names, or -1. */
static int
sym_param(const struct pl *s, unsigned sym)
{
	const char *name;

	if (sym < KS_SYM_USER || sym - KS_SYM_USER >= s->f->nsyms)
		return -1;
	name = s->f->syms[sym - KS_SYM_USER];
	for (size_t i = 0; i < s->k->nparams; i++)
		if (s->k->params[i].name && !strcmp(s->k->params[i].name, name) &&
		    !s->k->params[i].is_pointer)
			return (int)i;
	return -1;
}

/* `p` (scaled by `unit`) is a positive constant, or exactly one scalar
 * parameter. Returns 0, or -1. */
static int
single(const struct pl *s, const struct ks_poly *p, long long unit,
       struct pl_const *out)
{
	const struct ks_mono *m = &p->m[0];

	if (p->opaque || p->n != 1 || m->k % unit)
		return -1;
	for (int i = 0; i < KS_MONO_SYMS - 1; i++)
		if (m->sym[i])
			return -1;
	if (!m->sym[KS_MONO_SYMS - 1]) {
		if (m->k / unit <= 0)
			return -1;
		out->v = m->k / unit;
		out->param = -1;
		return 0;
	}
	if (m->k != unit)
		return -1;
	out->param = sym_param(s, m->sym[KS_MONO_SYMS - 1]);
	out->v = 0;
	return out->param < 0 ? -1 : 0;
}

/* The subject of a bounds check is exactly the flat global index. */
static int
is_flat_index(const struct ks_form *f)
{
	struct ks_form tid, bid, dim, want;

	ks_form_src(&tid, KS_SRC_TID_X);
	ks_form_src(&bid, KS_SRC_BID_X);
	ks_form_sym(&dim, KS_SYM_BDIM_X);
	ks_form_mul(&bid, &bid, &dim);
	ks_form_add(&want, &tid, &bid);
	return ks_form_same_exact(&want, f) || ks_form_equal(&want, f);
}

/* The for header on `line`: `for ( [type] NAME = ... ; NAME < ...`. */
struct forhead {
	unsigned line;
	int state;	/* 0 before for, 1 after for, 2 in init, 3 after ;,
			   4 after the name, 6 after <, 5 done */
	unsigned long last_b, last_e, name_b, name_e;
};

static int
find_for(const char *text, const struct ks_xfk_tok *t, void *ctx)
{
	struct forhead *h = ctx;
	size_t n = t->end - t->begin;
	int punct1 = t->kind == 'p' && n == 1;

	if (t->line < h->line)
		return 0;
	if (h->state == 0 && t->line > h->line)
		return 1;
	switch (h->state) {
	case 0:
		if (t->kind == 'i' && n == 3 && !memcmp(text + t->begin, "for", 3))
			h->state = 1;
		return 0;
	case 1:
		if (punct1 && text[t->begin] == '(') {
			h->state = 2;
			return 0;
		}
		return 1;
	case 2:
		if (t->kind == 'i') {
			h->last_b = t->begin;
			h->last_e = t->end;
			return 0;
		}
		if (punct1 && text[t->begin] == '=' && h->last_e && !h->name_e) {
			h->name_b = h->last_b;
			h->name_e = h->last_e;
			return 0;
		}
		if (punct1 && text[t->begin] == ';')
			h->state = h->name_e ? 3 : 9;
		return h->state == 9;
	case 3:
		if (t->kind == 'i' && n == h->name_e - h->name_b &&
		    !memcmp(text + t->begin, text + h->name_b, n)) {
			h->state = 4;
			return 0;
		}
		return 1;
	case 4:
		if (punct1 && text[t->begin] == '<') {
			h->state = 6;
			h->last_e = t->end;
			return 0;
		}
		return 1;
	case 6:
		/* `<` alone, not `<=` or `<<` */
		if (!(t->kind == 'p' && t->begin == h->last_e &&
		      (text[t->begin] == '=' || text[t->begin] == '<')))
			h->state = 5;
		return 1;
	default:
		return 1;
	}
}

/* Loop `l` runs its variable from 0 by 1 while it is below a constant or
 * one parameter (the header written `for (.. v = 0; v < bound; ..)`). */
static int
window_loop(struct pl *s, const struct ks_xf_input *in, int l,
	    struct pl_const *out, unsigned long *nb, unsigned long *ne,
	    struct ks_buf *reason)
{
	const struct ks_loop *lp = &s->f->loops[l];
	long long init, step;
	struct forhead h;

	if (lp->step_kind != KS_STEP_ADD || !ks_form_is_const(&lp->init, &init) ||
	    !ks_form_is_const(&lp->step, &step) || init != 0 || step != 1) {
		ks_buf_addf(reason,
			    "the window loop on line %u does not count from 0 by 1",
			    lp->line);
		return -1;
	}
	if (lp->has_trip) {
		out->v = lp->trip;
		out->param = -1;
	} else if (!ks_form_is_uniform(&lp->bound) ||
		   single(s, &lp->bound.c[KS_SRC_ONE], 1, out)) {
		ks_buf_addf(reason,
			    "the window loop on line %u is bounded neither by a "
			    "constant nor by one kernel parameter",
			    lp->line);
		return -1;
	}
	memset(&h, 0, sizeof(h));
	h.line = lp->line;
	ks_xfk_scan(in->text, s->k->body.begin, s->k->body.end, s->k->body.line,
		    find_for, &h);
	if (h.state != 5) {
		ks_buf_addf(reason,
			    "the loop on line %u is not written `for (v = 0; v < "
			    "bound; ...)`",
			    lp->line);
		return -1;
	}
	*nb = h.name_b;
	*ne = h.name_e;
	if (out->param < 0 && (out->v <= 0 || out->v > PL_MAX_COLS)) {
		ks_buf_addf(reason, "the window loop on line %u runs %lld times",
			    lp->line, out->v);
		return -1;
	}
	return 0;
}

/* Is token `t` a name the launcher can spell: a scalar parameter, or a
 * word of an integer type or cast? */
static int
launcher_word(const struct pl *s, const char *text, const struct ks_xfk_tok *t)
{
	static const char *const words[] = { "size_t", "unsigned", "long", "int",
					     "short", "signed", "char", "ptrdiff_t",
					     "int64_t", "uint64_t", "int32_t",
					     "uint32_t", "const" };
	size_t n = t->end - t->begin;

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strlen(words[i]) == n && !memcmp(text + t->begin, words[i], n))
			return 1;
	for (size_t i = 0; i < s->k->nparams; i++)
		if (!s->k->params[i].is_pointer && s->k->params[i].name &&
		    strlen(s->k->params[i].name) == n &&
		    !memcmp(text + t->begin, s->k->params[i].name, n))
			return 1;
	return 0;
}

/*
 * The spelling of the early exit's limit on `line`, `if (S >= LIMIT)
 * return;`, as "((long long)(LIMIT))" when every name in it is a scalar
 * parameter (or a type word of a cast), so that the launcher can compute
 * it. Returns 0, or -1.
 */
static int
limit_text(const struct pl *s, const struct ks_xf_input *in, unsigned line,
	   struct ks_buf *out)
{
	struct ks_xfk_toks ts;
	int rc = -1;

	memset(&ts, 0, sizeof(ts));
	ks_xfk_tokens(in->text, s->k->body.begin, s->k->body.end, s->k->body.line,
		      &ts);
	for (size_t i = 0; i + 1 < ts.n && rc; i++) {
		size_t close, ge = 0, depth = 0;

		if (ts.t[i].line != line || !ks_xfk_tok_is(in->text, &ts.t[i], "if") ||
		    !ks_xfk_tok_is(in->text, &ts.t[i + 1], "("))
			continue;
		close = ks_xfk_match(in->text, &ts, i + 1);
		if (close + 1 >= ts.n || !ks_xfk_tok_is(in->text, &ts.t[close + 1], "return"))
			continue;
		for (size_t j = i + 2; j < close; j++) {
			const struct ks_xfk_tok *t = &ts.t[j];

			if (ks_xfk_tok_is(in->text, t, "(") ||
			    ks_xfk_tok_is(in->text, t, "["))
				depth++;
			else if (ks_xfk_tok_is(in->text, t, ")") ||
				 ks_xfk_tok_is(in->text, t, "]"))
				depth--;
			else if (!depth && ks_xfk_tok_is(in->text, t, ">") &&
				 j + 1 < close && ts.t[j + 1].begin == t->end &&
				 ks_xfk_tok_is(in->text, &ts.t[j + 1], "=") &&
				 !ks_xfk_tok_is(in->text, &ts.t[j - 1], ">")) {
				ge = ge ? close : j + 1;
				j++;
			} else if (!depth && (ks_xfk_tok_is(in->text, t, "&") ||
					      ks_xfk_tok_is(in->text, t, "|") ||
					      ks_xfk_tok_is(in->text, t, "?") ||
					      ks_xfk_tok_is(in->text, t, ",")))
				ge = close;
		}
		if (!ge || ge >= close || ge + 1 == close)
			continue;
		rc = 0;
		for (size_t j = ge + 1; j < close; j++)
			if (ts.t[j].kind == 'i' && !launcher_word(s, in->text, &ts.t[j]))
				rc = -1;
		if (!rc) {
			ks_buf_adds(out, "((long long)(");
			ks_buf_add(out, in->text + ts.t[ge + 1].begin,
				   ts.t[close - 1].end - ts.t[ge + 1].begin);
			ks_buf_adds(out, "))");
		}
	}
	free(ts.t);
	return rc;
}

static int
recognize(struct pl *s, const struct ks_xf_input *in,
	  const struct ks_xf_point *p, struct ks_buf *reason)
{
	const struct ks_kernel *k = in->kernel;
	const struct ks_facts *f = &k->facts;
	const struct ks_access *w;
	struct ks_xform v;
	struct ks_poly zero;
	int li, lo, drow, dcol;

	s->k = k;
	s->f = f;
	s->W = s->S = s->early = -1;
	if (ks_xfbody_plain_kernel(k, 0, reason) || ks_xfk_init(&s->x, in, reason))
		return -1;
	s->m = (int)f->ndquots;
	if (s->m < 1 || s->m > 2 || ks_facts_derived_chain(f) != s->m) {
		ks_buf_addf(reason,
			    "%s does not decompose its flat thread index step by "
			    "step into a position along a row and a row (and a "
			    "plane): one or two quotients by uniform values",
			    k->name);
		return -1;
	}
	for (size_t i = 0; i < f->nacc; i++) {
		const struct ks_access *a = &f->acc[i];

		if (a->flags & KS_ACC_ATOMIC) {
			ks_buf_addf(reason, "%s has an atomic (line %u)", k->name,
				    a->line);
			return -1;
		}
		if (!is_global(f, a))
			continue;
		if (a->flags & KS_ACC_STORE) {
			if (s->S >= 0) {
				ks_buf_addf(reason,
					    "%s stores more than once (lines %u "
					    "and %u): not one output per thread",
					    k->name, f->acc[s->S].line, a->line);
				return -1;
			}
			s->S = (int)i;
		} else if (a->offset.data) {
			ks_buf_addf(reason,
				    "the load on line %u has a data-dependent index",
				    a->line);
			return -1;
		} else if (ks_form_sources(&a->offset) &
			   (KS_SRC_THREAD_MASK | KS_SRC_LOOP_MASK)) {
			if (s->W >= 0) {
				ks_buf_addf(reason,
					    "%s reads a second thread-dependent "
					    "window (lines %u and %u)",
					    k->name, f->acc[s->W].line, a->line);
				return -1;
			}
			s->W = (int)i;
		}
	}
	if (s->S < 0 || s->W < 0) {
		ks_buf_addf(reason,
			    "%s has no %s", k->name,
			    s->S < 0 ? "global store" : "thread-dependent load");
		return -1;
	}
	if (!ks_xfk_is_global_index(&f->acc[s->S])) {
		ks_buf_addf(reason,
			    "the store on line %u is not at the flat thread index",
			    f->acc[s->S].line);
		return -1;
	}
	w = &f->acc[s->W];
	s->E = w->bytes;
	if (w->array == f->acc[s->S].array || f->arrays[w->array].param < 0 ||
	    f->arrays[f->acc[s->S].array].param < 0 ||
	    (w->flags & KS_ACC_VECTOR) || !w->in_main ||
	    w->begin < k->body.begin || w->end > k->body.end ||
	    !f->acc[s->S].in_main || f->acc[s->S].begin < k->body.begin ||
	    f->acc[s->S].end > k->body.end) {
		ks_buf_addf(reason,
			    "the window load (line %u) and the store are not "
			    "scalar accesses of two pointer parameters in the "
			    "kernel's text",
			    w->line);
		return -1;
	}
	for (size_t i = 0; i < f->nacc; i++)
		if ((int)i != s->W && (int)i != s->S &&
		    (f->acc[i].array == w->array ||
		     f->acc[i].array == f->acc[s->S].array)) {
			ks_buf_addf(reason,
				    "line %u accesses the window's or the "
				    "output's array a second time",
				    f->acc[i].line);
			return -1;
		}
	{
		struct ks_buf r = KS_BUF_INIT;
		int bad = ks_xfbody_elem(k, f->arrays[w->array].param, &s->elem, &r) ||
			  s->elem.bytes != s->E;

		ks_buf_release(&r);
		if (bad) {
			ks_buf_addf(reason,
				    "the window's array is not of a plain "
				    "scalar type read whole (line %u)",
				    w->line);
			return -1;
		}
	}
	/* the window: one loop along the row, or two nested loops (rows
	 * and columns), outermost in the kernel */
	li = w->loop;
	lo = li >= 0 ? f->loops[li].parent : -1;
	if (li < 0 || (lo >= 0 && f->loops[lo].parent >= 0)) {
		ks_buf_addf(reason,
			    "the load on line %u is not inside one window loop "
			    "or two nested ones",
			    w->line);
		return -1;
	}
	if (lo < 0 && s->m == 2) {
		/* one loop: a window of one row */
	} else if (lo >= 0 && s->m == 1) {
		ks_buf_addf(reason,
			    "a window of several rows over rows without planes "
			    "(line %u): the rows it reads past the outputs' rows "
			    "are not known to exist",
			    w->line);
		return -1;
	}
	if (!ks_form_exact(&w->offset, &v)) {
		ks_buf_addf(reason,
			    "the load on line %u is not affine in the derived "
			    "coordinates and the window loops",
			    w->line);
		return -1;
	}
	for (int src = KS_SRC_TID_X; src <= KS_SRC_BID_Z; src++)
		if (!poly_zero(&v.x[src])) {
			ks_buf_addf(reason,
				    "the load on line %u uses the thread index "
				    "apart from its derived coordinates",
				    w->line);
			return -1;
		}
	for (int d = 0; d < KS_MAX_LOOP_DEPTH; d++)
		if ((lo < 0 || d != f->loops[lo].depth) && d != f->loops[li].depth &&
		    !poly_zero(&v.x[KS_SRC_LOOP0 + d])) {
			ks_buf_addf(reason, "the load on line %u moves with a "
					    "third loop", w->line);
			return -1;
		}
	if ((s->m == 2 && !poly_zero(&v.q[0])) || !poly_zero(&v.q[2]) ||
	    !poly_zero(&v.q[3]) || !poly_zero(&v.d[2]) || !poly_zero(&v.d[3])) {
		ks_buf_addf(reason,
			    "the load on line %u uses a coordinate other than "
			    "the plane, the row and the position in the row",
			    w->line);
		return -1;
	}
	/* which loop walks the columns (one element per step) */
	drow = lo >= 0 ? KS_SRC_LOOP0 + f->loops[lo].depth : -1;
	dcol = KS_SRC_LOOP0 + f->loops[li].depth;
	if (lo < 0) {
		s->lrow = -1;
		s->lcol = li;
	} else if (!(v.x[dcol].n == 1 && !v.x[dcol].opaque && v.x[dcol].m[0].k == s->E &&
	      !v.x[dcol].m[0].sym[KS_MONO_SYMS - 1])) {
		int t = drow;

		drow = dcol;
		dcol = t;
		s->lrow = li;
		s->lcol = lo;
	} else {
		s->lrow = lo;
		s->lcol = li;
	}
	if (!(v.x[dcol].n == 1 && !v.x[dcol].opaque && v.x[dcol].m[0].k == s->E &&
	      !v.x[dcol].m[0].sym[KS_MONO_SYMS - 1])) {
		ks_buf_addf(reason,
			    "neither window loop of the load on line %u steps "
			    "by one element",
			    w->line);
		return -1;
	}
	if (single(s, &v.d[0], s->E, &s->stride)) {
		ks_buf_addf(reason,
			    "the load on line %u does not move along its row by "
			    "a constant stride or one kernel parameter per output",
			    w->line);
		return -1;
	}
	s->krow.v = 1;
	s->krow.param = -1;
	if ((s->lrow >= 0 &&
	     window_loop(s, in, s->lrow, &s->krow, &s->rname_b,
			 &s->rname_e, reason)) ||
	    window_loop(s, in, s->lcol, &s->kcol, &s->cname_b,
			&s->cname_e, reason))
		return -1;
	/* the instances: constants as they are, parameters at each usual
	 * window; those too large for registers left out */
	for (size_t t = 0; t < PL_MAX_INST; t++) {
		struct pl_inst c;
		size_t j;

		c.kr = s->krow.param >= 0 ? pl_windows[t].k : s->krow.v;
		c.kc = s->kcol.param >= 0 ? pl_windows[t].k : s->kcol.v;
		c.s = s->stride.param >= 0 ? pl_windows[t].s : s->stride.v;
		if (c.kr > PL_MAX_ROWS || (p->v[0] - 1) * c.s + c.kc + 3 > PL_MAX_COLS)
			continue;
		for (j = 0; j < s->ninst; j++)
			if (s->inst[j].kr == c.kr && s->inst[j].kc == c.kc &&
			    s->inst[j].s == c.s)
				break;
		if (j == s->ninst)
			s->inst[s->ninst++] = c;
	}
	if (!s->ninst) {
		ks_buf_addf(reason,
			    "a %lld x %lld window for %lld outputs is too large "
			    "for registers",
			    s->krow.v, (p->v[0] - 1) * s->stride.v + s->kcol.v,
			    p->v[0]);
		return -1;
	}
	/* one quotient: the row is the top (its coefficient the plane's),
	 * the row digit is absent; one loop: no window rows */
	memset(&zero, 0, sizeof(zero));
	if (poly_elems(s, &v.q[s->m - 1], &s->a1) ||
	    poly_elems(s, &v.d[1], &s->b1) ||
	    poly_elems(s, drow >= 0 ? &v.x[drow] : &zero, &s->wr) ||
	    poly_elems(s, &v.x[KS_SRC_ONE], &s->c0)) {
		ks_buf_addf(reason,
			    "the load's plane, row or window-row strides (line "
			    "%u) are not products of kernel parameters in whole "
			    "elements",
			    w->line);
		return -1;
	}
	/* the divisors */
	if (s->m == 1)
		ks_buf_adds(&s->r1, "(1LL)");
	for (int q = 0; q < s->m; q++) {
		struct ks_form den;

		ks_form_zero(&den);
		den.c[KS_SRC_ONE] = f->dquots[q].den;
		if (ks_xfk_form_c(&s->x, &den, NULL, NULL, "ks_o", q ? &s->r1 : &s->r0)) {
			ks_buf_addf(reason,
				    "the divisor of quotient %d is not a product "
				    "of kernel parameters and constants",
				    q);
			return -1;
		}
	}
	/* the early exit of the flat index */
	for (size_t i = 0; i < f->nbranches && s->early < 0; i++) {
		const struct ks_branch *b = &f->branches[i];

		if (b->early_exit && b->kind == KS_BR_BOUNDS && b->loop < 0 &&
		    b->cmp == KS_CMP_GE && is_flat_index(&b->subject) &&
		    ks_form_is_uniform(&b->limit) &&
		    limit_text(s, in, b->line, &s->limit) == 0)
			s->early = (int)i;
	}
	if (s->early < 0) {
		ks_buf_addf(reason,
			    "%s has no early exit `if (i >= limit) return;` of its "
			    "flat index against a limit of kernel parameters: the "
			    "extent of the window's array is unknown",
			    k->name);
		return -1;
	}
	return 0;
}

/* The body with the divisions, the window load and the store replaced. */
static int
body_text(const struct pl *s, const struct ks_xf_input *in, struct ks_buf *body,
	  struct ks_buf *reason)
{
	const struct ks_facts *f = s->f;
	const struct ks_access *w = &f->acc[s->W], *st = &f->acc[s->S];
	struct ks_xfbody_edit *edits;
	char **withs;
	size_t nedits = 0, nwith = 0;
	int rc = -1;

	edits = calloc(f->ndivmods + 3, sizeof(*edits));
	withs = calloc(f->ndivmods + 3, sizeof(*withs));
	if (!edits || !withs)
		goto out;
	for (size_t i = 0; i < f->ndivmods; i++) {
		const struct ks_divmod *d = &f->divmods[i];
		struct ks_buf b = KS_BUF_INIT;

		if (d->dquot < 0 || !d->in_main || d->begin < s->k->body.begin ||
		    d->end > s->k->body.end || d->end <= d->begin ||
		    !ks_xfbody_pure_text(in->text, d->begin, d->end))
			continue;
		/* the expression's value is discarded (the compiler drops it)
		 * so that its operands stay used */
		ks_buf_adds(&b, "((decltype(");
		ks_buf_add(&b, in->text + d->begin, d->end - d->begin);
		ks_buf_adds(&b, "))((void)(");
		ks_buf_add(&b, in->text + d->begin, d->end - d->begin);
		ks_buf_addf(&b, "), ks_%c%d))", d->rem ? 'd' : 'q', d->dquot);
		edits[nedits].begin = d->begin;
		edits[nedits].end = d->end;
		withs[nwith] = ks_buf_detach(&b, NULL);
		edits[nedits++].with = withs[nwith++];
	}
	{
		/* the window load reads the registers; the original
		 * expression stays, unevaluated, so that what it names stays
		 * used */
		struct ks_buf b = KS_BUF_INIT;

		ks_buf_adds(&b, "((void)sizeof(");
		ks_buf_add(&b, in->text + w->begin, w->end - w->begin);
		ks_buf_adds(&b, "), ks_win[");
		if (s->lrow >= 0)
			ks_buf_add(&b, in->text + s->rname_b, s->rname_e - s->rname_b);
		else
			ks_buf_adds(&b, "0");
		ks_buf_adds(&b, "][ks_c0 + ");
		ks_buf_add(&b, in->text + s->cname_b, s->cname_e - s->cname_b);
		ks_buf_adds(&b, "])");
		edits[nedits].begin = w->begin;
		edits[nedits].end = w->end;
		withs[nwith] = ks_buf_detach(&b, NULL);
		edits[nedits++].with = withs[nwith++];

		ks_buf_adds(&b, "((void)sizeof(");
		ks_buf_add(&b, in->text + st->begin, st->end - st->begin);
		ks_buf_adds(&b, "), ks_m |= 1u << ks_j, ks_o[ks_j])");
		edits[nedits].begin = st->begin;
		edits[nedits].end = st->end;
		withs[nwith] = ks_buf_detach(&b, NULL);
		edits[nedits++].with = withs[nwith++];
	}
	ks_xfbody_sort_edits(edits, nedits);
	{
		/* a division inside a replaced expression goes with it */
		size_t o = 0;

		for (size_t i = 0; i < nedits; i++)
			if (!o || edits[i].begin >= edits[o - 1].end)
				edits[o++] = edits[i];
			else if (edits[i].end > edits[o - 1].end) {
				ks_buf_addf(reason,
					    "a division overlaps the window load "
					    "or the store (line %u)",
					    w->line);
				goto out;
			}
		nedits = o;
	}
	rc = ks_xfbody_copy(in->text, in->len, s->k, edits, nedits, renames, body,
			    reason);
out:
	for (size_t i = 0; withs && i < nwith; i++)
		free(withs[i]);
	free(withs);
	free(edits);
	return rc;
}

/* The argument list with each specialized parameter replaced by its
 * template constant. */
static void
call_args(const struct pl *s, struct ks_buf *out)
{
	for (size_t i = 0; i < s->k->nparams; i++) {
		const char *a = s->k->params[i].name;

		if ((int)i == s->krow.param)
			a = "KS_KR";
		else if ((int)i == s->kcol.param)
			a = "KS_KC";
		else if ((int)i == s->stride.param)
			a = "KS_S";
		ks_buf_addf(out, "%s%s", i ? ", " : "", a);
	}
}

static void
launch_one(struct ks_buf *o, const struct pl *s, const struct pl_inst *c,
	   const char *args, int vec, int mis, const char *indent)
{
	ks_buf_addf(o,
		"%sks_pl_%s<%lld, %lld, %lld, KS_PL_V, %d, %d><<<ks_nb, %s, 0, stream>>>(\n"
		"%s\tgrid, block, ks_nt, ks_dg, ks_dr1, ks_db, ks_nin, ks_vs, %s);\n",
		indent, s->k->name, c->kr, c->kc, c->s, vec, mis,
		"KS_PL_B", indent, args);
}

static enum ks_xf_result
apply(const struct ks_xf_input *in, const struct ks_xf_point *p,
      struct ks_buf *variant, struct ks_buf *reason)
{
	const struct ks_kernel *k = in->kernel;
	const long long vo = p->v[0], bs = p->v[1];
	struct pl s;
	struct ks_buf body = KS_BUF_INIT, params = KS_BUF_INIT;
	struct ks_buf args = KS_BUF_INIT, cargs = KS_BUF_INIT;
	const char *T, *X, *Y, *N;
	enum ks_xf_result res = KS_XF_DECLINED;
	int vec_ok;

	memset(&s, 0, sizeof(s));
	if (recognize(&s, in, p, reason) || body_text(&s, in, &body, reason) ||
	    ks_xfbody_params(k, -1, NULL, -1, NULL, &params, reason))
		goto out;
	ks_xfbody_args(k, &args);
	call_args(&s, &cargs);
	T = s.elem.ctype;
	X = k->params[s.f->arrays[s.f->acc[s.W].array].param].name;
	Y = k->params[s.f->arrays[s.f->acc[s.S].array].param].name;
	N = k->name;
	vec_ok = s.E == 4;

	ks_buf_addf(variant,
		    "// %s: a sliding-window reduction, %lld adjacent outputs "
		    "of a row per thread from their window in registers (",
		    N, vo);
	for (size_t i = 0; i < s.ninst; i++)
		ks_buf_addf(variant, "%s%lld x %lld", i ? ", " : "", s.inst[i].kr,
			    (vo - 1) * s.inst[i].s + s.inst[i].kc);
	ks_buf_addf(variant, "), %lld threads a block (pool_window_rows)\n", bs);
	ks_buf_adds(variant, "// ks-nvcc: helpers\n");
	ks_buf_adds(variant, helpers);
	ks_buf_addf(variant,
		"/* The body of %s at thread ks_tid of block ks_bid: its divisions\n"
		"   read from the digits, its window load from ks_win (columns from\n"
		"   ks_c0), its store into ks_o[ks_j] (bit ks_j of ks_m). */\n"
		"template <int KS_KR, int KS_NC>\n"
		"__device__ __forceinline__ static void\n"
		"ks_pl_body_%s(const uint3 ks_tid, const uint3 ks_bid, const dim3 ks_bdim,\n"
		"\tconst dim3 ks_gdim, const unsigned long long ks_d0,\n"
		"\tconst unsigned long long ks_q0, const unsigned long long ks_d1,\n"
		"\tconst unsigned long long ks_q1, const %s (&ks_win)[KS_KR][KS_NC],\n"
		"\t%s *ks_o, unsigned &ks_m, const int ks_j, const int ks_c0, %s)\n",
		N, N, T, T, params.buf);
	ks_buf_add(variant, body.buf, body.len);
	ks_buf_adds(variant, "\n\n");
	ks_buf_addf(variant,
		"/* Thread t: the row t / G and the group t %% G of KS_V outputs\n"
		"   along it; the window's rows and columns in registers (loaded\n"
		"   KS_VEC elements at a time, the first column KS_MIS elements after\n"
		"   an aligned one); then the body once per output. */\n"
		"template <int KS_KR, int KS_KC, int KS_S, int KS_V, int KS_VEC, int KS_MIS>\n"
		"__global__ void __launch_bounds__(%lld)\n"
		"ks_pl_%s(const dim3 ks_og, const dim3 ks_ob, const unsigned ks_nt,\n"
		"\tconst uint4 ks_dg, const uint4 ks_dr1, const uint4 ks_db,\n"
		"\tconst long long ks_nin, const int ks_vs, %s)\n"
		"{\n"
		"\tenum {\n"
		"\t\tKS_C = (KS_V - 1) * KS_S + KS_KC,\n"
		"\t\tKS_NC = KS_VEC > 1 ? (KS_MIS + KS_C + KS_VEC - 1) / KS_VEC * KS_VEC : KS_C\n"
		"\t};\n"
		"\tconst unsigned ks_t = blockIdx.x * %lldu + threadIdx.x;\n"
		"\n"
		"\tif (ks_t >= ks_nt)\n"
		"\t\treturn;\n"
		"\tconst unsigned ks_row = ks_pl_q(ks_t, ks_dg);\n"
		"\tconst unsigned ks_d0 = (ks_t - ks_row * ks_dg.x) * KS_V;\n"
		"\tconst unsigned ks_q1 = ks_pl_q(ks_row, ks_dr1);\n"
		"\tconst unsigned ks_d1 = ks_row - ks_q1 * ks_dr1.x;\n"
		"\tconst unsigned long long ks_r0 = (unsigned long long)%s;\n"
		"\tconst unsigned long long ks_n = (unsigned long long)ks_og.x * ks_ob.x;\n"
		"\tconst unsigned long long ks_g0 = ks_d0 + ks_r0 * ks_row;\n"
		"\n"
		"\tif (ks_g0 >= ks_n)\n"
		"\t\treturn;\n"
		"\tconst long long ks_base = %s * (long long)ks_q1 + %s * (long long)ks_d1 +\n"
		"\t\t(long long)KS_S * ks_d0 + %s - KS_MIS;\n"
		"\tconst long long ks_wr = %s;\n"
		"\t%s ks_win[KS_KR][KS_NC];\n"
		"\t/* the whole window inside the array (most threads): no test per load */\n"
		"\tconst bool ks_in = ks_base >= 0 && ks_wr >= 0 &&\n"
		"\t\tks_base + (KS_KR - 1) * ks_wr + KS_NC <= ks_nin;\n"
		"\n"
		"#pragma unroll\n"
		"\tfor (int ks_r = 0; ks_r < KS_KR; ks_r++) {\n"
		"\t\tconst long long ks_or = ks_base + ks_r * ks_wr;\n"
		"\n"
		"#pragma unroll\n"
		"\t\tfor (int ks_c = 0; ks_c < KS_NC; ks_c += KS_VEC) {\n"
		"\t\t\tconst long long ks_f = ks_or + ks_c;\n"
		"\n"
		"\t\t\tif (ks_in || (ks_f >= 0 && ks_f + KS_VEC <= ks_nin)) {\n"
		"\t\t\t\tks_pl_ld<KS_VEC>(%s + ks_f, &ks_win[ks_r][ks_c]);\n"
		"\t\t\t} else {\n"
		"#pragma unroll\n"
		"\t\t\t\tfor (int ks_e = 0; ks_e < KS_VEC; ks_e++)\n"
		"\t\t\t\t\tks_win[ks_r][ks_c + ks_e] = %s();\n"
		"\t\t\t}\n"
		"\t\t}\n"
		"\t}\n"
		"\n"
		"\t%s ks_o[KS_V];\n"
		"\tunsigned ks_m = 0;\n"
		"\tunsigned ks_b = ks_pl_q((unsigned)ks_g0, ks_db);\n"
		"\tunsigned ks_x = (unsigned)ks_g0 - ks_b * ks_ob.x;\n"
		"\n"
		"\t/* every output of the group exists (most groups): the bodies\n"
		"\t   without a test between them */\n"
		"\tconst bool ks_all = ks_d0 + KS_V <= ks_r0 && ks_g0 + KS_V <= ks_n;\n"
		"\n"
		"#pragma unroll\n"
		"\tfor (int ks_j = 0; ks_j < KS_V; ks_j++) {\n"
		"\t\tif (ks_all || (ks_d0 + ks_j < ks_r0 && ks_g0 + ks_j < ks_n))\n"
		"\t\t\tks_pl_body_%s<KS_KR, KS_NC>(make_uint3(ks_x, 0, 0), make_uint3(ks_b, 0, 0),\n"
		"\t\t\t\tks_ob, ks_og, ks_d0 + ks_j, ks_row, ks_d1, ks_q1, ks_win, ks_o, ks_m,\n"
		"\t\t\t\tks_j, KS_MIS + ks_j * KS_S, %s);\n"
		"\t\tif (++ks_x == ks_ob.x) {\n"
		"\t\t\tks_x = 0;\n"
		"\t\t\tks_b++;\n"
		"\t\t}\n"
		"\t}\n"
		"\tif (KS_V * sizeof(%s) %% 8 == 0 && ks_vs && ks_m == (1u << KS_V) - 1) {\n"
		"\t\tks_pl_st<KS_V>(%s + ks_g0, ks_o);\n"
		"\t} else {\n"
		"#pragma unroll\n"
		"\t\tfor (int ks_j = 0; ks_j < KS_V; ks_j++)\n"
		"\t\t\tif (ks_m >> ks_j & 1u)\n"
		"\t\t\t\t%s[ks_g0 + ks_j] = ks_o[ks_j];\n"
		"\t}\n"
		"}\n",
		bs, N, params.buf, bs, s.r0.buf, s.a1.buf, s.b1.buf, s.c0.buf,
		s.wr.buf, T, X, T, T, N, cargs.buf, T, Y, Y);

	/* the instances the launcher launches, instantiated where the
	   device code is compiled (the launcher is host code only) */
	for (size_t i = 0; i < s.ninst; i++)
		for (int vec = 1; vec <= 4; vec += 3)
			for (size_t mi = 0; mi < (vec > 1 ? sizeof(pl_mis) / sizeof(pl_mis[0]) : 1); mi++)
				if (vec == 1 || (vec_ok && (s.inst[i].s * vo) % 4 == 0))
					ks_buf_addf(variant,
						"template __global__ void ks_pl_%s<%lld, %lld, %lld, %lld, %d, %d>(\n"
						"\tconst dim3, const dim3, const unsigned, const uint4, const uint4,\n"
						"\tconst uint4, const long long, const int, %s);\n",
						N, s.inst[i].kr, s.inst[i].kc, s.inst[i].s, vo,
						vec, vec > 1 ? pl_mis[mi] : 0, params.buf);
	ks_buf_adds(variant, "// ks-nvcc: definition\n");
	if (ks_xfbody_definition(in->text, in->len, k, variant, reason))
		goto out;
	ks_buf_adds(variant, "// ks-nvcc: launcher\n");
	ks_buf_addf(variant,
		"#define KS_PL_V %lld\n"
		"#define KS_PL_B %lld\n"
		"static void\n"
		"ks_launch_%s(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,\n"
		"\t\t%s)\n"
		"{\n"
		"\tconst dim3 ks_ob = block, ks_og = grid;\n"
		"\tconst long long ks_n = (long long)grid.x * block.x;\n"
		"\tconst long long ks_r0 = %s, ks_r1 = %s;\n"
		"\tconst long long ks_lim = %s;\n"
		"\tconst long long ks_a1 = %s, ks_b1 = %s, ks_c0 = %s, ks_wr = %s;\n"
		"\tint ks_ok = 1;\n"
		"\n"
		"\t(void)ks_ob;\n"
		"\t(void)ks_og;\n",
		vo, bs, N, params.buf, s.r0.buf, s.r1.buf, s.limit.buf, s.a1.buf,
		s.b1.buf, s.c0.buf, s.wr.buf);
	ks_buf_addf(variant,
		"\t/* what the variant assumes, else the original: a 1-D launch of\n"
		"\t   fewer than 2^31 threads, divisors between 1 and 2^31, the\n"
		"\t   window's planes of a positive size */\n"
		"\tks_ok = ks_ok && grid.y == 1 && grid.z == 1 && block.y == 1 && block.z == 1 &&\n"
		"\t\t!shmem && ks_n > 0 && ks_n <= 0x7fffffffLL && ks_r0 > 0 &&\n"
		"\t\tks_r0 <= 0x7fffffffLL && ks_r1 > 0 && ks_r1 <= 0x7fffffffLL && ks_a1 > 0 &&\n"
		"\t\tks_lim > 0;\n"
		"\tif (ks_ok) {\n"
		"\t\tconst long long ks_g = (ks_r0 + KS_PL_V - 1) / KS_PL_V;\n"
		"\t\tconst long long ks_used = ks_lim < ks_n ? ks_lim : ks_n;\n"
		"\t\tconst long long ks_planes = (ks_used + ks_r0 * ks_r1 - 1) / (ks_r0 * ks_r1);\n"
		"\t\tconst long long ks_nt = (ks_n + ks_r0 * ks_r1 - 1) / (ks_r0 * ks_r1) * ks_r1 * ks_g;\n"
		"\t\tconst long long ks_nin = ks_planes * ks_a1;\n"
		"\t\tconst long long ks_mis = ((ks_c0 %% 4) + 4) %% 4;\n"
		"\t\tconst int ks_vs = KS_PL_V * sizeof(%s) >= 8 &&\n"
		"\t\t\tKS_PL_V * sizeof(%s) %% 8 == 0 && ks_r0 %% KS_PL_V == 0 &&\n"
		"\t\t\t(unsigned long long)%s %% (KS_PL_V * sizeof(%s) >= 16 ? 16 : 8) == 0;\n"
		"\t\tconst int ks_vl = %d && (unsigned long long)%s %% 16 == 0 &&\n"
		"\t\t\tks_a1 %% 4 == 0 && ks_b1 %% 4 == 0 && ks_wr %% 4 == 0 &&\n"
		"\t\t\tks_nin %% 4 == 0;\n"
		"\n"
		"\t\tif (ks_nt <= 0xffffffffLL && ks_g <= 0x7fffffffLL) {\n"
		"\t\t\tconst uint4 ks_dg = ks_pl_div_of((unsigned)ks_g);\n"
		"\t\t\tconst uint4 ks_dr1 = ks_pl_div_of((unsigned)ks_r1);\n"
		"\t\t\tconst uint4 ks_db = ks_pl_div_of(block.x);\n"
		"\t\t\tconst unsigned ks_nb = (unsigned)((ks_nt + KS_PL_B - 1) / KS_PL_B);\n",
		T, T, Y, T, vec_ok, X);
	for (size_t i = 0; i < s.ninst; i++) {
		const struct pl_inst *c = &s.inst[i];
		const int vl = vec_ok && (c->s * vo) % 4 == 0;

		ks_buf_adds(variant, "\n\t\t\t/* the window ");
		ks_buf_addf(variant, "%lld x %lld, stride %lld */\n\t\t\tif (1", c->kr,
			    c->kc, c->s);
		if (s.krow.param >= 0)
			ks_buf_addf(variant, " && (long long)%s == %lldLL",
				    k->params[s.krow.param].name, c->kr);
		if (s.kcol.param >= 0)
			ks_buf_addf(variant, " && (long long)%s == %lldLL",
				    k->params[s.kcol.param].name, c->kc);
		if (s.stride.param >= 0)
			ks_buf_addf(variant, " && (long long)%s == %lldLL",
				    k->params[s.stride.param].name, c->s);
		ks_buf_adds(variant, ") {\n");
		if (vl) {
			for (size_t mi = 0; mi < sizeof(pl_mis) / sizeof(pl_mis[0]); mi++) {
				ks_buf_addf(variant, "\t\t\t\tif (ks_vl && ks_mis == %d) {\n",
					    pl_mis[mi]);
				launch_one(variant, &s, c, args.buf, 4, pl_mis[mi],
					   "\t\t\t\t\t");
				ks_buf_adds(variant, "\t\t\t\t\treturn;\n\t\t\t\t}\n");
			}
			launch_one(variant, &s, c, args.buf, 1, 0, "\t\t\t\t");
			ks_buf_adds(variant, "\t\t\t\treturn;\n");
		} else {
			launch_one(variant, &s, c, args.buf, 1, 0, "\t\t\t\t");
			ks_buf_adds(variant, "\t\t\t\treturn;\n");
		}
		ks_buf_adds(variant, "\t\t\t}\n");
	}
	ks_buf_addf(variant,
		"\t\t}\n"
		"\t}\n"
		"\t%s<<<grid, block, shmem, stream>>>(%s);\n"
		"}\n"
		"#undef KS_PL_V\n"
		"#undef KS_PL_B\n",
		N, args.buf);
	res = KS_XF_APPLIED;
out:
	ks_buf_release(&body);
	ks_buf_release(&params);
	ks_buf_release(&args);
	ks_buf_release(&cargs);
	pl_release(&s);
	return res;
}

const struct ks_transform ks_xf_pool_window_rows = {
	.id = "pool_window_rows",
	.summary = "a sliding-window reduction with one thread per output makes "
		   "each thread produce several adjacent outputs of a row from "
		   "a window of its input held in registers",
	.precondition = "a 1-D kernel whose flat index is decomposed into a "
			"position along a row, a row (and a plane), that stores "
			"once at the flat index and reads one other array in "
			"two nested window loops at an offset affine in those "
			"coordinates with a constant or parameter stride, with "
			"an early exit of the flat index",
	.nparams = 2,
	.params = {
		{ "vo", "adjacent outputs of a row per thread", 4, 4,
		  { 4, 2, 8, 1 } },
		{ "block", "threads per block", 256, 3, { 256, 128, 512 } },
	},
	.apply = apply,
};
