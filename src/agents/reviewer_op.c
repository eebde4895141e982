/*
 * reviewer_op: the loop's Reviewer is ks_review_run() on every capture of
 * the task, reduced to what the loop decides on: the combined verdict,
 * the times summed over the captures (the program's time in this kernel),
 * the metrics of the first capture, and the GPU time the review took.
 */
#include "agents.h"

#include <stdlib.h>
#include <string.h>

#include "../core/buf.h"
#include "../core/util.h"
#include "../review/metricset.h"
#include "../review/reviewer.h"

static void
add_timing(struct ks_traj_timing *sum, const struct ks_review_timing *t, int *all)
{
	if (!t->have) {
		*all = 0;
		return;
	}
	sum->have = 1;
	sum->median += t->median_ms;
	sum->lo += t->lo_ms;
	sum->hi += t->hi_ms;
}

static void
take_metrics(const struct ks_review_metrics *m, struct ks_agent_review *out)
{
	size_t n, i;
	const struct ks_metric_def *defs = ks_metricset(&n);

	if (!m->n || !m->value || !m->have)
		return;
	out->mnames = ks_xcalloc(m->n, sizeof(*out->mnames));
	out->mvalues = ks_xcalloc(m->n, sizeof(*out->mvalues));
	for (i = 0; i < m->n && i < n; i++) {
		if (!m->have[i])
			continue;
		/* The policy reads counters as m.<name>. */
		out->mnames[out->nmetrics] = ks_xasprintf("m.%s", defs[i].name);
		out->mvalues[out->nmetrics++] = m->value[i];
	}
}

void
ks_agent_cost_add(struct ks_traj_cost *cost, const struct ks_review_capture *c)
{
	cost->s[KS_TRAJ_COST_COMPILE] += c->compile_s;
	cost->s[KS_TRAJ_COST_SETUP] += c->setup_s;
	cost->s[KS_TRAJ_COST_ORIGINAL] += c->original_s;
	cost->s[KS_TRAJ_COST_OUTPUT_ONLY] += c->output_only_s;
	cost->s[KS_TRAJ_COST_CANDIDATE] += c->candidate_s;
	cost->s[KS_TRAJ_COST_RANDOM] += c->random_s;
	cost->s[KS_TRAJ_COST_TIMING] += c->timing_s;
	cost->s[KS_TRAJ_COST_METRICS] += c->metrics_s;
	cost->s[KS_TRAJ_COST_PROCESS] += c->process_s;
	cost->s[KS_TRAJ_COST_NCU] += c->ncu_s;
	cost->s[KS_TRAJ_COST_SANITIZER] += c->sanitizer_s;
	cost->s[KS_TRAJ_COST_LOCK_WAIT] += c->lock_wait_s;
}

double
ks_agent_cost_gpu_s(const struct ks_traj_cost *cost)
{
	double sum = 0;
	size_t i;

	for (i = 0; i < KS_TRAJ_COST_N; i++)
		if (i != KS_TRAJ_COST_COMPILE && i != KS_TRAJ_COST_LOCK_WAIT)
			sum += cost->s[i];
	return sum;
}

int
ks_agent_review_real(void *ctx, const struct ks_task *t, const char *candidate,
		     struct ks_agent_review *out, struct ks_buf *err)
{
	const struct ks_agent_reviewer *rv = ctx;
	struct ks_review_request rq;
	struct ks_review_result res;
	struct ks_buf ev = KS_BUF_INIT;
	int all_o = 1, all_c = 1;
	size_t i;

	memset(out, 0, sizeof(*out));
	ks_review_request_init(&rq);
	rq.conf = rv->conf;
	rq.captures = t->captures;
	rq.ncaptures = t->ncaptures;
	rq.candidate = candidate;
	rq.record = rv->record;
	rq.time = !rv->untimed;
	/* With base_counters the Planner's counters come from the seed's
	 * review and from a metrics-only pass on each new base: a candidate
	 * that does not move the base is never planned from. */
	rq.metrics = rv->metrics && (!rv->base_counters || !candidate);
	rq.sanitize = rv->sanitize && candidate;
	if (rv->final) {
		rq.random = 0;
		rq.sanitize_smallest = 1;
	}
	rq.gpu_lock = rv->gpu_lock;
	if (ks_review_run(&rq, &res, err))
		return -1;
	/* The GPU's time only: waiting for the GPU lock behind other tasks
	 * is not this task's spending. */
	for (i = 0; i < res.n; i++) {
		out->gpu_ms += res.per[i].gpu_ms;
		ks_agent_cost_add(&out->cost, &res.per[i]);
	}
	out->verdict = ks_xstrdup(ks_review_verdict_name(res.verdict));
	out->why = res.why ? ks_xstrdup(res.why) : NULL;
	out->compiled = 1;
	ks_buf_adds(&ev, "[");
	for (i = 0; i < res.n; i++) {
		const struct ks_review_capture *c = &res.per[i];

		if (c->stage && !out->stage && c->verdict == res.verdict)
			out->stage = ks_xstrdup(c->stage);
		if (c->stage && !strcmp(c->stage, "compile")) {
			out->compiled = 0;
			if (!out->log && c->build_log)
				out->log = ks_xstrdup(c->build_log);
		}
		add_timing(&out->orig, &c->orig_time, &all_o);
		add_timing(&out->cand, &c->cand_time, &all_c);
		if (c->speed && !strcmp(c->speed, "slower"))
			out->slower = 1;
		ks_buf_adds(&ev, i ? ", " : "");
		ks_buf_add_json_str_or_null(&ev, c->json_path);
	}
	ks_buf_adds(&ev, "]");
	out->evidence = ks_buf_detach(&ev, NULL);
	/* A sum over some captures only is no time of the kernel. */
	if (!all_o)
		memset(&out->orig, 0, sizeof(out->orig));
	if (!all_c)
		memset(&out->cand, 0, sizeof(out->cand));
	if (res.n)
		take_metrics(candidate ? &res.per[0].cand_metrics :
					 &res.per[0].orig_metrics, out);
	ks_review_result_release(&res);
	return 0;
}

int
ks_agent_counters_real(void *ctx, const struct ks_task *t, const char *candidate,
		       struct ks_agent_review *out, struct ks_buf *err)
{
	const struct ks_agent_reviewer *rv = ctx;
	struct ks_review_request rq;
	struct ks_review_result res;

	memset(out, 0, sizeof(*out));
	ks_review_request_init(&rq);
	rq.conf = rv->conf;
	/* The first capture: the one a review's metrics come from. */
	rq.captures = t->captures;
	rq.ncaptures = t->ncaptures ? 1 : 0;
	rq.candidate = candidate;
	rq.record = rv->record;
	rq.metrics_only = 1;
	rq.random = 0;
	rq.gpu_lock = rv->gpu_lock;
	if (ks_review_run(&rq, &res, err))
		return -1;
	out->verdict = ks_xstrdup(ks_review_verdict_name(res.verdict));
	out->why = res.why ? ks_xstrdup(res.why) : NULL;
	out->compiled = 1;
	if (res.n) {
		out->gpu_ms = res.per[0].gpu_ms;
		ks_agent_cost_add(&out->cost, &res.per[0]);
		take_metrics(candidate ? &res.per[0].cand_metrics :
					 &res.per[0].orig_metrics, out);
	}
	ks_review_result_release(&res);
	return 0;
}
