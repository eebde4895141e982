/*
 * stencil_smem_halo: a stencil with one thread per output, its input read
 * at fixed neighbouring offsets, becomes a tiled one.
 *
 * Recognized in the facts: every global store goes to one array S at one
 * offset C, affine in the global thread indices gx, gy (and gz), one
 * element per step of gx (x is the fastest dimension), with the row
 * stride Sy and the plane stride Sz as single products of parameters;
 * an input array I, read only at C + dx + dy*Sy + dz*Sz where each of
 * dx, dy, dz is a constant or an affine function of a loop of constant
 * trip count (a radius loop: in[i + r * nx]); an early-exit bounds check
 * of the slowest coordinate against a uniform limit L (so I spans
 * L * stride elements, as the store does). Other loads are left as they
 * are. Four forms:
 *
 *   - streaming (stream=1, 2-D and 3-D): each thread walks `planes`
 *     steps of its own column along the slowest axis, the column's
 *     2 r + 1 values and `depth` steps of loads ahead in a ring of
 *     registers; reads off the column stay the kernel's own (L1 hits);
 *   - 2-D tile (C without gz): a block of bx x by threads computes bx x
 *     (by * rows) outputs from a shared tile with a halo of the radius
 *     in x and y, loaded once (corners only where the stencil reads a
 *     diagonal);
 *   - 3-D tile: a bx x by tile of the x-y plane walks `planes` planes
 *     along z; each thread keeps its column in the same ring, the
 *     plane's halo goes to a shared tile, both loaded `depth` planes
 *     ahead. The stencil must be a star along z (a read off the plane
 *     is on the thread's own column);
 *   - planes (stream=2, 2-D and 3-D): the 2.5-D blocking, see
 *     emit_plane.
 *
 * The kernel's own body then runs once per output at the original
 * grid's coordinates, its reads of I replaced by the tile and the
 * column: the arithmetic, its order and every boundary rule are the
 * kernel's own. A tile cell holds I at its flat offset when that is
 * inside [0, L * stride), so a read the original makes past the end of
 * a row (at the next row's start) reads the same value here.
 *
 * Ownership: everything is local to one apply() call.
 * May include: libc, core/, analysis/ (structs only), transform.h,
 * xfkit.h, xfbody.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/inventory.h"
#include "../core/buf.h"
#include "transform.h"
#include "xfbody.h"
#include "xfkit.h"
#include "xflane.h"

/* The largest radius along one axis the template takes. */
#define ST_MAX_R 8

static const struct ks_xfbody_rename renames[] = {
	{ "threadIdx", "ks_tid" },
	{ "blockIdx", "ks_bid" },
	{ "blockDim", "ks_bdim" },
	{ "gridDim", "ks_gdim" },
	{ NULL, NULL },
};

static const char helpers[] =
	"#ifndef KS_ST_HELPERS\n"
	"#define KS_ST_HELPERS\n"
	"/* q[i]: a select chain that folds to one register when i is a\n"
	"   constant after unrolling, and stays correct when it is not. */\n"
	"template <class ks_T, int ks_N> __device__ __forceinline__ static ks_T\n"
	"ks_st_q(const ks_T (&q)[ks_N], int i)\n"
	"{\n"
	"\tks_T v = q[0];\n"
	"#pragma unroll\n"
	"\tfor (int j = 1; j < ks_N; j++)\n"
	"\t\tif (j == i)\n"
	"\t\t\tv = q[j];\n"
	"\treturn v;\n"
	"}\n"
	"/* p[f] where 0 <= f < n, else 0 (a cell no read of the kernel\n"
	"   reaches). */\n"
	"template <class ks_T> __device__ __forceinline__ static ks_T\n"
	"ks_st_ld(const ks_T *p, long long f, long long n)\n"
	"{\n"
	"\treturn f >= 0 && f < n ? __ldg(p + f) : ks_T(0);\n"
	"}\n"
	"template <class ks_T> __device__ __forceinline__ static ks_T\n"
	"ks_st_ld(ks_T *p, long long f, long long n)\n"
	"{\n"
	"\treturn f >= 0 && f < n ? p[f] : ks_T(0);\n"
	"}\n"
	"/* A hint: the line of p[f] into L1 where 0 <= f < n (nothing on\n"
	"   the host, where the emulated kernel runs). */\n"
	"template <class ks_T> __device__ __forceinline__ static void\n"
	"ks_st_pf(const ks_T *p, long long f, long long n)\n"
	"{\n"
	"#ifdef __CUDA_ARCH__\n"
	"\tif (f >= 0 && f < n)\n"
	"\t\tasm volatile(\"prefetch.global.L1 [%0];\" : : \"l\"(p + f));\n"
	"#else\n"
	"\t(void)p;\n"
	"\t(void)f;\n"
	"\t(void)n;\n"
	"#endif\n"
	"}\n"
	"#endif\n"
	"\n";

/* A read of I: delta = k0 + kl * L (L the iteration of `loop`), per axis. */
struct st_read {
	int acc;
	long long k0[3], kl[3];
	int loop;		/* -1: constant offsets */
};

struct st {
	const struct ks_kernel *k;
	const struct ks_facts *f;
	struct ks_xfk x;
	int S, I;		/* arrays */
	int dims;		/* 2 or 3 */
	long long E;		/* element bytes */
	struct ks_mono sy, sz;	/* strides in elements (single monomials) */
	struct ks_form center;
	long long c0[3];	/* the store's fixed offset, per axis */
	struct st_read *reads;
	size_t nreads;
	int r[3];		/* radius per axis */
	int diag;		/* a read off both x and y at once */
	int limit_br;		/* the bounds check of the slowest axis */
	int limit_plus1;	/* its limit is the last index (y <= L) */
	/* The tile may hold zeros where the kernel reads the input (the
	 * limit is not shown to be the input's extent): outputs whose reads
	 * could leave the tiled elements run the kernel's own body. */
	int fallback;
	char *pre;		/* fallback: what the body functions call */
	unsigned offcol_line;	/* 3-D: a read off the column and the plane */
	char *loopvar[KS_MAX_LOOP_DEPTH];	/* per loop index, lazily */
};

static void
st_release(struct st *s)
{
	ks_xfk_release(&s->x);
	free(s->reads);
	free(s->pre);
	for (int i = 0; i < KS_MAX_LOOP_DEPTH; i++)
		free(s->loopvar[i]);
}

static int
is_global(const struct ks_facts *f, const struct ks_access *a)
{
	enum ks_space sp = f->arrays[a->array].space;

	return sp == KS_SPACE_GLOBAL || sp == KS_SPACE_UNKNOWN;
}

static int
mono_same(const struct ks_mono *a, const struct ks_mono *b)
{
	for (int i = 0; i < KS_MONO_SYMS; i++)
		if (a->sym[i] != b->sym[i])
			return 0;
	return 1;
}

static int
mono_const(const struct ks_mono *m)
{
	for (int i = 0; i < KS_MONO_SYMS; i++)
		if (m->sym[i])
			return 0;
	return 1;
}

/* The coefficient of source `s` of `c` as one monomial in elements:
 * bytes / E. 0 when it is zero, 1 when one monomial, -1 otherwise. */
static int
stride_of(const struct ks_form *c, enum ks_src s, long long E,
	  struct ks_mono *out)
{
	const struct ks_poly *p = &c->c[s];

	memset(out, 0, sizeof(*out));
	if (p->opaque)
		return -1;
	if (p->n == 0)
		return 0;
	if (p->n != 1 || p->m[0].k % E)
		return -1;
	*out = p->m[0];
	out->k /= E;
	return 1;
}

/* The multiple q of d > 0 nearest *c; *c becomes *c - q d. */
static long long
round_div(long long *c, long long d)
{
	long long q = *c >= 0 ? (*c + d / 2) / d : -((-*c + d / 2) / d);

	*c -= q * d;
	return q;
}

/* Split the byte polynomial p into a + b Sy + c Sz elements (k[0..2]).
 * Returns 0, or -1 when a monomial is none of those. */
static int
split(const struct st *s, const struct ks_poly *p, long long k[3])
{
	k[0] = k[1] = k[2] = 0;
	if (p->opaque)
		return -1;
	for (unsigned i = 0; i < p->n; i++) {
		const struct ks_mono *m = &p->m[i];
		long long q;

		if (mono_const(m)) {
			if (m->k % s->E)
				return -1;
			k[0] += m->k / s->E;
		} else if (mono_const(&s->sy)) {
			/* a constant row stride: a monomial with symbols can
			 * only be the plane stride */
			if (s->dims == 3 && !mono_const(&s->sz) &&
			    mono_same(m, &s->sz) && m->k % (s->E * s->sz.k) == 0)
				k[2] += m->k / (s->E * s->sz.k);
			else
				return -1;
		} else if (mono_same(m, &s->sy) && m->k % (s->E * s->sy.k) == 0) {
			k[1] += m->k / (s->E * s->sy.k);
		} else if (s->dims == 3 && mono_same(m, &s->sz) &&
			   m->k % (s->E * s->sz.k) == 0) {
			q = m->k / (s->E * s->sz.k);
			k[2] += q;
		} else {
			return -1;
		}
	}
	/* Constant strides sit among the constants: a + b Sy + c Sz with
	 * |a| and |b| within half a stride, the only split whose parts the
	 * template can take when the strides are as large as recognize
	 * checks (more than two radii). */
	if (s->dims == 3 && mono_const(&s->sz))
		k[2] += round_div(&k[0], s->sz.k);
	if (mono_const(&s->sy))
		k[1] += round_div(&k[0], s->sy.k);
	return 0;
}

/* The loop index at depth `d` enclosing loop `inner`, or -1. */
static int
loop_at_depth(const struct ks_facts *f, int inner, int d)
{
	for (int l = inner; l >= 0; l = f->loops[l].parent)
		if (f->loops[l].depth == d)
			return l;
	return -1;
}

/* The name of the variable a for-loop on `line` declares or assigns
 * first: `for (int r = 1; ...` gives "r". */
struct loopname {
	unsigned line;
	int state;		/* 0 before for, 1 after for, 2 after (, 3 done */
	unsigned long last_id_b, last_id_e;
	unsigned long name_b, name_e;
};

static int
find_loopname(const char *text, const struct ks_xfk_tok *t, void *ctx)
{
	struct loopname *ln = ctx;
	size_t n = t->end - t->begin;

	if (t->line != ln->line)
		return ln->state >= 1 && t->line > ln->line ? 1 : 0;
	switch (ln->state) {
	case 0:
		if (t->kind == 'i' && n == 3 && !memcmp(text + t->begin, "for", 3))
			ln->state = 1;
		return 0;
	case 1:
		if (t->kind == 'p' && n == 1 && text[t->begin] == '(') {
			ln->state = 2;
			return 0;
		}
		return 1;
	case 2:
		if (t->kind == 'i') {
			ln->last_id_b = t->begin;
			ln->last_id_e = t->end;
			return 0;
		}
		if (t->kind == 'p' && n == 1 && text[t->begin] == '=' &&
		    ln->last_id_e) {
			ln->name_b = ln->last_id_b;
			ln->name_e = ln->last_id_e;
			ln->state = 3;
			return 1;
		}
		if (t->kind == 'p' && n == 1 && text[t->begin] == '*')
			return 0;
		return 1;
	default:
		return 1;
	}
}

/* The C expression of loop `l`'s iteration number ("((r) - 1)"), or
 * NULL with the reason. */
static const char *
loop_iter(struct st *s, const struct ks_xf_input *in, int l,
	  struct ks_buf *reason)
{
	const struct ks_loop *lp = &s->f->loops[l];
	long long init, step;
	struct loopname ln;
	struct ks_buf b = KS_BUF_INIT;

	if (l >= KS_MAX_LOOP_DEPTH) {
		ks_buf_addf(reason, "too many loops (line %u)", lp->line);
		return NULL;
	}
	if (s->loopvar[l])
		return s->loopvar[l];
	if (lp->step_kind != KS_STEP_ADD || !lp->has_trip ||
	    !ks_form_is_const(&lp->init, &init) ||
	    !ks_form_is_const(&lp->step, &step) || step == 0) {
		ks_buf_addf(reason,
			    "the neighbourhood's extent depends on the loop on "
			    "line %u, which does not step by a constant from a "
			    "constant over a constant trip count",
			    lp->line);
		return NULL;
	}
	memset(&ln, 0, sizeof(ln));
	ln.line = lp->line;
	ks_xfk_scan(in->text, s->k->body.begin, s->k->body.end, s->k->body.line,
		    find_loopname, &ln);
	if (ln.state != 3) {
		ks_buf_addf(reason,
			    "the variable of the loop on line %u was not found "
			    "in a for header",
			    lp->line);
		return NULL;
	}
	ks_buf_adds(&b, "((");
	ks_buf_add(&b, in->text + ln.name_b, ln.name_e - ln.name_b);
	ks_buf_addf(&b, ") - (%lld))", init);
	if (step != 1)
		ks_buf_addf(&b, " / (%lld)", step);
	s->loopvar[l] = ks_buf_detach(&b, NULL);
	return s->loopvar[l];
}

/* Delta of read `r` along axis `a` as C ("(-1)", "(0 + 1 * ((r) - (1)))"). */
static void
delta_c(const struct st *s, const struct st_read *r, int a, struct ks_buf *o)
{
	if (r->loop < 0 || r->kl[a] == 0)
		ks_buf_addf(o, "(%lld)", r->k0[a]);
	else
		ks_buf_addf(o, "(%lld + %lld * %s)", r->k0[a], r->kl[a],
			    s->loopvar[r->loop]);
}

static int
axis_used(const struct st_read *r, int a)
{
	return r->k0[a] != 0 || (r->loop >= 0 && r->kl[a] != 0);
}

