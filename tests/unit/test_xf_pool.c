/* Unit tests of pool_window_rows: the kernels of
 * tests/data/transforms/pool.cu and the two pooling kernels of bench/ are
 * parsed with libclang; the transform applies to the pooling shapes and
 * declines each look-alike with its reason; its output is deterministic,
 * holds the three parts of a variant and goes through the rewriter; the
 * window, the specialized bounds and the launcher's checks follow the
 * facts. Without a loadable libclang the parse tests are skipped with the reason.
 * Compiling the variants with nvcc and running them on the CPU is
 * tests/suites/xf_pool.sh. */
#include <stdlib.h>
#include <string.h>

#include "../../src/analysis/facts.h"
#include "../../src/analysis/inventory.h"
#include "../../src/analysis/libclang.h"
#include "../../src/core/buf.h"
#include "../../src/core/fs.h"
#include "../../src/core/strv.h"
#include "../../src/core/util.h"
#include "../../src/transforms/transform.h"
#include "test.h"
#include "xf_fixture.h"

void ks_suite_xf_pool(void);

#define DATA "tests/data/transforms"

static struct xf_file files[] = {
	{ DATA "/pool.cu", { 0 }, KS_BUF_INIT, 0 },
	{ "bench/maxpool/main.cu", { 0 }, KS_BUF_INIT, 0 },
	{ "bench/avgpool/main.cu", { 0 }, KS_BUF_INIT, 0 },
};
static struct xf_fixture fx = {
	.what = "pool",
	.probe = DATA "/pool.cu",
	.include = "-Ibench/common",
	.files = files,
	.nfiles = KS_ARRAY_SIZE(files),
};

static enum ks_xf_result
run_xf(const char *file, const char *kernel, const struct ks_xf_point *pt,
       struct ks_buf *variant, struct ks_buf *reason,
       const struct ks_kernel **kout)
{
	return xf_run(&fx, "pool_window_rows", file, kernel, pt, variant, reason, kout);
}

#define PL DATA "/pool.cu"

static const struct xf_case cases[] = {
	{ PL, "maxpool_const", NULL, NULL },
	{ PL, "avgpool_incl", NULL, NULL },
	{ PL, "l2pool", NULL, NULL },
	{ "bench/maxpool/main.cu", "maxpool_kernel", NULL, NULL },
	{ "bench/avgpool/main.cu", "avgpool_kernel", NULL, NULL },
	{ PL, "gather_pool", NULL, "has a data-dependent index" },
	{ PL, "two_windows", NULL, "reads a second thread-dependent window" },
	{ PL, "inclusive_bound", NULL, "is not written `for (v = 0; v < bound; ...)`" },
	{ PL, "transposed_out", NULL, "is not at the flat thread index" },
	{ PL, "staged_rows", NULL, "already cooperates across threads" },
	{ PL, "row_pool", NULL, NULL },
	{ PL, "image_pool", NULL, "a window of several rows over rows without planes" },
	{ PL, "guarded_body", NULL, "has no early exit `if (i >= limit) return;`" },
};

TEST(applies_to_poolings_and_declines_look_alikes)
{
	if (!xf_setup(&fx))
		SKIP("no libclang, or the suite's data is missing");
	xf_check_cases(&fx, "pool_window_rows", cases, KS_ARRAY_SIZE(cases));
}

TEST(variants_are_deterministic_and_rewritable)
{
	if (!xf_setup(&fx))
		SKIP("no libclang, or the suite's data is missing");
	xf_check_rewritable(&fx, "pool_window_rows", cases, KS_ARRAY_SIZE(cases));
}

/* Every allowed point of each applied case gives a variant or a reason;
 * the window's size only ever declines for registers. */
TEST(every_point_applies_or_says_why)
{
	const struct ks_transform *t = ks_xf_find("pool_window_rows");

	if (!xf_setup(&fx))
		SKIP("no libclang, or the suite's data is missing");
	CHECK(t);
	for (size_t i = 0; i < KS_ARRAY_SIZE(cases); i++) {
		struct ks_xf_point pt;

		if (cases[i].reason)
			continue;
		for (size_t d = 0; d < t->nparams; d++)
			for (size_t j = 0; j < t->params[d].nvalues; j++) {
				struct ks_buf v = KS_BUF_INIT, r = KS_BUF_INIT;
				enum ks_xf_result res;

				ks_xf_default_point(t, &pt);
				pt.v[d] = t->params[d].values[j];
				res = run_xf(cases[i].file, cases[i].kernel, &pt,
					     &v, &r, NULL);
				CHECK(res == KS_XF_APPLIED ||
				      (res == KS_XF_DECLINED &&
				       strstr(r.buf, "too large for registers")));
				ks_buf_release(&v);
				ks_buf_release(&r);
			}
	}
}

/* The window is rows x ((vo - 1) * stride + columns) cells, its bounds
 * and stride constants of the helper; a bound or stride that is a kernel
 * parameter gets an instance per usual window, chosen by the launcher
 * from the run-time values and passed as the constant; the column loop
 * is the one that steps by one element, also when it is the outer loop. */
