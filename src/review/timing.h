/*
 * timing: is a candidate faster than the original? Pure decisions over
 * lists of kernel times in milliseconds.
 *
 * ks-replay times the original and the candidate interleaved in one
 * process (warm-up, cold L2 before every run) until both have at least
 * `min_reps` runs and `min_ms` of kernel time. Each side is summarized by
 * its median and its spread, the 10th to the 90th percentile (linear
 * interpolation between order statistics). A speedup is claimed only when
 * the spreads do not overlap: the candidate's 90th percentile below the
 * original's 10th. The reverse is "slower"; anything else is "same".
 * May include: libc, core/util.h, core/buf.h.
 */
#ifndef KS_REVIEW_TIMING_H
#define KS_REVIEW_TIMING_H

#include <stddef.h>

struct ks_buf;

struct ks_timing {
	size_t n;
	double median;
	double lo, hi;		/* 10th and 90th percentile */
	double min, max, total;
};

enum ks_speed {
	KS_SPEED_UNKNOWN,	/* too few runs to say */
	KS_SPEED_FASTER,
	KS_SPEED_SAME,
	KS_SPEED_SLOWER,
};

/* "unknown", "faster", "same", "slower". */
const char *ks_speed_name(enum ks_speed s);

/* Pure: summarize `n` times (the array is not modified). */
void ks_timing_summarize(const double *ms, size_t n, struct ks_timing *t);

/* Pure: the p-th percentile (0..100) of `n` sorted values. */
double ks_timing_percentile(const double *sorted, size_t n, double p);

/*
 * Pure: 1 when a side has enough runs (`min_reps`) and time: `min_ms` of
 * its own kernel time, or `wall_ms` (the timing so far, both sides and the
 * L2 flushes) of at least `min_ms`. Interleaved, the faster side of a big
 * speedup would otherwise hold the slower to hundreds of runs, and a
 * microsecond kernel would run a hundred thousand times.
 */
int ks_timing_enough(const struct ks_timing *t, size_t min_reps, double min_ms,
		     double wall_ms);

/*
 * Pure: the verdict on `cand` against `orig` (above). `speedup` gets the
 * ratio of the medians, orig / cand (0 when a median is not positive).
 */
enum ks_speed ks_timing_decide(const struct ks_timing *orig,
			       const struct ks_timing *cand, size_t min_reps,
			       double *speedup);

/*
 * Pure: did the candidate leave work running past its stop event? A tail is
 * the median time the GPU stayed busy after a side's stop event (a launch
 * on another stream, which the events on the launch stream do not see); an
 * honest run's is the few microseconds of one synchronize call. Yes when
 * the candidate's exceeds the original's by more than KS_TIMING_TAIL_MS.
 */
#define KS_TIMING_TAIL_MS 0.05
int ks_timing_escaped(double orig_tail_ms, double cand_tail_ms);

/*
 * Bounded time. A run of the original that takes far longer than the
 * captured launch is not the launch that was captured (a loop whose count
 * or exit came from memory replay did not restore): it is stopped and the
 * capture is ineligible. A candidate is held to a bound relative to the
 * original's own time on replay. Both bounds have a floor, so that start-up
 * costs and short kernels never trip them.
 */

/*
 * Pure: the milliseconds one run of the original may take: max(min_ms,
 * factor * captured), `captured_ns` the captured launch's duration (< 0:
 * unknown, then min_ms). 0 when both min_ms and factor are 0 (no bound).
 */
double ks_bound_original_ms(long long captured_ns, double min_ms, double factor);

/*
 * Pure: the milliseconds one run of a candidate may take: max(min_ms,
 * factor * original_ms), `original_ms` the original's fastest run on
 * replay (< 0: not measured, then min_ms). 0 when both are 0.
 */
double ks_bound_candidate_ms(double original_ms, double min_ms, double factor);

/* Pure: has a run of `elapsed_ms` gone past `limit_ms` (0: no bound)? */
int ks_bound_exceeded(double elapsed_ms, double limit_ms);

/*
 * Pure: the reason for a run stopped at its bound, appended to `why`:
 * "did not finish in 10 s (captured launch took 0.052 ms)" for the
 * original (`ref_ms` the captured duration, < 0 unknown), "did not finish
 * in 10 s (the original took 0.041 ms on replay)" for a candidate.
 */
void ks_bound_why(int candidate, double limit_ms, double ref_ms, struct ks_buf *why);

#endif
