/*
 * report: the model of a run, read from a results JSON or from the tasks'
 * trajectories, and its terminal table and JSON (report.h). The HTML page
 * is html.c.
 */
#include "report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/buf.h"
#include "../core/json.h"
#include "../core/util.h"

/* ---- the model ------------------------------------------------------------- */

void
ks_report_summary_init(struct ks_report_summary *s)
{
	s->kernels = s->verified = s->in_program = s->wrong = s->torch_kernels = -1;
	s->success_rate = s->fast_1 = s->fast_2 = NAN;
	s->mean_speedup = s->geomean_speedup = NAN;
	s->mean_program_speedup = s->geomean_program_speedup = NAN;
	s->mean_speedup_vs_torch = s->geomean_speedup_vs_torch = NAN;
	s->geomean_floor_pct_before = s->geomean_floor_pct_after = NAN;
	s->gpu_minutes = s->review_gpu_minutes = NAN;
	s->headroom_kernels = s->headroom_verified = s->slower_in_program = -1;
	s->max_rounds = -1;
	s->max_task_gpu_s = NAN;
}

void
ks_report_kernel_init(struct ks_report_kernel *k)
{
	memset(k, 0, sizeof(*k));
	k->bytes = k->flops = NAN;
	k->original_ms = k->after_ms = NAN;
	k->review_original_ms = k->review_best_ms = k->review_speedup = NAN;
	k->speedup = k->program_speedup = NAN;
	k->floor_ms = k->floor_pct_before = k->floor_pct_after = NAN;
	k->vendor_ms = k->torch_ms = k->speedup_vs_torch = NAN;
	k->gpu_s = NAN;
	k->rounds = -1;
}

void
ks_report_init(struct ks_report *r)
{
	memset(r, 0, sizeof(*r));
	r->copy_gbps = r->sgemm_tflops = NAN;
	r->rounds = -1;
	r->min_gain = KS_TRAJ_MIN_GAIN;
	ks_report_summary_init(&r->s);
}

static void
kernel_release(struct ks_report_kernel *k)
{
	free(k->program);
	free(k->kernel);
	free(k->task);
	free(k->demangled);
	free(k->skills);
	free(k->end);
	free(k->bound);
	free(k->vendor_kernel);
	free(k->torch_op);
	free(k->task_dir);
	free(k->source_file);
	free(k->orig_src);
	free(k->variant_src);
	free(k->variant_helpers);
	ks_traj_release(&k->traj);
}

void
ks_report_release(struct ks_report *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		kernel_release(&r->k[i]);
	free(r->k);
	for (i = 0; i < r->nabl; i++)
		free(r->abl[i].name);
	free(r->abl);
	free(r->date);
	free(r->gpu);
	free(r->driver);
	free(r->nvcc);
	free(r->mode);
	free(r->ks_version);
	free(r->command);
	memset(r, 0, sizeof(*r));
}

struct ks_report_kernel *
ks_report_add(struct ks_report *r)
{
	r->k = ks_xrealloc(r->k, (r->n + 1) * sizeof(*r->k));
	ks_report_kernel_init(&r->k[r->n]);
	return &r->k[r->n++];
}

/* ---- the results JSON -------------------------------------------------------- */

