/* Unit tests of the coop_rows transform: kernels of
 * tests/data/rows/shapes.cu, parsed with libclang as the inventory does,
 * are rewritten (other index orders, a row stride as a parameter, a 2-D
 * grid, a grid-stride loop over rows, an exclusive scan, products, an
 * arg-min) or declined with their reason (look-alikes); the register
 * cache of a row read by several passes, emitted (softmax, a norm of
 * doubles, an arg-max) or not used with its reason; points outside
 * what the transform emits are declined; the output is deterministic.
 * Without a loadable libclang the tests are skipped with the reason. The variants
 * compile with nvcc in tests/suites/coop_rows.sh. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/analysis/inventory.h"
#include "../../src/analysis/libclang.h"
#include "../../src/cache/rewrite.h"
#include "../../src/core/buf.h"
#include "../../src/core/fs.h"
#include "../../src/core/util.h"
#include "../../src/transforms/search.h"
#include "../../src/transforms/transform.h"
#include "test.h"

void ks_suite_transforms_rows(void);

#define SHAPES "tests/data/rows/shapes.cu"

static int ready;		/* 0: not set up, 1: ready, -1: skip */
static struct ks_inventory inv;
static struct ks_buf text = KS_BUF_INIT;
static char state[256];

static int
setup(void)
{
	struct ks_buf err = KS_BUF_INIT;
	struct ks_tu_opts o;
	const char *tk = "/usr/local/cuda";
	char *h;

	if (ready)
		return ready > 0;
	ready = -1;
	if (ks_libclang_load(&err)) {
		fprintf(stderr, "skip: coop_rows tests: %s\n", err.buf);
		ks_buf_release(&err);
		return 0;
	}
	if (ks_fs_read(SHAPES, &text, &err)) {
		fprintf(stderr, "skip: coop_rows tests: %s (run from the "
				"repository root)\n", err.buf);
		ks_buf_release(&err);
		return 0;
	}
	snprintf(state, sizeof(state), "%s/ks-rows-XXXXXX",
		 getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR")
						       : "/tmp");
	if (!mkdtemp(state))
		return 0;
	if (getenv("CUDA_HOME") && *getenv("CUDA_HOME"))
		tk = getenv("CUDA_HOME");
	h = ks_xasprintf("%s/include/cuda_runtime.h", tk);
	if (!ks_fs_exists(h))
		tk = NULL;
	free(h);
	memset(&o, 0, sizeof(o));
	o.source = SHAPES;
	o.toolkit = tk;
	o.state_dir = state;
	o.arch = "sm_90";
	if (ks_inventory_build(&o, &inv, &err)) {
		fprintf(stderr, "coop_rows tests: %s: %s\n", SHAPES, err.buf);
		ks_buf_release(&err);
		return 0;
	}
	ready = 1;
	return 1;
}

#define SETUP()                                                             \
	do {                                                                \
		if (!setup())                                               \
			SKIP("no libclang, or shapes.cu not found");        \
	} while (0)

/* Apply coop_rows to `kernel` at the default point changed by "k=v"
 * settings (NULL-terminated). */
static enum ks_xf_result
run(const char *kernel, const char *const *set, struct ks_buf *variant,
    struct ks_buf *reason)
{
	const struct ks_transform *t = ks_xf_find("coop_rows");
	const struct ks_kernel *k = ks_inventory_find(&inv, kernel);
	struct ks_xf_input in;
	struct ks_xf_point p;

	if (!t || !k) {
		ks_buf_addf(reason, "no transform or no kernel %s", kernel);
		return KS_XF_DECLINED;
	}
	ks_xf_default_point(t, &p);
	for (; set && *set; set++) {
		char name[32];
		const char *eq = strchr(*set, '=');

		snprintf(name, sizeof(name), "%.*s", (int)(eq - *set), *set);
		if (ks_xf_point_set(t, &p, name, atoll(eq + 1), reason))
			return KS_XF_DECLINED;
	}
	memset(&in, 0, sizeof(in));
	in.kernel = k;
	in.text = text.buf;
	in.len = text.len;
	in.opts.arch = 900;
	return ks_xf_apply(t, &in, &p, variant, reason);
}

