/*
 * ks replay: the Reviewer on one capture. Builds the kernel's TU (and a
 * candidate TU) with an entry shim into shared objects, runs ks-replay
 * with a time limit, falls back to ncu for the metrics, runs the candidate
 * under compute-sanitizer on request, and reports.
 *
 *   ks replay CAPTURE [--candidate FILE.cu] [--launcher] [--record R]
 *             [--types 'T1;T2;...'] [--random K] [--seed S] [--time]
 *             [--metrics] [--ncu] [--sanitize] [--json]
 *   ks shim --capture CAPTURE [--include FILE] [--launcher]
 *   ks shim [--include FILE] [--launcher|--cooperative] KERNEL [SIZE[:TYPE]]...
 *
 * CAPTURE is a capture directory, or <kernel>/<n> or <kernel> (its newest
 * capture) under KS_DIR/captures. --types gives the parameters' spelled
 * types (';' between them) where the capture has none (no analysis).
 * --ncu takes the metrics from ncu even where the CUPTI Range Profiler
 * works (to compare the two).
 * Exit status of ks replay: 0 when the original reproduces its capture and
 * the candidate (if any) is correct; 1 when the capture is ineligible or the
 * candidate is rejected (does not compile, fails a rule, faults, hangs, or
 * the sanitizer finds an error); 105 when the review itself could not run.
 */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../capture/capture.h"
#include "../core/buf.h"
#include "../core/conf.h"
#include "../core/fs.h"
#include "../core/log.h"
#include "../core/proc.h"
#include "../core/strv.h"
#include "../core/util.h"
#include "../review/build.h"
#include "../review/review.h"
#include "../review/shim.h"
#include "../review/tolerance.h"
#include "ks.h"

#define REPLAY_USAGE                                                          \
	"usage: ks replay CAPTURE [--candidate FILE.cu] [--launcher] [--record R]\n" \
	"                 [--types 'T1;T2;...'] [--random K] [--seed S] [--time]\n" \
	"                 [--metrics] [--ncu] [--sanitize] [--json]\n"

#define SHIM_USAGE                                                            \
	"usage: ks shim --capture CAPTURE [--include FILE] [--launcher]\n"     \
	"       ks shim [--include FILE] [--launcher|--cooperative] KERNEL\n"  \
	"               [SIZE[:TYPE]]...\n"

/* The capture directory CAPTURE names. */
static char *
capture_dir(const struct ks_conf *conf, const char *arg)
{
	char *p = ks_fs_join(arg, "launch.json"), *base, *kdir, *best = NULL;
	unsigned long best_n = 0;
	struct dirent *de;
	DIR *d;

	if (ks_fs_exists(p)) {
		free(p);
		return ks_fs_realpath(arg);
	}
	free(p);
	base = ks_fs_join(conf->dir, "captures");
	kdir = ks_fs_join(base, arg);
	p = ks_fs_join(kdir, "launch.json");
	if (ks_fs_exists(p)) {
		free(base);
		free(p);
		return kdir;
	}
	free(p);
	d = opendir(kdir);
	while (d && (de = readdir(d))) {
		char *end;
		unsigned long n = strtoul(de->d_name, &end, 10);

		if (*end || end == de->d_name || n <= best_n)
			continue;
		free(best);
		best = ks_fs_join(kdir, de->d_name);
		best_n = n;
	}
	if (d)
		closedir(d);
	free(base);
	free(kdir);
	return best;
}

static int
conf_tolerances(const struct ks_conf *conf, struct ks_tol *tol, struct ks_buf *err)
{
	const struct {
		const char *text, *name;
		enum ks_dtype d;
	} items[] = {
		{ conf->tol_f64, "tol_f64", KS_DTYPE_F64 },
		{ conf->tol_f32, "tol_f32", KS_DTYPE_F32 },
		{ conf->tol_f16, "tol_f16", KS_DTYPE_F16 },
		{ conf->tol_bf16, "tol_bf16", KS_DTYPE_BF16 },
	};
	size_t i;

	ks_tol_defaults(tol);
	for (i = 0; i < KS_ARRAY_SIZE(items); i++) {
		if (items[i].text && *items[i].text &&
		    ks_tol_parse(items[i].text, &tol[items[i].d], err))
			return ks_error(err, "in %s", items[i].name);
	}
	return 0;
}

