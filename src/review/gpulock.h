/*
 * gpulock: one GPU shared by the reviews of several tasks. Runs that only
 * check results (the captured and fresh inputs, the sanitizer) may share
 * the GPU; runs that measure (interleaved timing, counters) must have it
 * alone. A readers-writer lock over two lock files: <path>.lock, held
 * shared by checkers and exclusively by a measurer, and the gate
 * <path>-gate.lock, which a measurer holds while it waits, so that no new
 * checker gets in ahead of it (without the gate, overlapping checkers
 * could keep a measurer waiting for ever).
 *
 * `ks gpu-lock -- COMMAND` holds the lock exclusively while COMMAND runs
 * and names it in KS_GPULOCK_HELD_ENV; a ks or ks-replay under COMMAND then
 * takes that lock as held (a program's own timing runs, with the ks
 * capture that runs it, next to other ks on the same GPU).
 *
 * Ownership: a struct ks_gpulock owns its two descriptors; release() (safe
 * on KS_GPULOCK_INIT) closes them.
 * May include: libc, core/.
 */
#ifndef KS_REVIEW_GPULOCK_H
#define KS_REVIEW_GPULOCK_H

#include "../core/fs.h"

struct ks_buf;

#define KS_GPULOCK_HELD_ENV "KS_GPU_LOCK_HELD"

struct ks_gpulock {
	struct ks_lock main, gate;
	double waited_ms;	/* time spent waiting, over every acquire */
};
#define KS_GPULOCK_INIT { KS_LOCK_INIT, KS_LOCK_INIT, 0 }

/* Hold the GPU shared (checks), or exclusively (measurements); either
 * drops what the lock held before. Fails on `timeout_ms`. A `path` held
 * by an enclosing `ks gpu-lock` (KS_GPULOCK_HELD_ENV) is taken at once. */
int ks_gpulock_shared(struct ks_gpulock *g, const char *path, int timeout_ms,
		      struct ks_buf *err);
int ks_gpulock_exclusive(struct ks_gpulock *g, const char *path, int timeout_ms,
			 struct ks_buf *err);
void ks_gpulock_release(struct ks_gpulock *g);

#endif
