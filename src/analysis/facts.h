/*
 * facts: what a kernel does, as a small IR the features are computed from.
 *
 * The AST walk (walk.c, the only part that sees libclang) reduces a kernel
 * to facts: the memory objects it touches, every access with its byte
 * offset as a symbolic form, loops with their bounds, calls, branches,
 * products of two loads, run-time divisions and double-precision events.
 * Everything here is plain data built from libc types, so tests construct
 * facts by hand and check each feature without parsing anything.
 *
 * A form is an affine expression over the sources of variation of a value
 * inside a kernel: threadIdx.{x,y,z}, blockIdx.{x,y,z}, the induction of
 * each enclosing loop (one source per nesting depth) and the constant
 * term. Each coefficient is a small polynomial over uniform symbols
 * (blockDim, gridDim, scalar parameters, uniform locals) with integer
 * factors, so that `blockIdx.x * blockDim.x + threadIdx.x` is exactly
 * BID_X*bdim.x + TID_X*1 and `row * n + col` keeps n as a symbol. What
 * does not fit (a product of two thread-dependent values, a shift by a
 * variable, a value read from memory) is kept as flags: `nonlinear` per
 * source, `data` for memory-dependent values, `opaque` per coefficient.
 *
 * Ownership: struct ks_facts owns its arrays and strings;
 * ks_facts_release() frees them (safe on a zeroed struct). Forms are
 * plain values, copied freely.
 * May include: libc, core/.
 */
#ifndef KS_ANALYSIS_FACTS_H
#define KS_ANALYSIS_FACTS_H

#include <stddef.h>

struct ks_buf;
struct ks_facts;
struct ks_divmod;

/* Loops nested deeper than this share the deepest source (imprecise). */
#define KS_MAX_LOOP_DEPTH 8

enum ks_src {
	KS_SRC_TID_X,
	KS_SRC_TID_Y,
	KS_SRC_TID_Z,
	KS_SRC_BID_X,
	KS_SRC_BID_Y,
	KS_SRC_BID_Z,
	KS_SRC_LOOP0,	/* the loop at depth 0; LOOP0 + d at depth d */
	KS_SRC_ONE = KS_SRC_LOOP0 + KS_MAX_LOOP_DEPTH,	/* constant term */
	KS_SRC_N
};

#define KS_SRC_BIT(s) (1u << (s))
#define KS_SRC_TID_MASK (KS_SRC_BIT(KS_SRC_TID_X) | KS_SRC_BIT(KS_SRC_TID_Y) | \
			 KS_SRC_BIT(KS_SRC_TID_Z))
#define KS_SRC_BID_MASK (KS_SRC_BIT(KS_SRC_BID_X) | KS_SRC_BIT(KS_SRC_BID_Y) | \
			 KS_SRC_BIT(KS_SRC_BID_Z))
#define KS_SRC_THREAD_MASK (KS_SRC_TID_MASK | KS_SRC_BID_MASK)
#define KS_SRC_LOOP_MASK (((1u << KS_MAX_LOOP_DEPTH) - 1) << KS_SRC_LOOP0)

/* Uniform symbols 1-6; the walk numbers user symbols from KS_SYM_USER. */
enum {
	KS_SYM_NONE,
	KS_SYM_BDIM_X, KS_SYM_BDIM_Y, KS_SYM_BDIM_Z,
	KS_SYM_GDIM_X, KS_SYM_GDIM_Y, KS_SYM_GDIM_Z,
	KS_SYM_USER
};

#define KS_POLY_MAX 4

/* k * sym[0] * sym[1] * sym[2]; a zero symbol is 1. Three symbols hold
 * the plane stride of a 3-D grid (blockDim.z * nx * ny). */
#define KS_MONO_SYMS 3

struct ks_mono {
	long long k;
	unsigned short sym[KS_MONO_SYMS];	/* sorted, zeros first */
};

/* A sum of monomials over uniform symbols; `opaque`: plus something unknown
 * (uniform, but not representable). n == 0 && !opaque is zero. */
struct ks_poly {
	unsigned char n;
	unsigned char opaque;
	struct ks_mono m[KS_POLY_MAX];
};

