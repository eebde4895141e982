#include "review.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/buf.h"
#include "../core/fs.h"
#include "../core/proc.h"
#include "../core/strv.h"
#include "../core/toolkit.h"
#include "../core/util.h"
#include "metricset.h"

/* The most of a child's output kept: ks-replay's own lines (its result is
 * a file), ncu's CSV of every metric of every launch, compute-sanitizer's
 * report (the first findings are kept), one demangled name. */
#define KS_CHILD_OUTPUT_MAX (1u << 20)
#define KS_NCU_OUTPUT_MAX (8u << 20)
#define KS_SANITIZER_OUTPUT_MAX (4u << 20)
#define KS_DEMANGLED_MAX (1u << 16)

void
ks_review_argv(const struct ks_review_opts *o, const char *json_path, int once,
	       struct ks_strv *out)
{
	static const enum ks_dtype floats[] = { KS_DTYPE_F64, KS_DTYPE_F32,
						KS_DTYPE_F16, KS_DTYPE_BF16 };
	size_t i;

	ks_strv_push(out, o->replay);
	ks_strv_push(out, "--capture");
	ks_strv_push(out, o->capture);
	if ((!once && !o->metrics_only) || !o->candidate) {
		ks_strv_push(out, "--original");
		ks_strv_push(out, o->original);
	}
	if (o->candidate) {
		ks_strv_push(out, "--candidate");
		ks_strv_push(out, o->candidate);
	}
	if (json_path) {
		ks_strv_push(out, "--json");
		ks_strv_push(out, json_path);
	}
	if (o->original_globals && ((!once && !o->metrics_only) || !o->candidate)) {
		ks_strv_push(out, "--original-globals");
		ks_strv_push(out, o->original_globals);
	}
	if (o->candidate_globals && o->candidate) {
		ks_strv_push(out, "--candidate-globals");
		ks_strv_push(out, o->candidate_globals);
	}
	if (once) {
		ks_strv_push(out, "--once");
		return;
	}
	if (o->random) {
		ks_strv_push(out, "--random");
		ks_strv_push_owned(out, ks_xasprintf("%lu", o->random));
		ks_strv_push(out, "--seed");
		ks_strv_push_owned(out, ks_xasprintf("%lu", o->seed));
	}
	if (o->time) {
		ks_strv_push(out, "--time");
		ks_strv_push(out, "--reps");
		ks_strv_push_owned(out, ks_xasprintf("%lu", o->reps));
		ks_strv_push(out, "--min-ms");
		ks_strv_push_owned(out, ks_xasprintf("%lu", o->min_ms));
	}
	if (o->metrics_only)
		ks_strv_push(out, "--metrics-only");
	else if (o->metrics)
		ks_strv_push(out, "--metrics");
	if (o->written_only)
		ks_strv_push(out, "--written-only");
	/* A run under ncu or the sanitizer: the caller holds the lock. */
	if (o->gpu_lock && !once) {
		ks_strv_push(out, "--gpu-lock");
		ks_strv_push(out, o->gpu_lock);
	}
	if (o->output_only) {
		ks_strv_push(out, "--output-only");
		ks_strv_push(out, o->output_only);
	}
	if (o->bounds) {
		ks_strv_push(out, "--bound-min-ms");
		ks_strv_push_owned(out, ks_xasprintf("%lu", o->bound_min_ms));
		ks_strv_push(out, "--bound-factor");
		ks_strv_push_owned(out, ks_xasprintf("%lu", o->bound_factor));
		ks_strv_push(out, "--candidate-factor");
		ks_strv_push_owned(out, ks_xasprintf("%lu", o->candidate_factor));
	}
	for (i = 0; o->tol && i < KS_ARRAY_SIZE(floats); i++) {
		ks_strv_push(out, "--tol");
		ks_strv_push_owned(out, ks_xasprintf("%s=%.17g,%.17g,%.17g",
						     ks_dtype_name(floats[i]),
						     o->tol[floats[i]].atol,
						     o->tol[floats[i]].rtol,
						     o->tol[floats[i]].stol));
	}
}

