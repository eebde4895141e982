/*
 * ks optimize: the loop (src/agents) once per captured kernel.
 *
 *   ks optimize [CAPTURE|KERNEL-REGEX ...] [--rounds N] [--budget GPU-MIN]
 *               [--llm none|URL] [--no-long-term-memory]
 *               [--no-short-term-memory] [--no-metrics] [--no-cache]
 *               [--jobs N] [--gpus all|N|LIST] [--json]
 *
 * A task is one kernel with every capture of it under KS_DIR/captures.
 * Its facts come as for ks plan: the capture's build record, the libclang
 * inventory of the TU, `ks analyze --json` and `ks evidence --json` run as
 * children. The loop's Reviewer is ks_review_run() on all captures; its
 * Planner the policy over the base's metrics, re-ranked by the cross-task
 * statistics (or, with --no-long-term-memory, every builtin transform in
 * a fixed order). The best verified variant of a task (a real gain:
 * spreads apart and at least KS_MIN_GAIN over the original) goes to the
 * variant cache, after a last review under compute-sanitizer; with
 * --no-cache (the ablations' runs, which measure the search and feed no
 * build) it is only reported, as "reviewed". Without a GPU nothing
 * starts.
 */
#include "ks.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <dlfcn.h>
#include <glob.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../agents/agents.h"
#include "../analysis/inventory.h"
#include "../cache/store.h"
#include "../capture/capture.h"
#include "../core/buf.h"
#include "../core/conf.h"
#include "../core/fs.h"
#include "../core/hash.h"
#include "../core/json.h"
#include "../core/log.h"
#include "../core/strv.h"
#include "../core/util.h"
#include "../core/workers.h"
#include "../llm/llm.h"
#include "../memory/knowledge.h"
#include "../memory/skills.h"
#include "../policy/policy.h"
#include "../review/build.h"
#include "../transforms/transform.h"
#include "version.h"

#define OPTIMIZE_USAGE                                                        \
	"usage: ks optimize [CAPTURE|KERNEL-REGEX ...] [--rounds N] [--budget GPU-MIN]\n" \
	"                   [--llm none|URL] [--no-long-term-memory]\n"       \
	"                   [--no-short-term-memory] [--no-metrics] [--no-cache]\n" \
	"                   [--jobs N] [--gpus all|N|LIST] [--json]\n"

/* The exit status when no task found a verified variant (docs/MANUAL.md). */
#define OPTIMIZE_NONE 1

struct opts {
	struct ks_strv sel;
	unsigned rounds;
	double budget_min;	/* 0: none */
	const char *llm;	/* NULL: the configuration's; "none" */
	int ltm, stm, metrics, json;
	int cache;		/* 0: --no-cache */
	long jobs;
	const char *gpus;	/* --gpus: NULL, the GPU this process sees */
};

/* One captured kernel. */
struct job {
	char *kdir;		/* its directory under captures/ */
	char *kernel, *demangled;
	struct ks_strv caps;	/* capture directories, by launch */
	unsigned long long ns;	/* the captured launches' time, summed */
};

struct jobs {
	struct job *v;
	size_t n;
};

static void
job_release(struct job *j)
{
	free(j->kdir);
	free(j->kernel);
	free(j->demangled);
	ks_strv_release(&j->caps);
}

static void
jobs_release(struct jobs *j)
{
	for (size_t i = 0; i < j->n; i++)
		job_release(&j->v[i]);
	free(j->v);
	memset(j, 0, sizeof(*j));
}

/* ---- no GPU, no loop ------------------------------------------------------- */

/* 0 when a GPU is there to review on, else -1 with why not. */
static int
gpu_check(struct ks_buf *err)
{
	glob_t g;
	void *h;
	int (*init)(unsigned), (*count)(int *);
	int n = 0, rc;

	memset(&g, 0, sizeof(g));
	rc = glob("/dev/nvidia[0-9]*", 0, NULL, &g);
	globfree(&g);
	if (rc)
		return ks_error(err, "no GPU: no /dev/nvidia* device (the Reviewer runs "
				     "every candidate on one)");
	h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return ks_error(err, "no GPU: no CUDA driver (libcuda.so.1 not found)");
	*(void **)&init = dlsym(h, "cuInit");
	*(void **)&count = dlsym(h, "cuDeviceGetCount");
	if (!init || !count || (rc = init(0)) || count(&n) || n < 1) {
		dlclose(h);
		return ks_error(err, "no GPU: cuInit failed (CUresult %d)", rc);
	}
	dlclose(h);
	return 0;
}

/* ---- the tasks --------------------------------------------------------------- */

static int
by_launch(const void *a, const void *b)
{
	const char *x = ks_basename(*(char *const *)a), *y = ks_basename(*(char *const *)b);
	long dx = atol(x), dy = atol(y);

	return dx < dy ? -1 : dx > dy;
}

/* The kernels that took the program longest first (where time is short,
 * they are worth the most), then by name. */
static int
by_time(const void *a, const void *b)
{
	const struct job *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return strcmp(x->kdir, y->kdir);
}

/* Every captured kernel under KS_DIR/captures, by by_time(). */
static void
list_jobs(const char *dir, struct jobs *out)
{
	char *capdir = ks_fs_join(dir, "captures");
	DIR *d = opendir(capdir);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		char *kd;
		DIR *k;
		struct dirent *ce;
		struct job j;

		if (de->d_name[0] == '.')
			continue;
		memset(&j, 0, sizeof(j));
		ks_strv_init(&j.caps);
		kd = ks_fs_join(capdir, de->d_name);
		k = opendir(kd);
		while (k && (ce = readdir(k))) {
			char *cd = ks_fs_join(kd, ce->d_name), *lj = ks_fs_join(cd, "launch.json");
			struct ks_capture c;

			memset(&c, 0, sizeof(c));
			if (ce->d_name[0] != '.' && ks_fs_exists(lj) &&
			    !ks_capture_load(cd, &c, NULL)) {
				if (!j.kernel) {
					j.kernel = ks_xstrdup(c.kernel);
					j.demangled = c.demangled ? ks_xstrdup(c.demangled) : NULL;
				}
				if (!strcmp(j.kernel, c.kernel)) {
					ks_strv_push(&j.caps, cd);
					j.ns += c.duration_ns;
				}
			}
			ks_capture_release(&c);
			free(cd);
			free(lj);
		}
		if (k)
			closedir(k);
		free(kd);
		if (!j.caps.n) {
			job_release(&j);
			continue;
		}
		qsort(j.caps.v, j.caps.n, sizeof(*j.caps.v), by_launch);
		j.kdir = ks_xstrdup(de->d_name);
		out->v = ks_xrealloc(out->v, (out->n + 1) * sizeof(*out->v));
		out->v[out->n++] = j;
	}
	if (d)
		closedir(d);
	free(capdir);
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), by_time);
}

