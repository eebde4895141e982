/*
 * ks transform and ks try: one builtin transform on one kernel.
 *
 *   ks transform CAPTURE|FILE.cu:KERNEL --skill ID [--param k=v]...
 *                [--arch sm_NN] [--fast-math] [--tu] [-o FILE]
 *                [-- nvcc arguments of FILE.cu]
 *   ks try CAPTURE --skill ID [--param k=v]... [--budget N] [--fast-math]
 *          [--json]
 *
 * The kernel is found through the capture's build record (or the newest
 * record that compiled FILE.cu; with "-- ARGS" or without a record, FILE.cu
 * is parsed with those nvcc arguments) and the libclang inventory; the transform gets its facts
 * and the file's text. ks transform prints the variant file (with --tu the
 * whole translation unit with the variant in, as ks_rewrite makes it), or
 * the reason the transform declines (exit 1). ks try visits the
 * transform's parameter space most promising point first (search.h),
 * reviews each candidate TU on the capture with the Reviewer (correct on
 * the captured and fresh inputs, timed interleaved with the original),
 * stops at the budget or when the spread says more points will not win,
 * and reports the best verified point.
 */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../analysis/inventory.h"
#include "../cache/rewrite.h"
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
#include "../review/reviewer.h"
#include "../transforms/search.h"
#include "../transforms/transform.h"
#include "ks.h"

#define TRANSFORM_USAGE                                                       \
	"usage: ks transform CAPTURE|FILE.cu:KERNEL --skill ID [--param k=v]...\n" \
	"                    [--arch sm_NN] [--fast-math] [--tu] [-o FILE]\n" \
	"                    [-- nvcc arguments of FILE.cu]\n"

#define TRY_USAGE                                                             \
	"usage: ks try CAPTURE --skill ID [--param k=v]... [--budget N]\n"     \
	"              [--fast-math] [--json]\n"

/* The exit status of a transform that declines (docs/MANUAL.md). */
#define KS_EXIT_DECLINED 1

/* Measured points after the best without a clear win before ks try stops. */
#define TRY_PATIENCE 2

/* What the kernel is and where it came from. */
struct target {
	char *capture;		/* the capture directory, or NULL */
	char *record;		/* the build record, or NULL */
	char *file;		/* FILE.cu as given, or NULL */
	char *kernel;		/* name or mangled name */
	char *arch;		/* "sm_90", or NULL: the build's newest */
	char **nvcc_argv;	/* FILE.cu's flags after "--" (no record) */
	int nvcc_argc;
	struct ks_inventory inv;
	const struct ks_kernel *k;
	struct ks_buf text;	/* the TU's text */
	int arch_num;		/* 900 */
	struct ks_xf_launch launch;	/* the capture's shape */
	size_t nlaunches;	/* 1 with a capture, else 0 */
	/* `k` a template: its instance's view, whose plain copy the
	 * transforms read (instance.c) */
	int inst;
	struct ks_inst_view view;
};

static void
target_release(struct target *t)
{
	free(t->capture);
	free(t->record);
	free(t->file);
	free(t->kernel);
	free(t->arch);
	ks_inventory_release(&t->inv);
	ks_buf_release(&t->text);
	if (t->inst)
		ks_inst_view_release(&t->view);
	memset(t, 0, sizeof(*t));
}

/* The newest build record under KS_DIR/builds whose source is `source`. */
static char *
record_of_source(const struct ks_conf *conf, const char *source)
{
	char *dir = ks_fs_join(conf->dir, "builds"), *best = NULL, *best_time = NULL;
	struct dirent *de;
	DIR *d = opendir(dir);

	while (d && (de = readdir(d))) {
		struct ks_buf text = KS_BUF_INIT;
		char *path;
		cJSON *o;

		if (!ks_ends_with(de->d_name, ".json"))
			continue;
		path = ks_fs_join(dir, de->d_name);
		text.max = 1 << 22;
		o = ks_fs_read(path, &text, NULL) ? NULL : cJSON_Parse(text.buf);
		if (o) {
			const cJSON *s = cJSON_GetObjectItemCaseSensitive(o, "source");
			const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "time");
			const char *tm = cJSON_IsString(t) ? t->valuestring : "";

			if (cJSON_IsString(s) && !strcmp(s->valuestring, source) &&
			    (!best || strcmp(tm, best_time) > 0)) {
				free(best);
				free(best_time);
				best = path;
				best_time = ks_xstrdup(tm);
				path = NULL;
			}
		}
		cJSON_Delete(o);
		ks_buf_release(&text);
		free(path);
	}
	if (d)
		closedir(d);
	free(dir);
	free(best_time);
	return best;
}

