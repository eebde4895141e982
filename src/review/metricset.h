/*
 * metricset: the normalized metrics the Reviewer reports, as data.
 *
 * Each row maps ks's name for a quantity to the Nsight/CUPTI metric that
 * measures it on Volta and later (the same names serve the CUPTI Range
 * Profiler and `ncu --metrics`). Registers per thread and the occupancy
 * limits do not come from counters: ks-replay reads them from the kernel's
 * attributes (occupancy.h). A metric a GPU or driver does not offer is
 * dropped and listed as unavailable, never guessed.
 * May include: libc.
 */
#ifndef KS_REVIEW_METRICSET_H
#define KS_REVIEW_METRICSET_H

#include <stddef.h>

struct ks_metric_def {
	const char *name;	/* ks's name: "dram_pct" */
	const char *metric;	/* "dram__throughput.avg.pct_of_peak_sustained_elapsed" */
	const char *what;	/* one line for docs and reports */
};

/* The table; *n gets its length. */
const struct ks_metric_def *ks_metricset(size_t *n);

/* The row whose `metric` is `metric`, or NULL. */
const struct ks_metric_def *ks_metricset_find_metric(const char *metric);

#endif
