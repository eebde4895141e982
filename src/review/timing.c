#include "timing.h"

#include <stdlib.h>
#include <string.h>

#include "../core/util.h"

const char *
ks_speed_name(enum ks_speed s)
{
	switch (s) {
	case KS_SPEED_FASTER:
		return "faster";
	case KS_SPEED_SAME:
		return "same";
	case KS_SPEED_SLOWER:
		return "slower";
	default:
		return "unknown";
	}
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double
ks_timing_percentile(const double *sorted, size_t n, double p)
{
	double pos, frac;
	size_t i;

	if (!n)
		return 0;
	if (p <= 0)
		return sorted[0];
	if (p >= 100)
		return sorted[n - 1];
	pos = p / 100.0 * (double)(n - 1);
	i = (size_t)pos;
	frac = pos - (double)i;
	if (i + 1 >= n)
		return sorted[n - 1];
	return sorted[i] + frac * (sorted[i + 1] - sorted[i]);
}

void
ks_timing_summarize(const double *ms, size_t n, struct ks_timing *t)
{
	double *s;
	size_t i;

	memset(t, 0, sizeof(*t));
	t->n = n;
	if (!n)
		return;
	s = ks_xmalloc(n * sizeof(*s));
	memcpy(s, ms, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	t->median = ks_timing_percentile(s, n, 50);
	t->lo = ks_timing_percentile(s, n, 10);
	t->hi = ks_timing_percentile(s, n, 90);
	t->min = s[0];
	t->max = s[n - 1];
	for (i = 0; i < n; i++)
		t->total += s[i];
	free(s);
}

int
ks_timing_enough(const struct ks_timing *t, size_t min_reps, double min_ms)
{
	return t->n >= min_reps && t->total >= min_ms;
}

enum ks_speed
ks_timing_decide(const struct ks_timing *orig, const struct ks_timing *cand,
		 size_t min_reps, double *speedup)
{
	*speedup = orig->median > 0 && cand->median > 0 ?
		orig->median / cand->median : 0;
	if (orig->n < min_reps || cand->n < min_reps || !orig->n || !cand->n)
		return KS_SPEED_UNKNOWN;
	if (cand->hi < orig->lo)
		return KS_SPEED_FASTER;
	if (cand->lo > orig->hi)
		return KS_SPEED_SLOWER;
	return KS_SPEED_SAME;
}