/* Recognize; fills s. Returns 0, or -1 with the reason. */
static int
recognize(struct st *s, const struct ks_xf_input *in, struct ks_buf *reason)
{
	const struct ks_kernel *k = in->kernel;
	const struct ks_facts *f = &k->facts;
	int C = -1;
	struct ks_mono one;

	s->k = k;
	s->f = f;
	s->S = s->I = -1;
	s->limit_br = -1;
	if (ks_xfbody_plain_kernel(k, 0, reason) || ks_xfk_init(&s->x, in, reason))
		return -1;
	for (size_t i = 0; i < f->nacc; i++)
		if (f->acc[i].flags & KS_ACC_ATOMIC) {
			ks_buf_addf(reason, "%s has atomics (line %u)", k->name,
				    f->acc[i].line);
			return -1;
		}
	/* the output: one array, one offset */
	for (size_t i = 0; i < f->nacc; i++) {
		const struct ks_access *a = &f->acc[i];

		if (!(a->flags & KS_ACC_STORE))
			continue;
		if (!is_global(f, a)) {
			ks_buf_addf(reason, "the store on line %u is not to global "
					    "memory",
				    a->line);
			return -1;
		}
		if (C < 0) {
			C = (int)i;
			continue;
		}
		if (a->array != f->acc[C].array ||
		    !ks_form_equal(&a->offset, &f->acc[C].offset)) {
			ks_buf_addf(reason,
				    "%s stores at more than one place (lines %u, "
				    "%u): not one output per thread",
				    k->name, f->acc[C].line, a->line);
			return -1;
		}
	}
	if (C < 0) {
		ks_buf_addf(reason, "%s stores nothing to global memory", k->name);
		return -1;
	}
	s->S = f->acc[C].array;
	s->center = f->acc[C].offset;
	s->E = f->acc[C].bytes;
	if (f->arrays[s->S].param < 0 || (f->acc[C].flags & KS_ACC_VECTOR) ||
	    !s->E) {
		ks_buf_addf(reason, "the store on line %u is not of a scalar "
				    "through a pointer parameter",
			    f->acc[C].line);
		return -1;
	}
	if (s->center.data || s->center.nonlinear ||
	    (ks_form_sources(&s->center) & KS_SRC_LOOP_MASK) ||
	    !ks_form_global_index_only(&s->center)) {
		ks_buf_addf(reason,
			    "the store on line %u is not at an offset affine in "
			    "the global thread indices alone",
			    f->acc[C].line);
		return -1;
	}
	{
		long long kx;

		if (!ks_form_coef_const(&s->center, KS_SRC_TID_X, &kx) ||
		    kx != s->E) {
			ks_buf_addf(reason,
				    "the store on line %u does not move by one "
				    "element along x (x is not the fastest "
				    "dimension)",
				    f->acc[C].line);
			return -1;
		}
	}
	{
		int hy = stride_of(&s->center, KS_SRC_TID_Y, s->E, &s->sy);
		int hz = stride_of(&s->center, KS_SRC_TID_Z, s->E, &s->sz);

		if (hy <= 0) {
			ks_buf_addf(reason,
				    "the store on line %u %s along y: not a 2-D or "
				    "3-D grid (1-D stencils are not covered)",
				    f->acc[C].line,
				    hy ? "has no single row stride" : "does not move");
			return -1;
		}
		if (hz < 0) {
			ks_buf_addf(reason,
				    "the store on line %u has no single plane stride",
				    f->acc[C].line);
			return -1;
		}
		s->dims = hz ? 3 : 2;
		memset(&one, 0, sizeof(one));
		/* constant strides (sizes fixed at compile time) are told
		 * apart by size: a row longer than two radii, a plane longer
		 * than two radii of rows */
		if (mono_same(&s->sy, &one) &&
		    (s->sy.k < 2 * ST_MAX_R + 2 ||
		     (s->dims == 3 && mono_same(&s->sz, &one) &&
		      s->sz.k < (2 * ST_MAX_R + 2) * s->sy.k))) {
			ks_buf_addf(reason,
				    "the strides of the store on line %u are "
				    "constants too small to tell the axes apart "
				    "(rows of %lld elements",
				    f->acc[C].line, s->sy.k);
			if (s->dims == 3)
				ks_buf_addf(reason, ", planes of %lld", s->sz.k);
			ks_buf_adds(reason, ")");
			return -1;
		}
		if ((s->dims == 3 && mono_same(&s->sz, &one) &&
		     !mono_same(&s->sy, &one)) ||
		    (!mono_same(&s->sy, &one) && s->dims == 3 &&
		     mono_same(&s->sz, &s->sy))) {
			ks_buf_addf(reason,
				    "the strides of the store on line %u are "
				    "equal, or the plane's a constant and the "
				    "row's not (the axes cannot be told apart)",
				    f->acc[C].line);
			return -1;
		}
	}
	/* an interior-only grid (x = ... + 1): the output's fixed offset */
	if (split(s, &s->center.c[KS_SRC_ONE], s->c0)) {
		ks_buf_addf(reason,
			    "the store on line %u has a fixed offset that is not "
			    "a combination of the row and plane strides",
			    f->acc[C].line);
		return -1;
	}
	/* the input: the thread-dependent global loads at neighbours */
	for (size_t i = 0; i < f->nacc; i++) {
		const struct ks_access *a = &f->acc[i];
		struct ks_form d;
		int nb = 0;

		if (!(a->flags & KS_ACC_LOAD) || !is_global(f, a) ||
		    !(ks_form_sources(&a->offset) & KS_SRC_THREAD_MASK))
			continue;
		if (a->array == s->S) {
			/* its own element, read before it is written, is no
			 * other thread's: that read stays as it is */
			if (ks_form_equal(&a->offset, &s->center))
				continue;
			ks_buf_addf(reason,
				    "%s reads its output array (line %u) at "
				    "another element than its own: an in-place "
				    "update",
				    k->name, a->line);
			return -1;
		}
		ks_form_sub(&d, &a->offset, &s->center);
		nb = !d.data && !d.nonlinear &&
		     !(ks_form_sources(&d) & KS_SRC_THREAD_MASK);
		if (!nb)
			continue;
		if (s->I < 0) {
			s->I = a->array;
		} else if (a->array != s->I) {
			/* another array read at the output's position: kept */
			continue;
		}
	}
	if (s->I < 0) {
		ks_buf_addf(reason,
			    "%s reads no array at fixed offsets from its output's "
			    "position: not a stencil",
			    k->name);
		return -1;
	}
	s->reads = calloc(f->nacc, sizeof(*s->reads));
	if (!s->reads)
		return -1;
	for (size_t i = 0; i < f->nacc; i++) {
		const struct ks_access *a = &f->acc[i];
		struct st_read *r = &s->reads[s->nreads];
		struct ks_form d;
		unsigned src;

		if (a->array != s->I)
			continue;
		if (a->flags & (KS_ACC_STORE | KS_ACC_VECTOR) ||
		    a->bytes != s->E) {
			ks_buf_addf(reason,
				    "the stencil's input %s is %s on line %u",
				    f->arrays[s->I].name,
				    a->flags & KS_ACC_STORE ? "stored to"
							    : "read as another type",
				    a->line);
			return -1;
		}
		if (!a->in_main || a->end <= a->begin || a->begin < k->body.begin ||
		    a->end > k->body.end) {
			ks_buf_addf(reason,
				    "the read of %s on line %u is not in the "
				    "kernel's text (a macro or a helper)",
				    f->arrays[s->I].name, a->line);
			return -1;
		}
		ks_form_sub(&d, &a->offset, &s->center);
		src = ks_form_sources(&d);
		if (d.data || d.nonlinear || (src & KS_SRC_THREAD_MASK)) {
			ks_buf_addf(reason,
				    "the read of %s on line %u is not at a fixed "
				    "offset from the output's position (it moves "
				    "with the thread differently%s)",
				    f->arrays[s->I].name, a->line,
				    d.data ? ", or depends on data" : "");
			return -1;
		}
		r->acc = (int)i;
		r->loop = -1;
		for (int ls = 0; ls < KS_MAX_LOOP_DEPTH; ls++) {
			const struct ks_poly *p = &d.c[KS_SRC_LOOP0 + ls];
			int l;

			if (!(src & KS_SRC_BIT(KS_SRC_LOOP0 + ls)))
				continue;
			if (r->loop >= 0) {
				ks_buf_addf(reason,
					    "the read on line %u moves with two "
					    "loops",
					    a->line);
				return -1;
			}
			l = loop_at_depth(f, a->loop, ls);
			if (l >= 0 && !loop_iter(s, in, l, reason))
				return -1;
			if (l < 0 || split(s, p, r->kl)) {
				ks_buf_addf(reason,
					    "the offset of the read on line %u is "
					    "not a combination of the row and "
					    "plane strides",
					    a->line);
				return -1;
			}
			r->loop = l;
		}
		if (split(s, &d.c[KS_SRC_ONE], r->k0)) {
			ks_buf_addf(reason,
				    "the offset of the read on line %u is not a "
				    "combination of the row and plane strides",
				    a->line);
			return -1;
		}
		for (int ax = 0; ax < s->dims; ax++) {
			long long lo = r->k0[ax], hi = r->k0[ax];

			if (r->loop >= 0) {
				long long e = r->k0[ax] +
					      r->kl[ax] * (f->loops[r->loop].trip - 1);

				lo = lo < e ? lo : e;
				hi = hi > e ? hi : e;
			}
			if (-lo > ST_MAX_R || hi > ST_MAX_R) {
				ks_buf_addf(reason,
					    "the read on line %u reaches more than "
					    "%d elements along %c",
					    a->line, ST_MAX_R, "xyz"[ax]);
				return -1;
			}
			if (-lo > s->r[ax])
				s->r[ax] = (int)-lo;
			if (hi > s->r[ax])
				s->r[ax] = (int)hi;
		}
		if (axis_used(r, 0) && axis_used(r, 1))
			s->diag = 1;
		if (s->dims == 3 && axis_used(r, 2) &&
		    (axis_used(r, 0) || axis_used(r, 1)) && !s->offcol_line)
			s->offcol_line = a->line;
		s->nreads++;
	}
	if (s->r[0] == 0 && s->r[1] == 0 && s->r[2] == 0) {
		ks_buf_addf(reason,
			    "%s reads %s only at its output's position: no "
			    "neighbours to share",
			    k->name, f->arrays[s->I].name);
		return -1;
	}
	if (f->arrays[s->I].param < 0) {
		ks_buf_addf(reason, "the stencil's input %s is not a pointer "
				    "parameter",
			    f->arrays[s->I].name);
		return -1;
	}
	/* the extent: an early exit on the slowest coordinate */
	{
		enum ks_src t = s->dims == 3 ? KS_SRC_TID_Z : KS_SRC_TID_Y;
		enum ks_src b = s->dims == 3 ? KS_SRC_BID_Z : KS_SRC_BID_Y;

		for (size_t i = 0; i < f->nbranches; i++) {
			const struct ks_branch *br = &f->branches[i];
			unsigned src = ks_form_sources(&br->subject);
			long long kt, c0;
			struct ks_form g = br->subject;

			if (br->kind != KS_BR_BOUNDS || br->loop >= 0 ||
			    !(br->early_exit ? br->cmp == KS_CMP_GE || br->cmp == KS_CMP_GT
					     : (br->cmp == KS_CMP_LT || br->cmp == KS_CMP_LE) &&
						       br->stmt == KS_BRS_IF &&
						       (br->joined & KS_BRJ_AND)) ||
			    src != (KS_SRC_BIT(t) | KS_SRC_BIT(b)) ||
			    !ks_form_coef_const(&br->subject, t, &kt) || kt != 1 ||
			    !ks_form_global_index_only(&br->subject))
				continue;
			memset(&g.c[t], 0, sizeof(g.c[t]));
			memset(&g.c[b], 0, sizeof(g.c[b]));
			if (!ks_form_is_const(&g, &c0) || c0 != 0 ||
			    !ks_form_is_uniform(&br->limit))
				continue;
			/* the first early exit, else the first guard */
			if (s->limit_br >= 0 &&
			    (f->branches[s->limit_br].early_exit || !br->early_exit))
				continue;
			s->limit_br = (int)i;
			s->limit_plus1 = br->cmp == KS_CMP_GT || br->cmp == KS_CMP_LE;
		}
		if (s->limit_br < 0) {
			ks_buf_addf(reason,
				    "%s bounds its slowest grid index itself by no "
				    "uniform limit, neither by an early exit 'if "
				    "(%c >= limit) return' nor by an if around the "
				    "work (the input's extent is unknown)",
				    k->name, s->dims == 3 ? 'z' : 'y');
			return -1;
		}
		/* The tile holds I below the limit's row and zeros past it,
		 * which is I where the limit is its extent: an early exit at
		 * a limit without a constant part (`y >= ny`). A guard around
		 * the work, or a limit short of the extent (`y >= ny - 1`,
		 * then a read at y + 1; a size that is a constant, which
		 * cannot be told from one), and the outputs near the tiled
		 * elements' ends run the kernel's own body. */
		{
			const struct ks_branch *br = &f->branches[s->limit_br];
			const struct ks_poly *p = &br->limit.c[KS_SRC_ONE];

			s->fallback = !br->early_exit;
			for (unsigned i = 0; i < p->n; i++)
				if (mono_const(&p->m[i]) && p->m[i].k)
					s->fallback = 1;
		}
	}
	return 0;
}

/* Check that every mention of I in the body is one of the reads. */
struct mention {
	const struct st *s;
	const char *name;
	size_t n;
	unsigned bad_line;
};

static int
check_mention(const char *text, const struct ks_xfk_tok *t, void *ctx)
{
	struct mention *m = ctx;

	if (t->kind != 'i' || t->end - t->begin != m->n ||
	    memcmp(text + t->begin, m->name, m->n))
		return 0;
	for (size_t i = 0; i < m->s->nreads; i++)
		if (m->s->f->acc[m->s->reads[i].acc].begin == t->begin)
			return 0;
	m->bad_line = t->line;
	return 1;
}

static int
edit_cmp(const void *a, const void *b)
{
	const struct ks_xfbody_edit *x = a, *y = b;

	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	return 0;
}

static int
poly_c(struct st *s, const struct ks_poly *p, struct ks_buf *out)
{
	struct ks_form g;

	ks_form_zero(&g);
	g.c[KS_SRC_ONE] = *p;
	return ks_xfk_form_c(&s->x, &g, NULL, NULL, "ks_o", out);
}

/* The launcher: the helper kernel's grid over the original grid's
 * threads, a block covering cx columns, cy rows and (3-D) cz steps along
 * z; the original for a grid it cannot cover (or, 2-D, with layers in
 * z). `what` names what covers the grid in the comment. */
static void
launcher(struct ks_buf *o, int three, const char *what, long long cx,
	 long long cy, long long cz, const char *kname, const char *params,
	 const char *args, long long bx, long long by)
{
	ks_xfbody_launcher_open(o, kname, params, 3);
	ks_buf_adds(o, "\n");
	if (three)
		ks_buf_addf(o,
			"\t/* a grid the %s cannot cover: the original */\n"
			"\tif (!ks_nx || !ks_ny || !ks_nz || ks_nx > 0xffffff00ull ||\n"
			"\t    ks_ny > 65535ull * %lld || ks_nz > 65535ull * %lld) {\n"
			"\t\t%s<<<grid, block, shmem, stream>>>(%s);\n"
			"\t\treturn;\n"
			"\t}\n"
			"\tks_st_%s<<<dim3((unsigned)((ks_nx + %lld) / %lld), (unsigned)((ks_ny + %lld) / %lld),\n"
			"\t\t\t     (unsigned)((ks_nz + %lld) / %lld)),\n"
			"\t\t   dim3(%lld, %lld), 0, stream>>>(grid, block, %s);\n"
			"}\n",
			what, cy, cz, kname, args, kname, cx - 1, cx, cy - 1, cy,
			cz - 1, cz, bx, by, args);
	else
		ks_buf_addf(o,
			"\t/* a grid the %s cannot cover, or layers in z: the original */\n"
			"\tif (!ks_nx || !ks_ny || ks_nz != 1 || ks_nx > 0xffffff00ull ||\n"
			"\t    ks_ny > 0xffffff00ull || (ks_ny + %lld) / %lld > 65535ull) {\n"
			"\t\t%s<<<grid, block, shmem, stream>>>(%s);\n"
			"\t\treturn;\n"
			"\t}\n"
			"\tks_st_%s<<<dim3((unsigned)((ks_nx + %lld) / %lld), (unsigned)((ks_ny + %lld) / %lld)),\n"
			"\t\t   dim3(%lld, %lld), 0, stream>>>(grid, block, %s);\n"
			"}\n",
			what, cy - 1, cy, kname, args, kname, cx - 1, cx, cy - 1,
			cy, bx, by, args);
}

/* The streaming form: each thread walks `planes` steps of its own column
 * along the slowest axis, the column's 2 rs + 1 values and `depth` steps
 * of loads ahead in a ring of registers; reads off the column stay the
 * kernel's own global reads (their lines are in L1 from the neighbours'
 * column loads). The step loop is unrolled by the ring's length so that
 * every ring slot is one register and no move waits on a load in flight.
 * Appends the kernel, the definition and the launcher. */
static int
emit_stream(const struct st *s, const struct ks_xf_input *in,
	    const char *T, const char *iname, const char *params,
	    const char *args, const struct ks_buf *body, const char *csy,
	    const char *csz, const char *clim, long long bx, long long by,
	    long long planes, long long depth, long long minb, long long vx,
	    struct ks_buf *variant, struct ks_buf *reason)
{
	struct ks_buf pfs = KS_BUF_INIT;

	const char *kname = s->k->name;
	const int three = s->dims == 3;
	const long long rs = s->r[s->dims - 1], qw = 2 * rs + 1,
			ql = qw + depth;
	const char ax = three ? 'z' : 'y';

