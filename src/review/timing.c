#include "timing.h"

#include <stdlib.h>
#include <string.h>

#include "../core/buf.h"
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
ks_timing_enough(const struct ks_timing *t, size_t min_reps, double min_ms,
		 double wall_ms)
{
	return t->n >= min_reps && (t->total >= min_ms || wall_ms >= min_ms);
}

int
ks_timing_escaped(double orig_tail_ms, double cand_tail_ms)
{
	return cand_tail_ms > orig_tail_ms + KS_TIMING_TAIL_MS;
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

static double
bound(double ref_ms, double min_ms, double factor)
{
	double b = ref_ms >= 0 ? factor * ref_ms : 0;

	if (min_ms < 0)
		min_ms = 0;
	return b > min_ms ? b : min_ms;
}

double
ks_bound_original_ms(long long captured_ns, double min_ms, double factor)
{
	return bound(captured_ns >= 0 ? (double)captured_ns / 1e6 : -1, min_ms, factor);
}

double
ks_bound_candidate_ms(double original_ms, double min_ms, double factor)
{
	return bound(original_ms, min_ms, factor);
}

int
ks_bound_exceeded(double elapsed_ms, double limit_ms)
{
	return limit_ms > 0 && elapsed_ms > limit_ms;
}

void
ks_bound_why(int candidate, double limit_ms, double ref_ms, struct ks_buf *why)
{
	ks_buf_addf(why, "did not finish in %.3g s ", limit_ms / 1000);
	if (candidate && ref_ms >= 0)
		ks_buf_addf(why, "(the original took %.3g ms on replay)", ref_ms);
	else if (candidate)
		ks_buf_adds(why, "(the original's time on replay unknown)");
	else if (ref_ms >= 0)
		ks_buf_addf(why, "(captured launch took %.3g ms)", ref_ms);
	else
		ks_buf_adds(why, "(the captured launch's duration is unknown)");
}