/* --types: ';'-separated spellings, one per parameter. */
static int
apply_types(struct ks_capture *c, const char *list, struct ks_buf *err)
{
	struct ks_strv t = KS_STRV_INIT;
	const char *p = list;
	int rc = 0;

	while (*p) {
		size_t n = strcspn(p, ";");
		char *one = ks_xstrndup(p, n);

		ks_strv_push_owned(&t, one);
		p += n + (p[n] == ';');
	}
	if (t.n != c->nparams)
		rc = ks_error(err, "--types: %zu types for %zu parameters", t.n,
			      c->nparams);
	else
		ks_capture_apply_types(c, (const char *const *)t.v, t.n);
	ks_strv_release(&t);
	return rc;
}

/* The shim for `c`, including `include`. */
static int
shim_for(const struct ks_capture *c, const char *callable, const char *include,
	 int launcher, struct ks_buf *out, struct ks_buf *err)
{
	struct ks_shim_param *params = ks_xcalloc(c->nparams + 1, sizeof(*params));
	struct ks_shim s;
	size_t i;
	int rc;

	for (i = 0; i < c->nparams; i++) {
		params[i].type = c->params[i].type;
		params[i].size = c->params[i].size;
	}
	memset(&s, 0, sizeof(s));
	s.include = include;
	s.kernel = callable;
	s.params = params;
	s.nparams = c->nparams;
	s.launcher = launcher;
	s.cooperative = c->cooperative && !launcher;
	rc = ks_shim_generate(&s, out, err);
	free(params);
	return rc;
}

/* Does the candidate source define the launcher for `callable`? */
static int
has_launcher(const char *path, const char *callable)
{
	struct ks_buf text = KS_BUF_INIT, name = KS_BUF_INIT;
	const char *base = strrchr(callable, ':');
	int found = 0;

	base = base ? base + 1 : callable;
	ks_buf_addf(&name, "ks_launch_%.*s", (int)strcspn(base, "<"), base);
	text.max = 64 << 20;
	if (!ks_fs_read(path, &text, NULL)) {
		const char *p = text.buf;

		while (!found && (p = strstr(p, name.buf))) {
			char next = p[name.len];

			found = !(next == '_' || (next >= 'a' && next <= 'z') ||
				  (next >= 'A' && next <= 'Z') ||
				  (next >= '0' && next <= '9'));
			p += name.len;
		}
	}
	ks_buf_release(&text);
	ks_buf_release(&name);
	return found;
}

static char *
find_tool(const char *name)
{
	const char *home = getenv("CUDA_HOME");
	char *p;

	if (home && *home) {
		p = ks_xasprintf("%s/bin/%s", home, name);
		if (ks_fs_is_exec(p))
			return p;
		free(p);
	}
	p = ks_xasprintf("/usr/local/cuda/bin/%s", name);
	if (ks_fs_is_exec(p))
		return p;
	free(p);
	return ks_review_find_program(name);
}

/* Replace o[key] with the JSON text `value`. */
static void
json_set(cJSON *o, const char *key, const char *value)
{
	cJSON *v = cJSON_Parse(value);

	if (!v)
		v = cJSON_CreateNull();
	if (cJSON_HasObjectItem(o, key))
		cJSON_ReplaceItemInObjectCaseSensitive(o, key, v);
	else
		cJSON_AddItemToObject(o, key, v);
}

