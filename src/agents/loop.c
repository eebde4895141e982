/*
 * loop: the Generator, Planner, Optimizer and Repairer steps and the loop
 * over them. Every decision reads the trajectory (the short-term memory),
 * and every step appends one record to it before the next begins.
 */
#include "agents.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../analysis/inventory.h"
#include "../cache/rewrite.h"
#include "../capture/capture.h"
#include "../core/buf.h"
#include "../core/fs.h"
#include "../core/hash.h"
#include "../core/log.h"
#include "../core/util.h"
#include "../llm/llm.h"
#include "../memory/knowledge.h"
#include "../transforms/search.h"
#include "../transforms/transform.h"
#include "llm_agents.h"

/* Measured points of one skill on one base after its best with no clear
 * win before the Optimizer moves on (as ks try). */
#define LOOP_PATIENCE 2

/* Failed candidates of one skill on one base before the skill is done. */
#define LOOP_FAILS_MAX 3

/* Records of one run at most per round of the budget: declines and seen
 * hashes cost no review, but a run must end. */
#define LOOP_STEPS_PER_ROUND 64

const char *
ks_task_end_name(enum ks_task_end e)
{
	static const char *const names[] = {
		"running", "ineligible", "round budget spent",
		"GPU-time budget spent", "no allowed skill left", "review error",
	};

	return (size_t)e < KS_ARRAY_SIZE(names) ? names[e] : "?";
}

void
ks_agent_review_release(struct ks_agent_review *r)
{
	size_t i;

	free(r->verdict);
	free(r->why);
	free(r->stage);
	free(r->log);
	for (i = 0; i < r->nmetrics; i++)
		free(r->mnames[i]);
	free(r->mnames);
	free(r->mvalues);
	free(r->evidence);
	memset(r, 0, sizeof(*r));
}

void
ks_agent_plan_release(struct ks_agent_plan *p)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		free(p->v[i].id);
		free(p->v[i].why);
		free(p->v[i].bucket);
		free(p->v[i].case_id);
		free(p->v[i].gain);
	}
	free(p->v);
	memset(p, 0, sizeof(*p));
}

void
ks_task_init(struct ks_task *t)
{
	memset(t, 0, sizeof(*t));
	t->rounds = 15;
	t->min_gain = KS_TRAJ_MIN_GAIN;
	t->short_term = 1;
	t->long_term = 1;
	t->lock_timeout_ms = 10000;
	t->planned_for = -1;
	t->llm_repairs = 2;
}

void
ks_task_release(struct ks_task *t)
{
	ks_traj_release(&t->traj);
	ks_agent_plan_release(&t->plan);
	free(t->end_why);
	t->end_why = NULL;
	free(t->launches);
	t->launches = NULL;
	t->nlaunches = 0;
}

static char *
utc_now(void)
{
	char buf[32];
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	return ks_xstrdup(buf);
}

static void
round_new(struct ks_task *t, struct ks_traj_round *r, const char *phase)
{
	ks_traj_round_init(r);
	/* The LLM tokens spent deciding this step are the step's. */
	r->tokens = t->pending_tokens;
	t->pending_tokens = 0;
	r->round = (int)t->traj.n;
	r->parent = t->state.base;
	r->phase = ks_xstrdup(phase);
	r->model = ks_xstrdup(t->llm ? ks_llm_model(t->llm) : "none");
	r->time = utc_now();
}

/* Write the record, keep it, and bring the state up to date. */
static int
commit(struct ks_task *t, struct ks_traj_round *r, struct ks_buf *err)
{
	if (t->dir) {
		char *path = ks_traj_path(t->dir);
		int rc = ks_traj_append(path, r, err);

		free(path);
		if (rc)
			return -1;
	}
	ks_traj_push(&t->traj, r);
	ks_traj_state(&t->traj, t->min_gain, &t->state);
	if (t->progress)
		t->progress(t->progress_ctx, t, &t->traj.v[t->traj.n - 1]);
	return 0;
}

static void
set_end(struct ks_task *t, enum ks_task_end e, const char *why)
{
	t->end = e;
	free(t->end_why);
	t->end_why = why ? ks_xstrdup(why) : NULL;
}

/* The review's results into the record. */
static void
take_review(struct ks_traj_round *r, struct ks_agent_review *rv)
{
	r->verdict = rv->verdict;
	rv->verdict = NULL;
	r->reason = rv->why;
	rv->why = NULL;
	r->stage = rv->stage;
	rv->stage = NULL;
	r->orig = rv->orig;
	r->cand = rv->cand;
	if (r->orig.have && r->cand.have && r->cand.median > 0)
		r->speedup = r->orig.median / r->cand.median;
	r->nmetrics = rv->nmetrics;
	r->mnames = rv->mnames;
	r->mvalues = rv->mvalues;
	rv->nmetrics = 0;
	rv->mnames = NULL;
	rv->mvalues = NULL;
	r->gpu_ms = rv->gpu_ms;
	r->cost = rv->cost;
}

/*
 * The counters of a candidate that just became the base (ops.counters):
 * the Planner re-plans on them. Without them the plan goes on as for a
 * base without counters; the pass's time is the step's.
 */
static void
base_counters(struct ks_task *t, struct ks_traj_round *r, const char *path)
{
	struct ks_agent_review c;
	struct ks_buf err = KS_BUF_INIT;
	size_t i;

	memset(&c, 0, sizeof(c));
	if (t->ops.counters(t->ops.ctx, t, path, &c, &err)) {
		ks_log("optimize: %s: no counters for round %d: %s", t->id ? t->id : "",
		       r->round, err.buf);
	} else if (!c.nmetrics) {
		ks_log("optimize: %s: no counters for round %d: %s", t->id ? t->id : "",
		       r->round, c.why ? c.why : "none measured");
	}
	r->gpu_ms += c.gpu_ms;
	/* The whole pass is the base's counters: its setup included. */
	for (i = 0; i < KS_TRAJ_COST_N; i++) {
		if (i == KS_TRAJ_COST_COMPILE || i == KS_TRAJ_COST_LOCK_WAIT)
			r->cost.s[i] += c.cost.s[i];
		else
			r->cost.s[KS_TRAJ_COST_BASE_METRICS] += c.cost.s[i];
	}
	if (c.nmetrics && !r->nmetrics) {
		r->nmetrics = c.nmetrics;
		r->mnames = c.mnames;
		r->mvalues = c.mvalues;
		c.nmetrics = 0;
		c.mnames = NULL;
		c.mvalues = NULL;
	}
	ks_agent_review_release(&c);
	ks_buf_release(&err);
}

