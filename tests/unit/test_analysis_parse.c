/* Unit tests of the analysis that parse CUDA with libclang: the inventory
 * (kernels, parameters, extents, launch sites, template instances, launch
 * bounds), the static features of small kernels written for the tests
 * (tests/data/analysis), the closure and the kernel key. Without a
 * loadable libclang the tests are skipped with the reason; without a CUDA
 * toolkit they parse with ks's minimal prelude (and the tests that compare
 * the two are skipped). */
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/analysis/closure.h"
#include "../../src/analysis/inventory.h"
#include "../../src/analysis/libclang.h"
#include "../../src/core/buf.h"
#include "../../src/core/fs.h"
#include "../../src/core/strv.h"
#include "../../src/core/util.h"
#include "test.h"

void ks_suite_analysis_parse(void);

#define DATA "tests/data/analysis"

static int ready;		/* 0: not set up, 1: ready, -1: skip */
static char skip_why[512];	/* why, when ready is -1 */
static char state[256];		/* the KS_DIR of the parses */
static char *toolkit;		/* CUDA toolkit root, or NULL */
static struct ks_inventory features, launches;
static int have_features, have_launches;

static int
setup(void)
{
	struct ks_buf err = KS_BUF_INIT;
	static const char *const dirs[] = { "CUDA_HOME", "CUDA_PATH" };
	size_t i;

	if (ready)
		return ready > 0;
	ready = -1;
	if (ks_libclang_load(&err)) {
		snprintf(skip_why, sizeof(skip_why), "%s", err.buf);
		ks_buf_release(&err);
		return 0;
	}
	if (!ks_fs_exists(DATA "/features.cu")) {
		snprintf(skip_why, sizeof(skip_why),
			 "no %s (run from the repository root)", DATA);
		return 0;
	}
	snprintf(state, sizeof(state), "%s/ks-analysis-XXXXXX",
		 getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR")
						       : "/tmp");
	if (!mkdtemp(state)) {
		snprintf(skip_why, sizeof(skip_why), "cannot make %s", state);
		return 0;
	}
	for (i = 0; i <= KS_ARRAY_SIZE(dirs); i++) {
		const char *d = i < KS_ARRAY_SIZE(dirs) ? getenv(dirs[i])
							: "/usr/local/cuda";
		char *h;

		if (!d || !*d)
			continue;
		h = ks_xasprintf("%s/include/cuda_runtime.h", d);
		if (ks_fs_exists(h))
			toolkit = ks_xstrdup(d);
		free(h);
		if (toolkit)
			break;
	}
	if (!toolkit)
		fprintf(stderr, "note: analysis parse tests: no CUDA toolkit, "
				"parsing with the minimal prelude\n");
	ready = 1;
	return 1;
}

static int
parse(const char *path, const char *tk, int no_pch,
      const struct ks_strv *defines, struct ks_inventory *inv,
      struct ks_buf *err)
{
	struct ks_tu_opts o;

	memset(&o, 0, sizeof(o));
	o.source = path;
	o.toolkit = tk;
	o.state_dir = state;
	o.arch = "sm_90";
	o.defines = defines;
	o.no_pch = no_pch;
	return ks_inventory_build(&o, inv, err);
}

static const struct ks_inventory *
features_inv(void)
{
	struct ks_buf err = KS_BUF_INIT;

	if (!have_features) {
		if (parse(DATA "/features.cu", toolkit, 0, NULL, &features,
			  &err)) {
			fprintf(stderr, "features.cu: %s\n", err.buf);
			ks_buf_release(&err);
			return NULL;
		}
		have_features = 1;
	}
	return &features;
}

static const struct ks_inventory *
launch_inv(void)
{
	struct ks_buf err = KS_BUF_INIT;

	if (!have_launches) {
		if (parse(DATA "/launch.cu", toolkit, 0, NULL, &launches,
			  &err)) {
			fprintf(stderr, "launch.cu: %s\n", err.buf);
			ks_buf_release(&err);
			return NULL;
		}
		have_launches = 1;
	}
	return &launches;
}

#define SETUP()                                                             \
	do {                                                                \
		if (!setup())                                               \
			SKIP("%s", skip_why);                               \
	} while (0)

/* The source text of an extent. */
static char *
text_of(const struct ks_extent *e)
{
	struct ks_buf b = KS_BUF_INIT;
	char *s;

	if (ks_fs_read(e->file, &b, NULL) || e->end > b.len) {
		ks_buf_release(&b);
		return ks_xstrdup("");
	}
	s = ks_xstrndup(b.buf + e->begin, e->end - e->begin);
	ks_buf_release(&b);
	return s;
}

TEST(inventory_lists_kernels_and_params)
{
	const struct ks_inventory *inv;
	const struct ks_kernel *k;
	char *t;

	SETUP();
	inv = features_inv();
	CHECK(inv);
	CHECK_INT_EQ(25, inv->nkernels);
	CHECK_STR_EQ("saxpy", inv->kernels[0].name);
	CHECK_STR_EQ("via_helper", inv->kernels[20].name);
	k = ks_inventory_find(inv, "saxpy");
	CHECK(k);
	CHECK_STR_EQ("_Z5saxpyPfPKffi", k->mangled);
	CHECK(!k->is_template);
	CHECK(k->in_main_file);
	CHECK_INT_EQ(4, k->nparams);
	CHECK_STR_EQ("y", k->params[0].name);
	CHECK_STR_EQ("float *", k->params[0].type);
	CHECK_INT_EQ(8, k->params[0].size);
	CHECK(k->params[0].is_pointer && !k->params[0].pointee_const);
	CHECK(k->params[1].is_pointer && k->params[1].pointee_const);
	CHECK_STR_EQ("float", k->params[2].type);
	CHECK_INT_EQ(4, k->params[2].size);
	CHECK_INT_EQ(4, k->params[2].align);
	CHECK(!k->params[2].is_pointer);
	t = text_of(&k->extent);
	CHECK(ks_starts_with(t, "__global__ void saxpy(float *y"));
	CHECK(ks_ends_with(t, "y[i] = a * x[i] + y[i];\n}"));
	free(t);
	t = text_of(&k->body);
	CHECK(t[0] == '{' && ks_ends_with(t, "}"));
	free(t);
	t = text_of(&k->name_ext);
	CHECK_STR_EQ("saxpy", t);
	free(t);
	CHECK_INT_EQ(11, k->extent.line);
	CHECK_INT_EQ(16, k->extent.end_line);
	CHECK(ks_inventory_find(inv, "_Z5saxpyPfPKffi") == k);
	CHECK_NULL(ks_inventory_find(inv, "no_such_kernel"));
}

