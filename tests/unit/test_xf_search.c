/*
 * Unit tests for src/transforms/search.c: the visiting order of a
 * parameter space and the stop rule of ks try.
 */
#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/transforms/search.h"
#include "../../src/transforms/transform.h"
#include "test.h"

void ks_suite_xf_search(void);

static enum ks_xf_result
never(const struct ks_xf_input *in, const struct ks_xf_point *p,
      struct ks_buf *v, struct ks_buf *r)
{
	(void)in, (void)p, (void)v, (void)r;
	return KS_XF_DECLINED;
}

static const struct ks_transform two = {
	.id = "two", .summary = "", .precondition = "", .nparams = 2,
	.params = {
		{ "a", "", 4, 3, { 4, 2, 1 } },
		{ "b", "", 20, 2, { 10, 20 } },
	},
	.apply = never,
};

TEST(order_default_first_then_rank)
{
	struct ks_xf_point pts[16];
	size_t n = ks_xf_search_points(&two, NULL, NULL, pts, 16);

	CHECK(n == 6);
	/* the default (a=4, b=20) first */
	CHECK(pts[0].v[0] == 4 && pts[0].v[1] == 20);
	/* then rank 0: (4, 10); rank 1: (2, 10) */
	CHECK(pts[1].v[0] == 4 && pts[1].v[1] == 10);
	CHECK(pts[2].v[0] == 2 && pts[2].v[1] == 10);
	/* the default is not visited twice */
	for (size_t i = 1; i < n; i++)
		CHECK(!(pts[i].v[0] == 4 && pts[i].v[1] == 20));
	CHECK(ks_xf_search_points(&two, NULL, NULL, pts, 2) == 2);
}

TEST(fixed_parameter_keeps_its_value)
{
	struct ks_xf_point base, pts[16];
	int fixed[2] = { 0, 1 };
	size_t n;

	ks_xf_default_point(&two, &base);
	base.v[1] = 10;
	n = ks_xf_search_points(&two, &base, fixed, pts, 16);
	CHECK(n == 3);
	for (size_t i = 0; i < n; i++)
		CHECK(pts[i].v[1] == 10);
	CHECK(pts[0].v[0] == 4 && pts[1].v[0] == 2 && pts[2].v[0] == 1);
}

/* 3^10 = 59049 points, more than are listed: the list is cut at its
 * highest ranks, so that every parameter's second value is among the
 * first points, the last parameter's too (a cut by enumeration order
 * would vary only the first few parameters). */
static const struct ks_transform ten = {
	.id = "ten", .summary = "", .precondition = "", .nparams = 10,
	.params = {
		{ "p0", "", 0, 3, { 0, 1, 2 } }, { "p1", "", 0, 3, { 0, 1, 2 } },
		{ "p2", "", 0, 3, { 0, 1, 2 } }, { "p3", "", 0, 3, { 0, 1, 2 } },
		{ "p4", "", 0, 3, { 0, 1, 2 } }, { "p5", "", 0, 3, { 0, 1, 2 } },
		{ "p6", "", 0, 3, { 0, 1, 2 } }, { "p7", "", 0, 3, { 0, 1, 2 } },
		{ "p8", "", 0, 3, { 0, 1, 2 } }, { "p9", "", 0, 3, { 0, 1, 2 } },
	},
	.apply = never,
};

