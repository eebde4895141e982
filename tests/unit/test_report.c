/*
 * Unit tests for src/report/: the model from a results JSON and from a
 * trajectory, the terminal table, the HTML page and its pieces (escaping,
 * the line diff, the charts), without any file.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/core/util.h"
#include "../../src/memory/trajectory.h"
#include "../../src/report/report.h"
#include "test.h"

void ks_suite_report(void);

static struct ks_traj_timing
tm(double median, double lo, double hi)
{
	struct ks_traj_timing t = { 1, median, lo, hi };

	return t;
}

static void
add(struct ks_traj *t, int parent, const char *skill, const char *verdict,
    struct ks_traj_timing orig, struct ks_traj_timing cand)
{
	struct ks_traj_round r;

	ks_traj_round_init(&r);
	r.round = (int)t->n;
	r.parent = parent;
	r.phase = ks_xstrdup(parent < 0 ? "seed" : "optimize");
	r.skill = skill ? ks_xstrdup(skill) : NULL;
	r.verdict = ks_xstrdup(verdict);
	r.why = skill ? ks_xstrdup("a <reason> & more") : NULL;
	r.orig = orig;
	r.cand = cand;
	if (parent >= 0 && cand.have)
		r.speedup = orig.median / cand.median;
	r.gpu_ms = 1000;
	ks_traj_push(t, &r);
}

/* seed 10 ms; r1 a: 5 ms (a gain); r2 b: rejected; r3 c on r1: 4 ms. */
static void
sample(struct ks_traj *t)
{
	struct ks_traj_timing none = { 0, 0, 0, 0 };

	add(t, -1, NULL, "eligible", tm(10, 9.9, 10.1), none);
	add(t, 0, "a", "correct", tm(10, 9.9, 10.1), tm(5, 4.9, 5.1));
	add(t, 1, "b", "rejected", tm(10, 9.9, 10.1), none);
	add(t, 1, "c", "correct", tm(10, 9.9, 10.1), tm(4, 3.9, 4.1));
	t->v[1].gain = t->v[3].gain = 1;
}

TEST(escape)
{
	struct ks_buf b = KS_BUF_INIT;

	ks_report_html_escape(&b, "<a href=\"x\">&'");
	CHECK_STR_EQ("&lt;a href=&quot;x&quot;&gt;&amp;&#39;", b.buf);
	ks_buf_release(&b);
}

TEST(diff)
{
	struct ks_buf b = KS_BUF_INIT;
	const char *ctx_a, *del_b, *add_B, *ctx_c, *add_d;

	ks_report_diff_html("a\nb\nc\n", "a\nB\nc\nd <e>\n", &b);
	ctx_a = strstr(b.buf, "<span class=\"ctx\">  a</span>");
	del_b = strstr(b.buf, "<span class=\"del\">- b</span>");
	add_B = strstr(b.buf, "<span class=\"add\">+ B</span>");
	ctx_c = strstr(b.buf, "<span class=\"ctx\">  c</span>");
	add_d = strstr(b.buf, "<span class=\"add\">+ d &lt;e&gt;</span>");
	CHECK(ctx_a && del_b && add_B && ctx_c && add_d);
	/* In order, a removed line before the one that replaces it. */
	CHECK(ctx_a < del_b && del_b < add_B && add_B < ctx_c && ctx_c < add_d);
	ks_buf_release(&b);
}

/* A kernel without a variant says why: its candidates by outcome, the
 * first rejection's stage and reason, how the task ended; one with a
 * variant, or never reviewed, says nothing, and the table then has no
 * heading for it. */
TEST(why_none)
{
	struct ks_report r;
	struct ks_report_kernel *k;
	struct ks_traj_timing none = { 0, 0, 0, 0 };
	struct ks_buf out = KS_BUF_INIT;

	ks_report_init(&r);
	k = ks_report_add(&r);
	k->kernel = ks_xstrdup("atax_kernel1");
	add(&k->traj, -1, NULL, "eligible", tm(10, 9.9, 10.1), none);
	add(&k->traj, 0, "gemv_warp_per_row", "rejected", tm(10, 9.9, 10.1), none);
	k->traj.v[1].stage = ks_xstrdup("random");
	k->traj.v[1].reason = ks_xstrdup("buffer 2: 3 of 4096 f32 elements differ\nmore");
	add(&k->traj, 0, "gemv_warp_per_row", "rejected", tm(10, 9.9, 10.1), none);
	add(&k->traj, 0, "restrict_readonly", "correct", tm(10, 9.9, 10.1), tm(9.9, 9.8, 10));
	add(&k->traj, 0, "improve_coalescing", "declined", none, none);
	add(&k->traj, 0, "increase_ilp", "error", none, none);
	k->traj.v[5].compile = ks_xstrdup("failed");
	k->end = ks_xstrdup("no allowed skill left");
	ks_report_why_none(k, &out);
	CHECK_STR_EQ("atax_kernel1: no variant: 2 rejected, 1 failed to compile, 1 declined, "
		     "1 correct, not faster (best 1.010x); first rejection (gemv_warp_per_row, "
		     "random): buffer 2: 3 of 4096 f32 elements differ; ended: no allowed skill "
		     "left\n", out.buf);
	ks_buf_reset(&out);
	ks_report_text(&r, &out);
	CHECK(strstr(out.buf, "\nwhy no variant:\natax_kernel1: no variant: 2 rejected") != NULL);
	/* verified: nothing to explain */
	ks_buf_reset(&out);
	k->verified = 1;
	ks_report_why_none(k, &out);
	CHECK_INT_EQ(0, (long)out.len);
	ks_report_text(&r, &out);
	CHECK(strstr(out.buf, "why no variant") == NULL);
	/* the seed alone: no step to explain */
	k->verified = 0;
	while (k->traj.n > 1)
		ks_traj_round_release(&k->traj.v[--k->traj.n]);
	ks_buf_reset(&out);
	ks_report_why_none(k, &out);
	CHECK_INT_EQ(0, (long)out.len);
	ks_report_release(&r);
	ks_buf_release(&out);
}