	ks_buf_addf(variant, "// %s: %d-D stencil of radius %d/%d", kname,
		    s->dims, s->r[0], s->r[1]);
	if (three)
		ks_buf_addf(variant, "/%d", s->r[2]);
	ks_buf_addf(variant,
		    " streamed along %c: %lldx%lld threads, each a column of "
		    "%lld steps, its %lld values and %lld steps of loads ahead "
		    "in registers, other reads global (stencil_smem_halo, "
		    "stream=1)\n",
		    ax, bx, by, planes, qw, depth);
	ks_buf_adds(variant, "// ks-nvcc: helpers\n");
	ks_buf_adds(variant, helpers);
	if (s->pre)
		ks_buf_adds(variant, s->pre);
	ks_buf_addf(variant,
		    "/* The body of %s at thread ks_tid of block ks_bid, its reads "
		    "of %s along %c\n   from the column ks_q (ks_q[%lld] the "
		    "output's own). */\n"
		    "__device__ __forceinline__ static void\n"
		    "ks_st_body_%s(const uint3 ks_tid, const uint3 ks_bid, "
		    "const dim3 ks_bdim, const dim3 ks_gdim,\n\tconst %s "
		    "(&ks_q)[%lld], %s)\n",
		    kname, iname, ax, rs, kname, T, qw, params);
	ks_buf_add(variant, body->buf, body->len);
	ks_buf_adds(variant, "\n\n");
	ks_buf_addf(variant,
		"/* %lldx%lld threads over the original grid's global indices (ks_og\n"
		"   blocks of ks_ob threads), each walking %lld steps along %c. */\n"
		"__global__ void __launch_bounds__(%lld, %lld)\n"
		"ks_st_%s(const dim3 ks_og, const dim3 ks_ob, %s)\n"
		"{\n"
		"\tconst long long ks_sy = %s, ks_sz = %s;\n"
		"\t/* the elements the bounds checks span; the output's fixed offset */\n"
		"\tconst long long ks_n = (long long)(%s) * %s;\n"
		"\tconst long long ks_c0 = %lldLL + %lldLL * ks_sy + %lldLL * ks_sz;\n"
		"\tconst unsigned ks_cx = ks_og.x * ks_ob.x, ks_cy = ks_og.y * ks_ob.y;\n"
		"\t/* this thread's %lld columns: x = ks_gx0 + ks_v * %lld */\n"
		"\tconst unsigned ks_gx0 = blockIdx.x * %lldu + threadIdx.x;\n"
		"\tunsigned ks_tx[%lld], ks_bx[%lld];\n"
		"\tbool ks_mine[%lld];\n"
		"\tlong long ks_f[%lld];\n",
		bx, by, planes, ax, bx * by, minb, kname, params, csy, csz, clim,
		three ? "ks_sz" : "ks_sy", s->c0[0], s->c0[1], s->c0[2], vx, bx,
		bx * vx, vx, vx, vx, vx);
	if (three)
		ks_buf_addf(variant,
			"\tconst unsigned ks_gy = blockIdx.y * %lldu + threadIdx.y;\n"
			"\tconst unsigned ks_ty = ks_gy %% ks_ob.y, ks_by = ks_gy / ks_ob.y;\n"
			"\tconst long long ks_cs = (long long)ks_og.z * ks_ob.z;\n"
			"\tconst long long ks_s0 = (long long)blockIdx.z * %lld;\n"
			"\tconst long long ks_ss = ks_sz;\n"
			"\tconst unsigned ks_os = ks_ob.z;\n",
			by, planes);
	else
		ks_buf_addf(variant,
			"\tconst long long ks_cs = ks_cy;\n"
			"\tconst long long ks_s0 = ((long long)blockIdx.y * %lld + threadIdx.y) * %lld;\n"
			"\tconst unsigned ks_gy = 0;\n"
			"\tconst long long ks_ss = ks_sy;\n"
			"\tconst unsigned ks_os = ks_ob.y;\n"
			"\n"
			"\t(void)ks_sz;\n"
			"\t(void)ks_cy;\n",
			by, planes);
	ks_buf_addf(variant,
		"\n"
		"#pragma unroll\n"
		"\tfor (int ks_v = 0; ks_v < %lld; ks_v++) {\n"
		"\t\tconst unsigned ks_gx = ks_gx0 + ks_v * %lldu;\n"
		"\n"
		"\t\tks_tx[ks_v] = ks_gx %% ks_ob.x;\n"
		"\t\tks_bx[ks_v] = ks_gx / ks_ob.x;\n"
		"\t\tks_mine[ks_v] = ks_gx < ks_cx%s;\n"
		"\t\tks_f[ks_v] = ks_c0 + (long long)ks_gx + ks_sy * ks_gy;\n"
		"\t}\n",
		vx, bx, three ? " && ks_gy < ks_cy" : "");
	/* the halo lines the reads off the column will want, depth steps
	   ahead: at a block's edge they are L1 misses the body would wait on */
	if (s->r[0])
		ks_buf_addf(&pfs,
			"\t\t\tks_st_pf(%s, ks_f[0] + ks_ss * (ks_p + %lld) - %d, ks_n);\n"
			"\t\t\tks_st_pf(%s, ks_f[%lld] + ks_ss * (ks_p + %lld) + %d, ks_n);\n",
			iname, rs + depth, s->r[0], iname, vx - 1, rs + depth,
			s->r[0]);
	if (three && s->r[1])
		ks_buf_addf(&pfs,
			"#pragma unroll\n"
			"\t\t\tfor (int ks_v = 0; ks_v < %lld; ks_v++) {\n"
			"\t\t\t\tif (threadIdx.y < %du)\n"
			"\t\t\t\t\tks_st_pf(%s, ks_f[ks_v] + ks_ss * (ks_p + %lld) - %d * ks_sy, ks_n);\n"
			"\t\t\t\tif (threadIdx.y + %du >= %lldu)\n"
			"\t\t\t\t\tks_st_pf(%s, ks_f[ks_v] + ks_ss * (ks_p + %lld) + %d * ks_sy, ks_n);\n"
			"\t\t\t}\n",
			vx, s->r[1], iname, rs + depth, s->r[1], s->r[1], by, iname,
			rs + depth, s->r[1]);
	ks_buf_addf(variant,
		"\tif (ks_s0 >= ks_cs)\n"
		"\t\treturn;\n"
		"\tconst long long ks_send = ks_s0 + %lld < ks_cs ? ks_s0 + %lld : ks_cs;\n"
		"\tunsigned ks_ts = (unsigned)(ks_s0 %% ks_os), ks_bs = (unsigned)(ks_s0 / ks_os);\n"
		"\t/* the ring: slot (p - ks_s0 + %lld) %% %lld holds the column at step p */\n"
		"\t%s ks_q[%lld][%lld];\n"
		"\n"
		"#pragma unroll\n"
		"\tfor (int ks_v = 0; ks_v < %lld; ks_v++) {\n"
		"#pragma unroll\n"
		"\t\tfor (int ks_j = 0; ks_j < %lld; ks_j++)\n"
		"\t\t\tks_q[ks_v][ks_j] = ks_st_ld(%s, ks_f[ks_v] + ks_ss * (ks_s0 - %lld + ks_j), ks_n);\n"
		"\t\tks_q[ks_v][%lld] = %s(0);\n"
		"\t}\n"
		"\tfor (long long ks_s = ks_s0; ks_s < ks_send; ks_s += %lld) {\n"
		"#pragma unroll\n"
		"\t\tfor (int ks_u = 0; ks_u < %lld; ks_u++) {\n"
		"\t\t\tconst long long ks_p = ks_s + ks_u;\n"
		"\n"
		"\t\t\tif (ks_p >= ks_send)\n"
		"\t\t\t\tbreak;\n"
		"\t\t\t/* %lld steps ahead: in flight during the next bodies */\n"
		"#pragma unroll\n"
		"\t\t\tfor (int ks_v = 0; ks_v < %lld; ks_v++)\n"
		"\t\t\t\tks_q[ks_v][(ks_u + %lld) %% %lld] = ks_st_ld(%s, ks_f[ks_v] + ks_ss * (ks_p + %lld), ks_n);\n"
		"%s"
		"#pragma unroll\n"
		"\t\t\tfor (int ks_v = 0; ks_v < %lld; ks_v++) {\n"
		"\t\t\t\t%s ks_w[%lld];\n"
		"\n"
		"#pragma unroll\n"
		"\t\t\t\tfor (int ks_j = 0; ks_j < %lld; ks_j++)\n"
		"\t\t\t\t\tks_w[ks_j] = ks_q[ks_v][(ks_u + ks_j) %% %lld];\n"
		"\t\t\t\tif (ks_mine[ks_v])\n"
		"\t\t\t\t\tks_st_body_%s(make_uint3(ks_tx[ks_v], %s),\n"
		"\t\t\t\t\t\tmake_uint3(ks_bx[ks_v], %s), ks_ob, ks_og, ks_w, %s);\n"
		"\t\t\t}\n"
		"\t\t\tif (++ks_ts == ks_os) {\n"
		"\t\t\t\tks_ts = 0;\n"
		"\t\t\t\tks_bs++;\n"
		"\t\t\t}\n"
		"\t\t}\n"
		"\t}\n"
		"}\n",
		planes, planes, rs, ql, T, vx, ql, vx, ql - 1, iname, rs, ql - 1,
		T, ql, ql, depth, vx, ql - 1, ql, iname, rs + depth, pfs.buf ? pfs.buf : "", vx, T, qw, qw,
		ql, kname,
		three ? "ks_ty, ks_ts" : "ks_ts, 0", three ? "ks_by, ks_bs" : "ks_bs, 0",
		args);
	ks_buf_release(&pfs);
	ks_buf_adds(variant, "// ks-nvcc: definition\n");
	if (ks_xfbody_definition(in->text, in->len, s->k, variant, reason))
		return -1;
	launcher(variant, three, "threads", bx * vx, three ? by : by * planes,
		 planes, kname, params, args, bx, by);
	return 0;
}

/* Int overloads of ks_st_ld for the plane form: one unsigned compare and
   a 32-bit offset from the array's base (the launcher picks them where
   every offset fits). */
static const char helpers_i[] =
	"#ifndef KS_ST_HELPERS_I\n"
	"#define KS_ST_HELPERS_I\n"
	"template <class ks_T> __device__ __forceinline__ static ks_T\n"
	"ks_st_ld(const ks_T *p, int f, int n)\n"
	"{\n"
	"\treturn (unsigned)f < (unsigned)n ? __ldg(p + f) : ks_T(0);\n"
	"}\n"
	"template <class ks_T> __device__ __forceinline__ static ks_T\n"
	"ks_st_ld(ks_T *p, int f, int n)\n"
	"{\n"
	"\treturn (unsigned)f < (unsigned)n ? p[f] : ks_T(0);\n"
	"}\n"
	"#endif\n"
	"\n";

/* The plane form (stream=2; 2.5-D blocking): a block walks `planes`
 * steps along the slowest axis (3-D: the whole bx x by tile walks z;
 * 2-D: each row of threads walks its own rows). Each step writes the
 * new plane (3-D: the x-y tile with its halo; 2-D: the row with its x
 * halo) into one of two shared buffers, one barrier, and the body reads
 * the plane from there and the slowest axis from the thread's column,
 * a ring of registers loaded `depth` steps ahead (the halo too); a read
 * off both (a box's) stays the kernel's own global read. The
 * kernel is a template on its offset type: the launcher picks int where
 * every offset it forms fits, so a load is one compare and one 32-bit
 * offset from the input's base. Appends kernel, definition, launcher. */
static int
emit_plane(const struct st *s, const struct ks_xf_input *in,
	   const char *T, const char *iname, const char *params,
	   const char *args, const struct ks_buf *body, const char *csy,
	   const char *csz, const char *clim, long long bx, long long by,
	   long long planes, long long depth, long long minb, long long vx,
	   struct ks_buf *variant, struct ks_buf *reason)
{
	const char *kname = s->k->name;
	const int three = s->dims == 3;
	const long long rx = s->r[0], ry = three ? s->r[1] : 0;
	const long long rs = s->r[s->dims - 1], qn = 2 * rs + 1;
	const long long st = depth > 2 ? depth : 2;
	const long long ql = (qn + depth + st - 1) / st * st;
	/* a thread's vx columns bx apart: the block's bxe columns */
	const long long bxe = bx * vx;
	const long long tw = bxe + 2 * rx, th = by + 2 * ry, nt = bx * by;
	const long long wb = s->diag ? tw : bxe, xo = s->diag ? 0 : rx;
	/* halo cells: 3-D the bands above and below (ry rows of wb) and the
	   sides (by rows of 2 rx); 2-D the 2 rx cells of each thread row,
	   loaded by that row's first threads */
	const long long nh = three ? 2 * ry * wb + 2 * by * rx : 2 * rx;
	const long long ns = three ? (nh + nt - 1) / nt : nh > 0;
	const char ax = three ? 'z' : 'y';
	/* 2-D rows of one warp each: a warp barrier is enough */
	const char *sync = !three && bx == 32 ? "__syncwarp()" : "__syncthreads()";

