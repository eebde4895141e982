/*
 * agents: the optimize loop as step functions over one task (one kernel
 * with all its captures), guided by the two memories.
 *
 *   Generator   the seed: the original, verified by the Reviewer to
 *               reproduce every capture (no candidate); a kernel that does
 *               not is ineligible, with the Reviewer's reason.
 *   Reviewer    the library call (review/reviewer.h), through the task's
 *               ops table so that tests put a fake in its place.
 *   Diagnoser   a failed candidate -> a structured diagnosis (class, what,
 *               evidence lines, cause, minimal fix, the Repairer's rule),
 *               by rules for the nvcc, ptxas, link, runtime, hang, verdict
 *               and sanitizer classes; the LLM, when configured, for the
 *               rest.
 *   Planner     the policy's ranked allowed skills for the base (its
 *               metrics, the kernel's features and evidence), re-planned
 *               after every verified gain; rules-only, only skills with a
 *               builtin transform are kept. An LLM, when configured, may
 *               move one of them to the front with a plan.
 *   Optimizer   the next point of the top skill's parameter space
 *               (transforms/search.h order) not tried on the base, applied
 *               to the base's source where the analysis can read it, else
 *               to the original's. With an LLM, a skill without a builtin
 *               transform, or one whose points are spent on the base, gets
 *               one LLM edit of the base (llm_agents.h).
 *   Repairer    from the diagnosis: the next parameter point of the same
 *               skill, or the next skill. With an LLM, a failed LLM edit
 *               goes back to the LLM with its diagnosis and log, up to
 *               llm_repairs times down one chain.
 *
 * The loop (ks_agents_run) stops at the round budget, the GPU-time budget,
 * or when no allowed skill is left; a spent LLM token budget (or an LLM
 * that keeps failing) leaves the rest of the task rules-only. Every step is a
 * record of the trajectory (memory/trajectory.h) written before the next
 * starts, so a killed run resumes where it stopped; every verified outcome
 * is appended to the cross-task statistics (memory/knowledge.h).
 *
 * Nothing here prints: progress goes to the task's callback.
 * Ownership: struct ks_task borrows everything the caller sets (captures,
 * kernel, text, ops, library) and owns its trajectory, plan and result
 * strings; ks_task_release() frees those.
 * May include: libc, core/, memory/, policy/, transforms/, review/,
 * analysis/, cache/, llm/, agents/ (its own headers).
 */
#ifndef KS_AGENTS_AGENTS_H
#define KS_AGENTS_AGENTS_H

#include <stddef.h>

#include "../memory/trajectory.h"

struct ks_buf;
struct ks_conf;
struct ks_kernel;
struct ks_inventory;
struct ks_transform;
struct ks_xf_launch;
struct ks_llm;
struct ks_skills;
struct ks_task;

/* What a review tells the loop, over all captures of the task. */
struct ks_agent_review {
	char *verdict;		/* "eligible", "correct", "rejected",
				 * "ineligible", "error" */
	char *why, *stage;	/* the first reason; where it struck */
	int compiled;		/* the candidate compiled (1 without one) */
	char *log;		/* the build log of a failed compile, or NULL */
	struct ks_traj_timing orig, cand;	/* sums over the captures */
	int slower;		/* some capture was slower */
	size_t nmetrics;	/* the candidate's (the original's for a seed) */
	char **mnames;
	double *mvalues;
	char *evidence;		/* JSON array of review.json paths, or NULL */
	double gpu_ms;		/* how long the review held the GPU */
	struct ks_traj_cost cost;	/* where its time went (seconds) */
};

void ks_agent_review_release(struct ks_agent_review *r);

/* One allowed skill of a plan. */
struct ks_agent_skill {
	char *id;
	char *why;		/* the predicates that matched */
	char *bucket, *case_id;
	char *gain;		/* the case's expected gain (small, medium,
				 * large), or NULL: not judged */
};

/*
 * Pure: can a candidate of a case with `gain` beat a base `base_speedup`
 * times faster than the original, when it must be built from the original
 * (the base could not be transformed)? A small gain is taken as at most
 * 1.5x, a medium one as 3x; a large or unknown one may be anything.
 */
int ks_agent_gain_can_pass(const char *gain, double base_speedup);

struct ks_agent_plan {
	struct ks_agent_skill *v;
	size_t n;
};

void ks_agent_plan_release(struct ks_agent_plan *p);

/*
 * The hands of the loop. `review` is required; the others have defaults
 * (NULL): transform -> ks_xf_find; splice -> ks_rewrite over the task's
 * inventory; plan -> every builtin transform in ks_xf_all() order;
 * base_kernel -> none (transforms read the original).
 */
