/*
 * Unit tests for gemv_warp_per_row's launcher against the captured
 * launches (tests/data/transforms/gemm_mem.cu, parsed once): a kernel
 * that reads no y coordinate runs its variant for 2-D blocks; one that
 * does, given only 2-D launches, is declined with the launch named; the
 * groups of lanes per output.
 */
#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/core/util.h"
#include "../../src/transforms/transform.h"
#include "test.h"
#include "xf_fixture.h"

void ks_suite_xf_gemv(void);

#define GM "tests/data/transforms/gemm_mem.cu"

static struct xf_file files[] = {
	{ GM, { 0 }, KS_BUF_INIT, 0 },
};
static struct xf_fixture fx = {
	.what = "gemv",
	.probe = GM,
	.files = files,
	.nfiles = KS_ARRAY_SIZE(files),
};

/* PolyBench's shape: a 1-D kernel launched with blocks of 32 x 8. */
static const struct ks_xf_launch blocks_32x8 = { { 16, 1, 1 }, { 32, 8, 1 } };
static const struct ks_xf_launch flat = { { 4, 1, 1 }, { 128, 1, 1 } };

static enum ks_xf_result
run(const char *kernel, const struct ks_xf_launch *l, struct ks_buf *variant,
    struct ks_buf *reason)
{
	ks_buf_reset(variant);
	ks_buf_reset(reason);
	fx.launches = l;
	fx.nlaunches = l ? 1 : 0;
	return xf_run(&fx, "gemv_warp_per_row", GM, kernel, NULL, variant, reason, NULL);
}

TEST(launches_of_a_kernel_without_y)
{
	struct ks_buf v = KS_BUF_INIT, why = KS_BUF_INIT;

	if (!xf_setup(&fx))
		SKIP("no libclang, or the suite's data is missing");
	CHECK_INT_EQ(KS_XF_APPLIED, run("gemv_mem_cols", &blocks_32x8, &v, &why));
	CHECK(strstr(v.buf, "reads no y coordinate") != NULL);
	CHECK(strstr(v.buf, "block.y != 1") == NULL);
	ks_buf_release(&v);
	ks_buf_release(&why);
}

TEST(launches_of_a_kernel_with_y)
{
	struct ks_buf v = KS_BUF_INIT, why = KS_BUF_INIT;

	if (!xf_setup(&fx))
		SKIP("no libclang, or the suite's data is missing");
	/* only 2-D launches: declined, the launch named */
	CHECK_INT_EQ(KS_XF_DECLINED, run("gemv_mem_y", &blocks_32x8, &v, &why));
	CHECK_STR_EQ("no captured launch fits the variant (1-D in x, any grid.z): the first "
		     "has grid 16x1x1, block 32x8x1, for which it would launch the original",
		     why.buf);
	/* a flat launch, or none known: the variant, 2-D launches on the
	 * original */
	CHECK_INT_EQ(KS_XF_APPLIED, run("gemv_mem_y", &flat, &v, &why));
	CHECK(strstr(v.buf, "if (block.y != 1 || block.z != 1 || grid.y != 1") != NULL);
	CHECK_INT_EQ(KS_XF_APPLIED, run("gemv_mem_y", NULL, &v, &why));
	fx.launches = NULL;
	fx.nlaunches = 0;
	ks_buf_release(&v);
	ks_buf_release(&why);
}

/* gemv_warp_per_row at point `pt`, without captured launches. */
static enum ks_xf_result
at(const char *kernel, const struct ks_xf_point *pt, struct ks_buf *variant,
   struct ks_buf *reason)
{
	ks_buf_reset(variant);
	ks_buf_reset(reason);
	fx.launches = NULL;
	fx.nlaunches = 0;
	return xf_run(&fx, "gemv_warp_per_row", GM, kernel, pt, variant, reason, NULL);
}

/* Groups of lanes per output serve rows read along the loop, summed
 * reassociated; the transposed case and order=1 decline other groups;
 * 128 lanes take a block of 128 threads at least and combine 4 warps.
 * Column blocks of 8 outputs serve the transposed case only. */
TEST(lanes_per_output)
{
	struct ks_buf v = KS_BUF_INIT, why = KS_BUF_INIT;
	struct ks_xf_point pt = { 5, { 2, 4, 0, 8, 32 } };

	if (!xf_setup(&fx))
		SKIP("no libclang, or the suite's data is missing");
	CHECK_INT_EQ(KS_XF_DECLINED, at("gemv_mem_cols", &pt, &v, &why));
	CHECK_STR_EQ("lanes=8: groups of lanes per output are for rows read along the "
		     "loop, reassociated (order=0)",
		     why.buf);
	pt.v[2] = 1;
	CHECK_INT_EQ(KS_XF_DECLINED, at("gemv_mem_rows", &pt, &v, &why));
	pt.v[2] = 0;
	CHECK_INT_EQ(KS_XF_APPLIED, at("gemv_mem_rows", &pt, &v, &why));
	CHECK(strstr(v.buf, "8 lanes per output, 8 per block") != NULL);
	CHECK(strstr(v.buf, "dim3(64)") != NULL);
	pt.v[3] = 128;
	CHECK_INT_EQ(KS_XF_APPLIED, at("gemv_mem_rows", &pt, &v, &why));
	CHECK(strstr(v.buf, "128 lanes per output, 1 per block") != NULL);
	CHECK(strstr(v.buf, "__launch_bounds__(128)") != NULL);
	CHECK(strstr(v.buf, "ks_w < 4u") != NULL);
	/* narrower column blocks: the transposed case only */
	pt.v[3] = 32;
	pt.v[4] = 8;
	CHECK_INT_EQ(KS_XF_DECLINED, at("gemv_mem_rows", &pt, &v, &why));
	CHECK_STR_EQ("cols=8: narrower column blocks are for the matrix read along gx",
		     why.buf);
	CHECK_INT_EQ(KS_XF_APPLIED, at("gemv_mem_cols", &pt, &v, &why));
	CHECK(strstr(v.buf, "column blocks of 8 outputs x 128 slices") != NULL);
	CHECK(strstr(v.buf, "dim3(8, 128)") != NULL);
	ks_buf_release(&v);
	ks_buf_release(&why);
}

void
ks_suite_xf_gemv(void)
{
	RUN(launches_of_a_kernel_without_y);
	RUN(launches_of_a_kernel_with_y);
	RUN(lanes_per_output);
	xf_teardown(&fx);
}