/* One expected feature value of one kernel of features.cu. */
static const struct {
	const char *kernel;
	int feature;
	int value;
} expect[] = {
	{ "saxpy", KS_F_IS_POINTWISE, 1 },
	{ "saxpy", KS_F_STREAMING_NO_REUSE, 1 },
	{ "saxpy", KS_F_HAS_BOUNDS_CHECK, 1 },
	{ "saxpy", KS_F_INDEX_1D, 1 },
	{ "saxpy", KS_F_GEOMETRY_RETUNABLE, 1 },
	{ "saxpy", KS_F_KERNEL_STRUCTURE, KS_S0_STREAMING },
	{ "saxpy", KS_F_USES_TRANSCENDENTALS, 0 },
	{ "saxpy", KS_F_HAS_REUSE, 0 },
	{ "saxpy", KS_F_UNCOALESCED_ACCESSES, 0 },
	{ "gelu_grid", KS_F_IS_POINTWISE, 1 },
	{ "gelu_grid", KS_F_USES_TRANSCENDENTALS, 1 },
	{ "gelu_grid", KS_F_HAS_BOUNDS_CHECK, 1 },
	{ "gelu_grid", KS_F_GEOMETRY_RETUNABLE, 1 },
	{ "gelu_grid", KS_F_CONST_TRIP_LOOPS, 0 },
	{ "add2d", KS_F_INDEX_2D, 1 },
	{ "add2d", KS_F_IS_POINTWISE, 1 },
	{ "transpose_naive", KS_F_UNCOALESCED_ACCESSES, 1 },
	{ "transpose_naive", KS_F_IS_POINTWISE, 0 },
	{ "transpose_naive", KS_F_STREAMING_NO_REUSE, 1 },
	{ "gemm_naive", KS_F_IS_NAIVE_GEMM, 1 },
	{ "gemm_naive", KS_F_IS_GEMM_KLOOP, 1 },
	{ "gemm_naive", KS_F_HAS_K_LOOP, 1 },
	{ "gemm_naive", KS_F_TC_ELIGIBLE, 1 },
	{ "gemm_naive", KS_F_HAS_REUSE, 1 },
	{ "gemm_naive", KS_F_HAS_SHARED_MEMORY_TILE, 0 },
	{ "gemm_naive", KS_F_KERNEL_STRUCTURE, KS_S1_REUSE },
	{ "gemm_tiled", KS_F_HAS_SHARED_MEMORY_TILE, 1 },
	{ "gemm_tiled", KS_F_IS_GEMM_KLOOP, 1 },
	{ "gemm_tiled", KS_F_IS_NAIVE_GEMM, 0 },
	{ "gemm_tiled", KS_F_SYNCTHREADS, 2 },
	{ "gemm_tiled", KS_F_CONST_TRIP_LOOPS, 1 },
	{ "gemm_tiled", KS_F_GEOMETRY_RETUNABLE, 0 },
	{ "gemv", KS_F_HAS_K_LOOP, 1 },
	{ "gemv", KS_F_IS_GEMM_KLOOP, 0 },
	{ "gemv", KS_F_HAS_REUSE, 1 },
	{ "gemv", KS_F_UNCOALESCED_ACCESSES, 1 },
	{ "stencil3", KS_F_IS_STENCIL_CONV, 1 },
	{ "stencil3", KS_F_IS_POINTWISE, 0 },
	{ "conv1d", KS_F_IS_STENCIL_CONV, 1 },
	{ "conv1d", KS_F_CONST_TRIP_LOOPS, 1 },
	{ "reduce_sum", KS_F_KERNEL_STRUCTURE, KS_S3_REDUCTION },
	{ "reduce_sum", KS_F_ATOMICS, 1 },
	{ "reduce_sum", KS_F_ATOMICS_UNIFORM_ADDRESS, 1 },
	{ "reduce_sum", KS_F_HAS_SHARED_MEMORY_TILE, 0 },
	{ "reduce_sum", KS_F_THREAD_DEPENDENT_BRANCHES, 2 },
	{ "warp_sum", KS_F_WARP_INTRINSICS, 1 },
	{ "warp_sum", KS_F_CONST_TRIP_LOOPS, 1 },
	{ "warp_sum", KS_F_KERNEL_STRUCTURE, KS_S3_REDUCTION },
	{ "histogram", KS_F_KERNEL_STRUCTURE, KS_S2_IRREGULAR },
	{ "histogram", KS_F_ATOMICS_UNIFORM_ADDRESS, 0 },
	{ "gather", KS_F_INDIRECT_ACCESSES, 1 },
	{ "gather", KS_F_KERNEL_STRUCTURE, KS_S2_IRREGULAR },
	{ "gather", KS_F_STREAMING_NO_REUSE, 0 },
	{ "copy4", KS_F_HAS_VECTOR_LOAD_STORE, 1 },
	{ "copy4", KS_F_IS_ALIGNED_VECTOR_ACCESS, 1 },
	{ "copy4", KS_F_USES_VECTOR_TYPES, 1 },
	{ "copy4_offset", KS_F_HAS_VECTOR_LOAD_STORE, 1 },
	{ "copy4_offset", KS_F_IS_ALIGNED_VECTOR_ACCESS, 0 },
	{ "saxpy", KS_F_HAS_VECTOR_LOAD_STORE, 0 },
	{ "saxpy", KS_F_USES_VECTOR_TYPES, 0 },
	{ "scale_vec_tail", KS_F_HAS_TAIL_HANDLING_OVERHEAD, 1 },
	{ "scale_vec_tail", KS_F_IS_ALIGNED_VECTOR_ACCESS, 1 },
	{ "saxpy", KS_F_HAS_TAIL_HANDLING_OVERHEAD, 0 },
	{ "fp64_leak", KS_F_FP64_IN_FLOAT_CODE, 3 },
	{ "fp32_clean", KS_F_FP64_IN_FLOAT_CODE, 0 },
	{ "fp32_clean", KS_F_USES_TRANSCENDENTALS, 1 },
	{ "divmod_loop", KS_F_RUNTIME_DIVMOD_IN_LOOPS, 2 },
	{ "divmod_loop", KS_F_CONST_TRIP_LOOPS, 1 },
	{ "saxpy", KS_F_RUNTIME_DIVMOD_IN_LOOPS, 0 },
	{ "divergent", KS_F_THREAD_DEPENDENT_BRANCHES, 1 },
	{ "saxpy", KS_F_THREAD_DEPENDENT_BRANCHES, 0 },
	{ "via_helper", KS_F_IS_POINTWISE, 1 },
	{ "via_helper", KS_F_STREAMING_NO_REUSE, 1 },
	{ "saxpy", KS_F_HAS_MULTIPLE_KERNELS, 0 },
	{ "row_sum", KS_F_KERNEL_STRUCTURE, KS_S3_REDUCTION },
	{ "row_sum", KS_F_IS_POINTWISE, 0 },
	{ "row_sum", KS_F_HAS_K_LOOP, 0 },
	{ "row_max", KS_F_KERNEL_STRUCTURE, KS_S3_REDUCTION },
	{ "sum_squares", KS_F_HAS_K_LOOP, 0 },
	{ "sum_squares", KS_F_KERNEL_STRUCTURE, KS_S3_REDUCTION },
	{ "gemv", KS_F_KERNEL_STRUCTURE, KS_S1_REUSE },
	{ "stream_hint", KS_F_IS_POINTWISE, 1 },
	{ "stream_hint", KS_F_HAS_VECTOR_LOAD_STORE, 1 },
	{ "stream_hint", KS_F_IS_ALIGNED_VECTOR_ACCESS, 1 },
	{ "saxpy", KS_F_CUDAGRAPH_ELIGIBLE, 0 },
};