int
ks_review_replay(const struct ks_review_opts *o, struct ks_buf *json,
		 struct ks_buf *err)
{
	struct ks_strv argv = KS_STRV_INIT;
	struct ks_buf out = KS_BUF_INIT, errout = KS_BUF_INIT, e = KS_BUF_INIT;
	char *path = ks_fs_join(o->workdir, "result.json");
	struct ks_proc p;
	int rc = -1;

	unlink(path);
	ks_review_argv(o, path, 0, &argv);
	memset(&p, 0, sizeof(p));
	p.argv = (const char *const *)argv.v;
	out.max = errout.max = KS_CHILD_OUTPUT_MAX;
	p.out = &out;
	p.err_out = &errout;
	p.timeout_ms = o->timeout_ms;
	if (ks_proc_run(&p, err))
		goto out;
	json->max = 0;
	if (!p.timed_out && !ks_fs_read(path, json, &e)) {
		rc = 0;
		goto out;
	}
	ks_buf_reset(json);
	ks_buf_adds(json, "{\"format\": 1, \"capture\": ");
	ks_buf_add_json_str(json, o->capture);
	/* 126 and 127: ks-replay itself could not start (not executable, a
	 * library it needs is missing), before any candidate ran: the
	 * review's error, never the candidate's. */
	ks_buf_addf(json, ", \"stage\": \"%s\", \"error\": ",
		    !p.timed_out && (p.status == 126 || p.status == 127) ? "start"
									  : "process");
	ks_buf_rtrim(&errout);
	if (p.timed_out) {
		ks_buf_reset(&e);
		ks_buf_addf(&e, "ks-replay did not finish within %d ms and was killed",
			    o->timeout_ms);
	} else {
		ks_buf_reset(&e);
		ks_buf_addf(&e, "ks-replay ended with status %d without a result%s%s",
			    p.status, errout.len ? ": " : "",
			    errout.len ? errout.buf : "");
	}
	ks_buf_add_json_str(json, e.buf);
	ks_buf_adds(json, "}\n");
	rc = 0;
out:
	ks_strv_release(&argv);
	ks_buf_release(&out);
	ks_buf_release(&errout);
	ks_buf_release(&e);
	free(path);
	return rc;
}

/* Split one CSV line into fields (double quotes, "" inside them). */
static size_t
csv_fields(const char *line, size_t len, struct ks_strv *out)
{
	struct ks_buf f = KS_BUF_INIT;
	size_t i = 0;
	int quoted;

	while (i <= len) {
		ks_buf_reset(&f);
		quoted = i < len && line[i] == '"';
		if (quoted)
			i++;
		while (i < len) {
			if (quoted && line[i] == '"') {
				if (i + 1 < len && line[i + 1] == '"') {
					ks_buf_addch(&f, '"');
					i += 2;
					continue;
				}
				quoted = 0;
				i++;
				continue;
			}
			if (!quoted && line[i] == ',')
				break;
			ks_buf_addch(&f, line[i++]);
		}
		ks_strv_push(out, f.buf);
		i++;	/* the comma, or past the end */
	}
	ks_buf_release(&f);
	return out->n;
}

/* A number as ncu prints it ("1,234.5" with grouping); NAN if none. */
static double
ncu_number(const char *s, int *ok)
{
	struct ks_buf b = KS_BUF_INIT;
	char *end;
	double v;

	for (; *s; s++)
		if (*s != ',')
			ks_buf_addch(&b, *s);
	errno = 0;
	v = strtod(b.buf, &end);
	*ok = b.len && !*end && !errno;
	ks_buf_release(&b);
	return v;
}

/* The launches of an ncu report, folded as ks_review_parse_ncu_csv says. */
struct ncu_fold {
	size_t nrows, ranges;
	double *vals, *cur, best, total;
	int *have, *curhave;
	char *last_id;
};

static void
close_launch(struct ncu_fold *f)
{
	double d;

	if (!f->last_id)
		return;
	d = f->curhave[0] ? f->cur[0] : 0;
	f->ranges++;
	f->total += d;
	if (d > f->best) {
		f->best = d;
		memcpy(f->vals, f->cur, f->nrows * sizeof(*f->vals));
		memcpy(f->have, f->curhave, f->nrows * sizeof(*f->have));
	}
	memset(f->curhave, 0, f->nrows * sizeof(*f->curhave));
}