/* The variant of `kernel` has every part, and its definition holds each
 * of `want` (NULL-terminated), in that order. */
static int
has_in_order(const char *kernel, const char *const *set,
	     const char *const *want)
{
	struct ks_buf v = KS_BUF_INIT, why = KS_BUF_INIT, err = KS_BUF_INIT;
	struct ks_rewrite_variant rv;
	const char *at;
	int ok = 1;

	if (run(kernel, set, &v, &why) != KS_XF_APPLIED) {
		TEST_FAIL_("%s declined: %s", kernel, why.buf);
		ok = 0;
		goto out;
	}
	memset(&rv, 0, sizeof(rv));
	if (ks_rewrite_variant_split(v.buf, &rv, &err) || !rv.helpers.text ||
	    !rv.launcher.text || !rv.definition.text) {
		TEST_FAIL_("%s: the variant lacks a part: %s", kernel, err.buf);
		ok = 0;
		goto out;
	}
	at = rv.definition.text;
	for (; *want; want++) {
		const char *f = strstr(at, *want);

		if (!f) {
			TEST_FAIL_("%s: '%s' not found (in order) in:\n%s", kernel,
				   *want, rv.definition.text);
			ok = 0;
			goto out;
		}
		at = f + strlen(*want);
	}
out:
	ks_buf_release(&v);
	ks_buf_release(&why);
	ks_buf_release(&err);
	return ok;
}

/* The variant's header (before its parts) holds `want`. */
static int
header_has(const char *kernel, const char *const *set, const char *want)
{
	struct ks_buf v = KS_BUF_INIT, why = KS_BUF_INIT;
	const char *h;
	int ok = 0;

	if (run(kernel, set, &v, &why) != KS_XF_APPLIED) {
		TEST_FAIL_("%s declined: %s", kernel, why.buf);
	} else if (!(h = strstr(v.buf, "// ks-nvcc: helpers"))) {
		TEST_FAIL_("%s: no helpers part", kernel);
	} else if (!strstr(v.buf, want) || strstr(v.buf, want) > h) {
		TEST_FAIL_("%s: '%s' not in the header:\n%.*s", kernel, want,
			   (int)(h - v.buf), v.buf);
	} else {
		ok = 1;
	}
	ks_buf_release(&v);
	ks_buf_release(&why);
	return ok;
}

/* The variant of `kernel` does not contain `s` anywhere. */
static int
lacks(const char *kernel, const char *const *set, const char *s)
{
	struct ks_buf v = KS_BUF_INIT, why = KS_BUF_INIT;
	int ok = run(kernel, set, &v, &why) == KS_XF_APPLIED && !strstr(v.buf, s);

	if (!ok)
		TEST_FAIL_("%s: declined or holds '%s': %s", kernel, s, why.buf);
	ks_buf_release(&v);
	ks_buf_release(&why);
	return ok;
}

TEST(coop_rows_is_registered)
{
	const struct ks_transform *t = ks_xf_find("coop_rows");

	CHECK(t);
	CHECK_INT_EQ(3, t->nparams);
	CHECK_STR_EQ("rows_per_block", t->params[0].name);
	CHECK_STR_EQ("cache", t->params[1].name);
	CHECK_INT_EQ(32, t->params[1].def);
	CHECK_INT_EQ(0, t->params[1].values[1]);
	CHECK_STR_EQ("threads", t->params[2].name);
	CHECK_INT_EQ(32, t->params[2].def);
}

/* ks try stops after two measured points that do not win: a block per row
 * must be among the first three points the transform applies to. */
TEST(coop_rows_search_reaches_a_block_per_row_early)
{
	const struct ks_transform *t = ks_xf_find("coop_rows");
	struct ks_xf_point base, *pts;
	size_t n, applied = 0, at = 0;

	CHECK(t);
	ks_xf_default_point(t, &base);
	pts = ks_xcalloc(KS_XF_SEARCH_MAX, sizeof(*pts));
	n = ks_xf_search_points(t, &base, NULL, pts, KS_XF_SEARCH_MAX);
	for (size_t i = 0; i < n && !at; i++) {
		/* the points apply() declines before looking at a kernel */
		if (pts[i].v[2] > 32 && (pts[i].v[0] != 1 || pts[i].v[1] != 32))
			continue;
		applied++;
		if (pts[i].v[2] > 32)
			at = applied;
	}
	free(pts);
	CHECK(at >= 1 && at <= 3);
}