static int
check_features(const struct ks_inventory *inv, const char *what)
{
	size_t i;
	int bad = 0;

	for (i = 0; i < KS_ARRAY_SIZE(expect); i++) {
		const struct ks_kernel *k =
			ks_inventory_find(inv, expect[i].kernel);

		if (!k) {
			TEST_FAIL_("%s: no kernel %s", what, expect[i].kernel);
			return 0;
		}
		if (k->features.v[expect[i].feature] != expect[i].value) {
			TEST_FAIL_("%s: %s %s: want %d, got %d (%s)", what,
				   expect[i].kernel,
				   ks_feature_name(expect[i].feature),
				   expect[i].value,
				   k->features.v[expect[i].feature],
				   k->features.why[expect[i].feature]
					   ? k->features.why[expect[i].feature]
					   : "-");
			bad = 1;
		}
	}
	return !bad;
}

TEST(features_of_small_kernels)
{
	const struct ks_inventory *inv;

	SETUP();
	inv = features_inv();
	CHECK(inv);
	CHECK(check_features(inv, toolkit ? "toolkit" : "prelude"));
}

TEST(prelude_parse_agrees_with_toolkit)
{
	struct ks_inventory pre;
	struct ks_buf err = KS_BUF_INIT;
	const struct ks_inventory *inv;
	size_t i;
	int f;

	SETUP();
	if (!toolkit)
		SKIP("no CUDA toolkit to compare with");
	inv = features_inv();
	CHECK(inv);
	if (parse(DATA "/features.cu", NULL, 0, NULL, &pre, &err)) {
		TEST_FAIL_("prelude parse: %s", err.buf);
		ks_buf_release(&err);
		return;
	}
	CHECK(pre.prelude);
	CHECK_INT_EQ(inv->nkernels, pre.nkernels);
	for (i = 0; i < pre.nkernels; i++) {
		CHECK_STR_EQ(inv->kernels[i].mangled, pre.kernels[i].mangled);
		for (f = 0; f < KS_F_COUNT; f++) {
			if (inv->kernels[i].features.v[f] !=
			    pre.kernels[i].features.v[f]) {
				TEST_FAIL_("%s %s: toolkit %d, prelude %d",
					   pre.kernels[i].name,
					   ks_feature_name(f),
					   inv->kernels[i].features.v[f],
					   pre.kernels[i].features.v[f]);
				ks_inventory_release(&pre);
				return;
			}
		}
	}
	ks_inventory_release(&pre);
}

TEST(operators_from_tokens_agree)
{
	struct ks_inventory tok;
	struct ks_buf err = KS_BUF_INIT;
	const struct ks_inventory *inv;
	size_t i;
	int f, rc;

	SETUP();
	inv = features_inv();
	CHECK(inv);
	/* libclang 16 has no operator-kind query: the tokens must do */
	ks_libclang_emulate_16(1);
	rc = parse(DATA "/features.cu", toolkit, 0, NULL, &tok, &err);
	ks_libclang_emulate_16(0);
	if (rc) {
		TEST_FAIL_("token parse: %s", err.buf);
		ks_buf_release(&err);
		return;
	}
	CHECK_INT_EQ(inv->nkernels, tok.nkernels);
	for (i = 0; i < tok.nkernels; i++) {
		for (f = 0; f < KS_F_COUNT; f++) {
			if (inv->kernels[i].features.v[f] !=
			    tok.kernels[i].features.v[f]) {
				TEST_FAIL_("%s %s: api %d, tokens %d",
					   tok.kernels[i].name,
					   ks_feature_name(f),
					   inv->kernels[i].features.v[f],
					   tok.kernels[i].features.v[f]);
				ks_inventory_release(&tok);
				return;
			}
		}
	}
	ks_inventory_release(&tok);
}

static const struct ks_launch *
launch_at(const struct ks_inventory *inv, unsigned line)
{
	size_t i;

	for (i = 0; i < inv->nlaunches; i++)
		if (inv->launches[i].extent.line == line)
			return &inv->launches[i];
	return NULL;
}

