/*
 * trajectory: the short-term memory of one optimization task (one kernel
 * with all its captures), KS_DIR/tasks/<task>/trajectory.jsonl.
 *
 * One JSON line per step of the loop: the seed, every candidate the
 * Reviewer saw (with its parent, phase, skill and why, parameters or plan,
 * candidate hash, compile result, verdict, timings with spreads, metrics
 * and diagnosis), and the steps that reached no Reviewer (a transform that
 * declined, a candidate whose hash was seen) so that a resumed task does
 * not take them again. The candidates lie beside it (r<N>.cu, the whole
 * translation unit; r<N>.variant.cu, the variant file).
 *
 * The rules the loop obeys are pure functions over the records, so they
 * are tested without a GPU: never review a candidate whose hash was seen;
 * never repeat a skill on the same parent without a stated difference
 * (other parameters or another plan); the base moves only on a real gain
 * (spreads apart and at least a set ratio); the repair chain of a failed
 * candidate goes to the Diagnoser; the state of a task (base, best, rounds
 * and GPU time spent) is derived from its records alone, which is how a
 * task resumes after an interrupt.
 *
 * Ownership: struct ks_traj_round owns its strings and arrays, struct
 * ks_traj its rounds; the _release() functions free them (safe on zeroed
 * structs).
 * May include: libc, core/.
 */
#ifndef KS_MEMORY_TRAJECTORY_H
#define KS_MEMORY_TRAJECTORY_H

#include <stddef.h>

struct ks_buf;

#define KS_TRAJ_FORMAT 1

/* The gain the base needs to move, unless configured (KS_MIN_GAIN). */
#define KS_TRAJ_MIN_GAIN 1.05

/* A kernel time in ms: median and the 10th..90th percentile spread. */
struct ks_traj_timing {
	int have;
	double median, lo, hi;
};

/* The Diagnoser's structured diagnosis of a failed candidate. */
struct ks_traj_diag {
	char *cls;		/* nvcc, ptxas, link, runtime, hang, verdict,
				 * sanitizer, review, unknown; NULL: none */
	char *what;		/* what broke, one line */
	char *evidence;		/* the log lines it rests on */
	char *cause;		/* the likely cause */
	char *fix;		/* the minimal fix */
	char *next;		/* the Repairer's rule: "point", "skill" */
};

/*
 * Where a step's time went, in seconds (0: not spent). The GPU phases are
 * ks-replay's stages summed over the captures, then the ncu fallback, the
 * sanitizer and a new base's counters pass (its whole replay); "compile"
 * is the CPU's (nvcc building the shared objects) and "lock_wait" the
 * time spent behind other tasks: neither counts as the step's GPU time.
 */
enum ks_traj_cost_phase {
	KS_TRAJ_COST_COMPILE,
	KS_TRAJ_COST_SETUP,
	KS_TRAJ_COST_ORIGINAL,
	KS_TRAJ_COST_OUTPUT_ONLY,
	KS_TRAJ_COST_CANDIDATE,
	KS_TRAJ_COST_RANDOM,
	KS_TRAJ_COST_TIMING,
	KS_TRAJ_COST_METRICS,
	KS_TRAJ_COST_PROCESS,
	KS_TRAJ_COST_NCU,
	KS_TRAJ_COST_SANITIZER,
	KS_TRAJ_COST_BASE_METRICS,
	KS_TRAJ_COST_LOCK_WAIT,
	KS_TRAJ_COST_N
};

struct ks_traj_cost {
	double s[KS_TRAJ_COST_N];
};

/* "compile", "setup", "original", "output-only", "candidate", "random",
 * "timing", "metrics", "process" (ks-replay starting and ending), "ncu",
 * "sanitizer", "base-metrics", "lock_wait". */
const char *ks_traj_cost_name(enum ks_traj_cost_phase p);

/* The phase named `name` (ks-replay's stage names), or KS_TRAJ_COST_N. */
enum ks_traj_cost_phase ks_traj_cost_phase_of(const char *name);

/* Pure: any phase spent? */
int ks_traj_cost_any(const struct ks_traj_cost *c);

struct ks_traj_round {
	int round;		/* its place in the file, from 0 (the seed) */
	int parent;		/* the round of the base it derives from;
				 * -1 for the seed (the original) */
	char *phase;		/* "seed", "optimize", "repair" */
	int repairs;		/* the failed round it repairs, or -1 */
	char *skill;		/* or NULL (the seed) */
	char *why;		/* the plan's justification */
	char *params;		/* "block=256 vec=4", "" (none), or NULL */
	char *plan;		/* an LLM's plan, or NULL */
	char *source;		/* what the transform read: "original", "base" */
	char *hash;		/* of the candidate's variant file (16 hex), or NULL */
	char *file;		/* the candidate TU, relative to the task */
	char *variant;		/* the variant file, relative to the task */
	char *compile;		/* "ok", "failed", or NULL: not compiled */
	char *verdict;		/* the Reviewer's (eligible, correct, rejected,
				 * ineligible, error), or the loop's own:
				 * "declined", "seen" */
	char *stage, *reason;
	struct ks_traj_timing orig, cand;	/* over all captures */
	double speedup;		/* orig / cand median; 0: not timed */
	int gain;		/* the base moved to this candidate */
	size_t nmetrics;
	char **mnames;
	double *mvalues;
	struct ks_traj_diag diag;
	double gpu_ms;		/* the review's time */
	struct ks_traj_cost cost;	/* where the step's time went */
	long tokens;		/* LLM tokens this step spent */
	char *model;		/* "none" or the LLM's model */
	char *time;		/* UTC */
	char *task;		/* the seed's: what the task was made of (a hash
				 * of the kernel's source and captures), or NULL */
};

