/*
 * Unit tests of src/review/fresh.c: the fresh input sets' generator drawn
 * in slices on several threads gives exactly what the one stream drawn in
 * order gives (written out here as ks-replay drew it before), for f32 with
 * non-finite elements, f64 and f16, across buffers and sets.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/util.h"
#include "../../src/review/fresh.h"
#include "../../src/review/tolerance.h"
#include "test.h"

void ks_suite_fresh(void);

/* The sequential generator, element by element (the reference). */
static uint64_t
ref_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void
ref_draw(enum ks_dtype d, const void *in, void *out, size_t n, uint64_t *state)
{
	double lo = INFINITY, hi = -INFINITY;
	size_t k;

	memcpy(out, in, n * ks_dtype_size(d));
	for (k = 0; k < n; k++) {
		double v = ks_tol_load(d, in, k);

		if (isfinite(v)) {
			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
		}
	}
	if (!(lo <= hi))
		return;
	for (k = 0; k < n; k++) {
		double u = (double)(ref_next(state) >> 11) / 9007199254740992.0;

		if (isfinite(ks_tol_load(d, in, k)))
			ks_tol_store(d, out, k, lo + (hi - lo) * u);
	}
}

/* ks_fresh_range + ks_fresh_draw as ks-replay calls them. */
static void
new_draw(enum ks_dtype d, const void *in, void *out, size_t n, uint64_t *state,
	 unsigned threads)
{
	double lo, hi;

	if (!ks_fresh_range(d, in, n, &lo, &hi)) {
		memcpy(out, in, n * ks_dtype_size(d));
		return;
	}
	*state = ks_fresh_draw(d, in, out, n, lo, hi, *state, threads);
}

TEST(fresh_next_is_splitmix64)
{
	uint64_t a = 7, b = 7;
	int i;

	for (i = 0; i < 100; i++)
		CHECK(ks_fresh_next(&a) == ref_next(&b));
	CHECK(a == b);
}

TEST(fresh_threads_draw_what_one_stream_draws)
{
	static const unsigned threads[] = { 1, 2, 3, 8 };
	size_t n = (3u << 20) + 7, k, t;
	float *in = ks_xmalloc(n * sizeof(float));
	float *want = ks_xmalloc(n * sizeof(float)), *got = ks_xmalloc(n * sizeof(float));
	double *d_in = ks_xmalloc(1000 * sizeof(double)), *d_want = ks_xmalloc(8000),
	       *d_got = ks_xmalloc(8000);
	uint16_t h_in[333], h_want[333], h_got[333];
	uint64_t s0 = 1, s1;

	for (k = 0; k < n; k++)
		in[k] = (float)((double)(k % 1009) * 0.25 - 50.0);
	in[5] = NAN;
	in[n - 1] = INFINITY;
	in[n / 2] = -INFINITY;
	for (k = 0; k < 1000; k++)
		d_in[k] = (double)k * 1e-3 - 0.1;
	for (k = 0; k < 333; k++)
		ks_tol_store(KS_DTYPE_F16, h_in, k, (double)k / 8 - 3);
	h_in[7] = 0x7e00;	/* an f16 NaN */
	/* two sets of three buffers, one stream */
	for (k = 0; k < 2; k++) {
		ref_draw(KS_DTYPE_F32, in, want, n, &s0);
		ref_draw(KS_DTYPE_F64, d_in, d_want, 1000, &s0);
		ref_draw(KS_DTYPE_F16, h_in, h_want, 333, &s0);
	}
	for (t = 0; t < sizeof(threads) / sizeof(threads[0]); t++) {
		s1 = 1;
		for (k = 0; k < 2; k++) {
			new_draw(KS_DTYPE_F32, in, got, n, &s1, threads[t]);
			new_draw(KS_DTYPE_F64, d_in, d_got, 1000, &s1, threads[t]);
			new_draw(KS_DTYPE_F16, h_in, h_got, 333, &s1, threads[t]);
		}
		CHECK(s1 == s0);
		CHECK(!memcmp(want, got, n * sizeof(float)));
		CHECK(!memcmp(d_want, d_got, 1000 * sizeof(double)));
		CHECK(!memcmp(h_want, h_got, sizeof(h_want)));
	}
	/* the non-finite elements keep their bytes; the others moved */
	CHECK(isnan(got[5]) && isinf(got[n - 1]) && isinf(got[n / 2]));
	CHECK(got[6] != in[6] || got[7] != in[7]);
	CHECK(got[0] >= -50.0f && got[0] <= 202.0f);
	free(in);
	free(want);
	free(got);
	free(d_in);
	free(d_want);
	free(d_got);
}

TEST(fresh_no_finite_value_no_draw)
{
	float in[3] = { NAN, INFINITY, -INFINITY };
	double lo, hi;

	CHECK(!ks_fresh_range(KS_DTYPE_F32, in, 3, &lo, &hi));
	CHECK(ks_fresh_range(KS_DTYPE_F32, in, 0, &lo, &hi) == 0);
}

void
ks_suite_fresh(void)
{
	RUN(fresh_next_is_splitmix64);
	RUN(fresh_threads_draw_what_one_stream_draws);
	RUN(fresh_no_finite_value_no_draw);
}