TEST(coop_rows_sum_from_a_value_and_product_with_row_stride)
{
	static const char *const want[] = {
		"int r = ks_tid.x + ks_bdim.x * ks_bid.x;",
		"decltype(s) ks_r0 = s;", "q = (decltype(q))1;",
		"for (int j = (0) + (int)ks_lane; j < cols; j += 32)",
		"s += x[(size_t)r * ld + j];",
		"q *= 1.0 + 0.001 * x[(size_t)r * ld + j];",
		"s += __shfl_xor_sync(0xffffffffu, s, ks_o);", "s = ks_r0 + s;",
		"q *= __shfl_xor_sync(0xffffffffu, q, ks_o);", "q = ks_r1 * q;",
		"if (ks_lane == 0) {", "y[r] = s;", NULL
	};

	SETUP();
	CHECK(has_in_order("row_sum_ld", NULL, want));
}

TEST(coop_rows_argmin_on_a_2d_grid_keeps_the_first_index)
{
	static const char *const want[] = {
		"int b = ks_bid.y;", "for (int j = (1) + (int)ks_lane; j < C; j += 32)",
		"if (best > p[j]) {",
		"if ((best > ks_ov) || (ks_ov == best && ks_oi < bi)) "
		"{ best = ks_ov; bi = ks_oi; }",
		"if (ks_lane == 0) {", "out[b * R + r] = bi;", NULL
	};

	SETUP();
	CHECK(has_in_order("batched_argmin", NULL, want));
}

TEST(coop_rows_grid_stride_rows_and_max)
{
	static const char *const want[] = {
		"row += ks_bdim.x * ks_gdim.x", "#pragma unroll 4",
		"m = max(m, x[row * cols + j]);",
		"m = max(m, __shfl_xor_sync(0xffffffffu, m, ks_o));",
		"y[row] = m;", NULL
	};

	SETUP();
	CHECK(has_in_order("row_max_gridstride", NULL, want));
}

TEST(coop_rows_exclusive_scan)
{
	static const char *const want[] = {
		"decltype(s) ks_carry = s;", "ks_b += 128",
		"ks_v[ks_u] = (j < cols) ? (decltype(s))(x[row * cols + j])",
		"__shfl_up_sync(0xffffffffu, ks_in, ks_o)",
		"s = ks_carry + ks_ex;", "y[row * cols + j] = s;",
		"s = ks_carry + ks_in;", "s = ks_carry;",
		"z[row * cols + j] = x[row * cols + j] * w[row];", NULL
	};
	SETUP();
	CHECK(has_in_order("exclusive_scan_scale", NULL, want));
}

TEST(coop_rows_block_per_row)
{
	static const char *const sum[] = {
		"__launch_bounds__(256)", "threadIdx.x % 256",
		"__shared__ decltype(s) ks_sv[8];", "__syncthreads();",
		"for (int ks_w = 1; ks_w < 8; ks_w++) {", "s += ks_sv[ks_w];", NULL
	};
	static const char *const arg[] = {
		"__shared__ decltype(bi) ks_si[32];", "ks_si[ks_lane >> 5] = bi;",
		"decltype(bi) ks_oi = ks_si[ks_w];", NULL
	};
	static const char *const s256[] = { "threads=256", "rows_per_block=1",
					    NULL };
	static const char *const s1024[] = { "threads=1024", "rows_per_block=1",
					     NULL };

	SETUP();
	CHECK(has_in_order("row_sum_ld", s256, sum));
	CHECK(has_in_order("batched_argmin", s1024, arg));
}