/* Keep the jobs the selection names; every selector must name one. */
static int
select_jobs(const char *dir, const struct ks_strv *sel, struct jobs *all,
	    struct ks_buf *err)
{
	char *keep;
	size_t i, j, n = 0;
	int rc = 0;

	if (!sel->n)
		return 0;
	keep = ks_xcalloc(all->n ? all->n : 1, 1);
	for (i = 0; i < sel->n && !rc; i++) {
		char *cap = ks_capture_find(dir, sel->v[i]);
		struct ks_capture c;
		regex_t re;
		int hit = 0;

		memset(&c, 0, sizeof(c));
		if (cap && !ks_capture_load(cap, &c, NULL)) {
			for (j = 0; j < all->n; j++)
				if (!strcmp(all->v[j].kernel, c.kernel))
					keep[j] = 1, hit = 1;
		} else if (!regcomp(&re, sel->v[i], REG_EXTENDED | REG_NOSUB)) {
			for (j = 0; j < all->n; j++)
				if (!regexec(&re, all->v[j].kernel, 0, NULL, 0) ||
				    (all->v[j].demangled &&
				     !regexec(&re, all->v[j].demangled, 0, NULL, 0)))
					keep[j] = 1, hit = 1;
			regfree(&re);
		}
		ks_capture_release(&c);
		free(cap);
		if (!hit)
			rc = ks_error(err, "no captured kernel matches '%s' (see 'ks captures')",
				      sel->v[i]);
	}
	for (i = 0; i < all->n; i++) {
		if (keep[i])
			all->v[n++] = all->v[i];
		else
			job_release(&all->v[i]);
	}
	all->n = n;
	free(keep);
	return rc;
}

/* ---- one task's facts and hands ------------------------------------------- */

struct ctx {
	struct ks_conf *conf;
	struct ks_agent_reviewer rv;
	struct ks_build_rec rec;
	struct ks_inventory inv, base_inv;
	const struct ks_kernel *k;
	struct ks_buf text;
	char *arch;		/* "sm_90" */
	const struct ks_policy *pol;	/* NULL: the fixed order */
	const struct ks_knowledge *know;
	cJSON *an, *ev, *launch;
	cJSON *an_view;		/* the instance view's analysis, or NULL */
	const cJSON *kobj, *evk;
	int fast;
	size_t nsim;
	char **sim_names;
	double *sim_values;
	char sig[33];		/* the task's signature */
	struct ks_buf checks;	/* what final checks cost (checks.jsonl) */
	int inst;		/* `k` a template: its instance's view */
	struct ks_inst_view view;
};

static void
ctx_release(struct ctx *c)
{
	ks_build_rec_release(&c->rec);
	ks_inventory_release(&c->inv);
	ks_inventory_release(&c->base_inv);
	if (c->inst)
		ks_inst_view_release(&c->view);
	ks_buf_release(&c->text);
	ks_buf_release(&c->checks);
	free(c->arch);
	cJSON_Delete(c->an);
	cJSON_Delete(c->an_view);
	cJSON_Delete(c->ev);
	cJSON_Delete(c->launch);
	for (size_t i = 0; i < c->nsim; i++)
		free(c->sim_names[i]);
	free(c->sim_names);
	free(c->sim_values);
}

static int
has_fast_math(const struct ks_strv *argv)
{
	for (size_t i = 0; i < argv->n; i++)
		if (!strcmp(argv->v[i], "-use_fast_math") ||
		    !strcmp(argv->v[i], "--use_fast_math"))
			return 1;
	return 0;
}

static int
arch_number(const char *arch)
{
	const char *d = arch ? strchr(arch, '_') : NULL;
	int n = d ? atoi(d + 1) : 0;

	return n > 0 ? n * 10 : 0;
}

/* The analyze JSON's object of kernel `mangled`. */
static const cJSON *
kernel_object(const cJSON *an, const char *mangled)
{
	const cJSON *k;

	cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(an, "kernels")) {
		const char *m = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(k, "mangled"));

		if (m && !strcmp(m, mangled))
			return k;
	}
	return NULL;
}

static void
policy_values(const struct ctx *c, struct ks_policy_values *vals, const cJSON *metrics)
{
	ks_policy_values_init(vals, c->pol);
	ks_cli_plan_values(c->pol, vals, c->kobj, c->evk, metrics,
			   cJSON_GetObjectItemCaseSensitive(c->launch, "block"),
			   cJSON_GetObjectItemCaseSensitive(c->launch, "grid"), c->fast);
}

/* The similarity vector the statistics are keyed by (the static facts). */
static void
similarity(struct ctx *c)
{
	struct ks_policy_values vals;

	if (!c->pol)
		return;
	policy_values(c, &vals, NULL);
	c->sim_names = ks_xcalloc(c->pol->nsimilarity + 1, sizeof(*c->sim_names));
	c->sim_values = ks_xcalloc(c->pol->nsimilarity + 1, sizeof(*c->sim_values));
	for (size_t i = 0; i < c->pol->nsimilarity; i++) {
		int slot = c->pol->similarity[i];

		if (!vals.v[slot].known)
			continue;
		c->sim_names[c->nsim] = ks_xstrdup(c->pol->inputs[slot].name);
		c->sim_values[c->nsim++] = vals.v[slot].v;
	}
	ks_policy_values_release(&vals);
}

static void
plan_add(struct ks_agent_plan *p, const char *id, const char *why, const char *bucket,
	 const char *case_id, const char *gain)
{
	p->v = ks_xrealloc(p->v, (p->n + 1) * sizeof(*p->v));
	p->v[p->n].id = ks_xstrdup(id);
	p->v[p->n].why = why ? ks_xstrdup(why) : NULL;
	p->v[p->n].bucket = bucket ? ks_xstrdup(bucket) : NULL;
	p->v[p->n].case_id = case_id ? ks_xstrdup(case_id) : NULL;
	p->v[p->n].gain = gain ? ks_xstrdup(gain) : NULL;
	p->n++;
}

/* Is `id` in the plan already? */
static int
planned(const struct ks_agent_plan *p, const char *id)
{
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->v[i].id, id))
			return 1;
	return 0;
}

/*
 * The policy could not judge every case (some need counters it does not
 * have): after the skills it allowed, every other builtin transform it
 * does not forbid, in their fixed order. Each declines where its pattern
 * is absent, and the Reviewer verifies the rest; with the counters
 * measured, the policy's word is final. Each promises what the skipped
 * cases that allow it promise, a small gain where none does: built from
 * the original, it then competes with a base that moved as any other
 * skill does (ks_agent_gain_can_pass).
 */