size_t
ks_review_parse_ncu_csv(const char *csv, struct ks_buf *obj)
{
	struct ncu_fold f;
	const struct ks_metric_def *defs;
	long id_col = -1, name_col = -1, value_col = -1;
	const char *line = csv;
	size_t i, found = 0;
	int first = 1;

	memset(&f, 0, sizeof(f));
	defs = ks_metricset(&f.nrows);
	f.vals = ks_xcalloc(f.nrows, sizeof(*f.vals));
	f.cur = ks_xcalloc(f.nrows, sizeof(*f.cur));
	f.have = ks_xcalloc(f.nrows, sizeof(*f.have));
	f.curhave = ks_xcalloc(f.nrows, sizeof(*f.curhave));
	f.best = -1;
	while (*line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line), next = len;
		struct ks_strv fields = KS_STRV_INIT;

		if (nl)
			next++;
		if (len && line[len - 1] == '\r')
			len--;
		if (len && line[0] == '"') {
			csv_fields(line, len, &fields);
			if (id_col < 0) {
				for (i = 0; i < fields.n; i++) {
					if (!strcmp(fields.v[i], "ID"))
						id_col = (long)i;
					else if (!strcmp(fields.v[i], "Metric Name"))
						name_col = (long)i;
					else if (!strcmp(fields.v[i], "Metric Value"))
						value_col = (long)i;
				}
			} else if (name_col >= 0 && value_col >= 0 &&
				   (size_t)value_col < fields.n &&
				   (size_t)name_col < fields.n) {
				const struct ks_metric_def *d =
					ks_metricset_find_metric(fields.v[name_col]);
				const char *id = id_col >= 0 && (size_t)id_col < fields.n ?
					fields.v[id_col] : "";
				int ok;
				double v = ncu_number(fields.v[value_col], &ok);

				/* Rows come grouped by launch ID. */
				if (!f.last_id || strcmp(f.last_id, id)) {
					close_launch(&f);
					free(f.last_id);
					f.last_id = ks_xstrdup(id);
				}
				if (d && ok) {
					f.cur[d - defs] = v;
					f.curhave[d - defs] = 1;
				}
			}
		}
		ks_strv_release(&fields);
		line += next;
	}
	close_launch(&f);
	if (f.have[0])
		f.vals[0] = f.total;
	ks_buf_addf(obj, "{\"ranges\": %zu", f.ranges);
	for (i = 0; i < f.nrows; i++) {
		if (f.have[i]) {
			ks_buf_addf(obj, ", \"%s\": %.6g", defs[i].name, f.vals[i]);
			found++;
		}
	}
	ks_buf_adds(obj, ", \"unavailable\": [");
	for (i = 0; i < f.nrows; i++) {
		if (!f.have[i]) {
			ks_buf_addf(obj, "%s\"%s\"", first ? "" : ", ", defs[i].name);
			first = 0;
		}
	}
	ks_buf_adds(obj, "]}");
	free(f.vals);
	free(f.cur);
	free(f.have);
	free(f.curhave);
	free(f.last_id);
	return found;
}

int
ks_review_ncu(const struct ks_review_opts *o, const char *ncu, int candidate,
	      struct ks_buf *obj, struct ks_buf *err)
{
	struct ks_review_opts one = *o;
	struct ks_strv argv = KS_STRV_INIT;
	struct ks_buf out = KS_BUF_INIT, metrics = KS_BUF_INIT;
	size_t n, i;
	const struct ks_metric_def *defs = ks_metricset(&n);
	struct ks_proc p;
	int rc = -1;

