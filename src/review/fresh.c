#include "fresh.h"

#include <math.h>
#include <pthread.h>
#include <string.h>

#include "tolerance.h"

/* Below this many elements a buffer is drawn on the calling thread. */
#define FRESH_SLICE_MIN (1u << 20)
#define FRESH_THREADS_MAX 16

/* splitmix64's output for the state value `z` (after its increment). */
static uint64_t
mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint64_t
ks_fresh_next(uint64_t *s)
{
	return mix(*s += KS_FRESH_GOLDEN);
}

int
ks_fresh_range(enum ks_dtype d, const void *in, size_t n, double *lo, double *hi)
{
	size_t k;

	*lo = INFINITY;
	*hi = -INFINITY;
	if (d == KS_DTYPE_F32) {
		const float *f = in;

		for (k = 0; k < n; k++) {
			double v = f[k];

			if (isfinite(v)) {
				*lo = v < *lo ? v : *lo;
				*hi = v > *hi ? v : *hi;
			}
		}
	} else {
		for (k = 0; k < n; k++) {
			double v = ks_tol_load(d, in, k);

			if (isfinite(v)) {
				*lo = v < *lo ? v : *lo;
				*hi = v > *hi ? v : *hi;
			}
		}
	}
	return *lo <= *hi;
}

struct slice {
	enum ks_dtype d;
	const void *in;
	void *out;
	size_t from, to;
	double lo, hi;
	uint64_t state;		/* before element 0 of the buffer */
};

/* Elements [from, to): draw k is the state advanced k + 1 steps, mixed. */
static void *
draw_slice(void *arg)
{
	const struct slice *s = arg;
	uint64_t z = s->state + (uint64_t)s->from * KS_FRESH_GOLDEN;
	size_t k;

	if (s->d == KS_DTYPE_F32) {
		const float *in = s->in;
		float *out = s->out;

		for (k = s->from; k < s->to; k++) {
			double u = (double)(mix(z += KS_FRESH_GOLDEN) >> 11) /
				   9007199254740992.0;

			if (isfinite(in[k]))
				out[k] = (float)(s->lo + (s->hi - s->lo) * u);
			else
				memcpy(&out[k], &in[k], sizeof(*out));	/* its bits */
		}
		return NULL;
	}
	for (k = s->from; k < s->to; k++) {
		double u = (double)(mix(z += KS_FRESH_GOLDEN) >> 11) / 9007199254740992.0;

		if (isfinite(ks_tol_load(s->d, s->in, k)))
			ks_tol_store(s->d, s->out, k, s->lo + (s->hi - s->lo) * u);
	}
	return NULL;
}

uint64_t
ks_fresh_draw(enum ks_dtype d, const void *in, void *out, size_t n, double lo,
	      double hi, uint64_t state, unsigned threads)
{
	struct slice sl[FRESH_THREADS_MAX];
	pthread_t tid[FRESH_THREADS_MAX];
	int started[FRESH_THREADS_MAX];
	size_t t, nt = threads > FRESH_THREADS_MAX ? FRESH_THREADS_MAX : threads;

	/* Other types keep their bytes where not finite: copied first. */
	if (d != KS_DTYPE_F32)
		memcpy(out, in, n * ks_dtype_size(d));
	if (nt < 2 || n < FRESH_SLICE_MIN)
		nt = 1;
	for (t = 0; t < nt; t++) {
		sl[t].d = d;
		sl[t].in = in;
		sl[t].out = out;
		sl[t].from = n / nt * t;
		sl[t].to = t + 1 == nt ? n : n / nt * (t + 1);
		sl[t].lo = lo;
		sl[t].hi = hi;
		sl[t].state = state;
		/* Slice 0 on this thread; one that cannot start, too. */
		started[t] = t && !pthread_create(&tid[t], NULL, draw_slice, &sl[t]);
	}
	draw_slice(&sl[0]);
	for (t = 1; t < nt; t++) {
		if (started[t])
			pthread_join(tid[t], NULL);
		else
			draw_slice(&sl[t]);
	}
	return state + (uint64_t)n * KS_FRESH_GOLDEN;
}