TEST(window_follows_the_facts)
{
	const struct ks_transform *t = ks_xf_find("pool_window_rows");
	struct ks_buf v = KS_BUF_INIT, r = KS_BUF_INIT;
	struct ks_xf_point pt;

	if (!xf_setup(&fx))
		SKIP("no libclang, or the suite's data is missing");
	CHECK_INT_EQ(KS_XF_APPLIED, run_xf("bench/maxpool/main.cu",
					   "maxpool_kernel", NULL, &v, &r, NULL));
	CHECK(strstr(v.buf, "from their window in registers (3 x 9, 2 x 8, 3 x 6)"));
	CHECK(strstr(v.buf, "if (1 && (long long)k == 3LL && (long long)k == 3LL && (long long)s == 2LL) {"));
	CHECK(strstr(v.buf, "if (1 && (long long)k == 2LL && (long long)k == 2LL && (long long)s == 2LL) {"));
	CHECK(strstr(v.buf, "ks_win[kh][ks_c0 + kw]"));
	CHECK(strstr(v.buf, "KS_MIS + ks_j * KS_S, x, y, n, c, h, w, ho, wo, KS_KR, KS_S, p);"));
	CHECK(strstr(v.buf, "ks_pl_maxpool_kernel<3, 3, 2, KS_PL_V, 4, 3><<<"));
	/* the plane and row strides of the load, in elements */
	CHECK(strstr(v.buf, "const long long ks_a1 = ((1LL * (long long)(h) * (long long)(w)))"));
	ks_buf_reset(&v);
	CHECK_INT_EQ(KS_XF_APPLIED, run_xf(PL, "maxpool_const", NULL, &v, &r, NULL));
	/* constants of the kernel: one instance, nothing for the launcher
	 * to compare */
	CHECK(strstr(v.buf, "in registers (3 x 9), "));
	CHECK(strstr(v.buf, "if (1) {"));
	CHECK(strstr(v.buf, "ks_win[kh][ks_c0 + kw]"));
	ks_buf_reset(&v);
	ks_xf_default_point(t, &pt);
	pt.v[0] = 8;	/* vo */
	CHECK_INT_EQ(KS_XF_APPLIED, run_xf(PL, "avgpool_incl", &pt, &v, &r, NULL));
	CHECK(strstr(v.buf, "8 adjacent outputs of a row per thread from their window in "
			    "registers (3 x 17, 2 x 16, 3 x 10)"));
	CHECK(strstr(v.buf, "ks_win[a][ks_c0 + b]"));
	ks_buf_reset(&v);
	CHECK_INT_EQ(KS_XF_APPLIED, run_xf(PL, "row_pool", NULL, &v, &r, NULL));
	/* one window row */
	CHECK(strstr(v.buf, "ks_win[0][ks_c0 + b]"));
	ks_buf_reset(&v);
	pt.v[0] = 8;
	pt.v[1] = 128;
	CHECK_INT_EQ(KS_XF_APPLIED, run_xf(PL, "avgpool_incl", &pt, &v, &r, NULL));
	CHECK(strstr(v.buf, "__launch_bounds__(128)"));
	ks_buf_release(&v);
	ks_buf_release(&r);
}

/* The early exit's limit is spelled for the launcher only from kernel
 * parameters; the original is launched when the specialized bounds do not
 * hold or the launch is not 1-D. */
TEST(launcher_falls_back_to_the_original)
{
	struct ks_buf v = KS_BUF_INIT, r = KS_BUF_INIT;
	const char *fb;

	if (!xf_setup(&fx))
		SKIP("no libclang, or the suite's data is missing");
	CHECK_INT_EQ(KS_XF_APPLIED, run_xf("bench/avgpool/main.cu",
					   "avgpool_kernel", NULL, &v, &r, NULL));
	CHECK(strstr(v.buf, "const long long ks_lim = ((long long)((size_t)n * c * ho * wo));"));
	CHECK(strstr(v.buf, "grid.y == 1 && grid.z == 1 && block.y == 1 && block.z == 1"));
	fb = strstr(v.buf, "\tavgpool_kernel<<<grid, block, shmem, stream>>>(x, y, n, c, h, w, ho, wo, k, s, p);\n}");
	CHECK(fb);
	/* 16-byte loads at a first column 0 or 3 after an aligned one, else
	 * one element at a time */
	CHECK(strstr(v.buf, "if (ks_vl && ks_mis == 3) {"));
	CHECK(strstr(v.buf, "ks_pl_avgpool_kernel<3, 3, 2, KS_PL_V, 1, 0><<<"));
	ks_buf_release(&v);
	ks_buf_release(&r);
}

void
ks_suite_xf_pool(void)
{
	RUN(applies_to_poolings_and_declines_look_alikes);
	RUN(variants_are_deterministic_and_rewritable);
	RUN(every_point_applies_or_says_why);
	RUN(window_follows_the_facts);
	RUN(launcher_falls_back_to_the_original);
	xf_teardown(&fx);
}