struct ks_agent_ops {
	void *ctx;
	/* Review `candidate` (a TU path; NULL: the original alone) on every
	 * capture. 0 with `out` filled (a rejection included), -1 when the
	 * review cannot run at all. */
	int (*review)(void *ctx, const struct ks_task *t, const char *candidate,
		      struct ks_agent_review *out, struct ks_buf *err);
	const struct ks_transform *(*transform)(void *ctx, const char *id);
	/* The TU with `variant` (the variant file `vname`) in place of the
	 * kernel. */
	int (*splice)(void *ctx, const struct ks_task *t, const char *variant,
		      const char *vname, struct ks_buf *tu, struct ks_buf *err);
	/* The ranked allowed skills for metrics (names/values; n may be 0). */
	int (*plan)(void *ctx, const struct ks_task *t, size_t n,
		    char *const *names, const double *values,
		    struct ks_agent_plan *out, struct ks_buf *err);
	/* The kernel as the analysis reads it in `path` (a base's source),
	 * or -1 with the reason; *k stays valid until the next call. */
	int (*base_kernel)(void *ctx, const struct ks_task *t, const char *path,
			   const struct ks_kernel **k, struct ks_buf *err);
	/* The counters of `candidate` alone (a verified candidate that
	 * became the base), nothing checked: `out` gets the metrics, the
	 * GPU time and the cost. NULL: the reviews' own metrics stand (every
	 * review measures them). With it, the Planner's counters are
	 * measured for the seed (its review) and for each new base only. */
	int (*counters)(void *ctx, const struct ks_task *t, const char *candidate,
			struct ks_agent_review *out, struct ks_buf *err);
};

/* Where a task ended. */
enum ks_task_end {
	KS_TASK_RUNNING,
	KS_TASK_INELIGIBLE,	/* the seed did not verify */
	KS_TASK_ROUNDS,		/* the round budget is spent */
	KS_TASK_GPU_TIME,	/* the GPU-time budget is spent */
	KS_TASK_NO_SKILL,	/* no allowed skill is left */
	KS_TASK_ERROR,		/* the Reviewer could not run */
};

const char *ks_task_end_name(enum ks_task_end e);

struct ks_task {
	/* set by the caller */
	const char *id;		/* the task's name: the kernel's directory */
	const char *dir;	/* KS_DIR/tasks/<id> */
	const char *ks_dir;	/* KS_DIR (the statistics live under it) */
	const char *kernel;	/* mangled name */
	/* What the task is made of (a hash of the source and the captures):
	 * a trajectory whose seed says otherwise is of an older program and
	 * is set aside, not resumed. NULL: not checked. */
	const char *signature;
	const char *const *captures;
	size_t ncaptures;
	const struct ks_inventory *inv;	/* the original TU's, or NULL */
	const struct ks_kernel *k;	/* the kernel in it */
	const char *source;	/* the original TU's path */
	const char *text;	/* and its text */
	size_t len;
	/* An instance of a template kernel (`k` is the template): its
	 * template arguments ("float", for the rewriter), the plain copy
	 * the transforms read in the instance view's text (cache/mono.h),
	 * and the aliases every variant of the copy needs among its
	 * helpers. All NULL for a plain kernel. */
	const char *inst_args;
	const struct ks_kernel *inst_k;
	const char *inst_text;
	size_t inst_len;
	const char *inst_aliases;
	int arch;		/* the variant's __CUDA_ARCH__: 900 */
	int fast_math;
	unsigned rounds;	/* candidates reviewed at most (default 15) */
	double gpu_ms;		/* GPU time at most, the final check's
				 * included (ks_traj_budget_allows); 0: none */
	long tokens;		/* LLM tokens at most; 0: no limit */
	double min_gain;	/* the base moves at this ratio (default 1.05) */
	int short_term;		/* read the trajectory: rules and resume */
	int long_term;		/* append outcomes to the statistics */
	/* What final checks have cost (the text of the statistics'
	 * checks.jsonl, ks_check_ratio), read with the long-term memory:
	 * the GPU budget reserves the dearest check of a skill the task may
	 * apply. NULL: the default reserve. */
	const char *check_costs;
	int lock_timeout_ms;
	/* the kernel's similarity vector for the statistics (the policy's) */
	size_t nfeatures;
	char *const *fnames;
	const double *fvalues;
	struct ks_agent_ops ops;
	struct ks_llm *llm;	/* NULL: rules only */
	/* The skill library (guidance, examples) and its role prompts
	 * (<dir>/prompts) for the LLM, or NULL: the skill's id alone and
	 * the builtin prompts. */
	const struct ks_skills *skills;
	unsigned llm_repairs;	/* LLM repairs down one chain (default 2) */
	void (*progress)(void *ctx, const struct ks_task *t,
			 const struct ks_traj_round *r);
	void *progress_ctx;
	/* what the loop keeps */
	struct ks_traj traj;
	struct ks_traj_state state;
	struct ks_agent_plan plan;
	int planned_for;	/* the base the plan was made for, or -1 */
	enum ks_task_end end;
	char *end_why;
	int resumed;		/* records were read back */
	long pending_tokens;	/* LLM tokens not yet in a record */
	unsigned llm_failures;	/* LLM requests in a row that got no reply */
	/* the captured launches' shapes the transforms see (read once) */
	struct ks_xf_launch *launches;
	size_t nlaunches;
};