	ks_buf_addf(variant,
		    "// %s: %d-D stencil of radius %d/%d", kname, s->dims,
		    s->r[0], s->r[1]);
	if (three)
		ks_buf_addf(variant, "/%d", s->r[2]);
	ks_buf_addf(variant,
		    " walking %c in planes: %lldx%lld threads (%lld columns "
		    "each), %lld steps, "
		    "each plane once into one of two shared %lldx%lld buffers, "
		    "the %c column in %lld registers with %lld steps of loads "
		    "ahead (stencil_smem_halo, stream=2)\n",
		    ax, bx, by, vx, planes, three ? th : by, tw, ax, vx * ql,
		    depth);
	ks_buf_adds(variant, "// ks-nvcc: helpers\n");
	ks_buf_adds(variant, helpers);
	ks_buf_adds(variant, helpers_i);
	if (s->pre)
		ks_buf_adds(variant, s->pre);
	ks_buf_addf(variant,
		    "/* The body of %s at thread ks_tid of block ks_bid, its reads "
		    "of %s in the plane\n   from the tile at (ks_lx, ks_ly), "
		    "along %c from the column ks_q (ks_q[%lld] the output's "
		    "own). */\n"
		    "__device__ __forceinline__ static void\n"
		    "ks_st_body_%s(const uint3 ks_tid, const uint3 ks_bid, "
		    "const dim3 ks_bdim, const dim3 ks_gdim,\n\tconst %s "
		    "(*ks_t)[%lld], const int ks_lx, const int ks_ly, const %s "
		    "(&ks_q)[%lld], %s)\n",
		    kname, iname, ax, rs, kname, T, tw, T, qn, params);
	ks_buf_add(variant, body->buf, body->len);
	ks_buf_adds(variant, "\n\n");
	ks_buf_addf(variant,
		"/* %lldx%lld threads over the original grid's global indices (ks_og\n"
		"   blocks of ks_ob threads), %lld steps along %c; ks_I the offset type. */\n"
		"template <class ks_I>\n"
		"__global__ void __launch_bounds__(%lld, %lld)\n"
		"ks_st_%s(const dim3 ks_og, const dim3 ks_ob, %s)\n"
		"{\n"
		"\t__shared__ %s ks_t[2][%lld][%lld];\n"
		"\tconst ks_I ks_sy = (ks_I)(%s), ks_sz = (ks_I)(%s);\n"
		"\t/* the elements the bounds checks span; the output's fixed offset */\n"
		"\tconst ks_I ks_n = (ks_I)(%s) * %s;\n"
		"\tconst ks_I ks_c0 = (ks_I)%lld + (ks_I)%lld * ks_sy + (ks_I)%lld * ks_sz;\n"
		"\tconst unsigned ks_cx = ks_og.x * ks_ob.x, ks_cy = ks_og.y * ks_ob.y;\n"
		"\tconst unsigned ks_x0 = blockIdx.x * %lldu;\n"
		"\t/* this thread's columns: x = ks_gx + v * %lld, tile column ks_lx + v * %lld */\n"
		"\tconst unsigned ks_gx = ks_x0 + threadIdx.x;\n"
		"\tconst int ks_lx = threadIdx.x + %lld;\n"
		"\tconst int ks_tid = threadIdx.y * %lld + threadIdx.x;\n"
		"\tunsigned ks_tx[%lld], ks_bx[%lld];\n"
		"\tbool ks_mx[%lld];\n"
		"\n"
		"\t(void)ks_tid;\n"
		"#pragma unroll\n"
		"\tfor (int ks_v = 0; ks_v < %lld; ks_v++) {\n"
		"\t\tks_tx[ks_v] = (ks_gx + ks_v * %lldu) %% ks_ob.x;\n"
		"\t\tks_bx[ks_v] = (ks_gx + ks_v * %lldu) / ks_ob.x;\n"
		"\t\tks_mx[ks_v] = ks_gx + ks_v * %lldu < ks_cx;\n"
		"\t}\n",
		bx, by, planes, ax, nt, minb, kname, params, T, three ? th : by,
		tw, csy, csz, clim, three ? "ks_sz" : "ks_sy", s->c0[0], s->c0[1],
		s->c0[2], bxe, bx, bx, rx, bx, vx, vx, vx, vx, bx, bx, bx);
	if (three)
		ks_buf_addf(variant,
			"\tconst unsigned ks_y0 = blockIdx.y * %lldu;\n"
			"\tconst unsigned ks_gy = ks_y0 + threadIdx.y;\n"
			"\tconst unsigned ks_ty = ks_gy %% ks_ob.y, ks_by = ks_gy / ks_ob.y;\n"
			"\tconst int ks_ly = threadIdx.y + %lld;\n"
			"\tconst bool ks_mine = ks_gy < ks_cy;\n"
			"\tconst long long ks_cs = (long long)ks_og.z * ks_ob.z;\n"
			"\t/* this thread's first step; the block's (all its threads') */\n"
			"\tconst long long ks_s0 = (long long)blockIdx.z * %lld, ks_sb = ks_s0;\n"
			"\tconst ks_I ks_ss = ks_sz;\n"
			"\tconst unsigned ks_os = ks_ob.z;\n"
			"\t/* the flat offsets of this thread's column and of the tile's\n"
			"\t   cell (0, 0), at the first step */\n"
			"\tconst ks_I ks_fc = ks_c0 + (ks_I)ks_gx + ks_sy * (ks_I)ks_gy + ks_ss * (ks_I)ks_s0;\n"
			"\tconst ks_I ks_o0 = ks_c0 + (ks_I)ks_x0 - %lld + ks_sy * ((ks_I)ks_y0 - %lld) + ks_ss * (ks_I)ks_s0;\n",
			by, ry, planes, rx, ry);
	else
		ks_buf_addf(variant,
			"\tconst int ks_ly = threadIdx.y;\n"
			"\tconst bool ks_mine = true;\n"
			"\tconst long long ks_cs = ks_cy;\n"
			"\t/* this thread row's first step; the block's (its first row's) */\n"
			"\tconst long long ks_s0 = ((long long)blockIdx.y * %lld + threadIdx.y) * %lld;\n"
			"\tconst long long ks_sb = (long long)blockIdx.y * %lld;\n"
			"\tconst ks_I ks_ss = ks_sy;\n"
			"\tconst unsigned ks_os = ks_ob.y;\n"
			"\t/* the flat offsets of this thread's column and of its row's\n"
			"\t   cell 0, at the first step */\n"
			"\tconst ks_I ks_fc = ks_c0 + (ks_I)ks_gx + ks_ss * (ks_I)ks_s0;\n"
			"\tconst ks_I ks_o0 = ks_c0 + (ks_I)ks_x0 - %lld + ks_ss * (ks_I)ks_s0;\n"
			"\n"
			"\t(void)ks_sz;\n"
			"\t(void)ks_cy;\n",
			by, planes, by * planes, rx);
	ks_buf_addf(variant,
		"\tif (ks_sb >= ks_cs)\n"
		"\t\treturn;\n"
		"\t/* the steps of the block, and of this thread (a uniform count) */\n"
		"\tconst int ks_nst = (int)(ks_cs - ks_sb < %lld ? ks_cs - ks_sb : %lld);\n"
		"\tconst int ks_kend = ks_s0 >= ks_cs ? 0 : (int)(ks_cs - ks_s0 < %lld ? ks_cs - ks_s0 : %lld);\n"
		"\tunsigned ks_ts = (unsigned)(ks_s0 %% ks_os), ks_bs = (unsigned)(ks_s0 / ks_os);\n"
		"\t/* the ring: slot (k + %lld) %% %lld holds the column at step k */\n"
		"\t%s ks_q[%lld][%lld];\n",
		planes, planes, planes, planes, rs, ql, T, vx, ql);
	if (ns)
		ks_buf_addf(variant,
			"\t/* this thread's halo cells: buffer cell (-1: none), flat offset at\n"
			"\t   the first step, the value of step k in stage k %% %lld */\n"
			"\tint ks_hs[%lld];\n"
			"\tks_I ks_ho[%lld];\n"
			"\t%s ks_h[%lld][%lld];\n",
			depth, ns, ns, T, depth, ns);
	if (ns && three)
		ks_buf_addf(variant,
			"\n"
			"#pragma unroll\n"
			"\tfor (int ks_s = 0; ks_s < %lld; ks_s++) {\n"
			"\t\tconst int ks_c = ks_tid + ks_s * %lld;\n"
			"\t\tint ks_cy_, ks_cx_;\n"
			"\n"
			"\t\tif (ks_c < %lld) {\n"
			"\t\t\tks_cy_ = ks_c / %lld;\n"
			"\t\t\tks_cx_ = %lld + ks_c %% %lld;\n"
			"\t\t} else if (ks_c < %lld) {\n"
			"\t\t\tks_cy_ = %lld + (ks_c - %lld) / %lld;\n"
			"\t\t\tks_cx_ = %lld + (ks_c - %lld) %% %lld;\n"
			"\t\t} else {\n"
			"\t\t\tconst int ks_e = (ks_c - %lld) %% %lld;\n"
			"\n"
			"\t\t\tks_cy_ = %lld + (ks_c - %lld) / %lld;\n"
			"\t\t\tks_cx_ = ks_e < %lld ? ks_e : %lld + ks_e;\n"
			"\t\t}\n"
			"\t\tks_hs[ks_s] = ks_c < %lld ? ks_cy_ * %lld + ks_cx_ : -1;\n"
			"\t\tks_ho[ks_s] = ks_o0 + (ks_I)ks_cx_ + ks_sy * (ks_I)ks_cy_;\n"
			"\t}\n",
			ns, nt, ry * wb, wb > 0 ? wb : 1, xo, wb > 0 ? wb : 1,
			2 * ry * wb, ry + by, ry * wb, wb > 0 ? wb : 1, xo, ry * wb,
			wb > 0 ? wb : 1, 2 * ry * wb, rx > 0 ? 2 * rx : 1, ry,
			2 * ry * wb, rx > 0 ? 2 * rx : 1, rx, bxe, nh, tw);
	else if (ns)
		ks_buf_addf(variant,
			"\n"
			"\tks_hs[0] = (int)threadIdx.x < %lld ? ks_ly * %lld + ((int)threadIdx.x < %lld ? (int)threadIdx.x : %lld + (int)threadIdx.x) : -1;\n"
			"\tks_ho[0] = ks_o0 + (ks_I)(ks_hs[0] - ks_ly * %lld);\n",
			2 * rx, tw, rx, bxe, tw);
	ks_buf_addf(variant,
		"\t/* the column and the halos of the first %lld steps; then each\n"
		"\t   step's loads are in flight during the next %lld steps' bodies */\n"
		"#pragma unroll\n"
		"\tfor (int ks_v = 0; ks_v < %lld; ks_v++)\n"
		"#pragma unroll\n"
		"\t\tfor (int ks_j = 0; ks_j < %lld; ks_j++)\n"
		"\t\t\tks_q[ks_v][ks_j] = ks_st_ld(%s, ks_fc + (ks_I)(ks_v * %lld) + ks_ss * (ks_I)(ks_j - %lld), ks_n);\n",
		depth, depth, vx, qn + depth - 1, iname, bx, rs);
	if (ns)
		ks_buf_addf(variant,
			"#pragma unroll\n"
			"\tfor (int ks_d = 0; ks_d < %lld; ks_d++)\n"
			"#pragma unroll\n"
			"\t\tfor (int ks_s = 0; ks_s < %lld; ks_s++)\n"
			"\t\t\tks_h[ks_d][ks_s] = ks_hs[ks_s] >= 0 ? ks_st_ld(%s, ks_ho[ks_s] + ks_ss * (ks_I)ks_d, ks_n) : %s(0);\n",
			depth, ns, iname, T);
	ks_buf_addf(variant,
		"\tfor (int ks_k0 = 0; ks_k0 < ks_nst; ks_k0 += %lld) {\n"
		"#pragma unroll\n"
		"\t\tfor (int ks_u = 0; ks_u < %lld; ks_u++) {\n"
		"\t\t\tconst int ks_k = ks_k0 + ks_u;\n"
		"\t\t\t%s ks_w[%lld];\n"
		"\n"
		"\t\t\tif (ks_k >= ks_nst)\n"
		"\t\t\t\tbreak;\n"
		"\t\t\t/* buffer ks_u %% 2 was last read two steps ago, before the\n"
		"\t\t\t   last barrier */\n"
		"#pragma unroll\n"
		"\t\t\tfor (int ks_v = 0; ks_v < %lld; ks_v++)\n"
		"\t\t\t\tks_t[ks_u %% 2][ks_ly][ks_lx + ks_v * %lld] = ks_q[ks_v][(ks_u + %lld) %% %lld];\n",
		ql, ql, T, qn, vx, bx, rs, ql);
	if (ns)
		ks_buf_addf(variant,
			"#pragma unroll\n"
			"\t\t\tfor (int ks_s = 0; ks_s < %lld; ks_s++)\n"
			"\t\t\t\tif (ks_hs[ks_s] >= 0)\n"
			"\t\t\t\t\t(&ks_t[ks_u %% 2][0][0])[ks_hs[ks_s]] = ks_h[ks_u %% %lld][ks_s];\n",
			ns, depth);
	ks_buf_addf(variant,
		"\t\t\t%s;\n"
		"#pragma unroll\n"
		"\t\t\tfor (int ks_v = 0; ks_v < %lld; ks_v++)\n"
		"\t\t\t\tks_q[ks_v][(ks_u + %lld) %% %lld] = ks_st_ld(%s, ks_fc + (ks_I)(ks_v * %lld) + ks_ss * (ks_I)(ks_k + %lld), ks_n);\n",
		sync, vx, qn + depth - 1, ql, iname, bx, rs + depth);
	if (ns)
		ks_buf_addf(variant,
			"#pragma unroll\n"
			"\t\t\tfor (int ks_s = 0; ks_s < %lld; ks_s++)\n"
			"\t\t\t\tks_h[ks_u %% %lld][ks_s] = ks_hs[ks_s] >= 0 ? ks_st_ld(%s, ks_ho[ks_s] + ks_ss * (ks_I)(ks_k + %lld), ks_n) : %s(0);\n",
			ns, depth, iname, depth, T);
	ks_buf_addf(variant,
		"#pragma unroll\n"
		"\t\t\tfor (int ks_v = 0; ks_v < %lld; ks_v++) {\n"
		"#pragma unroll\n"
		"\t\t\t\tfor (int ks_j = 0; ks_j < %lld; ks_j++)\n"
		"\t\t\t\t\tks_w[ks_j] = ks_q[ks_v][(ks_u + ks_j) %% %lld];\n"
		"\t\t\t\tif (ks_mx[ks_v] && ks_mine && ks_k < ks_kend)\n"
		"\t\t\t\t\tks_st_body_%s(make_uint3(ks_tx[ks_v], %s),\n"
		"\t\t\t\t\t\tmake_uint3(ks_bx[ks_v], %s), ks_ob, ks_og, ks_t[ks_u %% 2],\n"
		"\t\t\t\t\t\tks_lx + ks_v * %lld, ks_ly, ks_w, %s);\n"
		"\t\t\t}\n"
		"\t\t\tif (++ks_ts == ks_os) {\n"
		"\t\t\t\tks_ts = 0;\n"
		"\t\t\t\tks_bs++;\n"
		"\t\t\t}\n"
		"\t\t}\n"
		"\t}\n"
		"}\n"
		"/* both offset types in the device code (the launcher that names\n"
		"   them is host code only) */\n"
		"template __global__ void ks_st_%s<int>(const dim3, const dim3, %s);\n"
		"template __global__ void ks_st_%s<long long>(const dim3, const dim3, %s);\n",
		vx, qn, ql, kname, three ? "ks_ty, ks_ts" : "ks_ts, 0",
		three ? "ks_by, ks_bs" : "ks_bs, 0", bx, args, kname, params, kname,
		params);
	ks_buf_adds(variant, "// ks-nvcc: definition\n");
	if (ks_xfbody_definition(in->text, in->len, s->k, variant, reason))
		return -1;
	ks_xfbody_launcher_open(variant, kname, params, 3);
	ks_buf_addf(variant,
		"\tconst long long ks_sy = %s, ks_sz = %s;\n"
		"\tconst long long ks_ss = %s;\n"
		"\tconst long long ks_c0 = %lldLL + %lldLL * ks_sy + %lldLL * ks_sz;\n"
		"\n",
		csy, csz, three ? "ks_sz" : "ks_sy", s->c0[0],
		s->c0[1], s->c0[2]);
	if (three)
		ks_buf_addf(variant,
			"\t/* a grid the threads cannot cover: the original */\n"
			"\tif (!ks_nx || !ks_ny || !ks_nz || ks_nx > 0xffffff00ull ||\n"
			"\t    ks_ny > 65535ull * %lld || ks_nz > 65535ull * %lld) {\n"
			"\t\t%s<<<grid, block, shmem, stream>>>(%s);\n"
			"\t\treturn;\n"
			"\t}\n"
			"\tconst dim3 ks_g((unsigned)((ks_nx + %lld) / %lld), (unsigned)((ks_ny + %lld) / %lld),\n"
			"\t\t\t (unsigned)((ks_nz + %lld) / %lld));\n"
			"\t/* the largest flat offset a thread forms (the n of its checks too) */\n"
			"\tconst long long ks_hi = llabs(ks_c0) + (long long)ks_nx + %lld +\n"
			"\t\tllabs(ks_sy) * ((long long)ks_ny + %lld) + llabs(ks_ss) * ((long long)ks_nz + %lld);\n",
			by, planes, kname, args, bxe - 1, bxe, by - 1, by, planes - 1,
			planes, bxe + rx, by + ry, planes + rs + depth);
	else
		ks_buf_addf(variant,
			"\t/* a grid the threads cannot cover, or layers in z: the original */\n"
			"\tif (!ks_nx || !ks_ny || ks_nz != 1 || ks_nx > 0xffffff00ull ||\n"
			"\t    ks_ny > 0xffffff00ull || (ks_ny + %lld) / %lld > 65535ull) {\n"
			"\t\t%s<<<grid, block, shmem, stream>>>(%s);\n"
			"\t\treturn;\n"
			"\t}\n"
			"\tconst dim3 ks_g((unsigned)((ks_nx + %lld) / %lld), (unsigned)((ks_ny + %lld) / %lld));\n"
			"\t/* the largest flat offset a thread forms (the n of its checks too) */\n"
			"\tconst long long ks_hi = llabs(ks_c0) + (long long)ks_nx + %lld +\n"
			"\t\tllabs(ks_ss) * ((long long)ks_ny + %lld);\n"
			"\n"
			"\t(void)ks_sz;\n",
			by * planes - 1, by * planes, kname, args, bxe - 1, bxe,
			by * planes - 1, by * planes, bxe + rx,
			by * planes + rs + depth);
	ks_buf_addf(variant,
		"\tconst long long ks_n = (long long)(%s) * ks_ss;\n"
		"\n"
		"\tif (ks_hi < 0x7fffffffLL && ks_n >= 0 && ks_n < 0x7fffffffLL)\n"
		"\t\tks_st_%s<int><<<ks_g, dim3(%lld, %lld), 0, stream>>>(grid, block, %s);\n"
		"\telse\n"
		"\t\tks_st_%s<long long><<<ks_g, dim3(%lld, %lld), 0, stream>>>(grid, block, %s);\n"
		"}\n",
		clim, kname, bx, by, args, kname, bx, by, args);
	return 0;
}

/* The packed plane form's vector of P 4-byte elements (P 2 or 4), its
   loads and the zero of an empty cell: @P@ is P, @A@ its bytes, @M@
   P - 1, @W@ the vector type of its one load. */
static const char helpers_v[] =
	"#ifndef KS_ST_HELPERS_@P@\n"
	"#define KS_ST_HELPERS_@P@\n"
	"template <class ks_T> struct __align__(@A@) ks_st_v@P@ {\n"
	"\tks_T v[@P@];\n"
	"};\n"
	"/* p[f .. f + @M@], each 0 outside [0, n): one @A@-byte load where the\n"
	"   @P@ are inside and aligned (al: p is), else one at a time */\n"
	"template <class ks_T, class ks_I> __device__ __forceinline__ static ks_st_v@P@<ks_T>\n"
	"ks_st_ld@P@(const ks_T *p, ks_I f, ks_I n, bool al)\n"
	"{\n"
	"\tks_st_v@P@<ks_T> r;\n"
	"\n"
	"\tif (al && (f & @M@) == 0 && f >= 0 && f + @M@ < n) {\n"
	"\t\tconst @W@ w = __ldg(reinterpret_cast<const @W@ *>(p + f));\n"
	"\n"
	"\t\tmemcpy(&r, &w, sizeof(r));\n"
	"\t\treturn r;\n"
	"\t}\n"
	"#pragma unroll\n"
	"\tfor (int j = 0; j < @P@; j++)\n"
	"\t\tr.v[j] = ks_st_ld(p, f + (ks_I)j, n);\n"
	"\treturn r;\n"
	"}\n"
	"template <class ks_T, class ks_I> __device__ __forceinline__ static ks_st_v@P@<ks_T>\n"
	"ks_st_ld@P@(ks_T *p, ks_I f, ks_I n, bool al)\n"
	"{\n"
	"\tks_st_v@P@<ks_T> r;\n"
	"\n"
	"\tif (al && (f & @M@) == 0 && f >= 0 && f + @M@ < n)\n"
	"\t\treturn *reinterpret_cast<const ks_st_v@P@<ks_T> *>(p + f);\n"
	"#pragma unroll\n"
	"\tfor (int j = 0; j < @P@; j++)\n"
	"\t\tr.v[j] = ks_st_ld(p, f + (ks_I)j, n);\n"
	"\treturn r;\n"
	"}\n"
	"#endif\n"
	"\n";

/* The lane body's types: the values of P consecutive outputs computed as
   one (the kernel's arithmetic lane by lane), the window read as P
   consecutive columns, the output taken whole; for the element type
   itself the same calls are the one-output body's. And a window in
   shared memory for the bodies run one output at a time. */
static const char helpers_l[] =
	"#ifndef KS_ST_HELPERS_L\n"
	"#define KS_ST_HELPERS_L\n"
	"template <class ks_T, int ks_P> struct ks_st_l {\n"
	"\tks_T v[ks_P];\n"
	"\n"
	"\tks_st_l() = default;\n"
	"\t__device__ __forceinline__ ks_st_l(ks_T s)\n"
	"\t{\n"
	"#pragma unroll\n"
	"\t\tfor (int j = 0; j < ks_P; j++)\n"
	"\t\t\tv[j] = s;\n"
	"\t}\n"
	"#define KS_ST_L_SET(op) \\\n"
	"\t__device__ __forceinline__ ks_st_l &operator op(const ks_st_l &o) \\\n"
	"\t{ \\\n"
	"\t\tfor (int j = 0; j < ks_P; j++) \\\n"
	"\t\t\tv[j] op o.v[j]; \\\n"
	"\t\treturn *this; \\\n"
	"\t} \\\n"
	"\ttemplate <class ks_S> __device__ __forceinline__ ks_st_l &operator op(const ks_S &s) \\\n"
	"\t{ \\\n"
	"\t\tfor (int j = 0; j < ks_P; j++) \\\n"
	"\t\t\tv[j] op s; \\\n"
	"\t\treturn *this; \\\n"
	"\t}\n"
	"\tKS_ST_L_SET(+=)\n"
	"\tKS_ST_L_SET(-=)\n"
	"\tKS_ST_L_SET(*=)\n"
	"\tKS_ST_L_SET(/=)\n"
	"#undef KS_ST_L_SET\n"
	"};\n"
	"#define KS_ST_L_OP(op) \\\n"
	"template <class ks_T, int ks_P> __device__ __forceinline__ static ks_st_l<ks_T, ks_P> \\\n"
	"operator op(const ks_st_l<ks_T, ks_P> &a, const ks_st_l<ks_T, ks_P> &b) \\\n"
	"{ \\\n"
	"\tks_st_l<ks_T, ks_P> r; \\\n"
	"\tfor (int j = 0; j < ks_P; j++) \\\n"
	"\t\tr.v[j] = a.v[j] op b.v[j]; \\\n"
	"\treturn r; \\\n"
	"} \\\n"
	"template <class ks_S, class ks_T, int ks_P> __device__ __forceinline__ static ks_st_l<ks_T, ks_P> \\\n"
	"operator op(const ks_S &a, const ks_st_l<ks_T, ks_P> &b) \\\n"
	"{ \\\n"
	"\tks_st_l<ks_T, ks_P> r; \\\n"
	"\tfor (int j = 0; j < ks_P; j++) \\\n"
	"\t\tr.v[j] = a op b.v[j]; \\\n"
	"\treturn r; \\\n"
	"} \\\n"
	"template <class ks_S, class ks_T, int ks_P> __device__ __forceinline__ static ks_st_l<ks_T, ks_P> \\\n"
	"operator op(const ks_st_l<ks_T, ks_P> &a, const ks_S &b) \\\n"
	"{ \\\n"
	"\tks_st_l<ks_T, ks_P> r; \\\n"
	"\tfor (int j = 0; j < ks_P; j++) \\\n"
	"\t\tr.v[j] = a.v[j] op b; \\\n"
	"\treturn r; \\\n"
	"}\n"
	"KS_ST_L_OP(+)\n"
	"KS_ST_L_OP(-)\n"
	"KS_ST_L_OP(*)\n"
	"KS_ST_L_OP(/)\n"
	"#undef KS_ST_L_OP\n"
	"template <class ks_T, int ks_P> __device__ __forceinline__ static ks_st_l<ks_T, ks_P>\n"
	"operator-(const ks_st_l<ks_T, ks_P> &a)\n"
	"{\n"
	"\tks_st_l<ks_T, ks_P> r;\n"
	"\n"
	"\tfor (int j = 0; j < ks_P; j++)\n"
	"\t\tr.v[j] = -a.v[j];\n"
	"\treturn r;\n"
	"}\n"
	"template <class ks_T, int ks_P> __device__ __forceinline__ static ks_st_l<ks_T, ks_P>\n"
	"operator+(const ks_st_l<ks_T, ks_P> &a)\n"
	"{\n"
	"\treturn a;\n"
	"}\n"
	"template <class ks_L> struct ks_st_lt {\n"
	"\ttemplate <class ks_W> __device__ __forceinline__ static ks_L\n"
	"\trd(const ks_W &w, int r, int c)\n"
	"\t{\n"
	"\t\treturn w[r][c];\n"
	"\t}\n"
	"\ttemplate <class ks_OV> __device__ __forceinline__ static ks_L &\n"
	"\tout(ks_OV &o, int j)\n"
	"\t{\n"
	"\t\treturn o[j];\n"
	"\t}\n"
	"\t__device__ __forceinline__ static unsigned mask(int j) { return 1u << j; }\n"
	"};\n"
	"template <class ks_T, int ks_P> struct ks_st_lt<ks_st_l<ks_T, ks_P> > {\n"
	"\ttemplate <class ks_W> __device__ __forceinline__ static ks_st_l<ks_T, ks_P>\n"
	"\trd(const ks_W &w, int r, int c)\n"
	"\t{\n"
	"\t\tks_st_l<ks_T, ks_P> o;\n"
	"\n"
	"#pragma unroll\n"
	"\t\tfor (int j = 0; j < ks_P; j++)\n"
	"\t\t\to.v[j] = w[r][c + j];\n"
	"\t\treturn o;\n"
	"\t}\n"
	"\t__device__ __forceinline__ static ks_st_l<ks_T, ks_P> &\n"
	"\tout(ks_st_l<ks_T, ks_P> &o, int)\n"
	"\t{\n"
	"\t\treturn o;\n"
	"\t}\n"
	"\t__device__ __forceinline__ static unsigned mask(int) { return (1u << ks_P) - 1u; }\n"
	"};\n"
	"template <class ks_L, class ks_W> __device__ __forceinline__ static ks_L\n"
	"ks_st_rd(const ks_W &w, int r, int c)\n"
	"{\n"
	"\treturn ks_st_lt<ks_L>::rd(w, r, c);\n"
	"}\n"
	"template <class ks_L, class ks_OV> __device__ __forceinline__ static ks_L &\n"
	"ks_st_out(ks_OV &o, int j)\n"
	"{\n"
	"\treturn ks_st_lt<ks_L>::out(o, j);\n"
	"}\n"
	"template <class ks_L> __device__ __forceinline__ static unsigned\n"
	"ks_st_mask(int j)\n"
	"{\n"
	"\treturn ks_st_lt<ks_L>::mask(j);\n"
	"}\n"
	"template <class ks_T, int ks_W> struct ks_st_sw {\n"
	"\tconst ks_T *b;\n"
	"\n"
	"\t__device__ __forceinline__ const ks_T *operator[](int r) const { return b + r * ks_W; }\n"
	"};\n"
	"#endif\n"
	"\n";

