/*
 * ks replay: the Reviewer (review/reviewer.h) on one capture, from the
 * command line: this file parses argv into a review request and prints the
 * result; every decision is the library's.
 *
 *   ks replay CAPTURE [--candidate FILE.cu] [--launcher] [--record R]
 *             [--types 'T1;T2;...'] [--random K] [--seed S] [--time]
 *             [--metrics] [--ncu] [--sanitize] [--json]
 *   ks shim --capture CAPTURE [--include FILE] [--launcher]
 *   ks shim [--include FILE] [--launcher|--cooperative] KERNEL [SIZE[:TYPE]]...
 *
 * CAPTURE is a capture directory, or <kernel>/<n> under KS_DIR/captures, or
 * <kernel> (its directory name or mangled name): every capture of it, so a
 * candidate is verified on each shape captured (--json then prints an
 * array, one result per capture). --types gives the parameters' spelled
 * types (';' between them) where the capture has none (no analysis).
 * --ncu takes the metrics from ncu even where the CUPTI Range Profiler
 * works (to compare the two).
 * Exit status of ks replay: 0 when the original reproduces its capture and
 * the candidate (if any) is correct; 1 when the capture is ineligible or the
 * candidate is rejected (does not compile, fails a rule, faults, hangs, or
 * the sanitizer finds an error); 105 when the review itself could not run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../capture/capture.h"
#include "../core/buf.h"
#include "../core/conf.h"
#include "../core/json.h"
#include "../core/strv.h"
#include "../core/util.h"
#include "../review/reviewer.h"
#include "../review/shim.h"
#include "ks.h"

#define REPLAY_USAGE                                                          \
	"usage: ks replay CAPTURE [--candidate FILE.cu] [--launcher] [--record R]\n" \
	"                 [--types 'T1;T2;...'] [--random K] [--seed S] [--time]\n" \
	"                 [--metrics] [--ncu] [--sanitize] [--json]\n"

#define SHIM_USAGE                                                            \
	"usage: ks shim --capture CAPTURE [--include FILE] [--launcher]\n"     \
	"       ks shim [--include FILE] [--launcher|--cooperative] KERNEL\n"  \
	"               [SIZE[:TYPE]]...\n"

static void
print_timing_side(const char *label, const cJSON *t)
{
	if (!t)
		return;
	printf("%s %.4f ms [%.4f, %.4f] over %.0f runs", label,
	       ks_json_num(t, "median_ms"), ks_json_num(t, "lo_ms"),
	       ks_json_num(t, "hi_ms"), ks_json_num(t, "n"));
}

static void
print_metrics_side(const char *label, const cJSON *s)
{
	static const char *const keys[] = { "duration_ns", "dram_pct", "l2_pct",
					    "sm_pct", "achieved_occupancy" };
	size_t i;

	if (!cJSON_IsObject(s))
		return;
	printf("          %s:", label);
	for (i = 0; i < KS_ARRAY_SIZE(keys); i++)
		if (cJSON_HasObjectItem(s, keys[i]))
			printf(" %s %.4g", keys[i], ks_json_num(s, keys[i]));
	printf("\n");
}

/* The review JSON as lines for people. */
static void
print_summary(const cJSON *res, const struct ks_review_capture *c)
{
	const cJSON *orig = cJSON_GetObjectItemCaseSensitive(res, "original");
	const cJSON *cand = cJSON_GetObjectItemCaseSensitive(res, "candidate");
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(res, "timing");
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(res, "metrics");
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(res, "sanitize");
	const cJSON *rnd = cand ? cJSON_GetObjectItemCaseSensitive(cand, "random") : NULL;
	const char *err = ks_json_str(res, "error");

	printf("kernel    %s (launch %lu, grid %ux%ux%u, block %ux%ux%u)\n",
	       c->demangled ? c->demangled : c->kernel, c->launch, c->grid[0],
	       c->grid[1], c->grid[2], c->block[0], c->block[1], c->block[2]);
	if (orig)
		printf("original  %s\n", ks_json_true(orig, "reproduces") ?
			       "reproduces the captured outputs" :
			       ks_json_str(orig, "why") ? ks_json_str(orig, "why") : "?");
	if (cand) {
		if (ks_json_true(cand, "correct"))
			printf("candidate correct on the captured inputs%s\n",
			       rnd ? " and on fresh input sets" : "");
		else
			printf("candidate rejected: %s\n", ks_json_str(cand, "why") ?
			       ks_json_str(cand, "why") : "?");
	}
	if (t) {
		printf("timing    ");
		print_timing_side("original", cJSON_GetObjectItemCaseSensitive(t, "original"));
		if (cJSON_HasObjectItem(t, "candidate")) {
			printf("\n          ");
			print_timing_side("candidate",
					  cJSON_GetObjectItemCaseSensitive(t, "candidate"));
			printf("\n          %s, speedup %.3fx", ks_json_str(t, "verdict"),
			       ks_json_num(t, "speedup"));
		}
		printf("\n");
	}
	if (m) {
		const char *src = ks_json_str(m, "source"), *e = ks_json_str(m, "error");

		printf("metrics   %s%s%s\n", src ? src : "?", e ? ": " : "", e ? e : "");
		print_metrics_side("original", cJSON_GetObjectItemCaseSensitive(m, "original"));
		print_metrics_side("candidate", cJSON_GetObjectItemCaseSensitive(m, "candidate"));
	}
	if (s) {
		const cJSON *mc = cJSON_GetObjectItemCaseSensitive(s, "memcheck");
		const cJSON *rc = cJSON_GetObjectItemCaseSensitive(s, "racecheck");

		printf("sanitize  memcheck %s (%.1f s), racecheck %s",
		       ks_json_true(mc, "clean") ? "clean" : "FOUND ERRORS",
		       ks_json_num(mc, "seconds"),
		       ks_json_true(rc, "clean") ? "clean" : "FOUND ERRORS");
		if (cJSON_HasObjectItem(rc, "seconds"))
			printf(" (%.1f s)", ks_json_num(rc, "seconds"));
		printf("\n");
	}
	if (err)
		printf("error     (%s) %s\n", ks_json_str(res, "stage") ?
		       ks_json_str(res, "stage") : "?", err);
	printf("verdict   %s\n", ks_json_str(res, "verdict") ?
	       ks_json_str(res, "verdict") : "error");
}

