/* Unit tests of src/analysis without libclang: the form algebra, the
 * knowledge tables, every feature on hand-made facts, argument building,
 * the kernel key, and the libclang search order. */
#include <stdlib.h>
#include <string.h>

#include "../../src/analysis/closure.h"
#include "../../src/cache/key.h"
#include "../../src/analysis/facts.h"
#include "../../src/analysis/features.h"
#include "../../src/analysis/inventory.h"
#include "../../src/analysis/libclang.h"
#include "../../src/core/buf.h"
#include "../../src/core/strv.h"
#include "test.h"

void ks_suite_analysis(void);

/* ---- building forms and facts -------------------------------------------- */

/* k * sym * src (sym 0: none; src KS_SRC_ONE: a constant term) */
static struct ks_form
term(enum ks_src src, long long k, unsigned sym)
{
	struct ks_form a, b, r;

	if (src == KS_SRC_ONE)
		ks_form_const(&a, 1);
	else
		ks_form_src(&a, src);
	if (sym)
		ks_form_sym(&b, sym);
	else
		ks_form_const(&b, 1);
	ks_form_mul(&r, &a, &b);
	ks_form_scale(&r, &r, k);
	return r;
}

static struct ks_form
plus(struct ks_form a, struct ks_form b)
{
	struct ks_form r;

	ks_form_add(&r, &a, &b);
	return r;
}

/* bytes * (blockIdx.d * blockDim.d + threadIdx.d) */
static struct ks_form
gidx(int d, long long bytes)
{
	return plus(term((enum ks_src)(KS_SRC_TID_X + d), bytes, 0),
		    term((enum ks_src)(KS_SRC_BID_X + d), bytes,
			 KS_SYM_BDIM_X + (unsigned)d));
}

static int
array(struct ks_facts *f, const char *name, enum ks_space space)
{
	struct ks_array a;

	memset(&a, 0, sizeof(a));
	a.name = (char *)name;
	a.space = space;
	a.param = -1;
	a.bytes = -1;
	return ks_facts_add_array(f, &a);
}

static int
access(struct ks_facts *f, int arr, unsigned flags, struct ks_form off,
       unsigned bytes, int loop)
{
	struct ks_access a;

	memset(&a, 0, sizeof(a));
	a.array = arr;
	a.flags = flags;
	a.offset = off;
	a.bytes = bytes;
	a.scalar = KS_T_FLOAT;
	a.lanes = 1;
	a.loop = loop;
	a.value_from = -1;
	a.line = 1;
	return ks_facts_add_access(f, &a);
}

static int
loop(struct ks_facts *f, int parent, enum ks_step step)
{
	struct ks_loop l;

	memset(&l, 0, sizeof(l));
	l.parent = parent;
	l.depth = parent < 0 ? 0 : f->loops[parent].depth + 1;
	l.step_kind = step;
	l.line = 1;
	return ks_facts_add_loop(f, &l);
}

static void
bounds(struct ks_facts *f, struct ks_form subject, int in_loop)
{
	struct ks_branch b;

	memset(&b, 0, sizeof(b));
	b.kind = KS_BR_BOUNDS;
	b.stmt = KS_BRS_IF;
	b.loop = in_loop;
	b.body_loop = -1;
	b.subject = subject;
	b.line = 1;
	ks_facts_add_branch(f, &b);
}

/* y[i] = a * x[i] with i the 1-D global index, bounds-checked */
static void
saxpy(struct ks_facts *f)
{
	int x = array(f, "x", KS_SPACE_GLOBAL),
	    y = array(f, "y", KS_SPACE_GLOBAL);

	access(f, x, KS_ACC_LOAD, gidx(0, 4), 4, -1);
	access(f, y, KS_ACC_STORE, gidx(0, 4), 4, -1);
	bounds(f, gidx(0, 1), -1);
	f->float_code = 1;
}

/* C[row*N+col] += A[row*K+k] * B[k*N+col] over a k-loop */
static void
gemm(struct ks_facts *f, enum ks_space space, enum ks_scalar scalar)
{
	int a = array(f, "A", space), b = array(f, "B", space);
	int c = array(f, "C", KS_SPACE_GLOBAL), l = loop(f, -1, KS_STEP_ADD);
	unsigned K = ks_facts_sym(f, "K"), N = ks_facts_sym(f, "N");
	struct ks_form row_k =
		plus(term(KS_SRC_TID_Y, 4, K), term(KS_SRC_LOOP0, 4, 0));
	struct ks_form k_col =
		plus(term(KS_SRC_LOOP0, 4, N), term(KS_SRC_TID_X, 4, 0));
	struct ks_product p;
	int la = access(f, a, KS_ACC_LOAD, row_k, 4, l);
	int lb = access(f, b, KS_ACC_LOAD, k_col, 4, l);

	f->acc[la].scalar = f->acc[lb].scalar = scalar;
	p.a = la;
	p.b = lb;
	p.loop = l;
	p.accumulate = 1;
	p.line = 2;
	ks_facts_add_product(f, &p);
	access(f, c, KS_ACC_STORE,
	       plus(term(KS_SRC_TID_Y, 4, N), term(KS_SRC_TID_X, 4, 0)), 4, -1);
}

static void
compute(const struct ks_facts *f, const struct ks_host *h,
	struct ks_features *out)
{
	memset(out, 0, sizeof(*out));
	ks_features_compute(f, h, 0, out);
}

#define FEATURE(facts, host, feat, want)                                    \
	do {                                                                \
		struct ks_features ft_;                                     \
		compute(facts, host, &ft_);                                 \
		if (ft_.v[feat] != (want)) {                                \
			TEST_FAIL_("%s: want %d, got %d (%s)",              \
				   ks_feature_name(feat), (int)(want),      \
				   ft_.v[feat],                             \
				   ft_.why[feat] ? ft_.why[feat] : "-");    \
			ks_features_release(&ft_);                          \
			return;                                             \
		}                                                           \
		ks_features_release(&ft_);                                  \
	} while (0)

/* ---- forms --------------------------------------------------------------- */

TEST(form_global_index_is_affine)
{
	struct ks_form f = gidx(0, 4);
	struct ks_buf b = KS_BUF_INIT;
	long long k;

	CHECK(ks_form_coef_const(&f, KS_SRC_TID_X, &k));
	CHECK_INT_EQ(4, k);
	CHECK(!ks_form_coef_const(&f, KS_SRC_BID_X, &k));	/* 4*bdim.x */
	CHECK(ks_form_global_index_only(&f));
	CHECK(!ks_form_is_uniform(&f));
	CHECK(ks_form_multiple_of(&f, 4));
	CHECK(!ks_form_multiple_of(&f, 8));
	ks_form_format(&f, NULL, 0, &b);
	CHECK_STR_EQ("4*tid.x + 4*bdim.x*bid.x", b.buf);
	ks_buf_release(&b);
}

