/* Unit tests of vectorize_memory's packed body and group check: the
 * kernels of tests/data/transforms/stream.cu and the bench's softplus are
 * parsed with libclang; on the packed path the bounds comparisons that the
 * group check decided are constants (true where an `if` guards with them,
 * false where an early exit takes them), every other comparison and the
 * scalar body stay as written; the group check is over the flat index
 * where the subject is the global index, over the coordinates where it is
 * not; a negated exit and a switch on a bounds check are declined; the
 * pack loop is 32-bit and the launcher proves it; launch_geometry keeps
 * its 64-bit loop. Without a loadable libclang the tests say why and
 * pass. Running the variants on the CPU against the originals is
 * tests/suites/xf_stream.sh. */
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

void ks_suite_xf_stream(void);

#define DATA "tests/data/transforms"
#define ST DATA "/stream.cu"
#define SP "bench/softplus/main.cu"
#define QT DATA "/quot.cu"
#define BN "bench/conv_norm/main.cu"

static struct xf_file files[] = {
	{ ST, { 0 }, KS_BUF_INIT, 0 },
	{ SP, { 0 }, KS_BUF_INIT, 0 },
	{ QT, { 0 }, KS_BUF_INIT, 0 },
	{ BN, { 0 }, KS_BUF_INIT, 0 },
};
static struct xf_fixture fx = {
	.what = "stream",
	.probe = ST,
	.include = "-Ibench/common",
	.files = files,
	.nfiles = KS_ARRAY_SIZE(files),
};

static enum ks_xf_result
run_xf(const char *skill, const char *file, const char *kernel,
       struct ks_buf *variant, struct ks_buf *reason)
{
	return xf_run(&fx, skill, file, kernel, NULL, variant, reason, NULL);
}

/* The text of the function `ks_<part>_<kernel>(` up to its closing
 * brace at the start of a line, in `out`. */
static int
part(const char *v, const char *prefix, const char *kernel, struct ks_buf *out)
{
	char want[128];
	const char *b, *e;

	snprintf(want, sizeof(want), "\n%s_%s(", prefix, kernel);
	b = strstr(v, want);
	if (!b)
		return -1;
	e = strstr(b, "\n}\n");
	if (!e)
		return -1;
	ks_buf_reset(out);
	ks_buf_add(out, b, (size_t)(e - b) + 2);
	return 0;
}

static const struct {
	const char *kernel;
	const char *packed[3];	/* in the packed body */
	const char *scalar;	/* in the scalar body */
	const char *check[3];	/* in the group check */
} applies[] = {
	{ "guarded",
	  { "if ((true || (i < n))) {",
	    "(v > 0.5f ? v : log1pf(expf(v))) * (m > 0 ? 1.0f : 0.5f)", NULL },
	  "if (i < n) {",
	  { "return (((0LL) + (1LL) * (long long)ks_i) < ((1LL * (long long)(n))));",
	    NULL, NULL } },
	{ "early_exit",
	  { "if ((false && (i >= n)))\n\t\treturn;", NULL, NULL },
	  "if (i >= n)\n\t\treturn;",
	  { "return !(((0LL) + (1LL) * (long long)ks_i) >= ((1LL * (long long)(n))));",
	    NULL, NULL } },
	{ "two_guards",
	  { "if ((true || (i < n)) && (true || (i < m)))", NULL, NULL },
	  "if (i < n && i < m)",
	  { "(((0LL) + (1LL) * (long long)ks_i) < ((1LL * (long long)(n)))) &&",
	    "(((0LL) + (1LL) * (long long)ks_i) < ((1LL * (long long)(m))));", NULL } },
	{ "either_exit",
	  { "if ((false && (i >= n)) || (false && (i + 2 >= m)))", NULL, NULL },
	  "if (i >= n || i + 2 >= m)",
	  { "!(((0LL) + (1LL) * (long long)ks_i) >= ((1LL * (long long)(n)))) &&",
	    "!(((2LL) + (1LL) * (long long)ks_i) >= ((1LL * (long long)(m))));", NULL } },
	{ "block_part",
	  { "if ((true || (threadIdx.x < 192)) && (true || (i < n)))",
	    "(ks_v1[ks_j]) = (true || (i < m)) ? (ks_v0[ks_j]) : 0.0f;", NULL },
	  "y[i] = i < m ? x[i] : 0.0f;",
	  { "(((0LL) + (1LL) * (long long)ks_tx) < ((192LL))) &&",
	    "(((0LL) + (1LL) * (long long)ks_i) < ((1LL * (long long)(n)))) &&", NULL } },
	{ "softplus_kernel",
	  { "if ((true || (i < n))) {",
	    "(ks_v1[ks_j]) = v > 20.0f ? v : log1pf(expf(v));", NULL },
	  "if (i < n) {",
	  { "return (((0LL) + (1LL) * (long long)ks_i) < ((1LL * (long long)(n))));",
	    NULL, NULL } },
};