struct ks_traj {
	struct ks_traj_round *v;
	size_t n, alloc;
};

void ks_traj_round_init(struct ks_traj_round *r);
void ks_traj_round_release(struct ks_traj_round *r);
void ks_traj_release(struct ks_traj *t);

/* Append `r` to `t`, which takes over its contents (`r` is zeroed). */
void ks_traj_push(struct ks_traj *t, struct ks_traj_round *r);

/* Pure: one record as one JSON line (with the newline). */
void ks_traj_round_json(const struct ks_traj_round *r, struct ks_buf *out);

/*
 * Pure: read JSON lines into `t` ("NAME:LINE: ..." on a malformed line).
 * A last line without its newline that does not parse is an interrupted
 * write: it is dropped and *dropped (when not NULL) set to 1.
 */
int ks_traj_parse(const char *name, const char *text, struct ks_traj *t,
		  int *dropped, struct ks_buf *err);

/* <dir>/tasks/<task> and <dir>/tasks/<task>/trajectory.jsonl (freed by
 * the caller). */
char *ks_traj_task_dir(const char *dir, const char *task);
char *ks_traj_path(const char *task_dir);

/* Append one record to the file, whole (one write, then fsync). */
int ks_traj_append(const char *path, const struct ks_traj_round *r,
		   struct ks_buf *err);

/*
 * One exchange with the LLM, appended to <task_dir>/llm.jsonl: the agent
 * ("planner", "diagnoser", ...), the round it served, the system and user
 * prompts, the reply (or NULL), the tokens it cost and the error (or
 * NULL). The settings' API key is never part of what is passed here.
 */
struct ks_traj_exchange {
	const char *agent;
	int round;
	const char *system, *user, *reply, *error;
	long tokens;
};
int ks_traj_transcript(const char *task_dir, const struct ks_traj_exchange *x,
		       struct ks_buf *err);

/* Read the file into `t`; a missing file is an empty trajectory. */
int ks_traj_load(const char *path, struct ks_traj *t, struct ks_buf *err);

/* ---- the rules (pure) -------------------------------------------------- */

/* Did a candidate with this hash reach a step before? Its round, or -1. */
int ks_traj_seen(const struct ks_traj *t, const char *hash);

/*
 * Was `skill` applied to `parent` before with no stated difference: the
 * same parameters and the same plan (NULL and "" are the same)? Its
 * round, or -1.
 */
int ks_traj_repeats(const struct ks_traj *t, int parent, const char *skill,
		    const char *params, const char *plan);

/*
 * A real gain of `cand` over `base`: both timed, the spreads apart
 * (cand's 90th percentile below base's 10th) and base / cand at least
 * `ratio`.
 */
int ks_traj_is_gain(const struct ks_traj_timing *base,
		    const struct ks_traj_timing *cand, double ratio);

/*
 * Does verified round `r` move the base from round `base`? Its candidate
 * against the base as measured beside r's original: the seed is r's own
 * original (timed interleaved in the same review); a variant's time is
 * scaled by how the original moved between its review and r's, so that a
 * GPU running faster between two reviews does not pass for a gain.
 */
int ks_traj_moves_base(const struct ks_traj *t, int base,
		       const struct ks_traj_round *r, double ratio);

/* Did the Reviewer pass the round's candidate (or seed)? */
int ks_traj_verified(const struct ks_traj_round *r);

/* Did the round's candidate reach the Reviewer and fail? */
int ks_traj_failed(const struct ks_traj_round *r);

/*
 * The repair chain that ends at round `last`: the failed candidate it
 * repairs, that one's, and so on, oldest first, into `out` (room for
 * `max`). Returns the length (0 when `last` is no failed candidate).
 */
size_t ks_traj_repair_chain(const struct ks_traj *t, int last, int *out,
			    size_t max);

/* What a task's records say about where it stands. */
struct ks_traj_state {
	int seeded;		/* the seed verified the original */
	int ineligible;		/* the seed did not */
	int base;		/* round of the base (0: the seed) */
	int best;		/* round of the fastest real gain (0: none) */
	size_t reviews;		/* candidates that reached the Reviewer */
	double gpu_ms;		/* their review time */
	double seed_ms;		/* the seed's review time */
	double max_ms;		/* the costliest review, the seed's included */
	long tokens;
	int open_failure;	/* the last reviewed candidate when it failed, or -1 */
};

/*
 * Pure: the state after the records, replaying the base rule with `ratio`
 * (the `gain` flags written are checked against it, not trusted).
 */
void ks_traj_state(const struct ks_traj *t, double ratio,
		   struct ks_traj_state *s);

/*
 * Pure: whether a task in state `s` may start another review within a GPU
 * budget of `budget_ms` (0: none). What is spent, one more review as
 * costly as the costliest so far, and the final check of the best variant
 * (`final_per_seed` times the seed's review, at least
 * KS_TRAJ_FINAL_PER_SEED: both run every capture, the check under the
 * sanitizer; what checks have cost is in the statistics, ks_check_ratio)
 * must fit, so that a budget bounds the task's whole GPU time instead of
 * being passed by a round and the check.
 */
#define KS_TRAJ_FINAL_PER_SEED 1.5
int ks_traj_budget_allows(const struct ks_traj_state *s, double budget_ms,
			  double final_per_seed);

#endif