/* o[key] when a number, else NAN (null and absent are "not measured"). */
static double
num(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static long
count(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(v) ? (long)v->valuedouble : -1;
}

static void
parse_summary(const cJSON *o, struct ks_report_summary *s)
{
	ks_report_summary_init(s);
	s->kernels = count(o, "kernels");
	s->verified = count(o, "verified");
	s->in_program = count(o, "in_program");
	s->wrong = count(o, "wrong");
	s->torch_kernels = count(o, "torch_kernels");
	s->success_rate = num(o, "success_rate");
	s->fast_1 = num(o, "fast_1");
	s->fast_2 = num(o, "fast_2");
	s->mean_speedup = num(o, "mean_speedup");
	s->geomean_speedup = num(o, "geomean_speedup");
	s->mean_program_speedup = num(o, "mean_program_speedup");
	s->geomean_program_speedup = num(o, "geomean_program_speedup");
	s->mean_speedup_vs_torch = num(o, "mean_speedup_vs_torch");
	s->geomean_speedup_vs_torch = num(o, "geomean_speedup_vs_torch");
	s->geomean_floor_pct_before = num(o, "geomean_floor_pct_before");
	s->geomean_floor_pct_after = num(o, "geomean_floor_pct_after");
	s->gpu_minutes = num(o, "gpu_minutes");
	s->review_gpu_minutes = num(o, "review_gpu_minutes");
	s->headroom_kernels = count(o, "headroom_kernels");
	s->headroom_verified = count(o, "headroom_verified");
	s->slower_in_program = count(o, "slower_in_program");
	s->max_rounds = count(o, "max_rounds");
	s->max_task_gpu_s = num(o, "max_task_gpu_s");
}

static void
parse_kernel(const cJSON *o, struct ks_report_kernel *k)
{
	k->program = ks_json_dup(o, "program");
	k->kernel = ks_json_dup(o, "kernel");
	k->task = ks_json_dup(o, "task");
	k->demangled = ks_json_dup(o, "demangled");
	k->skills = ks_json_dup(o, "skills");
	k->end = ks_json_dup(o, "end");
	k->bound = ks_json_dup(o, "bound");
	k->vendor_kernel = ks_json_dup(o, "vendor_kernel");
	k->torch_op = ks_json_dup(o, "torch_op");
	k->task_dir = ks_json_dup(o, "task_dir");
	k->source_file = ks_json_dup(o, "source_file");
	k->bytes = num(o, "bytes");
	k->flops = num(o, "flops");
	k->original_ms = num(o, "original_ms");
	k->after_ms = num(o, "after_ms");
	k->review_original_ms = num(o, "review_original_ms");
	k->review_best_ms = num(o, "review_best_ms");
	k->review_speedup = num(o, "review_speedup");
	k->speedup = num(o, "speedup");
	k->program_speedup = num(o, "program_speedup");
	k->floor_ms = num(o, "floor_ms");
	k->floor_pct_before = num(o, "floor_pct_before");
	k->floor_pct_after = num(o, "floor_pct_after");
	k->vendor_ms = num(o, "vendor_ms");
	k->torch_ms = num(o, "torch_ms");
	k->speedup_vs_torch = num(o, "speedup_vs_torch");
	k->gpu_s = num(o, "gpu_s");
	k->rounds = count(o, "rounds");
	k->verified = ks_json_true(o, "verified");
	k->in_program = ks_json_true(o, "in_program");
	k->wrong = ks_json_true(o, "wrong");
}

int
ks_report_parse_results(const char *text, struct ks_report *r, struct ks_buf *err)
{
	cJSON *o = cJSON_Parse(text);
	const cJSON *c, *k, *a, *cmds;

	if (!cJSON_IsObject(o)) {
		cJSON_Delete(o);
		return ks_error(err, "not a JSON object");
	}
	if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(o, "kernels"))) {
		cJSON_Delete(o);
		return ks_error(err, "no \"kernels\" array (not a results file of make bench)");
	}
	r->date = ks_json_dup(o, "date");
	r->gpu = ks_json_dup(o, "gpu");
	r->driver = ks_json_dup(o, "driver");
	r->nvcc = ks_json_dup(o, "nvcc");
	r->mode = ks_json_dup(o, "mode");
	r->ks_version = ks_json_dup(o, "ks_version");
	r->rounds = count(o, "rounds");
	cmds = cJSON_GetObjectItemCaseSensitive(o, "commands");
	if (cJSON_IsArray(cmds) && cJSON_GetArraySize(cmds) > 0) {
		const cJSON *last = cJSON_GetArrayItem(cmds, cJSON_GetArraySize(cmds) - 1);

		if (cJSON_IsString(last))
			r->command = ks_xstrdup(last->valuestring);
	}
	c = cJSON_GetObjectItemCaseSensitive(o, "ceilings");
	r->copy_gbps = num(c, "copy_gbps");
	r->sgemm_tflops = num(c, "sgemm_tflops");
	cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(o, "kernels")) {
		if (cJSON_IsObject(k))
			parse_kernel(k, ks_report_add(r));
	}
	c = cJSON_GetObjectItemCaseSensitive(o, "summary");
	if (cJSON_IsObject(c)) {
		parse_summary(c, &r->s);
		r->have_summary = 1;
	}
	cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(o, "ablations")) {
		struct ks_report_ablation *ab;

		if (!a->string)
			continue;
		r->abl = ks_xrealloc(r->abl, (r->nabl + 1) * sizeof(*r->abl));
		ab = &r->abl[r->nabl++];
		ab->name = ks_xstrdup(a->string);
		parse_summary(cJSON_GetObjectItemCaseSensitive(a, "summary"), &ab->s);
	}
	cJSON_Delete(o);
	return 0;
}