/* "FILE.cu:KERNEL" where FILE.cu exists: split it. */
static int
split_file_kernel(const char *arg, char **file, char **kernel)
{
	const char *colon = strrchr(arg, ':');
	char *f;

	/* a qualified kernel name holds "::": split at the first ':' of a
	 * run that follows an existing file */
	for (colon = strchr(arg, ':'); colon; colon = strchr(colon + 1, ':')) {
		f = ks_xstrndup(arg, (size_t)(colon - arg));
		if (colon[1] && ks_fs_exists(f) && colon[1] != ':') {
			*file = f;
			*kernel = ks_xstrdup(colon + 1);
			return 1;
		}
		free(f);
	}
	return 0;
}

/* "sm_90" -> 900; 0 when it is not a real arch. */
static int
arch_number(const char *arch)
{
	const char *d = arch ? strchr(arch, '_') : NULL;
	int n = d ? atoi(d + 1) : 0;

	return n > 0 ? n * 10 : 0;
}

/* Find the kernel and parse its TU. */
static int
target_load(struct target *t, const char *arg, struct ks_conf *conf,
	    struct ks_buf *err)
{
	struct ks_inst_view_in in;
	char *used = NULL;

	if (split_file_kernel(arg, &t->file, &t->kernel)) {
		char *abs = ks_fs_realpath(t->file);

		t->record = abs && !t->nvcc_argv ? record_of_source(conf, abs) : NULL;
		free(abs);
	} else {
		struct ks_capture c;
		struct ks_build_rec rec;

		t->capture = ks_capture_find(conf->dir, arg);
		if (!t->capture)
			return ks_error(err, "no capture '%s' and no FILE.cu:KERNEL "
					     "(see 'ks captures')", arg);
		memset(&c, 0, sizeof(c));
		memset(&rec, 0, sizeof(rec));
		if (ks_capture_load(t->capture, &c, err))
			return -1;
		t->kernel = ks_xstrdup(c.kernel);
		memcpy(t->launch.grid, c.grid, sizeof(t->launch.grid));
		memcpy(t->launch.block, c.block, sizeof(t->launch.block));
		t->nlaunches = 1;
		if (!t->arch && c.cc_major > 0) {
			t->arch = ks_xasprintf("sm_%d%d", c.cc_major, c.cc_minor);
		}
		if (c.record && ks_fs_exists(c.record)) {
			t->record = ks_xstrdup(c.record);
		} else if (ks_build_rec_find(conf->dir, c.kernel, &rec, err) == 0) {
			t->record = ks_xstrdup(rec.path);
		} else {
			ks_capture_release(&c);
			return -1;
		}
		ks_build_rec_release(&rec);
		ks_capture_release(&c);
	}
	ks_log("transform: kernel %s, record %s, arch %s", t->kernel,
	       t->record ? t->record : "(none)", t->arch ? t->arch : "(build's)");
	if (ks_analyze_inventory(t->record, t->file, t->nvcc_argv, t->nvcc_argc,
				 t->arch, conf, &t->inv, &used, err))
		return -1;
	free(t->arch);
	t->arch = used;
	t->arch_num = arch_number(t->arch);
	t->k = ks_inventory_find(&t->inv, t->kernel);
	if (!t->k)
		return ks_error(err, "no kernel '%s' in %s", t->kernel, t->inv.source);
	t->text.max = 64 << 20;
	if (ks_fs_read(t->inv.source, &t->text, err))
		return -1;
	memset(&in, 0, sizeof(in));
	in.record = t->record;
	in.file = t->file;
	in.nvcc_argv = t->nvcc_argv;
	in.nvcc_argc = t->nvcc_argc;
	in.arch = t->arch;
	in.conf = conf;
	in.source = t->inv.source;
	in.text = t->text.buf;
	in.len = t->text.len;
	in.k = t->k;
	/* defined in a header: the TU's text with it brought in */
	if (!t->k->in_main_file &&
	    ks_header_view_apply(&in, t->kernel, &t->inv, &t->text, &t->k, err))
		return -1;
	if (t->k->is_template) {
		/* the text and the kernel as they are now */
		in.source = t->inv.source;
		in.text = t->text.buf;
		in.len = t->text.len;
		in.k = t->k;
		in.name = t->kernel;
		if (ks_inst_view_make(&in, &t->view, err))
			return -1;
		t->inst = 1;
	}
	return 0;
}