/* One capture's review on stdout (stderr for an error before ks-replay). */
static void
print_capture(const struct ks_review_capture *c, int json)
{
	cJSON *res;

	if (!c->json) {
		if (c->stage && !strcmp(c->stage, "compile")) {
			printf("candidate rejected: %s\n%s", c->why,
			       c->build_log ? c->build_log : "");
			return;
		}
		if (c->build_log)
			fprintf(stderr, "%s", c->build_log);
		fprintf(stderr, "ks: error: %s\n", c->why ? c->why : "unknown failure");
		return;
	}
	if (json) {
		printf("%s\n", c->json);
		return;
	}
	res = cJSON_Parse(c->json);
	print_summary(res, c);
	cJSON_Delete(res);
}

int
ks_cmd_replay(int argc, char **argv, struct ks_conf *conf)
{
	struct ks_review_request rq;
	struct ks_review_result res;
	struct ks_buf err = KS_BUF_INIT;
	const char *arg = NULL;
	struct ks_strv dirs = KS_STRV_INIT;
	int json = 0, i, rc = KS_EXIT_USAGE;
	size_t k;

	ks_review_request_init(&rq);
	ks_review_result_init(&res);
	rq.conf = conf;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--launcher"))
			rq.launcher = 1;
		else if (!strcmp(a, "--json"))
			json = 1;
		else if (!strcmp(a, "--time"))
			rq.time = 1;
		else if (!strcmp(a, "--metrics"))
			rq.metrics = 1;
		else if (!strcmp(a, "--sanitize"))
			rq.sanitize = 1;
		else if (!strcmp(a, "--ncu"))
			rq.ncu = 1;
		else if (v && !strcmp(a, "--candidate"))
			rq.candidate = v, i++;
		else if (v && !strcmp(a, "--record"))
			rq.record = v, i++;
		else if (v && !strcmp(a, "--types"))
			rq.types = v, i++;
		else if (v && (!strcmp(a, "--random") || !strcmp(a, "--seed"))) {
			char *end;
			unsigned long n = strtoul(v, &end, 10);

			if (*end || end == v || *v == '-') {
				fputs(REPLAY_USAGE, stderr);
				goto out;
			}
			if (!strcmp(a, "--random"))
				rq.random = n;
			else
				rq.seed = n;
			i++;
		} else if (a[0] != '-' && !arg)
			arg = a;
		else {
			fprintf(stderr, "ks: error: unexpected '%s'\n%s", a, REPLAY_USAGE);
			goto out;
		}
	}
	if (!arg) {
		fputs(REPLAY_USAGE, stderr);
		goto out;
	}
	rc = KS_EXIT_FAILED;
	if (!ks_capture_find_all(conf->dir, arg, &dirs)) {
		fprintf(stderr, "ks: error: no capture '%s' (see 'ks captures')\n", arg);
		goto out;
	}
	rq.captures = (const char *const *)dirs.v;
	rq.ncaptures = dirs.n;
	if (ks_review_run(&rq, &res, &err)) {
		fprintf(stderr, "ks: error: %s\n", err.buf);
		goto out;
	}
	if (res.n > 1 && json)
		printf("[\n");
	for (k = 0; k < res.n; k++) {
		if (res.n > 1 && !json)
			printf("%scapture %zu of %zu: %s\n", k ? "\n" : "", k + 1, res.n,
			       dirs.v[k]);
		print_capture(&res.per[k], json);
		if (res.n > 1 && json && k + 1 < res.n)
			printf(",\n");
	}
	if (res.n > 1 && !json)
		printf("\nverdict over %zu captures: %s\n", res.n,
		       ks_review_verdict_name(res.verdict));
	if (res.n > 1 && json)
		printf("]\n");
	rc = ks_review_verdict_exit(res.verdict);
