/*
 * reviewer: ks_review_run() over the children of review.h and the builds
 * of build.h. The order of one capture's review: load the capture and its
 * build record, build the original (a failure is the review's error),
 * build the candidate (a failure is the candidate's rejection), run
 * ks-replay, fall back to ncu for the metrics, run the sanitizer on what
 * passed, decide (ks_review_decide), and keep review.json in the work
 * directory for the record.
 */
#include "reviewer.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../capture/capture.h"
#include "../core/buf.h"
#include "../core/conf.h"
#include "../core/fs.h"
#include "../core/json.h"
#include "../core/toolkit.h"
#include "../core/strv.h"
#include "../core/util.h"
#include "build.h"
#include "globals.h"
#include "gpulock.h"
#include "metricset.h"
#include "review.h"
#include "sample.h"
#include "shim.h"
#include "tolerance.h"

/* The most of a candidate's source read to look for its launcher. */
#define KS_CANDIDATE_MAX_BYTES (64u << 20)

/* The most of a build's PTX read to map the capture's globals. */
#define KS_PTX_READ_MAX (256u << 20)

const char *
ks_review_verdict_name(enum ks_review_verdict v)
{
	switch (v) {
	case KS_REVIEW_ELIGIBLE:
		return "eligible";
	case KS_REVIEW_CORRECT:
		return "correct";
	case KS_REVIEW_INELIGIBLE:
		return "ineligible";
	case KS_REVIEW_REJECTED:
		return "rejected";
	case KS_REVIEW_ERROR:
		break;
	}
	return "error";
}

int
ks_review_verdict_exit(enum ks_review_verdict v)
{
	switch (v) {
	case KS_REVIEW_ELIGIBLE:
	case KS_REVIEW_CORRECT:
		return 0;
	case KS_REVIEW_INELIGIBLE:
	case KS_REVIEW_REJECTED:
		return 1;
	case KS_REVIEW_ERROR:
		break;
	}
	return 105;
}

enum ks_review_verdict
ks_review_decide(const struct ks_review_facts *f)
{
	const char *v = f->replay_verdict, *st = f->stage;

	if (f->has_candidate && !f->compiled)
		return KS_REVIEW_REJECTED;
	if (v && !strcmp(v, "ineligible"))
		return KS_REVIEW_INELIGIBLE;
	if (v && !strcmp(v, "incorrect"))
		return KS_REVIEW_REJECTED;
	if (v && !strcmp(v, "measured"))
		return f->has_candidate ? KS_REVIEW_CORRECT : KS_REVIEW_ELIGIBLE;
	if (v && (!strcmp(v, "eligible") || !strcmp(v, "correct"))) {
		if (f->sanitize_asked && !f->sanitize_clean)
			return f->has_candidate ? KS_REVIEW_REJECTED :
				KS_REVIEW_INELIGIBLE;
		return f->has_candidate ? KS_REVIEW_CORRECT : KS_REVIEW_ELIGIBLE;
	}
	/* No verdict: an error outside the candidate's own runs is the review's. */
	if (f->has_candidate && st &&
	    (!strcmp(st, "candidate") || !strcmp(st, "random") ||
	     !strcmp(st, "process")))
		return KS_REVIEW_REJECTED;
	return KS_REVIEW_ERROR;
}

enum ks_review_verdict
ks_review_combine(const enum ks_review_verdict *v, size_t n)
{
	static const enum ks_review_verdict order[] = {
		KS_REVIEW_REJECTED, KS_REVIEW_ERROR, KS_REVIEW_INELIGIBLE,
	};
	size_t i, k;

	if (!n)
		return KS_REVIEW_ERROR;
	for (k = 0; k < KS_ARRAY_SIZE(order); k++)
		for (i = 0; i < n; i++)
			if (v[i] == order[k])
				return order[k];
	return v[0];
}

void
ks_review_request_init(struct ks_review_request *rq)
{
	memset(rq, 0, sizeof(*rq));
	rq->random = (unsigned long)-1;
	rq->seed = 1;
}

void
ks_review_result_init(struct ks_review_result *r)
{
	memset(r, 0, sizeof(*r));
}

static void
metrics_release(struct ks_review_metrics *m)
{
	free(m->value);
	free(m->have);
	memset(m, 0, sizeof(*m));
}

static void
capture_release(struct ks_review_capture *c)
{
	free(c->capture);
	free(c->kernel);
	free(c->demangled);
	free(c->stage);
	free(c->why);
	free(c->speed);
	free(c->metrics_source);
	metrics_release(&c->orig_metrics);
	metrics_release(&c->cand_metrics);
	free(c->workdir);
	free(c->json_path);
	free(c->original_so);
	free(c->candidate_so);
	free(c->build_log);
	free(c->json);
}