/*
 * Derived coordinates. A flat index decomposed by division and remainder
 * by uniform values (`w = i % n; t = i / n; h = t % m; c = t / m`) is
 * nonlinear in the thread indices, but affine in the derived coordinates:
 * each distinct num / den with num exact and thread-dependent and den
 * uniform is a derived quotient Q_k of the facts (ks_facts.dquots), and
 * num % den its digit D_k (num = D_k + den * Q_k). Every form carries,
 * next to its nonlinear view (which the rest of the analysis reads,
 * unchanged), an exact view over the thread indices, loop inductions,
 * quotients and digits: ks_form_exact() gives it when the value is
 * exactly such an affine form.
 */
#define KS_DER_N 4

/* sum over s of x[s] * s + sum over k of (q[k] * Q_k + d[k] * D_k);
 * x[KS_SRC_ONE] is the constant term. */
struct ks_xform {
	struct ks_poly x[KS_SRC_N];
	struct ks_poly q[KS_DER_N];
	struct ks_poly d[KS_DER_N];
};

enum {
	KS_XV_SAME,	/* the exact view is c[] (when nothing is nonlinear) */
	KS_XV_OWN,	/* the exact view is xf */
	KS_XV_NONE,	/* not exactly affine in any of these */
};

struct ks_form {
	struct ks_poly c[KS_SRC_N];
	unsigned nonlinear;	/* KS_SRC_BIT(s): s appears non-linearly */
	unsigned char data;	/* depends on memory or unknown calls */
	unsigned char rem;	/* uses % of, or rounds, a uniform value */
	unsigned char xv;	/* KS_XV_*: where the exact view is */
	struct ks_xform xf;	/* the exact view when xv is KS_XV_OWN */
};

/* Form algebra (pure). Results are written to `out`, which may alias. */
void ks_form_zero(struct ks_form *out);
void ks_form_const(struct ks_form *out, long long k);
void ks_form_src(struct ks_form *out, enum ks_src s);
void ks_form_sym(struct ks_form *out, unsigned sym);
void ks_form_add(struct ks_form *out, const struct ks_form *a,
		 const struct ks_form *b);
void ks_form_sub(struct ks_form *out, const struct ks_form *a,
		 const struct ks_form *b);
void ks_form_mul(struct ks_form *out, const struct ks_form *a,
		 const struct ks_form *b);
void ks_form_scale(struct ks_form *out, const struct ks_form *a, long long k);
/* Division or remainder by `b`; exact division by a constant that divides
 * every coefficient stays affine, anything else is nonlinear. */
void ks_form_div(struct ks_form *out, const struct ks_form *a,
		 const struct ks_form *b, int rem);
/* ks_form_div, and in the exact view: a division or remainder of an
 * exact, thread-dependent, loop-invariant value by a uniform one is a
 * derived quotient of `f` (added when new; at most KS_DER_N, beyond them
 * the exact view is lost). Returns the quotient's index, or -1. Q_k and
 * D_k are num / den and num % den as C computes them: a consumer that
 * relies on num = D_k + den * Q_k with 0 <= D_k < den checks that num >= 0
 * and den > 0 at run time. */
int ks_form_div_derived(struct ks_facts *f, struct ks_form *out,
			const struct ks_form *a, const struct ks_form *b,
			int rem);
/* The exact view: 1 and *out when the value is exactly affine (no data,
 * nothing nonlinear left), else 0. */
int ks_form_exact(const struct ks_form *f, struct ks_xform *out);
/* Both have an exact view and it is the same: the same value, also when
 * the nonlinear views cannot say so (a variable a branch did not
 * change). */
int ks_form_same_exact(const struct ks_form *a, const struct ks_form *b);
/*
 * The derived quotients of `f` as a chain over the flat 1-D index g =
 * blockIdx.x * blockDim.x + threadIdx.x: Q0 = g / den0, Q1 = Q0 / den1,
 * ...; returns their number m (0: none, or not such a chain). Then g has
 * the digits D0 .. D(m-1) and the top Q(m-1): coordinate c < m is D_c,
 * coordinate m the top.
 */
int ks_facts_derived_chain(const struct ks_facts *f);
/* Quotient `q` of `f` is g / den with its numerator exactly the flat 1-D
 * index g = blockIdx.x * blockDim.x + threadIdx.x (nothing added). */
int ks_facts_flat_quotient(const struct ks_facts *f, int q);
/*
 * Group-level: `v` (an exact view) is the same for every g of a group of
 * L consecutive flat indices that starts at a multiple of L, whenever the
 * divisor of each flat quotient it reaches is a multiple of L (floor((gL +
 * j) / D) = floor(gL / D) for 0 <= j < L). That is: no thread or loop
 * source, only uniform terms, flat quotients, and quotients and digits of
 * group-level numerators (g % D itself is not).
 */