TEST(form_division_exact_or_nonlinear)
{
	struct ks_form f = gidx(0, 8), four, r;
	long long k;

	ks_form_const(&four, 4);
	ks_form_div(&r, &f, &four, 0);
	CHECK(ks_form_coef_const(&r, KS_SRC_TID_X, &k));
	CHECK_INT_EQ(2, k);
	ks_form_div(&r, &f, &four, 1);	/* % 4 */
	CHECK(r.nonlinear & KS_SRC_BIT(KS_SRC_TID_X));
	ks_form_const(&four, 3);
	ks_form_div(&r, &f, &four, 0);	/* 8 not divisible by 3 */
	CHECK(r.nonlinear & KS_SRC_BIT(KS_SRC_TID_X));
}

TEST(form_remainder_of_uniform_marks_split)
{
	struct ks_form n, four, r, q;

	ks_form_sym(&n, KS_SYM_USER);
	ks_form_const(&four, 4);
	ks_form_div(&r, &n, &four, 1);
	CHECK(r.rem & 1);
	CHECK(ks_form_is_uniform(&r));
	ks_form_div(&q, &n, &four, 0);	/* n / 4: not yet a split */
	CHECK(!(q.rem & 1));
	ks_form_mul(&q, &q, &four);	/* (n / 4) * 4: rounded down */
	CHECK(q.rem & 1);
}

TEST(form_product_of_thread_values_is_nonlinear)
{
	struct ks_form a = term(KS_SRC_TID_X, 1, 0),
		       b = term(KS_SRC_TID_Y, 1, 0), r;

	ks_form_mul(&r, &a, &b);
	CHECK(r.nonlinear & KS_SRC_BIT(KS_SRC_TID_X));
	CHECK(r.nonlinear & KS_SRC_BIT(KS_SRC_TID_Y));
	CHECK(!ks_form_equal(&r, &r));	/* unknown values never compare equal */
	ks_form_data(&r, &a);
	CHECK(r.data);
}

TEST(form_equal_but_const_and_coefficients)
{
	struct ks_form a = gidx(0, 4),
		       b = plus(gidx(0, 4), term(KS_SRC_ONE, 4, 0));
	struct ks_form w =
		plus(term(KS_SRC_TID_X, 4, 0), term(KS_SRC_LOOP0, 4, 0));

	CHECK(!ks_form_equal(&a, &b));
	CHECK(ks_form_equal_but_const(&a, &b));
	CHECK(ks_form_coef_equal(&w, KS_SRC_TID_X, &w, KS_SRC_LOOP0));
	CHECK(!ks_form_coef_equal(&a, KS_SRC_TID_X, &a, KS_SRC_BID_X));
}

/* ---- knowledge ----------------------------------------------------------- */

TEST(call_kinds)
{
	CHECK_INT_EQ(KS_CALL_TRANSCENDENTAL, ks_facts_call_kind("expf"));
	CHECK_INT_EQ(KS_CALL_TRANSCENDENTAL, ks_facts_call_kind("__expf"));
	CHECK_INT_EQ(KS_CALL_TRANSCENDENTAL, ks_facts_call_kind("tanh"));
	CHECK_INT_EQ(KS_CALL_TRANSCENDENTAL, ks_facts_call_kind("h2exp"));
	CHECK_INT_EQ(KS_CALL_TRANSCENDENTAL, ks_facts_call_kind("hexp"));
	CHECK_INT_EQ(KS_CALL_TRANSCENDENTAL, ks_facts_call_kind("rsqrtf"));
	CHECK_INT_EQ(KS_CALL_MATH, ks_facts_call_kind("sqrtf"));
	CHECK_INT_EQ(KS_CALL_MATH, ks_facts_call_kind("fmaf"));
	CHECK_INT_EQ(KS_CALL_MATH, ks_facts_call_kind("__fdividef"));
	CHECK_INT_EQ(KS_CALL_SYNC, ks_facts_call_kind("__syncthreads"));
	CHECK_INT_EQ(KS_CALL_SYNC, ks_facts_call_kind("sync"));
	CHECK_INT_EQ(KS_CALL_WARP, ks_facts_call_kind("__shfl_down_sync"));
	CHECK_INT_EQ(KS_CALL_WARP, ks_facts_call_kind("__ballot_sync"));
	CHECK_INT_EQ(KS_CALL_ATOMIC, ks_facts_call_kind("atomicAdd"));
	CHECK_INT_EQ(KS_CALL_ATOMIC, ks_facts_call_kind("atomicCAS_block"));
	CHECK_INT_EQ(KS_CALL_TENSOR, ks_facts_call_kind("mma_sync"));
	CHECK_INT_EQ(KS_CALL_OTHER, ks_facts_call_kind("my_helper"));
	CHECK_INT_EQ(KS_CALL_OTHER, ks_facts_call_kind("expand"));
	CHECK_INT_EQ(KS_CALL_OTHER, ks_facts_call_kind(""));
}

TEST(vector_types)
{
	int lanes = 0;
	enum ks_scalar s = KS_T_OTHER;

	CHECK(ks_facts_vector_type("float4", &lanes, &s));
	CHECK_INT_EQ(4, lanes);
	CHECK_INT_EQ(KS_T_FLOAT, s);
	CHECK(ks_facts_vector_type("const int2", &lanes, &s));
	CHECK_INT_EQ(2, lanes);
	CHECK_INT_EQ(KS_T_INT32, s);
	CHECK(ks_facts_vector_type("__half2", &lanes, &s));
	CHECK_INT_EQ(KS_T_HALF, s);
	CHECK(ks_facts_vector_type("ulonglong2", &lanes, &s));
	CHECK_INT_EQ(KS_T_INT64, s);
	CHECK(!ks_facts_vector_type("float", &lanes, &s));
	CHECK(!ks_facts_vector_type("float5", &lanes, &s));
	CHECK(!ks_facts_vector_type("int4x", &lanes, &s));
	CHECK(!ks_facts_vector_type("dim3", &lanes, &s));
}

TEST(feature_names_and_aliases)
{
	int i;

	for (i = 0; i < KS_F_COUNT; i++)
		CHECK_INT_EQ(i, ks_feature_lookup(ks_feature_name(i)));
	CHECK_INT_EQ(KS_F_KERNEL_STRUCTURE,
		     ks_feature_lookup("kernel_structure_id"));
	CHECK_INT_EQ(KS_F_HAS_MULTIPLE_KERNELS,
		     ks_feature_lookup("has_multiple_kernels_in_forward"));
	CHECK_INT_EQ(-1, ks_feature_lookup("no_such_feature"));
	CHECK_NULL(ks_feature_name(KS_F_COUNT));
	CHECK_STR_EQ("is_pointwise", ks_feature_name(0));
	CHECK_STR_EQ("cudagraph_eligible", ks_feature_name(17));
}

