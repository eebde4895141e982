/* Unit tests of src/review/eligibility: the verdict file and the table. */
#include <stdlib.h>
#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/review/eligibility.h"
#include "../../src/review/reviewer.h"
#include "test.h"

void ks_suite_eligibility(void);

TEST(verdict_file_round_trip)
{
	struct ks_review_capture rc;
	struct ks_elig e;
	struct ks_buf out = KS_BUF_INIT, err = KS_BUF_INIT;
	char why[] = "buffer 0: \"x\" differs", stage[] = "original";

	memset(&rc, 0, sizeof(rc));
	memset(&e, 0, sizeof(e));
	rc.verdict = KS_REVIEW_INELIGIBLE;
	rc.why = why;
	rc.stage = stage;
	ks_elig_format(&rc, "2026-12-01T12:00:00Z", &out);
	CHECK_STR_EQ("{\"format\": 1, \"verdict\": \"ineligible\", \"reproduces\": false, "
		     "\"why\": \"buffer 0: \\\"x\\\" differs\", \"stage\": \"original\", "
		     "\"time\": \"2026-12-01T12:00:00Z\"}\n", out.buf);
	CHECK_INT_EQ(0, ks_elig_parse(out.buf, &e, &err));
	CHECK_INT_EQ(1, e.checked);
	CHECK_INT_EQ(0, e.reproduces);
	CHECK_STR_EQ("ineligible", e.verdict);
	CHECK_STR_EQ(why, e.why);
	ks_elig_release(&e);
	ks_buf_reset(&out);
	rc.verdict = KS_REVIEW_ELIGIBLE;
	rc.why = NULL;
	rc.stage = NULL;
	ks_elig_format(&rc, "t", &out);
	CHECK_INT_EQ(0, ks_elig_parse(out.buf, &e, &err));
	CHECK_INT_EQ(1, e.reproduces);
	CHECK(e.why == NULL);
	ks_elig_release(&e);
	CHECK_INT_EQ(-1, ks_elig_parse("[1]", &e, &err));
	CHECK_INT_EQ(-1, ks_elig_parse("{\"why\": null}", &e, &err));
	CHECK_INT_EQ(0, e.checked);
	ks_buf_release(&out);
	ks_buf_release(&err);
}

TEST(table_rows_per_kernel)
{
	char k1[] = "_Z1av", d1[] = "a()", k2[] = "_Z1bv", k3[] = "_Z1cv";
	char yes[] = "eligible", no[] = "ineligible", why[] = "buffer 1: differs";
	char long_why[300];
	struct ks_elig v[5];
	struct ks_buf out = KS_BUF_INIT;
	const char *line;

	memset(v, 0, sizeof(v));
	memset(long_why, 'x', sizeof(long_why) - 1);
	long_why[sizeof(long_why) - 1] = '\0';
	/* a(): three launches, two reproduce. */
	v[0].kernel = k1, v[0].demangled = d1, v[0].bytes = 1000, v[0].checked = 1,
	v[0].reproduces = 1, v[0].verdict = yes;
	v[1].kernel = k1, v[1].demangled = d1, v[1].bytes = 500, v[1].checked = 1,
	v[1].reproduces = 0, v[1].verdict = no, v[1].why = why;
	v[2].kernel = k1, v[2].demangled = d1, v[2].bytes = 2, v[2].checked = 1,
	v[2].reproduces = 1, v[2].verdict = yes;
	/* _Z1bv: not checked, no demangled name. */
	v[3].kernel = k2, v[3].bytes = 3000000;
	/* _Z1cv: does not reproduce, a reason past the column. */
	v[4].kernel = k3, v[4].bytes = 16, v[4].checked = 1, v[4].verdict = no,
	v[4].why = long_why;
	ks_elig_table(v, 5, &out);
	line = out.buf;
	CHECK(strncmp(line, "kernel  launches  bytes   reproduces   reason\n", 46) == 0);
	CHECK(strstr(out.buf, "\na()     3         1.5 KB  2 of 3       buffer 1: differs\n"));
	CHECK(strstr(out.buf, "\n_Z1bv   1         3.0 MB  not checked  -\n"));
	CHECK(strstr(out.buf, "\n_Z1cv   1         16 B    no           xxx"));
	/* The reason is cut to 160 columns, ending in "...". */
	CHECK(strstr(out.buf, "xxx...\n"));
	CHECK(!strstr(out.buf, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
			       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
			       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"));
	ks_buf_release(&out);
}

void
ks_suite_eligibility(void)
{
	RUN(verdict_file_round_trip);
	RUN(table_rows_per_kernel);
}