	if (!candidate)
		one.candidate = NULL;
	for (i = 0; i < n; i++)
		ks_buf_addf(&metrics, "%s%s", i ? "," : "", defs[i].metric);
	ks_strv_push(&argv, ncu);
	ks_strv_push(&argv, "--csv");
	ks_strv_push(&argv, "--print-units");
	ks_strv_push(&argv, "base");
	/* Leave the clocks as they are, as the timing does. */
	ks_strv_push(&argv, "--clock-control");
	ks_strv_push(&argv, "none");
	ks_strv_push(&argv, "--metrics");
	ks_strv_push(&argv, metrics.buf);
	ks_review_argv(&one, NULL, 1, &argv);
	memset(&p, 0, sizeof(p));
	p.argv = (const char *const *)argv.v;
	out.max = KS_NCU_OUTPUT_MAX;
	p.out = &out;
	p.err_out = &out;
	p.timeout_ms = o->timeout_ms;
	if (ks_proc_run(&p, err))
		goto out;
	if (p.timed_out || p.status) {
		ks_buf_rtrim(&out);
		ks_error(err, "ncu %s (status %d): %.300s",
			 p.timed_out ? "timed out" : "failed", p.status,
			 out.len > 300 ? out.buf + out.len - 300 : out.buf);
		goto out;
	}
	if (!ks_review_parse_ncu_csv(out.buf, obj)) {
		ks_error(err, "ncu reported none of the metrics");
		goto out;
	}
	rc = 0;
out:
	ks_strv_release(&argv);
	ks_buf_release(&out);
	ks_buf_release(&metrics);
	return rc;
}

int
ks_review_sanitize(const struct ks_review_opts *o, const char *sanitizer,
		   const char *tool, int *clean, struct ks_buf *report,
		   struct ks_buf *err)
{
	struct ks_strv argv = KS_STRV_INIT;
	struct ks_buf out = KS_BUF_INIT;
	struct ks_proc p;
	const char *line;
	int rc = -1, lines = 0;

	*clean = 0;
	ks_strv_push(&argv, sanitizer);
	ks_strv_push(&argv, "--tool");
	ks_strv_push(&argv, tool);
	ks_strv_push(&argv, "--error-exitcode");
	ks_strv_push(&argv, "99");
	ks_strv_push(&argv, "--print-limit");
	ks_strv_push(&argv, "10");
	ks_review_argv(o, NULL, 1, &argv);
	memset(&p, 0, sizeof(p));
	p.argv = (const char *const *)argv.v;
	out.max = KS_SANITIZER_OUTPUT_MAX;
	p.out = &out;
	p.err_out = &out;
	p.timeout_ms = o->timeout_ms;
	if (ks_proc_run(&p, err))
		goto out;
	*clean = !p.timed_out && p.status == 0;
	/* Keep compute-sanitizer's own lines: findings and the summary. */
	for (line = out.buf; *line && lines < 24;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);

		if (!strncmp(line, "========= ", 10) && len > 10 &&
		    strncmp(line + 10, "COMPUTE-SANITIZER", len - 10)) {
			ks_buf_add(report, line + 10, len - 10);
			ks_buf_addch(report, '\n');
			lines++;
		}
		line += len + (nl ? 1 : 0);
	}
	if (p.timed_out)
		ks_buf_addf(report, "timed out after %d ms\n", o->timeout_ms);
	else if (p.status && p.status != 99)
		ks_buf_addf(report, "ended with status %d\n", p.status);
	rc = 0;
out:
	ks_strv_release(&argv);
	ks_buf_release(&out);
	return rc;
}

char *
ks_review_demangle(const char *nvcc, const char *mangled)
{
	char *tool = ks_toolkit_program("cu++filt", NULL, nvcc);
	const char *argv[3];
	struct ks_buf out = KS_BUF_INIT;
	struct ks_proc p;

	if (!tool)
		tool = ks_xstrdup("cu++filt");
	argv[0] = tool;
	argv[1] = mangled;
	argv[2] = NULL;
	memset(&p, 0, sizeof(p));
	p.argv = argv;
	out.max = KS_DEMANGLED_MAX;
	p.out = &out;
	p.timeout_ms = 10000;
	if (ks_proc_run(&p, NULL) || p.status || !strcmp(out.buf, mangled))
		ks_buf_reset(&out);
	ks_buf_rtrim(&out);
	free(tool);
	if (!out.len || !strcmp(out.buf, mangled)) {
		ks_buf_release(&out);
		return NULL;
	}
	return ks_buf_detach(&out, NULL);
}