TEST(host_blocking_calls)
{
	CHECK(ks_host_is_blocking("cudaMalloc"));
	CHECK(ks_host_is_blocking("cudaMemcpy"));
	CHECK(ks_host_is_blocking("cudaDeviceSynchronize"));
	CHECK(ks_host_is_blocking("cuMemAlloc_v2"));
	CHECK(!ks_host_is_blocking("cudaMemcpyAsync"));
	CHECK(!ks_host_is_blocking("cudaMallocAsync"));
	CHECK(!ks_host_is_blocking("cudaLaunchKernel"));
	CHECK(!ks_host_is_blocking(NULL));
}

/* ---- the 18 code features ------------------------------------------------ */

TEST(pointwise_and_streaming)
{
	struct ks_facts f;

	memset(&f, 0, sizeof(f));
	saxpy(&f);
	FEATURE(&f, NULL, KS_F_IS_POINTWISE, 1);
	FEATURE(&f, NULL, KS_F_STREAMING_NO_REUSE, 1);
	FEATURE(&f, NULL, KS_F_HAS_REUSE, 0);
	FEATURE(&f, NULL, KS_F_KERNEL_STRUCTURE, KS_S0_STREAMING);
	/* a uniform scalar load (alpha[0]) keeps it pointwise, not streaming */
	access(&f, array(&f, "alpha", KS_SPACE_GLOBAL), KS_ACC_LOAD,
	       term(KS_SRC_ONE, 0, 0), 4, -1);
	FEATURE(&f, NULL, KS_F_IS_POINTWISE, 1);
	FEATURE(&f, NULL, KS_F_STREAMING_NO_REUSE, 0);
	ks_facts_release(&f);
}

TEST(not_pointwise)
{
	struct ks_facts f;

	memset(&f, 0, sizeof(f));
	saxpy(&f);
	/* out[row] with a row-varying bias: threads use the index differently
	 */
	access(&f, array(&f, "bias", KS_SPACE_GLOBAL), KS_ACC_LOAD,
	       term(KS_SRC_TID_Y, 4, 0), 4, -1);
	FEATURE(&f, NULL, KS_F_IS_POINTWISE, 0);
	ks_facts_release(&f);
	memset(&f, 0, sizeof(f));
	saxpy(&f);
	f.shared_decls = 1;
	FEATURE(&f, NULL, KS_F_IS_POINTWISE, 0);
	ks_facts_release(&f);
	memset(&f, 0, sizeof(f));
	/* no store at all */
	access(&f, array(&f, "x", KS_SPACE_GLOBAL), KS_ACC_LOAD, gidx(0, 4), 4,
	       -1);
	FEATURE(&f, NULL, KS_F_IS_POINTWISE, 0);
	ks_facts_release(&f);
}

TEST(gemm_features)
{
	struct ks_facts f;

	memset(&f, 0, sizeof(f));
	gemm(&f, KS_SPACE_GLOBAL, KS_T_FLOAT);
	FEATURE(&f, NULL, KS_F_HAS_K_LOOP, 1);
	FEATURE(&f, NULL, KS_F_IS_GEMM_KLOOP, 1);
	FEATURE(&f, NULL, KS_F_IS_NAIVE_GEMM, 1);
	FEATURE(&f, NULL, KS_F_TC_ELIGIBLE, 1);
	FEATURE(&f, NULL, KS_F_HAS_REUSE, 1);
	FEATURE(&f, NULL, KS_F_IS_POINTWISE, 0);
	FEATURE(&f, NULL, KS_F_KERNEL_STRUCTURE, KS_S1_REUSE);
	ks_facts_release(&f);
	/* operands in shared memory: a GEMM k-loop, but not naive */
	memset(&f, 0, sizeof(f));
	gemm(&f, KS_SPACE_SHARED, KS_T_HALF);
	FEATURE(&f, NULL, KS_F_IS_GEMM_KLOOP, 1);
	FEATURE(&f, NULL, KS_F_IS_NAIVE_GEMM, 0);
	FEATURE(&f, NULL, KS_F_TC_ELIGIBLE, 1);
	ks_facts_release(&f);
	/* 32-bit integers: no tensor-core path */
	memset(&f, 0, sizeof(f));
	gemm(&f, KS_SPACE_GLOBAL, KS_T_INT32);
	FEATURE(&f, NULL, KS_F_TC_ELIGIBLE, 0);
	ks_facts_release(&f);
}

TEST(dot_product_is_a_k_loop_not_a_gemm)
{
	struct ks_facts f;
	struct ks_product p;
	int a, b, l;

	memset(&f, 0, sizeof(f));
	l = loop(&f, -1, KS_STEP_ADD);
	a = access(&f, array(&f, "a", KS_SPACE_GLOBAL), KS_ACC_LOAD,
		   plus(gidx(0, 4), term(KS_SRC_LOOP0, 4, 0)), 4, l);
	b = access(&f, array(&f, "b", KS_SPACE_GLOBAL), KS_ACC_LOAD,
		   plus(gidx(0, 4), term(KS_SRC_LOOP0, 4, 0)), 4, l);
	p.a = a;
	p.b = b;
	p.loop = l;
	p.accumulate = 1;
	p.line = 1;
	ks_facts_add_product(&f, &p);
	FEATURE(&f, NULL, KS_F_HAS_K_LOOP, 1);
	FEATURE(&f, NULL, KS_F_IS_GEMM_KLOOP, 0);
	FEATURE(&f, NULL, KS_F_TC_ELIGIBLE, 0);
	/* not accumulated: no k-loop */
	f.products[0].accumulate = 0;
	FEATURE(&f, NULL, KS_F_HAS_K_LOOP, 0);
	ks_facts_release(&f);
}

TEST(reuse_across_threads)
{
	struct ks_facts f;
	int l;

	/* y[row] = sum_k A[row*K+k] * x[k]: x is read by every row */
	memset(&f, 0, sizeof(f));
	l = loop(&f, -1, KS_STEP_ADD);
	access(&f, array(&f, "x", KS_SPACE_GLOBAL), KS_ACC_LOAD,
	       term(KS_SRC_LOOP0, 4, 0), 4, l);
	access(&f, array(&f, "y", KS_SPACE_GLOBAL), KS_ACC_STORE, gidx(0, 4), 4,
	       -1);
	FEATURE(&f, NULL, KS_F_HAS_REUSE, 1);
	FEATURE(&f, NULL, KS_F_STREAMING_NO_REUSE, 0);
	ks_facts_release(&f);
}