/* Options both commands take. */
struct xf_args {
	const char *arg;
	const struct ks_transform *xf;
	struct ks_xf_point point;
	int fixed[KS_XF_MAX_PARAMS];
	int fast_math;
	struct ks_strv params;	/* "k=v" as given */
	char **nvcc_argv;	/* after "--" */
	int nvcc_argc;
};

/* Parse "--param k=v" values into the point; fixed[] marks them. */
static int
set_params(struct xf_args *a, struct ks_buf *err)
{
	ks_xf_default_point(a->xf, &a->point);
	for (size_t i = 0; i < a->params.n; i++) {
		const char *kv = a->params.v[i], *eq = strchr(kv, '=');
		char *name, *end;
		long long v;

		if (!eq || eq == kv)
			return ks_error(err, "--param '%s': expected NAME=VALUE", kv);
		v = strtoll(eq + 1, &end, 10);
		if (*end || end == eq + 1)
			return ks_error(err, "--param '%s': the value is not an integer",
					kv);
		name = ks_xstrndup(kv, (size_t)(eq - kv));
		if (ks_xf_point_set(a->xf, &a->point, name, v, err)) {
			free(name);
			return -1;
		}
		for (size_t j = 0; j < a->xf->nparams; j++)
			if (!strcmp(a->xf->params[j].name, name))
				a->fixed[j] = 1;
		free(name);
	}
	return 0;
}

static void
list_skills(FILE *f)
{
	size_t n;
	const struct ks_transform *const *all = ks_xf_all(&n);

	fprintf(f, "transforms:");
	for (size_t i = 0; i < n; i++)
		fprintf(f, " %s", all[i]->id);
	fprintf(f, "%s\n", n ? "" : " (none)");
}

/* Run the transform at `p`: variant file, or the reason it declines. */
static enum ks_xf_result
apply_at(const struct target *t, const struct xf_args *a,
	 const struct ks_xf_point *p, struct ks_buf *variant, struct ks_buf *reason)
{
	struct ks_xf_input in;
	enum ks_xf_result r;

	memset(&in, 0, sizeof(in));
	in.kernel = t->inst ? t->view.k : t->k;
	in.text = t->inst ? t->view.mono.text : t->text.buf;
	in.len = t->inst ? t->view.mono.len : t->text.len;
	in.opts.fast_math = a->fast_math;
	in.opts.arch = t->arch_num;
	in.opts.launches = &t->launch;
	in.opts.nlaunches = t->nlaunches;
	r = ks_xf_apply(a->xf, &in, p, variant, reason);
	if (r == KS_XF_APPLIED && t->inst &&
	    ks_inst_view_variant(&t->view, variant, reason)) {
		ks_buf_reset(variant);
		return KS_XF_DECLINED;
	}
	return r;
}

/* The TU with `variant` (named `vname` in #line) in place of the kernel. */
static int
candidate_tu(const struct target *t, const char *variant, const char *vname,
	     struct ks_buf *out, struct ks_buf *err)
{
	struct ks_rewrite_kernel rk;
	struct ks_rewrite_variant v;
	struct ks_rewrite_job job = { NULL, NULL, NULL };
	char *copy = ks_xstrdup(variant);
	int rc = -1;

	memset(&rk, 0, sizeof(rk));
	memset(&v, 0, sizeof(v));
	if (ks_rewrite_variant_split(copy, &v, err))
		goto out;
	v.file = vname;
	v.arch = (unsigned)t->arch_num;
	if (ks_rewrite_kernel_from_inventory(&t->inv, t->k, &rk, err))
		goto out;
	job.kernel = &rk;
	job.variant = &v;
	job.args = t->inst ? t->view.args : NULL;
	rc = ks_rewrite(t->text.buf, t->text.len, t->inv.source, &job, 1, out, err);
out:
	ks_rewrite_kernel_release(&rk);
	free(copy);
	return rc;
}