void
ks_review_result_release(struct ks_review_result *r)
{
	size_t i;

	for (i = 0; r->per && i < r->n; i++)
		capture_release(&r->per[i]);
	free(r->per);
	free(r->why);
	memset(r, 0, sizeof(*r));
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

/* `types`: ';'-separated spellings, one per parameter. */
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

/* Does the candidate source define the launcher for `callable`? */
static int
has_launcher(const char *path, const char *callable)
{
	struct ks_buf text = KS_BUF_INIT, name = KS_BUF_INIT;
	const char *base = strrchr(callable, ':');
	int found = 0;

	base = base ? base + 1 : callable;
	ks_buf_addf(&name, "ks_launch_%.*s", (int)strcspn(base, "<"), base);
	text.max = KS_CANDIDATE_MAX_BYTES;
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

/* Will metrics_fallback() run ncu? When ks-replay's counters are missing. */
static int
needs_ncu(const cJSON *res)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(res, "metrics");

	return !m || ks_json_str(m, "error");
}

/* ncu when the Range Profiler could not read counters; else timing only. */
static void
metrics_fallback(cJSON *res, const struct ks_review_opts *o)
{
	cJSON *m = cJSON_GetObjectItemCaseSensitive(res, "metrics");
	const char *cupti = m ? ks_json_str(m, "error") : "no metrics from ks-replay";
	struct ks_buf a = KS_BUF_INIT, b = KS_BUF_INIT, err = KS_BUF_INIT, obj = KS_BUF_INIT;
	char *ncu;

	if (m && !cupti)
		return;
	if (!m)
		cupti = "not asked (--ncu)";
	ncu = ks_toolkit_program("ncu", NULL, NULL);
	if (!ncu)
		ks_error(&err, "no ncu");
	if (ncu && o->metrics_only) {
		/* One side: the one the pass measures. */
		int cand = o->candidate != NULL;

		if (!ks_review_ncu(o, ncu, cand, &a, &err)) {
			ks_buf_addf(&obj, "{\"source\": \"ncu\", \"%s\": ",
				    cand ? "candidate" : "original");
			ks_buf_adds(&obj, a.buf);
			ks_buf_adds(&obj, ", \"cupti_error\": ");
			ks_buf_add_json_str(&obj, cupti ? cupti : "");
			ks_buf_adds(&obj, ", \"error\": null}");
		}
	} else if (ncu && !ks_review_ncu(o, ncu, 0, &a, &err) &&
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
	}
	if (!obj.len) {
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

/*
 * Both sanitizer tools on the candidate (else the original); racecheck only
 * when the kernel may use shared memory (`shared`): it checks nothing else,
 * and at gigabytes one run under it takes minutes. With `sampled_so` (the
 * same side built to run a sample of each launch's blocks, sample.h)
 * racecheck runs on that; `sample` says which sample, or why none.
 */
static void
sanitize(cJSON *res, const struct ks_review_opts *o, int shared,
	 const char *sampled_so, const char *sample, struct ks_review_capture *rc)
{
	static const char *const tools[] = { "memcheck", "racecheck" };
	struct ks_buf obj = KS_BUF_INIT, err = KS_BUF_INIT;
	char *cs = ks_toolkit_program("compute-sanitizer", NULL, NULL);
	size_t i;

	ks_buf_addch(&obj, '{');
	for (i = 0; i < KS_ARRAY_SIZE(tools); i++) {
		struct ks_buf rep = KS_BUF_INIT;
		struct ks_review_opts run;
		int clean = 0;
		double t0;

		if (i == 1 && !shared) {
			rc->racecheck_clean = 1;
			ks_buf_addf(&obj, ", \"%s\": {\"clean\": true, \"skipped\": \"no "
					  "shared memory: no static shared memory, none "
					  "given at the launch, no launcher\"}", tools[i]);
			ks_buf_release(&rep);
			continue;
		}
		run = *o;
		if (i == 1 && sampled_so)
			*(run.candidate ? &run.candidate : &run.original) = sampled_so;
		t0 = ks_now_ms();
		if (!cs || ks_review_sanitize(&run, cs, tools[i], &clean, &rep, &err)) {
			ks_buf_reset(&rep);
			ks_buf_adds(&rep, cs ? err.buf : "no compute-sanitizer");
			clean = 0;
		}
		if (i == 0)
			rc->memcheck_clean = clean;
		else
			rc->racecheck_clean = clean;
		/* Each tool's seconds: what the final check of a big kernel
		   costs, and which tool it goes to, are the user's to see. */
		ks_buf_addf(&obj, "%s\"%s\": {\"clean\": %s, \"seconds\": %.1f, "
				  "\"report\": ", i ? ", " : "", tools[i],
			    clean ? "true" : "false", (ks_now_ms() - t0) / 1e3);
		ks_buf_add_json_str(&obj, rep.buf);
		if (i == 1 && sample) {
			ks_buf_adds(&obj, sampled_so ? ", \"sampled\": " : ", \"every_block\": ");
			ks_buf_add_json_str(&obj, sample);
		}
		ks_buf_addch(&obj, '}');
		ks_buf_release(&rep);
	}
	ks_buf_addf(&obj, ", \"ran\": \"%s\"}", o->candidate ? "candidate" : "original");
	json_set(res, "sanitize", obj.buf);
	rc->sanitized = 1;
	free(cs);
	ks_buf_release(&obj);
	ks_buf_release(&err);
}

static void
read_timing(const cJSON *t, struct ks_review_timing *out)
{
	if (!cJSON_IsObject(t))
		return;
	out->have = 1;
	out->n = (unsigned long)ks_json_num(t, "n");
	out->median_ms = ks_json_num(t, "median_ms");
	out->lo_ms = ks_json_num(t, "lo_ms");
	out->hi_ms = ks_json_num(t, "hi_ms");
	out->min_ms = ks_json_num(t, "min_ms");
	out->max_ms = ks_json_num(t, "max_ms");
}

static void
read_metrics(const cJSON *s, struct ks_review_metrics *out)
{
	const struct ks_metric_def *defs;
	size_t i;

	if (!cJSON_IsObject(s))
		return;
	defs = ks_metricset(&out->n);
	out->value = ks_xcalloc(out->n, sizeof(*out->value));
	out->have = ks_xcalloc(out->n, sizeof(*out->have));
	for (i = 0; i < out->n; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(s, defs[i].name);

		if (cJSON_IsNumber(v)) {
			out->value[i] = v->valuedouble;
			out->have[i] = 1;
		}
	}
}

/* ks-replay's "seconds": how long each of its stages took. */
static void
read_seconds(const cJSON *res, struct ks_review_capture *rc)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(res, "seconds");
	const struct {
		const char *name;
		double *to;
	} stages[] = {
		{ "setup", &rc->setup_s },	   { "original", &rc->original_s },
		{ "output-only", &rc->output_only_s }, { "candidate", &rc->candidate_s },
		{ "random", &rc->random_s },	   { "timing", &rc->timing_s },
		{ "metrics", &rc->metrics_s },
	};
	size_t i;

	for (i = 0; cJSON_IsObject(s) && i < KS_ARRAY_SIZE(stages); i++)
		*stages[i].to += ks_json_num(s, stages[i].name);
}

/*
 * The range profiler gives no sm__maximum_warps_per_active_cycle_pct, so
 * the policy's occupancy case (achieved against theoretical) went
 * unjudged; ks-replay computes it, from the occupancy calculator, for the
 * kernel it launches. Filled in for the original only, where counters
 * were read: a candidate's entry may be a launcher over other kernels.
 */
static void
fill_theoretical_occupancy(const cJSON *side, struct ks_review_metrics *m)
{
	const cJSON *occ = cJSON_GetObjectItemCaseSensitive(side, "occupancy");
	const cJSON *pct = cJSON_GetObjectItemCaseSensitive(occ, "theoretical_pct");
	const struct ks_metric_def *defs;
	size_t n, i;

	if (!m->n || !cJSON_IsNumber(pct) || pct->valuedouble <= 0)
		return;
	defs = ks_metricset(&n);
	for (i = 0; i < n && i < m->n; i++)
		if (!strcmp(defs[i].name, "theoretical_occupancy") && !m->have[i]) {
			m->value[i] = pct->valuedouble;
			m->have[i] = 1;
		}
}

static char *
dup_or_null(const char *s)
{
	return s ? ks_xstrdup(s) : NULL;
}

/* The structured fields of the review JSON. */
static void
read_result(const cJSON *res, int has_candidate, struct ks_review_capture *rc)
{
	const cJSON *orig = cJSON_GetObjectItemCaseSensitive(res, "original");
	const cJSON *cand = cJSON_GetObjectItemCaseSensitive(res, "candidate");
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(res, "timing");
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(res, "metrics");
	const cJSON *rnd = cand ? cJSON_GetObjectItemCaseSensitive(cand, "random") : NULL;

	rc->stage = dup_or_null(ks_json_str(res, "stage"));
	rc->reproduces = orig && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
					orig, "reproduces"));
	rc->correct = cand && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(cand, "correct"));
	if (rnd) {
		rc->random_sets = (unsigned long)ks_json_num(rnd, "sets");
		rc->random_passed = (unsigned long)ks_json_num(rnd, "passed");
	}
	if (ks_json_str(res, "error"))
		rc->why = ks_xstrdup(ks_json_str(res, "error"));
	else if (orig && !rc->reproduces)
		rc->why = dup_or_null(ks_json_str(orig, "why"));
	else if (has_candidate && cand && !rc->correct)
		rc->why = dup_or_null(ks_json_str(cand, "why"));
	if (t) {
		read_timing(cJSON_GetObjectItemCaseSensitive(t, "original"), &rc->orig_time);
		read_timing(cJSON_GetObjectItemCaseSensitive(t, "candidate"), &rc->cand_time);
		rc->speed = dup_or_null(ks_json_str(t, "verdict"));
		rc->speedup = ks_json_num(t, "speedup");
	}
	if (m) {
		rc->metrics_source = dup_or_null(ks_json_str(m, "source"));
		read_metrics(cJSON_GetObjectItemCaseSensitive(m, "original"), &rc->orig_metrics);
		read_metrics(cJSON_GetObjectItemCaseSensitive(m, "candidate"), &rc->cand_metrics);
		fill_theoretical_occupancy(orig, &rc->orig_metrics);
	}
}

