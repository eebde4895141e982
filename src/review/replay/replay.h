/*
 * replay: ks-replay, the Reviewer's hands on the GPU.
 *
 *   ks-replay --capture DIR --original ORIG.so [--candidate CAND.so]
 *             [--random K] [--seed S] [--time] [--reps N] [--min-ms MS]
 *             [--max-seconds S] [--metrics] [--tol DTYPE=ATOL,RTOL[,STOL]]...
 *             [--once] [--json FILE]
 *
 * One process per candidate (the `ks` side starts it and kills it on a
 * timeout): a candidate that faults or hangs takes only this process down.
 * It loads the original and the candidate, each a shared object that nvcc
 * built from the kernel's TU plus an entry shim (review/shim.h), allocates
 * fresh buffers, restores the captured before-state, relocates the pointer
 * parameters into the new allocations (same offsets), launches, synchronizes
 * and checks every CUDA error, then applies the Reviewer's rules:
 *
 *  1. the original must reproduce the captured outputs, else the capture is
 *     ineligible (and nothing else runs);
 *  2. every buffer the original writes without reading it (it reproduces
 *     the outputs with that buffer poisoned) is poisoned for the candidate,
 *     so that skipped writes show;
 *  3. the candidate must match the reference on the captured inputs
 *     (review/tolerance.h: written buffers within tolerance, unwritten ones
 *     byte-identical, no constant output where the reference varies);
 *  4. and on K fresh input sets: float buffers redrawn uniformly over the
 *     captured range of their finite values, integer and unknown buffers
 *     kept (they may be indices), compared with the original's output on
 *     the same inputs; then on the captured inputs once more (A, B, A: no
 *     state kept across launches);
 *  5. --time: original and candidate interleaved (review/timing.h), the
 *     output-only buffers poisoned before every timed run and the
 *     candidate's outputs checked after its last; a candidate that leaves
 *     the GPU busy after its stop event (work on another stream) is
 *     rejected;
 *  6. --metrics: the CUPTI Range Profiler (metrics.h) on one run of each.
 *
 * --metrics-only: the counters of one side alone (the candidate, else the
 * original), nothing checked: the verdict is "measured". For a side a
 * review verified before (the loop's new base), whose counters the
 * Planner reads.
 *
 * The JSON's "seconds" says how long each stage took.
 *
 * The result is one JSON object (docs/CAPTURE.md) on stdout or in --json
 * FILE (the kernel's own printf output goes to stdout too, so callers use
 * --json). Exit status: 0 when the replay ran to a verdict, 1 when it could
 * not (the JSON's "error" says why), 2 on a bad command line.
 * With --gpu-lock PATH it shares the GPU with other replays while it checks
 * and has it alone while it times and profiles (review/gpulock.h); the
 * JSON's "lock_wait_s" says how long it waited.
 * May include: libc, core/, capture/, review/ (diagnose.h, fresh.h, globals.h,
 * gpulock.h, metricset.h, occupancy.h, timing.h, tolerance.h), metrics.h,
 * CUDA, CUPTI.
 */
#ifndef KS_REVIEW_REPLAY_H
#define KS_REVIEW_REPLAY_H

int ks_replay_main(int argc, char **argv);

#endif
