/*
 * fresh: the generator of the Reviewer's fresh input sets, pure. A float
 * buffer is redrawn uniformly over the captured range of its finite
 * values, element by element in order, from one splitmix64 stream that
 * runs across the buffers and the sets (reproducible from --seed); a
 * non-finite element keeps its captured bytes and still takes its draw.
 *
 * splitmix64's state after k draws is the seed plus k times its constant,
 * so element k of a buffer is a function of the state before the buffer
 * and k alone: the buffer can be drawn in slices on several threads with
 * exactly the values one thread draws in order (unit-tested against the
 * sequential generator). ks-replay draws its sets this way, and keeps each
 * buffer's range, which the captured inputs fix.
 *
 * Ownership: the caller owns every buffer.
 * May include: libc, capture/dtype.h, tolerance.h.
 */
#ifndef KS_REVIEW_FRESH_H
#define KS_REVIEW_FRESH_H

#include <stddef.h>
#include <stdint.h>

#include "../capture/dtype.h"

/* splitmix64's constant: the step of its state per draw. */
#define KS_FRESH_GOLDEN 0x9e3779b97f4a7c15ull

/* One draw: the next 64 bits of the stream at *s. */
uint64_t ks_fresh_next(uint64_t *s);

/*
 * The range of the finite values of `n` elements of type `d` at `in`:
 * 1 with *lo <= *hi, or 0 when there is none (the buffer is then kept as
 * it is and takes no draws).
 */
int ks_fresh_range(enum ks_dtype d, const void *in, size_t n, double *lo, double *hi);

/*
 * Draw one buffer: out[k] = lo + (hi - lo) * u_k where in[k] is finite,
 * else in[k]'s bytes, u_k the k-th draw from `state` (the stream's state
 * before this buffer) as a double in [0, 1). Returns the state after the
 * buffer (state + n draws). `threads` slices the work (0 or 1: this
 * thread alone); the values do not depend on it.
 */
uint64_t ks_fresh_draw(enum ks_dtype d, const void *in, void *out, size_t n,
		       double lo, double hi, uint64_t state, unsigned threads);

#endif