/* ---- Generator ------------------------------------------------------------- */

int
ks_agent_seed(struct ks_task *t, struct ks_buf *err)
{
	struct ks_agent_review rv;
	struct ks_traj_round r;

	memset(&rv, 0, sizeof(rv));
	if (t->ops.review(t->ops.ctx, t, NULL, &rv, err))
		return -1;
	round_new(t, &r, "seed");
	r.parent = -1;
	r.task = t->signature ? ks_xstrdup(t->signature) : NULL;
	take_review(&r, &rv);
	/* The original alone has no candidate time: its own is the base's. */
	if (!r.cand.have && r.orig.have)
		r.cand = r.orig;
	r.speedup = r.orig.have ? 1 : 0;
	ks_agent_review_release(&rv);
	if (!r.verdict || strcmp(r.verdict, "eligible")) {
		char *why = ks_xasprintf("%s: %s", r.verdict ? r.verdict : "no verdict",
					 r.reason ? r.reason : "the original does not "
								"reproduce its captures");
		int error = r.verdict && !strcmp(r.verdict, "error");

		if (commit(t, &r, err)) {
			ks_traj_round_release(&r);
			free(why);
			return -1;
		}
		set_end(t, error ? KS_TASK_ERROR : KS_TASK_INELIGIBLE, why);
		free(why);
		return 0;
	}
	return commit(t, &r, err);
}

/* ---- Planner ------------------------------------------------------------- */

static const struct ks_transform *
transform_of(const struct ks_task *t, const char *id)
{
	return t->ops.transform ? t->ops.transform(t->ops.ctx, id) : ks_xf_find(id);
}

static void
plan_push(struct ks_agent_plan *p, const char *id, const char *why,
	  const char *bucket, const char *case_id, const char *gain)
{
	p->v = ks_xrealloc(p->v, (p->n + 1) * sizeof(*p->v));
	p->v[p->n].id = ks_xstrdup(id);
	p->v[p->n].why = why ? ks_xstrdup(why) : NULL;
	p->v[p->n].bucket = bucket ? ks_xstrdup(bucket) : NULL;
	p->v[p->n].case_id = case_id ? ks_xstrdup(case_id) : NULL;
	p->v[p->n].gain = gain ? ks_xstrdup(gain) : NULL;
	p->n++;
}

int
ks_agent_gain_can_pass(const char *gain, double base_speedup)
{
	static const struct {
		const char *gain;
		double most;
	} bounds[] = { { "small", 1.5 }, { "medium", 3.0 } };
	size_t i;

	for (i = 0; gain && i < KS_ARRAY_SIZE(bounds); i++)
		if (!strcmp(gain, bounds[i].gain))
			return base_speedup < bounds[i].most;
	return 1;
}

int
ks_agent_plan(struct ks_task *t, struct ks_buf *err)
{
	const struct ks_traj_round *b = &t->traj.v[t->state.base];
	struct ks_agent_plan raw;
	size_t i;

	memset(&raw, 0, sizeof(raw));
	ks_agent_plan_release(&t->plan);
	if (t->ops.plan) {
		if (t->ops.plan(t->ops.ctx, t, b->nmetrics, b->mnames, b->mvalues, &raw, err))
			return -1;
	} else {
		size_t n;
		const struct ks_transform *const *all = ks_xf_all(&n);

		for (i = 0; i < n; i++)
			plan_push(&raw, all[i]->id, "fixed order (no policy)", NULL, NULL,
				  NULL);
	}
	/* Only what the loop can act on: skills with a builtin transform,
	 * and with an LLM the others too (its edits follow their guidance). */
	for (i = 0; i < raw.n; i++) {
		if (!t->llm && !transform_of(t, raw.v[i].id)) {
			ks_log("plan: %s has no builtin transform, skipped", raw.v[i].id);
			continue;
		}
		plan_push(&t->plan, raw.v[i].id, raw.v[i].why, raw.v[i].bucket,
			  raw.v[i].case_id, raw.v[i].gain);
	}
	ks_agent_plan_release(&raw);
	if (t->plan.n > 1 && ks_agent_llm_usable(t))
		ks_agent_llm_plan(t);
	t->planned_for = t->state.base;
	return 0;
}

/* ---- Optimizer / Repairer ------------------------------------------------ */

/* The source a transform reads: the base's where it can, else the original's. */
struct source {
	const struct ks_kernel *k;
	const char *text;
	size_t len;
	struct ks_buf buf;	/* the base's source */
	char *helpers;		/* the base's helpers, kept in every variant */
	const char *what;	/* "original", "base" */
	char *why;		/* why the original, when the base moved */
};

static void
source_release(struct source *s)
{
	ks_buf_release(&s->buf);
	free(s->helpers);
	free(s->why);
}

static int
read_task_file(const struct ks_task *t, const char *name, struct ks_buf *out,
	       struct ks_buf *err)
{
	char *path = ks_fs_join(t->dir, name);
	int rc;

	out->max = 64 << 20;
	rc = ks_fs_read(path, out, err);
	free(path);
	return rc;
}

static void
source_original(const struct ks_task *t, struct source *s, const char *why)
{
	/* an instance: the plain copy in the instance view */
	s->k = t->inst_args ? t->inst_k : t->k;
	s->text = t->inst_args ? t->inst_text : t->text;
	s->len = t->inst_args ? t->inst_len : t->len;
	s->what = "original";
	if (why && t->state.base)
		s->why = ks_xstrdup(why);
}

