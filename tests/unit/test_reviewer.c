/*
 * Unit tests of src/review/reviewer.c, the Reviewer as a library call, end
 * to end without a GPU: a capture and a build record written here, an
 * nvcc that only creates its -o file (or fails for the candidate), and a
 * ks-replay that hands back a prepared result (or dies without one). What
 * is checked is what the library adds: the builds, the structured result,
 * the verdict, and review.json kept for the record.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../src/capture/capture.h"
#include "../../src/core/buf.h"
#include "../../src/core/conf.h"
#include "../../src/core/fs.h"
#include "../../src/core/util.h"
#include "../../src/review/metricset.h"
#include "../../src/review/reviewer.h"
#include "test.h"

void ks_suite_reviewer(void);

/* A ks-replay result: `body` between the capture and the verdict. */
#define RESULT(body, verdict)                                               \
	"{\"format\": 1, \"capture\": \"c\", \"kernel\": \"_Z5scalePfi\", "  \
	"\"original\": {\"reproduces\": true, \"why\": null}, " body       \
	"\"verdict\": \"" verdict "\", \"error\": null}\n"

#define TIMING                                                              \
	"\"timing\": {\"original\": {\"n\": 20, \"median_ms\": 2.0, "       \
	"\"lo_ms\": 1.9, \"hi_ms\": 2.1, \"min_ms\": 1.8, \"max_ms\": 2.4}, " \
	"\"candidate\": {\"n\": 20, \"median_ms\": 1.0, \"lo_ms\": 0.95, "   \
	"\"hi_ms\": 1.05, \"min_ms\": 0.9, \"max_ms\": 1.2}, "               \
	"\"verdict\": \"faster\", \"speedup\": 2.0}, "

static char *dir, *capdir, *record, *candidate, *result;

static void
exec_script(const char *name, const char *text)
{
	char *bin = ks_xasprintf("%s/bin", dir), *p = ks_xasprintf("%s/%s", bin, name);

	ks_fs_mkdirs(bin, NULL);
	test_write(bin, name, text);
	chmod(p, 0755);
	free(bin);
	free(p);
}

/* Everything one review needs, in a fresh scratch directory. */
static int
fixture(struct ks_conf *conf, struct ks_buf *err)
{
	char kernel[] = "_Z5scalePfi", demangled[] = "scale(float*, int)";
	char api[] = "cuLaunchKernel", t0[] = "float *", t1[] = "int";
	unsigned char bytes[12] = { 0 };
	struct ks_capture c;
	struct ks_buf rec = KS_BUF_INIT;
	char *path;
	int rc;

	dir = ks_xstrdup(test_tmpdir());
	capdir = ks_xasprintf("%s/cap", dir);
	record = ks_xasprintf("%s/rec.json", dir);
	candidate = ks_xasprintf("%s/cand.cu", dir);
	result = ks_xasprintf("%s/result.json", dir);
	test_write(dir, "k.cu", "__global__ void scale(float *x, int n) {}\n");
	test_write(dir, "cand.cu", "__global__ void scale(float *x, int n) {}\n");
	/* nvcc: creates its -o file; FAKE_CANDIDATE_FAILS fails candidate.so. */
	exec_script("nvcc",
		    "#!/bin/sh\nout=\nprev=\nfor a; do [ \"$prev\" = -o ] && out=$a; prev=$a; done\n"
		    "case $out in *candidate.so) if [ -n \"$FAKE_CANDIDATE_FAILS\" ]; then\n"
		    "echo 'cand.cu(1): error: nope' >&2; exit 2; fi ;; esac\n"
		    ": >\"$out\"\n");
	/* ks-replay: the prepared result into --json, or death without one. */
	exec_script("ks-replay",
		    "#!/bin/sh\nprev=\nfor a; do [ \"$prev\" = --json ] && j=$a; prev=$a; done\n"
		    "[ -n \"$FAKE_REPLAY_ARGS\" ] && echo \"$*\" >>\"$FAKE_REPLAY_ARGS\"\n"
		    "[ -n \"$FAKE_REPLAY_DIES\" ] && exit 3\ncp \"$FAKE_REPLAY_RESULT\" \"$j\"\n");
	path = ks_xasprintf("%s/bin:/usr/bin:/bin", dir);
	setenv("PATH", path, 1);
	free(path);
	setenv("FAKE_REPLAY_RESULT", result, 1);
	ks_buf_addf(&rec, "{\"format\": 1, \"source\": \"%s/k.cu\", \"cwd\": \"%s\", "
		    "\"output\": \"%s/k.o\", \"nvcc\": \"%s/bin/nvcc\", "
		    "\"argv\": [\"-c\", \"k.cu\", \"-o\", \"k.o\"]}\n", dir, dir, dir, dir);
	test_write(dir, "rec.json", rec.buf);
	ks_buf_release(&rec);
	memset(&c, 0, sizeof(c));
	c.kernel = kernel;
	c.demangled = demangled;
	c.api = api;
	c.grid[0] = c.grid[1] = c.grid[2] = 1;
	c.block[0] = 32, c.block[1] = c.block[2] = 1;
	c.launch = 1;
	c.param_size = 12;
	c.param_bytes = bytes;
	c.nparams = 2;
	c.params = ks_xcalloc(2, sizeof(*c.params));
	c.params[0].size = 8;
	c.params[0].type = t0;
	c.params[1].offset = 8;
	c.params[1].size = 4;
	c.params[1].type = t1;
	c.record = record;
	rc = ks_fs_mkdirs(capdir, err) || ks_capture_save(capdir, &c, err);
	free(c.params);
	setenv("KS_DIR", dir, 1);
	unsetenv("KS_CONFIG");
	unsetenv("FAKE_REPLAY_DIES");
	unsetenv("FAKE_CANDIDATE_FAILS");
	ks_conf_init(conf);
	return rc || ks_conf_load(conf, err);
}