/* Appends helpers_v for vectors of `pk` 4-byte elements. */
static void
add_helpers_v(struct ks_buf *variant, long long pk)
{
	for (const char *c = helpers_v; *c; c++) {
		if (*c != '@' || !c[1] || c[2] != '@') {
			ks_buf_add(variant, c, 1);
			continue;
		}
		if (c[1] == 'W')
			ks_buf_addf(variant, "float%lld", pk);
		else
			ks_buf_addf(variant, "%lld", c[1] == 'P' ? pk : c[1] == 'A' ? 4 * pk : pk - 1);
		c += 2;
	}
}

/* The packed form's column ring in steps: 2 rz + 1 + depth rounded up
 * to the stages of the halo and plane buffers (depth above 2, else 2),
 * which repeat every that many steps. */
static long long
ring_steps(long long rz, long long depth)
{
	const long long st = depth > 2 ? depth : 2;

	return (2 * rz + 1 + depth + st - 1) / st * st;
}

/* The packed form's step: the thread's window of the plane, ww columns
 * of wr rows from shared buffer ks_u % 2 into registers, at indent ind. */
static void
emit_window(struct ks_buf *v, const char *ind, long long pk, const char *T,
	    long long ww, long long wr, long long ry)
{
	ks_buf_addf(v,
		"%s/* the window: %lld columns of each row, ks_lx - 4 on */\n"
		"#pragma unroll\n"
		"%sfor (int ks_r = 0; ks_r < %lld; ks_r++)\n"
		"#pragma unroll\n"
		"%s\tfor (int ks_c = 0; ks_c < %lld; ks_c++) {\n"
		"%s\t\tconst ks_st_v%lld<%s> ks_e = *reinterpret_cast<const ks_st_v%lld<%s> *>(\n"
		"%s\t\t\t&ks_t[ks_u %% 2][ks_ly - %lld + ks_r][ks_lx - 4 + %lld * ks_c]);\n"
		"\n"
		"#pragma unroll\n"
		"%s\t\tfor (int ks_e4 = 0; ks_e4 < %lld; ks_e4++)\n"
		"%s\t\t\tks_tw[ks_r][%lld * ks_c + ks_e4] = ks_e.v[ks_e4];\n"
		"%s\t}\n",
		ind, ww, ind, wr, ind, ww / pk, ind, pk, T, pk, T, ind, ry, pk, ind,
		pk, ind, pk, ind);
}

/* The packed form's step: the pk bodies one output at a time, the
 * window `win`, the body's template argument targ (NULL: none), at
 * indent ind. */
static void
emit_bodies(struct ks_buf *v, const char *ind, long long pk, const char *T,
	    long long qn, const char *qm, const char *kname, const char *targ,
	    const char *win, const char *args)
{
	ks_buf_addf(v,
		"#pragma unroll\n"
		"%sfor (int ks_v = 0; ks_v < %lld; ks_v++) {\n"
		"%s\t%s ks_w[%lld];\n"
		"\n"
		"#pragma unroll\n"
		"%s\tfor (int ks_j = 0; ks_j < %lld; ks_j++)\n"
		"%s\t\tks_w[ks_j] = ks_q[(ks_u + ks_j)%s].v[ks_v];\n"
		"%s\tif (ks_mx[ks_v] && ks_mine)\n"
		"%s\t\tks_st_body_%s%s%s%s(make_uint3(ks_tx[ks_v], ks_ty, ks_ts),\n"
		"%s\t\t\tmake_uint3(ks_bx[ks_v], ks_by, ks_bs), ks_ob, ks_og, %s,\n"
		"%s\t\t\tks_v, ks_w, ks_o.v, ks_om, %s);\n"
		"%s}\n",
		ind, pk, ind, T, qn, ind, qn, ind, qm, ind, ind, kname,
		targ ? "<" : "", targ ? targ : "", targ ? ">" : "", ind, win, ind,
		args, ind);
}

/* The packed plane form (stream=2, pack=P with P 4 or 2; 3-D, 4-byte
 * elements): the plane form with each thread computing P consecutive
 * outputs along x. Its column is a ring of 4P-byte vectors (one load for
 * P columns where aligned), the plane goes to the shared buffer as
 * vectors, and before the bodies each thread reads its window of the
 * plane, P + 8 elements of each row it needs ((P + 8) / P vector shared
 * loads a row; a star stencil's off rows need only the ones holding its
 * own columns, the compiler drops the rest), into registers: the P
 * bodies read the plane from there, where the scalar form issued one
 * shared load per read. The x halo is 4 wide whatever the radius up to
 * 4, 4 / P vectors a side. P=2 holds about half the window and ring
 * registers of P=4 (80 registers a thread against 128 at radius 4), so
 * that half again as many threads fit an SM. `bx` is the tile's width in
 * outputs (bx / P threads along x). Appends kernel, definition,
 * launcher. */
static int
emit_planev(const struct st *s, long long pk, const struct ks_xf_input *in,
	    const char *T, const char *iname, const char *O, const char *oname,
	    const char *params,
	    const char *args, const struct ks_buf *body, const char *csy,
	    const char *csz, const char *clim, long long bx, long long by,
	    long long planes, long long depth, long long minb, long long un,
	    const char *agree, const char *lane_why, struct ks_buf *variant,
	    struct ks_buf *reason)
{
	const char *kname = s->k->name;
	const long long rx = s->r[0], ry = s->r[1], rz = s->r[2];
	const long long qn = 2 * rz + 1, wr = 2 * ry + 1;
	const long long ql = ring_steps(rz, depth);
	/* unroll=U: U steps unrolled, the column a window of U + qn + depth
	   - 1 vectors shifted by U after them, where the ring's whole
	   period unrolls the code ql / U times over */
	const long long live = qn + depth - 1, qsz = un ? un + live : ql;
	char qm[32];
	const long long nxv = bx / pk, nt = nxv * by, hv = 4 / pk, ww = pk + 8;
	const long long tw = bx + 8, th = by + 2 * ry;
	/* halo vectors: the bands above and below (ry rows of nxv), the
	   sides (by rows of hv vectors each side, where rx > 0) */
	const long long nb = ry * nxv, nh = 2 * nb + (rx > 0 ? 2 * hv * by : 0);
	const long long ns = (nh + nt - 1) / nt;

	ks_buf_addf(variant,
		    "// %s: 3-D stencil of radius %d/%d/%d walking z in planes: "
		    "%lldx%lld threads of %lld consecutive outputs, %lld steps, each "
		    "plane once into one of two shared %lldx%lld buffers as %lld-byte "
		    "vectors, the z column in %lld vector registers with %lld steps "
		    "of loads ahead, the plane's window read into registers once "
		    "for the %lld outputs (stencil_smem_halo, stream=2 pack=%lld)\n",
		    kname, s->r[0], s->r[1], s->r[2], nxv, by, pk, planes, th, tw,
		    4 * pk, qsz, depth, pk, pk);
	if (agree)
		ks_buf_addf(variant,
			    "// the body runs once on %lld-wide values where the "
			    "%lld outputs of a thread take the kernel's x tests "
			    "alike, else once an output\n",
			    pk, pk);
	else if (lane_why && *lane_why)
		ks_buf_addf(variant, "// the body runs once an output: %s\n", lane_why);
	qm[0] = '\0';
	if (!un)
		snprintf(qm, sizeof(qm), " %% %lld", ql);
	ks_buf_adds(variant, "// ks-nvcc: helpers\n#include <string.h>\n");
	ks_buf_adds(variant, helpers);
	ks_buf_adds(variant, helpers_i);
	add_helpers_v(variant, pk);
	if (agree)
		ks_buf_adds(variant, helpers_l);
	if (s->pre)
		ks_buf_adds(variant, s->pre);
	if (agree)
		ks_buf_addf(variant,
			    "/* The body of %s for output ks_j (0..%lld) of a thread at ks_tid "
			    "of block ks_bid\n   (ks_L %s), or for all %lld at once from the "
			    "first's coordinates (ks_L\n   ks_st_l<%s, %lld>: every value of "
			    "the element type %lld-wide), its reads of %s\n   in the plane "
			    "from the window ks_tw (row ry + dy, column 4 + ks_j + dx),\n"
			    "   along z from the column ks_q (ks_q[%lld] the output's own). */\n"
			    "template <class ks_L, class ks_W, class ks_Q, class ks_OV>\n"
			    "__device__ __forceinline__ static void\n"
			    "ks_st_body_%s(const uint3 ks_tid, const uint3 ks_bid, "
			    "const dim3 ks_bdim, const dim3 ks_gdim,\n\tconst ks_W &ks_tw, "
			    "const int ks_j, const ks_Q (&ks_q)[%lld], ks_OV &ks_ov, "
			    "unsigned &ks_om, %s)\n",
			    kname, pk - 1, T, pk, T, pk, pk, iname, rz, kname, qn, params);
	else
		ks_buf_addf(variant,
			    "/* The body of %s for output ks_j (0..%lld) of a thread at ks_tid "
			    "of block ks_bid,\n   its reads of %s in the plane from the "
			    "window ks_tw (row ry + dy, column 4 + ks_j + dx),\n   along z "
			    "from the column ks_q (ks_q[%lld] the output's own). */\n"
			    "__device__ __forceinline__ static void\n"
			    "ks_st_body_%s(const uint3 ks_tid, const uint3 ks_bid, "
			    "const dim3 ks_bdim, const dim3 ks_gdim,\n\tconst %s "
			    "(&ks_tw)[%lld][%lld], const int ks_j, const %s (&ks_q)[%lld], "
			    "%s (&ks_ov)[%lld], unsigned &ks_om, %s)\n",
			    kname, pk - 1, iname, rz, kname, T, wr, ww, T, qn, O, pk, params);
	ks_buf_add(variant, body->buf, body->len);
	ks_buf_adds(variant, "\n\n");
	ks_buf_addf(variant,
		"/* %lldx%lld threads over the original grid's global indices (ks_og\n"
		"   blocks of ks_ob threads), %lld steps along z; ks_I the offset type,\n"
		"   ks_al: %s and %s are 16-byte aligned. */\n"
		"template <class ks_I>\n"
		"__global__ void __launch_bounds__(%lld, %lld)\n"
		"ks_st_%s(const dim3 ks_og, const dim3 ks_ob, const bool ks_al, %s)\n"
		"{\n"
		"\t__shared__ __align__(16) %s ks_t[2][%lld][%lld];\n"
		"\tconst ks_I ks_sy = (ks_I)(%s), ks_sz = (ks_I)(%s);\n"
		"\t/* the elements the bounds checks span; the output's fixed offset */\n"
		"\tconst ks_I ks_n = (ks_I)(%s) * ks_sz;\n"
		"\tconst ks_I ks_c0 = (ks_I)%lld + (ks_I)%lld * ks_sy + (ks_I)%lld * ks_sz;\n"
		"\tconst unsigned ks_cx = ks_og.x * ks_ob.x, ks_cy = ks_og.y * ks_ob.y;\n"
		"\tconst unsigned ks_x0 = blockIdx.x * %lldu, ks_y0 = blockIdx.y * %lldu;\n"
		"\t/* this thread's outputs: x = ks_gx + v, tile column ks_lx + v */\n"
		"\tconst unsigned ks_gx = ks_x0 + %lld * threadIdx.x, ks_gy = ks_y0 + threadIdx.y;\n"
		"\tconst int ks_lx = %lld * (int)threadIdx.x + 4, ks_ly = threadIdx.y + %lld;\n"
		"\tconst int ks_tid = threadIdx.y * %lld + threadIdx.x;\n"
		"\tconst unsigned ks_ty = ks_gy %% ks_ob.y, ks_by = ks_gy / ks_ob.y;\n"
		"\tconst bool ks_mine = ks_gy < ks_cy;\n"
		"\tunsigned ks_tx[%lld], ks_bx[%lld];\n"
		"\tbool ks_mx[%lld];\n"
		"\n"
		"#pragma unroll\n"
		"\tfor (int ks_v = 0; ks_v < %lld; ks_v++) {\n"
		"\t\tks_tx[ks_v] = (ks_gx + ks_v) %% ks_ob.x;\n"
		"\t\tks_bx[ks_v] = (ks_gx + ks_v) / ks_ob.x;\n"
		"\t\tks_mx[ks_v] = ks_gx + ks_v < ks_cx;\n"
		"\t}\n"
		"\tconst long long ks_cs = (long long)ks_og.z * ks_ob.z;\n"
		"\tconst long long ks_s0 = (long long)blockIdx.z * %lld;\n"
		"\tif (ks_s0 >= ks_cs)\n"
		"\t\treturn;\n"
		"\tconst int ks_nst = (int)(ks_cs - ks_s0 < %lld ? ks_cs - ks_s0 : %lld);\n"
		"\tunsigned ks_ts = (unsigned)(ks_s0 %% ks_ob.z), ks_bs = (unsigned)(ks_s0 / ks_ob.z);\n"
		"\t/* the flat offsets of this thread's first column and of the tile's\n"
		"\t   cell (0, 0), at the first step */\n"
		"\tconst ks_I ks_fc = ks_c0 + (ks_I)ks_gx + ks_sy * (ks_I)ks_gy + ks_sz * (ks_I)ks_s0;\n"
		"\tconst ks_I ks_o0 = ks_c0 + (ks_I)ks_x0 - 4 + ks_sy * ((ks_I)ks_y0 - %lld) + ks_sz * (ks_I)ks_s0;\n"
		"\t/* the ring: slot (k%s + %lld)%s holds the %lld columns at step k%s */\n"
		"\tks_st_v%lld<%s> ks_q[%lld];\n",
		nxv, by, planes, iname, oname, nt, minb, kname, params, T, th, tw, csy,
		csz, clim, s->c0[0], s->c0[1], s->c0[2], bx, by, pk, pk, ry, nxv,
		pk, pk, pk, pk, planes, planes, planes, ry, un ? " - k0" : "", rz,
		qm, pk, un ? "\n\t   (k0: the first of the steps the pass unrolls)" : "",
		pk, T, qsz);
	if (agree)
		ks_buf_addf(variant,
			"\t/* the %lld outputs take each of the kernel's bounds checks on x\n"
			"\t   the same way: the body runs once for them on %lld-wide values */\n"
			"\tconst bool ks_uni = ks_mine && ks_mx[%lld] && ks_tx[0] + %lldu < ks_ob.x &&\n"
			"\t\t%s;\n",
			pk, pk, pk - 1, pk - 1, agree);
	if (ns)
		ks_buf_addf(variant,
			"\t/* this thread's halo vectors: buffer cell (-1: none), flat offset\n"
			"\t   at the first step, the value of step k in stage k %% %lld */\n"
			"\tint ks_hs[%lld];\n"
			"\tks_I ks_ho[%lld];\n"
			"\tks_st_v%lld<%s> ks_h[%lld][%lld];\n"
			"\n"
			"#pragma unroll\n"
			"\tfor (int ks_s = 0; ks_s < %lld; ks_s++) {\n"
			"\t\tconst int ks_c = ks_tid + ks_s * %lld;\n"
			"\t\tint ks_r, ks_cv;\n"
			"\n"
			"\t\tif (ks_c < %lld) {\n"
			"\t\t\tks_r = ks_c / %lld;\n"
			"\t\t\tks_cv = %lld + ks_c %% %lld;\n"
			"\t\t} else if (ks_c < %lld) {\n"
			"\t\t\tks_r = %lld + (ks_c - %lld) / %lld;\n"
			"\t\t\tks_cv = %lld + (ks_c - %lld) %% %lld;\n"
			"\t\t} else {\n"
			"\t\t\tconst int ks_e = (ks_c - %lld) %% %lld;\n"
			"\n"
			"\t\t\tks_r = %lld + (ks_c - %lld) / %lld;\n"
			"\t\t\tks_cv = ks_e < %lld ? ks_e : %lld + ks_e;\n"
			"\t\t}\n"
			"\t\tks_hs[ks_s] = ks_c < %lld ? ks_r * %lld + %lld * ks_cv : -1;\n"
			"\t\tks_ho[ks_s] = ks_o0 + (ks_I)(%lld * ks_cv) + ks_sy * (ks_I)ks_r;\n"
			"\t}\n",
			depth, ns, ns, pk, T, depth, ns, ns, nt, nb, nxv, hv, nxv,
			2 * nb, ry + by, nb, nxv, hv, nb, nxv, 2 * nb, 2 * hv, ry,
			2 * nb, 2 * hv, hv, nxv, nh, tw, pk, pk);
	ks_buf_addf(variant,
		"\t/* the column and the halos of the first %lld steps; then each\n"
		"\t   step's loads are in flight during the next %lld steps' bodies */\n"
		"#pragma unroll\n"
		"\tfor (int ks_j = 0; ks_j < %lld; ks_j++)\n"
		"\t\tks_q[ks_j] = ks_st_ld%lld(%s, ks_fc + ks_sz * (ks_I)(ks_j - %lld), ks_n, ks_al);\n",
		depth, depth, qn + depth - 1, pk, iname, rz);
	if (ns)
		ks_buf_addf(variant,
			"#pragma unroll\n"
			"\tfor (int ks_d = 0; ks_d < %lld; ks_d++)\n"
			"#pragma unroll\n"
			"\t\tfor (int ks_s = 0; ks_s < %lld; ks_s++)\n"
			"\t\t\tif (ks_hs[ks_s] >= 0)\n"
			"\t\t\t\tks_h[ks_d][ks_s] = ks_st_ld%lld(%s, ks_ho[ks_s] + ks_sz * (ks_I)ks_d, ks_n, ks_al);\n",
			depth, ns, pk, iname);
	ks_buf_addf(variant,
		"\tfor (int ks_k0 = 0; ks_k0 < ks_nst; ks_k0 += %lld) {\n"
		"#pragma unroll\n"
		"\t\tfor (int ks_u = 0; ks_u < %lld; ks_u++) {\n"
		"\t\t\tconst int ks_k = ks_k0 + ks_u;\n"
		"\t\t\t%s ks_tw[%lld][%lld];\n"
		"\n"
		"\t\t\tif (ks_k >= ks_nst)\n"
		"\t\t\t\tbreak;\n"
		"\t\t\t/* buffer ks_u %% 2 was last read two steps ago, before the\n"
		"\t\t\t   last barrier */\n"
		"\t\t\t*reinterpret_cast<ks_st_v%lld<%s> *>(&ks_t[ks_u %% 2][ks_ly][ks_lx]) = ks_q[(ks_u + %lld)%s];\n",
		un ? un : ql, un ? un : ql, T, wr, ww, pk, T, rz, qm);
	if (ns)
		ks_buf_addf(variant,
			"#pragma unroll\n"
			"\t\t\tfor (int ks_s = 0; ks_s < %lld; ks_s++)\n"
			"\t\t\t\tif (ks_hs[ks_s] >= 0)\n"
			"\t\t\t\t\t*reinterpret_cast<ks_st_v%lld<%s> *>(&ks_t[ks_u %% 2][0][0] + ks_hs[ks_s]) = ks_h[ks_u %% %lld][ks_s];\n",
			ns, pk, T, depth);
	ks_buf_addf(variant,
		"\t\t\t__syncthreads();\n"
		"\t\t\tks_q[(ks_u + %lld)%s] = ks_st_ld%lld(%s, ks_fc + ks_sz * (ks_I)(ks_k + %lld), ks_n, ks_al);\n",
		live, qm, pk, iname, rz + depth);
	if (ns)
		ks_buf_addf(variant,
			"#pragma unroll\n"
			"\t\t\tfor (int ks_s = 0; ks_s < %lld; ks_s++)\n"
			"\t\t\t\tif (ks_hs[ks_s] >= 0)\n"
			"\t\t\t\t\tks_h[ks_u %% %lld][ks_s] = ks_st_ld%lld(%s, ks_ho[ks_s] + ks_sz * (ks_I)(ks_k + %lld), ks_n, ks_al);\n",
			ns, depth, pk, iname, depth);
	if (agree) {
		ks_buf_addf(variant,
			"\t\t\tks_st_v%lld<%s> ks_o;\n"
			"\t\t\tunsigned ks_om = 0;\n"
			"\n"
			"\t\t\tif (ks_uni) {\n"
			"\t\t\t\tks_st_l<%s, %lld> ks_w4[%lld], ks_ol;\n"
			"\n",
			pk, T, T, pk, qn);
		emit_window(variant, "\t\t\t\t", pk, T, ww, wr, ry);
		ks_buf_addf(variant,
			"#pragma unroll\n"
			"\t\t\t\tfor (int ks_j = 0; ks_j < %lld; ks_j++)\n"
			"\t\t\t\t\tmemcpy(&ks_w4[ks_j], &ks_q[(ks_u + ks_j)%s], sizeof(ks_w4[ks_j]));\n"
			"\t\t\t\tks_st_body_%s<ks_st_l<%s, %lld> >(make_uint3(ks_tx[0], ks_ty, ks_ts),\n"
			"\t\t\t\t\tmake_uint3(ks_bx[0], ks_by, ks_bs), ks_ob, ks_og, ks_tw,\n"
			"\t\t\t\t\t0, ks_w4, ks_ol, ks_om, %s);\n"
			"\t\t\t\tmemcpy(&ks_o, &ks_ol, sizeof(ks_o));\n"
			"\t\t\t} else {\n"
			"\t\t\t\t/* the window in shared memory */\n"
			"\t\t\t\tconst ks_st_sw<%s, %lld> ks_sw = { &ks_t[ks_u %% 2][ks_ly - %lld][ks_lx - 4] };\n"
			"\n",
			qn, qm, kname, T, pk, args, T, tw, ry);
		emit_bodies(variant, "\t\t\t\t", pk, T, qn, qm, kname, T, "ks_sw", args);
		ks_buf_adds(variant, "\t\t\t}\n");
	} else {
		emit_window(variant, "\t\t\t", pk, T, ww, wr, ry);
		ks_buf_addf(variant,
			"\t\t\tks_st_v%lld<%s> ks_o;\n"
			"\t\t\tunsigned ks_om = 0;\n"
			"\n",
			pk, O);
		emit_bodies(variant, "\t\t\t", pk, T, qn, qm, kname, NULL, "ks_tw", args);
	}
	ks_buf_addf(variant,
		"\t\t\t/* the outputs the bodies wrote: one vector when all %lld */\n"
		"\t\t\tif (ks_om) {\n"
		"\t\t\t\tconst ks_I ks_fo = ks_fc + ks_sz * (ks_I)ks_k;\n"
		"\n"
		"\t\t\t\tif (ks_om == %lldu && ks_al && (ks_fo & %lld) == 0) {\n"
		"\t\t\t\t\t*reinterpret_cast<ks_st_v%lld<%s> *>(%s + ks_fo) = ks_o;\n"
		"\t\t\t\t} else {\n"
		"#pragma unroll\n"
		"\t\t\t\t\tfor (int ks_v = 0; ks_v < %lld; ks_v++)\n"
		"\t\t\t\t\t\tif (ks_om >> ks_v & 1u)\n"
		"\t\t\t\t\t\t\t%s[ks_fo + ks_v] = ks_o.v[ks_v];\n"
		"\t\t\t\t}\n"
		"\t\t\t}\n"
		"\t\t\tif (++ks_ts == ks_ob.z) {\n"
		"\t\t\t\tks_ts = 0;\n"
		"\t\t\t\tks_bs++;\n"
		"\t\t\t}\n"
		"\t\t}\n",
		pk, (1LL << pk) - 1, pk - 1, pk, O, oname, pk, oname);
	if (un)
		ks_buf_addf(variant,
			"\t\t/* the window moves %lld steps on */\n"
			"#pragma unroll\n"
			"\t\tfor (int ks_j = 0; ks_j < %lld; ks_j++)\n"
			"\t\t\tks_q[ks_j] = ks_q[ks_j + %lld];\n",
			un, live, un);
	ks_buf_addf(variant,
		"\t}\n"
		"}\n"
		"/* both offset types in the device code (the launcher that names\n"
		"   them is host code only) */\n"
		"template __global__ void ks_st_%s<int>(const dim3, const dim3, const bool, %s);\n"
		"template __global__ void ks_st_%s<long long>(const dim3, const dim3, const bool, %s);\n",
		kname, params, kname, params);
	ks_buf_adds(variant, "// ks-nvcc: definition\n");
	if (ks_xfbody_definition(in->text, in->len, s->k, variant, reason))
		return -1;
	ks_xfbody_launcher_open(variant, kname, params, 3);
	ks_buf_addf(variant,
		"\tconst long long ks_sy = %s, ks_sz = %s;\n"
		"\tconst long long ks_c0 = %lldLL + %lldLL * ks_sy + %lldLL * ks_sz;\n"
		"\n"
		"\t/* a grid the threads cannot cover: the original */\n"
		"\tif (!ks_nx || !ks_ny || !ks_nz || ks_nx > 0xffffff00ull ||\n"
		"\t    ks_ny > 65535ull * %lld || ks_nz > 65535ull * %lld) {\n"
		"\t\t%s<<<grid, block, shmem, stream>>>(%s);\n"
		"\t\treturn;\n"
		"\t}\n"
		"\tconst dim3 ks_g((unsigned)((ks_nx + %lld) / %lld), (unsigned)((ks_ny + %lld) / %lld),\n"
		"\t\t\t (unsigned)((ks_nz + %lld) / %lld));\n"
		"\t/* the largest flat offset a thread forms (the n of its checks too) */\n"
		"\tconst long long ks_hi = llabs(ks_c0) + (long long)ks_nx + %lld +\n"
		"\t\tllabs(ks_sy) * ((long long)ks_ny + %lld) + llabs(ks_sz) * ((long long)ks_nz + %lld);\n"
		"\tconst long long ks_n = (long long)(%s) * ks_sz;\n"
		"\tconst bool ks_al = ((unsigned long long)(const void *)%s |\n"
		"\t\t\t     (unsigned long long)(const void *)%s) %% 16 == 0;\n"
		"\n"
		"\tif (ks_hi < 0x7fffffffLL && ks_n >= 0 && ks_n < 0x7fffffffLL)\n"
		"\t\tks_st_%s<int><<<ks_g, dim3(%lld, %lld), 0, stream>>>(grid, block, ks_al, %s);\n"
		"\telse\n"
		"\t\tks_st_%s<long long><<<ks_g, dim3(%lld, %lld), 0, stream>>>(grid, block, ks_al, %s);\n"
		"}\n",
		csy, csz, s->c0[0], s->c0[1], s->c0[2], by, planes, kname, args,
		bx - 1, bx, by - 1, by, planes - 1, planes, bx + 8, by + ry,
		planes + rz + depth, clim, iname, oname, kname, nxv, by, args, kname, nxv,
		by, args);
	return 0;
}