TEST(launch_sites)
{
	const struct ks_inventory *inv;
	const struct ks_launch *l;
	char *t;

	SETUP();
	inv = launch_inv();
	CHECK(inv);
	CHECK_INT_EQ(5, inv->nkernels);
	CHECK_INT_EQ(6, inv->nlaunches);
	l = launch_at(inv, 46);
	CHECK(l);
	CHECK_STR_EQ("step_a", l->callee);
	CHECK_STR_EQ("step_a", inv->kernels[l->kernel].name);
	CHECK_STR_EQ("grid", l->grid);
	CHECK_STR_EQ("BLOCK", l->block);
	CHECK_STR_EQ("0", l->shmem);
	CHECK_STR_EQ("s", l->stream);
	CHECK_STR_EQ("pipeline", l->caller);
	CHECK(!l->in_loop && !l->device_side);
	CHECK_INT_EQ(2, l->nargs);
	CHECK_STR_EQ("x", l->argtext[0]);
	CHECK_STR_EQ("n", l->argtext[1]);
	t = text_of(&l->extent);
	CHECK_STR_EQ("step_a<<<grid, BLOCK, 0, s>>>(x, n)", t);
	free(t);
	t = text_of(&l->config);
	CHECK_STR_EQ("<<<grid, BLOCK, 0, s>>>", t);
	free(t);
	t = text_of(&l->args);
	CHECK_STR_EQ("(x, n)", t);
	free(t);
	t = text_of(&l->callee_ext);
	CHECK_STR_EQ("step_a", t);
	free(t);
	/* declared before, defined after the launch */
	l = launch_at(inv, 47);
	CHECK(l && l->kernel >= 0);
	CHECK_STR_EQ("late", inv->kernels[l->kernel].name);
	/* omitted shared memory and stream */
	l = launch_at(inv, 55);
	CHECK(l);
	CHECK_STR_EQ("(n + 255) / 256", l->grid);
	CHECK_STR_EQ("256", l->block);
	CHECK_NULL(l->shmem);
	CHECK_NULL(l->stream);
	CHECK(l->in_loop);
	l = launch_at(inv, 62);
	CHECK(l);
	CHECK_STR_EQ("64 * sizeof(float)", l->shmem);
	/* template instance launched with explicit arguments */
	l = launch_at(inv, 48);
	CHECK(l);
	CHECK_STR_EQ("fill<float, 3>", l->callee);
	CHECK_STR_EQ("_Z4fillIfLi3EEvPT_S0_i", l->mangled);
	CHECK_STR_EQ("dim3(BLOCK)", l->block);
	t = text_of(&l->callee_ext);
	CHECK_STR_EQ("fill<float, 3>", t);
	free(t);
}

TEST(template_kernels_and_launch_bounds)
{
	const struct ks_inventory *inv;
	const struct ks_kernel *k;
	char *t;

	SETUP();
	inv = launch_inv();
	CHECK(inv);
	k = ks_inventory_find(inv, "fill");
	CHECK(k);
	CHECK(k->is_template);
	CHECK_NULL(k->mangled);
	CHECK_INT_EQ(2, k->ninst);
	CHECK_STR_EQ("_Z4fillIfLi3EEvPT_S0_i", k->inst[0].mangled);
	CHECK_STR_EQ("fill<float, 3>", k->inst[0].display);
	CHECK_STR_EQ("_Z4fillIiLi1EEvPT_S0_i", k->inst[1].mangled);
	CHECK_STR_EQ("fill<int, 1>", k->inst[1].display);
	CHECK(ks_inventory_find(inv, "_Z4fillIiLi1EEvPT_S0_i") == k);
	CHECK_INT_EQ(-1, k->params[0].size);	/* T *: dependent */
	CHECK(k->params[0].is_restrict);
	CHECK_STR_EQ("BLOCK, MIN_BLOCKS", k->launch_bounds);
	CHECK_INT_EQ(2, k->nlb);
	CHECK_INT_EQ(128, k->lb[0]);
	CHECK_INT_EQ(4, k->lb[1]);
	t = text_of(&k->extent);
	CHECK(ks_starts_with(t, "template <typename T, int N>\n__global__ void "
				"__launch_bounds__(BLOCK, MIN_BLOCKS) fill("));
	free(t);
	k = ks_inventory_find(inv, "lonely");
	CHECK(k && !k->launch_bounds && k->params[0].is_restrict);
}

TEST(launch_sequence_features)
{
	const struct ks_inventory *inv;
	const struct ks_kernel *k;

	SETUP();
	inv = launch_inv();
	CHECK(inv);
	k = ks_inventory_find(inv, "step_a");	/* a capturable pipeline */
	CHECK(k->features.v[KS_F_HAS_MULTIPLE_KERNELS]);
	CHECK(k->features.v[KS_F_CUDAGRAPH_ELIGIBLE]);
	CHECK_INT_EQ(KS_S4_MULTI_KERNEL, k->features.v[KS_F_KERNEL_STRUCTURE]);
	k = ks_inventory_find(inv, "step_b");	/* a loop with a sync */
	CHECK(k->features.v[KS_F_HAS_MULTIPLE_KERNELS]);
	CHECK(!k->features.v[KS_F_CUDAGRAPH_ELIGIBLE]);
	CHECK(strstr(k->features.why[KS_F_CUDAGRAPH_ELIGIBLE],
		     "cudaDeviceSynchronize"));
	k = ks_inventory_find(inv, "lonely");
	CHECK(!k->features.v[KS_F_HAS_MULTIPLE_KERNELS]);
	CHECK(!k->features.v[KS_F_CUDAGRAPH_ELIGIBLE]);
	CHECK_INT_EQ(KS_S0_STREAMING, k->features.v[KS_F_KERNEL_STRUCTURE]);
}