/* ---- from trajectories --------------------------------------------------------- */

void
ks_report_best_per_round(const struct ks_traj *t, double min_gain, double *out)
{
	struct ks_traj view;
	struct ks_traj_state s;

	for (size_t i = 0; i < t->n; i++) {
		/* The state after the first i + 1 records: the base rule replayed
		 * exactly as the loop did it, so no record is trusted alone. */
		view.v = t->v;
		view.n = view.alloc = i + 1;
		ks_traj_state(&view, min_gain, &s);
		out[i] = s.best > 0 ? t->v[s.best].speedup : 0;
	}
}

void
ks_report_kernel_from_traj(struct ks_report_kernel *k, double min_gain)
{
	struct ks_traj_state s;
	struct ks_buf sk = KS_BUF_INIT;
	int chain[256];
	size_t n = 0;

	if (!k->traj.n)
		return;
	ks_traj_state(&k->traj, min_gain, &s);
	if (k->traj.v[0].orig.have)
		k->original_ms = k->review_original_ms = k->traj.v[0].orig.median;
	k->rounds = (long)s.reviews;
	k->gpu_s = s.gpu_ms / 1e3;
	k->speedup = s.ineligible ? NAN : 1;
	if (s.best > 0) {
		const struct ks_traj_round *b = &k->traj.v[s.best];
		int r = s.best;

		k->verified = 1;
		k->review_original_ms = b->orig.median;
		k->review_best_ms = b->cand.median;
		k->review_speedup = k->speedup = b->speedup;
		while (r > 0 && n < 256) {
			chain[n++] = r;
			r = k->traj.v[r].parent;
		}
		while (n-- > 0)
			ks_buf_addf(&sk, "%s%s", sk.len ? "+" : "",
				    k->traj.v[chain[n]].skill ? k->traj.v[chain[n]].skill : "?");
		free(k->skills);
		k->skills = ks_buf_detach(&sk, NULL);
	}
	ks_buf_release(&sk);
}

void
ks_report_summarize_tasks(const struct ks_report *r, struct ks_report_summary *s)
{
	double sum = 0, logs = 0, gpu = 0;
	long n = 0, f1 = 0, f2 = 0, ver = 0;

	ks_report_summary_init(s);
	for (size_t i = 0; i < r->n; i++) {
		const struct ks_report_kernel *k = &r->k[i];

		if (!isnan(k->gpu_s)) {
			gpu += k->gpu_s;
			if (isnan(s->max_task_gpu_s) || k->gpu_s > s->max_task_gpu_s)
				s->max_task_gpu_s = k->gpu_s;
		}
		if (k->rounds > s->max_rounds)
			s->max_rounds = k->rounds;
		if (isnan(k->speedup))
			continue;	/* ineligible: never optimized */
		n++;
		sum += k->speedup;
		logs += log(k->speedup);
		if (k->verified) {
			ver++;
			f1 += k->speedup > 1;
			f2 += k->speedup > 2;
		}
	}
	s->kernels = n;
	s->verified = ver;
	s->review_gpu_minutes = gpu / 60;
	/* Tasks alone have no floor, so no headroom is counted; nor
	   programs, so none ran slower. */
	if (n) {
		s->success_rate = (double)ver / (double)n;
		s->fast_1 = (double)f1 / (double)n;
		s->fast_2 = (double)f2 / (double)n;
		s->mean_speedup = sum / (double)n;
		s->geomean_speedup = exp(logs / (double)n);
	}
}