/* Common option parsing; returns 0, or a usage/exit status. */
static int
parse_common(int argc, char **argv, struct xf_args *a, const char *usage,
	     int (*extra)(const char *opt, const char *val, void *ctx), void *ctx)
{
	const char *skill = NULL;
	struct ks_buf err = KS_BUF_INIT;
	int i;

	for (i = 1; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int used;

		if (!strcmp(o, "--")) {
			a->nvcc_argv = argv + i + 1;
			a->nvcc_argc = argc - i - 1;
			break;
		} else if (v && !strcmp(o, "--skill")) {
			skill = v, i++;
		} else if (v && !strcmp(o, "--param")) {
			ks_strv_push(&a->params, v), i++;
		} else if (!strcmp(o, "--fast-math")) {
			a->fast_math = 1;
		} else if ((used = extra(o, v, ctx)) > 0) {
			i += used - 1;
		} else if (used < 0) {
			fputs(usage, stderr);
			return KS_EXIT_USAGE;
		} else if (o[0] != '-' && !a->arg) {
			a->arg = o;
		} else {
			fprintf(stderr, "ks: error: unexpected '%s'\n%s", o, usage);
			return KS_EXIT_USAGE;
		}
	}
	if (!a->arg || !skill) {
		fputs(usage, stderr);
		return KS_EXIT_USAGE;
	}
	a->xf = ks_xf_find(skill);
	if (!a->xf) {
		fprintf(stderr, "ks: error: no transform '%s'\n", skill);
		list_skills(stderr);
		return KS_EXIT_USAGE;
	}
	if (set_params(a, &err)) {
		fprintf(stderr, "ks: error: %s\n", err.buf);
		ks_buf_release(&err);
		return KS_EXIT_USAGE;
	}
	return 0;
}

/* ---- ks transform --------------------------------------------------------- */

struct transform_opts {
	const char *arch, *output;
	int tu;
};

static int
transform_extra(const char *o, const char *v, void *ctx)
{
	struct transform_opts *t = ctx;

	if (!strcmp(o, "--tu")) {
		t->tu = 1;
		return 1;
	}
	if (!strcmp(o, "--arch") || !strcmp(o, "-o")) {
		if (!v)
			return -1;
		if (!strcmp(o, "-o"))
			t->output = v;
		else
			t->arch = v;
		return 2;
	}
	return 0;
}

int
ks_cmd_transform(int argc, char **argv, struct ks_conf *conf)
{
	struct xf_args a;
	struct transform_opts to;
	struct target t;
	struct ks_buf err = KS_BUF_INIT, variant = KS_BUF_INIT, reason = KS_BUF_INIT,
		      tu = KS_BUF_INIT;
	const struct ks_buf *out;
	int rc;

	memset(&a, 0, sizeof(a));
	memset(&to, 0, sizeof(to));
	memset(&t, 0, sizeof(t));
	ks_strv_init(&a.params);
	rc = parse_common(argc, argv, &a, TRANSFORM_USAGE, transform_extra, &to);
	if (rc)
		goto out;
	rc = KS_EXIT_FAILED;
	t.arch = to.arch ? ks_xstrdup(to.arch) : NULL;
	t.nvcc_argv = a.nvcc_argv;
	t.nvcc_argc = a.nvcc_argc;
	if (target_load(&t, a.arg, conf, &err))
		goto fail;
	if (!t.arch_num) {
		ks_error(&err, "cannot tell the variant's arch from '%s' (use --arch sm_NN)",
			 t.arch ? t.arch : "");
		goto fail;
	}
	if (apply_at(&t, &a, &a.point, &variant, &reason) != KS_XF_APPLIED) {
		fprintf(stderr, "ks: %s declines %s: %s\n", a.xf->id, t.k->name,
			reason.buf);
		rc = KS_EXIT_DECLINED;
		goto out;
	}
	out = &variant;
	if (to.tu) {
		char *vname = ks_xasprintf("%s.%s.variant.cu", t.k->name, a.xf->id);

		rc = candidate_tu(&t, variant.buf, vname, &tu, &err);
		free(vname);
		if (rc) {
			rc = KS_EXIT_FAILED;
			goto fail;
		}
		out = &tu;
	}
	if (to.output) {
		if (ks_fs_write_atomic(to.output, out->buf, out->len, &err))
			goto fail;
	} else {
		fwrite(out->buf, 1, out->len, stdout);
	}
	rc = 0;
	goto out;
fail:
	fprintf(stderr, "ks: error: %s\n", err.buf);
out:
	target_release(&t);
	ks_strv_release(&a.params);
	ks_buf_release(&err);
	ks_buf_release(&variant);
	ks_buf_release(&reason);
	ks_buf_release(&tu);
	return rc;
}