TEST(unparsable_tu_gives_no_inventory)
{
	struct ks_inventory inv;
	struct ks_buf err = KS_BUF_INIT;

	SETUP();
	CHECK_INT_EQ(-1, parse(DATA "/bad.cu", toolkit, 0, NULL, &inv, &err));
	CHECK(strstr(err.buf, "bad.cu:6:"));
	CHECK(strstr(err.buf, "undeclared_thing"));
	CHECK(strstr(err.buf, "does not parse"));
	CHECK_INT_EQ(0, inv.nkernels);
	ks_inventory_release(&inv);
	ks_buf_reset(&err);
	CHECK_INT_EQ(-1, parse(DATA "/no-such-file.cu", toolkit, 0, NULL, &inv,
			       &err));
	CHECK(strstr(err.buf, "no-such-file.cu"));
	ks_inventory_release(&inv);
	ks_buf_release(&err);
}

/* ---- closure and key ----------------------------------------------------- */

static const char *key_src;

static char *
read_key_cu(void)
{
	struct ks_buf b = KS_BUF_INIT;

	if (ks_fs_read(DATA "/key.cu", &b, NULL))
		return NULL;
	return ks_buf_detach(&b, NULL);
}

/* Replace the first `from` by `to` in key.cu, parse the copy, return the
 * key of `kernel` for sm_90 (static storage), or NULL. */
static const char *
key_after(const char *from, const char *to, const char *kernel,
	  const char *devflag)
{
	static char key[33];
	struct ks_buf text = KS_BUF_INIT, err = KS_BUF_INIT;
	struct ks_strv archs = KS_STRV_INIT, flags = KS_STRV_INIT;
	struct ks_inventory inv;
	const struct ks_kernel *k;
	char *src = read_key_cu(), *at;
	const char *path, *res = NULL;

	if (!src)
		return NULL;
	at = from ? strstr(src, from) : NULL;
	if (from && !at) {
		fprintf(stderr, "key.cu has no '%s'\n", from);
		free(src);
		return NULL;
	}
	if (at) {
		ks_buf_add(&text, src, (size_t)(at - src));
		ks_buf_adds(&text, to);
		ks_buf_adds(&text, at + strlen(from));
	} else {
		ks_buf_adds(&text, src);
	}
	path = test_write(test_tmpdir(), "key.cu", text.buf);
	ks_strv_push(&archs, "sm_90");
	ks_strv_push(&flags, "-O=3");
	if (devflag)
		ks_strv_push(&flags, devflag);
	if (parse(path, toolkit, 0, NULL, &inv, &err) == 0) {
		ks_inventory_set_keys(&inv, &archs, &flags, "13.0.88");
		k = ks_inventory_find(&inv, kernel);
		if (k && k->nkeys == 1) {
			memcpy(key, k->keys[0].key, 33);
			res = key;
		}
	} else {
		fprintf(stderr, "key.cu: %s\n", err.buf);
	}
	ks_inventory_release(&inv);
	ks_strv_release(&archs);
	ks_strv_release(&flags);
	ks_buf_release(&text);
	ks_buf_release(&err);
	free(src);
	return res;
}

/*
 * 1 with key_src set; 0 when the parses cannot run here (the caller
 * skips); -1 when they can but the baseline key cannot be computed (the
 * caller fails: a key test must never pass because keys are broken).
 */
static int
key_setup(void)
{
	static char base[33];

	if (!setup())
		return 0;
	if (!key_src) {
		const char *k = key_after(NULL, NULL, "target", NULL);

		if (!k)
			return -1;
		memcpy(base, k, 33);
		key_src = base;
	}
	return 1;
}

#define KEY_SETUP()                                                         \
	do {                                                                \
		int r_ = key_setup();                                       \
		if (r_ == 0)                                                \
			SKIP("%s", skip_why);                               \
		if (r_ < 0) {                                               \
			TEST_FAIL_("the baseline key of %s/key.cu cannot "  \
				   "be computed", DATA);                    \
			return;                                             \
		}                                                           \
	} while (0)

#define KEY_SAME(from, to)                                                  \
	do {                                                                \
		const char *k_ = key_after(from, to, "target", NULL);       \
		CHECK(k_);                                                  \
		CHECK_STR_EQ(key_src, k_);                                  \
	} while (0)

#define KEY_DIFFERS(from, to, flag)                                         \
	do {                                                                \
		const char *k_ = key_after(from, to, "target", flag);       \
		CHECK(k_);                                                  \
		CHECK(strcmp(key_src, k_) != 0);                            \
	} while (0)

TEST(closure_holds_what_the_kernel_reaches)
{
	struct ks_inventory inv;
	struct ks_buf err = KS_BUF_INIT;
	const struct ks_kernel *k;

	SETUP();
	CHECK_INT_EQ(0, parse(DATA "/key.cu", toolkit, 0, NULL, &inv, &err));
	k = ks_inventory_find(&inv, "target");
	CHECK(k && k->closure);
	CHECK(ks_starts_with(k->closure, "ks-closure 1\n== function target("));
	CHECK(strstr(k->closure, "== function combine(pair)") ||
	      strstr(k->closure, "== function combine(struct pair)"));
	CHECK(strstr(k->closure, "== struct pair\nstruct pair {"));
	CHECK(strstr(k->closure,
		     "== variable bias\n__constant__ float bias[4]"));
	CHECK(strstr(k->closure,
		     "== macro TWICE\n#define TWICE(x) ((x) * SCALE)"));
	CHECK(strstr(k->closure, "== macro SCALE\n#define SCALE 2.0f"));
	CHECK(strstr(k->closure, "== system threadIdx"));
	CHECK(!strstr(k->closure, "other"));
	CHECK(!strstr(k->closure, "void host("));
	CHECK(!strstr(k->closure, "a comment outside"));
	ks_inventory_release(&inv);
	ks_buf_release(&err);
}

TEST(key_ignores_what_the_kernel_does_not_reach)
{
	KEY_SETUP();
	KEY_SAME("void host(float *out, const struct pair *in, int n)\n{\n",
		 "void host(float *out, const struct pair *in, int "
		 "n)\n{\n\tint unused = 1;\n");
	KEY_SAME("/* a comment outside every closure */",
		 "/* another comment */");
	KEY_SAME("out[i] = 0.0f;", "out[i] = 1.0f;");	/* the other kernel */
	KEY_SAME("#define SCALE 2.0f\n",
		 "#define SCALE 2.0f\n#define UNUSED 3\n");
}