/* The packed body has the decided comparisons as constants, and only
 * those; the scalar body is the original's. */
TEST(packed_body_has_the_decided_bounds_as_constants)
{
	if (!xf_setup(&fx))
		SKIP("no libclang, or the suite's data is missing");
	for (size_t i = 0; i < KS_ARRAY_SIZE(applies); i++) {
		struct ks_buf v = KS_BUF_INIT, r = KS_BUF_INIT, b = KS_BUF_INIT;
		const char *k = applies[i].kernel;
		const char *f = strcmp(k, "softplus_kernel") ? ST : SP;
		enum ks_xf_result res = run_xf("vectorize_memory", f, k, &v, &r);
		size_t j;

		if (res != KS_XF_APPLIED) {
			TEST_FAIL_("%s: result %d, reason '%s'", k, (int)res, r.buf);
			ks_buf_release(&v);
			ks_buf_release(&r);
			return;
		}
		CHECK(part(v.buf, "ks_vb", k, &b) == 0);
		for (j = 0; j < 3 && applies[i].packed[j]; j++)
			if (!strstr(b.buf, applies[i].packed[j]))
				TEST_FAIL_("%s: packed body lacks '%s':\n%s", k,
					   applies[i].packed[j], b.buf);
		/* no comparison on loaded data or a parameter became one */
		CHECK(!strstr(b.buf, "|| (v >") && !strstr(b.buf, "|| (m >"));
		CHECK(part(v.buf, "ks_sb", k, &b) == 0);
		CHECK(strstr(b.buf, applies[i].scalar));
		CHECK(!strstr(b.buf, "true ||") && !strstr(b.buf, "false &&"));
		CHECK(part(v.buf, "ks_in", k, &b) == 0);
		for (j = 0; j < 3 && applies[i].check[j]; j++)
			if (!strstr(b.buf, applies[i].check[j]))
				TEST_FAIL_("%s: group check lacks '%s':\n%s", k,
					   applies[i].check[j], b.buf);
		/* the flat index is the pack's first element, then its last */
		CHECK(strstr(v.buf, "(ks_t32, ks_tx, ks_bx, ks_ob, ks_og"));
		CHECK(strstr(v.buf, "(ks_t32 + 3, ks_tx + 3, ks_bx, ks_ob, ks_og"));
		ks_buf_release(&v);
		ks_buf_release(&r);
		ks_buf_release(&b);
	}
}

/* An exit the facts cannot tell from its opposite, and a bounds check
 * that chooses a switch's case, are declined. */
TEST(negated_exit_is_declined)
{
	struct ks_buf v = KS_BUF_INIT, r = KS_BUF_INIT;

	if (!xf_setup(&fx))
		SKIP("no libclang, or the suite's data is missing");
	CHECK_INT_EQ(KS_XF_DECLINED, run_xf("vectorize_memory", ST, "negated_exit",
					    &v, &r));
	CHECK(strstr(r.buf, "does not decide its early exit"));
	CHECK(v.len == 0);
	ks_buf_reset(&r);
	CHECK_INT_EQ(KS_XF_DECLINED, run_xf("vectorize_memory", ST, "switch_guard",
					    &v, &r));
	CHECK(strstr(r.buf, "chooses a switch's case"));
	CHECK(v.len == 0);
	ks_buf_release(&v);
	ks_buf_release(&r);
}

/* The pack loop is 32-bit, its range proved by the launcher (four lanes,
 * one pack, 256 threads: 0xffffffff - 1024); launch_geometry's loop
 * over single threads stays 64-bit with the 2^32 bound. */