/* The source of round `at` (the base, or for the tuner the base's parent). */
static void
source_of_base(const struct ks_task *t, int at, struct source *s)
{
	const struct ks_traj_round *b = &t->traj.v[at];
	struct ks_buf vtext = KS_BUF_INIT, err = KS_BUF_INIT;
	struct ks_rewrite_variant v;
	char *path = NULL;

	memset(s, 0, sizeof(*s));
	s->buf = (struct ks_buf)KS_BUF_INIT;
	if (!at || !t->dir || !b->variant) {
		source_original(t, s, NULL);
		return;
	}
	if (!t->ops.base_kernel || !t->k || (t->inst_args && !t->inst_k)) {
		source_original(t, s, "no analysis of a base's source");
		return;
	}
	memset(&v, 0, sizeof(v));
	if (read_task_file(t, b->variant, &vtext, &err) ||
	    ks_rewrite_variant_split(vtext.buf, &v, &err)) {
		source_original(t, s, err.buf);
		goto out;
	}
	if (v.launcher.text && *v.launcher.text) {
		/* Its geometry lives in the launcher, which a transform of the
		 * kernel's text would lose. */
		source_original(t, s, "the base has a launcher");
		goto out;
	}
	ks_buf_reset(&vtext);
	/* An instance's base takes the place of its plain copy in the view. */
	if (read_task_file(t, b->variant, &vtext, &err) ||
	    ks_agent_base_source(t->inst_args ? t->inst_text : t->text,
				 t->inst_args ? t->inst_len : t->len,
				 t->inst_args ? t->inst_k->extent.begin : t->k->extent.begin,
				 t->inst_args ? t->inst_k->extent.end : t->k->extent.end,
				 vtext.buf, &s->buf, &err)) {
		source_original(t, s, err.buf);
		goto out;
	}
	path = ks_xasprintf("%s/base-r%d.cu", t->dir, at);
	if (ks_fs_write_atomic(path, s->buf.buf, s->buf.len, &err) ||
	    t->ops.base_kernel(t->ops.ctx, t, path, &s->k, &err)) {
		source_original(t, s, err.buf);
		goto out;
	}
	memset(&v, 0, sizeof(v));
	if (!ks_rewrite_variant_split(vtext.buf, &v, &err) && v.helpers.text)
		s->helpers = ks_xstrdup(v.helpers.text);
	s->text = s->buf.buf;
	s->len = s->buf.len;
	s->what = "base";
out:
	free(path);
	ks_buf_release(&vtext);
	ks_buf_release(&err);
}

/*
 * A transform's variant of the base, with the base's helpers kept first;
 * of an instance's plain copy, with the aliases of its template
 * parameters first of all (its signature names them).
 */
static int
merge_helpers(const struct ks_task *t, const struct source *s,
	      struct ks_buf *variant, struct ks_buf *err)
{
	const char *aliases = t->inst_args ? t->inst_aliases : NULL;
	int base = s->helpers && *s->helpers;

	/* An instance's base holds the aliases already: once is enough. */
	if (base && aliases && strstr(s->helpers, aliases))
		aliases = NULL;
	char *first;
	int rc;

	if (!base && (!aliases || !*aliases))
		return 0;
	first = ks_xasprintf("%s%s", aliases ? aliases : "", base ? s->helpers : "");
	rc = ks_rewrite_variant_helpers_first(base ? "on the base's helpers"
						   : "of a template's instance",
					      first, variant, err);
	free(first);
	return rc;
}

/*
 * An LLM's variant of an instance's copy names the template's type
 * arguments by their aliases, as the copy it read does: the aliases go
 * first among its helpers, unless the reply kept them.
 */
static int
llm_aliases_first(const struct ks_task *t, struct ks_buf *variant,
		  struct ks_buf *err)
{
	struct source none;

	if (!t->inst_args || !t->inst_aliases || !*t->inst_aliases ||
	    (variant->buf && strstr(variant->buf, t->inst_aliases)))
		return 0;
	memset(&none, 0, sizeof(none));
	return merge_helpers(t, &none, variant, err);
}

/* Was the round's candidate an LLM's (an edit or a repair)? Its record
 * has a plan and no parameter point. */
static int
llm_round(const struct ks_traj_round *r)
{
	return r->plan && !r->params;
}

/* Is `skill` done on the base for its builtin transform: declined there,
 * wrong anywhere, failing? The LLM's own attempts are counted apart. */
static int
skill_done(const struct ks_task *t, const char *skill, const char **why)
{
	size_t i, fails = 0;
	int base = t->state.base, b;

	/* A skill the base already holds: applying it again repeats it. */
	for (b = base; b > 0 && (size_t)b < t->traj.n; b = t->traj.v[b].parent)
		if (t->traj.v[b].skill && !strcmp(t->traj.v[b].skill, skill)) {
			*why = "the base already holds it";
			return 1;
		}
	for (i = 0; i < t->traj.n; i++) {
		const struct ks_traj_round *r = &t->traj.v[i];

		if (!r->skill || strcmp(r->skill, skill) || llm_round(r))
			continue;
		if (r->parent == base && r->verdict && !strcmp(r->verdict, "declined") &&
		    !r->params) {
			*why = "declined on this base";
			return 1;
		}
		if (ks_traj_failed(r) && r->diag.next && !strcmp(r->diag.next, "skill") &&
		    r->diag.cls && !strcmp(r->diag.cls, "verdict")) {
			*why = "computed wrong results";
			return 1;
		}
		if (ks_traj_failed(r) && r->parent == base) {
			if (r->diag.next && !strcmp(r->diag.next, "skill")) {
				*why = "the Diagnoser moved on";
				return 1;
			}
			if (++fails >= LOOP_FAILS_MAX) {
				*why = "failed too often";
				return 1;
			}
		}
	}
	return 0;
}

/* The measured points of `skill` on round `at`, for the search's stop rule. */
static size_t
measured(const struct ks_task *t, int at, const char *skill, struct ks_xf_timing *m,
	 size_t max)
{
	size_t i, n = 0;

	for (i = 0; i < t->traj.n && n < max; i++) {
		const struct ks_traj_round *r = &t->traj.v[i];

		if (r->parent != at || !r->skill || strcmp(r->skill, skill) ||
		    llm_round(r) || !ks_traj_verified(r) || !r->cand.have || !r->orig.have)
			continue;
		/* In units of the original beside it: reviews apart compare. */
		m[n].median = r->cand.median / r->orig.median;
		m[n].lo = r->cand.lo / r->orig.median;
		m[n].hi = r->cand.hi / r->orig.median;
		n++;
	}
	return n;
}