/* ---- the terminal table ---------------------------------------------------- */

void
ks_report_num(char *b, size_t size, char kind, double v)
{
	switch (kind) {
	case 'x': snprintf(b, size, "%.2fx", v); break;
	case 'X': snprintf(b, size, "%.3fx", v); break;
	case 'p': snprintf(b, size, "%.1f%%", v); break;
	case '0': snprintf(b, size, "%.0f", v); break;
	case '1': snprintf(b, size, "%.1f", v); break;
	case '2': snprintf(b, size, "%.2f", v); break;
	default: snprintf(b, size, "%.4g", v); break;
	}
}

/* v as `kind` says, or "—" when not measured. */
static const char *
fmt(char *b, size_t size, char kind, double v)
{
	if (isnan(v))
		return "—";
	ks_report_num(b, size, kind, v);
	return b;
}

/* Pads a cell to `w` columns; "—" is one column in three bytes. */
static void
cell(struct ks_buf *out, const char *s, int w, int right)
{
	int len = (int)strlen(s), cols = len;

	if (!strcmp(s, "—"))
		cols = 1;
	if (right)
		ks_buf_addf(out, "%*s%s ", w > cols ? w - cols : 0, "", s);
	else
		ks_buf_addf(out, "%s%*s ", s, w > cols ? w - cols : 0, "");
}

static const char *
verdict_of(const struct ks_report_kernel *k)
{
	if (k->wrong)
		return "WRONG";
	if (k->in_program)
		return "in program";
	if (k->verified)
		return "verified";
	return isnan(k->speedup) && !k->program ? "ineligible" : "no";
}

/* Does `v` name one of these verdicts? */
static int
verdict_is(const char *v, const char *a, const char *b)
{
	return v && (!strcmp(v, a) || (b && !strcmp(v, b)));
}

/* ", N what" (the first without its comma), where N is not 0. */
static void
why_part(struct ks_buf *out, int *any, long n, const char *what)
{
	if (!n)
		return;
	ks_buf_addf(out, "%s %ld %s", *any ? "," : "", n, what);
	*any = 1;
}

void
ks_report_why_none(const struct ks_report_kernel *k, struct ks_buf *out)
{
	long rej = 0, err = 0, cfail = 0, decl = 0, slow = 0;
	double best = 0;
	const struct ks_traj_round *first = NULL;
	int any = 0;

	if (k->verified || k->traj.n < 2)
		return;
	for (size_t i = 1; i < k->traj.n; i++) {
		const struct ks_traj_round *t = &k->traj.v[i];

		if (t->compile && !strcmp(t->compile, "failed")) {
			cfail++;
		} else if (verdict_is(t->verdict, "rejected", "ineligible")) {
			rej++;
			if (!first)
				first = t;
		} else if (verdict_is(t->verdict, "error", NULL)) {
			err++;
			if (!first)
				first = t;
		} else if (verdict_is(t->verdict, "declined", NULL)) {
			decl++;
		} else if (verdict_is(t->verdict, "correct", "eligible")) {
			slow++;
			if (t->speedup > best)
				best = t->speedup;
		}
	}
	ks_buf_addf(out, "%s: no variant:", k->kernel ? k->kernel : "?");
	why_part(out, &any, rej, "rejected");
	why_part(out, &any, err, "failed to run");
	why_part(out, &any, cfail, "failed to compile");
	why_part(out, &any, decl, "declined");
	why_part(out, &any, slow, "correct, not faster");
	if (!any)
		ks_buf_adds(out, " no candidate reviewed");
	if (slow && best > 0)
		ks_buf_addf(out, " (best %.3fx)", best);
	if (first) {
		const char *why = first->reason ? first->reason : "no reason recorded";
		size_t n = strcspn(why, "\n");

		ks_buf_addf(out, "; first %s (%s%s%s): %.*s%s",
			    verdict_is(first->verdict, "error", NULL) ? "failure" : "rejection",
			    first->skill ? first->skill : "?", first->stage ? ", " : "",
			    first->stage ? first->stage : "", (int)(n > 160 ? 160 : n), why,
			    n > 160 ? "..." : "");
	}
	if (k->end)
		ks_buf_addf(out, "; ended: %s", k->end);
	ks_buf_addch(out, '\n');
}

