/*
 * review: the `ks` side of the Reviewer. Runs ks-replay as a child with a
 * time limit (one process per candidate), reads its JSON, falls back to
 * `ncu --csv` for the metrics when the CUPTI Range Profiler cannot read
 * counters, and runs a candidate once under compute-sanitizer. What is
 * correct and what is faster is decided inside ks-replay by the pure rules
 * of tolerance.h and timing.h; this module only starts processes and reads
 * what they say.
 *
 * Ownership: the caller owns every buffer and strv passed in.
 * May include: libc, core/, capture/, tolerance.h, metricset.h.
 */
#ifndef KS_REVIEW_REVIEW_H
#define KS_REVIEW_REVIEW_H

#include <stddef.h>

#include "tolerance.h"

struct ks_buf;
struct ks_strv;

struct ks_review_opts {
	const char *replay;	/* the ks-replay program */
	const char *capture;	/* the capture directory */
	const char *original;	/* shared object of the original (required) */
	const char *candidate;	/* shared object of a candidate, or NULL */
	const char *workdir;	/* ks-replay writes result.json here */
	unsigned long random, seed, reps, min_ms;
	int time, metrics;
	const struct ks_tol *tol;	/* [KS_DTYPE_N], or NULL: ks-replay's */
	int timeout_ms;
	/* Maps of the captured globals onto each build's (globals.h), or NULL. */
	const char *original_globals, *candidate_globals;
	/* Bounded time (timing.h): passed when `bounds` is set, else
	 * ks-replay's defaults. */
	int bounds;
	unsigned long bound_min_ms, bound_factor, candidate_factor;
	int written_only;	/* --written-only: poison only written buffers
				 * when finding the output-only ones */
	const char *output_only;	/* found by an earlier replay of this
					 * capture ("-": none), or NULL */
	const char *gpu_lock;	/* passed to ks-replay (gpulock.h), or NULL */
	int metrics_only;	/* --metrics-only: the counters of one side (the
				 * candidate, else the original), no checks */
};

/*
 * Pure: ks-replay's arguments (argv[0] included). `once`: run one side once
 * without checks (for ncu and compute-sanitizer): the candidate if there
 * is one, else the original. `metrics_only` names the same one side.
 */
void ks_review_argv(const struct ks_review_opts *o, const char *json_path,
		    int once, struct ks_strv *out);

/*
 * Run ks-replay and put its JSON in `json`. When it ends without writing
 * any (killed on the time limit, crashed), `json` gets an object with
 * "error" and "stage": "process", and 0 is still returned: that is a
 * verdict on the candidate. -1 only when it could not be started.
 */
int ks_review_replay(const struct ks_review_opts *o, struct ks_buf *json,
		     struct ks_buf *err);

/*
 * Metrics of one side by `ncu --csv` (the fallback). Appends a JSON object
 * {"ranges": N, "<name>": value, ..., "unavailable": [...]} to `obj`.
 */
int ks_review_ncu(const struct ks_review_opts *o, const char *ncu, int candidate,
		  struct ks_buf *obj, struct ks_buf *err);

/*
 * Pure: read `ncu --csv --print-units base` output (rows of "ID", ...,
 * "Metric Name", "Metric Unit", "Metric Value"; other lines ignored) into
 * the metric-set object described above. Durations of several kernels add
 * up; other metrics are the longest kernel's. Returns the number of
 * metric-set values found.
 */
size_t ks_review_parse_ncu_csv(const char *csv, struct ks_buf *obj);

/*
 * Run the candidate (else the original) once under `compute-sanitizer
 * --tool TOOL` (memcheck, racecheck). *clean is 1 when it reported no
 * error; `report` gets its summary and first findings.
 */
int ks_review_sanitize(const struct ks_review_opts *o, const char *sanitizer,
		       const char *tool, int *clean, struct ks_buf *report,
		       struct ks_buf *err);

/*
 * The demangled name of `mangled` by the toolkit's cu++filt (found as
 * core/toolkit.h says, beside `nvcc` first), or NULL. A fresh string.
 */
char *ks_review_demangle(const char *nvcc, const char *mangled);

#endif