static void
plan_unjudged(const struct ks_plan *pl, struct ks_agent_plan *out)
{
	size_t n, i, f;
	const struct ks_transform *const *all = ks_xf_all(&n);

	for (i = 0; i < n; i++) {
		const char *gain;
		char *why;

		for (f = 0; f < pl->nforbidden; f++)
			if (!strcmp(pl->forbidden[f].skill, all[i]->id))
				break;
		if (f < pl->nforbidden || planned(out, all[i]->id))
			continue;
		gain = ks_plan_unjudged_gain(pl, all[i]->id);
		why = ks_xasprintf("not allowed by a case, but cases the policy could not "
				   "judge (no counters) might: tried after the allowed ones, "
				   "not forbidden; at most a %s gain (%s)", gain,
				   strcmp(gain, "small") ? "the most a skipped case that "
				   "allows it promises" : "no skipped case allows it, or "
				   "those that do promise no more");
		plan_add(out, all[i]->id, why, NULL, NULL, gain);
		free(why);
	}
}

/* ops.plan: the policy over the base's metrics and the kernel's facts. */
static int
plan_op(void *vctx, const struct ks_task *t, size_t n, char *const *names,
	const double *values, struct ks_agent_plan *out, struct ks_buf *err)
{
	struct ctx *c = vctx;
	struct ks_policy_values vals;
	struct ks_plan pl;
	cJSON *m;
	size_t i;

	(void)t;
	(void)err;
	if (!c->pol) {
		const struct ks_transform *const *all = ks_xf_all(&n);

		for (i = 0; i < n; i++)
			plan_add(out, all[i]->id, "fixed order (--no-long-term-memory)",
				 NULL, NULL, NULL);
		return 0;
	}
	m = cJSON_CreateObject();
	for (i = 0; i < n; i++)
		cJSON_AddNumberToObject(m, ks_starts_with(names[i], "m.") ? names[i] + 2 :
					names[i], values[i]);
	policy_values(c, &vals, m);
	ks_policy_plan(c->pol, &vals, &pl);
	if (c->know)
		ks_policy_rank(c->pol, &vals, c->know, &pl);
	for (i = 0; i < pl.nallowed; i++)
		plan_add(out, pl.allowed[i].skill, pl.allowed[i].why, pl.allowed[i].bucket,
			 pl.allowed[i].case_id, pl.allowed[i].gain);
	if (!pl.counters || pl.nskipped)
		plan_unjudged(&pl, out);
	ks_log("optimize: plan for %s: %zu allowed, %zu forbidden, %zu skipped",
	       t->kernel, pl.nallowed, pl.nforbidden, pl.nskipped);
	ks_plan_release(&pl);
	ks_policy_values_release(&vals);
	cJSON_Delete(m);
	return 0;
}

/* "-Irel" of a record, made absolute against its cwd. */
static void
push_abs_flag(struct ks_strv *out, const char *flag, const char *cwd)
{
	static const char *const prefixes[] = { "-isystem", "-I", "-include", NULL };

	for (size_t i = 0; prefixes[i]; i++) {
		size_t n = strlen(prefixes[i]);
		const char *p = flag + n;

		if (strncmp(flag, prefixes[i], n) || !*p || *p == '/')
			continue;
		ks_strv_push_owned(out, ks_xasprintf("%s%s/%s", prefixes[i], cwd, p));
		return;
	}
	ks_strv_push(out, flag);
}

/* An instance's base in its view: the plain kernel of the copy's name
 * where the copy began (the text before it is the view's own). */
static const struct ks_kernel *
base_copy(const struct ks_inventory *inv, const struct ks_kernel *copy)
{
	size_t i;

	for (i = 0; i < inv->nkernels; i++) {
		const struct ks_kernel *k = &inv->kernels[i];

		if (!k->is_template && !strcmp(k->name, copy->name) &&
		    k->extent.begin >= copy->extent.begin)
			return k;
	}
	return NULL;
}

/* ops.base_kernel: the kernel as the analysis reads it in a base's source
 * (of an instance: its base in the instance view). */
static int
base_kernel_op(void *vctx, const struct ks_task *t, const char *path,
	       const struct ks_kernel **k, struct ks_buf *err)
{
	struct ctx *c = vctx;
	struct ks_strv args = KS_STRV_INIT;
	char *used = NULL, *srcdir = ks_xstrdup(c->rec.source), *slash;
	size_t i;
	int rc = -1;

	ks_inventory_release(&c->base_inv);
	memset(&c->base_inv, 0, sizeof(c->base_inv));
	/* The base's source lies in the task's folder: its quoted includes
	 * are looked for where the original's were. */
	if ((slash = strrchr(srcdir, '/')))
		*slash = '\0';
	ks_strv_push_owned(&args, ks_xasprintf("-I%s", srcdir));
	for (i = 0; i < c->rec.includes.n; i++)
		push_abs_flag(&args, c->rec.includes.v[i], c->rec.cwd);
	for (i = 0; i < c->rec.defines.n; i++)
		ks_strv_push(&args, c->rec.defines.v[i]);
	if (c->rec.std)
		ks_strv_push_owned(&args, ks_xasprintf("-std=%s", c->rec.std));
	if (ks_analyze_inventory(NULL, path, args.v, (int)args.n, c->arch, c->conf,
				 &c->base_inv, &used, err))
		goto out;
	*k = t->inst_args ? base_copy(&c->base_inv, t->inst_k)
			  : ks_inventory_find(&c->base_inv, t->kernel);
	if (!*k) {
		ks_error(err, "no kernel %s in the base's source", t->kernel);
		goto out;
	}
	rc = 0;
out:
	free(used);
	free(srcdir);
	ks_strv_release(&args);
	return rc;
}

/* ops.review: the Reviewer library on every capture of the task. */
static int
review_op(void *vctx, const struct ks_task *t, const char *candidate,
	  struct ks_agent_review *out, struct ks_buf *err)
{
	struct ctx *c = vctx;

	return ks_agent_review_real(&c->rv, t, candidate, out, err);
}

/* ops.counters: a new base's counters, in a metrics-only pass. */
static int
counters_op(void *vctx, const struct ks_task *t, const char *candidate,
	    struct ks_agent_review *out, struct ks_buf *err)
{
	struct ctx *c = vctx;

	return ks_agent_counters_real(&c->rv, t, candidate, out, err);
}

/* A file's bytes into `h`, read in pieces (a buffer may be gigabytes);
 * -1 when it cannot be read. */
static int
hash_file(struct ks_hash *h, const char *path)
{
	enum { PIECE = 1 << 20 };
	FILE *f = fopen(path, "rb");
	unsigned char *piece;
	size_t n;
	int rc = 0;

	if (!f)
		return -1;
	piece = ks_xmalloc(PIECE);
	while ((n = fread(piece, 1, PIECE, f)) > 0)
		ks_hash_bytes(h, piece, n);
	if (ferror(f))
		rc = -1;
	free(piece);
	fclose(f);
	return rc;
}