static const char *
jstr(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static double
jnum(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

/* ncu when the Range Profiler could not read counters; else timing only. */
static void
metrics_fallback(cJSON *res, const struct ks_review_opts *o)
{
	cJSON *m = cJSON_GetObjectItemCaseSensitive(res, "metrics");
	const char *cupti = m ? jstr(m, "error") : "no metrics from ks-replay";
	struct ks_buf a = KS_BUF_INIT, b = KS_BUF_INIT, err = KS_BUF_INIT, obj = KS_BUF_INIT;
	char *ncu;

	if (m && !cupti)
		return;
	if (!m)
		cupti = "not asked (--ncu)";
	ncu = find_tool("ncu");
	if (!ncu)
		ks_error(&err, "no ncu");
	if (ncu && !ks_review_ncu(o, ncu, 0, &a, &err) &&
	    (!o->candidate || !ks_review_ncu(o, ncu, 1, &b, &err))) {
		ks_buf_adds(&obj, "{\"source\": \"ncu\", \"original\": ");
		ks_buf_adds(&obj, a.buf);
		if (o->candidate) {
			ks_buf_adds(&obj, ", \"candidate\": ");
			ks_buf_adds(&obj, b.buf);
		}
		ks_buf_adds(&obj, ", \"cupti_error\": ");
		ks_buf_add_json_str(&obj, cupti ? cupti : "");
		ks_buf_adds(&obj, ", \"error\": null}");
	} else {
		ks_buf_adds(&obj, "{\"source\": \"timing-only\", \"cupti_error\": ");
		ks_buf_add_json_str(&obj, cupti ? cupti : "");
		ks_buf_adds(&obj, ", \"error\": ");
		ks_buf_add_json_str(&obj, err.buf);
		ks_buf_addch(&obj, '}');
	}
	json_set(res, "metrics", obj.buf);
	free(ncu);
	ks_buf_release(&a);
	ks_buf_release(&b);
	ks_buf_release(&err);
	ks_buf_release(&obj);
}

/* Both sanitizer tools on the candidate (else the original). */
static int
sanitize(cJSON *res, const struct ks_review_opts *o)
{
	static const char *const tools[] = { "memcheck", "racecheck" };
	struct ks_buf obj = KS_BUF_INIT, err = KS_BUF_INIT;
	char *cs = find_tool("compute-sanitizer");
	size_t i;
	int all = 1;

	ks_buf_addch(&obj, '{');
	for (i = 0; i < KS_ARRAY_SIZE(tools); i++) {
		struct ks_buf rep = KS_BUF_INIT;
		int clean = 0;

		if (!cs || ks_review_sanitize(o, cs, tools[i], &clean, &rep, &err)) {
			ks_buf_reset(&rep);
			ks_buf_adds(&rep, cs ? err.buf : "no compute-sanitizer");
			clean = 0;
		}
		all &= clean;
		ks_buf_addf(&obj, "%s\"%s\": {\"clean\": %s, \"report\": ", i ? ", " : "",
			    tools[i], clean ? "true" : "false");
		ks_buf_add_json_str(&obj, rep.buf);
		ks_buf_addch(&obj, '}');
		ks_buf_release(&rep);
	}
	ks_buf_addf(&obj, ", \"ran\": \"%s\"}", o->candidate ? "candidate" : "original");
	json_set(res, "sanitize", obj.buf);
	free(cs);
	ks_buf_release(&obj);
	ks_buf_release(&err);
	return all;
}

static void
print_timing_side(const char *label, const cJSON *t)
{
	if (!t)
		return;
	printf("%s %.4f ms [%.4f, %.4f] over %.0f runs", label, jnum(t, "median_ms"),
	       jnum(t, "lo_ms"), jnum(t, "hi_ms"), jnum(t, "n"));
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
			printf(" %s %.4g", keys[i], jnum(s, keys[i]));
	printf("\n");
}

static void
print_summary(const cJSON *res, const struct ks_capture *c)
{
	const cJSON *orig = cJSON_GetObjectItemCaseSensitive(res, "original");
	const cJSON *cand = cJSON_GetObjectItemCaseSensitive(res, "candidate");
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(res, "timing");
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(res, "metrics");
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(res, "sanitize");
	const cJSON *rnd = cand ? cJSON_GetObjectItemCaseSensitive(cand, "random") : NULL;
	const char *err = jstr(res, "error");

	printf("kernel    %s (launch %lu, grid %ux%ux%u, block %ux%ux%u)\n",
	       c->demangled ? c->demangled : c->kernel, c->launch, c->grid[0],
	       c->grid[1], c->grid[2], c->block[0], c->block[1], c->block[2]);
	if (orig)
		printf("original  %s\n", cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
						orig, "reproduces")) ?
			       "reproduces the captured outputs" :
			       jstr(orig, "why") ? jstr(orig, "why") : "?");
	if (cand) {
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(cand, "correct")))
			printf("candidate correct on the captured inputs%s\n",
			       rnd ? " and on fresh input sets" : "");
		else
			printf("candidate rejected: %s\n", jstr(cand, "why") ?
			       jstr(cand, "why") : "?");
	}
	if (t) {
		printf("timing    ");
		print_timing_side("original", cJSON_GetObjectItemCaseSensitive(t, "original"));
		if (cJSON_HasObjectItem(t, "candidate")) {
			printf("\n          ");
			print_timing_side("candidate",
					  cJSON_GetObjectItemCaseSensitive(t, "candidate"));
			printf("\n          %s, speedup %.3fx", jstr(t, "verdict"),
			       jnum(t, "speedup"));
		}
		printf("\n");
	}
	if (m) {
		printf("metrics   %s%s%s\n", jstr(m, "source") ? jstr(m, "source") : "?",
		       jstr(m, "error") ? ": " : "", jstr(m, "error") ? jstr(m, "error") : "");
		print_metrics_side("original", cJSON_GetObjectItemCaseSensitive(m, "original"));
		print_metrics_side("candidate", cJSON_GetObjectItemCaseSensitive(m, "candidate"));
	}
	if (s) {
		const cJSON *mc = cJSON_GetObjectItemCaseSensitive(s, "memcheck");
		const cJSON *rc = cJSON_GetObjectItemCaseSensitive(s, "racecheck");

		printf("sanitize  memcheck %s, racecheck %s\n",
		       cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(mc, "clean")) ? "clean" : "FOUND ERRORS",
		       cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rc, "clean")) ? "clean" : "FOUND ERRORS");
	}
	if (err)
		printf("error     (%s) %s\n", jstr(res, "stage") ? jstr(res, "stage") : "?",
		       err);
	printf("verdict   %s\n", jstr(res, "verdict") ? jstr(res, "verdict") : "error");
}