TEST(a_large_space_is_cut_by_rank)
{
	static struct ks_xf_point pts[KS_XF_SEARCH_MAX];
	struct ks_xf_point base;
	int fixed[10] = { 0 };
	size_t n = ks_xf_search_points(&ten, NULL, NULL, pts, KS_XF_SEARCH_MAX), i, j;
	long long prev = 0;

	CHECK(n == KS_XF_SEARCH_MAX);
	/* the default (all 0), then the ten of rank 1, the last parameter's
	   first (lexicographic order of the positions) */
	for (j = 0; j < 10; j++)
		CHECK(pts[0].v[j] == 0);
	for (i = 1; i <= 10; i++)
		for (j = 0; j < 10; j++)
			CHECK(pts[i].v[j] == (j == 10 - i ? 1 : 0));
	/* ranks never fall, and no point comes twice */
	for (i = 1; i < n; i++) {
		long long r = 0;

		for (j = 0; j < 10; j++)
			r += pts[i].v[j];
		CHECK(r >= prev);
		prev = r;
		CHECK(memcmp(&pts[i], &pts[i - 1], sizeof(pts[i])) != 0);
	}
	/* with all but one fixed, that one's values in order */
	ks_xf_default_point(&ten, &base);
	for (j = 0; j < 10; j++)
		fixed[j] = j != 9;
	base.v[0] = 2;
	n = ks_xf_search_points(&ten, &base, fixed, pts, KS_XF_SEARCH_MAX);
	CHECK(n == 3);
	for (i = 0; i < n; i++)
		CHECK(pts[i].v[0] == 2 && pts[i].v[9] == (long long)i);
}

TEST(stop_after_points_without_a_clear_win)
{
	struct ks_xf_timing m[4] = {
		{ 1.00, 0.98, 1.02 },	/* best so far, spread 0.04 */
		{ 0.99, 0.97, 1.01 },	/* within the spread: no clear win */
		{ 1.10, 1.08, 1.12 },	/* worse */
		{ 0.50, 0.49, 0.51 },
	};

	CHECK(!ks_xf_search_stop(m, 1, 2));
	CHECK(!ks_xf_search_stop(m, 2, 2));
	CHECK(ks_xf_search_stop(m, 3, 2));
	/* a clear win resets the count */
	CHECK(!ks_xf_search_stop(m + 1, 3, 2));
	CHECK(ks_xf_search_best(m, 4) == 3);
	CHECK(ks_xf_search_best(m, 3) == 1);
	CHECK(ks_xf_search_best(m, 0) == -1);
}

/* A launcher that runs its variant only for launches flat in y and z
 * covers a kernel's captures where one of them is such a launch; with
 * y free (the kernel reads no y), any block.y and grid.y; with z a
 * batch, any grid.z. No launch known: covered. */
TEST(launches_flat)
{
	struct ks_xf_launch l[2] = {
		{ { 16, 1, 1 }, { 32, 8, 1 } },		/* PolyBench's 32 x 8 blocks */
		{ { 16, 1, 4 }, { 128, 1, 1 } },	/* a batch in grid.z */
	};
	struct ks_xf_opts o;
	struct ks_buf why = KS_BUF_INIT;

	memset(&o, 0, sizeof(o));
	CHECK_INT_EQ(1, ks_xf_launches_flat(&o, 0, 0, &why));
	o.launches = l;
	o.nlaunches = 1;
	CHECK_INT_EQ(0, ks_xf_launches_flat(&o, 0, 1, &why));
	CHECK_STR_EQ("no captured launch fits the variant (1-D in x, any grid.z): the first "
		     "has grid 16x1x1, block 32x8x1, for which it would launch the original",
		     why.buf);
	CHECK_INT_EQ(1, ks_xf_launches_flat(&o, 1, 1, &why));
	o.launches = l + 1;
	ks_buf_reset(&why);
	CHECK_INT_EQ(0, ks_xf_launches_flat(&o, 1, 0, &why));
	CHECK(strstr(why.buf, "(blocks flat in z, grid.z 1)") != NULL);
	CHECK_INT_EQ(1, ks_xf_launches_flat(&o, 0, 1, &why));
	/* one covered launch among several is enough */
	o.launches = l;
	o.nlaunches = 2;
	CHECK_INT_EQ(1, ks_xf_launches_flat(&o, 0, 1, &why));
	ks_buf_release(&why);
}

void
ks_suite_xf_search(void)
{
	RUN(order_default_first_then_rank);
	RUN(launches_flat);
	RUN(fixed_parameter_keeps_its_value);
	RUN(a_large_space_is_cut_by_rank);
	RUN(stop_after_points_without_a_clear_win);
}