TEST(stencil_and_convolution)
{
	struct ks_facts f;
	int in, l;

	memset(&f, 0, sizeof(f));
	in = array(&f, "in", KS_SPACE_GLOBAL);
	access(&f, in, KS_ACC_LOAD, plus(gidx(0, 4), term(KS_SRC_ONE, -4, 0)),
	       4, -1);
	access(&f, in, KS_ACC_LOAD, gidx(0, 4), 4, -1);
	access(&f, array(&f, "out", KS_SPACE_GLOBAL), KS_ACC_STORE, gidx(0, 4),
	       4, -1);
	FEATURE(&f, NULL, KS_F_IS_STENCIL_CONV, 0);	/* two offsets */
	access(&f, in, KS_ACC_LOAD, plus(gidx(0, 4), term(KS_SRC_ONE, 4, 0)), 4,
	       -1);
	FEATURE(&f, NULL, KS_F_IS_STENCIL_CONV, 1);	/* three */
	FEATURE(&f, NULL, KS_F_HAS_REUSE, 1);
	FEATURE(&f, NULL, KS_F_KERNEL_STRUCTURE, KS_S1_REUSE);
	ks_facts_release(&f);
	/* in[i + k] over a loop: a sliding window */
	memset(&f, 0, sizeof(f));
	l = loop(&f, -1, KS_STEP_ADD);
	access(&f, array(&f, "in", KS_SPACE_GLOBAL), KS_ACC_LOAD,
	       plus(gidx(0, 4), term(KS_SRC_LOOP0, 4, 0)), 4, l);
	FEATURE(&f, NULL, KS_F_IS_STENCIL_CONV, 1);
	ks_facts_release(&f);
	/* A[row*K + k]: the loop strides differently from the thread */
	memset(&f, 0, sizeof(f));
	l = loop(&f, -1, KS_STEP_ADD);
	access(&f, array(&f, "A", KS_SPACE_GLOBAL), KS_ACC_LOAD,
	       plus(term(KS_SRC_TID_X, 4, KS_SYM_USER),
		    term(KS_SRC_LOOP0, 4, 0)),
	       4, l);
	FEATURE(&f, NULL, KS_F_IS_STENCIL_CONV, 0);
	ks_facts_release(&f);
}

TEST(shared_memory_tile)
{
	struct ks_facts f;
	int g, s, ld, st, l;

	memset(&f, 0, sizeof(f));
	g = array(&f, "A", KS_SPACE_GLOBAL);
	s = array(&f, "tile", KS_SPACE_SHARED);
	ld = access(&f, g, KS_ACC_LOAD, gidx(0, 4), 4, -1);
	st = access(&f, s, KS_ACC_STORE, term(KS_SRC_TID_X, 4, 0), 4, -1);
	f.acc[st].value_from = ld;
	l = loop(&f, -1, KS_STEP_ADD);
	access(&f, s, KS_ACC_LOAD, term(KS_SRC_LOOP0, 4, 0), 4, l);
	FEATURE(&f, NULL, KS_F_HAS_SHARED_MEMORY_TILE, 0);	/* no barrier */
	ks_facts_add_call(&f, "__syncthreads", KS_CALL_SYNC, 0, -1, 1);
	FEATURE(&f, NULL, KS_F_HAS_SHARED_MEMORY_TILE, 1);
	FEATURE(&f, NULL, KS_F_HAS_REUSE, 1);
	/* read across the levels of a halving loop: a reduction's scratch */
	f.loops[l].step_kind = KS_STEP_MUL;
	FEATURE(&f, NULL, KS_F_HAS_SHARED_MEMORY_TILE, 0);
	ks_facts_release(&f);
}

TEST(vector_access_alignment)
{
	struct ks_facts f;
	int x, a;

	memset(&f, 0, sizeof(f));
	FEATURE(&f, NULL, KS_F_USES_VECTOR_TYPES, 0);
	x = array(&f, "x", KS_SPACE_GLOBAL);
	a = access(&f, x, KS_ACC_LOAD | KS_ACC_VECTOR, gidx(0, 16), 16, -1);
	FEATURE(&f, NULL, KS_F_USES_VECTOR_TYPES, 1);
	FEATURE(&f, NULL, KS_F_HAS_VECTOR_LOAD_STORE, 1);
	FEATURE(&f, NULL, KS_F_IS_ALIGNED_VECTOR_ACCESS, 1);
	/* reinterpret_cast<float4 *>(x + 1)[i]: 4 bytes off */
	f.acc[a].offset = plus(gidx(0, 16), term(KS_SRC_ONE, 4, 0));
	FEATURE(&f, NULL, KS_F_IS_ALIGNED_VECTOR_ACCESS, 0);
	ks_facts_release(&f);
	memset(&f, 0, sizeof(f));
	f.uses_vector_types = 1;	/* a float4 variable, scalar accesses */
	FEATURE(&f, NULL, KS_F_USES_VECTOR_TYPES, 1);
	FEATURE(&f, NULL, KS_F_HAS_VECTOR_LOAD_STORE, 0);
	ks_facts_release(&f);
}

TEST(bounds_check_and_tail)
{
	struct ks_facts f;
	int l;

	memset(&f, 0, sizeof(f));
	saxpy(&f);
	FEATURE(&f, NULL, KS_F_HAS_BOUNDS_CHECK, 1);
	FEATURE(&f, NULL, KS_F_HAS_TAIL_HANDLING_OVERHEAD, 0);
	l = loop(&f, -1, KS_STEP_ADD);
	bounds(&f, gidx(0, 1), l);	/* checked again in every iteration */
	FEATURE(&f, NULL, KS_F_HAS_TAIL_HANDLING_OVERHEAD, 1);
	ks_facts_release(&f);
	memset(&f, 0, sizeof(f));
	access(&f, array(&f, "y", KS_SPACE_GLOBAL), KS_ACC_STORE, gidx(0, 4), 4,
	       -1);
	FEATURE(&f, NULL, KS_F_HAS_BOUNDS_CHECK, 0);
	l = loop(&f, -1, KS_STEP_ADD);
	f.loops[l].init.rem = 1;	/* for (j = n / 4 * 4 + i; ...) */
	FEATURE(&f, NULL, KS_F_HAS_TAIL_HANDLING_OVERHEAD, 1);
	ks_facts_release(&f);
}

TEST(transcendentals)
{
	struct ks_facts f;

	memset(&f, 0, sizeof(f));
	ks_facts_add_call(&f, "sqrtf", KS_CALL_MATH, 0, -1, 3);
	FEATURE(&f, NULL, KS_F_USES_TRANSCENDENTALS, 0);
	ks_facts_add_call(&f, "expf", KS_CALL_TRANSCENDENTAL, 0, -1, 4);
	FEATURE(&f, NULL, KS_F_USES_TRANSCENDENTALS, 1);
	ks_facts_release(&f);
}

