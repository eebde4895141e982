/*
 * search: the order in which ks try visits a transform's parameter space,
 * and when it stops. Pure functions over the descriptors of transform.h
 * and the timings already measured; ks try (src/cli/transform.c) does the
 * applying and reviewing.
 *
 * Order: the default point first, then every other point by rank (the sum
 * of its values' positions in their lists, each list being most promising
 * first), ties in lexicographic order of positions. A parameter fixed by
 * the caller keeps its value.
 *
 * Stop: a measured point improves on the best so far only when its median
 * is below the best's median by more than the best's spread (hi - lo);
 * after `patience` measured points in a row that did not, more points of
 * a space ordered most promising first are not expected to win.
 *
 * Ownership: the caller owns every array.
 * May include: libc, transform.h.
 */
#ifndef KS_TRANSFORMS_SEARCH_H
#define KS_TRANSFORMS_SEARCH_H

#include <stddef.h>

#include "transform.h"

/* At most this many points are listed: those of the lowest ranks. */
#define KS_XF_SEARCH_MAX 512

/*
 * Fill `out` (room for `max`) with the points of `t` in visiting order.
 * `fixed` (may be NULL) marks, per parameter, a value the caller set in
 * `base`; those parameters take base's value only. Returns how many.
 */
size_t ks_xf_search_points(const struct ks_transform *t,
			   const struct ks_xf_point *base, const int *fixed,
			   struct ks_xf_point *out, size_t max);

/* One measured point: the candidate's median and spread, in ms. */
struct ks_xf_timing {
	double median, lo, hi;
};

/*
 * Pure: the index of the best of `n` measured points (smallest median;
 * the first of equals), or -1 when n == 0.
 */
long ks_xf_search_best(const struct ks_xf_timing *m, size_t n);

/* Pure: 1 when the search over the `n` measured points so far may stop. */
int ks_xf_search_stop(const struct ks_xf_timing *m, size_t n, size_t patience);

#endif