static void
append_outcome(const struct ks_task *t, const struct ks_traj_round *r,
	       const struct ks_agent_skill *sk)
{
	struct ks_outcome o;
	struct ks_buf err = KS_BUF_INIT;
	const struct ks_traj_round *b = &t->traj.v[r->parent >= 0 ? r->parent : 0];
	double base_rel = 1, rel;

	if (!t->long_term || !t->ks_dir)
		return;
	memset(&o, 0, sizeof(o));
	o.time = r->time;
	o.skill = r->skill;
	o.params = r->params ? r->params : (char *)"";
	o.kernel = (char *)t->kernel;
	o.bucket = sk && sk->bucket ? sk->bucket : (char *)"";
	o.case_id = sk && sk->case_id ? sk->case_id : (char *)"";
	if (ks_traj_failed(r)) {
		o.result = (char *)(r->diag.cls && !strcmp(r->diag.cls, "verdict") ?
					    "incorrect" : "failed");
	} else {
		/* The skill's own effect: over its parent, not the original. */
		if (r->parent > 0 && b->speedup > 0)
			base_rel = b->speedup;
		rel = r->speedup > 0 ? r->speedup / base_rel : 0;
		o.speedup = rel;
		o.result = (char *)(r->gain ? "faster" :
				    rel > 0 && rel < 1 / t->min_gain ? "slower" : "same");
	}
	o.nfeatures = t->nfeatures;
	o.fnames = (char **)t->fnames;
	o.fvalues = (double *)t->fvalues;
	if (ks_knowledge_append(t->ks_dir, &o, t->lock_timeout_ms, &err))
		ks_log("optimize: outcome not recorded: %s", err.buf);
	ks_buf_release(&err);
}

/* The TU for `variant`, written beside the trajectory. */
static int
write_candidate(struct ks_task *t, struct ks_traj_round *r, const char *variant,
		size_t vlen, const struct ks_buf *tu, struct ks_buf *err)
{
	char *vpath, *tpath;
	int rc;

	r->variant = ks_xasprintf("r%d.variant.cu", r->round);
	r->file = ks_xasprintf("r%d.cu", r->round);
	if (!t->dir)
		return 0;
	vpath = ks_fs_join(t->dir, r->variant);
	tpath = ks_fs_join(t->dir, r->file);
	rc = ks_fs_write_atomic(vpath, variant, vlen, err) ||
		ks_fs_write_atomic(tpath, tu->buf, tu->len, err) ? -1 : 0;
	free(vpath);
	free(tpath);
	return rc;
}

static int
splice(const struct ks_task *t, const char *variant, const char *vname,
       struct ks_buf *tu, struct ks_buf *err)
{
	struct ks_rewrite_kernel rk;
	struct ks_rewrite_variant v;
	struct ks_rewrite_job job = { NULL, NULL, NULL };
	char *copy;
	int rc = -1;

	if (t->ops.splice)
		return t->ops.splice(t->ops.ctx, t, variant, vname, tu, err);
	if (!t->inv || !t->k)
		return ks_error(err, "no inventory of the original to splice into");
	memset(&rk, 0, sizeof(rk));
	memset(&v, 0, sizeof(v));
	copy = ks_xstrdup(variant);
	if (ks_rewrite_variant_split(copy, &v, err))
		goto out;
	v.file = vname;
	v.arch = (unsigned)t->arch;
	if (ks_rewrite_kernel_from_inventory(t->inv, t->k, &rk, err))
		goto out;
	job.kernel = &rk;
	job.variant = &v;
	job.args = t->inst_args;
	rc = ks_rewrite(t->text, t->len, t->source, &job, 1, tu, err);
out:
	ks_rewrite_kernel_release(&rk);
	free(copy);
	return rc;
}

/* The build log of a failed candidate, r<N>.log: the LLM Repairer's. */
static void
keep_log(const struct ks_task *t, const struct ks_traj_round *r, const char *log)
{
	char *name = ks_xasprintf("r%d.log", r->round), *path = ks_fs_join(t->dir, name);
	struct ks_buf err = KS_BUF_INIT;

	if (ks_fs_write_atomic(path, log, strlen(log), &err))
		ks_log("optimize: %s", err.buf);
	ks_buf_release(&err);
	free(name);
	free(path);
}

/* Review the candidate of record `r` and commit it. */
static int
review_and_commit(struct ks_task *t, struct ks_traj_round *r,
		  const struct ks_agent_skill *sk, struct ks_buf *err)
{
	struct ks_agent_review rv;
	char *path = t->dir ? ks_fs_join(t->dir, r->file) : ks_xstrdup(r->file);
	int rc;

	memset(&rv, 0, sizeof(rv));
	rc = t->ops.review(t->ops.ctx, t, path, &rv, err);
	if (rc) {
		ks_agent_review_release(&rv);
		free(path);
		return -1;
	}
	r->compile = ks_xstrdup(rv.compiled ? "ok" : "failed");
	take_review(r, &rv);
	if (r->verdict && !strcmp(r->verdict, "error")) {
		/* The review could not run: not the candidate's fault. */
		ks_agent_review_release(&rv);
		free(path);
		rc = commit(t, r, err);
		set_end(t, KS_TASK_ERROR, t->traj.v[t->traj.n - 1].reason);
		return rc ? -1 : 0;
	}
	if (ks_traj_failed(r)) {
		int chain[16];
		size_t n = r->repairs >= 0 ?
			ks_traj_repair_chain(&t->traj, r->repairs, chain, 16) : 0;

		ks_agent_diagnose(r->stage, r->reason, rv.log, n, &r->diag);
		if (!strcmp(r->diag.cls, "unknown") && ks_agent_llm_usable(t))
			ks_agent_llm_diagnose(t, r, rv.log);
		if (rv.log && t->dir)
			keep_log(t, r, rv.log);
	} else if (ks_traj_verified(r)) {
		r->gain = ks_traj_moves_base(&t->traj, t->state.base, r, t->min_gain) &&
			!rv.slower;
		if (r->gain && t->ops.counters)
			base_counters(t, r, path);
	}
	free(path);
	ks_agent_review_release(&rv);
	append_outcome(t, r, sk);
	return commit(t, r, err);
}