/* One capture into `h`: its identity (the launch, not the run it came
 * from) and its buffers' before and after bytes, so that the same launch
 * captured again on another machine or day is the same test case and a
 * task resumes on it; else its path and launch.json as they are. */
static void
signature_capture(struct ks_hash *h, const char *dir, size_t i)
{
	struct ks_capture cap;
	struct ks_buf lt = KS_BUF_INIT;
	char *lp;
	int ok;

	memset(&cap, 0, sizeof(cap));
	ks_hash_u64(h, i);
	ok = !ks_capture_load(dir, &cap, NULL);
	if (ok) {
		ks_capture_identity(&cap, h);
		for (size_t b = 0; ok && b < cap.nbuffers * 2; b++) {
			char *bp = ks_capture_buffer_path(dir, b / 2, (int)(b % 2));

			ok = !hash_file(h, bp);
			free(bp);
		}
	}
	ks_capture_release(&cap);
	if (ok)
		return;
	lp = ks_fs_join(dir, "launch.json");
	lt.max = 1 << 24;
	ks_hash_str(h, dir);
	if (!ks_fs_read(lp, &lt, NULL))
		ks_hash_bytes(h, lt.buf, lt.len);
	ks_buf_release(&lt);
	free(lp);
}

/* The source and every capture's launch: another program, another task. */
static void
signature(struct ctx *c, const struct job *j)
{
	struct ks_hash h;

	ks_hash_init(&h);
	ks_hash_str(&h, c->k->mangled ? c->k->mangled : "");
	ks_hash_bytes(&h, c->text.buf, c->text.len);
	for (size_t i = 0; i < j->caps.n; i++)
		signature_capture(&h, j->caps.v[i], i);
	ks_hash_hex128(&h, c->sig);
	ks_hash_release(&h);
}

static const char *key_of(const struct ctx *c, const char *mangled);

/*
 * A kernel defined in a header the TU includes: the transforms, the
 * splice and the Reviewer read the TU's text with that header brought in
 * (ks_header_view_apply), where the kernel is in the main file.
 */
static int
header_view(struct ctx *c, const char *kernel, struct ks_buf *err)
{
	struct ks_inst_view_in in;

	memset(&in, 0, sizeof(in));
	in.record = c->rec.path;
	in.arch = c->arch;
	in.conf = c->conf;
	in.source = c->inv.source;
	in.text = c->text.buf;
	in.len = c->text.len;
	in.k = c->k;
	return ks_header_view_apply(&in, kernel, &c->inv, &c->text, &c->k, err);
}

/* Everything a task needs before its loop starts. */
static int
prepare(struct ctx *c, const struct job *j, const struct opts *o, struct ks_buf *err)
{
	struct ks_capture cap;
	struct ks_strv aargs = KS_STRV_INIT, eargs = KS_STRV_INIT;
	struct ks_buf lt = KS_BUF_INIT, e = KS_BUF_INIT;
	char *used = NULL, *lp;
	int rc = -1;

	memset(&cap, 0, sizeof(cap));
	if (ks_capture_load(j->caps.v[0], &cap, err))
		goto out;
	if (!(cap.record && ks_fs_exists(cap.record) &&
	      !ks_build_rec_load(cap.record, &c->rec, NULL)) &&
	    ks_build_rec_find(c->conf->dir, cap.kernel, &c->rec, err))
		goto out;
	if (cap.cc_major > 0)
		c->arch = ks_xasprintf("sm_%d%d", cap.cc_major, cap.cc_minor);
	if (ks_analyze_inventory(c->rec.path, NULL, NULL, 0, c->arch, c->conf, &c->inv,
				 &used, err))
		goto out;
	free(c->arch);
	c->arch = used;
	c->k = ks_inventory_find(&c->inv, cap.kernel);
	if (!c->k) {
		ks_error(err, "no kernel %s in %s", cap.kernel, c->inv.source);
		goto out;
	}

	/* Before any GPU time: a variant verified here could not be cached. */
	if (!key_of(c, cap.kernel)) {
		ks_error(err, "the build of %s names no target this GPU (%s) runs, nor "
			      "one it reaches through PTX (a symbolic -arch such as "
			      "native?): no variant could be cached", c->k->name, c->arch);
		goto out;
	}
	c->text.max = 64 << 20;
	if (ks_fs_read(c->inv.source, &c->text, err))
		goto out;
	if (!c->k->in_main_file && header_view(c, cap.kernel, err))
		goto out;
	if (c->k->is_template) {
		/* The transforms read the instance's plain copy; without it
		 * they decline the template, and the task goes on. */
		struct ks_inst_view_in in;
		struct ks_buf ve = KS_BUF_INIT;

		memset(&in, 0, sizeof(in));
		in.record = c->rec.path;
		in.arch = c->arch;
		in.conf = c->conf;
		in.source = c->inv.source;
		in.text = c->text.buf;
		in.len = c->text.len;
		in.k = c->k;
		in.name = cap.kernel;
		if (ks_inst_view_make(&in, &c->view, &ve))
			ks_log("optimize: %s: no instance view: %s", cap.kernel, ve.buf);
		else
			c->inst = 1;
		ks_buf_release(&ve);
	}
	c->fast = has_fast_math(&c->rec.argv);
	signature(c, j);
	lp = ks_fs_join(j->caps.v[0], "launch.json");
	lt.max = 1 << 24;
	if (!ks_fs_read(lp, &lt, NULL))
		c->launch = cJSON_Parse(lt.buf);
	free(lp);
	c->rv.conf = c->conf;
	c->rv.record = c->rec.path;
	c->rv.metrics = o->metrics;
	/* Counters where the Planner reads them: the seed and each new base. */
	c->rv.base_counters = o->metrics;
	if (c->pol) {
		/* The facts ks plan reads, from the same commands. */
		ks_strv_push(&aargs, "analyze");
		ks_strv_push(&aargs, "--record");
		ks_strv_push(&aargs, c->rec.path);
		ks_strv_push(&aargs, "--json");
		if (!(c->an = ks_cli_self_json(&aargs, err)))
			goto out;
		c->kobj = kernel_object(c->an, cap.kernel);
		if (c->inst) {
			/* A template's facts are of its dependent types: the
			 * plan reads its instance's, the plain copy's. */
			struct ks_buf vj = KS_BUF_INIT;

			ks_inventory_format_json(&c->view.inv, &vj);
			c->an_view = cJSON_Parse(vj.buf);
			ks_buf_release(&vj);
			if (c->an_view && c->view.k->mangled)
				c->kobj = kernel_object(c->an_view, c->view.k->mangled);
		}
		ks_strv_push(&eargs, "evidence");
		ks_strv_push(&eargs, "--json");
		ks_strv_push(&eargs, c->rec.source);
		c->ev = ks_cli_self_json(&eargs, &e);
		if (!c->ev)
			ks_log("optimize: no compiler evidence: %s", e.buf);
		c->evk = c->ev ? ks_cli_evidence_of(c->ev, cap.kernel, c->arch) : NULL;
		similarity(c);
	}
	rc = 0;
out:
	ks_capture_release(&cap);
	ks_strv_release(&aargs);
	ks_strv_release(&eargs);
	ks_buf_release(&lt);
	ks_buf_release(&e);
	return rc;
}