static void
fail_capture(struct ks_review_capture *rc, enum ks_review_verdict v,
	     const char *stage, const char *why)
{
	rc->verdict = v;
	free(rc->stage);
	rc->stage = ks_xstrdup(stage);
	free(rc->why);
	rc->why = ks_xstrdup(why && *why ? why : "unknown failure");
}

/*
 * Map the capture's globals onto the build `name` (globals.h) from the PTX
 * its build left: <workdir>/<name>.globals, or NULL without PTX (ks-replay
 * then restores by exact name).
 */
static char *
globals_map(const struct ks_capture *c, const char *workdir, const char *name)
{
	struct ks_buf ptx = KS_BUF_INIT, map = KS_BUF_INIT;
	char *ptx_path = ks_xasprintf("%s/%s.ptx", workdir, name);
	char *path = ks_xasprintf("%s/%s.globals", workdir, name);
	const char **names = ks_xcalloc(c->nbuffers + 1, sizeof(*names));
	struct ks_globals_ptx g;
	size_t i;

	ptx.max = KS_PTX_READ_MAX;
	if (ks_fs_read(ptx_path, &ptx, NULL)) {
		free(path);
		path = NULL;
		goto out;
	}
	for (i = 0; i < c->nbuffers; i++)
		names[i] = c->buffers[i].mem == KS_MEM_GLOBAL ? c->buffers[i].name : NULL;
	ks_globals_ptx_scan(ptx.buf, c->kernel, &g);
	ks_globals_map_file(&g, names, c->nbuffers, &map);
	ks_globals_ptx_release(&g);
	if (ks_fs_write_atomic(path, map.buf ? map.buf : "", map.len, NULL)) {
		free(path);
		path = NULL;
	}
out:
	free(ptx_path);
	free((void *)names);
	ks_buf_release(&ptx);
	ks_buf_release(&map);
	return path;
}