/* The start of an access's replacement: NAME[index] becomes "((void)(index),
 * " and the caller's value, so that the index is evaluated and dropped
 * and what only computed it stays used (the compiler drops it). -1 with
 * the reason when the access is not written NAME[index]. */
static int
index_kept(const struct ks_xf_input *in, const struct ks_access *a,
	   const char *name, const char *what, struct ks_buf *w,
	   struct ks_buf *reason)
{
	size_t nl = strlen(name);

	if (a->end - a->begin < nl + 2 ||
	    in->text[a->begin + nl] != '[' || in->text[a->end - 1] != ']') {
		ks_buf_addf(reason, "the %s of %s on line %u is not written %s[index]",
			    what, name, a->line, name);
		ks_buf_release(w);
		return -1;
	}
	ks_buf_adds(w, "((void)(");
	ks_buf_add(w, in->text + a->begin + nl + 1, a->end - a->begin - nl - 2);
	ks_buf_adds(w, "), ");
	return 0;
}

/* Where the tile may not hold what the kernel reads (s->fallback): the
 * body function first tests whether every read of its output lands
 * inside the elements the tile holds, [0, extent), and runs the kernel's
 * own body (its own reads) where not; s->pre gets the two functions that
 * takes, to go before the body function. */
static int
fallback(struct st *s, const struct ks_xf_input *in, const char *kname,
	 const char *params, const char *args, const char *csy,
	 const char *csz, const char *clim, struct ks_buf *body,
	 struct ks_buf *reason)
{
	struct ks_buf pre = KS_BUF_INIT, orig = KS_BUF_INIT, w = KS_BUF_INIT;

	if (ks_xfbody_copy(in->text, in->len, s->k, NULL, 0, renames, &orig,
			   reason)) {
		ks_buf_release(&orig);
		return -1;
	}
	ks_buf_addf(&pre,
		"/* Whether every read of the output at thread ks_tid of block "
		"ks_bid lands\n   in the elements the tile holds (else the "
		"kernel's own body runs). */\n"
		"__device__ __forceinline__ static bool\n"
		"ks_st_in_%s(const uint3 ks_tid, const uint3 ks_bid, "
		"const dim3 ks_bdim,\n\tconst dim3 ks_gdim, %s)\n"
		"{\n"
		"\tconst dim3 ks_ob = ks_bdim, ks_og = ks_gdim;\n"
		"\tconst long long ks_sy = (long long)(%s), ks_sz = (long long)(%s);\n"
		"\tconst long long ks_f = %lldLL + %lldLL * ks_sy + %lldLL * ks_sz +\n"
		"\t\t(long long)(ks_bid.x * ks_bdim.x + ks_tid.x) +\n"
		"\t\tks_sy * (long long)(ks_bid.y * ks_bdim.y + ks_tid.y) +\n"
		"\t\tks_sz * (long long)(ks_bid.z * ks_bdim.z + ks_tid.z);\n"
		"\tconst long long ks_r = %dLL + %dLL * llabs(ks_sy) + %dLL * llabs(ks_sz);\n"
		"\n"
		"\t(void)ks_ob;\n"
		"\t(void)ks_og;\n"
		"\treturn ks_f >= ks_r && ks_f + ks_r < (long long)(%s) * %s;\n"
		"}\n\n"
		"/* The body of %s as written, for the outputs the tile does not "
		"cover. */\n"
		"__device__ __noinline__ static void\n"
		"ks_st_orig_%s(const uint3 ks_tid, const uint3 ks_bid, "
		"const dim3 ks_bdim,\n\tconst dim3 ks_gdim, %s)\n",
		kname, params, csy, csz, s->c0[0], s->c0[1], s->c0[2], s->r[0],
		s->r[1], s->r[2], clim, s->dims == 3 ? "ks_sz" : "ks_sy", kname,
		kname, params);
	ks_buf_add(&pre, orig.buf, orig.len);
	ks_buf_adds(&pre, "\n\n");
	ks_buf_addf(&w,
		"{\n"
		"\tif (!ks_st_in_%s(ks_tid, ks_bid, ks_bdim, ks_gdim, %s)) {\n"
		"\t\tks_st_orig_%s(ks_tid, ks_bid, ks_bdim, ks_gdim, %s);\n"
		"\t\treturn;\n"
		"\t}\n",
		kname, args, kname, args);
	ks_buf_add(&w, body->buf, body->len);
	ks_buf_adds(&w, "\n}");
	ks_buf_release(body);
	*body = w;
	s->pre = ks_buf_detach(&pre, NULL);
	ks_buf_release(&orig);
	return 0;
}

/* The element type's tokens in the body outside its accesses (each a
 * declaration of a lane value, xflane.h), counted or made edits to
 * ks_L (the element type again in the one-output instance). */
struct type_tok {
	const struct st *s;
	const char *T;
	struct ks_xfbody_edit *edits;
	size_t n;
};

static int
type_tok(const char *text, const struct ks_xfk_tok *t, void *ctx)
{
	struct type_tok *c = ctx;

	if (t->kind != 'i' || !ks_xfk_tok_is(text, t, c->T))
		return 0;
	for (size_t i = 0; i < c->s->f->nacc; i++) {
		const struct ks_access *a = &c->s->f->acc[i];

		if (a->in_main && a->begin <= t->begin && t->end <= a->end)
			return 0;
	}
	if (c->edits) {
		c->edits[c->n].begin = t->begin;
		c->edits[c->n].end = t->end;
		c->edits[c->n].with = "ks_L";
	}
	c->n++;
	return 0;
}

static size_t
type_edits(const struct st *s, const struct ks_xf_input *in, const char *T,
	   struct ks_xfbody_edit *edits)
{
	struct type_tok c = { s, T, edits, 0 };

	ks_xfk_scan(in->text, s->k->body.begin, s->k->body.end, s->k->body.line,
		    type_tok, &c);
	return c.n;
}

/* A bounds check's subject may depend on the thread's x coordinate. */
static int
form_has_x(const struct ks_form *f)
{
	const unsigned xb = KS_SRC_BIT(KS_SRC_TID_X) | KS_SRC_BIT(KS_SRC_BID_X);

	return f->c[KS_SRC_TID_X].n || f->c[KS_SRC_TID_X].opaque ||
	       f->c[KS_SRC_BID_X].n || f->c[KS_SRC_BID_X].opaque ||
	       (f->nonlinear & xb) || f->xv == KS_XV_OWN || f->data;
}

/* A read on the thread's own column (off no axis but the slowest). */
static int
on_column(const struct st *s, const struct st_read *r)
{
	for (int ax = 0; ax < s->dims - 1; ax++)
		if (axis_used(r, ax))
			return 0;
	return 1;
}

/* The streaming form keeps the reads off the column global, the plane
 * form those off the column and off the plane at once (a box's, along
 * the slowest axis). */
static int
read_kept(const struct st *s, const struct st_read *r, long long stream)
{
	const int col = on_column(s, r);

	return (stream == 1 && !col) ||
	       (stream == 2 && !col && axis_used(r, s->dims - 1));
}

/*
 * Whether the packed form's pk outputs of a thread may share one run of
 * the body on pk-wide values (xflane.h); then `agree` gets the C
 * expression, over the kernel's ks_tx, ks_bx and ks_ob, that the pk
 * outputs take each of the kernel's bounds checks on x the same way
 * (each check is evaluated for every output and compared with the
 * first's). Returns 1, or 0 with the reason in `why`.
 */
