/*
 * metrics: the normalized metric set (review/metricset.h) of one kernel
 * run, from the CUPTI Range Profiler and Profiler Host API (CUDA 12.8 and
 * later): auto range (one range per kernel), kernel replay (CUPTI saves
 * and restores the memory the kernel touches between passes). Metrics the
 * chip does not offer are left out, one by one, rather than failing the
 * set. Counters need profiling rights (admin, or the driver's
 * NVreg_RestrictProfilingToAdminUsers=0); without them this fails with a
 * message saying so, and the caller falls back (ncu, then timing only).
 * Part of ks-replay; the only file that includes the profiler headers.
 * May include: libc, core/, review/metricset.h, CUDA, CUPTI.
 */
#ifndef KS_REVIEW_REPLAY_METRICS_H
#define KS_REVIEW_REPLAY_METRICS_H

#include <stddef.h>

struct ks_buf;

/*
 * Profile what `run(arg)` launches on device `device` (the current context
 * must be its primary context). values[i] and have[i] are per row of the
 * metric set; a run that launches several kernels gives several ranges:
 * durations are summed and every other metric is the longest range's.
 * Returns 0, or -1 with the reason.
 */
int ks_metrics_collect(int device, int (*run)(void *), void *arg,
		       double *values, int *have, size_t *ranges,
		       struct ks_buf *err);

#endif