/*
 * The output-only buffers each capture's original showed, for this
 * process: finding them takes a run per buffer, the original does not
 * change within a process, and a task reviews the same captures again and
 * again. Keyed by the capture and the record the original was built from.
 */
struct known {
	char *key, *list;
};
static struct known *knowns;
static size_t nknown;

static char *
known_key(const char *capdir, const char *record)
{
	return ks_xasprintf("%s\n%s", capdir, record ? record : "");
}

static const char *
known_output_only(const char *capdir, const char *record)
{
	char *key = known_key(capdir, record);
	const char *list = NULL;
	size_t i;

	for (i = 0; i < nknown && !list; i++)
		if (!strcmp(knowns[i].key, key))
			list = knowns[i].list;
	free(key);
	return list;
}

/* Remember original.output_only of a replay whose original reproduced. */
static void
keep_output_only(const char *capdir, const char *record, const cJSON *res)
{
	const cJSON *orig = cJSON_GetObjectItemCaseSensitive(res, "original");
	const cJSON *oo = orig ? cJSON_GetObjectItemCaseSensitive(orig, "output_only") : NULL;
	const cJSON *e;
	struct ks_buf list = KS_BUF_INIT;

	if (!cJSON_IsArray(oo) || known_output_only(capdir, record) ||
	    !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(orig, "reproduces")))
		return;
	cJSON_ArrayForEach(e, oo) {
		if (!cJSON_IsNumber(e) || e->valuedouble < 0) {
			ks_buf_release(&list);
			return;
		}
		ks_buf_addf(&list, "%s%lu", list.len ? "," : "", (unsigned long)e->valuedouble);
	}
	knowns = ks_xrealloc(knowns, (nknown + 1) * sizeof(*knowns));
	knowns[nknown].key = known_key(capdir, record);
	knowns[nknown++].list = list.len ? ks_buf_detach(&list, NULL) : ks_xstrdup("-");
	ks_buf_release(&list);
}