TEST(coop_rows_declines_look_alikes)
{
	static const char *const cases[][2] = {
		{ "cross_row", "reads 'y', which it also writes at other offsets" },
		{ "ragged_rows", "bounds are not uniform across the block" },
		{ "lower_sum", "bounds are not uniform across the block" },
		{ "gather_rows", "at an index that depends on data" },
		{ "column_sum", "walks 'x' with a stride, not contiguously" },
		{ "ema_rows", "carries 'e' from one element to the next" },
		{ "first_negative", "the row loop leaves early" },
		{ "while_rows", "a while or do loop walks the row" },
		{ "struct_sums", "carries 'a' from one element to the next" },
		{ "readback", "reads back 'y', which one thread of the row writes" },
		{ "block_sum", "already uses shared memory" },
	};

	SETUP();
	for (size_t i = 0; i < KS_ARRAY_SIZE(cases); i++) {
		struct ks_buf v = KS_BUF_INIT, why = KS_BUF_INIT;
		enum ks_xf_result r = run(cases[i][0], NULL, &v, &why);

		if (r != KS_XF_DECLINED || !strstr(why.buf, cases[i][1])) {
			TEST_FAIL_("%s: want a decline with '%s', got %s '%s'",
				   cases[i][0], cases[i][1],
				   r == KS_XF_DECLINED ? "a decline" : "a variant",
				   why.buf);
			ks_buf_release(&v);
			ks_buf_release(&why);
			return;
		}
		CHECK_INT_EQ(0, v.len);
		ks_buf_release(&v);
		ks_buf_release(&why);
	}
}

TEST(coop_rows_declines_points_it_does_not_emit)
{
	static const char *const multi[] = { "threads=256", "rows_per_block=4",
					     NULL };
	static const char *const scan[] = { "threads=128", "rows_per_block=1",
					    NULL };
	struct ks_buf v = KS_BUF_INIT, why = KS_BUF_INIT;

	SETUP();
	CHECK(run("row_sum_ld", multi, &v, &why) == KS_XF_DECLINED);
	CHECK(strstr(why.buf, "rows_per_block=1"));
	ks_buf_reset(&why);
	CHECK(run("exclusive_scan_scale", scan, &v, &why) == KS_XF_DECLINED);
	CHECK(strstr(why.buf, "threads=32 only"));
	ks_buf_release(&v);
	ks_buf_release(&why);
}

/* The loop's second point, after a warp per row, is a block per row:
 * rows read in several passes fit the caches only at few rows per SM. */
TEST(coop_rows_visits_a_block_per_row_second)
{
	const struct ks_transform *t = ks_xf_find("coop_rows");
	struct ks_xf_point def, pts[KS_XF_SEARCH_MAX];
	struct ks_buf s = KS_BUF_INIT;
	size_t n;

	CHECK(t != NULL);
	if (!t)
		return;
	ks_xf_default_point(t, &def);
	n = ks_xf_search_points(t, &def, NULL, pts, KS_XF_SEARCH_MAX);
	CHECK(n >= 2);
	ks_xf_point_format(t, &pts[0], &s);
	CHECK_STR_EQ("rows_per_block=1 cache=32 threads=32", s.buf);
	ks_buf_reset(&s);
	ks_xf_point_format(t, &pts[1], &s);
	CHECK_STR_EQ("rows_per_block=1 cache=32 threads=128", s.buf);
	ks_buf_reset(&s);
	/* then the dealt warp per row, without the cache */
	ks_xf_point_format(t, &pts[2], &s);
	CHECK_STR_EQ("rows_per_block=1 cache=0 threads=32", s.buf);
	ks_buf_release(&s);
}

/* Softmax's three passes from one read of the row: the registers, the
 * run-time test of the bound, the pass from the second element under its
 * own first element, the reads replaced (the store stays), and the dealt
 * form as the other branch. */
