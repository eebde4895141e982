/*
 * The features of a kernel (features.h), decided from its facts and the
 * host facts (host.c holds those).
 */
#include "features.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/buf.h"
#include "../core/util.h"
#include "facts.h"

static const char *const names[KS_F_COUNT] = {
	"is_pointwise", "has_reuse", "streaming_no_reuse", "is_naive_gemm",
	"has_k_loop", "is_gemm_kloop", "is_stencil_conv",
	"has_shared_memory_tile", "uses_vector_types", "has_vector_load_store",
	"is_aligned_vector_access", "has_bounds_check",
	"has_tail_handling_overhead", "uses_transcendentals", "tc_eligible",
	"kernel_structure", "has_multiple_kernels", "cudagraph_eligible",
	"atomics", "atomics_uniform_address", "uncoalesced_accesses",
	"indirect_accesses", "const_trip_loops", "syncthreads",
	"warp_intrinsics", "fp64_in_float_code", "runtime_divmod_in_loops",
	"thread_dependent_branches", "index_1d", "index_2d",
	"geometry_retunable", "flat_quotient_lookups",
};

const char *
ks_feature_name(int f)
{
	return f >= 0 && f < KS_F_COUNT ? names[f] : NULL;
}

int
ks_feature_lookup(const char *name)
{
	int i;

	if (!name)
		return -1;
	if (!strcmp(name, "kernel_structure_id"))
		return KS_F_KERNEL_STRUCTURE;
	if (!strcmp(name, "has_multiple_kernels_in_forward"))
		return KS_F_HAS_MULTIPLE_KERNELS;
	for (i = 0; i < KS_F_COUNT; i++)
		if (!strcmp(names[i], name))
			return i;
	return -1;
}

void
ks_features_release(struct ks_features *f)
{
	int i;

	for (i = 0; i < KS_F_COUNT; i++)
		free(f->why[i]);
	memset(f, 0, sizeof(*f));
}

/* ---- helpers ------------------------------------------------------------- */