/* ---- ks try ---------------------------------------------------------------- */

enum point_state {
	PT_DECLINED,	/* the transform declined this point */
	PT_FAILED,	/* the rewrite or the review could not run */
	PT_REJECTED,	/* the Reviewer rejected the candidate */
	PT_VERIFIED,	/* correct on captured and fresh inputs, and timed */
};

static const char *const state_names[] = { "declined", "failed", "rejected",
					   "verified" };

/* What the Reviewer said about one candidate. */
struct review {
	int correct;
	struct ks_xf_timing orig, cand;
	double speedup;
	char *verdict;		/* "faster", "same", "slower", "unknown" */
	char *why;		/* a rejection's reason, or NULL */
};

struct tried {
	struct ks_xf_point p;
	enum point_state state;
	struct review r;
	char *note;		/* declined / failed reason */
	char *candidate;	/* the candidate TU's path */
};

/*
 * The one call into the Reviewer: review the candidate TU `candidate` on
 * capture `capture`, timed interleaved with the original. Returns 0 with
 * the verdict in `r` (a rejected candidate included), -1 when the review
 * could not run.
 */
static void
timing_of(const struct ks_review_timing *t, struct ks_xf_timing *out)
{
	out->median = t->median_ms;
	out->lo = t->lo_ms;
	out->hi = t->hi_ms;
}

static int
review_candidate(const struct ks_conf *conf, const char *capture,
		 const char *candidate, struct review *r, struct ks_buf *err)
{
	const char *caps[] = { capture };
	struct ks_review_request rq;
	struct ks_review_result res;
	int rc = -1;

	memset(r, 0, sizeof(*r));
	ks_review_request_init(&rq);
	ks_review_result_init(&res);
	rq.conf = conf;
	rq.captures = caps;
	rq.ncaptures = 1;
	rq.candidate = candidate;
	rq.time = 1;
	if (ks_review_run(&rq, &res, err))
		goto out;
	if (res.verdict == KS_REVIEW_ERROR || res.verdict == KS_REVIEW_INELIGIBLE) {
		ks_error(err, "the review could not run: %s",
			 res.why ? res.why : ks_review_verdict_name(res.verdict));
		goto out;
	}
	r->correct = res.verdict == KS_REVIEW_CORRECT;
	if (!r->correct)
		r->why = ks_xstrdup(res.why ? res.why : "rejected");
	if (res.n && res.per[0].orig_time.have && res.per[0].cand_time.have) {
		timing_of(&res.per[0].orig_time, &r->orig);
		timing_of(&res.per[0].cand_time, &r->cand);
		r->speedup = res.per[0].speedup;
		r->verdict = res.per[0].speed ? ks_xstrdup(res.per[0].speed) : NULL;
	}
	rc = 0;
out:
	ks_review_result_release(&res);
	return rc;
}

struct try_opts {
	long budget;
	int json;
};

static int
try_extra(const char *o, const char *v, void *ctx)
{
	struct try_opts *t = ctx;

	if (!strcmp(o, "--json")) {
		t->json = 1;
		return 1;
	}
	if (!strcmp(o, "--budget")) {
		char *end;

		if (!v)
			return -1;
		t->budget = strtol(v, &end, 10);
		if (*end || end == v || t->budget < 1)
			return -1;
		return 2;
	}
	return 0;
}

static void
json_timing(struct ks_buf *j, const char *key, const struct ks_xf_timing *t)
{
	ks_buf_addf(j, "\"%s\": {\"median_ms\": %.6f, \"lo_ms\": %.6f, \"hi_ms\": %.6f}",
		    key, t->median, t->lo, t->hi);
}