void
ks_report_text(const struct ks_report *r, struct ks_buf *out)
{
	char b[8][48];
	const struct ks_report_summary *s = &r->s;
	struct ks_buf why = KS_BUF_INIT;

	if (r->gpu || r->date)
		ks_buf_addf(out, "%s, %s%s%s, %s\n", r->gpu ? r->gpu : "unknown GPU",
			    r->date ? r->date : "undated", r->driver ? ", driver " : "",
			    r->driver ? r->driver : "", r->mode ? r->mode : "");
	if (!isnan(r->copy_gbps) || !isnan(r->sgemm_tflops))
		ks_buf_addf(out, "ceilings: copy %s GB/s, SGEMM %s TFLOP/s\n",
			    fmt(b[0], sizeof(b[0]), '0', r->copy_gbps),
			    fmt(b[1], sizeof(b[1]), '1', r->sgemm_tflops));
	if (out->len)
		ks_buf_addch(out, '\n');
	cell(out, "program", 20, 0);
	cell(out, "kernel", 30, 0);
	cell(out, "orig ms", 9, 1);
	cell(out, "after ms", 9, 1);
	cell(out, "speedup", 8, 1);
	cell(out, "floor%", 7, 1);
	cell(out, "->", 6, 1);
	cell(out, "torch ms", 9, 1);
	cell(out, "rounds", 6, 1);
	cell(out, "GPU s", 6, 1);
	cell(out, "result", 10, 0);
	ks_buf_adds(out, "skills\n");
	for (size_t i = 0; i < r->n; i++) {
		const struct ks_report_kernel *k = &r->k[i];
		char rb[24], prog[21], kern[31];
		/* After: the program's time after the rebuild, else the best
		 * variant's time in its review. */
		double best = !isnan(k->after_ms) ? k->after_ms : k->review_best_ms;

		snprintf(prog, sizeof(prog), "%s", k->program ? k->program : "—");
		snprintf(kern, sizeof(kern), "%s", k->kernel ? k->kernel : "?");
		cell(out, prog, 20, 0);
		cell(out, kern, 30, 0);
		cell(out, fmt(b[0], sizeof(b[0]), 'g', k->original_ms), 9, 1);
		cell(out, fmt(b[1], sizeof(b[1]), 'g', best), 9, 1);
		cell(out, fmt(b[2], sizeof(b[2]), 'x', k->review_speedup), 8, 1);
		cell(out, fmt(b[3], sizeof(b[3]), '1', k->floor_pct_before), 7, 1);
		cell(out, fmt(b[4], sizeof(b[4]), '1', k->floor_pct_after), 6, 1);
		cell(out, fmt(b[5], sizeof(b[5]), 'g', k->torch_ms), 9, 1);
		snprintf(rb, sizeof(rb), "%ld", k->rounds);
		cell(out, k->rounds >= 0 ? rb : "—", 6, 1);
		cell(out, fmt(b[6], sizeof(b[6]), '0', k->gpu_s), 6, 1);
		cell(out, verdict_of(k), 10, 0);
		ks_buf_addf(out, "%s\n", k->skills && *k->skills ? k->skills : "—");
	}
	ks_buf_addf(out, "\nkernels %ld, verified %ld", s->kernels, s->verified);
	if (s->in_program >= 0)
		ks_buf_addf(out, ", in the program %ld, wrong %ld", s->in_program, s->wrong);
	ks_buf_addf(out, "; success %s, fast_1 %s, fast_2 %s\n",
		    fmt(b[0], sizeof(b[0]), '2', s->success_rate),
		    fmt(b[1], sizeof(b[1]), '2', s->fast_1),
		    fmt(b[2], sizeof(b[2]), '2', s->fast_2));
	ks_buf_addf(out, "speedup over the originals: mean %s, geomean %s; over Torch eager: "
		    "mean %s, geomean %s\n",
		    fmt(b[0], sizeof(b[0]), 'x', s->mean_speedup),
		    fmt(b[1], sizeof(b[1]), 'x', s->geomean_speedup),
		    fmt(b[2], sizeof(b[2]), 'x', s->mean_speedup_vs_torch),
		    fmt(b[3], sizeof(b[3]), 'x', s->geomean_speedup_vs_torch));
	ks_buf_addf(out, "geomean %% of floor: before %s, after %s; GPU-minutes %s (Reviewer %s)\n",
		    fmt(b[0], sizeof(b[0]), 'p', s->geomean_floor_pct_before),
		    fmt(b[1], sizeof(b[1]), 'p', s->geomean_floor_pct_after),
		    fmt(b[2], sizeof(b[2]), '1', s->gpu_minutes),
		    fmt(b[3], sizeof(b[3]), '1', s->review_gpu_minutes));
	if (s->headroom_kernels >= 0)
		ks_buf_addf(out, "below %.0f%% of the floor before: %ld kernels, %ld verified; ",
			    KS_REPORT_HEADROOM_PCT, s->headroom_kernels, s->headroom_verified);
	if (s->slower_in_program >= 0)
		ks_buf_addf(out, "slower in the program %ld; ", s->slower_in_program);
	if (s->max_rounds >= 0 || !isnan(s->max_task_gpu_s))
		ks_buf_addf(out, "rounds at most %ld, GPU seconds a task at most %s\n",
			    s->max_rounds, fmt(b[0], sizeof(b[0]), '0', s->max_task_gpu_s));
	else if (s->headroom_kernels >= 0 || s->slower_in_program >= 0)
		ks_buf_adds(out, "\n");
	for (size_t i = 0; i < r->nabl; i++) {
		const struct ks_report_summary *a = &r->abl[i].s;

		ks_buf_addf(out, "ablation --%s: verified %ld of %ld, fast_1 %s, speedup mean %s, "
			    "geomean %s, Reviewer GPU-minutes %s\n", r->abl[i].name,
			    a->verified, a->kernels, fmt(b[0], sizeof(b[0]), '2', a->fast_1),
			    fmt(b[1], sizeof(b[1]), 'x', a->mean_speedup),
			    fmt(b[2], sizeof(b[2]), 'x', a->geomean_speedup),
			    fmt(b[3], sizeof(b[3]), '1', a->review_gpu_minutes));
	}
	for (size_t i = 0; i < r->n; i++)
		ks_report_why_none(&r->k[i], &why);
	if (why.len)
		ks_buf_addf(out, "\nwhy no variant:\n%s", why.buf);
	ks_buf_release(&why);
}