/*
 * The side the sanitizer runs (the candidate, else the original: `tu`)
 * built to run a sample of each launch's blocks, for racecheck, where the
 * launch has racecheck_sample threads or more, is not cooperative, and
 * its TU lets blocks be left out (sample.h). Returns the shared object,
 * or NULL with `note` saying why every block runs (nothing added for a
 * launch under the threshold).
 */
static char *
sampled_side(const struct ks_conf *conf, const struct ks_capture *c,
	     const char *callable, const char *tu, int launcher,
	     const struct ks_build_so *base, struct ks_review_capture *rc,
	     struct ks_buf *note)
{
	struct ks_buf text = KS_BUF_INIT, guarded = KS_BUF_INIT, why = KS_BUF_INIT,
		      shim = KS_BUF_INIT, log = KS_BUF_INIT, err = KS_BUF_INIT;
	struct ks_build_so b = *base;
	unsigned long long threads = 1;
	char *path = NULL, *so = NULL;
	double t0;
	int i;

	for (i = 0; i < 3; i++)
		threads *= (unsigned long long)c->grid[i] * c->block[i];
	if (conf->racecheck_sample <= 0 ||
	    threads < (unsigned long long)conf->racecheck_sample)
		goto out;
	if (c->cooperative) {
		ks_buf_adds(note, "a cooperative launch: its blocks wait for one another");
		goto out;
	}
	if (ks_fs_read(tu, &text, &err)) {
		ks_buf_adds(note, err.buf);
		goto out;
	}
	if (!ks_sample_allowed(text.buf, &why)) {
		ks_buf_addf(note, "its blocks may wait for one another or read what "
				  "another wrote (%s)", why.buf);
		goto out;
	}
	if (!ks_sample_blocks(text.buf, tu, &guarded)) {
		ks_buf_adds(note, "no kernel body found in its source");
		goto out;
	}
	path = ks_fs_join(rc->workdir, "sampled-tu.cu");
	if (ks_fs_write_atomic(path, guarded.buf, guarded.len, &err) ||
	    ks_shim_for_capture(c, callable, path, launcher, &shim, &err)) {
		ks_buf_adds(note, err.buf);
		goto out;
	}
	b.shim = shim.buf;
	b.name = "sampled";
	b.keep_ptx = 0;
	t0 = ks_now_ms();
	if (ks_build_so(&b, &so, &log, &err)) {
		ks_buf_addf(note, "the sampled build failed: %s", err.buf);
		so = NULL;
	} else {
		ks_buf_addf(note, "in each grid dimension the first two, the last two "
				  "and about four evenly spaced block indices, and "
				  "every combination of these (the launch has %llu "
				  "threads, racecheck_sample is %d)",
			    threads, conf->racecheck_sample);
	}
	rc->compile_s += (ks_now_ms() - t0) / 1e3;
out:
	free(path);
	ks_buf_release(&text);
	ks_buf_release(&guarded);
	ks_buf_release(&why);
	ks_buf_release(&shim);
	ks_buf_release(&log);
	ks_buf_release(&err);
	return so;
}

