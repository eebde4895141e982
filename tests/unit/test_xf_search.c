/*
 * Unit tests for src/transforms/search.c: the visiting order of a
 * parameter space and the stop rule of ks try.
 */
#include <string.h>

#include "../../src/transforms/search.h"
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

void
ks_suite_xf_search(void)
{
	RUN(order_default_first_then_rank);
	RUN(fixed_parameter_keeps_its_value);
	RUN(stop_after_points_without_a_clear_win);
}
