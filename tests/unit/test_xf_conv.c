/* Unit tests of conv_tiling: the kernels of tests/data/transforms/conv.cu
 * and the bench's two conv2d kernels are parsed with libclang; the
 * transform applies to the convolutions and declines each look-alike
 * with its reason; its output is deterministic, holds the three parts of
 * a variant and goes through the rewriter; the taps follow the strides,
 * padding and dilation the facts give; every point applies or says why.
 * Also the analysis fact it needs: a variable a thread-dependent branch
 * did not change keeps its exact view (blockIdx.z % K after an early
 * exit). Without a loadable libclang the parse tests are skipped with the reason.
 * Compiling the variants with nvcc and running them on the CPU is
 * tests/suites/xf_conv.sh. */
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

void ks_suite_xf_conv(void);

#define DATA "tests/data/transforms"

static struct xf_file files[] = {
	{ DATA "/conv.cu", { 0 }, KS_BUF_INIT, 0 },
	{ "bench/conv2d/main.cu", { 0 }, KS_BUF_INIT, 0 },
	{ "bench/conv_norm/main.cu", { 0 }, KS_BUF_INIT, 0 },
};
static struct xf_fixture fx = {
	.what = "conv",
	.probe = DATA "/conv.cu",
	.include = "-Ibench/common",
	.files = files,
	.nfiles = KS_ARRAY_SIZE(files),
};

static enum ks_xf_result
run_xf(const char *file, const char *kernel, const struct ks_xf_point *pt,
       struct ks_buf *variant, struct ks_buf *reason,
       const struct ks_kernel **kout)
{
	return xf_run(&fx, "conv_tiling", file, kernel, pt, variant, reason, kout);
}

#define CV DATA "/conv.cu"

static const struct xf_case cases[] = {
	{ CV, "nchw3", NULL, NULL },
	{ CV, "nhwc3_relu", NULL, NULL },
	{ CV, "nchw_s2d2", NULL, NULL },
	{ CV, "valid5_z", NULL, NULL },
	{ CV, "nchw3_leaky", NULL, NULL },
	{ "bench/conv2d/main.cu", "conv2d_kernel", NULL, NULL },
	{ "bench/conv_norm/main.cu", "conv2d_kernel", NULL, NULL },
	{ CV, "depthwise", NULL, "a depthwise or grouped convolution" },
	{ CV, "guarded", NULL, "does not skip the tap" },
	{ CV, "any_filter", NULL, "has no constant trip count" },
	{ CV, "rescaled", NULL, "assigns s (line" },
	{ "bench/conv_norm/main.cu", "batchnorm_kernel", NULL, "no loop accumulating" },
};

TEST(applies_to_convolutions_and_declines_look_alikes)
{
	if (!xf_setup(&fx))
		SKIP("no libclang, or the suite's data is missing");
	xf_check_cases(&fx, "conv_tiling", cases, KS_ARRAY_SIZE(cases));
}

TEST(variants_are_deterministic_and_rewritable)
{
	if (!xf_setup(&fx))
		SKIP("no libclang, or the suite's data is missing");
	xf_check_rewritable(&fx, "conv_tiling", cases, KS_ARRAY_SIZE(cases));
}

/* Every allowed point gives a variant or a reason; a thread count out
 * of range is a reason, never a variant. */