TEST(best_per_round)
{
	struct ks_traj t = { 0 };
	double best[4];

	sample(&t);
	ks_report_best_per_round(&t, 1.05, best);
	CHECK(best[0] == 0);
	CHECK(fabs(best[1] - 2.0) < 1e-9);
	CHECK(fabs(best[2] - 2.0) < 1e-9);
	CHECK(fabs(best[3] - 2.5) < 1e-9);
	/* A gain flag the numbers do not bear out moves nothing. */
	t.v[3].cand = tm(4.95, 4.9, 5.0);
	t.v[3].speedup = 10 / 4.95;
	ks_report_best_per_round(&t, 1.05, best);
	CHECK(fabs(best[3] - 2.0) < 1e-9);
	ks_traj_release(&t);
}

TEST(from_traj)
{
	struct ks_report r;
	struct ks_report_kernel *k, *k2;
	struct ks_report_summary s;
	struct ks_traj_timing none = { 0, 0, 0, 0 };

	ks_report_init(&r);
	k = ks_report_add(&r);
	sample(&k->traj);
	ks_report_kernel_from_traj(k, 1.05);
	CHECK(k->verified);
	CHECK_STR_EQ("a+c", k->skills);
	CHECK(fabs(k->review_speedup - 2.5) < 1e-9);
	CHECK(fabs(k->review_best_ms - 4) < 1e-9);
	CHECK_INT_EQ(3, k->rounds);
	CHECK(fabs(k->gpu_s - 3) < 1e-9 || fabs(k->gpu_s - 4) < 1e-9);
	/* No program ran: no program times, no floors. */
	CHECK(isnan(k->after_ms) && isnan(k->floor_pct_after) && isnan(k->torch_ms));
	k2 = ks_report_add(&r);
	add(&k2->traj, -1, NULL, "eligible", tm(1, 0.9, 1.1), none);
	add(&k2->traj, 0, "a", "rejected", tm(1, 0.9, 1.1), none);
	ks_report_kernel_from_traj(k2, 1.05);
	CHECK(!k2->verified);
	CHECK(isnan(k2->review_speedup));
	ks_report_summarize_tasks(&r, &s);
	CHECK_INT_EQ(2, s.kernels);
	CHECK_INT_EQ(1, s.verified);
	CHECK(fabs(s.mean_speedup - 1.75) < 1e-9);
	CHECK(fabs(s.geomean_speedup - sqrt(2.5)) < 1e-9);
	CHECK(fabs(s.fast_1 - 0.5) < 1e-9 && fabs(s.fast_2 - 0.5) < 1e-9);
	CHECK(isnan(s.geomean_speedup_vs_torch) && isnan(s.geomean_floor_pct_after));
	ks_report_release(&r);
}

static const char RESULTS[] =
	"{\"format\": 1, \"kind\": \"ks-bench\", \"date\": \"2026-12-01\", \"gpu\": \"G<1>\","
	" \"ceilings\": {\"copy_gbps\": 4000, \"sgemm_tflops\": 50},"
	" \"kernels\": ["
	"  {\"program\": \"p\", \"kernel\": \"k<script>\", \"original_ms\": 2.0, \"after_ms\": 1.0,"
	"   \"review_speedup\": 2.0, \"speedup\": 2.0, \"verified\": true, \"in_program\": true,"
	"   \"bytes\": 4e9, \"flops\": 1e9, \"floor_pct_before\": 50, \"floor_pct_after\": 100,"
	"   \"torch_ms\": null, \"rounds\": 3, \"skills\": \"coop_rows\"},"
	"  {\"program\": \"q\", \"kernel\": \"z\", \"original_ms\": 1.0, \"after_ms\": 1.0,"
	"   \"speedup\": 1.0, \"verified\": false, \"bytes\": 4e9, \"flops\": 0,"
	"   \"floor_pct_before\": 25.5, \"floor_pct_after\": 25.0}],"
	" \"summary\": {\"kernels\": 2, \"verified\": 1, \"in_program\": 1, \"wrong\": 0,"
	"   \"success_rate\": 0.5, \"fast_1\": 0.5, \"fast_2\": 0, \"mean_speedup\": 1.5,"
	"   \"geomean_speedup\": 1.414, \"geomean_speedup_vs_torch\": null},"
	" \"ablations\": {\"no-long-term-memory\": {\"summary\": {\"kernels\": 2, \"verified\": 0}}}}";