static int
lane_plan(const struct st *s, const struct ks_xf_input *in, long long pk,
	  const char *T, const char *O, struct ks_buf *agree, struct ks_buf *why)
{
	struct ks_xflane_range *rr = calloc(s->nreads + 1, sizeof(*rr));
	struct ks_xflane_range *sr = calloc(s->f->nacc + 1, sizeof(*sr));
	struct ks_xflane l;
	size_t nr = 0, ns = 0;
	int ok = 0, n = 0;

	if (!rr || !sr) {
		ks_buf_adds(why, "out of memory");
		goto out;
	}
	if (s->fallback) {
		ks_buf_adds(why, "outputs whose reads could leave the tile run the "
				 "kernel's own body");
		goto out;
	}
	if (s->f->declares_double) {
		ks_buf_adds(why, "the kernel declares a double (its arithmetic "
				 "rounds once an expression, lanes would round "
				 "once an operation)");
		goto out;
	}
	if (strcmp(T, O) || T[strspn(T, "abcdefghijklmnopqrstuvwxyz"
				     "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")]) {
		ks_buf_addf(why, "the input (%s) and the output (%s) are not of "
				 "one element type named by one word",
			    T, O);
		goto out;
	}
	for (size_t i = 0; i < s->nreads; i++) {
		const struct ks_access *a = &s->f->acc[s->reads[i].acc];

		if (!a->in_main) {
			ks_buf_addf(why, "the read on line %u is not in the file "
					 "as written",
				    a->line);
			goto out;
		}
		if (read_kept(s, &s->reads[i], 2)) {
			ks_buf_addf(why, "the read on line %u stays the kernel's "
					 "own (off the column and the plane)",
				    a->line);
			goto out;
		}
		rr[nr].begin = a->begin;
		rr[nr++].end = a->end;
	}
	for (size_t i = 0; i < s->f->nacc; i++) {
		const struct ks_access *a = &s->f->acc[i];

		if (a->array != s->S || !(a->flags & KS_ACC_STORE))
			continue;
		sr[ns].begin = a->begin;
		sr[ns++].end = a->end;
	}
	l.text = in->text;
	l.k = s->k;
	l.f = s->f;
	l.elem = T;
	l.reads = rr;
	l.nreads = nr;
	l.stores = sr;
	l.nstores = ns;
	if (!ks_xflane_check(&l, why))
		goto out;
	for (size_t b = 0; b < s->f->nbranches; b++) {
		const struct ks_branch *br = &s->f->branches[b];
		static const char *const ops[] = {
			[KS_CMP_LT] = "<", [KS_CMP_LE] = "<=",
			[KS_CMP_GT] = ">", [KS_CMP_GE] = ">=",
		};
		struct ks_buf lim = KS_BUF_INIT, s0 = KS_BUF_INIT, sv = KS_BUF_INIT;
		int bad = br->cmp == KS_CMP_NONE;

		if (br->kind != KS_BR_BOUNDS || !form_has_x(&br->subject))
			continue;
		bad = bad || ks_xfk_form_c(&s->x, &br->limit, NULL, NULL, "ks_o", &lim) ||
		      ks_xfk_form_c(&s->x, &br->subject, "(long long)ks_tx[0]",
				    "(long long)ks_bx[0]", "ks_o", &s0);
		for (long long v = 1; !bad && v < pk; v++) {
			char tx[48], bx[48];	/* room for any long long */

			snprintf(tx, sizeof(tx), "(long long)ks_tx[%lld]", v);
			snprintf(bx, sizeof(bx), "(long long)ks_bx[%lld]", v);
			ks_buf_reset(&sv);
			bad = ks_xfk_form_c(&s->x, &br->subject, tx, bx, "ks_o", &sv);
			if (!bad)
				ks_buf_addf(agree, "%s((%s) %s (%s)) == ((%s) %s (%s))",
					    n++ ? " &&\n\t\t" : "", s0.buf, ops[br->cmp],
					    lim.buf, sv.buf, ops[br->cmp], lim.buf);
		}
		ks_buf_release(&lim);
		ks_buf_release(&s0);
		ks_buf_release(&sv);
		if (bad) {
			ks_buf_addf(why, "the bounds check on line %u cannot be "
					 "evaluated for each output",
				    br->line);
			goto out;
		}
	}
	if (!n)
		ks_buf_adds(agree, "true");
	ok = 1;
out:
	free(rr);
	free(sr);
	return ok;
}

static enum ks_xf_result
apply(const struct ks_xf_input *in, const struct ks_xf_point *p,
      struct ks_buf *variant, struct ks_buf *reason)
{
	const long long bx = p->v[0], rows = p->v[2], planes = p->v[3],
			stream = p->v[4], vx = p->v[7], pack = p->v[8],
			lanes = p->v[10];
	long long by = p->v[1], depth = p->v[5], minb, pk, unroll = p->v[9];
	struct st s;
	struct ks_buf params = KS_BUF_INIT, bparams = KS_BUF_INIT;
	struct ks_buf args = KS_BUF_INIT, body = KS_BUF_INIT;
	struct ks_buf csy = KS_BUF_INIT, csz = KS_BUF_INIT, clim = KS_BUF_INIT;
	struct ks_xfbody_edit *edits = NULL;
	char **withs = NULL;
	struct ks_xfbody_elem el;
	enum ks_xf_result rc = KS_XF_DECLINED;
	const char *iname, *kname, *T, *O = NULL, *oname;
	struct ks_xfbody_elem oel;
	long long rx, ry, rz, tw, th, qn;
	size_t nedits = 0, ntype = 0;
	int lane = 0;
	struct ks_buf agree = KS_BUF_INIT, lane_why = KS_BUF_INIT;

	memset(&s, 0, sizeof(s));
	if (recognize(&s, in, reason))
		goto out;
	kname = s.k->name;
	iname = s.k->params[s.f->arrays[s.I].param].name;
	rx = s.r[0];
	ry = s.r[1];
	rz = s.r[2];
	/* 0: chosen by the radius. A 3-D tile of radius 3 or more takes 16
	   rows, so that its y halo is at most half the rows it loads; the
	   column ring holds 2 r + 1 + depth values of the streamed axis, so
	   radius 3 or more keeps 2 steps of loads ahead (4 spilled at radius
	   4 under the default register budget); a 2-D tile streams nothing */
	if (!by)
		by = s.dims == 3 && ry >= 3 ? 16 : 8;
	if (!depth)
		depth = !stream && s.dims == 2 ? 1
			: (s.dims == 3 ? rz : ry) >= 3 ? 2 : 4;
	/* pack=4 or 2 where the plane form of a 3-D stencil of 4-byte
	   elements allows it (a star in the plane, x radius at most 4, a
	   tile width of 4 k), else one output a thread */
	pk = (pack == 4 || pack == 2) && stream == 2 && s.dims == 3 &&
	     s.E == 4 && vx == 1 && !s.diag && rx <= 4 && bx % 4 == 0 &&
	     bx >= 8 ? pack : 0;
	/* and an output the kernel only writes (its stores become
	   registers until the 4 bodies are done) */
	for (size_t i = 0; pk && i < s.f->nacc; i++)
		if (s.f->acc[i].array == s.S && (s.f->acc[i].flags & KS_ACC_LOAD))
			pk = 0;
	oname = s.k->params[s.f->arrays[s.S].param].name;
	if (pk && (ks_xfbody_elem(s.k, s.f->arrays[s.S].param, &oel, reason) ||
		   oel.bytes != 4)) {
		/* an output of other elements: one output a thread */
		pk = 0;
		ks_buf_reset(reason);
	}
	O = pk ? oel.ctype : NULL;
	if (unroll && !pk) {
		ks_buf_addf(reason, "unroll applies to the packed plane form only "
				    "(pack=4 or 2 where it applies; unroll=0 elsewhere)");
		goto out;
	}
	if (!lanes && !pk) {
		ks_buf_addf(reason, "lanes applies to the packed plane form only "
				    "(pack=4 or 2 where it applies; lanes=1 elsewhere)");
		goto out;
	}
	/* 0: at a z radius of 3 or more, 4 steps where that is a multiple
	   of the halo's stages below the ring's length (a third of the code
	   at radius 4, whose whole ring stalled on instruction fetch), else
	   the whole ring */
	if (!unroll) {
		const long long st = depth > 2 ? depth : 2;

		unroll = pk && rz >= 3 && 4 % st == 0 && 4 < ring_steps(rz, depth)
				 ? 4 : 0;
	} else if (unroll < 0) {
		unroll = 0;
	} else {
		const long long st = depth > 2 ? depth : 2;
		const long long ql = ring_steps(rz, depth);

		if (unroll % st || unroll >= ql) {
			ks_buf_addf(reason, "unroll=%lld is not a multiple of %lld "
					    "below the ring's %lld steps",
				    unroll, st, ql);
			goto out;
		}
	}
	if ((pk ? bx / pk : bx) * by > 1024) {
		ks_buf_addf(reason, "a %lldx%lld block has more than 1024 threads",
			    pk ? bx / pk : bx, by);
		goto out;
	}
	/* blocks per SM the registers must allow (1: the compiler's choice);
	   a packed thread holds the window of its outputs and their column
	   ring: some 128 registers for 4 outputs, at most 512 threads an SM,
	   about 80 for 2 (ptxas, radius 4), at most 768 */
	{
		const long long nth = pk ? bx / pk * by : bx * by;
		const long long cap = pk == 4 ? 512 : pk == 2 ? 768 : 0;
		const long long res = cap && p->v[6] > cap ? cap : p->v[6];

		minb = nth < res ? res / nth : 1;
	}
	tw = bx + 2 * rx;
	th = (s.dims == 3 ? by : by * rows) + 2 * ry;
	qn = 2 * rz + 1;
	if (ks_xfbody_elem(s.k, s.f->arrays[s.I].param, &el, reason))
		goto out;
	if (el.bytes != s.E) {
		ks_buf_addf(reason, "%s is read as another type than it points to",
			    iname);
		goto out;
	}
	T = el.ctype;
	if (stream == 2) {
		if (rows != 4) {
			ks_buf_addf(reason, "rows applies to the 2-D tile form only "
					    "(rows=4 with stream=2)");
			goto out;
		}
		if (s.dims == 2 && bx < 2 * rx) {
			ks_buf_addf(reason,
				    "a row of %lld threads cannot load its halo of "
				    "2 x %lld",
				    bx, rx);
			goto out;
		}
		if (2 * (pk ? bx + 8 : bx * vx + 2 * rx) *
			    (s.dims == 3 ? th : by) * (long long)s.E > 48 * 1024) {
			ks_buf_addf(reason,
				    "two %lldx%lld planes of %s need more than 49152 "
				    "bytes of shared memory",
				    bx * vx + 2 * rx, s.dims == 3 ? th : by, T);
			goto out;
		}
	} else if (stream) {
		if (rows != 4) {
			ks_buf_addf(reason, "rows applies to the tile form only "
					    "(rows=4 with stream=1)");
			goto out;
		}
	} else if (vx != 1) {
		ks_buf_addf(reason, "vx applies to the streaming form only (vx=1 "
				    "with stream=0)");
		goto out;
	} else if (s.dims == 2 && depth != 1) {
		ks_buf_addf(reason, "depth applies to the streaming form and 3-D "
				    "tiles only (depth=1 for a 2-D tile)");
		goto out;
	} else if (s.dims == 3 && s.offcol_line) {
		ks_buf_addf(reason,
			    "the read on line %u is off the thread's column along "
			    "z and off its plane at once: the tile form streams "
			    "along z and needs a star in z",
			    s.offcol_line);
		goto out;
	}
	if (!stream && tw * th * (long long)s.E > 48 * 1024) {
		ks_buf_addf(reason,
			    "a %lldx%lld tile of %s needs more than 49152 bytes "
			    "of shared memory",
			    tw, th, T);
		goto out;
	}
	if (!stream && s.dims == 2 && planes != 64) {
		ks_buf_addf(reason, "planes applies to 3-D stencils and the "
				    "streaming form only (planes=64 for a 2-D "
				    "tile)");
		goto out;
	}
	if (!stream && s.dims == 3 && rows != 4) {
		ks_buf_addf(reason, "rows applies to 2-D stencils only (rows=4 "
				    "for a 3-D one)");
		goto out;
	}
	{
		struct mention m;

		m.s = &s;
		m.name = iname;
		m.n = strlen(iname);
		m.bad_line = 0;
		ks_xfk_scan(in->text, s.k->body.begin, s.k->body.end,
			    s.k->body.line, check_mention, &m);
		if (m.bad_line) {
			ks_buf_addf(reason,
				    "%s is used on line %u other than by a read "
				    "the facts place",
				    iname, m.bad_line);
			goto out;
		}
	}
	/* the packed form's bodies: once on lanes where the body allows */
	if (pk && lanes) {
		lane = lane_plan(&s, in, pk, T, O, &agree, &lane_why);
		if (lane)
			ntype = type_edits(&s, in, T, NULL);
	}
	edits = calloc(s.nreads + s.f->nacc + ntype + 1, sizeof(*edits));
	withs = calloc(s.nreads + s.f->nacc + ntype + 1, sizeof(*withs));
	if (!edits || !withs)
		goto out;
	if (lane)
		nedits = type_edits(&s, in, T, edits);
	for (size_t i = 0; i < s.nreads; i++) {
		const struct st_read *r = &s.reads[i];
		const struct ks_access *a = &s.f->acc[r->acc];
		struct ks_buf w = KS_BUF_INIT;
		const int sa = s.dims - 1, col = on_column(&s, r);

		if (read_kept(&s, r, stream))
			continue;

		if (index_kept(in, a, iname, "read", &w, reason))
			goto out;
		if (stream == 1 || (stream == 2 && col)) {
			ks_buf_addf(&w, "ks_st_q(ks_q, %d + ", s.r[sa]);
			delta_c(&s, r, sa, &w);
			ks_buf_adds(&w, ")");
		} else if (s.dims == 3 && (axis_used(r, 2) ||
				    (!axis_used(r, 0) && !axis_used(r, 1)))) {
			ks_buf_addf(&w, "ks_st_q(ks_q, %lld + ", rz);
			delta_c(&s, r, 2, &w);
			ks_buf_adds(&w, ")");
		} else if (pk && lane) {
			ks_buf_addf(&w, "ks_st_rd<ks_L>(ks_tw, %lld + ", ry);
			delta_c(&s, r, 1, &w);
			ks_buf_adds(&w, ", 4 + ks_j + ");
			delta_c(&s, r, 0, &w);
			ks_buf_adds(&w, ")");
		} else if (pk) {
			ks_buf_addf(&w, "ks_tw[%lld + ", ry);
			delta_c(&s, r, 1, &w);
			ks_buf_adds(&w, "][4 + ks_j + ");
			delta_c(&s, r, 0, &w);
			ks_buf_adds(&w, "]");
		} else {
			ks_buf_adds(&w, "ks_t[ks_ly + ");
			delta_c(&s, r, 1, &w);
			ks_buf_adds(&w, "][ks_lx + ");
			delta_c(&s, r, 0, &w);
			ks_buf_adds(&w, "]");
		}
		ks_buf_adds(&w, ")");
		edits[nedits].begin = a->begin;
		edits[nedits].end = a->end;
		withs[nedits] = ks_buf_detach(&w, NULL);
		edits[nedits].with = withs[nedits];
		nedits++;
	}
	/* the packed form: the body's stores of the output into registers,
	   written as one 16-byte vector for the 4 outputs after the bodies */
	for (size_t i = 0; pk && i < s.f->nacc; i++) {
		const struct ks_access *a = &s.f->acc[i];
		struct ks_buf w = KS_BUF_INIT;

		if (a->array != s.S || !(a->flags & KS_ACC_STORE))
			continue;
		if (index_kept(in, a, oname, "store", &w, reason))
			goto out;
		ks_buf_adds(&w, lane ? "ks_om |= ks_st_mask<ks_L>(ks_j), "
				       "ks_st_out<ks_L>(ks_ov, ks_j))"
				     : "ks_om |= 1u << ks_j, ks_ov[ks_j])");
		edits[nedits].begin = a->begin;
		edits[nedits].end = a->end;
		withs[nedits] = ks_buf_detach(&w, NULL);
		edits[nedits].with = withs[nedits];
		nedits++;
	}
	qsort(edits, nedits, sizeof(*edits), edit_cmp);
	for (size_t i = 1; i < nedits; i++)
		if (edits[i].begin < edits[i - 1].end) {
			ks_buf_addf(reason, "two reads of %s overlap in the text",
				    iname);
			goto out;
		}
	{
		struct ks_poly py, pz;

		memset(&py, 0, sizeof(py));
		py.n = 1;
		py.m[0] = s.sy;
		memset(&pz, 0, sizeof(pz));
		pz.n = 1;
		pz.m[0] = s.sz;
		if (poly_c(&s, &py, &csy) ||
		    (s.dims == 3 && poly_c(&s, &pz, &csz)) ||
		    ks_xfk_form_c(&s.x, &s.f->branches[s.limit_br].limit, NULL,
				  NULL, "ks_o", &clim)) {
			ks_buf_addf(reason,
				    "a stride or the extent of %s is not a "
				    "product of kernel parameters",
				    kname);
			goto out;
		}
		if (s.dims == 2)
			ks_buf_adds(&csz, "0LL");
	}
	if (s.limit_plus1) {
		struct ks_buf l = KS_BUF_INIT;

		ks_buf_addf(&l, "((%s) + 1)", clim.buf);
		ks_buf_release(&clim);
		clim = l;
	}
	if (ks_xfbody_params(s.k, -1, NULL, -1, NULL, &params, reason) ||
	    ks_xfbody_copy(in->text, in->len, s.k, edits, nedits, renames,
			   &body, reason))
		goto out;
	ks_xfbody_args(s.k, &args);
	if (s.fallback && fallback(&s, in, kname, params.buf, args.buf, csy.buf,
				   csz.buf, clim.buf, &body, reason))
		goto out;
	if (pk) {
		if (emit_planev(&s, pk, in, T, iname, O, oname, params.buf, args.buf, &body,
				csy.buf, csz.buf, clim.buf, bx, by, planes, depth,
				minb, unroll, lane ? agree.buf : NULL, lane_why.buf,
				variant, reason) == 0)
			rc = KS_XF_APPLIED;
		goto out;
	}
	if (stream == 2) {
		if (emit_plane(&s, in, T, iname, params.buf, args.buf, &body,
			       csy.buf, csz.buf, clim.buf, bx, by, planes, depth,
			       minb, vx, variant, reason) == 0)
			rc = KS_XF_APPLIED;
		goto out;
	}
	if (stream) {
		if (emit_stream(&s, in, T, iname, params.buf, args.buf, &body,
				csy.buf, csz.buf, clim.buf, bx, by, planes, depth,
				minb, vx, variant, reason) == 0)
			rc = KS_XF_APPLIED;
		goto out;
	}
	ks_buf_addf(&bparams, "const %s (*ks_t)[%lld], const int ks_lx, "
			      "const int ks_ly, ",
		    T, tw);
	if (s.dims == 3)
		ks_buf_addf(&bparams, "const %s (&ks_q)[%lld], ", T, qn);
	ks_buf_add(&bparams, params.buf, params.len);