static void
set(struct ks_features *out, int f, int v, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void
set(struct ks_features *out, int f, int v, const char *fmt, ...)
{
	struct ks_buf b = KS_BUF_INIT;
	va_list ap;

	out->v[f] = v;
	free(out->why[f]);
	out->why[f] = NULL;
	if (!fmt)
		return;
	va_start(ap, fmt);
	ks_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	out->why[f] = ks_buf_detach(&b, NULL);
}

static int
is_global(const struct ks_facts *f, const struct ks_access *a)
{
	enum ks_space s = f->arrays[a->array].space;

	return s == KS_SPACE_GLOBAL || s == KS_SPACE_UNKNOWN;
}

/* Which thread dimensions (bit 0 x, 1 y, 2 z) a form varies with. */
static unsigned
coords(const struct ks_form *o)
{
	unsigned src = ks_form_sources(o), c = 0;
	int d;

	for (d = 0; d < 3; d++)
		if (src & (KS_SRC_BIT(KS_SRC_TID_X + d) |
			   KS_SRC_BIT(KS_SRC_BID_X + d)))
			c |= 1u << d;
	return c;
}

static unsigned
thread_src(const struct ks_form *o)
{
	return ks_form_sources(o) & KS_SRC_THREAD_MASK;
}

/* The offset in elements of the accessed type. */
static void
elem_form(const struct ks_access *a, struct ks_form *out)
{
	struct ks_form b;

	ks_form_const(&b, a->bytes ? a->bytes : 1);
	ks_form_div(out, &a->offset, &b, 0);
}

static int
same_thread_coefs(const struct ks_form *a, const struct ks_form *b)
{
	struct ks_form x = *a, y = *b;
	int s;

	/* Compare only the thread sources: clear loops and the constant. */
	for (s = KS_SRC_LOOP0; s < KS_SRC_N; s++) {
		memset(&x.c[s], 0, sizeof(x.c[s]));
		memset(&y.c[s], 0, sizeof(y.c[s]));
	}
	x.nonlinear &= KS_SRC_THREAD_MASK;
	y.nonlinear &= KS_SRC_THREAD_MASK;
	return ks_form_equal(&x, &y);
}

static const char *
acc_name(const struct ks_facts *f, const struct ks_access *a)
{
	return f->arrays[a->array].name;
}

static int
fp_scalar(enum ks_scalar s)
{
	return s == KS_T_HALF || s == KS_T_BF16 || s == KS_T_FLOAT ||
	       s == KS_T_DOUBLE || s == KS_T_INT8;
}

static int
count_calls(const struct ks_facts *f, enum ks_call_kind kind)
{
	size_t i;
	int n = 0;

	for (i = 0; i < f->ncalls; i++)
		n += f->calls[i].kind == kind;
	return n;
}

/* A load whose value other threads also read: it misses a thread
 * dimension that the stores vary with, and is not a plain scalar. */
static int
cross_thread_reuse(const struct ks_facts *f, const struct ks_access *a,
		   unsigned store_coords)
{
	unsigned src = ks_form_sources(&a->offset);

	if (!(a->flags & KS_ACC_LOAD) || !is_global(f, a) || a->offset.data)
		return 0;
	if (!(src & (KS_SRC_THREAD_MASK | KS_SRC_LOOP_MASK)))
		return 0;	/* uniform: a broadcast scalar */
	return store_coords && (coords(&a->offset) & store_coords) !=
				       store_coords &&
	       (coords(&a->offset) & ~store_coords) == 0;
}

/* Canonical global index of dimension d: bid.d*bdim.d + tid.d, plus loop
 * terms (grid-stride), nothing else. */
static int
canonical_index(const struct ks_form *s, int d)
{
	unsigned src = ks_form_sources(s);
	long long k;
	unsigned want =
		KS_SRC_BIT(KS_SRC_TID_X + d) | KS_SRC_BIT(KS_SRC_BID_X + d);

	if (s->nonlinear || s->data || (src & KS_SRC_THREAD_MASK) != want)
		return 0;
	if (!ks_form_coef_const(s, KS_SRC_TID_X + d, &k) || k != 1)
		return 0;
	if (!ks_form_global_index_only(s))
		return 0;
	return !(src & KS_SRC_BIT(KS_SRC_ONE)) ||
	       (ks_form_coef_const(s, KS_SRC_ONE, &k) && k == 0);
}

/* ---- the features -------------------------------------------------------- */

struct ctx {
	const struct ks_facts *f;
	unsigned store_coords;
	int nstores, nloads, shared_tile, k_loop, gemm, naive, tc;
	int stencil, reuse, atomics, atomics_data, indirect;
};

static void
gemm_features(struct ctx *c, struct ks_features *out)
{
	const struct ks_facts *f = c->f;
	size_t i;

	for (i = 0; i < f->nproducts; i++) {
		const struct ks_product *p = &f->products[i];
		const struct ks_access *a = &f->acc[p->a], *b = &f->acc[p->b];
		unsigned ca = coords(&a->offset), cb = coords(&b->offset);
		unsigned la = ks_form_sources(&a->offset) & KS_SRC_LOOP_MASK;
		unsigned lb = ks_form_sources(&b->offset) & KS_SRC_LOOP_MASK;

		if (p->loop < 0 || !p->accumulate || !(la & lb))
			continue;
		/* x[j] * x[j]: a sum of squares, not a dot product */
		if (a->array == b->array &&
		    ks_form_equal(&a->offset, &b->offset))
			continue;
		if (!c->k_loop)
			set(out, KS_F_HAS_K_LOOP, 1,
			    "line %u: %s[...] * %s[...] accumulated in a loop",
			    p->line, acc_name(f, a), acc_name(f, b));
		c->k_loop = 1;
		/* GEMM: the two operands vary with different thread
		 * dimensions (rows of one, columns of the other). */
		if (!ca || !cb || (ca & cb) == ca || (ca & cb) == cb)
			continue;
		if (!c->gemm)
			set(out, KS_F_IS_GEMM_KLOOP, 1,
			    "line %u: %s and %s vary with different thread "
			    "dimensions inside the k-loop", p->line,
			    acc_name(f, a), acc_name(f, b));
		c->gemm = 1;
		if (!c->tc && fp_scalar(a->scalar) && fp_scalar(b->scalar)) {
			c->tc = 1;
			set(out, KS_F_TC_ELIGIBLE, 1,
			    "line %u: GEMM k-loop on a tensor-core type",
			    p->line);
		}
		if (!c->naive && is_global(f, a) && is_global(f, b) &&
		    !c->shared_tile) {
			c->naive = 1;
			set(out, KS_F_IS_NAIVE_GEMM, 1,
			    "line %u: both operands from global memory, no "
			    "shared-memory tile",
			    p->line);
		}
	}
}

static void
stencil_feature(struct ctx *c, struct ks_features *out)
{
	const struct ks_facts *f = c->f;
	size_t i, j, k;

	for (i = 0; i < f->nacc && !c->stencil; i++) {
		const struct ks_access *a = &f->acc[i];
		size_t distinct[3];
		size_t nd = 0;
		unsigned src = ks_form_sources(&a->offset);
		int s;

		if (!(a->flags & KS_ACC_LOAD) || a->offset.data ||
		    f->arrays[a->array].space == KS_SPACE_LOCAL ||
		    !(src & KS_SRC_THREAD_MASK))
			continue;
		/* A sliding window: the same coefficient for a thread index
		 * and a loop's induction (in[i + k]). */
		for (s = KS_SRC_LOOP0; s < KS_SRC_ONE && !c->stencil; s++) {
			int t;

			for (t = 0; t < 6; t++) {
				if (ks_form_coef_equal(
					    &a->offset, (enum ks_src)t,
					    &a->offset, (enum ks_src)s)) {
					c->stencil = 1;
					set(out, KS_F_IS_STENCIL_CONV, 1,
					    "line %u: %s read through a window "
					    "sliding with the thread index",
					    a->line, acc_name(f, a));
					break;
				}
			}
		}
		/* Neighbours: three or more offsets that differ only in a
		 * constant (in[i-1], in[i], in[i+1]; rows with +-width). */
		for (j = 0; j < f->nacc && nd < 3 && !c->stencil; j++) {
			const struct ks_access *b = &f->acc[j];

			if (b->array != a->array || !(b->flags & KS_ACC_LOAD) ||
			    !ks_form_equal_but_const(&a->offset, &b->offset))
				continue;
			for (k = 0; k < nd; k++)
				if (ks_form_equal(&f->acc[distinct[k]].offset,
						  &b->offset))
					break;
			if (k == nd)
				distinct[nd++] = j;
		}
		if (!c->stencil && nd >= 3) {
			c->stencil = 1;
			set(out, KS_F_IS_STENCIL_CONV, 1,
			    "line %u: %s read at %zu neighbouring offsets",
			    a->line, acc_name(f, a), nd);
		}
	}
}

/* Inside a loop that halves or doubles (a tree reduction's levels)? */
static int
in_mul_loop(const struct ks_facts *f, int loop)
{
	for (; loop >= 0; loop = f->loops[loop].parent)
		if (f->loops[loop].step_kind == KS_STEP_MUL)
			return 1;
	return 0;
}

/*
 * A shared-memory tile: an array staged from global memory, then, after
 * a barrier, read by threads at elements other threads stored. Reading a
 * single element (a block's result) or reading across the levels of a
 * halving loop (a tree reduction) is scratch space, not a tile.
 */
static void
shared_tile_feature(struct ctx *c, struct ks_features *out)
{
	const struct ks_facts *f = c->f;
	size_t i, j;

	if (!count_calls(f, KS_CALL_SYNC))
		return;
	for (i = 0; i < f->nacc; i++) {
		const struct ks_access *st = &f->acc[i];

		if (!(st->flags & KS_ACC_STORE) || st->value_from < 0 ||
		    f->arrays[st->array].space != KS_SPACE_SHARED ||
		    !is_global(f, &f->acc[st->value_from]))
			continue;
		for (j = 0; j < f->nacc; j++) {
			const struct ks_access *ld = &f->acc[j];

			if (ld->array != st->array ||
			    !(ld->flags & KS_ACC_LOAD) ||
			    (ld->flags & KS_ACC_STORE) ||
			    ks_form_is_uniform(&ld->offset) ||
			    in_mul_loop(f, ld->loop) ||
			    ks_form_equal(&ld->offset, &st->offset))
				continue;
			c->shared_tile = 1;
			set(out, KS_F_HAS_SHARED_MEMORY_TILE, 1,
			    "line %u: %s staged from %s, read by other threads "
			    "after __syncthreads", st->line, acc_name(f, st),
			    acc_name(f, &f->acc[st->value_from]));
			return;
		}
	}
}

static void
reuse_feature(struct ctx *c, struct ks_features *out)
{
	const struct ks_facts *f = c->f;
	size_t i;

	if (c->gemm || c->stencil || c->shared_tile) {
		c->reuse = 1;
		set(out, KS_F_HAS_REUSE, 1, "%s",
		    c->gemm      ? "GEMM k-loop"
		    : c->stencil ? "stencil or convolution"
				 : "shared-memory tile");
		return;
	}
	for (i = 0; i < f->nacc; i++) {
		const struct ks_access *a = &f->acc[i];

		if (cross_thread_reuse(f, a, c->store_coords)) {
			c->reuse = 1;
			set(out, KS_F_HAS_REUSE, 1,
			    "line %u: %s is read by every thread along a "
			    "dimension the output varies with", a->line,
			    acc_name(f, a));
			return;
		}
	}
}

static void
pointwise_features(struct ctx *c, struct ks_features *out)
{
	const struct ks_facts *f = c->f;
	const struct ks_access *first = NULL;
	const char *why = NULL;
	size_t i;
	int thread_loads = 1;

	if (!c->nstores)
		why = "no global store";
	else if (f->shared_decls)
		why = "uses shared memory";
	else if (c->atomics)
		why = "uses atomics";
	else if (count_calls(f, KS_CALL_SYNC) || count_calls(f, KS_CALL_WARP))
		why = "synchronizes threads";
	else if (c->k_loop || c->stencil || f->loop_accumulations)
		why = "combines several elements per output";
	else if (c->indirect)
		why = "indexes through memory";
	for (i = 0; i < f->nacc && !why; i++) {
		const struct ks_access *a = &f->acc[i];
		struct ks_form e;

		if (!is_global(f, a) || ks_form_is_uniform(&a->offset))
			continue;
		elem_form(a, &e);
		if (!thread_src(&e)) {
			why = "an access does not depend on the thread index";
			break;
		}
		if (!first) {
			first = a;
			continue;
		} else {
			struct ks_form e0;

			elem_form(first, &e0);
			if (!same_thread_coefs(&e0, &e)) {
				why = "accesses differ in how they use the "
				      "thread index";
				break;
			}
		}
	}
	if (!why && !first)
		why = "no thread-dependent global access";
	/* each thread reads what it writes: every thread-dependent load has
	 * a store in its own loop at the same element, up to a constant
	 * (a row loop that reads many elements for one output does not) */
	for (i = 0; i < f->nacc && !why; i++) {
		const struct ks_access *a = &f->acc[i];
		struct ks_form e;
		size_t j;

		if (!is_global(f, a) || !(a->flags & KS_ACC_LOAD) ||
		    ks_form_is_uniform(&a->offset))
			continue;
		elem_form(a, &e);
		for (j = 0; j < f->nacc; j++) {
			const struct ks_access *st = &f->acc[j];
			struct ks_form es;

			if (!is_global(f, st) || !(st->flags & KS_ACC_STORE) ||
			    st->loop != a->loop)
				continue;
			elem_form(st, &es);
			if (ks_form_equal_but_const(&e, &es))
				break;
		}
		if (j == f->nacc)
			why = "a thread reads elements it does not write";
	}
	if (why)
		set(out, KS_F_IS_POINTWISE, 0, "%s", why);
	else
		set(out, KS_F_IS_POINTWISE, 1,
		    "every global access uses the thread index the same way");

	for (i = 0; i < f->nacc; i++) {
		const struct ks_access *a = &f->acc[i];

		if (is_global(f, a) && (a->flags & KS_ACC_LOAD) &&
		    (!thread_src(&a->offset) || a->offset.data))
			thread_loads = 0;
	}
	if (!c->reuse && c->nloads && thread_loads)
		set(out, KS_F_STREAMING_NO_REUSE, 1,
		    "every global load depends on the thread index; no reuse");
	else
		set(out, KS_F_STREAMING_NO_REUSE, 0, "%s",
		    c->reuse ? "has reuse" : !c->nloads ? "no global load"
			     : "a global load is uniform or indirect");
}

static void
vector_features(struct ctx *c, struct ks_features *out)
{
	const struct ks_facts *f = c->f;
	const struct ks_access *vec = NULL, *bad = NULL;
	size_t i;

	(void)c;
	for (i = 0; i < f->nacc; i++) {
		const struct ks_access *a = &f->acc[i];

		if (!is_global(f, a) || !(a->flags & KS_ACC_VECTOR))
			continue;
		if (!vec)
			vec = a;
		if (!bad && (f->arrays[a->array].space == KS_SPACE_UNKNOWN ||
			     !ks_form_multiple_of(&a->offset, a->bytes)))
			bad = a;
	}
	if (f->uses_vector_types || vec)
		set(out, KS_F_USES_VECTOR_TYPES, 1, NULL);
	if (vec) {
		set(out, KS_F_HAS_VECTOR_LOAD_STORE, 1,
		    "line %u: %u-byte vector access to %s", vec->line,
		    vec->bytes, acc_name(f, vec));
		if (bad)
			set(out, KS_F_IS_ALIGNED_VECTOR_ACCESS, 0,
			    "line %u: offset into %s not a known multiple of "
			    "%u",
			    bad->line, acc_name(f, bad), bad->bytes);
		else
			set(out, KS_F_IS_ALIGNED_VECTOR_ACCESS, 1,
			    "every vector offset is a multiple of its size");
	}
}

static void
branch_features(struct ctx *c, struct ks_features *out)
{
	const struct ks_facts *f = c->f;
	const struct ks_branch *bounds = NULL, *tail = NULL;
	int ndiv = 0, x = 0, y = 0, canon_rest = 1;
	size_t i;

	for (i = 0; i < f->nbranches; i++) {
		const struct ks_branch *b = &f->branches[i];

		if (b->kind == KS_BR_BOUNDS) {
			if (!bounds)
				bounds = b;
			if (!tail && b->loop >= 0 && b->stmt != KS_BRS_LOOP)
				tail = b;
			x |= canonical_index(&b->subject, 0);
			y |= canonical_index(&b->subject, 1);
		}
		if (!tail && b->rem)
			tail = b;
		if ((b->kind == KS_BR_THREAD || b->kind == KS_BR_DATA))
			ndiv++;
	}
	if (bounds)
		set(out, KS_F_HAS_BOUNDS_CHECK, 1,
		    "line %u: thread index compared with a uniform limit",
		    bounds->line);
	for (i = 0; !tail && i < f->nloops; i++) {
		const struct ks_loop *l = &f->loops[i];

		if ((l->init.rem & 1) || (l->bound.rem & 1)) {
			set(out, KS_F_HAS_TAIL_HANDLING_OVERHEAD, 1,
			    "line %u: a loop over the remainder of a split",
			    l->line);
			break;
		}
	}
	if (tail)
		set(out, KS_F_HAS_TAIL_HANDLING_OVERHEAD, 1, "line %u: %s",
		    tail->line,
		    tail->rem ? "a branch on the remainder of a split"
			      : "bounds check inside a loop");
	set(out, KS_F_THREAD_DEPENDENT_BRANCHES, ndiv, NULL);
	set(out, KS_F_INDEX_1D, x && !y, NULL);
	set(out, KS_F_INDEX_2D, x && y, NULL);
	/* Re-tunable: the thread index is only used as the global index,
	 * and nothing ties the kernel to a block size. */
	for (i = 0; i < f->nacc && canon_rest; i++)
		if (!f->acc[i].offset.data &&
		    !ks_form_global_index_only(&f->acc[i].offset))
			canon_rest = 0;
	if (!x && !y)
		set(out, KS_F_GEOMETRY_RETUNABLE, 0,
		    "no bounds-checked global index "
		    "blockIdx*blockDim+threadIdx");
	else if (f->shared_decls || count_calls(f, KS_CALL_SYNC) ||
		 count_calls(f, KS_CALL_WARP) || f->inline_asm)
		set(out, KS_F_GEOMETRY_RETUNABLE, 0,
		    "shared memory, barriers, warp intrinsics or asm assume a "
		    "block shape");
	else if (!canon_rest)
		set(out, KS_F_GEOMETRY_RETUNABLE, 0,
		    "an access uses threadIdx or blockIdx apart from the "
		    "global index");
	else
		set(out, KS_F_GEOMETRY_RETUNABLE, 1,
		    "canonical %s index with a bounds check",
		    y ? "2-D" : "1-D");
}

/* The access is element g = blockIdx.x * blockDim.x + threadIdx.x of
 * its array, exactly. */
static int
at_flat_index(const struct ks_access *a)
{
	struct ks_form tid, bid, dim, want;

	ks_form_src(&tid, KS_SRC_TID_X);
	ks_form_src(&bid, KS_SRC_BID_X);
	ks_form_sym(&dim, KS_SYM_BDIM_X);
	ks_form_mul(&bid, &bid, &dim);
	ks_form_add(&want, &tid, &bid);
	ks_form_scale(&want, &want, a->bytes);
	return ks_form_equal(&want, &a->offset);
}

/*
 * flat_quotient_lookups: the flat index is divided by a uniform value
 * (a flat quotient), every thread-dependent run-time division computes a
 * group-level value (facts.h: the same for L consecutive indices when
 * the divisors are multiples of L), and those values only index loads:
 * every other thread-dependent access is at the flat index itself, no
 * branch but bounds checks depends on the thread. Then grouping
 * consecutive indices leaves one division and one set of lookups per
 * group (vectorize_memory's group quotients).
 */
static void
quotient_lookups(const struct ks_facts *f, struct ks_features *out)
{
	unsigned line = 0;
	int flat = 0, loads = 0;
	size_t i;

	for (i = 0; i < f->ndivmods; i++) {
		const struct ks_divmod *d = &f->divmods[i];

		if (!d->thread)
			continue;
		if (!ks_facts_divmod_group_level(f, d))
			return;
		if (!d->rem && ks_facts_flat_quotient(f, d->dquot)) {
			flat = 1;
			line = line ? line : d->line;
		}
	}
	if (!flat)
		return;
	for (i = 0; i < f->nbranches; i++)
		if (f->branches[i].kind == KS_BR_THREAD)
			return;
	for (i = 0; i < f->nacc; i++) {
		const struct ks_access *a = &f->acc[i];
		struct ks_xform v;
		int derived = 0;

		if (!a->offset.data &&
		    !(ks_form_sources(&a->offset) &
		      (KS_SRC_THREAD_MASK | KS_SRC_LOOP_MASK)))
			continue;	/* the same element for every thread */
		if (at_flat_index(a))
			continue;
		if (a->offset.data || !ks_form_exact(&a->offset, &v) ||
		    !ks_facts_group_level(f, &v) ||
		    (a->flags & (KS_ACC_STORE | KS_ACC_ATOMIC)))
			return;
		for (int k = 0; k < KS_DER_N; k++)
			derived |= v.q[k].n || v.q[k].opaque || v.d[k].n ||
				   v.d[k].opaque;
		if (!derived)
			return;
		loads++;
	}
	if (loads)
		set(out, KS_F_FLAT_QUOTIENT_LOOKUPS, 1,
		    "line %u: the flat index divided by a uniform value, "
		    "%d load%s indexed by the quotient", line, loads,
		    loads > 1 ? "s" : "");
}

static void
extra_features(struct ctx *c, struct ks_features *out)
{
	const struct ks_facts *f = c->f;
	int uniform = 0, uncoal = 0, trips = 0, divs = 0, warp = 0, sync = 0;
	size_t i;

	for (i = 0; i < f->nacc; i++) {
		const struct ks_access *a = &f->acc[i];
		long long k;

		if ((a->flags & KS_ACC_ATOMIC) && !a->offset.data &&
		    !(ks_form_sources(&a->offset) & KS_SRC_TID_MASK))
			uniform++;
		if (!is_global(f, a) || a->offset.data ||
		    !(ks_form_sources(&a->offset) & KS_SRC_BIT(KS_SRC_TID_X)) ||
		    (a->offset.nonlinear & KS_SRC_BIT(KS_SRC_TID_X)))
			continue;
		if (!ks_form_coef_const(&a->offset, KS_SRC_TID_X, &k) ||
		    llabs(k) != (long long)a->bytes)
			uncoal++;
	}
	for (i = 0; i < f->nloops; i++)
		trips += f->loops[i].has_trip;
	for (i = 0; i < f->ndivmods; i++)
		divs += f->divmods[i].loop >= 0;
	for (i = 0; i < f->ncalls; i++) {
		warp += f->calls[i].kind == KS_CALL_WARP;
		sync += f->calls[i].kind == KS_CALL_SYNC;
	}
	set(out, KS_F_ATOMICS, c->atomics, NULL);
	set(out, KS_F_ATOMICS_UNIFORM_ADDRESS, uniform, NULL);
	set(out, KS_F_UNCOALESCED_ACCESSES, uncoal, NULL);
	set(out, KS_F_INDIRECT_ACCESSES, c->indirect, NULL);
	set(out, KS_F_CONST_TRIP_LOOPS, trips, NULL);
	set(out, KS_F_SYNCTHREADS, sync, NULL);
	set(out, KS_F_WARP_INTRINSICS, warp, NULL);
	set(out, KS_F_FP64_IN_FLOAT_CODE,
	    f->float_code && !f->declares_double ? (int)f->nfp64 : 0, NULL);
	set(out, KS_F_RUNTIME_DIVMOD_IN_LOOPS, divs, NULL);
	quotient_lookups(f, out);
	if (count_calls(f, KS_CALL_TRANSCENDENTAL)) {
		for (i = 0; i < f->ncalls; i++)
			if (f->calls[i].kind == KS_CALL_TRANSCENDENTAL)
				break;
		set(out, KS_F_USES_TRANSCENDENTALS, 1, "line %u: %s",
		    f->calls[i].line, f->calls[i].name);
	}
}

static int
is_reduction(struct ctx *c, const char **why)
{
	const struct ks_facts *f = c->f;
	size_t i;

	if (c->atomics > c->atomics_data) {
		*why = "atomic accumulation";
		return 1;
	}
	for (i = 0; i < f->nloops; i++) {
		const struct ks_loop *l = &f->loops[i];

		if (l->step_kind == KS_STEP_MUL &&
		    (l->has_sync || l->has_warp)) {
			*why = "tree reduction (halving loop with barriers or "
			       "shuffles)";
			return 1;
		}
	}
	if (f->loop_accumulations && !c->k_loop && !c->stencil) {
		*why = "values from memory folded in a loop (a serial "
		       "reduction or scan)";
		return 1;
	}
	for (i = 0; i < f->ncalls; i++) {
		const char *n = f->calls[i].name;

		if (f->calls[i].kind == KS_CALL_WARP &&
		    (strstr(n, "shfl_down") || strstr(n, "shfl_xor") ||
		     strstr(n, "shfl_up") || strstr(n, "reduce"))) {
			*why = "warp-level reduction or scan";
			return 1;
		}
	}
	return 0;
}

/* Host facts: does a host function launching `kernel` launch several
 * kernels (or this one in a loop), and can that sequence be captured? */
static void
host_features(const struct ks_host *h, int kernel, struct ks_features *out)
{
	size_t i, j;
	int multi = 0, capturable = 1, fn = -1;
	const char *blocker = NULL;

	for (i = 0; h && i < h->nlaunches; i++) {
		const struct ks_host_launch *l = &h->launches[i];
		unsigned long lo = ~0ul, hi = 0;
		int n = 0, looped = 0;

		if (l->kernel != kernel || l->kernel < 0)
			continue;
		for (j = 0; j < h->nlaunches; j++) {
			const struct ks_host_launch *m = &h->launches[j];

			if (m->fn != l->fn)
				continue;
			n++;
			looped |= m->loop_end > m->loop_begin;
			lo = m->loop_end > m->loop_begin &&
					     m->loop_begin < m->offset
				     ? (m->loop_begin < lo ? m->loop_begin : lo)
				     : (m->offset < lo ? m->offset : lo);
			hi = m->loop_end > hi ? m->loop_end : hi;
			hi = m->offset > hi ? m->offset : hi;
		}
		if (n < 2 && !looped)
			continue;
		multi = 1;
		fn = l->fn;
		for (j = 0; j < h->nblocking; j++) {
			const struct ks_host_call *b = &h->blocking[j];

			if (b->fn == l->fn && b->offset > lo &&
			    b->offset < hi) {
				capturable = 0;
				blocker = b->name;
			}
		}
	}
	if (!multi) {
		set(out, KS_F_HAS_MULTIPLE_KERNELS, 0, NULL);
		set(out, KS_F_CUDAGRAPH_ELIGIBLE, 0, "launched alone");
		return;
	}
	set(out, KS_F_HAS_MULTIPLE_KERNELS, 1,
	    "%s launches several kernels (or this one in a loop)", h->fns[fn]);
	if (capturable)
		set(out, KS_F_CUDAGRAPH_ELIGIBLE, 1,
		    "no allocation or synchronization between the launches");
	else
		set(out, KS_F_CUDAGRAPH_ELIGIBLE, 0,
		    "%s between the launches", blocker);
}

void
ks_features_compute(const struct ks_facts *f, const struct ks_host *host,
		    int kernel, struct ks_features *out)
{
	struct ctx c;
	const char *why = NULL;
	size_t i;
	int s;

	ks_features_release(out);
	memset(&c, 0, sizeof(c));
	c.f = f;
	for (i = 0; i < f->nacc; i++) {
		const struct ks_access *a = &f->acc[i];

		if (a->flags & KS_ACC_ATOMIC) {
			c.atomics++;
			c.atomics_data += a->offset.data != 0;
		}
		if (!is_global(f, a))
			continue;
		if (a->offset.data ||
		    f->arrays[a->array].space == KS_SPACE_UNKNOWN)
			c.indirect++;
		if (a->flags & (KS_ACC_STORE | KS_ACC_ATOMIC)) {
			c.nstores += !(a->flags & KS_ACC_ATOMIC);
			c.store_coords |= coords(&a->offset);
		} else if (a->flags & KS_ACC_LOAD) {
			c.nloads++;
		}
	}
	shared_tile_feature(&c, out);
	gemm_features(&c, out);
	stencil_feature(&c, out);
	reuse_feature(&c, out);
	pointwise_features(&c, out);
	vector_features(&c, out);
	branch_features(&c, out);
	extra_features(&c, out);
	host_features(host, kernel, out);

	if (out->v[KS_F_HAS_MULTIPLE_KERNELS] &&
	    (out->v[KS_F_IS_POINTWISE] || out->v[KS_F_STREAMING_NO_REUSE])) {
		s = KS_S4_MULTI_KERNEL;
		why = "a streaming step of a multi-kernel sequence";
	} else if (is_reduction(&c, &why)) {
		s = KS_S3_REDUCTION;
	} else if (c.indirect) {
		s = KS_S2_IRREGULAR;
		why = "indexes global memory through loaded values";
	} else if (c.reuse) {
		s = KS_S1_REUSE;
		why = out->why[KS_F_HAS_REUSE];
	} else {
		s = KS_S0_STREAMING;
		why = "streams data with no reuse";
	}
	set(out, KS_F_KERNEL_STRUCTURE, s, "S%d: %s", s, why ? why : "");
}

/* ---- details ------------------------------------------------------------- */

static void
open_list(struct ks_buf *out, const char *name, int *first)
{
	ks_buf_addf(out, "%s\"%s\": [", *first ? "" : ", ", name);
	*first = 0;
}

static void
add_form(struct ks_buf *out, const struct ks_facts *f, const struct ks_form *o)
{
	struct ks_buf t = KS_BUF_INIT;

	ks_form_format(o, f->syms, f->nsyms, &t);
	ks_buf_add_json_str(out, t.buf);
	ks_buf_release(&t);
}

void
ks_features_details_json(const struct ks_facts *f, struct ks_buf *out)
{
	static const char *const brk[] = {"uniform", "bounds", "thread",
					  "data"};
	static const char *const fpk[] = { "literal", "call", "arithmetic" };
	int first = 1, n;
	size_t i;

	ks_buf_addch(out, '{');
	open_list(out, "atomics", &first);
	for (i = 0, n = 0; i < f->nacc; i++) {
		const struct ks_access *a = &f->acc[i];

		if (!(a->flags & KS_ACC_ATOMIC))
			continue;
		ks_buf_addf(out, "%s{\"line\": %u, \"op\": ", n++ ? ", " : "",
			    a->line);
		ks_buf_add_json_str(out, a->op ? a->op : "?");
		ks_buf_adds(out, ", \"object\": ");
		ks_buf_add_json_str(out, acc_name(f, a));
		ks_buf_addf(out, ", \"address_uniform\": %s, \"offset\": ",
			    !a->offset.data && !(ks_form_sources(&a->offset) &
						 KS_SRC_TID_MASK)
				    ? "true"
				    : "false");
		add_form(out, f, &a->offset);
		ks_buf_addch(out, '}');
	}
	ks_buf_addch(out, ']');
	open_list(out, "uncoalesced", &first);
	for (i = 0, n = 0; i < f->nacc; i++) {
		const struct ks_access *a = &f->acc[i];
		long long k;

		if (!is_global(f, a) || a->offset.data ||
		    !(ks_form_sources(&a->offset) & KS_SRC_BIT(KS_SRC_TID_X)) ||
		    (a->offset.nonlinear & KS_SRC_BIT(KS_SRC_TID_X)))
			continue;
		if (ks_form_coef_const(&a->offset, KS_SRC_TID_X, &k) &&
		    llabs(k) == (long long)a->bytes)
			continue;
		ks_buf_addf(out,
			    "%s{\"line\": %u, \"object\": ", n++ ? ", " : "",
			    a->line);
		ks_buf_add_json_str(out, acc_name(f, a));
		ks_buf_addf(out, ", \"%s\": true, \"bytes\": %u, \"offset\": ",
			    a->flags & KS_ACC_STORE ? "store" : "load",
			    a->bytes);
		add_form(out, f, &a->offset);
		ks_buf_addch(out, '}');
	}
	ks_buf_addch(out, ']');
	open_list(out, "indirect", &first);
	for (i = 0, n = 0; i < f->nacc; i++) {
		const struct ks_access *a = &f->acc[i];

		if (!is_global(f, a) ||
		    (!a->offset.data &&
		     f->arrays[a->array].space != KS_SPACE_UNKNOWN))
			continue;
		ks_buf_addf(out,
			    "%s{\"line\": %u, \"object\": ", n++ ? ", " : "",
			    a->line);
		ks_buf_add_json_str(out, acc_name(f, a));
		ks_buf_adds(out, ", \"offset\": ");
		add_form(out, f, &a->offset);
		ks_buf_addch(out, '}');
	}
	ks_buf_addch(out, ']');
	open_list(out, "const_trip_loops", &first);
	for (i = 0, n = 0; i < f->nloops; i++)
		if (f->loops[i].has_trip)
			ks_buf_addf(out, "%s{\"line\": %u, \"trip\": %lld}",
				    n++ ? ", " : "", f->loops[i].line,
				    f->loops[i].trip);
	ks_buf_addch(out, ']');
	open_list(out, "fp64", &first);
	for (i = 0; i < f->nfp64; i++)
		ks_buf_addf(
			out,
			"%s{\"line\": %u, \"kind\": \"%s\", \"in_loop\": %s}",
			i ? ", " : "", f->fp64[i].line, fpk[f->fp64[i].kind],
			f->fp64[i].loop >= 0 ? "true" : "false");
	ks_buf_addch(out, ']');
	open_list(out, "divmod_in_loops", &first);
	for (i = 0, n = 0; i < f->ndivmods; i++)
		if (f->divmods[i].loop >= 0)
			ks_buf_addf(out, "%s{\"line\": %u, \"op\": \"%s\"}",
				    n++ ? ", " : "", f->divmods[i].line,
				    f->divmods[i].rem ? "%" : "/");
	ks_buf_addch(out, ']');
	open_list(out, "branches", &first);
	for (i = 0, n = 0; i < f->nbranches; i++) {
		const struct ks_branch *b = &f->branches[i];

		if (b->kind == KS_BR_UNIFORM)
			continue;
		ks_buf_addf(
			out,
			"%s{\"line\": %u, \"kind\": \"%s\", \"in_loop\": %s",
			n++ ? ", " : "", b->line, brk[b->kind],
			b->loop >= 0 ? "true" : "false");
		if (b->kind == KS_BR_BOUNDS) {
			ks_buf_adds(out, ", \"index\": ");
			add_form(out, f, &b->subject);
		}
		ks_buf_addch(out, '}');
	}
	ks_buf_addch(out, ']');
	open_list(out, "calls", &first);
	for (i = 0, n = 0; i < f->ncalls; i++) {
		static const char *const kinds[] = {
			"other", "transcendental", "math", "sync", "warp",
			"atomic", "tensor", "device",
		};
		const struct ks_call *cl = &f->calls[i];

		if (cl->kind == KS_CALL_OTHER)
			continue;
		ks_buf_addf(out, "%s{\"line\": %u, \"name\": ", n++ ? ", " : "",
			    cl->line);
		ks_buf_add_json_str(out, cl->name);
		ks_buf_addf(out, ", \"kind\": \"%s\"}", kinds[cl->kind]);
	}
	ks_buf_adds(out, "]}");
}