TEST(loop_index_width_follows_the_launchers_bound)
{
	struct ks_buf v = KS_BUF_INIT, r = KS_BUF_INIT;

	if (!xf_setup(&fx))
		SKIP("no libclang, or the suite's data is missing");
	CHECK_INT_EQ(KS_XF_APPLIED, run_xf("vectorize_memory", ST, "guarded", &v, &r));
	CHECK(strstr(v.buf, "\tfor (unsigned ks_g0 = blockIdx.x * 256 + threadIdx.x;\n"));
	CHECK(strstr(v.buf, "(unsigned long long)grid.x * block.x > 0xfffffbffULL"));
	CHECK(!strstr(v.buf, "unsigned long long ks_g0"));
	ks_buf_reset(&v);
	CHECK_INT_EQ(KS_XF_APPLIED, run_xf("launch_geometry", ST, "guarded", &v, &r));
	CHECK(strstr(v.buf, "for (unsigned long long ks_g0 = (unsigned long long)blockIdx.x"));
	CHECK(strstr(v.buf, "(unsigned long long)grid.x * block.x > 0xffffffffULL"));
	CHECK(!strstr(v.buf, "true ||"));
	ks_buf_release(&v);
	ks_buf_release(&r);
}

/* The launcher takes 1-D launches only: given captured launches that are
 * all 2-D, both transforms decline and name the first; one 1-D launch
 * among them is enough. */
TEST(two_d_captured_launches_are_declined)
{
	const struct ks_xf_launch l[2] = {
		{ { 8, 4, 1 }, { 32, 8, 1 } },
		{ { 64, 1, 1 }, { 256, 1, 1 } },
	};
	struct ks_buf v = KS_BUF_INIT, r = KS_BUF_INIT;

	if (!xf_setup(&fx))
		SKIP("no libclang, or the suite's data is missing");
	fx.launches = l;
	fx.nlaunches = 1;
	CHECK_INT_EQ(KS_XF_DECLINED, run_xf("vectorize_memory", ST, "guarded", &v, &r));
	CHECK_STR_EQ("no captured launch fits the variant (1-D in x): the first has grid "
		     "8x4x1, block 32x8x1, for which it would launch the original", r.buf);
	ks_buf_reset(&r);
	CHECK_INT_EQ(KS_XF_DECLINED, run_xf("launch_geometry", ST, "guarded", &v, &r));
	fx.nlaunches = 2;
	CHECK_INT_EQ(KS_XF_APPLIED, run_xf("vectorize_memory", ST, "guarded", &v, &r));
	fx.launches = NULL;
	fx.nlaunches = 0;
	ks_buf_release(&v);
	ks_buf_release(&r);
}

/* The analysis gives each written comparison its bytes and its join:
 * both for a whole condition, && or || inside one, none under `!`. */
TEST(analysis_records_comparison_bytes_and_join)
{
	struct xf_file *p;
	const struct {
		const char *kernel, *text;
		unsigned joined;
	} want[] = {
		{ "guarded", "i < n", KS_BRJ_AND | KS_BRJ_OR },
		{ "guarded", "v > 0.5f", KS_BRJ_AND | KS_BRJ_OR },
		{ "two_guards", "i < m", KS_BRJ_AND },
		{ "either_exit", "i + 2 >= m", KS_BRJ_OR },
		{ "negated_exit", "i < n", 0 },
	};

	if (!xf_setup(&fx))
		SKIP("no libclang, or the suite's data is missing");
	p = xf_parse(&fx, ST);
	CHECK(p);
	for (size_t i = 0; i < KS_ARRAY_SIZE(want); i++) {
		const struct ks_kernel *k = ks_inventory_find(&p->inv, want[i].kernel);
		size_t j, found = 0;

		CHECK(k);
		for (j = 0; j < k->facts.nbranches; j++) {
			const struct ks_branch *b = &k->facts.branches[j];
			size_t n = strlen(want[i].text);

			if (!b->in_main || b->end - b->begin != n ||
			    memcmp(p->text.buf + b->begin, want[i].text, n))
				continue;
			found++;
			CHECK_INT_EQ((int)want[i].joined, (int)b->joined);
		}
		if (found != 1)
			TEST_FAIL_("%s: '%s' found %zu times", want[i].kernel,
				   want[i].text, found);
	}
}