static void
report_json(const struct target *t, const struct xf_args *a,
	    const struct tried *pts, size_t n, long best, struct ks_buf *j)
{
	ks_buf_adds(j, "{\"kernel\": ");
	ks_buf_add_json_str(j, t->k->name);
	ks_buf_adds(j, ", \"capture\": ");
	ks_buf_add_json_str(j, t->capture);
	ks_buf_adds(j, ", \"skill\": ");
	ks_buf_add_json_str(j, a->xf->id);
	ks_buf_addf(j, ", \"arch\": %d, \"points\": [", t->arch_num);
	for (size_t i = 0; i < n; i++) {
		struct ks_buf ps = KS_BUF_INIT;

		ks_xf_point_format(a->xf, &pts[i].p, &ps);
		ks_buf_addf(j, "%s{\"params\": ", i ? ", " : "");
		ks_buf_add_json_str(j, ps.buf);
		ks_buf_addf(j, ", \"state\": \"%s\"", state_names[pts[i].state]);
		if (pts[i].state == PT_VERIFIED) {
			ks_buf_adds(j, ", ");
			json_timing(j, "original", &pts[i].r.orig);
			ks_buf_adds(j, ", ");
			json_timing(j, "candidate", &pts[i].r.cand);
			ks_buf_addf(j, ", \"speedup\": %.4f, \"verdict\": ",
				    pts[i].r.speedup);
			ks_buf_add_json_str_or_null(j, pts[i].r.verdict);
		}
		ks_buf_adds(j, ", \"why\": ");
		ks_buf_add_json_str_or_null(j, pts[i].state == PT_REJECTED ?
						      pts[i].r.why : pts[i].note);
		/* ("candidate" is the verified point's timing) */
		ks_buf_adds(j, ", \"candidate_file\": ");
		ks_buf_add_json_str_or_null(j, pts[i].candidate);
		ks_buf_addch(j, '}');
		ks_buf_release(&ps);
	}
	ks_buf_addf(j, "], \"best\": ");
	if (best < 0) {
		ks_buf_adds(j, "null");
	} else {
		ks_buf_addf(j, "%ld", best);
	}
	ks_buf_adds(j, "}\n");
}

static void
report_text(const struct target *t, const struct xf_args *a,
	    const struct tried *pts, size_t n, long best)
{
	printf("kernel    %s (%s, arch %d)\n", t->k->name, t->capture, t->arch_num);
	for (size_t i = 0; i < n; i++) {
		struct ks_buf ps = KS_BUF_INIT;

		ks_xf_point_format(a->xf, &pts[i].p, &ps);
		printf("%-9s %s %s", state_names[pts[i].state], a->xf->id,
		       ps.len ? ps.buf : "(no parameters)");
		if (pts[i].state == PT_VERIFIED)
			printf(": original %.4f ms [%.4f, %.4f], variant %.4f ms "
			       "[%.4f, %.4f], %.3fx (%s)",
			       pts[i].r.orig.median, pts[i].r.orig.lo, pts[i].r.orig.hi,
			       pts[i].r.cand.median, pts[i].r.cand.lo, pts[i].r.cand.hi,
			       pts[i].r.speedup, pts[i].r.verdict ? pts[i].r.verdict : "?");
		else
			printf(": %s", pts[i].state == PT_REJECTED ? pts[i].r.why
							       : pts[i].note);
		printf("\n");
		ks_buf_release(&ps);
	}
	if (best < 0) {
		printf("best      none verified\n");
	} else {
		struct ks_buf ps = KS_BUF_INIT;

		ks_xf_point_format(a->xf, &pts[best].p, &ps);
		printf("best      %s %s: %.4f ms -> %.4f ms, %.3fx; candidate %s\n",
		       a->xf->id, ps.buf, pts[best].r.orig.median,
		       pts[best].r.cand.median, pts[best].r.speedup,
		       pts[best].candidate);
		ks_buf_release(&ps);
	}
}

