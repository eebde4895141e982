/*
 * reviewer: the Reviewer as one library call. Given one or more captures of
 * a kernel and a candidate translation unit (or none), it builds the
 * original and the candidate with an entry shim into shared objects, runs
 * ks-replay once per capture (one child process per candidate, with a time
 * limit), falls back to ncu for the metrics, runs compute-sanitizer on
 * request, and returns a structured verdict. `ks replay`, `ks try` and the
 * optimize loop all call ks_review_run(); none of them decides what is
 * correct or faster on its own.
 *
 * The decision from what the children reported to the verdict is the pure
 * ks_review_decide() (unit-tested without a GPU); what is correct on one
 * run and what is faster are decided inside ks-replay by tolerance.h and
 * timing.h.
 *
 * Nothing is printed: build logs, the review JSON and every path land in
 * the result, and the caller prints what it wants.
 *
 * A caller (the loop reviewing one variant on every capture of a kernel):
 *
 *	struct ks_review_request rq;
 *	struct ks_review_result res;
 *
 *	ks_review_request_init(&rq);
 *	rq.conf = conf;
 *	rq.captures = dirs;		(ks_capture_find() turns names into dirs)
 *	rq.ncaptures = n;
 *	rq.candidate = "variant.cu";	(the whole TU with the kernel replaced)
 *	rq.time = 1;
 *	if (ks_review_run(&rq, &res, err))
 *		return -1;		(an unusable request, not a verdict)
 *	if (res.verdict == KS_REVIEW_CORRECT && res.per[0].speed &&
 *	    !strcmp(res.per[0].speed, "faster"))
 *		... keep it: res.per[i].json_path holds the evidence ...
 *	ks_review_result_release(&res);
 *
 * Ownership: the request borrows everything it points to. The result owns
 * its strings and arrays; ks_review_result_release() frees them (safe on a
 * zeroed or ks_review_result_init()ed struct).
 * May include: libc, core/, capture/, nvcc/, review/ (its own headers).
 */
#ifndef KS_REVIEW_REVIEWER_H
#define KS_REVIEW_REVIEWER_H

#include <stddef.h>

struct ks_buf;
struct ks_conf;

/* What the Reviewer says about a candidate (or about the original alone). */
enum ks_review_verdict {
	KS_REVIEW_ERROR,	/* the review itself could not run */
	KS_REVIEW_ELIGIBLE,	/* no candidate: the original reproduces its capture */
	KS_REVIEW_CORRECT,	/* the candidate passed every check asked for */
	KS_REVIEW_INELIGIBLE,	/* the original does not reproduce its capture */
	KS_REVIEW_REJECTED,	/* the candidate failed: see `why` and `stage` */
};

/* "error", "eligible", "correct", "ineligible", "rejected". */
const char *ks_review_verdict_name(enum ks_review_verdict v);

/*
 * The exit status `ks replay` gives a verdict: 0 (eligible, correct),
 * 1 (ineligible, rejected), 105 (error).
 */
int ks_review_verdict_exit(enum ks_review_verdict v);

struct ks_review_request {
	const char *const *captures;	/* capture directories, at least one */
	size_t ncaptures;
	const char *candidate;	/* the candidate TU (a .cu path), or NULL */
	const char *record;	/* build record of the kernel's TU, or NULL:
				 * the capture's, else the newest that built it */
	const char *types;	/* "T1;T2;..." spelled parameter types where a
				 * capture has none, or NULL */
	int launcher;		/* the candidate defines ks_launch_<kernel>
				 * (also found by reading the candidate) */
	int time;		/* interleaved timing of original and candidate */
	int metrics;		/* counters (CUPTI Range Profiler, else ncu) */
	int ncu;		/* counters from ncu even where CUPTI works */
	int sanitize;		/* memcheck and racecheck on a correct candidate */
	int sanitize_smallest;	/* ... on the capture of fewest bytes only
				 * (the rest are checked without it) */
	unsigned long random;	/* fresh input sets; (unsigned long)-1: the
				 * configuration's KS_REVIEW_RANDOM */
	unsigned long seed;	/* of the fresh input sets (default 1) */
	const struct ks_conf *conf;	/* KS_DIR, tolerances, reps, time limit */
	const char *gpu_lock;	/* the GPU's lock (gpulock.h), or NULL:
				 * ks-replay holds it shared while it
				 * checks and alone while it measures */
	int gpu_alone;		/* ... or the whole replay holds it alone
				 * (many replays of big captures at once
				 * would not fit in memory) */
	int metrics_only;	/* counters of one side only (the candidate,
				 * else the original), nothing checked, timed
				 * or sanitized: for a side already verified */
};

/* Defaults: no candidate, no timing, random from the configuration. */
void ks_review_request_init(struct ks_review_request *rq);