/*
 * The candidate of record `r` from `variant`, for a builtin transform and
 * the LLM alike: spliced into the TU, named by its hash (a hash seen
 * before is recorded as seen, never reviewed), written beside the
 * trajectory and reviewed. Commits `r` (1) or releases it (-1).
 */
static int
candidate(struct ks_task *t, struct ks_traj_round *r, const struct ks_buf *variant,
	  const struct ks_agent_skill *sk, struct ks_buf *err)
{
	struct ks_buf tu = KS_BUF_INIT, reason = KS_BUF_INIT;
	char hash[17], *vname;
	int seen, rc;

	vname = t->dir ? ks_xasprintf("%s/r%d.variant.cu", t->dir, r->round) :
		ks_xasprintf("r%d.variant.cu", r->round);
	if (splice(t, variant->buf, vname, &tu, &reason)) {
		/* A variant the rewriter refuses is the transform's bug (or
		 * the LLM's): recorded as a compile failure of the candidate. */
		if (t->dir && !ks_fs_write_atomic(vname, variant->buf, variant->len, &tu))
			r->variant = ks_xasprintf("r%d.variant.cu", r->round);
		free(vname);
		r->compile = ks_xstrdup("failed");
		r->verdict = ks_xstrdup("rejected");
		r->stage = ks_xstrdup("splice");
		r->reason = ks_buf_detach(&reason, NULL);
		ks_agent_diagnose("splice", r->reason, NULL, 0, &r->diag);
		rc = commit(t, r, err) ? -1 : 1;
		goto out;
	}
	free(vname);
	/* The variant names the candidate: its TU differs only in the
	 * #line names of its round. */
	ks_hash_once_hex64(variant->buf, variant->len, hash);
	r->hash = ks_xstrdup(hash);
	seen = t->short_term ? ks_traj_seen(&t->traj, hash) : -1;
	if (seen >= 0) {
		r->verdict = ks_xstrdup("seen");
		r->reason = ks_xasprintf("the same candidate as round %d", seen);
		rc = commit(t, r, err) ? -1 : 1;
		goto out;
	}
	if (write_candidate(t, r, variant->buf, variant->len, &tu, err)) {
		ks_traj_round_release(r);
		rc = -1;
		goto out;
	}
	rc = review_and_commit(t, r, sk, err) ? -1 : 1;
out:
	ks_buf_release(&tu);
	ks_buf_release(&reason);
	return rc;
}

/* The shapes of the task's captured launches (those whose launch.json
 * reads), for the transforms' launchers: read once, kept in the task. */
static void
read_launches(struct ks_task *t)
{
	if (t->launches)
		return;
	t->launches = ks_xcalloc(t->ncaptures ? t->ncaptures : 1, sizeof(*t->launches));
	t->nlaunches = 0;
	for (size_t i = 0; i < t->ncaptures; i++) {
		struct ks_xf_launch *l = &t->launches[t->nlaunches];
		struct ks_capture c;
		struct ks_buf e = KS_BUF_INIT;

		memset(&c, 0, sizeof(c));
		if (!ks_capture_load(t->captures[i], &c, &e)) {
			memcpy(l->grid, c.grid, sizeof(l->grid));
			memcpy(l->block, c.block, sizeof(l->block));
			t->nlaunches++;
		}
		ks_capture_release(&c);
		ks_buf_release(&e);
	}
}

/* Try skill `sk` on round `at` (the base, or the tuner's base's parent): 1
 * when a record was added, 0 when the skill has nothing left there. */
static int
try_skill(struct ks_task *t, const struct ks_agent_skill *sk, int at, int repairs,
	  struct ks_buf *err)
{
	const struct ks_transform *xf = transform_of(t, sk->id);
	struct ks_xf_point *pts;
	struct ks_xf_timing meas[64];
	struct ks_xf_point def;
	struct ks_buf reason0 = KS_BUF_INIT;
	struct source src;
	size_t npts, i, nm, declined = 0, tried = 0;
	int rc = 0;

	if (!xf)
		return 0;
	nm = measured(t, at, sk->id, meas, KS_ARRAY_SIZE(meas));
	if (nm && ks_xf_search_stop(meas, nm, LOOP_PATIENCE))
		return 0;
	ks_xf_default_point(xf, &def);
	pts = ks_xcalloc(KS_XF_SEARCH_MAX, sizeof(*pts));
	npts = ks_xf_search_points(xf, &def, NULL, pts, KS_XF_SEARCH_MAX);
	source_of_base(t, at, &src);
	read_launches(t);
	if (at == t->state.base && t->state.base && !strcmp(src.what, "original") &&
	    !ks_agent_gain_can_pass(sk->gain, t->traj.v[t->state.base].speedup)) {
		/* Built from the original, it competes with the base whole. */
		struct ks_traj_round r;

		round_new(t, &r, "optimize");
		r.skill = ks_xstrdup(sk->id);
		r.why = sk->why ? ks_xstrdup(sk->why) : NULL;
		r.source = ks_xstrdup(src.what);
		r.verdict = ks_xstrdup("declined");
		r.reason = ks_xasprintf("it would be built from the original (%s), and %s "
					"a %s gain, short of the base's %.2fx over the "
					"original",
					src.why ? src.why : "the base cannot be transformed",
					sk->case_id ? "its case promises" :
					"unjudged, it promises at most",
					sk->gain, t->traj.v[t->state.base].speedup);
		rc = commit(t, &r, err) ? -1 : 1;
		source_release(&src);
		free(pts);
		return rc;
	}
	for (i = 0; i < npts && !rc; i++) {
		struct ks_buf params = KS_BUF_INIT, variant = KS_BUF_INIT,
			      reason = KS_BUF_INIT;
		struct ks_xf_input in;
		struct ks_traj_round r;

		ks_xf_point_format(xf, &pts[i], &params);
		if (t->short_term &&
		    ks_traj_repeats(&t->traj, at, sk->id, params.buf, NULL) >= 0) {
			tried++;
			ks_buf_release(&params);
			continue;
		}
		memset(&in, 0, sizeof(in));
		in.kernel = src.k;
		in.text = src.text;
		in.len = src.len;
		in.opts.fast_math = t->fast_math;
		in.opts.arch = t->arch;
		in.opts.launches = t->launches;
		in.opts.nlaunches = t->nlaunches;
		if (!src.k || ks_xf_apply(xf, &in, &pts[i], &variant, &reason) != KS_XF_APPLIED) {
			if (!declined++)
				ks_buf_adds(&reason0, src.k ? reason.buf : "no analysis of the kernel");
			goto next;
		}
		round_new(t, &r, repairs >= 0 ? "repair" : "optimize");
		r.parent = at;
		r.repairs = repairs;
		r.skill = ks_xstrdup(sk->id);
		r.why = sk->why ? ks_xstrdup(sk->why) : NULL;
		r.params = ks_xstrdup(params.buf);
		r.source = ks_xstrdup(src.what);
		if (src.why)
			ks_log("optimize: %s reads the original: %s", sk->id, src.why);
		if (merge_helpers(t, &src, &variant, err)) {
			ks_traj_round_release(&r);
			rc = -1;
			goto next;
		}
		rc = candidate(t, &r, &variant, sk, err);
	next:
		ks_buf_release(&params);
		ks_buf_release(&variant);
		ks_buf_release(&reason);
	}
	if (!rc && declined && declined + tried == npts && !tried) {
		/* Every point declined: one record, so the skill is done here. */
		struct ks_traj_round r;

		round_new(t, &r, "optimize");
		r.parent = at;
		r.skill = ks_xstrdup(sk->id);
		r.why = sk->why ? ks_xstrdup(sk->why) : NULL;
		r.source = ks_xstrdup(src.what);
		r.verdict = ks_xstrdup("declined");
		r.reason = ks_buf_detach(&reason0, NULL);
		rc = commit(t, &r, err) ? -1 : 1;
	}
	source_release(&src);
	ks_buf_release(&reason0);
	free(pts);
	return rc;
}