int
ks_cmd_replay(int argc, char **argv, struct ks_conf *conf)
{
	const char *arg = NULL, *candidate = NULL, *record = NULL, *types = NULL;
	int launcher = 0, json = 0, do_sanitize = 0, ncu = 0, i, rc = KS_EXIT_USAGE;
	struct ks_review_opts o;
	struct ks_tol tol[KS_DTYPE_N];
	struct ks_capture c;
	struct ks_build_rec rec;
	struct ks_build_so b;
	struct ks_buf err = KS_BUF_INIT, shim = KS_BUF_INIT, log = KS_BUF_INIT,
		      result = KS_BUF_INIT;
	char *dir = NULL, *callable = NULL, *work = NULL, *kdir = NULL;
	char *orig_so = NULL, *cand_so = NULL, *cand_abs = NULL, *replay = NULL;
	cJSON *res = NULL;
	unsigned long seed = 1, random = (unsigned long)conf->review_random;
	const char *verdict, *stage;

	memset(&c, 0, sizeof(c));
	memset(&rec, 0, sizeof(rec));
	memset(&o, 0, sizeof(o));
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--launcher"))
			launcher = 1;
		else if (!strcmp(a, "--json"))
			json = 1;
		else if (!strcmp(a, "--time"))
			o.time = 1;
		else if (!strcmp(a, "--metrics"))
			o.metrics = 1;
		else if (!strcmp(a, "--sanitize"))
			do_sanitize = 1;
		else if (!strcmp(a, "--ncu"))
			ncu = 1;
		else if (v && !strcmp(a, "--candidate"))
			candidate = v, i++;
		else if (v && !strcmp(a, "--record"))
			record = v, i++;
		else if (v && !strcmp(a, "--types"))
			types = v, i++;
		else if (v && (!strcmp(a, "--random") || !strcmp(a, "--seed"))) {
			char *end;
			unsigned long n = strtoul(v, &end, 10);

			if (*end || end == v || *v == '-') {
				fputs(REPLAY_USAGE, stderr);
				goto out;
			}
			if (!strcmp(a, "--random"))
				random = n;
			else
				seed = n;
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
	if (conf_tolerances(conf, tol, &err))
		goto fail;
	dir = capture_dir(conf, arg);
	if (!dir) {
		ks_error(&err, "no capture '%s' (see 'ks captures')", arg);
		goto fail;
	}
	if (ks_capture_load(dir, &c, &err))
		goto fail;
	if (types && apply_types(&c, types, &err))
		goto fail;
	if (record) {
		if (ks_build_rec_load(record, &rec, &err))
			goto fail;
	} else if (!c.record || ks_build_rec_load(c.record, &rec, NULL)) {
		/* The capture's record is gone: look again. */
		if (ks_build_rec_find(conf->dir, c.kernel, &rec, &err))
			goto fail;
	}
	if (!c.demangled)
		c.demangled = ks_review_demangle(rec.nvcc, c.kernel);
	callable = ks_capture_callable(c.demangled);
	if (!callable) {
		ks_error(&err, "cannot name kernel %s in C++ (no demangled name)", c.kernel);
		goto fail;
	}
	kdir = ks_capture_kernel_dir(c.kernel);
	work = ks_xasprintf("%s/replay/%s-%lu-%ld", conf->dir, kdir, c.launch,
			    (long)getpid());
	if (ks_fs_mkdirs(work, &err))
		goto fail;
	replay = ks_review_find_program("ks-replay");
	if (!replay) {
		ks_error(&err, "ks-replay not found beside ks or on PATH (built only "
			       "with the CUDA toolkit)");
		goto fail;
	}

	memset(&b, 0, sizeof(b));
	b.rec = &rec;
	b.workdir = work;
	b.timeout_ms = conf->replay_timeout_ms;
	b.name = "original";
	if (shim_for(&c, callable, rec.source, 0, &shim, &err))
		goto fail;
	b.shim = shim.buf;
	if (ks_build_so(&b, &orig_so, &log, &err)) {
		fprintf(stderr, "%s", log.buf);
		goto fail;
	}
	if (candidate) {
		cand_abs = ks_fs_realpath(candidate);
		if (!cand_abs) {
			ks_error_errno(&err, "cannot read '%s'", candidate);
			goto fail;
		}
		launcher |= has_launcher(cand_abs, callable);
		ks_buf_reset(&shim);
		ks_buf_reset(&log);
		if (shim_for(&c, callable, cand_abs, launcher, &shim, &err))
			goto fail;
		b.shim = shim.buf;
		b.name = "candidate";
		if (ks_build_so(&b, &cand_so, &log, &err)) {
			/* A candidate that does not compile is rejected, not an error. */
			printf("candidate rejected: it does not compile: %s\n%s", err.buf,
			       log.buf);
			rc = 1;
			goto out;
		}
	}

	o.replay = replay;
	o.capture = dir;
	o.original = orig_so;
	o.candidate = cand_so;
	o.workdir = work;
	o.random = cand_so ? random : 0;
	o.seed = seed;
	o.reps = (unsigned long)conf->review_reps;
	o.min_ms = (unsigned long)conf->review_min_ms;
	o.tol = tol;
	o.timeout_ms = conf->replay_timeout_ms;
	o.metrics &= !ncu;
	if (ks_review_replay(&o, &result, &err))
		goto fail;
	o.metrics |= ncu;
	res = cJSON_Parse(result.buf);
	if (!res) {
		ks_error(&err, "ks-replay wrote no JSON");
		goto fail;
	}
	verdict = jstr(res, "verdict");
	stage = jstr(res, "stage");
	if (o.metrics && verdict && strcmp(verdict, "ineligible") &&
	    strcmp(verdict, "incorrect"))
		metrics_fallback(res, &o);
	rc = verdict && (!strcmp(verdict, "eligible") || !strcmp(verdict, "correct")) ?
		0 : 1;
	/* An error outside the candidate's own runs is the review's. */
	if (!verdict && (!cand_so || !stage ||
			 (strcmp(stage, "candidate") && strcmp(stage, "random") &&
			  strcmp(stage, "process"))))
		rc = KS_EXIT_FAILED;
	if (do_sanitize && !rc && !sanitize(res, &o))
		rc = 1;
	{
		char *text = cJSON_Print(res), *path = ks_fs_join(work, "review.json");

		/* Kept beside the shims and objects, for the record. */
		ks_fs_write_atomic(path, text, strlen(text), NULL);
		free(path);
		if (json)
			printf("%s\n", text);
		else
			print_summary(res, &c);
		free(text);
	}
	goto out;
fail:
	fprintf(stderr, "ks: error: %s\n", err.buf);
out:
	cJSON_Delete(res);
	ks_capture_release(&c);
	ks_build_rec_release(&rec);
	ks_buf_release(&err);
	ks_buf_release(&shim);
	ks_buf_release(&log);
	ks_buf_release(&result);
	free(dir);
	free(callable);
	free(work);
	free(kdir);
	free(orig_so);
	free(cand_so);
	free(cand_abs);
	free(replay);
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
		dir = capture_dir(conf, cap);
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
		if (shim_for(&c, callable, include, launcher, &out, &err))
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