/* ---- JSON ------------------------------------------------------------------- */

static void
jnum(struct ks_buf *out, const char *key, double v)
{
	ks_buf_addf(out, ", \"%s\": ", key);
	if (isnan(v))
		ks_buf_adds(out, "null");
	else
		ks_buf_addf(out, "%.6g", v);
}

static void
jcount(struct ks_buf *out, const char *key, long v)
{
	ks_buf_addf(out, ", \"%s\": ", key);
	if (v < 0)
		ks_buf_adds(out, "null");
	else
		ks_buf_addf(out, "%ld", v);
}

static void
jsummary(struct ks_buf *out, const struct ks_report_summary *s)
{
	ks_buf_adds(out, "{\"format\": 1");
	jcount(out, "kernels", s->kernels);
	jcount(out, "verified", s->verified);
	jcount(out, "in_program", s->in_program);
	jcount(out, "wrong", s->wrong);
	jnum(out, "success_rate", s->success_rate);
	jnum(out, "fast_1", s->fast_1);
	jnum(out, "fast_2", s->fast_2);
	jnum(out, "mean_speedup", s->mean_speedup);
	jnum(out, "geomean_speedup", s->geomean_speedup);
	jnum(out, "mean_speedup_vs_torch", s->mean_speedup_vs_torch);
	jnum(out, "geomean_speedup_vs_torch", s->geomean_speedup_vs_torch);
	jnum(out, "geomean_floor_pct_before", s->geomean_floor_pct_before);
	jnum(out, "geomean_floor_pct_after", s->geomean_floor_pct_after);
	jnum(out, "gpu_minutes", s->gpu_minutes);
	jnum(out, "review_gpu_minutes", s->review_gpu_minutes);
	jcount(out, "headroom_kernels", s->headroom_kernels);
	jcount(out, "headroom_verified", s->headroom_verified);
	jcount(out, "slower_in_program", s->slower_in_program);
	jcount(out, "max_rounds", s->max_rounds);
	jnum(out, "max_task_gpu_s", s->max_task_gpu_s);
	ks_buf_adds(out, "}");
}