/* ---- the LLM Optimizer and Repairer ------------------------------------- */

/* Is the LLM done with `skill` on the base: the base holds the skill, or
 * the LLM edited the base for it already (its repairs go their own way)? */
static int
llm_done(const struct ks_task *t, const char *skill, const char **why)
{
	int base = t->state.base, b;
	size_t i;

	for (b = base; b > 0 && (size_t)b < t->traj.n; b = t->traj.v[b].parent)
		if (t->traj.v[b].skill && !strcmp(t->traj.v[b].skill, skill)) {
			*why = "the base already holds it";
			return 1;
		}
	for (i = 0; i < t->traj.n; i++) {
		const struct ks_traj_round *r = &t->traj.v[i];

		if (r->parent == base && r->skill && !strcmp(r->skill, skill) &&
		    llm_round(r) && r->repairs < 0) {
			*why = "the LLM edited this base for it";
			return 1;
		}
	}
	return 0;
}

/* The current version as a variant file: the base's, or the original's
 * definition (its whole text where the extent is unknown). */
static char *
current_version(const struct ks_task *t, const char **what)
{
	const struct ks_traj_round *b = &t->traj.v[t->state.base];
	struct ks_buf out = KS_BUF_INIT, err = KS_BUF_INIT;

	if (t->state.base && t->dir && b->variant) {
		if (!read_task_file(t, b->variant, &out, &err)) {
			*what = "base";
			ks_buf_release(&err);
			return ks_buf_detach(&out, NULL);
		}
		ks_log("optimize: the base's variant: %s (the LLM reads the original)",
		       err.buf);
		ks_buf_reset(&out);
	}
	*what = "original";
	if (t->inst_args && t->inst_k && t->inst_text &&
	    t->inst_k->extent.end > t->inst_k->extent.begin &&
	    t->inst_k->extent.end <= t->inst_len) {
		/* an instance: its plain copy, with the aliases it names */
		if (t->inst_aliases && *t->inst_aliases)
			ks_buf_addf(&out, "// ks-nvcc: helpers\n%s", t->inst_aliases);
		ks_buf_adds(&out, "// ks-nvcc: definition\n");
		ks_buf_add(&out, t->inst_text + t->inst_k->extent.begin,
			   t->inst_k->extent.end - t->inst_k->extent.begin);
		ks_buf_addch(&out, '\n');
		ks_buf_release(&err);
		return ks_buf_detach(&out, NULL);
	}
	ks_buf_adds(&out, "// ks-nvcc: definition\n");
	if (t->k && t->k->extent.end > t->k->extent.begin && t->k->extent.end <= t->len)
		ks_buf_add(&out, t->text + t->k->extent.begin,
			   t->k->extent.end - t->k->extent.begin);
	else if (t->text)
		ks_buf_add(&out, t->text, t->len);
	ks_buf_addch(&out, '\n');
	ks_buf_release(&err);
	return ks_buf_detach(&out, NULL);
}

/* An LLM step that gave no candidate: recorded, so it is not asked again. */
static int
llm_declined(struct ks_task *t, struct ks_traj_round *r, int got, const char *why,
	     struct ks_buf *err)
{
	r->verdict = ks_xstrdup("declined");
	r->reason = ks_xasprintf("%s: %s", got < 0 ? "no reply from the LLM" :
				 "no candidate in the LLM's reply", why);
	return commit(t, r, err) ? -1 : 1;
}

/* Optimizer: one LLM edit of the base for skill `sk`. */
static int
try_llm(struct ks_task *t, const struct ks_agent_skill *sk, struct ks_buf *err)
{
	struct ks_buf variant = KS_BUF_INIT, why = KS_BUF_INIT;
	struct ks_traj_round r;
	const char *what = "original";
	char *cur = current_version(t, &what), *plan = NULL;
	int got = ks_agent_llm_edit(t, sk, cur, &variant, &plan, &why), rc;

	round_new(t, &r, "optimize");
	r.skill = ks_xstrdup(sk->id);
	r.why = sk->why ? ks_xstrdup(sk->why) : NULL;
	r.plan = plan ? plan : ks_xstrdup("an LLM edit");
	r.source = ks_xstrdup(what);
	if (!got && llm_aliases_first(t, &variant, &why))
		got = 1;
	rc = got ? llm_declined(t, &r, got, why.buf, err) :
		candidate(t, &r, &variant, sk, err);
	free(cur);
	ks_buf_release(&variant);
	ks_buf_release(&why);
	return rc;
}