/*
 * Group quotients: a division of the flat index by a uniform value
 * (bench batchnorm's `i / hw`, quot.cu's `i / (H * W)`) is the group's
 * quotient in the packed body, once per group in the helper, and the
 * launcher requires the divisor to be a multiple of the lanes; the scalar
 * body keeps the division. A thread-dependent divisor stays per lane with
 * a note; a quotient that indexes the store is declined as before.
 */
TEST(group_quotients_in_the_packed_body)
{
	static const struct {
		const char *file, *kernel, *packed, *den;
	} cases[] = {
		{ BN, "batchnorm_kernel",
		  "int k = (int)((((decltype(i / hw))((void)(i / hw), ks_gq0))) % K);",
		  "((1LL * (long long)(hw)))" },
		{ QT, "bn_planes",
		  "int c = ((decltype(i / (H * W)))((void)(i / (H * W)), ks_gq0)) % K;",
		  "((1LL * (long long)(H) * (long long)(W)))" },
	};
	struct ks_buf v = KS_BUF_INIT, r = KS_BUF_INIT, b = KS_BUF_INIT;
	struct ks_buf want = KS_BUF_INIT;

	if (!xf_setup(&fx))
		SKIP("no libclang, or the suite's data is missing");
	for (size_t i = 0; i < KS_ARRAY_SIZE(cases); i++) {
		ks_buf_reset(&v);
		ks_buf_reset(&r);
		CHECK_INT_EQ(KS_XF_APPLIED, run_xf("vectorize_memory", cases[i].file,
						   cases[i].kernel, &v, &r));
		if (!v.buf)
			continue;
		CHECK(part(v.buf, "ks_vb", cases[i].kernel, &b) == 0);
		CHECK(strstr(b.buf, cases[i].packed) != NULL);
		CHECK(strstr(b.buf, "const unsigned ks_gq0") != NULL);
		CHECK(part(v.buf, "ks_sb", cases[i].kernel, &b) == 0);
		CHECK(strstr(b.buf, "ks_gq") == NULL);
		CHECK(strstr(v.buf, "const unsigned ks_gq0 = ks_t32 / ks_qd0;") != NULL);
		ks_buf_reset(&want);
		ks_buf_addf(&want, "const unsigned ks_qd0 = (unsigned)%s;", cases[i].den);
		CHECK(strstr(v.buf, want.buf) != NULL);
		ks_buf_reset(&want);
		ks_buf_addf(&want, "%s <= 0 || %s > 0x7fffffffLL ||\n\t    %s %% 4 != 0) {",
			    cases[i].den, cases[i].den, cases[i].den);
		CHECK(strstr(v.buf, want.buf) != NULL);
	}
	/* a divisor on the thread: per lane, said why, no check */
	ks_buf_reset(&v);
	ks_buf_reset(&r);
	CHECK_INT_EQ(KS_XF_APPLIED, run_xf("vectorize_memory", QT, "thread_div", &v, &r));
	if (v.buf) {
		CHECK(strstr(v.buf, "// per lane: the division at line") != NULL);
		CHECK(strstr(v.buf, "ks_gq") == NULL);
		CHECK(strstr(v.buf, "% 4 != 0) {") == NULL);
	}
	/* the quotient indexes the store: declined as before */
	ks_buf_reset(&v);
	ks_buf_reset(&r);
	CHECK_INT_EQ(KS_XF_DECLINED, run_xf("vectorize_memory", QT, "quot_store", &v, &r));
	CHECK(r.buf && strstr(r.buf, "no streamed pointer is stored") != NULL);
	/* a kernel without a division is emitted without any of it */
	ks_buf_reset(&v);
	ks_buf_reset(&r);
	CHECK_INT_EQ(KS_XF_APPLIED, run_xf("vectorize_memory", ST, "guarded", &v, &r));
	CHECK(v.buf && strstr(v.buf, "ks_gq") == NULL && strstr(v.buf, "per lane") == NULL);
	ks_buf_release(&v);
	ks_buf_release(&r);
	ks_buf_release(&b);
	ks_buf_release(&want);
}

void
ks_suite_xf_stream(void)
{
	RUN(packed_body_has_the_decided_bounds_as_constants);
	RUN(negated_exit_is_declined);
	RUN(loop_index_width_follows_the_launchers_bound);
	RUN(two_d_captured_launches_are_declined);
	RUN(analysis_records_comparison_bytes_and_join);
	RUN(group_quotients_in_the_packed_body);
	xf_teardown(&fx);
}