/* ---- the cache --------------------------------------------------------------- */

static const char *
key_of(const struct ctx *c, const char *mangled)
{
	for (size_t i = 0; i < c->k->nkeys; i++)
		if (!strcmp(c->k->keys[i].mangled, mangled) &&
		    !strcmp(c->k->keys[i].arch, c->arch))
			return c->k->keys[i].key;
	return NULL;
}

/* The one call into the variant cache: the best verified variant. */
static int
save_best(const struct ctx *c, const struct job *j, const struct ks_task *t,
	  int best, struct ks_buf *err)
{
	const struct ks_traj_round *b = &t->traj.v[best];
	struct ks_buf variant = KS_BUF_INIT, ev = KS_BUF_INIT, trail = KS_BUF_INIT;
	struct ks_store_meta m;
	char *path = ks_fs_join(t->dir, b->variant), *cache = ks_fs_join(c->conf->dir, "cache");
	int rc = -1;

	memset(&m, 0, sizeof(m));
	m.key = key_of(c, t->kernel);
	if (!m.key) {
		ks_error(err, "no kernel key of %s for %s (the build does not compile it "
			      "for that arch)", t->kernel, c->arch);
		goto out;
	}
	variant.max = 64 << 20;
	if (ks_fs_read(path, &variant, err))
		goto out;
	ks_traj_round_json(b, &ev);
	ks_buf_rtrim(&ev);
	ks_task_trail_json(t, best, &trail);
	m.kernel = t->kernel;
	m.demangled = j->demangled;
	m.instance = t->inst_args;
	m.arch = (unsigned)t->arch;
	m.source = c->inv.source;
	m.orig_ms = b->orig.median;
	m.orig_lo_ms = b->orig.lo;
	m.orig_hi_ms = b->orig.hi;
	m.var_ms = b->cand.median;
	m.var_lo_ms = b->cand.lo;
	m.var_hi_ms = b->cand.hi;
	m.speedup = b->speedup;
	m.captures = (const char *const *)j->caps.v;
	m.ncaptures = j->caps.n;
	m.evidence = ev.buf;
	m.trail = trail.buf;
	m.rounds = (unsigned)t->state.reviews;
	m.model = t->llm ? ks_llm_model(t->llm) : "none";
	m.ks_version = KS_VERSION;
	rc = ks_store_put(cache, &m, variant.buf, variant.len, err);
out:
	free(path);
	free(cache);
	ks_buf_release(&variant);
	ks_buf_release(&ev);
	ks_buf_release(&trail);
	return rc;
}

/*
 * The last check before the cache: the best variant once more on every
 * capture, with compute-sanitizer's memcheck and racecheck.
 */
static int
sanitize_best(struct ctx *c, const struct ks_task *t, int best, double *gpu_ms,
	      struct ks_buf *err)
{
	struct ks_agent_review rv;
	struct ks_agent_reviewer s = c->rv;
	char *path = ks_fs_join(t->dir, t->traj.v[best].file);
	int rc;

	memset(&rv, 0, sizeof(rv));
	s.sanitize = 1;
	s.untimed = 1;
	s.final = 1;
	s.metrics = 0;
	rc = ks_agent_review_real(&s, t, path, &rv, err);
	if (!rc && (!rv.verdict || strcmp(rv.verdict, "correct")))
		rc = ks_error(err, "the final check with compute-sanitizer: %s: %s",
			      rv.verdict ? rv.verdict : "no verdict",
			      rv.why ? rv.why : "no reason given");
	*gpu_ms = rv.gpu_ms;
	ks_log("optimize: %s: the final sanitizer check took %.1f s (setup %.1f, "
	       "original %.1f, candidate %.1f, sanitizer %.1f; compile %.1f on the "
	       "CPU, %.1f waiting for the GPU)", t->id, rv.gpu_ms / 1e3,
	       rv.cost.s[KS_TRAJ_COST_SETUP], rv.cost.s[KS_TRAJ_COST_ORIGINAL],
	       rv.cost.s[KS_TRAJ_COST_CANDIDATE], rv.cost.s[KS_TRAJ_COST_SANITIZER],
	       rv.cost.s[KS_TRAJ_COST_COMPILE], rv.cost.s[KS_TRAJ_COST_LOCK_WAIT]);
	ks_agent_review_release(&rv);
	free(path);
	return rc;
}

/* What the final check cost, for the next tasks' budgets (with the
 * long-term memory; a failure to write it costs only the estimate). */
static void
record_check(const struct ks_task *t, const struct opts *o, double check_ms)
{
	const struct ks_traj_round *b = &t->traj.v[ks_task_best(t)];
	struct ks_check_cost cc = { t->kernel, b->skill, t->state.seed_ms, check_ms };
	struct ks_buf e = KS_BUF_INIT;

	if (!o->ltm || !b->skill || check_ms <= 0 || t->state.seed_ms <= 0)
		return;
	if (ks_knowledge_check_append(t->ks_dir, &cc, t->lock_timeout_ms, &e))
		ks_log("optimize: %s: what the final check cost is not kept: %s", t->id,
		       e.buf);
	ks_buf_release(&e);
}

/* ---- progress and the report ------------------------------------------------ */

struct live {
	int on;
	const char *name;
	unsigned rounds;
};

static void
progress(void *vctx, const struct ks_task *t, const struct ks_traj_round *r)
{
	const struct live *l = vctx;
	const struct ks_traj_round *best = &t->traj.v[t->state.best];

	if (!l->on)
		return;
	fprintf(stderr, "\r\033[K%.40s  round %zu/%u  %s %s: %s  best %.3fx", l->name,
		t->state.reviews, l->rounds, r->skill ? r->skill : "seed",
		r->params ? r->params : "", r->verdict ? r->verdict : "?",
		t->state.best ? best->speedup : 1.0);
	fflush(stderr);
}

struct row {
	char *kernel;
	char *end;
	double orig_us, best_us, speedup, sol;
	size_t rounds;
	double gpu_s;		/* the task's GPU time: its steps and the final check */
	double final_s;		/* of which the final check */
	char *skills;
	char *task;
	char *cached;		/* the cache's answer, or NULL */
};

static void
row_release(struct row *r)
{
	free(r->kernel);
	free(r->end);
	free(r->skills);
	free(r->task);
	free(r->cached);
}

/*
 * The higher of the DRAM and SM throughput, % of peak: how near the
 * hardware the kernel runs, from counters (not the floor of docs/, bytes
 * over the measured copy rate, which needs the program's byte count).
 */