void
ks_report_json(const struct ks_report *r, struct ks_buf *out)
{
	ks_buf_adds(out, "{\"format\": 1, \"date\": ");
	ks_buf_add_json_str_or_null(out, r->date);
	ks_buf_adds(out, ", \"gpu\": ");
	ks_buf_add_json_str_or_null(out, r->gpu);
	ks_buf_adds(out, ", \"kernels\": [");
	for (size_t i = 0; i < r->n; i++) {
		const struct ks_report_kernel *k = &r->k[i];

		ks_buf_adds(out, i ? ",\n  {\"program\": " : "\n  {\"program\": ");
		ks_buf_add_json_str_or_null(out, k->program);
		ks_buf_adds(out, ", \"kernel\": ");
		ks_buf_add_json_str_or_null(out, k->kernel);
		ks_buf_adds(out, ", \"task\": ");
		ks_buf_add_json_str_or_null(out, k->task);
		jnum(out, "original_ms", k->original_ms);
		jnum(out, "after_ms", k->after_ms);
		jnum(out, "review_best_ms", k->review_best_ms);
		jnum(out, "review_speedup", k->review_speedup);
		jnum(out, "speedup", k->speedup);
		jnum(out, "floor_pct_before", k->floor_pct_before);
		jnum(out, "floor_pct_after", k->floor_pct_after);
		jnum(out, "vendor_ms", k->vendor_ms);
		jnum(out, "torch_ms", k->torch_ms);
		jnum(out, "gpu_s", k->gpu_s);
		jcount(out, "rounds", k->rounds);
		ks_buf_addf(out, ", \"verified\": %s, \"in_program\": %s, \"wrong\": %s, \"skills\": ",
			    k->verified ? "true" : "false", k->in_program ? "true" : "false",
			    k->wrong ? "true" : "false");
		ks_buf_add_json_str_or_null(out, k->skills);
		ks_buf_adds(out, "}");
	}
	ks_buf_adds(out, "],\n \"summary\": ");
	jsummary(out, &r->s);
	ks_buf_adds(out, ",\n \"ablations\": {");
	for (size_t i = 0; i < r->nabl; i++) {
		ks_buf_adds(out, i ? ", " : "");
		ks_buf_add_json_str(out, r->abl[i].name);
		ks_buf_adds(out, ": ");
		jsummary(out, &r->abl[i].s);
	}
	ks_buf_adds(out, "}}\n");
}