static void
fixture_release(struct ks_conf *conf)
{
	ks_conf_release(conf);
	free(dir);
	free(capdir);
	free(record);
	free(candidate);
	free(result);
}

/* Review the candidate (or not) on the fixture's capture. */
static int
review(const struct ks_conf *conf, int with_candidate, struct ks_review_result *r,
       struct ks_buf *err)
{
	struct ks_review_request rq;
	const char *caps[1];

	caps[0] = capdir;
	ks_review_request_init(&rq);
	rq.conf = conf;
	rq.captures = caps;
	rq.ncaptures = 1;
	rq.candidate = with_candidate ? candidate : NULL;
	rq.time = 1;
	return ks_review_run(&rq, r, err);
}

TEST(reviewer_correct_and_faster)
{
	struct ks_conf conf;
	struct ks_buf err = KS_BUF_INIT;
	struct ks_review_result r;
	const struct ks_review_capture *c;

	CHECK_INT_EQ(0, fixture(&conf, &err));
	test_write(dir, "result.json",
		   RESULT("\"candidate\": {\"correct\": true, \"why\": null, "
			  "\"random\": {\"sets\": 3, \"passed\": 3, \"seed\": 1}},\n" TIMING,
			  "correct"));
	CHECK_INT_EQ(0, review(&conf, 1, &r, &err));
	CHECK_INT_EQ(1, (long long)r.n);
	c = &r.per[0];
	CHECK_STR_EQ("correct", ks_review_verdict_name(r.verdict));
	CHECK_INT_EQ(0, ks_review_verdict_exit(r.verdict));
	CHECK(c->reproduces && c->correct);
	CHECK_INT_EQ(3, (long long)c->random_sets);
	CHECK_INT_EQ(3, (long long)c->random_passed);
	CHECK_STR_EQ("faster", c->speed);
	CHECK(c->speedup == 2.0);
	CHECK(c->orig_time.have && c->orig_time.median_ms == 2.0 &&
	      c->orig_time.lo_ms == 1.9 && c->orig_time.hi_ms == 2.1);
	CHECK(c->cand_time.have && c->cand_time.median_ms == 1.0 &&
	      c->cand_time.n == 20);
	CHECK(c->original_so && ks_fs_exists(c->original_so));
	CHECK(c->candidate_so && ks_fs_exists(c->candidate_so));
	CHECK(c->json_path && ks_fs_exists(c->json_path));
	CHECK(c->json && strstr(c->json, "\"speedup\""));
	CHECK_STR_EQ("scale(float*, int)", c->demangled);
	CHECK_NULL(r.why);
	ks_review_result_release(&r);
	ks_buf_release(&err);
	fixture_release(&conf);
}

TEST(reviewer_rejects_what_ks_replay_rejects)
{
	struct ks_conf conf;
	struct ks_buf err = KS_BUF_INIT;
	struct ks_review_result r;

	CHECK_INT_EQ(0, fixture(&conf, &err));
	test_write(dir, "result.json",
		   RESULT("\"candidate\": {\"correct\": false, \"why\": \"b0 element 3 "
			  "differs from the reference\"},\n", "incorrect"));
	CHECK_INT_EQ(0, review(&conf, 1, &r, &err));
	CHECK_STR_EQ("rejected", ks_review_verdict_name(r.verdict));
	CHECK_INT_EQ(1, ks_review_verdict_exit(r.verdict));
	CHECK(r.why && strstr(r.why, "differs from the reference"));
	CHECK(!r.per[0].correct && !r.per[0].cand_time.have);
	ks_review_result_release(&r);
	ks_buf_release(&err);
	fixture_release(&conf);
}