static double
sol_of(const struct ks_traj_round *r)
{
	double s = -1;

	for (size_t i = 0; i < r->nmetrics; i++)
		if ((!strcmp(r->mnames[i], "m.dram_pct") || !strcmp(r->mnames[i], "m.sm_pct")) &&
		    r->mvalues[i] > s)
			s = r->mvalues[i];
	return s;
}

static void
fill_row(struct row *row, const struct ks_task *t, const char *name)
{
	int best = ks_task_best(t);
	struct ks_buf skills = KS_BUF_INIT;
	int chain[256];
	size_t n = 0;

	row->kernel = ks_xstrdup(name);
	row->end = ks_xasprintf("%s%s%s", ks_task_end_name(t->end), t->end_why ? ": " : "",
				t->end_why ? t->end_why : "");
	row->rounds = t->state.reviews;
	row->gpu_s = t->state.gpu_ms / 1e3;
	row->sol = -1;
	if (t->traj.n && t->traj.v[0].orig.have)
		row->orig_us = t->traj.v[0].orig.median * 1e3;
	if (best) {
		const struct ks_traj_round *b = &t->traj.v[best];
		int r = best;

		/* Both sides as timed interleaved in the best's own review. */
		row->orig_us = b->orig.median * 1e3;
		row->best_us = b->cand.median * 1e3;
		row->speedup = b->speedup;
		row->sol = sol_of(b);
		while (r > 0 && n < 256) {
			chain[n++] = r;
			r = t->traj.v[r].parent;
		}
		while (n-- > 0)
			ks_buf_addf(&skills, "%s%s", skills.len ? "+" : "",
				    t->traj.v[chain[n]].skill);
	} else if (t->traj.n) {
		row->sol = sol_of(&t->traj.v[0]);
	}
	row->skills = ks_buf_detach(&skills, NULL);
}

static void
print_table(const struct row *rows, size_t n)
{
	printf("%-32s %12s %12s %8s %9s %6s  %s\n", "kernel", "original us", "best us",
	       "speedup", "% peak", "rounds", "skills");
	for (size_t i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		char ob[32] = "-", bb[32] = "-", sp[32] = "-", so[32] = "-";

		if (r->orig_us > 0)
			snprintf(ob, sizeof(ob), "%.2f", r->orig_us);
		if (r->best_us > 0) {
			snprintf(bb, sizeof(bb), "%.2f", r->best_us);
			snprintf(sp, sizeof(sp), "%.3fx", r->speedup);
		}
		if (r->sol >= 0)
			snprintf(so, sizeof(so), "%.0f%%", r->sol);
		printf("%-32.32s %12s %12s %8s %9s %6zu  %s\n", r->kernel, ob, bb, sp, so,
		       r->rounds, r->skills && *r->skills ? r->skills : "-");
		printf("%-32s   %s; task %s%s%s\n", "", r->end, r->task,
		       r->cached ? "; " : "", r->cached ? r->cached : "");
	}
}

/* A row as one JSON object (print_json's), and back. */
static void
row_json(const struct row *r, struct ks_buf *j)
{
	ks_buf_adds(j, "{\"kernel\": ");
	ks_buf_add_json_str(j, r->kernel ? r->kernel : "");
	ks_buf_adds(j, ", \"task\": ");
	ks_buf_add_json_str(j, r->task ? r->task : "");
	ks_buf_addf(j, ", \"original_us\": %.4f, \"best_us\": %.4f, \"speedup\": %.4f, "
		    "\"peak_pct\": ", r->orig_us, r->best_us, r->speedup);
	if (r->sol >= 0)
		ks_buf_addf(j, "%.2f", r->sol);
	else
		ks_buf_adds(j, "null");
	ks_buf_addf(j, ", \"rounds\": %zu, \"gpu_s\": %.3f, \"final_check_s\": %.3f, "
		    "\"skills\": ", r->rounds, r->gpu_s, r->final_s);
	ks_buf_add_json_str(j, r->skills ? r->skills : "");
	ks_buf_adds(j, ", \"end\": ");
	ks_buf_add_json_str(j, r->end ? r->end : "");
	ks_buf_adds(j, ", \"cache\": ");
	ks_buf_add_json_str_or_null(j, r->cached);
	ks_buf_adds(j, "}");
}

static int
row_parse(const char *text, struct row *r)
{
	cJSON *o = cJSON_Parse(text);
	const cJSON *f;

	if (!cJSON_IsObject(o)) {
		cJSON_Delete(o);
		return -1;
	}
	r->kernel = ks_json_dup(o, "kernel");
	r->end = ks_json_dup(o, "end");
	r->skills = ks_json_dup(o, "skills");
	r->cached = ks_json_dup(o, "cache");
	r->orig_us = ks_json_num(o, "original_us");
	r->best_us = ks_json_num(o, "best_us");
	r->speedup = ks_json_num(o, "speedup");
	f = cJSON_GetObjectItemCaseSensitive(o, "peak_pct");
	if (!f)	/* rows written before the rename */
		f = cJSON_GetObjectItemCaseSensitive(o, "floor_pct");
	r->sol = cJSON_IsNumber(f) ? f->valuedouble : -1;
	r->rounds = (size_t)ks_json_num(o, "rounds");
	r->gpu_s = ks_json_num(o, "gpu_s");
	r->final_s = ks_json_num(o, "final_check_s");
	cJSON_Delete(o);
	return 0;
}

static void
print_json(const struct row *rows, size_t n)
{
	struct ks_buf j = KS_BUF_INIT;

	ks_buf_adds(&j, "[");
	for (size_t i = 0; i < n; i++) {
		ks_buf_adds(&j, i ? ",\n " : "");
		row_json(&rows[i], &j);
	}
	ks_buf_adds(&j, "]\n");
	fputs(j.buf, stdout);
	ks_buf_release(&j);
}

/* ---- the command ------------------------------------------------------------ */

/* What every task of one run shares. */
struct env {
	struct ks_conf *conf;
	const struct opts *o;
	const struct ks_policy *pol;
	const struct ks_knowledge *know;
	const struct ks_skills *skills;	/* for the LLM's prompts, or NULL */
	struct ks_llm *llm;
	double min_gain;
	int live;
};