int
ks_cmd_try(int argc, char **argv, struct ks_conf *conf)
{
	struct xf_args a;
	struct try_opts topts = { 4, 0 };
	struct target t;
	struct ks_buf err = KS_BUF_INIT;
	struct ks_xf_point *points = NULL;
	struct tried *pts = NULL;
	struct ks_xf_timing *meas = NULL;
	size_t npoints, n = 0, nmeas = 0, nreviewed = 0, i;
	char *work = NULL, *kdir = NULL;
	long best = -1;
	int rc, rejected = 0, stop = 0;

	memset(&a, 0, sizeof(a));
	memset(&t, 0, sizeof(t));
	ks_strv_init(&a.params);
	rc = parse_common(argc, argv, &a, TRY_USAGE, try_extra, &topts);
	if (rc)
		goto out;
	rc = KS_EXIT_FAILED;
	if (split_file_kernel(a.arg, &work, &kdir)) {
		ks_error(&err, "ks try needs a capture (the Reviewer runs the kernel "
			       "on it), not '%s'", a.arg);
		free(work);
		free(kdir);
		work = kdir = NULL;
		goto fail;
	}
	if (target_load(&t, a.arg, conf, &err))
		goto fail;
	kdir = ks_capture_kernel_dir(t.kernel);
	work = ks_xasprintf("%s/try/%s-%ld", conf->dir, kdir, (long)getpid());
	if (ks_fs_mkdirs(work, &err))
		goto fail;
	points = ks_xcalloc(KS_XF_SEARCH_MAX, sizeof(*points));
	npoints = ks_xf_search_points(a.xf, &a.point, a.fixed, points,
				      KS_XF_SEARCH_MAX);
	pts = ks_xcalloc(npoints + 1, sizeof(*pts));
	meas = ks_xcalloc(npoints + 1, sizeof(*meas));
	for (i = 0; i < npoints && nreviewed < (size_t)topts.budget; i++) {
		struct ks_buf variant = KS_BUF_INIT, reason = KS_BUF_INIT,
			      tu = KS_BUF_INIT, e = KS_BUF_INIT;
		struct tried *p = &pts[n++];
		char *vname;

		p->p = points[i];
		if (apply_at(&t, &a, &points[i], &variant, &reason) != KS_XF_APPLIED) {
			p->state = PT_DECLINED;
			p->note = ks_buf_detach(&reason, NULL);
			goto next;
		}
		vname = ks_xasprintf("%s/p%zu.variant.cu", work, i);
		p->candidate = ks_xasprintf("%s/p%zu.cu", work, i);
		if (ks_fs_write_atomic(vname, variant.buf, variant.len, &e) ||
		    candidate_tu(&t, variant.buf, vname, &tu, &e) ||
		    ks_fs_write_atomic(p->candidate, tu.buf, tu.len, &e) ||
		    review_candidate(conf, t.capture, p->candidate, &p->r, &e)) {
			p->state = PT_FAILED;
			p->note = ks_buf_detach(&e, NULL);
			/* the review itself cannot run: other points will not either */
			stop = 1;
		} else if (!p->r.correct) {
			/* A transform that claims a kernel must keep it correct. */
			p->state = PT_REJECTED;
			rejected++;
		} else {
			p->state = PT_VERIFIED;
			meas[nmeas++] = p->r.cand;
		}
		free(vname);
		nreviewed++;
	next:
		ks_buf_release(&variant);
		ks_buf_release(&reason);
		ks_buf_release(&tu);
		ks_buf_release(&e);
		if (stop || (nmeas && ks_xf_search_stop(meas, nmeas, TRY_PATIENCE)))
			break;
	}
	for (i = 0; i < n; i++)
		if (pts[i].state == PT_VERIFIED &&
		    (best < 0 || pts[i].r.cand.median < pts[best].r.cand.median))
			best = (long)i;
	if (topts.json) {
		struct ks_buf j = KS_BUF_INIT;

		report_json(&t, &a, pts, n, best, &j);
		fputs(j.buf, stdout);
		ks_buf_release(&j);
	} else {
		report_text(&t, &a, pts, n, best);
	}
	/* 0: a verified point; 1: none (every point declined or rejected). */
	rc = best >= 0 && !rejected ? 0 : KS_EXIT_DECLINED;
	goto out;
fail:
	fprintf(stderr, "ks: error: %s\n", err.buf);
out:
	for (i = 0; i < n; i++) {
		free(pts[i].note);
		free(pts[i].candidate);
		free(pts[i].r.verdict);
		free(pts[i].r.why);
	}
	free(pts);
	free(meas);
	free(points);
	free(work);
	free(kdir);
	target_release(&t);
	ks_strv_release(&a.params);
	ks_buf_release(&err);
	return rc;
}