TEST(every_point_applies_or_says_why)
{
	const struct ks_transform *t = ks_xf_find("conv_tiling");

	if (!xf_setup(&fx))
		SKIP("no libclang, or the suite's data is missing");
	CHECK(t);
	for (size_t d = 0; d < t->nparams; d++)
		for (size_t j = 0; j < t->params[d].nvalues; j++) {
			struct ks_buf v = KS_BUF_INIT, r = KS_BUF_INIT;
			struct ks_xf_point pt;
			enum ks_xf_result res;

			ks_xf_default_point(t, &pt);
			pt.v[d] = t->params[d].values[j];
			res = run_xf(CV, "nchw3", &pt, &v, &r, NULL);
			CHECK(res == KS_XF_APPLIED || (res == KS_XF_DECLINED && r.len));
			CHECK(res != KS_XF_APPLIED || strstr(v.buf, "__launch_bounds__("));
			ks_buf_release(&v);
			ks_buf_release(&r);
		}
	{
		struct ks_buf v = KS_BUF_INIT, r = KS_BUF_INIT;
		struct ks_xf_point pt;
		struct ks_buf err = KS_BUF_INIT;

		/* 64 pixels x 32 channels, 8 x 8 per thread: 32 threads */
		ks_xf_default_point(t, &pt);
		CHECK_INT_EQ(0, ks_xf_point_set(t, &pt, "bm", 64, &err));
		CHECK_INT_EQ(0, ks_xf_point_set(t, &pt, "bn", 32, &err));
		CHECK_INT_EQ(0, ks_xf_point_set(t, &pt, "tn", 8, &err));
		CHECK_INT_EQ(KS_XF_DECLINED, run_xf(CV, "nchw3", &pt, &v, &r, NULL));
		CHECK(strstr(r.buf, "needs 32 threads"));
		ks_buf_release(&v);
		ks_buf_release(&r);
		ks_buf_release(&err);
	}
}

/* The taps follow the facts: stride 2 and dilation 2 are coefficients,
 * the padding tests are the kernel's, NHWC moves along C, a 5x5 window
 * slices 5 * 5 taps per channel and takes fewer channels per slice. */
TEST(taps_follow_the_facts)
{
	struct ks_buf v = KS_BUF_INIT, r = KS_BUF_INIT;

	if (!xf_setup(&fx))
		SKIP("no libclang, or the suite's data is missing");
	CHECK_INT_EQ(KS_XF_APPLIED, run_xf(CV, "nchw_s2d2", NULL, &v, &r, NULL));
	CHECK(strstr(v.buf, "(((2LL))) * (long long)(ks_gy) + (((2LL))) * (long long)(ks_l1))"));
	CHECK(strstr(v.buf, "ks_BK = 18,"));
	ks_buf_reset(&v);
	CHECK_INT_EQ(KS_XF_APPLIED, run_xf(CV, "nhwc3_relu", NULL, &v, &r, NULL));
	/* x moves by 1 per input channel, by C per pixel */
	CHECK(strstr(v.buf, "const long long ks_ad = (long long)ks_CB * (((1LL)));"));
	CHECK(strstr(v.buf, "y[(((size_t)n * Ho + oy) * Wo + ox) * K + k] = "
			    "fmaxf(acc + b[k], 0.0f);"));
	CHECK(strstr(v.buf, "acc += ks_gemm_v;"));
	ks_buf_reset(&v);
	CHECK_INT_EQ(KS_XF_APPLIED, run_xf(CV, "valid5_z", NULL, &v, &r, NULL));
	CHECK(strstr(v.buf, "const int ks_ci = ks_k / 25;"));
	CHECK(strstr(v.buf, "ks_BK = 25,"));	/* cb 2 would not fit */
	CHECK(strstr(v.buf, "const long long ks_den = (long long)ks_og.z;"));
	CHECK(!strstr(v.buf, "/* line"));	/* no padding */
	ks_buf_release(&v);
	ks_buf_release(&r);
}

/* The fact conv_tiling rests on: after `if (ox >= W) return;` the
 * channel blockIdx.z % K still has its exact view. */
TEST(exact_view_survives_a_branch_that_did_not_change_it)
{
	struct xf_file *p;
	const struct ks_kernel *k;

	if (!xf_setup(&fx))
		SKIP("no libclang, or the suite's data is missing");
	p = xf_parse(&fx, "bench/conv2d/main.cu");
	CHECK(p);
	k = ks_inventory_find(&p->inv, "conv2d_kernel");
	CHECK(k);
	for (size_t i = 0; i < k->facts.nacc; i++) {
		struct ks_xform v;

		CHECK(ks_form_exact(&k->facts.acc[i].offset, &v));
	}
}

void
ks_suite_xf_conv(void)
{
	RUN(applies_to_convolutions_and_declines_look_alikes);
	RUN(variants_are_deterministic_and_rewritable);
	RUN(every_point_applies_or_says_why);
	RUN(taps_follow_the_facts);
	RUN(exact_view_survives_a_branch_that_did_not_change_it);
	xf_teardown(&fx);
}