/* Is failed round `open` an LLM candidate due for an LLM repair: on the
 * base, not repaired by the LLM yet, its chain shorter than the bound? */
static int
llm_repair_due(const struct ks_task *t, int open)
{
	const struct ks_traj_round *f = &t->traj.v[open];
	int chain[16];
	size_t i, n;

	if (!llm_round(f) || f->parent != t->state.base || !f->variant)
		return 0;
	for (i = 0; i < t->traj.n; i++)
		if (t->traj.v[i].repairs == open && llm_round(&t->traj.v[i]))
			return 0;
	n = ks_traj_repair_chain(&t->traj, open, chain, KS_ARRAY_SIZE(chain));
	return n >= 1 && n - 1 < t->llm_repairs;
}

/* Repairer: the LLM's fix of failed round `open`, from its diagnosis. */
static int
try_llm_repair(struct ks_task *t, int open, struct ks_buf *err)
{
	const struct ks_traj_round *f = &t->traj.v[open];
	const struct ks_agent_skill *sk = NULL;
	struct ks_buf failed = KS_BUF_INIT, log = KS_BUF_INIT, variant = KS_BUF_INIT,
		      why = KS_BUF_INIT, e = KS_BUF_INIT;
	struct ks_traj_round r;
	char *logname = ks_xasprintf("r%d.log", open);
	size_t i;
	int got, rc;

	if (read_task_file(t, f->variant, &failed, &e)) {
		ks_log("optimize: no LLM repair of round %d: %s", open, e.buf);
		rc = 0;
		goto out;
	}
	if (read_task_file(t, logname, &log, &e))
		ks_buf_reset(&log);
	for (i = 0; i < t->plan.n; i++)
		if (f->skill && !strcmp(t->plan.v[i].id, f->skill))
			sk = &t->plan.v[i];
	got = ks_agent_llm_repair(t, f, failed.buf, log.len ? log.buf : NULL, &variant, &why);
	round_new(t, &r, "repair");
	r.repairs = open;
	r.skill = f->skill ? ks_xstrdup(f->skill) : NULL;
	r.why = f->why ? ks_xstrdup(f->why) : NULL;
	r.plan = ks_xasprintf("the LLM's repair of round %d (%s: %s)", open,
			      f->diag.cls ? f->diag.cls : "?",
			      f->diag.what ? f->diag.what : "it failed");
	r.source = f->source ? ks_xstrdup(f->source) : NULL;
	if (!got && llm_aliases_first(t, &variant, &why))
		got = 1;
	rc = got ? llm_declined(t, &r, got, why.buf, err) :
		candidate(t, &r, &variant, sk, err);
out:
	free(logname);
	ks_buf_release(&failed);
	ks_buf_release(&log);
	ks_buf_release(&variant);
	ks_buf_release(&why);
	ks_buf_release(&e);
	return rc;
}

/*
 * Tuner: the skill that made the base, at its other points, built on the
 * base's parent as the base was (ks try's search, within the loop): a
 * transform's first point is a guess, and the next ones are where its
 * gains are often decided (a row kernel's block per row instead of a warp
 * per row). Each point competes with the base; the search stops as ks
 * try's does, on failures, or when a point was wrong. Needs the
 * short-term memory, which knows the points tried.
 */
static int
tune(struct ks_task *t, struct ks_buf *err)
{
	const struct ks_traj_round *b;
	struct ks_agent_skill sk;
	size_t i, fails = 0;
	int rc;

	if (!t->short_term || t->state.base <= 0 || (size_t)t->state.base >= t->traj.n)
		return 0;
	b = &t->traj.v[t->state.base];
	if (!b->skill || !b->params || b->repairs >= 0 || !transform_of(t, b->skill) ||
	    b->parent < 0)
		return 0;
	for (i = 0; i < t->traj.n; i++) {
		const struct ks_traj_round *r = &t->traj.v[i];

		if (r->parent != b->parent || !r->skill || strcmp(r->skill, b->skill) ||
		    llm_round(r))
			continue;
		if (r->verdict && !strcmp(r->verdict, "declined") && !r->params)
			return 0;	/* every other point declined */
		if (ks_traj_failed(r) && (++fails >= LOOP_FAILS_MAX ||
					  (r->diag.cls && !strcmp(r->diag.cls, "verdict"))))
			return 0;
	}
	memset(&sk, 0, sizeof(sk));
	sk.id = b->skill;
	sk.why = b->why;
	rc = try_skill(t, &sk, b->parent, -1, err);
	if (rc > 0)
		ks_log("optimize: tuned %s on round %d", b->skill, b->parent);
	return rc;
}

int
ks_agent_step(struct ks_task *t, struct ks_buf *err)
{
	int open = t->state.open_failure, rc;
	size_t i;
	const char *why;

	if (t->planned_for != t->state.base && ks_agent_plan(t, err))
		return -1;
	/* Repairer: an LLM candidate goes back to the LLM; a transform's
	 * failed candidate is the transform's own, tried at its next point
	 * (the LLM mending it would hide the transform's bug). */
	if (open >= 0 && ks_agent_llm_usable(t) && llm_repair_due(t, open) &&
	    (rc = try_llm_repair(t, open, err)))
		return rc;
	if (open >= 0 && !llm_round(&t->traj.v[open])) {
		const struct ks_traj_round *f = &t->traj.v[open];

		for (i = 0; i < t->plan.n; i++) {
			if (!f->skill || strcmp(t->plan.v[i].id, f->skill) ||
			    !f->diag.next || strcmp(f->diag.next, "point") ||
			    f->parent != t->state.base || skill_done(t, f->skill, &why))
				continue;
			rc = try_skill(t, &t->plan.v[i], t->state.base, open, err);
			if (rc)
				return rc;
		}
	}
	rc = tune(t, err);
	if (rc)
		return rc;
	/* Optimizer: each skill's builtin points, then (with an LLM) one LLM
	 * edit of the base for it. */
	for (i = 0; i < t->plan.n; i++) {
		const struct ks_agent_skill *sk = &t->plan.v[i];

		if (skill_done(t, sk->id, &why))
			ks_log("optimize: %s is done: %s", sk->id, why);
		else if ((rc = try_skill(t, sk, t->state.base, -1, err)))
			return rc;
		if (!ks_agent_llm_usable(t))
			continue;
		if (llm_done(t, sk->id, &why)) {
			ks_log("optimize: %s is done for the LLM: %s", sk->id, why);
			continue;
		}
		if ((rc = try_llm(t, sk, err)))
			return rc;
	}
	set_end(t, KS_TASK_NO_SKILL, NULL);
	return 0;
}