TEST(structure_reduction_and_irregular)
{
	struct ks_facts f;
	struct ks_form data;
	int a;

	memset(&f, 0, sizeof(f));
	saxpy(&f);
	a = access(&f, array(&f, "sum", KS_SPACE_GLOBAL),
		   KS_ACC_LOAD | KS_ACC_STORE | KS_ACC_ATOMIC,
		   term(KS_SRC_ONE, 0, 0), 4, -1);
	FEATURE(&f, NULL, KS_F_KERNEL_STRUCTURE, KS_S3_REDUCTION);
	FEATURE(&f, NULL, KS_F_ATOMICS, 1);
	FEATURE(&f, NULL, KS_F_ATOMICS_UNIFORM_ADDRESS, 1);
	/* bins[data[i]]: a histogram is irregular, not a reduction */
	ks_form_data(&data, &f.acc[0].offset);
	f.acc[a].offset = data;
	FEATURE(&f, NULL, KS_F_KERNEL_STRUCTURE, KS_S2_IRREGULAR);
	FEATURE(&f, NULL, KS_F_ATOMICS_UNIFORM_ADDRESS, 0);
	FEATURE(&f, NULL, KS_F_INDIRECT_ACCESSES, 1);
	ks_facts_release(&f);
	/* a halving loop with barriers: a tree reduction */
	memset(&f, 0, sizeof(f));
	saxpy(&f);
	loop(&f, -1, KS_STEP_MUL);
	f.loops[0].has_sync = 1;
	FEATURE(&f, NULL, KS_F_KERNEL_STRUCTURE, KS_S3_REDUCTION);
	ks_facts_release(&f);
	/* shuffles down a warp */
	memset(&f, 0, sizeof(f));
	saxpy(&f);
	ks_facts_add_call(&f, "__shfl_down_sync", KS_CALL_WARP, 0, -1, 1);
	FEATURE(&f, NULL, KS_F_KERNEL_STRUCTURE, KS_S3_REDUCTION);
	FEATURE(&f, NULL, KS_F_WARP_INTRINSICS, 1);
	ks_facts_release(&f);
}

TEST(serial_reductions)
{
	struct ks_facts f;
	struct ks_product p;
	int l, a;

	memset(&f, 0, sizeof(f));
	saxpy(&f);
	f.loop_accumulations = 1;	/* sum += x[...] in a loop */
	FEATURE(&f, NULL, KS_F_KERNEL_STRUCTURE, KS_S3_REDUCTION);
	FEATURE(&f, NULL, KS_F_IS_POINTWISE, 0);
	ks_facts_release(&f);
	/* a GEMV also accumulates, but is a k-loop first */
	memset(&f, 0, sizeof(f));
	gemm(&f, KS_SPACE_GLOBAL, KS_T_FLOAT);
	f.loop_accumulations = 1;
	FEATURE(&f, NULL, KS_F_KERNEL_STRUCTURE, KS_S1_REUSE);
	ks_facts_release(&f);
	/* x[j] * x[j]: not a dot product */
	memset(&f, 0, sizeof(f));
	l = loop(&f, -1, KS_STEP_ADD);
	a = array(&f, "x", KS_SPACE_GLOBAL);
	p.a = access(&f, a, KS_ACC_LOAD,
		     plus(gidx(0, 4), term(KS_SRC_LOOP0, 4, 0)), 4, l);
	p.b = access(&f, a, KS_ACC_LOAD,
		     plus(gidx(0, 4), term(KS_SRC_LOOP0, 4, 0)), 4, l);
	p.loop = l;
	p.accumulate = 1;
	p.line = 1;
	ks_facts_add_product(&f, &p);
	FEATURE(&f, NULL, KS_F_HAS_K_LOOP, 0);
	ks_facts_release(&f);
}

TEST(multiple_kernels_and_graphs)
{
	struct ks_facts f;
	struct ks_host h;
	struct ks_host_launch l;
	int fn;

	memset(&f, 0, sizeof(f));
	memset(&h, 0, sizeof(h));
	saxpy(&f);
	fn = ks_host_add_fn(&h, "forward");
	memset(&l, 0, sizeof(l));
	l.kernel = 0;
	l.fn = fn;
	l.offset = 100;
	ks_host_add_launch(&h, &l);
	FEATURE(&f, &h, KS_F_HAS_MULTIPLE_KERNELS, 0);
	FEATURE(&f, &h, KS_F_CUDAGRAPH_ELIGIBLE, 0);
	l.kernel = 1;
	l.offset = 200;
	ks_host_add_launch(&h, &l);
	FEATURE(&f, &h, KS_F_HAS_MULTIPLE_KERNELS, 1);
	FEATURE(&f, &h, KS_F_CUDAGRAPH_ELIGIBLE, 1);
	FEATURE(&f, &h, KS_F_KERNEL_STRUCTURE, KS_S4_MULTI_KERNEL);
	/* a synchronization before the sequence: still capturable */
	ks_host_add_blocking(&h, fn, 50, "cudaMalloc");
	FEATURE(&f, &h, KS_F_CUDAGRAPH_ELIGIBLE, 1);
	/* one between the launches: not */
	ks_host_add_blocking(&h, fn, 150, "cudaDeviceSynchronize");
	FEATURE(&f, &h, KS_F_CUDAGRAPH_ELIGIBLE, 0);
	ks_host_release(&h);
	/* alone, but in a host loop */
	memset(&h, 0, sizeof(h));
	fn = ks_host_add_fn(&h, "train");
	l.kernel = 0;
	l.fn = fn;
	l.offset = 100;
	l.loop_begin = 80;
	l.loop_end = 300;
	ks_host_add_launch(&h, &l);
	FEATURE(&f, &h, KS_F_HAS_MULTIPLE_KERNELS, 1);
	FEATURE(&f, &h, KS_F_CUDAGRAPH_ELIGIBLE, 1);
	ks_host_add_blocking(&h, fn, 250, "cudaMemcpy");
	FEATURE(&f, &h, KS_F_CUDAGRAPH_ELIGIBLE, 0);
	ks_host_release(&h);
	ks_facts_release(&f);
}

/* ---- the features beyond KernelSkill's ----------------------------------- */

TEST(uncoalesced_accesses)
{
	struct ks_facts f;
	int a;

	memset(&f, 0, sizeof(f));
	saxpy(&f);
	FEATURE(&f, NULL, KS_F_UNCOALESCED_ACCESSES, 0);
	/* out[x * h + y]: threadIdx.x strides by a row */
	a = access(&f, array(&f, "out", KS_SPACE_GLOBAL), KS_ACC_STORE,
		   plus(term(KS_SRC_TID_X, 4, KS_SYM_USER),
			term(KS_SRC_TID_Y, 4, 0)),
		   4, -1);
	FEATURE(&f, NULL, KS_F_UNCOALESCED_ACCESSES, 1);
	/* a[2 * tid.x]: strided by a constant */
	f.acc[a].offset = term(KS_SRC_TID_X, 8, 0);
	FEATURE(&f, NULL, KS_F_UNCOALESCED_ACCESSES, 1);
	/* a[tid.y]: a broadcast within the warp, not uncoalesced */
	f.acc[a].offset = term(KS_SRC_TID_Y, 4, 0);
	FEATURE(&f, NULL, KS_F_UNCOALESCED_ACCESSES, 0);
	/* shared memory is not coalesced at all */
	f.acc[a].offset = term(KS_SRC_TID_X, 8, 0);
	f.arrays[f.acc[a].array].space = KS_SPACE_SHARED;
	FEATURE(&f, NULL, KS_F_UNCOALESCED_ACCESSES, 0);
	ks_facts_release(&f);
}