TEST(coop_rows_row_cache_softmax)
{
	static const char *const want[] = {
		"float m = x[(size_t)row * cols];", "float ks_rc[32];",
		"const bool ks_rc_on = (cols) <= 1024;", "if (ks_rc_on) {",
		"#pragma unroll\n",
		"for (int ks_t = 0; ks_t < 32; ks_t++) {",
		"int j = (int)ks_lane + 32 * ks_t;",
		"ks_rc[ks_t] = (j < cols) ? (float)(x[(size_t)row * cols + j]) : "
		"(float)0;",
		/* the max from the second element */
		"if (ks_rc_on) {", "for (int ks_t = 0; ks_t < 32; ks_t++) {",
		"int j = (int)ks_lane + 32 * ks_t;", "if (j >= (1) && j < cols)",
		"m = fmaxf(m, ks_rc[ks_t]);",
		"m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, ks_o));",
		"} else {", "for (int j = (1) + (int)ks_lane; j < cols; j += 32)",
		"m = fmaxf(m, x[(size_t)row * cols + j]);",
		/* the sum */
		"if (ks_rc_on) {", "if (j < cols)", "s += expf(ks_rc[ks_t] - m);",
		"} else {", "s += expf(x[(size_t)row * cols + j] - m);",
		/* the write */
		"if (ks_rc_on) {", "if (j < cols)",
		"y[(size_t)row * cols + j] = expf(ks_rc[ks_t] - m) / s;",
		"} else {", "for (int j = (0) + (int)ks_lane; j < cols; j += 32)",
		"y[(size_t)row * cols + j] = expf(x[(size_t)row * cols + j] - m) / s;",
		NULL
	};

	SETUP();
	CHECK(has_in_order("softmax_rows", NULL, want));
	CHECK(header_has("softmax_rows", NULL, "// row cache: 'x' read by 3 "
			 "passes (lines "));
	CHECK(header_has("softmax_rows", NULL, "32 float values a lane, when "
			 "the row's bound is at most 1024"));
}

TEST(coop_rows_row_cache_other_shapes)
{
	static const char *const norm[] = {
		"double ks_rc[32];", "const bool ks_rc_on = (n) <= 1024;",
		"ks_rc[ks_t] = (j < n) ? (double)(p[j]) : (double)0;",
		"mu += ks_rc[ks_t];", "double d = ks_rc[ks_t] - mu;",
		"y[(size_t)r * n + j] = (ks_rc[ks_t] - mu) * inv * g[j];", NULL
	};
	static const char *const arg[] = {
		"float ks_rc[32];", "if (j >= (1) && j < cols)",
		"if (ks_rc[ks_t] > best) {", "best = ks_rc[ks_t];", "bi = j;",
		"if ((ks_ov > best) || (ks_ov == best && ks_oi < bi))",
		"s += best - ks_rc[ks_t];", "if (ks_lane == 0) {",
		"idx[row] = bi;", NULL
	};
	static const char *const k16[] = { "cache=16", NULL };
	static const char *const half[] = {
		"float ks_rc[16];", "const bool ks_rc_on = (cols) <= 512;",
		"for (int ks_t = 0; ks_t < 16; ks_t++) {", NULL
	};
	static const char *const rpb[] = { "rows_per_block=4", NULL };
	static const char *const four[] = {
		"threadIdx.x % 32", "float ks_rc[32];", NULL
	};

	SETUP();
	CHECK(has_in_order("norm_rows", NULL, norm));
	CHECK(has_in_order("argmax_gap", NULL, arg));
	CHECK(has_in_order("softmax_rows", k16, half));
	CHECK(has_in_order("softmax_rows", rpb, four));
	CHECK(header_has("norm_rows", NULL, "32 double values a lane"));
}

/* The transform applies, the cache is not used, the header says why. */
TEST(coop_rows_row_cache_declined_with_reasons)
{
	static const char *const cases[][2] = {
		{ "scale_inplace", "not used: 'x' is also stored by the kernel" },
		{ "diff_rows", "not used: the passes read 'x' at different offsets" },
		{ "prefix_sums2", "not used: the passes over 'x' have different "
				  "bounds" },
		{ "store_between", "not used: a store (line " },
		{ "row_sum_ld", "not used: no array of the row is read by two row "
				"loops" },
		{ "exclusive_scan_scale", "not used: the kernel has a row scan" },
	};
	static const char *const bpr[] = { "threads=128", NULL };
	static const char *const off[] = { "cache=0", NULL };

	SETUP();
	for (size_t i = 0; i < KS_ARRAY_SIZE(cases); i++) {
		CHECK(header_has(cases[i][0], NULL, cases[i][1]));
		CHECK(lacks(cases[i][0], NULL, "ks_rc"));
	}
	CHECK(header_has("store_between", NULL, "comes before a read of 'x'"));
	CHECK(header_has("softmax_rows", bpr, "// row cache: none (a block per "
			 "row)"));
	CHECK(lacks("softmax_rows", bpr, "ks_rc"));
	CHECK(header_has("softmax_rows", off, "// row cache: off (cache=0)"));
	CHECK(lacks("softmax_rows", off, "ks_rc"));
}