/* Defaults: 15 rounds, gain 1.05, both memories on, 2 LLM repairs,
 * nothing else. */
void ks_task_init(struct ks_task *t);
void ks_task_release(struct ks_task *t);

/* ---- the step functions ---------------------------------------------------- */

/*
 * Generator: review the original alone and record the seed. Returns 0
 * (t->end is INELIGIBLE when it does not reproduce), -1 when the review
 * could not run.
 */
int ks_agent_seed(struct ks_task *t, struct ks_buf *err);

/*
 * Diagnoser, pure: the diagnosis of a failed review. The rules look at
 * the stage, the reason and the build log; `chain` failed rounds before
 * this one with the same skill tell it to give up on the skill's points.
 */
void ks_agent_diagnose(const char *stage, const char *why, const char *log,
		       size_t chain, struct ks_traj_diag *out);

/* Planner: t->plan for the current base (its metrics), with the skills the
 * loop can act on. */
int ks_agent_plan(struct ks_task *t, struct ks_buf *err);

/*
 * Optimizer and Repairer: one step. Picks the next (skill, point) the
 * rules allow on the base, applies it, and reviews the candidate; or
 * records a decline or a seen hash. Returns 1 when a record was added, 0
 * when nothing is left to try (t->end = NO_SKILL), -1 on an error.
 */
int ks_agent_step(struct ks_task *t, struct ks_buf *err);

/* The loop: resume or seed, then steps until a budget or the skills end. */
int ks_agents_run(struct ks_task *t, struct ks_buf *err);

/* The best verified round (a real gain over the original), or 0. */
int ks_task_best(const struct ks_task *t);

/* The trail: the skills of the chain of bases that led to round `r`, as a
 * JSON array of {round, skill, params, speedup}. */
void ks_task_trail_json(const struct ks_task *t, int r, struct ks_buf *out);

/* ---- the real Reviewer ---------------------------------------------------- */

/*
 * The ops.review of ks optimize: ks_review_run() on every capture, timed
 * interleaved, with metrics when `ctx` (a struct ks_agent_reviewer) asks.
 */
struct ks_agent_reviewer {
	const struct ks_conf *conf;
	const char *record;	/* the build record, or NULL: the capture's */
	int metrics;
	int sanitize;		/* the sanitizer on correct candidates */
	int untimed;		/* no timing (the final sanitizer pass) */
	int final;		/* the final pass: no fresh inputs (the round's
				 * review had them), the sanitizer on the
				 * smallest capture only */
	const char *gpu_lock;	/* held around the GPU runs, or NULL */
	int base_counters;	/* metrics in the seed's review only; a new
				 * base's come from ks_agent_counters_real */
};

int ks_agent_review_real(void *ctx, const struct ks_task *t, const char *candidate,
			 struct ks_agent_review *out, struct ks_buf *err);

/* The ops.counters of ks optimize: a metrics-only pass (reviewer.h) on the
 * first capture, the one whose counters a review reports. */
int ks_agent_counters_real(void *ctx, const struct ks_task *t, const char *candidate,
			   struct ks_agent_review *out, struct ks_buf *err);

/* Pure: one capture's review costs added to `cost` (seconds). */
struct ks_review_capture;
void ks_agent_cost_add(struct ks_traj_cost *cost, const struct ks_review_capture *c);

/* Pure: the GPU seconds of a step's cost (every phase but the compile and
 * the lock waits). */
double ks_agent_cost_gpu_s(const struct ks_traj_cost *cost);

/* Pure: the seam of a kernel replaced by a variant's helpers and
 * definition, without guards (what the next transform reads). */
int ks_agent_base_source(const char *text, size_t len, size_t def_begin,
			 size_t def_end, const char *variant, struct ks_buf *out,
			 struct ks_buf *err);

#endif
