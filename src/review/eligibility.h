/*
 * eligibility: which captured kernels ks can optimize. Each capture's
 * original is replayed once (ks_review_run without a candidate) and the
 * verdict kept beside it as <capture>/eligibility.json; the table over all
 * captures, one row per kernel (launches captured, bytes, reproduces,
 * reason), is what `ks capture` prints after the program exits and what
 * `ks captures` prints again.
 *
 * Checks run in parallel, one child process per capture (the builds of
 * the shims take the CPU), holding a lock around their GPU runs so that
 * only one replays at a time and timings are not disturbed.
 *
 * Verdict file (format 1): {"format": 1, "verdict": "eligible" |
 * "ineligible" | "error", "reproduces": bool, "why": text or null,
 * "stage": text or null, "time": ISO 8601 UTC}.
 *
 * Ownership: struct ks_elig owns its strings (ks_elig_release).
 * May include: libc, core/, capture/, review/ (reviewer.h).
 */
#ifndef KS_REVIEW_ELIGIBILITY_H
#define KS_REVIEW_ELIGIBILITY_H

#include <stddef.h>

struct ks_buf;
struct ks_conf;
struct ks_review_capture;

#define KS_ELIG_FILE "eligibility.json"

/* One capture and its verdict. */
struct ks_elig {
	char *dir;
	char *kernel, *demangled;
	unsigned long launch;
	unsigned long long bytes;	/* its buffers, together */
	int checked;		/* a verdict was read */
	int reproduces;
	char *verdict;		/* "eligible", "ineligible", "error", or NULL */
	char *why;		/* or NULL */
};

void ks_elig_release(struct ks_elig *e);

/* Pure: the verdict file's text for one review of an original. */
void ks_elig_format(const struct ks_review_capture *rc, const char *time,
		    struct ks_buf *out);

/* Pure: parse the verdict file's text into `e` (its verdict fields). */
int ks_elig_parse(const char *text, struct ks_elig *e, struct ks_buf *err);

/*
 * Load capture `dir` (launch.json) and its verdict, if any, into `e`
 * (zeroed first). -1 when launch.json does not read.
 */
int ks_elig_load(const char *dir, struct ks_elig *e, struct ks_buf *err);

/*
 * Pure: the table, one row per kernel in the order of first appearance:
 * kernel (demangled where known), launches captured, bytes, reproduces
 * ("yes", "no", "2 of 3", "not checked"), and the first reason. Appends
 * text lines to `out`.
 */
void ks_elig_table(const struct ks_elig *v, size_t n, struct ks_buf *out);

/*
 * Is there a GPU to replay on? Runs `ks-replay --probe`. 0, or -1 with the
 * reason in `why` (no ks-replay, no device).
 */
int ks_elig_probe(const struct ks_conf *conf, struct ks_buf *why);

/*
 * Check every capture of `dirs` (the original only) with at most `jobs`
 * at once (0: the CPUs online), writing each verdict file. Returns the
 * number of captures checked; a review that could not run still leaves a
 * verdict ("error" with its reason).
 */
size_t ks_elig_check(const struct ks_conf *conf, const char *const *dirs, size_t n,
		     unsigned jobs);

#endif