TEST(parse_text)
{
	struct ks_report r;
	struct ks_buf err = KS_BUF_INIT, out = KS_BUF_INIT;

	ks_report_init(&r);
	CHECK_INT_EQ(0, ks_report_parse_results(RESULTS, &r, &err));
	CHECK_INT_EQ(2, (long)r.n);
	CHECK_STR_EQ("k<script>", r.k[0].kernel);
	CHECK(r.k[0].verified && r.k[0].in_program && !r.k[1].verified);
	CHECK(isnan(r.k[0].torch_ms));		/* null: not measured */
	CHECK(isnan(r.k[1].review_speedup));	/* absent */
	CHECK_INT_EQ(-1, r.k[1].rounds);
	CHECK(r.have_summary && r.s.kernels == 2 && fabs(r.s.mean_speedup - 1.5) < 1e-9);
	CHECK(isnan(r.s.geomean_speedup_vs_torch));
	CHECK_INT_EQ(1, (long)r.nabl);
	CHECK_STR_EQ("no-long-term-memory", r.abl[0].name);
	ks_report_text(&r, &out);
	CHECK(strstr(out.buf, "2.00x") != NULL);
	CHECK(strstr(out.buf, "over Torch eager: mean —, geomean —") != NULL);
	CHECK(strstr(out.buf, "ablation --no-long-term-memory: verified 0 of 2") != NULL);
	ks_buf_reset(&out);
	ks_report_json(&r, &out);
	CHECK(strstr(out.buf, "\"torch_ms\": null") != NULL);
	ks_report_release(&r);
	ks_report_init(&r);
	CHECK_INT_EQ(-1, ks_report_parse_results("{\"kernels\": 3}", &r, &err));
	CHECK(strstr(err.buf, "kernels") != NULL);
	ks_report_release(&r);
	ks_buf_release(&out);
	ks_buf_release(&err);
}

TEST(html)
{
	struct ks_report r;
	struct ks_buf err = KS_BUF_INIT, out = KS_BUF_INIT;

	ks_report_init(&r);
	CHECK_INT_EQ(0, ks_report_parse_results(RESULTS, &r, &err));
	sample(&r.k[0].traj);
	r.k[0].orig_src = ks_xstrdup("__global__ void k(float *x) { x[0] = 1; }\n");
	r.k[0].variant_src = ks_xstrdup("__global__ void k(float *x) { x[0] = 2; }\n");
	ks_report_html(&r, &out);
	/* Escaped everywhere, nothing fetched, no script. */
	CHECK(strstr(out.buf, "<script") == NULL);
	CHECK(strstr(out.buf, "k&lt;script&gt;") != NULL);
	CHECK(strstr(out.buf, "G&lt;1&gt;") != NULL);
	CHECK(strstr(out.buf, "a &lt;reason&gt; &amp; more") != NULL);
	CHECK(strstr(out.buf, "src=") == NULL && strstr(out.buf, "href=\"http") == NULL);
	/* The pieces: summary, kernels, charts (a roofline for the kernel with
	 * FLOPs, % of floor bars for the one without), trail and diff. */
	CHECK(strstr(out.buf, "<table class=\"summary\">") != NULL);
	CHECK(strstr(out.buf, "<tr class=\"kernel\">") != NULL);
	CHECK(strstr(out.buf, "<svg class=\"roofline\"") != NULL);
	CHECK(strstr(out.buf, "<svg class=\"floorbars\"") != NULL);
	CHECK(strstr(out.buf, "<svg class=\"traj\"") != NULL);
	CHECK(strstr(out.buf, "<polyline class=\"best\"") != NULL);
	CHECK(strstr(out.buf, "<table class=\"trail\">") != NULL);
	CHECK(strstr(out.buf, "<span class=\"del\">- __global__ void k(float *x) { x[0] = 1; }") != NULL);
	CHECK(strstr(out.buf, "<tr class=\"ablation\">") != NULL);
	/* The second kernel has no trajectory and no variant: said so. */
	CHECK(strstr(out.buf, "no verified variant") != NULL);
	CHECK(strstr(out.buf, "no trajectory") != NULL);
	ks_report_release(&r);
	ks_buf_release(&out);
	ks_buf_release(&err);
}

void
ks_suite_report(void)
{
	RUN(escape);
	RUN(diff);
	RUN(why_none);
	RUN(best_per_round);
	RUN(from_traj);
	RUN(parse_text);
	RUN(html);
}
