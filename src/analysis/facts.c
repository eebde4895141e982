/*
 * The facts store (facts.h) and the knowledge about names; the form
 * algebra is form.c.
 */
#include "facts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/buf.h"
#include "../core/grow.h"
#include "../core/util.h"

/* ---- facts --------------------------------------------------------------- */

#define GROW(f, arr, n, item)                                                  \
	do {                                                                   \
		(f)->arr = KS_GROW((f)->arr, (f)->n, NULL);                    \
		(f)->arr[(f)->n] = (item);                                     \
	} while (0)

void
ks_facts_release(struct ks_facts *f)
{
	size_t i;

	for (i = 0; i < f->narrays; i++)
		free(f->arrays[i].name);
	for (i = 0; i < f->nacc; i++)
		free(f->acc[i].op);
	for (i = 0; i < f->ncalls; i++)
		free(f->calls[i].name);
	for (i = 0; i < f->nsyms; i++)
		free(f->syms[i]);
	free(f->arrays);
	free(f->acc);
	free(f->loops);
	free(f->calls);
	free(f->branches);
	free(f->products);
	free(f->fp64);
	free(f->divmods);
	free(f->dquots);
	free(f->syms);
	memset(f, 0, sizeof(*f));
}

int
ks_facts_add_array(struct ks_facts *f, const struct ks_array *a)
{
	struct ks_array x = *a;

	x.name = ks_xstrdup(a->name ? a->name : "?");
	GROW(f, arrays, narrays, x);
	return (int)f->narrays++;
}

int
ks_facts_add_access(struct ks_facts *f, const struct ks_access *a)
{
	struct ks_access x = *a;

	x.op = a->op ? ks_xstrdup(a->op) : NULL;
	GROW(f, acc, nacc, x);
	return (int)f->nacc++;
}

int
ks_facts_add_loop(struct ks_facts *f, const struct ks_loop *l)
{
	GROW(f, loops, nloops, *l);
	return (int)f->nloops++;
}

int
ks_facts_add_call(struct ks_facts *f, const char *name, enum ks_call_kind kind,
		  int fp64, int loop, unsigned line)
{
	struct ks_call c;

	c.name = ks_xstrdup(name);
	c.kind = kind;
	c.fp64 = fp64;
	c.loop = loop;
	c.line = line;
	GROW(f, calls, ncalls, c);
	return (int)f->ncalls++;
}

int
ks_facts_add_branch(struct ks_facts *f, const struct ks_branch *b)
{
	GROW(f, branches, nbranches, *b);
	return (int)f->nbranches++;
}

int
ks_facts_add_product(struct ks_facts *f, const struct ks_product *p)
{
	GROW(f, products, nproducts, *p);
	return (int)f->nproducts++;
}

int
ks_facts_add_fp64(struct ks_facts *f, enum ks_fp64_kind kind, int loop,
		  unsigned line)
{
	struct ks_fp64 e;

	e.kind = kind;
	e.loop = loop;
	e.line = line;
	GROW(f, fp64, nfp64, e);
	return (int)f->nfp64++;
}

int
ks_facts_add_divmod(struct ks_facts *f, int rem, int loop, unsigned line)
{
	struct ks_divmod d;

	d.rem = rem;
	d.loop = loop;
	d.line = line;
	d.dquot = -1;
	d.begin = d.end = 0;
	d.in_main = 0;
	d.thread = 1;
	GROW(f, divmods, ndivmods, d);
	return (int)f->ndivmods++;
}

int
ks_facts_add_dquot(struct ks_facts *f, const struct ks_dquot *d)
{
	GROW(f, dquots, ndquots, *d);
	return (int)f->ndquots++;
}

unsigned
ks_facts_sym(struct ks_facts *f, const char *name)
{
	size_t i;
	char *s;

	for (i = 0; i < f->nsyms; i++)
		if (!strcmp(f->syms[i], name))
			return KS_SYM_USER + (unsigned)i;
	s = ks_xstrdup(name);
	GROW(f, syms, nsyms, s);
	return KS_SYM_USER + (unsigned)f->nsyms++;
}