int ks_facts_group_level(const struct ks_facts *f, const struct ks_xform *v);
/* The value divmod `d` computes (its quotient, or its digit) is
 * group-level. */
int ks_facts_divmod_group_level(const struct ks_facts *f,
				const struct ks_divmod *d);
/*
 * How much `v` (an exact view over g, the chain's quotients and digits
 * and constants) grows when coordinate `c` of the chain of `f` (m
 * quotients) grows by one, the others fixed: 1 and *k when that is a
 * constant, else 0 (a symbol, another source).
 */
int ks_facts_derived_step(const struct ks_facts *f, int m,
			  const struct ks_xform *v, int c, long long *k);
/* Any other combination: every source of either operand becomes
 * nonlinear, data and rem are merged. */
void ks_form_mix(struct ks_form *out, const struct ks_form *a,
		 const struct ks_form *b);
/* A value from memory or an unknown call, depending on `deps`' sources. */
void ks_form_data(struct ks_form *out, const struct ks_form *deps);

/* Sources present (non-zero coefficient or nonlinear), as KS_SRC_BIT()s. */
unsigned ks_form_sources(const struct ks_form *f);
/* No thread, loop or memory dependence (blockDim, parameters: uniform). */
int ks_form_is_uniform(const struct ks_form *f);
/* A compile-time constant: 1 and *k set, else 0. */
int ks_form_is_const(const struct ks_form *f, long long *k);
/* Equal as forms (flags included). */
int ks_form_equal(const struct ks_form *a, const struct ks_form *b);
/* Equal except for the constant term (which may differ by uniforms). */
int ks_form_equal_but_const(const struct ks_form *a, const struct ks_form *b);
/* Every coefficient and the constant term is a known multiple of `k`
 * (symbols count as integers): the offset is k-aligned. */
int ks_form_multiple_of(const struct ks_form *f, long long k);
/* The coefficient of `s` when it is a constant: 1 and *k, else 0. */
int ks_form_coef_const(const struct ks_form *f, enum ks_src s, long long *k);
/* Same coefficient of `s` in a and of `t` in b. */
int ks_form_coef_equal(const struct ks_form *a, enum ks_src s,
		       const struct ks_form *b, enum ks_src t);
/* Thread indices appear only as the global index of their dimension:
 * blockIdx.d always with blockDim.d times threadIdx.d's coefficient. */
int ks_form_global_index_only(const struct ks_form *f);
/* Human form, e.g. "4*tid.x + 4*bid.x*bdim.x + 4*L0*n"; `syms` names the
 * user symbols (index sym - KS_SYM_USER), may be NULL. */
void ks_form_format(const struct ks_form *f, char *const *syms, size_t nsyms,
		    struct ks_buf *out);

enum ks_space {
	KS_SPACE_GLOBAL,	/* parameters, __device__ variables */
	KS_SPACE_SHARED,
	KS_SPACE_CONSTANT,
	KS_SPACE_LOCAL,		/* arrays of the thread */
	KS_SPACE_UNKNOWN,	/* a pointer read from memory */
};

/* The scalar kind of an access (of the lanes, for a vector). */
enum ks_scalar {
	KS_T_OTHER,
	KS_T_HALF,
	KS_T_BF16,
	KS_T_FLOAT,
	KS_T_DOUBLE,
	KS_T_INT8,
	KS_T_INT16,
	KS_T_INT32,
	KS_T_INT64,
};

/* A memory object the kernel touches. */
struct ks_array {
	char *name;
	enum ks_space space;
	int param;		/* kernel parameter index, or -1 */
	int is_const;		/* pointee (or object) declared const */
	int is_restrict;
	long long bytes;	/* static size, -1 when unknown */
};

#define KS_ACC_LOAD 1u
#define KS_ACC_STORE 2u
#define KS_ACC_ATOMIC 4u
#define KS_ACC_VECTOR 8u	/* the accessed type is a CUDA vector type */
#define KS_ACC_SIZE_GUESSED 16u	/* element size unknown (dependent type) */

struct ks_access {
	int array;		/* index into ks_facts.arrays */
	unsigned flags;
	struct ks_form offset;	/* bytes from the object's start */
	unsigned bytes;		/* size of the accessed type */
	enum ks_scalar scalar;
	int lanes;		/* vector lanes; 1 for a scalar */
	int loop;		/* innermost enclosing loop, or -1 */
	int guards;		/* thread- or data-dependent branches around */
	int value_from;		/* a store: the load it stores, or -1 */
	unsigned line;
	char *op;		/* an atomic's function ("atomicAdd") */
	/* The access expression's bytes [begin, end) in the TU's main file;
	 * in_main 0 when it is elsewhere (a header, a helper of another
	 * file) or comes from a macro (then begin/end mean nothing). */
	unsigned long begin, end;
	int in_main;
};