TEST(loops_sync_fp64_divmod_branches)
{
	struct ks_facts f;
	struct ks_branch b;
	int l;

	memset(&f, 0, sizeof(f));
	saxpy(&f);
	l = loop(&f, -1, KS_STEP_ADD);
	f.loops[l].has_trip = 1;
	f.loops[l].trip = 8;
	loop(&f, -1, KS_STEP_ADD);
	FEATURE(&f, NULL, KS_F_CONST_TRIP_LOOPS, 1);
	ks_facts_add_call(&f, "__syncthreads", KS_CALL_SYNC, 0, -1, 1);
	ks_facts_add_call(&f, "__syncthreads", KS_CALL_SYNC, 0, l, 2);
	FEATURE(&f, NULL, KS_F_SYNCTHREADS, 2);
	ks_facts_add_fp64(&f, KS_FP64_LITERAL, -1, 3);
	FEATURE(&f, NULL, KS_F_FP64_IN_FLOAT_CODE, 1);
	f.declares_double = 1;	/* double code: FP64 is intended */
	FEATURE(&f, NULL, KS_F_FP64_IN_FLOAT_CODE, 0);
	ks_facts_add_divmod(&f, 0, -1, 4);
	FEATURE(&f, NULL, KS_F_RUNTIME_DIVMOD_IN_LOOPS, 0);
	ks_facts_add_divmod(&f, 1, l, 5);
	FEATURE(&f, NULL, KS_F_RUNTIME_DIVMOD_IN_LOOPS, 1);
	memset(&b, 0, sizeof(b));
	b.kind = KS_BR_THREAD;
	b.loop = -1;
	ks_facts_add_branch(&f, &b);
	b.kind = KS_BR_UNIFORM;
	ks_facts_add_branch(&f, &b);
	FEATURE(&f, NULL, KS_F_THREAD_DEPENDENT_BRANCHES, 1);
	ks_facts_release(&f);
}

/*
 * batchnorm's shape: k = (g / hw) % K with hw a parameter (or H * W),
 * y[g] = f(x[g], mean[k]); `what` 1: the quotient also indexes a store,
 * 2: a remainder of g itself indexes a load, 3: the divisor is the thread
 * (no quotient), 4: a branch on the thread besides the bounds check.
 */
static void
flat_quotients(struct ks_facts *f, int product, int what)
{
	int x = array(f, "x", KS_SPACE_GLOBAL), y = array(f, "y", KS_SPACE_GLOBAL);
	int mean = array(f, "mean", KS_SPACE_GLOBAL);
	struct ks_form g = gidx(0, 1), hw, K, q, k, r, four;
	int d;

	if (product) {
		struct ks_form h = term(KS_SRC_ONE, 1, ks_facts_sym(f, "H"));

		hw = term(KS_SRC_ONE, 1, ks_facts_sym(f, "W"));
		ks_form_mul(&hw, &hw, &h);
	} else {
		hw = term(KS_SRC_ONE, 1, ks_facts_sym(f, "hw"));
	}
	K = term(KS_SRC_ONE, 1, ks_facts_sym(f, "K"));
	ks_form_const(&four, 4);
	d = ks_facts_add_divmod(f, 0, -1, 5);
	if (what == 3) {
		q = term(KS_SRC_TID_X, 1, 0);
		ks_form_div(&q, &g, &q, 0);
	} else {
		f->divmods[d].dquot = ks_form_div_derived(f, &q, &g, &hw, 0);
	}
	d = ks_facts_add_divmod(f, 1, -1, 5);
	f->divmods[d].dquot = ks_form_div_derived(f, &k, &q, &K, 1);
	ks_form_mul(&k, &k, &four);
	access(f, x, KS_ACC_LOAD, gidx(0, 4), 4, -1);
	access(f, mean, KS_ACC_LOAD, k, 4, -1);
	access(f, y, KS_ACC_STORE, gidx(0, 4), 4, -1);
	bounds(f, gidx(0, 1), -1);
	if (what == 1)
		access(f, array(f, "z", KS_SPACE_GLOBAL), KS_ACC_STORE, k, 4, -1);
	if (what == 2) {
		d = ks_facts_add_divmod(f, 1, -1, 6);
		f->divmods[d].dquot = ks_form_div_derived(f, &r, &g, &hw, 1);
		ks_form_mul(&r, &r, &four);
		access(f, array(f, "w", KS_SPACE_GLOBAL), KS_ACC_LOAD, r, 4, -1);
	}
	if (what == 4) {
		struct ks_branch b;

		memset(&b, 0, sizeof(b));
		b.kind = KS_BR_THREAD;
		b.loop = b.body_loop = -1;
		b.line = 7;
		ks_facts_add_branch(f, &b);
	}
	f->float_code = 1;
}

TEST(flat_quotient_lookups)
{
	struct ks_facts f;

	for (int product = 0; product < 2; product++) {
		memset(&f, 0, sizeof(f));
		flat_quotients(&f, product, 0);
		FEATURE(&f, NULL, KS_F_FLAT_QUOTIENT_LOOKUPS, 1);
		FEATURE(&f, NULL, KS_F_STREAMING_NO_REUSE, 1);
		ks_facts_release(&f);
	}
	for (int what = 1; what <= 4; what++) {
		memset(&f, 0, sizeof(f));
		flat_quotients(&f, 0, what);
		FEATURE(&f, NULL, KS_F_FLAT_QUOTIENT_LOOKUPS, 0);
		ks_facts_release(&f);
	}
	/* a pointwise kernel divides nothing */
	memset(&f, 0, sizeof(f));
	saxpy(&f);
	FEATURE(&f, NULL, KS_F_FLAT_QUOTIENT_LOOKUPS, 0);
	ks_facts_release(&f);
}

TEST(canonical_index_and_retunable_geometry)
{
	struct ks_facts f;

	memset(&f, 0, sizeof(f));
	saxpy(&f);
	FEATURE(&f, NULL, KS_F_INDEX_1D, 1);
	FEATURE(&f, NULL, KS_F_INDEX_2D, 0);
	FEATURE(&f, NULL, KS_F_GEOMETRY_RETUNABLE, 1);
	bounds(&f, gidx(1, 1), -1);
	FEATURE(&f, NULL, KS_F_INDEX_2D, 1);
	FEATURE(&f, NULL, KS_F_INDEX_1D, 0);
	f.shared_decls = 1;
	FEATURE(&f, NULL, KS_F_GEOMETRY_RETUNABLE, 0);
	ks_facts_release(&f);
	/* threadIdx.x used alone: tied to the block shape */
	memset(&f, 0, sizeof(f));
	saxpy(&f);
	access(&f, array(&f, "w", KS_SPACE_GLOBAL), KS_ACC_LOAD,
	       term(KS_SRC_TID_X, 4, 0), 4, -1);
	FEATURE(&f, NULL, KS_F_GEOMETRY_RETUNABLE, 0);
	ks_facts_release(&f);
	/* blockIdx.x * 256 + threadIdx.x: not canonical */
	memset(&f, 0, sizeof(f));
	bounds(&f, plus(term(KS_SRC_TID_X, 1, 0), term(KS_SRC_BID_X, 256, 0)),
	       -1);
	FEATURE(&f, NULL, KS_F_INDEX_1D, 0);
	ks_facts_release(&f);
}