/* ---- the loop -------------------------------------------------------------- */

/* The trajectory of an older program: kept as trajectory.<n>.jsonl. */
static int
set_aside(struct ks_task *t, const char *path, struct ks_buf *err)
{
	char *old = NULL;
	int n;

	for (n = 1; n < 10000; n++) {
		free(old);
		old = ks_xasprintf("%s/trajectory.%d.jsonl", t->dir, n);
		if (!ks_fs_exists(old))
			break;
	}
	if (rename(path, old)) {
		ks_error_errno(err, "cannot set %s aside", path);
		free(old);
		return -1;
	}
	ks_log("optimize: %s: the source or the captures changed; the old "
	       "trajectory is %s", t->id, old);
	free(old);
	ks_traj_release(&t->traj);
	return 0;
}

/*
 * The final check's reserve in seeds' reviews: the dearest check the
 * statistics hold of a skill in the plan or of the best round's (0: none
 * known, the default reserve).
 */
static double
final_per_seed(const struct ks_task *t)
{
	const char *ids[64];
	size_t n = 0, i;

	if (!t->long_term || !t->check_costs || !*t->check_costs)
		return 0;
	for (i = 0; i < t->plan.n && n < KS_ARRAY_SIZE(ids) - 1; i++)
		ids[n++] = t->plan.v[i].id;
	if (t->state.seeded && t->state.best > 0 && t->traj.v[t->state.best].skill)
		ids[n++] = t->traj.v[t->state.best].skill;
	return ks_check_ratio(t->check_costs, ids, n);
}

int
ks_agents_run(struct ks_task *t, struct ks_buf *err)
{
	size_t steps = 0, max_steps;
	char *path = NULL;

	t->end = KS_TASK_RUNNING;
	if (!t->ops.review)
		return ks_error(err, "the loop needs a Reviewer");
	if (t->dir) {
		if (ks_fs_mkdirs(t->dir, err))
			return -1;
		path = ks_traj_path(t->dir);
		if (t->short_term) {
			if (ks_traj_load(path, &t->traj, err)) {
				free(path);
				return -1;
			}
			if (t->traj.n && t->signature &&
			    (!t->traj.v[0].task || strcmp(t->traj.v[0].task, t->signature)) &&
			    set_aside(t, path, err)) {
				free(path);
				return -1;
			}
			t->resumed = t->traj.n > 0;
		} else if (ks_fs_exists(path) && remove(path)) {
			ks_error_errno(err, "cannot start %s afresh", path);
			free(path);
			return -1;
		}
		free(path);
	}
	ks_traj_state(&t->traj, t->min_gain, &t->state);
	if (!t->traj.n) {
		if (ks_agent_seed(t, err))
			return -1;
		if (t->end != KS_TASK_RUNNING)
			return 0;
	} else if (!t->state.seeded) {
		set_end(t, KS_TASK_INELIGIBLE, t->traj.v[0].reason);
		return 0;
	}
	max_steps = (size_t)t->rounds * LOOP_STEPS_PER_ROUND + 16;
	while (t->end == KS_TASK_RUNNING) {
		if (t->state.reviews >= t->rounds) {
			set_end(t, KS_TASK_ROUNDS, NULL);
			break;
		}
		if (!ks_traj_budget_allows(&t->state, t->gpu_ms, final_per_seed(t))) {
			double f = final_per_seed(t);

			if (f > KS_TRAJ_FINAL_PER_SEED)
				ks_log("optimize: %s: the final check reserved at %.1f "
				       "seeds' reviews, what such checks cost before",
				       t->id, f);
			set_end(t, KS_TASK_GPU_TIME, NULL);
			break;
		}
		if (steps++ >= max_steps) {
			set_end(t, KS_TASK_NO_SKILL, "every step repeats an earlier one");
			break;
		}
		if (ks_agent_step(t, err) < 0)
			return -1;
	}
	return 0;
}

int
ks_task_best(const struct ks_task *t)
{
	return t->state.seeded ? t->state.best : 0;
}

void
ks_task_trail_json(const struct ks_task *t, int r, struct ks_buf *out)
{
	int chain[256];
	size_t n = 0, i;

	while (r > 0 && (size_t)r < t->traj.n && n < KS_ARRAY_SIZE(chain)) {
		chain[n++] = r;
		r = t->traj.v[r].parent;
	}
	ks_buf_adds(out, "[");
	for (i = n; i-- > 0;) {
		const struct ks_traj_round *x = &t->traj.v[chain[i]];

		ks_buf_addf(out, "%s{\"round\": %d, \"skill\": ", i + 1 == n ? "" : ", ",
			    x->round);
		ks_buf_add_json_str_or_null(out, x->skill);
		ks_buf_adds(out, ", \"params\": ");
		ks_buf_add_json_str_or_null(out, x->params);
		ks_buf_addf(out, ", \"speedup\": %.4f}", x->speedup);
	}
	ks_buf_adds(out, "]");
}

/* ---- the base's source --------------------------------------------------- */

int
ks_agent_base_source(const char *text, size_t len, size_t def_begin, size_t def_end,
		     const char *variant, struct ks_buf *out, struct ks_buf *err)
{
	struct ks_rewrite_variant v;
	char *copy;

	if (def_begin > def_end || def_end > len)
		return ks_error(err, "the kernel's extent lies outside its file");
	copy = ks_xstrdup(variant);
	memset(&v, 0, sizeof(v));
	if (ks_rewrite_variant_split(copy, &v, err)) {
		free(copy);
		return -1;
	}
	ks_buf_add(out, text, def_begin);
	if (v.helpers.text)
		ks_buf_adds(out, v.helpers.text);
	ks_buf_adds(out, v.definition.text);
	ks_buf_add(out, text + def_end, len - def_end);
	free(copy);
	return 0;
}