/* The review of one capture; every outcome lands in `rc`. */
static void
review_one(const struct ks_review_request *rq, const char *capdir,
	   const struct ks_tol *tol, int sanitized, struct ks_review_capture *rc)
{
	const struct ks_conf *conf = rq->conf;
	struct ks_review_facts f;
	struct ks_review_opts o;
	struct ks_capture c;
	struct ks_build_rec rec;
	struct ks_build_so b;
	struct ks_buf err = KS_BUF_INIT, shim = KS_BUF_INIT, log = KS_BUF_INIT,
		      result = KS_BUF_INIT;
	char *callable = NULL, *kdir = NULL, *cand_abs = NULL, *replay = NULL;
	char *orig_map = NULL, *cand_map = NULL, *sampled_so = NULL;
	struct ks_gpulock gpu = KS_GPULOCK_INIT;
	cJSON *res = NULL;
	double gpu_t0 = 0, build_t0;
	int launcher = rq->launcher, build_rc;
	unsigned long random = rq->random == (unsigned long)-1 ?
		(unsigned long)conf->review_random : rq->random;
	const char *stage = "setup";

	memset(&c, 0, sizeof(c));
	memset(&rec, 0, sizeof(rec));
	memset(&o, 0, sizeof(o));
	memset(&f, 0, sizeof(f));
	rc->capture = ks_xstrdup(capdir);
	f.has_candidate = rq->candidate != NULL;
	f.compiled = 1;
	if (ks_capture_load(capdir, &c, &err))
		goto fail;
	rc->kernel = ks_xstrdup(c.kernel);
	rc->launch = c.launch;
	memcpy(rc->grid, c.grid, sizeof(rc->grid));
	memcpy(rc->block, c.block, sizeof(rc->block));
	if (rq->types && apply_types(&c, rq->types, &err))
		goto fail;
	if (rq->record) {
		if (ks_build_rec_load(rq->record, &rec, &err))
			goto fail;
	} else if (!c.record || ks_build_rec_load(c.record, &rec, NULL)) {
		/* The capture's record is gone: look again. */
		if (ks_build_rec_find(conf->dir, c.kernel, &rec, &err))
			goto fail;
	}
	if (!c.demangled)
		c.demangled = ks_review_demangle(rec.nvcc, c.kernel);
	rc->demangled = dup_or_null(c.demangled);
	callable = ks_capture_callable(c.demangled);
	if (!callable) {
		ks_error(&err, "cannot name kernel %s in C++ (no demangled name)", c.kernel);
		goto fail;
	}
	kdir = ks_capture_kernel_dir(c.kernel);
	rc->workdir = ks_xasprintf("%s/replay/%s-%lu-%ld", conf->dir, kdir, c.launch,
				   (long)getpid());
	if (ks_fs_mkdirs(rc->workdir, &err))
		goto fail;
	replay = ks_toolkit_companion("ks-replay", conf->replay);
	if (!replay) {
		ks_error(&err, "ks-replay not found beside ks or on PATH (built only "
			       "with the CUDA toolkit)");
		goto fail;
	}

	stage = "build";
	memset(&b, 0, sizeof(b));
	b.rec = &rec;
	b.workdir = rc->workdir;
	b.timeout_ms = conf->replay_timeout_ms;
	b.name = "original";
	b.keep_ptx = 1;
	if (c.cc_major > 0)
		b.gpu_arch = (unsigned)(c.cc_major * 10 + c.cc_minor);
	if (ks_shim_for_capture(&c, callable, rec.source, 0, &shim, &err))
		goto fail;
	b.shim = shim.buf;
	build_t0 = ks_now_ms();
	if (ks_build_so(&b, &rc->original_so, &log, &err)) {
		rc->build_log = ks_buf_detach(&log, NULL);
		goto fail;
	}
	rc->compile_s += (ks_now_ms() - build_t0) / 1e3;
	orig_map = globals_map(&c, rc->workdir, "original");
	if (rq->candidate) {
		cand_abs = ks_fs_realpath(rq->candidate);
		if (!cand_abs) {
			ks_error_errno(&err, "cannot read '%s'", rq->candidate);
			goto fail;
		}
		launcher |= has_launcher(cand_abs, callable);
		ks_buf_reset(&shim);
		ks_buf_reset(&log);
		if (ks_shim_for_capture(&c, callable, cand_abs, launcher, &shim, &err))
			goto fail;
		b.shim = shim.buf;
		b.name = "candidate";
		build_t0 = ks_now_ms();
		build_rc = ks_build_so(&b, &rc->candidate_so, &log, &err);
		rc->compile_s += (ks_now_ms() - build_t0) / 1e3;
		if (build_rc) {
			/* A candidate that does not compile is rejected, not an error. */
			struct ks_buf why = KS_BUF_INIT;

			f.compiled = 0;
			ks_buf_addf(&why, "it does not compile: %s", err.buf);
			rc->build_log = ks_buf_detach(&log, NULL);
			rc->verdict = ks_review_decide(&f);
			rc->stage = ks_xstrdup("compile");
			rc->why = ks_buf_detach(&why, NULL);
			goto out;
		}
		cand_map = globals_map(&c, rc->workdir, "candidate");
	}

	stage = "replay";
	o.replay = replay;
	o.capture = capdir;
	o.original = rc->original_so;
	o.candidate = rc->candidate_so;
	o.workdir = rc->workdir;
	o.random = rc->candidate_so && !rq->metrics_only ? random : 0;
	o.seed = rq->seed;
	o.reps = (unsigned long)conf->review_reps;
	o.min_ms = (unsigned long)conf->review_min_ms;
	o.tol = tol;
	o.timeout_ms = conf->replay_timeout_ms;
	o.time = rq->time && !rq->metrics_only;
	o.metrics = (rq->metrics || rq->metrics_only) && !rq->ncu;
	o.metrics_only = rq->metrics_only && !rq->ncu;
	o.original_globals = orig_map;
	o.candidate_globals = cand_map;
	o.bounds = 1;
	o.bound_min_ms = (unsigned long)conf->replay_bound_min_ms;
	o.bound_factor = (unsigned long)conf->replay_bound_factor;
	o.candidate_factor = (unsigned long)conf->candidate_bound_factor;
	o.output_only = known_output_only(capdir, rq->record);
	/* One GPU run at a time; a day is long enough to wait. */
	/* ks-replay takes the GPU lock itself: shared while it checks, alone
	 * while it measures (gpulock.h). */
	if (rq->gpu_lock && rq->gpu_alone) {
		if (ks_gpulock_exclusive(&gpu, rq->gpu_lock, 24 * 3600 * 1000, &err))
			goto fail;
	} else {
		o.gpu_lock = rq->gpu_lock;
	}
	gpu_t0 = ks_now_ms();
	if (ks_review_replay(&o, &result, &err))
		goto fail;
	res = cJSON_Parse(result.buf);
	if (res && ks_json_str(res, "error") && ks_json_str(res, "stage") &&
	    !strcmp(ks_json_str(res, "stage"), "output-only")) {
		/* A poisoned buffer the kernel reads (indices) made it fault:
		 * again, poisoning only the buffers the launch wrote. */
		cJSON_Delete(res);
		ks_buf_reset(&result);
		o.written_only = 1;
		if (ks_review_replay(&o, &result, &err))
			goto fail;
		res = cJSON_Parse(result.buf);
	}
	rc->gpu_ms = ks_now_ms() - gpu_t0;
	if (res) {
		rc->gpu_ms -= ks_json_num(res, "lock_wait_s") * 1e3;
		read_seconds(res, rc);
		rc->lock_wait_s += ks_json_num(res, "lock_wait_s");
		rc->process_s = rc->gpu_ms / 1e3 -
			(rc->setup_s + rc->original_s + rc->output_only_s +
			 rc->candidate_s + rc->random_s + rc->timing_s + rc->metrics_s);
		if (rc->process_s < 0)
			rc->process_s = 0;
	}
	ks_gpulock_release(&gpu);
	o.metrics = rq->metrics || rq->ncu || rq->metrics_only;
	o.metrics_only = rq->metrics_only;
	if (!res) {
		ks_error(&err, "ks-replay wrote no JSON");
		goto fail;
	}
	keep_output_only(capdir, rq->record, res);
	f.replay_verdict = ks_json_str(res, "verdict");
	f.stage = ks_json_str(res, "stage");
	if (o.metrics && f.replay_verdict && strcmp(f.replay_verdict, "ineligible") &&
	    strcmp(f.replay_verdict, "incorrect") && needs_ncu(res)) {
		/* ncu measures: the GPU alone. */
		if (rq->gpu_lock &&
		    ks_gpulock_exclusive(&gpu, rq->gpu_lock, 24 * 3600 * 1000, &err))
			goto fail;
		gpu_t0 = ks_now_ms();
		metrics_fallback(res, &o);
		rc->ncu_s += (ks_now_ms() - gpu_t0) / 1e3;
		rc->gpu_ms += ks_now_ms() - gpu_t0;
		ks_gpulock_release(&gpu);
	}
	/* The sanitizer runs only on what passed. */
	if (sanitized && !rq->metrics_only &&
	    ks_review_verdict_exit(ks_review_decide(&f)) == 0) {
		const cJSON *side = cJSON_GetObjectItemCaseSensitive(
			res, o.candidate ? "candidate" : "original");
		const cJSON *sm = side ? cJSON_GetObjectItemCaseSensitive(side, "static_smem")
				       : NULL;
		/* Unknown counts as used. */
		int smem = cJSON_IsNumber(sm) ? (int)sm->valuedouble : 1;
		int shared = launcher || c.shmem || smem != 0;
		struct ks_buf note = KS_BUF_INIT;

		if (shared)
			sampled_so = sampled_side(conf, &c, callable,
						  cand_abs ? cand_abs : rec.source,
						  launcher, &b, rc, &note);
		/* The sanitizer checks: it may share the GPU. */
		if (rq->gpu_lock &&
		    ks_gpulock_shared(&gpu, rq->gpu_lock, 24 * 3600 * 1000, &err)) {
			ks_buf_release(&note);
			goto fail;
		}
		gpu_t0 = ks_now_ms();
		sanitize(res, &o, shared, sampled_so, note.len ? note.buf : NULL, rc);
		ks_buf_release(&note);
		rc->sanitizer_s += (ks_now_ms() - gpu_t0) / 1e3;
		rc->gpu_ms += ks_now_ms() - gpu_t0;
		ks_gpulock_release(&gpu);
		f.sanitize_asked = 1;
		f.sanitize_clean = rc->memcheck_clean && rc->racecheck_clean;
	}
	read_result(res, f.has_candidate, rc);
	rc->bounded = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(res, "bound"));
	rc->verdict = ks_review_decide(&f);
	if (f.sanitize_asked && !f.sanitize_clean && !rc->why)
		rc->why = ks_xstrdup("compute-sanitizer found errors");
	rc->json = cJSON_Print(res);
	/* Kept beside the shims and objects, for the record. */
	rc->json_path = ks_fs_join(rc->workdir, "review.json");
	ks_fs_write_atomic(rc->json_path, rc->json, strlen(rc->json), NULL);
	goto out;