TEST(key_follows_what_the_kernel_reaches)
{
	KEY_SETUP();
	KEY_DIFFERS("return TWICE(p.a) + p.b", "return TWICE(p.a) - p.b", NULL);
	KEY_DIFFERS("#define SCALE 2.0f", "#define SCALE 3.0f", NULL);
	KEY_DIFFERS("__constant__ float bias[4];",
		    "__constant__ float bias[8];", NULL);
	KEY_DIFFERS("\tfloat b;\n", "\tfloat b;\n\tint pad;\n", NULL);
	KEY_DIFFERS("out[i] = combine(in[i]);",
		    "out[i] = combine(in[i]) + 1.0f;", NULL);
	KEY_DIFFERS(NULL, NULL, "-use_fast_math");
}

TEST(key_is_the_same_with_or_without_the_pch)
{
	struct ks_inventory a, b;
	struct ks_buf err = KS_BUF_INIT;
	struct ks_strv archs = KS_STRV_INIT;
	size_t i;

	SETUP();
	if (!toolkit)
		SKIP("no CUDA toolkit to compare with");
	ks_strv_push(&archs, "sm_90");
	CHECK_INT_EQ(0, parse(DATA "/key.cu", toolkit, 0, NULL, &a, &err));
	CHECK_INT_EQ(0, parse(DATA "/key.cu", toolkit, 1, NULL, &b, &err));
	ks_inventory_set_keys(&a, &archs, NULL, "13.0.88");
	ks_inventory_set_keys(&b, &archs, NULL, "13.0.88");
	CHECK_INT_EQ(a.nkernels, b.nkernels);
	for (i = 0; i < a.nkernels; i++)
		CHECK_STR_EQ(a.kernels[i].keys[0].key,
			     b.kernels[i].keys[0].key);
	ks_inventory_release(&a);
	ks_inventory_release(&b);
	ks_strv_release(&archs);
	ks_buf_release(&err);
}

TEST(defines_reach_the_parse)
{
	struct ks_inventory inv;
	struct ks_buf err = KS_BUF_INIT;
	struct ks_strv defs = KS_STRV_INIT;
	const char *path;

	SETUP();
	path = test_write(
		test_tmpdir(), "def.cu",
		"#ifndef WIDTH\n#error WIDTH must be defined\n#endif\n"
		"__global__ void k(float *x) { x[threadIdx.x] = WIDTH; }\n");
	CHECK_INT_EQ(-1, parse(path, toolkit, 0, NULL, &inv, &err));
	CHECK(strstr(err.buf, "WIDTH must be defined"));
	ks_inventory_release(&inv);
	ks_strv_push(&defs, "-DWIDTH=4");
	ks_buf_reset(&err);
	CHECK_INT_EQ(0, parse(path, toolkit, 0, &defs, &inv, &err));
	CHECK_INT_EQ(1, inv.nkernels);
	ks_inventory_release(&inv);
	ks_strv_release(&defs);
	ks_buf_release(&err);
}

TEST(kernels_in_user_headers)
{
	struct ks_inventory inv;
	struct ks_buf err = KS_BUF_INIT;
	const struct ks_kernel *k;
	const char *dir, *path;
	char *t;

	SETUP();
	dir = test_tmpdir();
	test_write(dir, "kern.cuh",
		   "__global__ void from_header(float *x, int n)\n{\n"
		   "\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
		   "\tif (i < n)\n\t\tx[i] = 0.0f;\n}\n");
	path = test_write(
		dir, "main.cu",
		"#include \"kern.cuh\"\n"
		"void go(float *x, int n) { from_header<<<1, 32>>>(x, n); }\n");
	CHECK_INT_EQ(0, parse(path, toolkit, 0, NULL, &inv, &err));
	k = ks_inventory_find(&inv, "from_header");
	CHECK(k);
	CHECK(!k->in_main_file);
	CHECK(ks_ends_with(k->extent.file, "/kern.cuh"));
	CHECK_INT_EQ(1, k->extent.line);
	t = text_of(&k->extent);
	CHECK(ks_starts_with(t, "__global__ void from_header("));
	free(t);
	CHECK(k->features.v[KS_F_IS_POINTWISE]); /* the body was walked */
	CHECK_INT_EQ(1, inv.nlaunches);
	CHECK_INT_EQ(0, inv.launches[0].kernel);
	CHECK(ks_strv_find(&inv.files, k->extent.file) >= 0);
	ks_inventory_release(&inv);
	ks_buf_release(&err);
}

TEST(prefix_pch_is_built_and_reused)
{
	struct ks_inventory a, b, c;
	struct ks_buf err = KS_BUF_INIT;
	struct ks_strv archs = KS_STRV_INIT;
	const char *path;
	char *pchdir;
	glob_t g;
	int found = 0;

	SETUP();
	if (!toolkit)
		SKIP("no CUDA toolkit to compare with");
	path = test_write(test_tmpdir(), "pre.cu",
			  "// leading system includes go into a PCH\n"
			  "#include <cstdio>\n#include <cuda_fp16.h>\n"
			  "__global__ void h(__half *x) { x[threadIdx.x] = "
			  "__float2half(1.0f); }\n");
	CHECK_INT_EQ(0, parse(path, toolkit, 0, NULL, &a, &err));
	CHECK_INT_EQ(0, parse(path, toolkit, 0, NULL, &b, &err));
	CHECK_INT_EQ(0, parse(path, toolkit, 1, NULL, &c, &err));
	pchdir = ks_xasprintf("%s/clang/*/prefix-*.pch", state);
	if (glob(pchdir, 0, NULL, &g) == 0) {
		found = (int)g.gl_pathc;
		globfree(&g);
	}
	free(pchdir);
	CHECK(found >= 1);
	ks_strv_push(&archs, "sm_90");
	ks_inventory_set_keys(&a, &archs, NULL, "13.0.88");
	ks_inventory_set_keys(&b, &archs, NULL, "13.0.88");
	ks_inventory_set_keys(&c, &archs, NULL, "13.0.88");
	CHECK_INT_EQ(1, a.nkernels);
	CHECK_STR_EQ(a.kernels[0].keys[0].key, b.kernels[0].keys[0].key);
	CHECK_STR_EQ(a.kernels[0].keys[0].key, c.kernels[0].keys[0].key);
	CHECK_STR_EQ("_Z1hP6__half", a.kernels[0].mangled);
	ks_inventory_release(&a);
	ks_inventory_release(&b);
	ks_inventory_release(&c);
	ks_strv_release(&archs);
	ks_buf_release(&err);
}

