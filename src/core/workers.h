/*
 * workers: tasks shared out to worker processes from one queue, each
 * worker bound to one GPU, for `ks optimize --jobs N --gpus LIST`.
 *
 * A worker takes the next task from a counter in shared memory when it
 * is free (not a fixed share of the tasks: a long task on one GPU does not
 * hold back the tasks behind it), and runs it with CUDA_VISIBLE_DEVICES
 * naming its GPU, so that everything it starts (the replays, the
 * sanitizer) sees that GPU alone and takes that GPU's lock. A worker that
 * dies inside a task (a signal, an exit other than 0) leaves that task
 * without its result; after the first pass such tasks run again, each on
 * a GPU other than the one it died on where there is one, resuming from
 * what the task left (its trajectory).
 *
 * The device lists are pure functions (ks_workers_gpus); ks_workers_run
 * forks. The caller owns every string; struct ks_workers holds no
 * allocation after ks_workers_run returns.
 * May include: libc, buf.h, strv.h.
 */
#ifndef KS_CORE_WORKERS_H
#define KS_CORE_WORKERS_H

#include <stddef.h>

struct ks_buf;
struct ks_strv;

struct ks_workers {
	size_t ntasks;
	/* GPU ids for CUDA_VISIBLE_DEVICES, or none (ndevices 0): the
	 * workers inherit the caller's environment. */
	const char *const *devices;
	size_t ndevices;
	size_t per_device;	/* workers per GPU (per run without GPUs), >= 1 */
	/* Runs task `task` in worker `worker` (0-based, in the child). */
	void (*run)(void *ctx, size_t task, size_t worker);
	/* Whether task `task` left its result (in the parent). */
	int (*done)(void *ctx, size_t task);
	void *ctx;
	/* results */
	size_t workers;		/* worker processes of the first pass */
	size_t rerun;		/* tasks run again after their worker died */
};

/*
 * Run every task once (and the interrupted ones once more). Returns 0,
 * or -1 with a message when no worker could be started.
 */
int ks_workers_run(struct ks_workers *w, struct ks_buf *err);

/*
 * The GPUs a `--gpus SPEC` names, as CUDA_VISIBLE_DEVICES ids, into
 * `out`: "all" (every id of `visible`), N (the first N of them), or a
 * comma-separated list of ids (each one of `visible`; any id when
 * `visible` is empty, since then nothing can be checked). `visible` is
 * what ks_workers_visible() found. Pure. Returns 0, or -1 with a message.
 */
int ks_workers_gpus(const char *spec, const struct ks_strv *visible,
		    struct ks_strv *out, struct ks_buf *err);

/*
 * The GPUs this process may use: the entries of CUDA_VISIBLE_DEVICES when
 * it is set, else "0" .. "N-1" for the N GPU device nodes (/dev/nvidiaN).
 * `visible_env` is CUDA_VISIBLE_DEVICES's value or NULL; `dev_dir` the
 * directory of the device nodes ("/dev"). Leaves `out` empty when there
 * is no GPU.
 */
void ks_workers_visible(const char *visible_env, const char *dev_dir,
			struct ks_strv *out);

#endif