fail:
	fail_capture(rc, KS_REVIEW_ERROR, stage, err.buf);
out:
	ks_gpulock_release(&gpu);
	rc->lock_wait_s += gpu.waited_ms / 1e3;
	cJSON_Delete(res);
	ks_capture_release(&c);
	ks_build_rec_release(&rec);
	ks_buf_release(&err);
	ks_buf_release(&shim);
	ks_buf_release(&log);
	ks_buf_release(&result);
	free(callable);
	free(kdir);
	free(cand_abs);
	free(sampled_so);
	free(replay);
	free(orig_map);
	free(cand_map);
}

/* The bytes of a capture's files: what a run under the sanitizer moves. */
static unsigned long long
capture_bytes(const char *dir)
{
	unsigned long long sum = 0;
	struct dirent *e;
	struct stat st;
	DIR *d = opendir(dir);

	while (d && (e = readdir(d))) {
		char *p = ks_fs_join(dir, e->d_name);

		if (!stat(p, &st) && S_ISREG(st.st_mode))
			sum += (unsigned long long)st.st_size;
		free(p);
	}
	if (d)
		closedir(d);
	return sum;
}

int
ks_review_run(const struct ks_review_request *rq, struct ks_review_result *result,
	      struct ks_buf *err)
{
	struct ks_tol tol[KS_DTYPE_N];
	enum ks_review_verdict *v;
	size_t i, smallest = 0;