/* ---- builtin indices from macros ----------------------------------------- */

static const struct ks_kernel *
kernel_named(const struct ks_inventory *inv, const char *name)
{
	size_t i;

	for (i = 0; i < inv->nkernels; i++)
		if (!strcmp(inv->kernels[i].name, name))
			return &inv->kernels[i];
	return NULL;
}

/* scale * (src0 [+ coef * sym * src1]): an offset form built by hand. */
static void
form_of(struct ks_form *out, long long scale, enum ks_src s0, unsigned sym,
	int s1)
{
	struct ks_form a, b;

	ks_form_src(out, s0);
	if (s1 >= 0) {
		ks_form_src(&a, (enum ks_src)s1);
		ks_form_sym(&b, sym);
		ks_form_mul(&a, &a, &b);
		ks_form_add(out, out, &a);
	}
	ks_form_scale(out, out, scale);
}

/*
 * A macro whose expansion reads threadIdx, blockIdx, blockDim or gridDim
 * once made the walk take the read for a memory access and never finish
 * (libclang sizing its pseudo-object type). Each kernel's analysis must
 * finish (the alarm kills the runner otherwise) and read the index where
 * the macro spells it: nested macros, a continuation line, a macro inside
 * an index expression.
 */
TEST(builtin_indices_from_macros)
{
	struct ks_inventory inv;
	struct ks_buf err = KS_BUF_INIT;
	const struct ks_kernel *k;
	const char *path;
	struct ks_form want, one;
	size_t n;

	SETUP();
	path = test_write(
		test_tmpdir(), "macro.cu",
		"#define TID threadIdx.x\n"
		"#define BIDY blockIdx.y\n"
		"#define BDIMZ blockDim.z\n"
		"#define GDIMX gridDim.x\n"
		"#define TX threadIdx.x\n"
		"#define BX blockIdx.x\n"
		"#define DX blockDim.x\n"
		"#define GID (BX * DX + TX)\n"
		"#define ROW (blockIdx.y * blockDim.y + threadIdx.y)\n"
		"#define TIDZ threadIdx \\\n  . z\n"
		"#define AT(v) v.x\n"
		"__global__ void k_tid(char *out) { *out = TID; out[TID] = 1; }\n"
		"__global__ void k_bid(float *o) { o[BIDY] = 1; }\n"
		"__global__ void k_bdim(float *o) { o[BDIMZ] = 1; }\n"
		"__global__ void k_gdim(int *o) { o[GDIMX] = 1; }\n"
		"__global__ void k_nested(float *o, const float *a)\n"
		"{ o[GID] = a[GID]; }\n"
		"__global__ void k_index(float *o, int n)\n"
		"{ o[ROW * n + threadIdx.x] = 0; }\n"
		"__global__ void k_cont(short *o) { o[TIDZ] = 0; }\n"
		"__global__ void k_arg(float *o) { o[AT(threadIdx)] = 0; }\n");
	alarm(60);
	CHECK_INT_EQ(0, parse(path, toolkit, 0, NULL, &inv, &err));
	alarm(0);
	CHECK_INT_EQ(8, inv.nkernels);

	/* only the stores: no builtin is walked as memory */
	CHECK((k = kernel_named(&inv, "k_tid")));
	CHECK_INT_EQ(2, k->facts.nacc);
	ks_form_src(&want, KS_SRC_TID_X);
	CHECK(ks_form_equal(&want, &k->facts.acc[1].offset));
	CHECK((k = kernel_named(&inv, "k_bid")));
	CHECK_INT_EQ(1, k->facts.nacc);
	form_of(&want, 4, KS_SRC_BID_Y, 0, -1);
	CHECK(ks_form_equal(&want, &k->facts.acc[0].offset));
	CHECK((k = kernel_named(&inv, "k_bdim")));
	CHECK_INT_EQ(1, k->facts.nacc);
	ks_form_sym(&want, KS_SYM_BDIM_Z);
	ks_form_scale(&want, &want, 4);
	CHECK(ks_form_equal(&want, &k->facts.acc[0].offset));
	CHECK((k = kernel_named(&inv, "k_gdim")));
	CHECK_INT_EQ(1, k->facts.nacc);
	ks_form_sym(&want, KS_SYM_GDIM_X);
	ks_form_scale(&want, &want, 4);
	CHECK(ks_form_equal(&want, &k->facts.acc[0].offset));

	/* the global index, through two levels of macros, load and store */
	CHECK((k = kernel_named(&inv, "k_nested")));
	CHECK_INT_EQ(2, k->facts.nacc);
	form_of(&want, 4, KS_SRC_TID_X, KS_SYM_BDIM_X, KS_SRC_BID_X);
	CHECK(ks_form_equal(&want, &k->facts.acc[0].offset));
	CHECK(ks_form_equal(&want, &k->facts.acc[1].offset));
	CHECK(ks_form_global_index_only(&k->facts.acc[0].offset));

	/* a macro inside an index expression: row * n + threadIdx.x */
	CHECK((k = kernel_named(&inv, "k_index")));
	CHECK_INT_EQ(1, k->facts.nacc);
	for (n = 0; n < k->facts.nsyms && strcmp(k->facts.syms[n], "n"); n++)
		;
	CHECK(n < k->facts.nsyms);
	form_of(&want, 1, KS_SRC_TID_Y, KS_SYM_BDIM_Y, KS_SRC_BID_Y);
	ks_form_sym(&one, KS_SYM_USER + (unsigned)n);
	ks_form_mul(&want, &want, &one);
	ks_form_src(&one, KS_SRC_TID_X);
	ks_form_add(&want, &want, &one);
	ks_form_scale(&want, &want, 4);
	CHECK(ks_form_equal(&want, &k->facts.acc[0].offset));

	CHECK((k = kernel_named(&inv, "k_cont")));
	CHECK_INT_EQ(1, k->facts.nacc);
	form_of(&want, 2, KS_SRC_TID_Z, 0, -1);
	CHECK(ks_form_equal(&want, &k->facts.acc[0].offset));

	/* a builtin passed to a macro: its field is not read, so the
	 * offset is unknown (data), never a load of the builtin */
	CHECK((k = kernel_named(&inv, "k_arg")));
	CHECK_INT_EQ(1, k->facts.nacc);
	ks_form_src(&one, KS_SRC_TID_X);
	CHECK(!ks_form_equal(&one, &k->facts.acc[0].offset));
	CHECK(k->facts.acc[0].offset.data);
	/* the whole threadIdx in a macro's argument: every dimension read */
	CHECK_INT_EQ((long)(KS_COORD_BIT(KS_COORD_TID, 0) | KS_COORD_BIT(KS_COORD_TID, 1) |
			    KS_COORD_BIT(KS_COORD_TID, 2)), (long)k->facts.coords);

	/* the coordinates each kernel reads, and only those */
	CHECK((k = kernel_named(&inv, "k_tid")));
	CHECK_INT_EQ((long)KS_COORD_BIT(KS_COORD_TID, 0), (long)k->facts.coords);
	CHECK((k = kernel_named(&inv, "k_bid")));
	CHECK_INT_EQ((long)KS_COORD_BIT(KS_COORD_BID, 1), (long)k->facts.coords);
	CHECK(k->facts.coords & KS_COORD_Y_MASK);
	CHECK((k = kernel_named(&inv, "k_bdim")));
	CHECK_INT_EQ((long)KS_COORD_BIT(KS_COORD_BDIM, 2), (long)k->facts.coords);
	CHECK((k = kernel_named(&inv, "k_gdim")));
	CHECK_INT_EQ((long)KS_COORD_BIT(KS_COORD_GDIM, 0), (long)k->facts.coords);
	CHECK((k = kernel_named(&inv, "k_nested")));
	CHECK_INT_EQ((long)(KS_COORD_BIT(KS_COORD_TID, 0) | KS_COORD_BIT(KS_COORD_BID, 0) |
			    KS_COORD_BIT(KS_COORD_BDIM, 0)), (long)k->facts.coords);
	CHECK(!(k->facts.coords & KS_COORD_Y_MASK));
	CHECK((k = kernel_named(&inv, "k_index")));
	CHECK_INT_EQ((long)(KS_COORD_BIT(KS_COORD_TID, 0) | KS_COORD_BIT(KS_COORD_TID, 1) |
			    KS_COORD_BIT(KS_COORD_BID, 1) | KS_COORD_BIT(KS_COORD_BDIM, 1)),
		     (long)k->facts.coords);
	ks_inventory_release(&inv);
	ks_buf_release(&err);
}