TEST(reviewer_a_candidate_that_does_not_compile)
{
	struct ks_conf conf;
	struct ks_buf err = KS_BUF_INIT;
	struct ks_review_result r;

	CHECK_INT_EQ(0, fixture(&conf, &err));
	setenv("FAKE_CANDIDATE_FAILS", "1", 1);
	CHECK_INT_EQ(0, review(&conf, 1, &r, &err));
	CHECK_STR_EQ("rejected", ks_review_verdict_name(r.verdict));
	CHECK_STR_EQ("compile", r.per[0].stage);
	CHECK(strstr(r.per[0].why, "does not compile"));
	CHECK(r.per[0].build_log && strstr(r.per[0].build_log, "error: nope"));
	CHECK_NULL(r.per[0].json);
	ks_review_result_release(&r);
	ks_buf_release(&err);
	fixture_release(&conf);
}

/* ks-replay dying is the candidate's fault with a candidate, else the review's. */
TEST(reviewer_ks_replay_dies)
{
	struct ks_conf conf;
	struct ks_buf err = KS_BUF_INIT;
	struct ks_review_result r;

	CHECK_INT_EQ(0, fixture(&conf, &err));
	setenv("FAKE_REPLAY_DIES", "1", 1);
	CHECK_INT_EQ(0, review(&conf, 1, &r, &err));
	CHECK_STR_EQ("rejected", ks_review_verdict_name(r.verdict));
	CHECK_STR_EQ("process", r.per[0].stage);
	CHECK(strstr(r.per[0].why, "ended with status 3"));
	ks_review_result_release(&r);
	CHECK_INT_EQ(0, review(&conf, 0, &r, &err));
	CHECK_STR_EQ("error", ks_review_verdict_name(r.verdict));
	CHECK_INT_EQ(105, ks_review_verdict_exit(r.verdict));
	ks_review_result_release(&r);
	ks_buf_release(&err);
	fixture_release(&conf);
}

/* Where the time went: ks-replay's stages and the builds, per capture. */
TEST(reviewer_reports_its_phases)
{
	struct ks_conf conf;
	struct ks_buf err = KS_BUF_INIT;
	struct ks_review_result r;
	const struct ks_review_capture *c;

	CHECK_INT_EQ(0, fixture(&conf, &err));
	test_write(dir, "result.json",
		   RESULT("\"candidate\": {\"correct\": true, \"why\": null},\n" TIMING
			  "\"seconds\": {\"setup\": 1.5, \"original\": 0.25, "
			  "\"candidate\": 0.75, \"random\": 6, \"timing\": 0.5}, "
			  "\"lock_wait_s\": 2,",
			  "correct"));
	CHECK_INT_EQ(0, review(&conf, 1, &r, &err));
	c = &r.per[0];
	CHECK(c->setup_s == 1.5 && c->original_s == 0.25 && c->candidate_s == 0.75);
	CHECK(c->random_s == 6 && c->timing_s == 0.5);
	CHECK(c->metrics_s == 0 && c->ncu_s == 0 && c->sanitizer_s == 0);
	CHECK(c->lock_wait_s >= 2);
	CHECK(c->compile_s >= 0);
	ks_review_result_release(&r);
	ks_buf_release(&err);
	fixture_release(&conf);
}

/* A metrics-only pass: ks-replay asked for the counters of the candidate
 * alone (no fresh sets, no timing), no sanitizer, the counters read. */