/* One task, start to end, into its row. */
static void
run_task(const struct env *env, const struct job *j, struct row *row)
{
	const struct opts *o = env->o;
	struct ctx c;
	struct ks_task t;
	struct live live;
	struct ks_buf e = KS_BUF_INIT;
	char *dir = ks_traj_task_dir(env->conf->dir, j->kdir);
	char *lock = ks_conf_gpu_lock(env->conf);
	const char *name = j->demangled ? j->demangled : j->kernel;

	memset(&c, 0, sizeof(c));
	c.text = (struct ks_buf)KS_BUF_INIT;
	c.checks = (struct ks_buf)KS_BUF_INIT;
	c.conf = env->conf;
	c.pol = env->pol;
	c.know = env->know;
	/* GPU runs of this and any other ks on the machine, one at a time. */
	c.rv.gpu_lock = lock;
	ks_task_init(&t);
	row->task = ks_xstrdup(j->kdir);
	row->sol = -1;
	if (prepare(&c, j, o, &e)) {
		/* One kernel that cannot be read is that kernel's end. */
		row->kernel = ks_xstrdup(name);
		row->end = ks_xasprintf("ineligible: %s", e.buf);
		goto out;
	}
	t.id = j->kdir;
	t.dir = dir;
	t.ks_dir = env->conf->dir;
	t.kernel = j->kernel;
	t.signature = c.sig;
	t.captures = (const char *const *)j->caps.v;
	t.ncaptures = j->caps.n;
	t.inv = &c.inv;
	t.k = c.k;
	t.source = c.inv.source;
	t.text = c.text.buf;
	t.len = c.text.len;
	if (c.inst) {
		t.inst_args = c.view.args;
		t.inst_k = c.view.k;
		t.inst_text = c.view.mono.text;
		t.inst_len = c.view.mono.len;
		t.inst_aliases = c.view.mono.aliases;
	}
	t.arch = arch_number(c.arch);
	t.fast_math = c.fast;
	t.rounds = o->rounds;
	t.gpu_ms = o->budget_min * 60e3;
	t.tokens = env->llm ? env->conf->llm_tokens : 0;
	t.min_gain = env->min_gain;
	t.short_term = o->stm;
	t.long_term = o->ltm;
	/* unreadable: the default reserve, as with none */
	if (o->ltm && !ks_knowledge_checks_load(env->conf->dir, &c.checks, NULL))
		t.check_costs = c.checks.buf;
	t.lock_timeout_ms = env->conf->lock_timeout_ms;
	t.nfeatures = c.nsim;
	t.fnames = c.sim_names;
	t.fvalues = c.sim_values;
	t.ops.ctx = &c;
	t.ops.review = review_op;
	t.ops.plan = plan_op;
	t.ops.base_kernel = base_kernel_op;
	if (o->metrics)
		t.ops.counters = counters_op;
	t.llm = env->llm;
	t.skills = env->skills;
	t.llm_repairs = env->conf->llm_repairs > 0 ? (unsigned)env->conf->llm_repairs : 0;
	live.on = env->live;
	live.name = name;
	live.rounds = o->rounds;
	t.progress = progress;
	t.progress_ctx = &live;
	if (ks_agents_run(&t, &e)) {
		row->kernel = ks_xstrdup(name);
		row->end = ks_xasprintf("error: %s", e.buf);
	} else {
		fill_row(row, &t, name);
		if (ks_task_best(&t) && !o->cache)
			row->cached = ks_xstrdup("reviewed");
		else if (ks_task_best(&t)) {
			struct ks_buf se = KS_BUF_INIT;

			double fin = 0;
			int bad = sanitize_best(&c, &t, ks_task_best(&t), &fin, &se);

			row->final_s = fin / 1e3;
			row->gpu_s += row->final_s;
			record_check(&t, o, fin);
			if (bad)
				row->cached = ks_xasprintf("not cached: %s", se.buf);
			else if (save_best(&c, j, &t, ks_task_best(&t), &se))
				row->cached = ks_xasprintf("not cached: %s", se.buf);
			else
				row->cached = ks_xstrdup("cached");
			ks_buf_release(&se);
		}
	}
	if (live.on)
		fputs("\r\033[K", stderr);
out:
	ks_task_release(&t);
	ctx_release(&c);
	ks_buf_release(&e);
	free(dir);
	free(lock);
}

/*
 * Several tasks at once, from one queue (core/workers.h): per GPU, `jobs`
 * worker processes; analysis, transforms and the Reviewer's builds run
 * side by side, while each GPU's lock keeps that GPU's runs one at a
 * time. Each worker writes its rows beside the tasks' trajectories; a
 * task whose worker died runs again (on another GPU where there is one),
 * resuming from its trajectory.
 */
struct pool {
	const struct env *env;
	const struct jobs *jobs;
};

static char *
row_path(const struct pool *p, size_t i)
{
	char *dir = ks_traj_task_dir(p->env->conf->dir, p->jobs->v[i].kdir);
	char *path = ks_fs_join(dir, "row.json");

	free(dir);
	return path;
}

static void
pool_run(void *ctx, size_t i, size_t worker)
{
	const struct pool *p = ctx;
	struct row r;
	struct ks_buf j = KS_BUF_INIT;
	char *dir = ks_traj_task_dir(p->env->conf->dir, p->jobs->v[i].kdir);
	char *path = row_path(p, i);

	(void)worker;
	memset(&r, 0, sizeof(r));
	run_task(p->env, &p->jobs->v[i], &r);
	row_json(&r, &j);
	ks_fs_mkdirs(dir, NULL);
	ks_fs_write_atomic(path, j.buf, j.len, NULL);
	row_release(&r);
	ks_buf_release(&j);
	free(dir);
	free(path);
}

static int
pool_done(void *ctx, size_t i)
{
	char *path = row_path(ctx, i);
	int done = access(path, F_OK) == 0;

	free(path);
	return done;
}

static void
run_workers(const struct env *env, const struct jobs *jobs, struct row *rows,
	    size_t per_gpu, const struct ks_strv *gpus)
{
	struct pool p = { env, jobs };
	struct ks_workers w;
	struct ks_buf err = KS_BUF_INIT;
	size_t i;

	for (i = 0; i < jobs->n; i++) {
		char *path = row_path(&p, i);

		remove(path);	/* a row of an earlier run is not this run's */
		free(path);
	}
	memset(&w, 0, sizeof(w));
	w.ntasks = jobs->n;
	w.devices = gpus ? (const char *const *)gpus->v : NULL;
	w.ndevices = gpus ? gpus->n : 0;
	w.per_device = per_gpu;
	w.run = pool_run;
	w.done = pool_done;
	w.ctx = &p;
	if (ks_workers_run(&w, &err))
		ks_log("optimize: %s", err.buf);
	else if (w.rerun)
		ks_log("optimize: %zu task%s ran again after their worker died", w.rerun,
		       w.rerun == 1 ? "" : "s");
	ks_buf_release(&err);
	for (i = 0; i < jobs->n; i++) {
		char *path = row_path(&p, i);
		struct ks_buf text = KS_BUF_INIT;

		text.max = 1 << 20;
		if (ks_fs_read(path, &text, NULL) || row_parse(text.buf, &rows[i])) {
			rows[i].kernel = ks_xstrdup(jobs->v[i].demangled ? jobs->v[i].demangled :
						    jobs->v[i].kernel);
			rows[i].end = ks_xstrdup("error: its worker ended without a result");
			rows[i].sol = -1;
		}
		rows[i].task = ks_xstrdup(jobs->v[i].kdir);
		remove(path);
		ks_buf_release(&text);
		free(path);
	}
}

