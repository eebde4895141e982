/*
 * sample: a kernel's translation unit made to run a sample of each
 * launch's blocks, for compute-sanitizer's racecheck.
 *
 * Racecheck reports hazards on a block's shared memory, between threads
 * of that block: each block is checked on its own, and the tool's cost is
 * per block checked (measured on an H200: a 32768x4096x1024 GEMM's tiled
 * variant, 8192 blocks, over 300 s; a sample of 49 of them, 11 s). So a
 * launch of many blocks is checked on a sample that keeps, in each grid
 * dimension, the first two indices, the last two and about four evenly
 * spaced between (every index of a dimension of 8 or fewer), and every
 * combination of these: the blocks at each edge and corner, where tails
 * and halos differ, and the interior. The other blocks return at the top
 * of the kernel, before any shared memory or barrier.
 *
 * That is sound only where the blocks of one launch do not wait for one
 * another or for what another computes: a TU with atomics, fences,
 * volatile accesses, grid or cluster groups, or inline PTX that could do
 * any of these is not sampled (ks_sample_allowed says why), and neither is
 * a cooperative launch (the caller's to know). memcheck is not sampled:
 * an out-of-bounds access may be in any block.
 *
 * Pure functions over source text, with a small C/C++ scanner: comments,
 * string and character literals and preprocessor lines are skipped.
 * May include: libc, core/buf.h.
 */
#ifndef KS_REVIEW_SAMPLE_H
#define KS_REVIEW_SAMPLE_H

#include <stddef.h>

struct ks_buf;

/*
 * May racecheck run the TU `src` on a sample of its blocks? 1, or 0 with
 * the reason (the token that forbids it and its line) in `why`.
 */
int ks_sample_allowed(const char *src, struct ks_buf *why);

/*
 * `src` with the sampling guard at the top of the body of every
 * __global__ function it defines, its definition before the first line
 * and `#line 1 "name"` after it (diagnostics keep their lines). Appends
 * to `out`; returns the number of bodies guarded (0: nothing to sample).
 */
size_t ks_sample_blocks(const char *src, const char *name, struct ks_buf *out);

#endif