	ks_review_result_init(result);
	if (!rq->conf || !rq->captures || !rq->ncaptures)
		return ks_error(err, "a review needs a configuration and a capture");
	if (conf_tolerances(rq->conf, tol, err))
		return -1;
	result->per = ks_xcalloc(rq->ncaptures, sizeof(*result->per));
	result->n = rq->ncaptures;
	v = ks_xcalloc(rq->ncaptures, sizeof(*v));
	if (rq->sanitize && rq->sanitize_smallest) {
		unsigned long long bytes, fewest = 0;

		for (i = 0; i < rq->ncaptures; i++) {
			bytes = capture_bytes(rq->captures[i]);
			if (!i || bytes < fewest) {
				fewest = bytes;
				smallest = i;
			}
		}
	}
	for (i = 0; i < rq->ncaptures; i++) {
		review_one(rq, rq->captures[i], tol,
			   rq->sanitize && (!rq->sanitize_smallest || i == smallest),
			   &result->per[i]);
		v[i] = result->per[i].verdict;
	}
	result->verdict = ks_review_combine(v, rq->ncaptures);
	for (i = 0; i < rq->ncaptures; i++) {
		if (v[i] == result->verdict && result->per[i].why) {
			result->why = ks_xstrdup(result->per[i].why);
			break;
		}
	}
	free(v);
	return 0;
}