TEST(details_json)
{
	struct ks_facts f;
	struct ks_buf b = KS_BUF_INIT;
	int a;

	memset(&f, 0, sizeof(f));
	saxpy(&f);
	a = access(&f, array(&f, "sum", KS_SPACE_GLOBAL),
		   KS_ACC_LOAD | KS_ACC_STORE | KS_ACC_ATOMIC,
		   term(KS_SRC_ONE, 0, 0), 4, -1);
	f.acc[a].op = strdup("atomicAdd");
	ks_features_details_json(&f, &b);
	CHECK(strstr(b.buf,
		     "\"atomics\": [{\"line\": 1, \"op\": \"atomicAdd\", "
		     "\"object\": \"sum\", \"address_uniform\": true"));
	CHECK(strstr(b.buf, "\"uncoalesced\": []"));
	CHECK(strstr(b.buf, "\"kind\": \"bounds\""));
	ks_buf_release(&b);
	ks_facts_release(&f);
}

/* ---- keys, arguments, libclang search ------------------------------------ */

TEST(kernel_key_hashes_every_input)
{
	struct ks_strv flags = KS_STRV_INIT, fast = KS_STRV_INIT;
	char k0[33], k[33];

	ks_strv_push(&fast, "-use_fast_math");
	ks_key_kernel("_Z1kv", "text", "sm_90", &flags, "13.0.88", k0);
	CHECK_INT_EQ(32, strlen(k0));
	ks_key_kernel("_Z1kv", "text", "sm_90", &flags, "13.0.88", k);
	CHECK_STR_EQ(k0, k);
	ks_key_kernel("_Z1lv", "text", "sm_90", &flags, "13.0.88", k);
	CHECK(strcmp(k0, k));
	ks_key_kernel("_Z1kv", "text2", "sm_90", &flags, "13.0.88", k);
	CHECK(strcmp(k0, k));
	ks_key_kernel("_Z1kv", "text", "sm_80", &flags, "13.0.88", k);
	CHECK(strcmp(k0, k));
	ks_key_kernel("_Z1kv", "text", "sm_90", &fast, "13.0.88", k);
	CHECK(strcmp(k0, k));
	ks_key_kernel("_Z1kv", "text", "sm_90", &flags, "13.1.0", k);
	CHECK(strcmp(k0, k));
	ks_strv_release(&fast);
}

TEST(clang_arch_mapping)
{
	char buf[32];

	CHECK_STR_EQ("sm_90", ks_tu_clang_arch("sm_90", buf, sizeof(buf)));
	CHECK_STR_EQ("sm_80", ks_tu_clang_arch("compute_80", buf, sizeof(buf)));
	CHECK_STR_EQ("sm_89", ks_tu_clang_arch("lto_89", buf, sizeof(buf)));
	CHECK_STR_EQ("sm_90a", ks_tu_clang_arch("sm_90a", buf, sizeof(buf)));
	CHECK_STR_EQ("sm_90", ks_tu_clang_arch("sm_100", buf, sizeof(buf)));
	CHECK_STR_EQ("sm_90", ks_tu_clang_arch("sm_120a", buf, sizeof(buf)));
	CHECK_NULL(ks_tu_clang_arch("native", buf, sizeof(buf)));
	CHECK_NULL(ks_tu_clang_arch("sm_1", buf, sizeof(buf)));
	CHECK_NULL(ks_tu_clang_arch(NULL, buf, sizeof(buf)));
}

TEST(cuda_arch_list_as_nvcc_defines_it)
{
	static const char *const two[] = {"compute_90", "compute_75",
					  "compute_90"};
	static const char *const odd[] = {"compute_90a", "native", NULL,
					  "compute_100f", "lto_80"};
	char *l;

	/* nvcc 13: -gencode compute_90 and compute_75 give "750,900" */
	l = ks_tu_arch_list(two, 3);
	CHECK_STR_EQ("750,900", l);
	free(l);
	/* suffixes drop (sm_90a: 900); what does not parse is skipped */
	l = ks_tu_arch_list(odd, 5);
	CHECK_STR_EQ("800,900,1000", l);
	free(l);
	CHECK_NULL(ks_tu_arch_list(odd + 1, 2));
	CHECK_NULL(ks_tu_arch_list(NULL, 0));
}