out:
	ks_review_result_release(&res);
	ks_buf_release(&err);
	ks_strv_release(&dirs);
	return rc;
}

int
ks_cmd_shim(int argc, char **argv, struct ks_conf *conf)
{
	const char *include = NULL, *cap = NULL, *kernel = NULL;
	struct ks_shim_param *params = ks_xcalloc((size_t)argc + 1, sizeof(*params));
	struct ks_buf out = KS_BUF_INIT, err = KS_BUF_INIT;
	struct ks_capture c;
	struct ks_shim s;
	size_t n = 0;
	int i, rc = KS_EXIT_USAGE, launcher = 0, coop = 0;
	char *dir = NULL, *callable = NULL;

	memset(&c, 0, sizeof(c));
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--launcher")) {
			launcher = 1;
		} else if (!strcmp(a, "--cooperative")) {
			coop = 1;
		} else if (v && !strcmp(a, "--include")) {
			include = v, i++;
		} else if (v && !strcmp(a, "--capture")) {
			cap = v, i++;
		} else if (a[0] == '-' || (cap && !kernel)) {
			fputs(SHIM_USAGE, stderr);
			goto out;
		} else if (!kernel) {
			kernel = a;
		} else {
			char *end;
			unsigned long size = strtoul(a, &end, 10);

			if (end == a || (*end && *end != ':')) {
				fputs(SHIM_USAGE, stderr);
				goto out;
			}
			params[n].size = size;
			params[n++].type = *end == ':' ? end + 1 : NULL;
		}
	}
	rc = KS_EXIT_FAILED;
	if (cap) {
		dir = ks_capture_find(conf->dir, cap);
		if (!dir) {
			fprintf(stderr, "ks: error: no capture '%s'\n", cap);
			goto out;
		}
		if (ks_capture_load(dir, &c, &err))
			goto fail;
		callable = ks_capture_callable(c.demangled);
		if (!callable) {
			ks_error(&err, "no demangled name in %s", dir);
			goto fail;
		}
		if (ks_shim_for_capture(&c, callable, include, launcher, &out, &err))
			goto fail;
	} else {
		if (!kernel) {
			fputs(SHIM_USAGE, stderr);
			rc = KS_EXIT_USAGE;
			goto out;
		}
		memset(&s, 0, sizeof(s));
		s.include = include;
		s.kernel = kernel;
		s.params = params;
		s.nparams = n;
		s.launcher = launcher;
		s.cooperative = coop;
		if (ks_shim_generate(&s, &out, &err))
			goto fail;
	}
	fputs(out.buf, stdout);
	rc = 0;
	goto out;
fail:
	fprintf(stderr, "ks: error: %s\n", err.buf);
out:
	ks_capture_release(&c);
	ks_buf_release(&out);
	ks_buf_release(&err);
	free(params);
	free(dir);
	free(callable);
	return rc;
}