enum ks_step {
	KS_STEP_NONE,		/* no induction variable found */
	KS_STEP_ADD,		/* i += s, i++, i-- */
	KS_STEP_MUL,		/* i *= k, i /= k, i <<= k, i >>= k */
	KS_STEP_OTHER,
};

struct ks_loop {
	int parent;		/* enclosing loop, or -1 */
	int depth;
	enum ks_step step_kind;
	struct ks_form init, step, bound;	/* bound: the compared limit */
	int has_trip;		/* trip count known at compile time */
	long long trip;
	int has_sync;		/* __syncthreads in the body */
	int has_warp;		/* warp intrinsics in the body */
	unsigned line;
};

enum ks_call_kind {
	KS_CALL_OTHER,
	KS_CALL_TRANSCENDENTAL,	/* expf, __sinf, tanh, rsqrtf, ... */
	KS_CALL_MATH,		/* other math: sqrtf, fabsf, fmaf, ... */
	KS_CALL_SYNC,		/* __syncthreads and cooperative-group syncs */
	KS_CALL_WARP,		/* __shfl*_sync, __ballot_sync, ... */
	KS_CALL_ATOMIC,
	KS_CALL_TENSOR,		/* wmma:: / mma intrinsics */
	KS_CALL_DEVICE,		/* a __device__ function of the TU (walked) */
};

struct ks_call {
	char *name;
	enum ks_call_kind kind;
	int fp64;		/* returns double (a double math function) */
	int loop;
	unsigned line;
};

enum ks_branch_kind {
	KS_BR_UNIFORM,		/* every thread takes the same way */
	KS_BR_BOUNDS,		/* thread index against a uniform limit */
	KS_BR_THREAD,		/* other thread-dependent condition */
	KS_BR_DATA,		/* depends on memory contents */
};

/* A bounds check's comparison, read with its subject on the left. */
enum ks_bcmp {
	KS_CMP_NONE,
	KS_CMP_LT,
	KS_CMP_LE,
	KS_CMP_GT,
	KS_CMP_GE,
};

enum ks_branch_stmt {
	KS_BRS_IF,
	KS_BRS_COND,		/* ?: */
	KS_BRS_LOOP,		/* a loop's condition */
	KS_BRS_SWITCH,
};

struct ks_branch {
	enum ks_branch_kind kind;
	enum ks_branch_stmt stmt;
	int early_exit;		/* the branch returns (if (...) return;) */
	int rem;		/* uses a remainder split (n % 4) */
	int loop;		/* innermost loop around the branch, or -1 */
	int body_loop;		/* for KS_BRS_LOOP: the loop itself */
	struct ks_form subject;	/* bounds checks: the thread-dependent side */
	struct ks_form limit;	/* bounds checks: the uniform side */
	enum ks_bcmp cmp;	/* bounds checks: subject cmp limit */
	unsigned line;
	/* A written comparison's bytes [begin, end) in the main file when
	 * in_main (0 for the implicit `!= 0` of a bare condition value, or
	 * a comparison spelled in a macro). */
	unsigned long begin, end;
	int in_main;
	/* KS_BRJ_*: how the comparison joins its condition (both bits: it
	 * is the whole condition; neither: under a `!`, a call, `==` ...). */
	unsigned joined;
};

enum {
	KS_BRJ_AND = 1,		/* only && above it: the condition needs it */
	KS_BRJ_OR = 2,		/* only || above it: it makes the condition */
};

/* A product of two loaded values. */
struct ks_product {
	int a, b;		/* the two load accesses */
	int loop;		/* innermost loop around it, or -1 */
	int accumulate;		/* added into a running value (+=, fma) */
	int scaled;		/* times factors free of data and of loops
				 * (alpha * A[..] * B[..]) */
	unsigned line;
};

enum ks_fp64_kind {
	KS_FP64_LITERAL,	/* 2.0 instead of 2.0f */
	KS_FP64_CALL,		/* exp() instead of expf() */
	KS_FP64_ARITH,		/* arithmetic done in double */
};

struct ks_fp64 {
	enum ks_fp64_kind kind;
	int loop;
	unsigned line;
};