int
ks_facts_loop_within(const struct ks_facts *f, int inner, int loop)
{
	while (inner >= 0) {
		if (inner == loop)
			return 1;
		inner = f->loops[inner].parent;
	}
	return 0;
}

/* ---- knowledge about names ----------------------------------------------- */

/*
 * Transcendental functions: those the GPU evaluates with the special
 * function unit or a long polynomial (exp, log, trigonometric, hyperbolic,
 * pow, erf, gamma, reciprocal roots and cube roots). Plain sqrt, fabs,
 * fma, min/max are not: they are single instructions or IEEE-exact.
 * Each base name also matches its float form (suffix f), the fast
 * intrinsics (__expf) and the half forms (hexp, h2exp).
 */
static const char *const transcendental[] = {
	"exp", "exp2", "exp10", "expm1", "log", "log2", "log10", "log1p",
	"logb", "pow", "sin", "cos", "tan", "sincos", "sinpi", "cospi",
	"sincospi", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh",
	"asinh", "acosh", "atanh", "erf", "erfc", "erfinv", "erfcinv",
	"erfcx", "normcdf", "normcdfinv", "lgamma", "tgamma", "rsqrt",
	"cbrt", "rcbrt", "j0", "j1", "y0", "y1", "jn", "yn", "cyl_bessel_i0",
	"cyl_bessel_i1", "hypot", "rhypot", "norm3d", "rnorm3d", "norm4d",
	"rnorm4d", "powi",
};

static const char *const math[] = {
	"sqrt", "fabs", "fma", "fmin", "fmax", "floor", "ceil", "trunc",
	"round", "rint", "nearbyint", "fmod", "remainder", "copysign",
	"fdim", "frexp", "ldexp", "scalbn", "modf", "abs", "min", "max",
	"__fdividef", "__fdiv_rn", "__frcp_rn", "__fsqrt_rn", "__fmaf_rn",
	"__fmul_rn", "__fadd_rn", "__saturatef", "rcp", "hsqrt", "hrsqrt",
};

static int
base_match(const char *name, const char *const *tab, size_t n)
{
	size_t len = strlen(name), i;

	for (i = 0; i < n; i++) {
		size_t bl = strlen(tab[i]);

		if (!strcmp(name, tab[i]))
			return 1;
		/* the float form (expf) and the half form (hexp) */
		if (len == bl + 1 && !strncmp(name, tab[i], bl) &&
		    name[bl] == 'f')
			return 1;
		if (len == bl + 1 && name[0] == 'h' &&
		    !strcmp(name + 1, tab[i]))
			return 1;
	}
	return 0;
}

static int
name_match(const char *name, const char *const *tab, size_t n)
{
	if (base_match(name, tab, n))
		return 1;
	/* __expf, __sinf: the fast intrinsics; h2exp: the half2 forms. */
	if (!strncmp(name, "__", 2) && base_match(name + 2, tab, n))
		return 1;
	return !strncmp(name, "h2", 2) && base_match(name + 2, tab, n);
}