static int
parse(int argc, char **argv, struct opts *o)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		char *end = NULL;

		long n = v ? strtol(v, &end, 10) : 0;

		/* Each option with a value takes the next argument. */
		if (!strcmp(a, "--rounds") && v && !*end && n >= 1) {
			o->rounds = (unsigned)n, i++;
		} else if (!strcmp(a, "--jobs") && v && !*end && n >= 1) {
			o->jobs = n, i++;
		} else if (!strcmp(a, "--budget") && v && (o->budget_min = strtod(v, &end)) > 0 &&
			   !*end) {
			i++;
		} else if (!strcmp(a, "--gpus") && v) {
			o->gpus = v, i++;
		} else if (!strcmp(a, "--llm") && v) {
			o->llm = v, i++;
		} else if (!strcmp(a, "--no-long-term-memory")) {
			o->ltm = 0;
		} else if (!strcmp(a, "--no-short-term-memory")) {
			o->stm = 0;
		} else if (!strcmp(a, "--no-metrics")) {
			o->metrics = 0;
		} else if (!strcmp(a, "--no-cache")) {
			o->cache = 0;
		} else if (!strcmp(a, "--json")) {
			o->json = 1;
		} else if (a[0] == '-') {
			return -1;
		} else {
			ks_strv_push(&o->sel, a);
		}
	}
	return 0;
}

static int
open_llm(const struct ks_conf *conf, const struct opts *o, struct ks_llm *l,
	 struct ks_buf *err)
{
	struct ks_llm_settings s;
	char *cache = ks_fs_join(conf->dir, "llm");
	int rc;

	memset(&s, 0, sizeof(s));
	s.url = o->llm ? o->llm : conf->llm_url;
	s.api = conf->llm_api;
	s.model = conf->llm_model;
	s.key = conf->llm_key;
	s.timeout_ms = conf->llm_timeout_ms;
	s.retries = conf->llm_retries;
	s.cache_dir = cache;
	rc = ks_llm_open(l, &s, err);
	free(cache);
	return rc;
}

int
ks_cmd_optimize(int argc, char **argv, struct ks_conf *conf)
{
	return ks_cli_optimize(argc, argv, conf, 1);
}

int
ks_cli_optimize(int argc, char **argv, struct ks_conf *conf, int need_gpu)
{
	struct opts o;
	struct jobs jobs = { 0 };
	struct ks_buf err = KS_BUF_INIT;
	struct ks_skills sk = { 0 };
	struct ks_policy pol = { 0 };
	struct ks_knowledge know = { 0 };
	struct ks_llm llm;
	struct row *rows = NULL;
	struct env env;
	double min_gain;
	char *end = NULL;
	int rc = KS_EXIT_FAILED, have_llm = 0, any_best = 0;
	struct ks_strv vis, gpus;
	size_t i;

	memset(&o, 0, sizeof(o));
	memset(&llm, 0, sizeof(llm));
	ks_strv_init(&vis);
	ks_strv_init(&gpus);
	ks_strv_init(&o.sel);
	o.rounds = 15;
	o.ltm = o.stm = o.metrics = o.cache = 1;
	o.jobs = 1;
	if (parse(argc, argv, &o)) {
		fputs(OPTIMIZE_USAGE, stderr);
		ks_strv_release(&o.sel);
		return KS_EXIT_USAGE;
	}
	min_gain = strtod(conf->min_gain, &end);
	if (*end || end == conf->min_gain || min_gain < 1) {
		ks_error(&err, "min_gain: '%s' is not a ratio of at least 1", conf->min_gain);
		goto fail;
	}
	/* Before anything else: without a GPU no candidate can be reviewed. */
	if (need_gpu && gpu_check(&err))
		goto fail;
	if (o.gpus) {
		ks_workers_visible(getenv("CUDA_VISIBLE_DEVICES"), "/dev", &vis);
		if (ks_workers_gpus(o.gpus, &vis, &gpus, &err))
			goto fail;
	}
	if (o.llm ? strcmp(o.llm, "none") : *conf->llm_url) {
		if (open_llm(conf, &o, &llm, &err))
			goto fail;
		have_llm = 1;
	}
	list_jobs(conf->dir, &jobs);
	if (!jobs.n) {
		ks_error(&err, "no captured kernel under %s/captures (run 'ks capture' first)",
			 conf->dir);
		goto fail;
	}
	if (select_jobs(conf->dir, &o.sel, &jobs, &err))
		goto fail;
	if (o.ltm) {
		if (ks_cli_load_library(conf, &sk, &pol, &err) ||
		    ks_knowledge_load(conf->dir, &know, &err))
			goto fail;
	}
	rows = ks_xcalloc(jobs.n, sizeof(*rows));
	env.conf = conf;
	env.o = &o;
	env.pol = o.ltm ? &pol : NULL;
	env.know = o.ltm ? &know : NULL;
	env.llm = have_llm ? &llm : NULL;
	env.skills = o.ltm ? &sk : NULL;
	env.min_gain = min_gain;
	env.live = !o.json && isatty(STDERR_FILENO) &&
		   ((o.jobs < 2 && gpus.n < 2) || jobs.n < 2);
	if ((o.jobs > 1 || gpus.n) && jobs.n > 1) {
		run_workers(&env, &jobs, rows, (size_t)o.jobs, gpus.n ? &gpus : NULL);
	} else {
		/* One task, on the one GPU named. */
		if (gpus.n && setenv("CUDA_VISIBLE_DEVICES", gpus.v[0], 1)) {
			ks_error_errno(&err, "cannot set CUDA_VISIBLE_DEVICES");
			goto fail;
		}
		for (i = 0; i < jobs.n; i++)
			run_task(&env, &jobs.v[i], &rows[i]);
	}
	for (i = 0; i < jobs.n; i++)
		any_best |= rows[i].cached && (!strcmp(rows[i].cached, "cached") ||
					       !strcmp(rows[i].cached, "reviewed"));
	if (o.json)
		print_json(rows, jobs.n);
	else
		print_table(rows, jobs.n);
	rc = any_best ? 0 : OPTIMIZE_NONE;
	goto out;
fail:
	fprintf(stderr, "ks: error: %s\n", err.buf);
out:
	for (i = 0; rows && i < jobs.n; i++)
		row_release(&rows[i]);
	free(rows);
	jobs_release(&jobs);
	ks_strv_release(&o.sel);
	ks_strv_release(&vis);
	ks_strv_release(&gpus);
	ks_knowledge_release(&know);
	ks_policy_release(&pol);
	ks_skills_release(&sk);
	if (have_llm)
		ks_llm_close(&llm);
	ks_buf_release(&err);
	return rc;
}