/* An integer division or remainder by a value not known at compile time. */
struct ks_divmod {
	int rem;
	int loop;
	unsigned line;
	/* The derived quotient it computes (Q_dquot, or its remainder), or
	 * -1; the expression's bytes [begin, end) in the main file when
	 * in_main (a binary `a / b`, `a % b`; not a compound assignment). */
	int dquot;
	unsigned long begin, end;
	int in_main;
	/* an operand depends on the thread, a loop or memory (1 unless the
	 * walk saw both operands uniform) */
	int thread;
};

/* A derived quotient: floor(num / den), num's exact view, den uniform. */
struct ks_dquot {
	struct ks_xform num;
	struct ks_poly den;
};

struct ks_facts {
	struct ks_array *arrays;
	size_t narrays;
	struct ks_access *acc;
	size_t nacc;
	struct ks_loop *loops;
	size_t nloops;
	struct ks_call *calls;
	size_t ncalls;
	struct ks_branch *branches;
	size_t nbranches;
	struct ks_product *products;
	size_t nproducts;
	struct ks_fp64 *fp64;
	size_t nfp64;
	struct ks_divmod *divmods;
	size_t ndivmods;
	struct ks_dquot *dquots;	/* derived quotients (at most KS_DER_N) */
	size_t ndquots;
	char **syms;		/* user symbols' names, from KS_SYM_USER */
	size_t nsyms;
	int float_code;		/* float, half or bfloat16 data */
	int declares_double;	/* a double parameter, pointee or variable */
	int uses_vector_types;
	int shared_decls;	/* __shared__ variables declared */
	int inline_asm;
	/* Values from memory folded into a loop-carried local: sum += x[i],
	 * m = fmaxf(m, x[i]) (a serial reduction or scan). */
	int loop_accumulations;
	int incomplete;		/* some construct was not understood */
	/* The built-in coordinates the kernel reads (inlined device
	 * functions included): KS_COORD_BIT(builtin, dimension), a
	 * dimension that cannot be told counting as all three. A launch
	 * dimension the kernel never reads makes its threads along it
	 * repeat each other's work. */
	unsigned coords;
};

enum ks_coord { KS_COORD_TID, KS_COORD_BID, KS_COORD_BDIM, KS_COORD_GDIM };
#define KS_COORD_BIT(b, d) (1u << ((unsigned)(b) * 3u + (unsigned)(d)))
/* Every coordinate along y: threadIdx.y, blockIdx.y, blockDim.y, gridDim.y. */
#define KS_COORD_Y_MASK (KS_COORD_BIT(KS_COORD_TID, 1) | KS_COORD_BIT(KS_COORD_BID, 1) | \
			 KS_COORD_BIT(KS_COORD_BDIM, 1) | KS_COORD_BIT(KS_COORD_GDIM, 1))

void ks_facts_release(struct ks_facts *f);

/* Appenders: each returns the new element's index. */
int ks_facts_add_array(struct ks_facts *f, const struct ks_array *a);
int ks_facts_add_access(struct ks_facts *f, const struct ks_access *a);
int ks_facts_add_loop(struct ks_facts *f, const struct ks_loop *l);
int ks_facts_add_call(struct ks_facts *f, const char *name,
		      enum ks_call_kind kind, int fp64, int loop,
		      unsigned line);
int ks_facts_add_branch(struct ks_facts *f, const struct ks_branch *b);
int ks_facts_add_product(struct ks_facts *f, const struct ks_product *p);
int ks_facts_add_fp64(struct ks_facts *f, enum ks_fp64_kind kind, int loop,
		      unsigned line);
int ks_facts_add_divmod(struct ks_facts *f, int rem, int loop, unsigned line);
int ks_facts_add_dquot(struct ks_facts *f, const struct ks_dquot *d);
/* A user symbol's number (KS_SYM_USER + i), added when new. */
unsigned ks_facts_sym(struct ks_facts *f, const char *name);

/* Is `loop` (or a loop nested in it) the loop `inner`? */
int ks_facts_loop_within(const struct ks_facts *f, int inner, int loop);

/*
 * Pure knowledge about names (tables in facts.c, documented in
 * docs/FEATURES.md): the kind of a called function, and whether a type
 * name is a CUDA vector type (then *lanes and *scalar are set).
 */
enum ks_call_kind ks_facts_call_kind(const char *name);
int ks_facts_vector_type(const char *name, int *lanes, enum ks_scalar *scalar);

#endif