TEST(clang_args_from_the_build)
{
	struct ks_strv inc = KS_STRV_INIT, def = KS_STRV_INIT,
		       out = KS_STRV_INIT;
	struct ks_tu_opts o;
	long i;

	ks_strv_push(&inc, "-Iinclude");
	ks_strv_push(&inc, "-isystem/opt/lib");
	ks_strv_push(&def, "-DN=4");
	ks_strv_push(&def, "-UNDEBUG");
	memset(&o, 0, sizeof(o));
	o.source = "k.cu";
	o.cwd = "/src/proj";
	o.toolkit = "/usr/local/cuda";
	o.arch = "sm_90";
	o.includes = &inc;
	o.defines = &def;
	ks_tu_args(&o, "/state/clang", "/state/prelude.h", &out);
	CHECK(ks_strv_find(&out, "--cuda-device-only") >= 0);
	CHECK(ks_strv_find(&out, "--cuda-gpu-arch=sm_90") >= 0);
	CHECK(ks_strv_find(&out, "--cuda-path=/usr/local/cuda") >= 0);
	CHECK(ks_strv_find(&out, "/usr/local/cuda/include/cccl") >= 0);
	CHECK(ks_strv_find(&out, "/state/clang") >= 0);
	CHECK(ks_strv_find(&out, "/state/clang/ks_cuda_extras.h") >= 0);
	CHECK(ks_strv_find(&out, "-std=c++17") >= 0);	/* nvcc 13's default */
	i = ks_strv_find(&out, "/src/proj/include");	/* relative: absolute */
	CHECK(i > 0);
	CHECK_STR_EQ("-I", out.v[i - 1]);
	i = ks_strv_find(&out, "/opt/lib");
	CHECK(i > 0);
	CHECK_STR_EQ("-isystem", out.v[i - 1]);
	CHECK(ks_strv_find(&out, "-DN=4") >= 0);
	CHECK(ks_strv_find(&out, "-UNDEBUG") >= 0);
	CHECK(ks_strv_find(&out, "-nocudainc") < 0);
	CHECK(ks_strv_find(&out, "-D__CUDA_ARCH_LIST__=900") < 0);
	CHECK(ks_strv_find(&out, "-fclang-abi-compat=17") >= 0);
	ks_strv_release(&out);
	/* the build's arch list, before the build's own -D/-U */
	o.arch_list = "800,900";
	ks_strv_init(&out);
	ks_tu_args(&o, "/state/clang", "/state/prelude.h", &out);
	i = ks_strv_find(&out, "-D__CUDA_ARCH_LIST__=800,900");
	CHECK(i > 0);
	CHECK(i < ks_strv_find(&out, "-DN=4"));
	ks_strv_release(&out);
	o.arch_list = NULL;
	/* the wrappers found beside a libclang name its resource headers
	   (a copy of libclang moved under /opt misses them otherwise) */
	o.cuda_wrappers = "/opt/llvm/lib/clang/19/include/cuda_wrappers";
	ks_strv_init(&out);
	ks_tu_args(&o, "/state/clang", "/state/prelude.h", &out);
	i = ks_strv_find(&out, "-resource-dir");
	CHECK(i > 0);
	if (i > 0 && (size_t)i + 1 < out.n)
		CHECK_STR_EQ("/opt/llvm/lib/clang/19", out.v[i + 1]);
	CHECK(ks_strv_find(&out, o.cuda_wrappers) > 0);
	ks_strv_release(&out);
	o.cuda_wrappers = "/somewhere/cuda_wrappers";
	ks_strv_init(&out);
	ks_tu_args(&o, "/state/clang", "/state/prelude.h", &out);
	CHECK(ks_strv_find(&out, "-resource-dir") < 0);
	ks_strv_release(&out);
	o.cuda_wrappers = NULL;
	/* no toolkit: the minimal prelude */
	o.toolkit = NULL;
	o.std = "c++20";
	o.arch = NULL;
	ks_strv_init(&out);
	ks_tu_args(&o, "/state/clang", "/state/prelude.h", &out);
	CHECK(ks_strv_find(&out, "-nocudainc") >= 0);
	CHECK(ks_strv_find(&out, "/state/prelude.h") >= 0);
	CHECK(ks_strv_find(&out, "-std=c++20") >= 0);
	CHECK(ks_strv_find(&out, "--cuda-gpu-arch=sm_75") >= 0);
	ks_strv_release(&out);
	ks_strv_release(&inc);
	ks_strv_release(&def);
}

static char *
prefix_of(const char *text)
{
	struct ks_strv v = KS_STRV_INIT;
	struct ks_buf b = KS_BUF_INIT;
	size_t i;

	ks_tu_prefix(text, &v);
	for (i = 0; i < v.n; i++)
		ks_buf_addf(&b, "%s%s", i ? " " : "", v.v[i]);
	ks_strv_release(&v);
	return ks_buf_detach(&b, NULL);
}

TEST(leading_system_includes)
{
	char *p;

	p = prefix_of("/* header */\n#pragma once\n#include <cub/cub.cuh>\n"
		      "  #  include <thrust/device_vector.h> // why\n"
		      "// more\n#include <cstdio>\n\n__global__ void k();\n"
		      "#include <late.h>\n");
	CHECK_STR_EQ("cub/cub.cuh thrust/device_vector.h cstdio", p);
	free(p);
	/* a user include, a macro or a condition ends the prefix */
	p = prefix_of("#include <a.h>\n#include \"mine.h\"\n#include <b.h>\n");
	CHECK_STR_EQ("a.h", p);
	free(p);
	p = prefix_of("#define N 4\n#include <a.h>\n");
	CHECK_STR_EQ("", p);
	free(p);
	p = prefix_of("#include <a.h>\n#if X\n#include <b.h>\n#endif\n");
	CHECK_STR_EQ("a.h", p);
	free(p);
	p = prefix_of("#include <a.h> int x;\n");
	CHECK_STR_EQ("", p);
	free(p);
	p = prefix_of("#include <unterminated\n");
	CHECK_STR_EQ("", p);
	free(p);
	p = prefix_of("");
	CHECK_STR_EQ("", p);
	free(p);
}

TEST(libclang_search_order)
{
	struct ks_strv c = KS_STRV_INIT;

	ks_libclang_candidates("/opt/llvm/lib/libclang.so", &c);
	CHECK_INT_EQ(1, c.n);
	CHECK_STR_EQ("/opt/llvm/lib/libclang.so", c.v[0]);
	ks_strv_release(&c);
	ks_libclang_candidates(NULL, &c);
	CHECK_STR_EQ("libclang-19.so.1", c.v[0]);
	CHECK(ks_strv_find(&c, "libclang-16.so.1") >
	      ks_strv_find(&c, "libclang-17.so.1"));
	CHECK(ks_strv_find(&c, "/usr/lib/llvm-16/lib/libclang.so.1") > 0);
	CHECK_STR_EQ("libclang.so", c.v[c.n - 1]);
	ks_strv_release(&c);
	CHECK_INT_EQ(
		19, ks_libclang_parse_major("Debian clang version 19.1.7 (3)"));
	CHECK_INT_EQ(16, ks_libclang_parse_major("clang version 16.0.6"));
	CHECK_INT_EQ(0, ks_libclang_parse_major("something else"));
	CHECK_INT_EQ(0, ks_libclang_parse_major(NULL));
}

void
ks_suite_analysis(void)
{
	RUN(form_global_index_is_affine);
	RUN(form_division_exact_or_nonlinear);
	RUN(form_remainder_of_uniform_marks_split);
	RUN(form_product_of_thread_values_is_nonlinear);
	RUN(form_equal_but_const_and_coefficients);
	RUN(call_kinds);
	RUN(vector_types);
	RUN(feature_names_and_aliases);
	RUN(host_blocking_calls);
	RUN(pointwise_and_streaming);
	RUN(not_pointwise);
	RUN(gemm_features);
	RUN(dot_product_is_a_k_loop_not_a_gemm);
	RUN(reuse_across_threads);
	RUN(stencil_and_convolution);
	RUN(shared_memory_tile);
	RUN(vector_access_alignment);
	RUN(bounds_check_and_tail);
	RUN(transcendentals);
	RUN(structure_reduction_and_irregular);
	RUN(serial_reductions);
	RUN(multiple_kernels_and_graphs);
	RUN(uncoalesced_accesses);
	RUN(loops_sync_fp64_divmod_branches);
	RUN(flat_quotient_lookups);
	RUN(canonical_index_and_retunable_geometry);
	RUN(details_json);
	RUN(kernel_key_hashes_every_input);
	RUN(clang_arch_mapping);
	RUN(cuda_arch_list_as_nvcc_defines_it);
	RUN(clang_args_from_the_build);
	RUN(leading_system_includes);
	RUN(libclang_search_order);
}