TEST(reviewer_metrics_only_pass)
{
	struct ks_conf conf;
	struct ks_buf err = KS_BUF_INIT, args = KS_BUF_INIT;
	struct ks_review_result r;
	struct ks_review_request rq;
	const char *caps[1];
	char *argsf;
	size_t i;
	const struct ks_metric_def *defs;
	size_t n;

	CHECK_INT_EQ(0, fixture(&conf, &err));
	argsf = ks_xasprintf("%s/args", dir);
	setenv("FAKE_REPLAY_ARGS", argsf, 1);
	test_write(dir, "result.json",
		   "{\"format\": 1, \"capture\": \"c\", \"kernel\": \"_Z5scalePfi\", "
		   "\"metrics\": {\"source\": \"cupti-range-profiler\", \"candidate\": "
		   "{\"ranges\": 1, \"dram_pct\": 61.5, \"unavailable\": []}, \"error\": null},\n"
		   " \"measured\": \"candidate\", \"verdict\": \"measured\", \"error\": null, "
		   "\"seconds\": {\"setup\": 2, \"metrics\": 3}}\n");
	caps[0] = capdir;
	ks_review_request_init(&rq);
	rq.conf = &conf;
	rq.captures = caps;
	rq.ncaptures = 1;
	rq.candidate = candidate;
	rq.metrics_only = 1;
	rq.time = 1;		/* ignored: a metrics-only pass times nothing */
	rq.sanitize = 1;	/* ... and sanitizes nothing */
	rq.random = 3;
	CHECK_INT_EQ(0, ks_review_run(&rq, &r, &err));
	CHECK_STR_EQ("correct", ks_review_verdict_name(r.verdict));
	CHECK(!r.per[0].sanitized);
	CHECK(r.per[0].setup_s == 2 && r.per[0].metrics_s == 3);
	defs = ks_metricset(&n);
	for (i = 0; i < n && strcmp(defs[i].name, "dram_pct"); i++)
		;
	CHECK(i < n && r.per[0].cand_metrics.n == n && r.per[0].cand_metrics.have[i] &&
	      r.per[0].cand_metrics.value[i] == 61.5);
	CHECK_INT_EQ(0, ks_fs_read(argsf, &args, &err));
	CHECK(strstr(args.buf, "--metrics-only") != NULL);
	CHECK(strstr(args.buf, "--candidate ") != NULL);
	CHECK_NULL(strstr(args.buf, "--original "));
	CHECK_NULL(strstr(args.buf, "--random"));
	CHECK_NULL(strstr(args.buf, "--time"));
	unsetenv("FAKE_REPLAY_ARGS");
	free(argsf);
	ks_review_result_release(&r);
	ks_buf_release(&args);
	ks_buf_release(&err);
	fixture_release(&conf);
}

/* The original's counters (the seed's review, with metrics): the
 * theoretical occupancy, which the range profiler does not give, from
 * ks-replay's occupancy calculator. */
TEST(reviewer_fills_the_theoretical_occupancy)
{
	struct ks_conf conf;
	struct ks_buf err = KS_BUF_INIT;
	struct ks_review_result r;
	struct ks_review_request rq;
	const char *caps[1];
	const struct ks_metric_def *defs;
	size_t n, th, ach;

	CHECK_INT_EQ(0, fixture(&conf, &err));
	test_write(dir, "result.json",
		   "{\"format\": 1, \"capture\": \"c\", \"kernel\": \"_Z5scalePfi\", "
		   "\"original\": {\"reproduces\": true, \"why\": null, \"registers\": 40, "
		   "\"occupancy\": {\"blocks_per_sm\": 6, \"theoretical_pct\": 75.0}}, "
		   "\"metrics\": {\"source\": \"cupti-range-profiler\", \"original\": "
		   "{\"ranges\": 1, \"achieved_occupancy\": 21.5, \"unavailable\": "
		   "[\"theoretical_occupancy\"]}, \"error\": null},\n"
		   " \"verdict\": \"eligible\", \"error\": null}\n");
	caps[0] = capdir;
	ks_review_request_init(&rq);
	rq.conf = &conf;
	rq.captures = caps;
	rq.ncaptures = 1;
	rq.metrics = 1;
	CHECK_INT_EQ(0, ks_review_run(&rq, &r, &err));
	CHECK_STR_EQ("eligible", ks_review_verdict_name(r.verdict));
	defs = ks_metricset(&n);
	for (th = 0; th < n && strcmp(defs[th].name, "theoretical_occupancy"); th++)
		;
	for (ach = 0; ach < n && strcmp(defs[ach].name, "achieved_occupancy"); ach++)
		;
	CHECK(th < n && ach < n && r.per[0].orig_metrics.n == n);
	CHECK(r.per[0].orig_metrics.have[ach] && r.per[0].orig_metrics.value[ach] == 21.5);
	CHECK(r.per[0].orig_metrics.have[th] && r.per[0].orig_metrics.value[th] == 75.0);
	ks_review_result_release(&r);
	ks_buf_release(&err);
	fixture_release(&conf);
}

void
ks_suite_reviewer(void)
{
	RUN(reviewer_fills_the_theoretical_occupancy);
	RUN(reviewer_correct_and_faster);
	RUN(reviewer_rejects_what_ks_replay_rejects);
	RUN(reviewer_a_candidate_that_does_not_compile);
	RUN(reviewer_ks_replay_dies);
	RUN(reviewer_reports_its_phases);
	RUN(reviewer_metrics_only_pass);
}