enum ks_call_kind
ks_facts_call_kind(const char *name)
{
	static const char *const sync[] = {
		"__syncthreads", "__syncthreads_count", "__syncthreads_and",
		"__syncthreads_or", "__barrier_sync", "sync", "barrier_wait",
		"arrive_and_wait", "__threadfence_block",
	};
	static const char *const atomic[] = {
		"atomicAdd",        "atomicSub",        "atomicExch",
		"atomicMin",        "atomicMax",        "atomicInc",
		"atomicDec",        "atomicCAS",        "atomicAnd",
		"atomicOr",         "atomicXor",        "atomicAdd_block",
		"atomicAdd_system", "atomicMin_block",  "atomicMax_block",
		"atomicCAS_block",  "atomicExch_block", "atomicSub_block",
		"atomicAnd_block",  "atomicOr_block",   "atomicXor_block",
		"atomicInc_block",  "atomicDec_block",  "fetch_add",
		"fetch_sub",        "fetch_min",        "fetch_max",
		"fetch_and",        "fetch_or",         "fetch_xor",
	};
	size_t i;

	if (!name || !*name)
		return KS_CALL_OTHER;
	for (i = 0; i < KS_ARRAY_SIZE(sync); i++)
		if (!strcmp(name, sync[i]))
			return KS_CALL_SYNC;
	for (i = 0; i < KS_ARRAY_SIZE(atomic); i++)
		if (!strcmp(name, atomic[i]))
			return KS_CALL_ATOMIC;
	if (ks_starts_with(name, "__shfl") ||
	    ks_starts_with(name, "__ballot") ||
	    ks_starts_with(name, "__any_sync") ||
	    ks_starts_with(name, "__all_sync") ||
	    ks_starts_with(name, "__uni_sync") ||
	    !strcmp(name, "__activemask") || !strcmp(name, "__syncwarp") ||
	    ks_starts_with(name, "__match_") ||
	    ks_starts_with(name, "__reduce_") || !strcmp(name, "shfl") ||
	    !strcmp(name, "shfl_down") || !strcmp(name, "shfl_up") ||
	    !strcmp(name, "shfl_xor") || !strcmp(name, "ballot") ||
	    !strcmp(name, "reduce"))
		return KS_CALL_WARP;
	if (!strcmp(name, "mma_sync") || !strcmp(name, "load_matrix_sync") ||
	    !strcmp(name, "store_matrix_sync") ||
	    !strcmp(name, "fill_fragment") || ks_starts_with(name, "__hmma") ||
	    ks_starts_with(name, "__imma") || ks_starts_with(name, "__bmma") ||
	    ks_starts_with(name, "__dmma"))
		return KS_CALL_TENSOR;
	if (name_match(name, transcendental, KS_ARRAY_SIZE(transcendental)))
		return KS_CALL_TRANSCENDENTAL;
	if (name_match(name, math, KS_ARRAY_SIZE(math)))
		return KS_CALL_MATH;
	return KS_CALL_OTHER;
}

int
ks_facts_vector_type(const char *name, int *lanes, enum ks_scalar *scalar)
{
	static const struct {
		const char *prefix;
		enum ks_scalar scalar;
	} bases[] = {
		{ "ulonglong", KS_T_INT64 }, { "longlong", KS_T_INT64 },
		{ "ushort", KS_T_INT16 }, { "short", KS_T_INT16 },
		{ "uchar", KS_T_INT8 }, { "char", KS_T_INT8 },
		{ "ulong", KS_T_INT64 }, { "long", KS_T_INT64 },
		{ "uint", KS_T_INT32 }, { "int", KS_T_INT32 },
		{ "float", KS_T_FLOAT }, { "double", KS_T_DOUBLE },
	};
	static const struct {
		const char *name;
		enum ks_scalar scalar;
	} pairs[] = {
		{ "__half2", KS_T_HALF }, { "half2", KS_T_HALF },
		{ "__nv_bfloat162", KS_T_BF16 }, { "nv_bfloat162", KS_T_BF16 },
	};
	size_t i;

	if (!name)
		return 0;
	/* "const float4", "struct float4": the last word is the name. */
	while (strchr(name, ' '))
		name = strchr(name, ' ') + 1;
	for (i = 0; i < KS_ARRAY_SIZE(pairs); i++) {
		if (!strcmp(name, pairs[i].name)) {
			*lanes = 2;
			*scalar = pairs[i].scalar;
			return 1;
		}
	}
	for (i = 0; i < KS_ARRAY_SIZE(bases); i++) {
		size_t n = strlen(bases[i].prefix);

		if (!strncmp(name, bases[i].prefix, n) && name[n] >= '2' &&
		    name[n] <= '4' && (name[n + 1] == '\0' ||
				       !strcmp(name + n + 1, "_16a") ||
				       !strcmp(name + n + 1, "_32a"))) {
			*lanes = name[n] - '0';
			*scalar = bases[i].scalar;
			return 1;
		}
	}
	return 0;
}