/* A value of cache that would repeat another point's variant is a
 * declined point. */
TEST(coop_rows_row_cache_declined_points)
{
	static const char *const bpr16[] = { "threads=128", "cache=16", NULL };
	static const char *const bpr0[] = { "threads=256", "cache=0", NULL };
	static const char *const off[] = { "cache=0", NULL };
	static const char *const k64[] = { "cache=64", NULL };
	static const char *const k16[] = { "cache=16", NULL };
	struct ks_buf v = KS_BUF_INIT, why = KS_BUF_INIT;

	SETUP();
	CHECK(run("softmax_rows", bpr16, &v, &why) == KS_XF_DECLINED);
	CHECK(strstr(why.buf, "a block per row (threads > 32) takes the default "
			      "cache=32"));
	ks_buf_reset(&why);
	CHECK(run("softmax_rows", bpr0, &v, &why) == KS_XF_DECLINED);
	CHECK(strstr(why.buf, "the row cache is a warp's"));
	ks_buf_reset(&why);
	CHECK(run("row_sum_ld", off, &v, &why) == KS_XF_DECLINED);
	CHECK(strstr(why.buf, "(no array of the row is read by two row loops): "
			      "cache=0 gives the variant of the default cache=32"));
	ks_buf_reset(&why);
	CHECK(run("scale_inplace", k16, &v, &why) == KS_XF_DECLINED);
	CHECK(strstr(why.buf, "cache=16 gives the variant of the default "
			      "cache=32"));
	ks_buf_reset(&why);
	/* 64 doubles are 128 registers; the default's 32 are used */
	CHECK(run("norm_rows", k64, &v, &why) == KS_XF_DECLINED);
	CHECK(strstr(why.buf, "takes 128 registers a lane (more than 64)"));
	CHECK(strstr(why.buf, "gives the variant of cache=0"));
	CHECK_INT_EQ(0, v.len);
	ks_buf_reset(&why);
	CHECK(run("softmax_rows", k64, &v, &why) == KS_XF_APPLIED);
	CHECK(strstr(v.buf, "float ks_rc[64];"));
	ks_buf_release(&v);
	ks_buf_release(&why);
}

TEST(coop_rows_is_deterministic)
{
	static const char *const names[] = {
		"row_sum_ld", "batched_argmin", "row_max_gridstride",
		"exclusive_scan_scale", "softmax_rows", "norm_rows", "argmax_gap",
	};

	SETUP();
	for (size_t i = 0; i < KS_ARRAY_SIZE(names); i++) {
		struct ks_buf a = KS_BUF_INIT, b = KS_BUF_INIT, why = KS_BUF_INIT;

		CHECK(run(names[i], NULL, &a, &why) == KS_XF_APPLIED);
		CHECK(run(names[i], NULL, &b, &why) == KS_XF_APPLIED);
		CHECK_STR_EQ(a.buf, b.buf);
		ks_buf_release(&a);
		ks_buf_release(&b);
		ks_buf_release(&why);
	}
}

void
ks_suite_transforms_rows(void)
{
	RUN(coop_rows_is_registered);
	RUN(coop_rows_search_reaches_a_block_per_row_early);
	RUN(coop_rows_sum_from_a_value_and_product_with_row_stride);
	RUN(coop_rows_argmin_on_a_2d_grid_keeps_the_first_index);
	RUN(coop_rows_grid_stride_rows_and_max);
	RUN(coop_rows_exclusive_scan);
	RUN(coop_rows_block_per_row);
	RUN(coop_rows_declines_look_alikes);
	RUN(coop_rows_declines_points_it_does_not_emit);
	RUN(coop_rows_visits_a_block_per_row_second);
	RUN(coop_rows_row_cache_softmax);
	RUN(coop_rows_row_cache_other_shapes);
	RUN(coop_rows_row_cache_declined_with_reasons);
	RUN(coop_rows_row_cache_declined_points);
	RUN(coop_rows_is_deterministic);
	if (ready > 0) {
		ks_inventory_release(&inv);
		ks_buf_release(&text);
		ks_fs_remove_tree(state, NULL);
	}
}