	if (s.dims == 2)
		ks_buf_addf(variant,
			    "// %s: 2-D stencil of radius %lld x %lld from a "
			    "shared %lldx%lld tile with halo, %lldx%lld threads, "
			    "%lld rows each (stencil_smem_halo)\n",
			    kname, rx, ry, tw, th, bx, by, rows);
	else
		ks_buf_addf(variant,
			    "// %s: 3-D star stencil of radius %lld/%lld/%lld, a "
			    "%lldx%lld x-y tile with halo walking %lld planes, "
			    "the z column in registers (stencil_smem_halo)\n",
			    kname, rx, ry, rz, bx, by, planes);
	ks_buf_adds(variant, "// ks-nvcc: helpers\n");
	ks_buf_adds(variant, helpers);
	if (s.pre)
		ks_buf_adds(variant, s.pre);
	ks_buf_addf(variant,
		    "/* The body of %s at thread ks_tid of block ks_bid, its reads "
		    "of %s from\n   the tile at (ks_lx, ks_ly)%s. */\n"
		    "__device__ __forceinline__ static void\n"
		    "ks_st_body_%s(const uint3 ks_tid, const uint3 ks_bid, "
		    "const dim3 ks_bdim, const dim3 ks_gdim,\n\t%s)\n",
		    kname, iname,
		    s.dims == 3 ? " and the column ks_q" : "", kname,
		    bparams.buf);
	ks_buf_add(variant, body.buf, body.len);
	ks_buf_adds(variant, "\n\n");
	/* the kernel: cells (cx, cy) of the tile are the grid points
	   (x0 - rx + cx, y0 - ry + cy) */
	ks_buf_addf(variant,
		"/* A %lldx%lld block over the original grid's global indices (ks_og\n"
		"   blocks of ks_ob threads). */\n"
		"__global__ void __launch_bounds__(%lld, %lld)\n"
		"ks_st_%s(const dim3 ks_og, const dim3 ks_ob, %s)\n"
		"{\n"
		"\t__shared__ %s ks_t[%lld][%lld];\n"
		"\tconst long long ks_sy = %s, ks_sz = %s;\n"
		"\t/* the elements the bounds checks span; the output's fixed offset */\n"
		"\tconst long long ks_n = (long long)(%s) * %s;\n"
		"\tconst long long ks_c0 = %lldLL + %lldLL * ks_sy + %lldLL * ks_sz;\n"
		"\tconst unsigned ks_cx = ks_og.x * ks_ob.x, ks_cy = ks_og.y * ks_ob.y;\n"
		"\tconst long long ks_x0 = (long long)blockIdx.x * %lld;\n",
		bx, by, bx * by, minb, kname, params.buf, T, th, tw, csy.buf, csz.buf,
		clim.buf, s.dims == 3 ? "ks_sz" : "ks_sy", s.c0[0], s.c0[1],
		s.c0[2], bx);
	ks_buf_addf(variant,
		"\tconst long long ks_y0 = (long long)blockIdx.y * %lld;\n"
		"\tconst unsigned ks_gx = (unsigned)ks_x0 + threadIdx.x;\n"
		"\tconst unsigned ks_tx = ks_gx %% ks_ob.x, ks_bx = ks_gx / ks_ob.x;\n"
		"\tconst int ks_lx = threadIdx.x + %lld;\n",
		s.dims == 3 ? by : by * rows, rx);
	/* the halo loop, shared by both forms; `interior` skips the cells
	   the column fills */
	{
		struct ks_buf hl = KS_BUF_INIT;
		const char *skip_in = s.dims == 3 ? "\t\t\tif (ks_xin && ks_yin)\n"
						    "\t\t\t\tcontinue;\n"
						  : "";

		ks_buf_addf(&hl,
			"#pragma unroll 4\n"
			"\t\tfor (int ks_c = threadIdx.y * %lld + threadIdx.x; ks_c < %lld; ks_c += %lld) {\n"
			"\t\t\tconst int ks_ty_ = ks_c / %lld, ks_tx_ = ks_c %% %lld;\n"
			"\t\t\tconst bool ks_xin = ks_tx_ >= %lld && ks_tx_ < %lld;\n"
			"\t\t\tconst bool ks_yin = ks_ty_ >= %lld && ks_ty_ < %lld;\n"
			"\n"
			"\t\t\t(void)ks_xin;\n"
			"\t\t\t(void)ks_yin;\n"
			"%s%s"
			"\t\t\tks_t[ks_ty_][ks_tx_] = ks_st_ld(%s, ks_c0 + ks_x0 - %lld + ks_tx_ +\n"
			"\t\t\t\tks_sy * (ks_y0 - %lld + ks_ty_)%s, ks_n);\n"
			"\t\t}\n",
			bx, tw * th, bx * by, tw, tw, rx, rx + bx, ry,
			th - ry, skip_in,
			s.diag ? "" : "\t\t\tif (!ks_xin && !ks_yin)\n"
				      "\t\t\t\tcontinue;\n",
			iname, rx, ry, s.dims == 3 ? " + ks_sz * ks_z" : "");
		if (s.dims == 2) {
			ks_buf_addf(variant,
				"\t(void)ks_sz;\n"
				"\t{\n%s\t}\n"
				"\t__syncthreads();\n"
				"\t/* the original block and thread of row ks_gy, stepped by %lld rows\n"
				"\t   (a uniform number of blocks and a remainder with one carry) */\n"
				"\tconst unsigned ks_sq = %lldu / ks_ob.y, ks_sr = %lldu %% ks_ob.y;\n"
				"\tunsigned ks_gy = (unsigned)ks_y0 + threadIdx.y;\n"
				"\tunsigned ks_ty = ks_gy %% ks_ob.y, ks_by = ks_gy / ks_ob.y;\n"
				"\n"
				"#pragma unroll\n"
				"\tfor (int ks_j = 0; ks_j < %lld; ks_j++) {\n"
				"\t\tif (ks_gx < ks_cx && ks_gy < ks_cy)\n"
				"\t\t\tks_st_body_%s(make_uint3(ks_tx, ks_ty, 0),\n"
				"\t\t\t\tmake_uint3(ks_bx, ks_by, 0), ks_ob, ks_og, ks_t,\n"
				"\t\t\t\tks_lx, threadIdx.y + ks_j * %lld + %lld, %s);\n"
				"\t\tks_gy += %lldu;\n"
				"\t\tks_ty += ks_sr;\n"
				"\t\tks_by += ks_sq;\n"
				"\t\tif (ks_ty >= ks_ob.y) {\n"
				"\t\t\tks_ty -= ks_ob.y;\n"
				"\t\t\tks_by++;\n"
				"\t\t}\n"
				"\t}\n"
				"}\n",
				hl.buf, by, by, by, rows, kname, by, ry, args.buf, by);
		} else {
			const long long nt = bx * by, ns = (tw * th + nt - 1) / nt;
			/* the column's ring: 2 rz + 1 + depth slots at least, a
			   multiple of depth so that one unrolled round of the
			   plane loop names every slot and halo stage as a
			   constant */
			const long long ql = (qn + depth + depth - 1) / depth * depth;

			ks_buf_addf(variant,
				"\tconst unsigned ks_gy = (unsigned)ks_y0 + threadIdx.y;\n"
				"\tconst unsigned ks_ty = ks_gy %% ks_ob.y, ks_by = ks_gy / ks_ob.y;\n"
				"\tconst int ks_ly = threadIdx.y + %lld;\n"
				"\tconst bool ks_mine = ks_gx < ks_cx && ks_gy < ks_cy;\n"
				"\tconst long long ks_cz = (long long)ks_og.z * ks_ob.z;\n"
				"\tconst long long ks_z0 = (long long)blockIdx.z * %lld;\n"
				"\tconst long long ks_zend = ks_z0 + %lld < ks_cz ? ks_z0 + %lld : ks_cz;\n"
				"\tconst long long ks_f = ks_c0 + (long long)ks_gx + ks_sy * ks_gy;\n"
				"\tunsigned ks_tz = (unsigned)(ks_z0 %% ks_ob.z), ks_bz = (unsigned)(ks_z0 / ks_ob.z);\n"
				"\t/* the column's ring: slot (p - ks_z0 + %lld) %% %lld holds plane p;\n"
				"\t   the halo of plane p in stage (p - ks_z0) %% %lld */\n"
				"\t%s ks_q[%lld], ks_h[%lld][%lld];\n"
				"\t/* this thread's halo cells: tile slot (-1: none) and flat offset in plane 0 */\n"
				"\tint ks_hs[%lld];\n"
				"\tlong long ks_ho[%lld];\n"
				"\n",
				ry, planes, planes, planes, rz, ql, depth, T, ql,
				depth, ns, ns, ns);
			ks_buf_addf(variant,
				"#pragma unroll\n"
				"\tfor (int ks_s = 0; ks_s < %lld; ks_s++) {\n"
				"\t\tconst int ks_c = threadIdx.y * %lld + threadIdx.x + ks_s * %lld;\n"
				"\t\tconst int ks_ty_ = ks_c / %lld, ks_tx_ = ks_c %% %lld;\n"
				"\t\tconst bool ks_xin = ks_tx_ >= %lld && ks_tx_ < %lld;\n"
				"\t\tconst bool ks_yin = ks_ty_ >= %lld && ks_ty_ < %lld;\n"
				"\n"
				"\t\tks_hs[ks_s] = ks_c < %lld && !(ks_xin && ks_yin)%s ? ks_c : -1;\n"
				"\t\tks_ho[ks_s] = ks_c0 + ks_x0 - %lld + ks_tx_ + ks_sy * (ks_y0 - %lld + ks_ty_);\n"
				"\t}\n",
				ns, bx, nt, tw, tw, rx, rx + bx, ry, th - ry, tw * th,
				s.diag ? "" : " && (ks_xin || ks_yin)", rx, ry);
			ks_buf_addf(variant,
				"\t/* the column and the halos of the first %lld planes; then each\n"
				"\t   plane's loads are in flight during the next %lld planes' bodies */\n"
				"#pragma unroll\n"
				"\tfor (int ks_j = 0; ks_j < %lld; ks_j++)\n"
				"\t\tks_q[ks_j] = ks_st_ld(%s, ks_f + ks_sz * (ks_z0 - %lld + ks_j), ks_n);\n"
				"#pragma unroll\n"
				"\tfor (int ks_d = 0; ks_d < %lld; ks_d++)\n"
				"#pragma unroll\n"
				"\t\tfor (int ks_s = 0; ks_s < %lld; ks_s++)\n"
				"\t\t\tks_h[ks_d][ks_s] = ks_hs[ks_s] >= 0 ? ks_st_ld(%s, ks_ho[ks_s] + ks_sz * (ks_z0 + ks_d), ks_n) : %s(0);\n",
				depth, depth, qn + depth - 1, iname, rz, depth, ns,
				iname, T);
			ks_buf_addf(variant,
				"\tfor (long long ks_z = ks_z0; ks_z < ks_zend; ks_z += %lld) {\n"
				"#pragma unroll\n"
				"\t\tfor (int ks_u = 0; ks_u < %lld; ks_u++) {\n"
				"\t\t\tconst long long ks_p = ks_z + ks_u;\n"
				"\t\t\t%s ks_w[%lld];\n"
				"\n"
				"\t\t\tif (ks_p >= ks_zend)\n"
				"\t\t\t\tbreak;\n"
				"\t\t\t__syncthreads();\n"
				"#pragma unroll\n"
				"\t\t\tfor (int ks_s = 0; ks_s < %lld; ks_s++)\n"
				"\t\t\t\tif (ks_hs[ks_s] >= 0)\n"
				"\t\t\t\t\t(&ks_t[0][0])[ks_hs[ks_s]] = ks_h[ks_u %% %lld][ks_s];\n"
				"\t\t\tks_t[ks_ly][ks_lx] = ks_q[(ks_u + %lld) %% %lld];\n"
				"\t\t\t__syncthreads();\n"
				"\t\t\tks_q[(ks_u + %lld) %% %lld] = ks_st_ld(%s, ks_f + ks_sz * (ks_p + %lld), ks_n);\n"
				"#pragma unroll\n"
				"\t\t\tfor (int ks_s = 0; ks_s < %lld; ks_s++)\n"
				"\t\t\t\tks_h[ks_u %% %lld][ks_s] = ks_hs[ks_s] >= 0 ? ks_st_ld(%s, ks_ho[ks_s] + ks_sz * (ks_p + %lld), ks_n) : %s(0);\n"
				"#pragma unroll\n"
				"\t\t\tfor (int ks_j = 0; ks_j < %lld; ks_j++)\n"
				"\t\t\t\tks_w[ks_j] = ks_q[(ks_u + ks_j) %% %lld];\n"
				"\t\t\tif (ks_mine)\n"
				"\t\t\t\tks_st_body_%s(make_uint3(ks_tx, ks_ty, ks_tz),\n"
				"\t\t\t\t\tmake_uint3(ks_bx, ks_by, ks_bz), ks_ob, ks_og, ks_t,\n"
				"\t\t\t\t\tks_lx, ks_ly, ks_w, %s);\n"
				"\t\t\tif (++ks_tz == ks_ob.z) {\n"
				"\t\t\t\tks_tz = 0;\n"
				"\t\t\t\tks_bz++;\n"
				"\t\t\t}\n"
				"\t\t}\n"
				"\t}\n"
				"}\n",
				ql, ql, T, qn, ns, depth, rz, ql, qn + depth - 1, ql,
				iname, rz + depth, ns, depth, iname, depth, T, qn, ql,
				kname, args.buf);
		}
		ks_buf_release(&hl);
	}
	ks_buf_adds(variant, "// ks-nvcc: definition\n");
	if (ks_xfbody_definition(in->text, in->len, s.k, variant, reason))
		goto out;
	launcher(variant, s.dims == 3, "tiles", bx, s.dims == 3 ? by : by * rows,
		 planes, kname, params.buf, args.buf, bx, by);
	rc = KS_XF_APPLIED;
out:
	if (withs)
		for (size_t i = 0; i < nedits; i++)
			free(withs[i]);
	free(withs);
	free(edits);
	st_release(&s);
	ks_buf_release(&params);
	ks_buf_release(&bparams);
	ks_buf_release(&args);
	ks_buf_release(&body);
	ks_buf_release(&csy);
	ks_buf_release(&csz);
	ks_buf_release(&clim);
	ks_buf_release(&agree);
	ks_buf_release(&lane_why);
	return rc;
}

const struct ks_transform ks_xf_stencil_smem_halo = {
	.id = "stencil_smem_halo",
	.summary = "a 2-D or 3-D stencil walking its slowest axis in planes "
		   "through two shared buffers, the column in a ring of "
		   "registers with loads in flight ahead; or streamed without "
		   "shared memory; or from a shared tile with halo",
	.precondition = "one output per thread at an offset affine in the "
			"global x, y (z) indices, an input read at constant "
			"(or radius-loop) offsets in the row and plane strides, "
			"an early exit on the slowest coordinate",
	.nparams = 11,
	.params = {
		{ "bx", "threads per block along x (tile width)",
		  32, 4, { 32, 64, 16, 128 } },
		{ "by", "threads per block along y (0: 16 for a 3-D stencil "
			"of radius 3 or more, else 8)",
		  0, 4, { 0, 8, 4, 16 } },
		{ "rows", "2-D: outputs per thread along y",
		  4, 4, { 4, 2, 8, 1 } },
		{ "planes", "3-D tile, streaming: steps one block (2-D "
			    "streaming: one thread) walks along the slowest axis",
		  64, 4, { 64, 32, 16, 128 } },
		{ "stream", "2: planes walking the slowest axis through two "
			    "shared buffers; 1: register streaming along the "
			    "slowest axis, other reads global; 0: the shared tile",
		  2, 3, { 2, 1, 0 } },
		{ "depth", "streaming: steps of column loads in flight ahead "
			   "(0: 2 for a streamed radius of 3 or more, 1 for a "
			   "2-D tile, else 4)",
		  0, 5, { 0, 4, 2, 8, 1 } },
		{ "resident", "threads per SM the register use must allow "
			      "(0: the compiler's choice)",
		  1536, 4, { 1536, 2048, 1024, 0 } },
		{ "vx", "streaming, planes: columns per thread along x (bx apart)",
		  1, 3, { 1, 2, 4 } },
		{ "pack", "4 or 2: where the plane form of a 3-D "
			  "star-in-plane stencil of 4-byte elements allows (x "
			  "radius <= 4, bx a multiple of 4, vx=1), that many "
			  "consecutive outputs a thread from 16- or 8-byte "
			  "vectors, bx the tile width in outputs; elsewhere, "
			  "and 1: one output a thread",
		  4, 3, { 4, 2, 1 } },
		{ "unroll", "packed plane form: steps of the pass unrolled, the "
			    "column a window shifted after them (0: at a z "
			    "radius of 3 or more, 4 where that is a multiple of "
			    "the halo's stages below the ring's length, else the "
			    "ring's; -1: the ring's length, the column indexed "
			    "modulo it)",
		  0, 3, { 0, -1, 4 } },
		{ "lanes", "packed plane form: 1: where the body allows (its "
			   "values of x only index and bounds-check), the body "
			   "once on pack-wide values for a thread's outputs that "
			   "take its bounds checks on x alike; 0: once an output",
		  1, 2, { 1, 0 } },
	},
	.apply = apply,
};