/* Past its bound on work the walk stops, and the TU gets the reason and
 * no inventory (a partial one could be wrong); under it, the same TU is
 * analyzed. */
TEST(walk_stops_past_its_bound)
{
	struct ks_inventory inv;
	struct ks_buf err = KS_BUF_INIT;
	struct ks_tu_opts o;
	const char *path;

	SETUP();
	path = test_write(
		test_tmpdir(), "long.cu",
		"__global__ void k(float *o, const float *a, int n)\n"
		"{\n"
		"  for (int i = 0; i < n; i++)\n"
		"    for (int j = 0; j < n; j++)\n"
		"      o[i * n + j] = a[j * n + i] * 2.0f + a[i] - a[j];\n"
		"}\n");
	memset(&o, 0, sizeof(o));
	o.source = path;
	o.toolkit = toolkit;
	o.state_dir = state;
	o.arch = "sm_90";
	o.max_steps = 10;
	CHECK_INT_EQ(-1, ks_inventory_build(&o, &inv, &err));
	CHECK(strstr(err.buf, "long.cu: analysis stopped after 10 steps"));
	CHECK_INT_EQ(0, inv.nkernels);
	CHECK_INT_EQ(0, inv.nlaunches);
	ks_inventory_release(&inv);
	ks_buf_reset(&err);
	o.max_steps = 0;
	CHECK_INT_EQ(0, ks_inventory_build(&o, &inv, &err));
	CHECK_INT_EQ(1, inv.nkernels);
	CHECK_INT_EQ(4, inv.kernels[0].facts.nacc);
	CHECK_INT_EQ(2, inv.kernels[0].facts.nloops);
	ks_inventory_release(&inv);
	ks_buf_release(&err);
}

void
ks_suite_analysis_parse(void)
{
	RUN(inventory_lists_kernels_and_params);
	RUN(features_of_small_kernels);
	RUN(prelude_parse_agrees_with_toolkit);
	RUN(operators_from_tokens_agree);
	RUN(launch_sites);
	RUN(template_kernels_and_launch_bounds);
	RUN(launch_sequence_features);
	RUN(unparsable_tu_gives_no_inventory);
	RUN(closure_holds_what_the_kernel_reaches);
	RUN(key_ignores_what_the_kernel_does_not_reach);
	RUN(key_follows_what_the_kernel_reaches);
	RUN(key_is_the_same_with_or_without_the_pch);
	RUN(defines_reach_the_parse);
	RUN(kernels_in_user_headers);
	RUN(prefix_pch_is_built_and_reused);
	RUN(builtin_indices_from_macros);
	RUN(walk_stops_past_its_bound);
	if (have_features)
		ks_inventory_release(&features);
	if (have_launches)
		ks_inventory_release(&launches);
	have_features = have_launches = 0;
	if (ready > 0)
		ks_fs_remove_tree(state, &(struct ks_buf)KS_BUF_INIT);
	free(toolkit);
	toolkit = NULL;
	ready = 0;
}