/* One side's kernel times in ms: median and 10th..90th percentile spread. */
struct ks_review_timing {
	int have;
	unsigned long n;
	double median_ms, lo_ms, hi_ms, min_ms, max_ms;
};

/* One side's metrics, in the order of ks_metricset() (metricset.h). */
struct ks_review_metrics {
	size_t n;		/* rows of ks_metricset() */
	double *value;		/* [n] */
	int *have;		/* [n]: 0 where unavailable */
};

/* The review of one capture. */
struct ks_review_capture {
	char *capture;		/* the capture directory */
	char *kernel;		/* mangled name */
	char *demangled;	/* or NULL */
	unsigned long launch;
	unsigned grid[3], block[3];
	enum ks_review_verdict verdict;
	char *stage;		/* where a rejection or an error happened, or NULL */
	char *why;		/* the reason for anything but eligible/correct */
	int reproduces;		/* the original reproduces the captured outputs */
	int correct;		/* the candidate passed (captured and fresh inputs) */
	unsigned long random_sets, random_passed;
	struct ks_review_timing orig_time, cand_time;
	char *speed;		/* "faster", "same", "slower", "unknown", or NULL */
	double speedup;		/* median orig / median cand; 0 when not timed */
	char *metrics_source;	/* "cupti-range-profiler", "ncu", "timing-only" */
	struct ks_review_metrics orig_metrics, cand_metrics;
	int sanitized;		/* compute-sanitizer ran */
	double gpu_ms;		/* time on the GPU (ks-replay and the sanitizer
				 * runs), without waiting for the GPU lock */
	int memcheck_clean, racecheck_clean;
	char *workdir;		/* shims, objects, result.json, review.json */
	char *json_path;	/* <workdir>/review.json */
	char *original_so, *candidate_so;
	char *build_log;	/* nvcc's output for the last build */
	char *json;		/* the whole review, as `ks replay --json` prints */
	int bounded;		/* a run was stopped at its time bound */
	/* Where the review's time went, in seconds: ks-replay's stages (its
	 * "seconds"), the ncu fallback, the sanitizer runs, the nvcc builds
	 * (the CPU's, outside gpu_ms) and the waits for the GPU lock. */
	double setup_s, original_s, output_only_s, candidate_s, random_s,
		timing_s, metrics_s, ncu_s, sanitizer_s, compile_s, lock_wait_s;
	double process_s;	/* ks-replay's time outside its stages: the
				 * process starting, ending (freeing its
				 * pinned memory, the CUDA context) */
};

struct ks_review_result {
	enum ks_review_verdict verdict;	/* the worst over the captures */
	char *why;		/* the first reason for that verdict, or NULL */
	struct ks_review_capture *per;	/* [n], in the request's order */
	size_t n;
};

void ks_review_result_init(struct ks_review_result *r);
void ks_review_result_release(struct ks_review_result *r);

/*
 * Review the candidate (or the original alone) on every capture of the
 * request. Returns 0 with result->verdict set, including REJECTED (a
 * candidate that does not compile, fails a check, faults, hangs, or is not
 * sanitizer-clean) and ERROR (a capture that could not be reviewed: the
 * reason is in `why`); -1 with a message in `err` only when the request is
 * unusable (no capture, no configuration).
 */
int ks_review_run(const struct ks_review_request *rq,
		  struct ks_review_result *result, struct ks_buf *err);

/* What the children said about one capture: the input of the decision. */
struct ks_review_facts {
	int has_candidate;
	int compiled;		/* the candidate compiled (1 without candidate) */
	const char *replay_verdict;	/* ks-replay's "verdict", or NULL */
	const char *stage;	/* ks-replay's "stage" of an error, or NULL */
	int sanitize_asked;
	int sanitize_clean;	/* both tools clean (when asked) */
};

/*
 * Pure: the verdict on one capture. ks-replay's "measured" (a metrics-only
 * pass, which checks nothing) is "eligible" or "correct" by the side it
 * measured: it says only that the pass ran. "eligible" and "correct"
 * stand unless the sanitizer was asked and found errors; "ineligible" is
 * the original's failure, "incorrect" the candidate's; no verdict is the
 * candidate's rejection when the error happened in the candidate's own
 * runs (stages "candidate", "random", "process"), else the review's error.
 */
enum ks_review_verdict ks_review_decide(const struct ks_review_facts *f);

/*
 * Pure: the verdict over several captures: REJECTED if the candidate failed
 * on any (a wrong candidate is wrong), else ERROR if any could not be
 * reviewed, else INELIGIBLE if any original did not reproduce, else the
 * first's (all eligible, or all correct). ERROR when n is 0.
 */
enum ks_review_verdict ks_review_combine(const enum ks_review_verdict *v,
					 size_t n);

#endif
