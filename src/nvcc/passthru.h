/*
 * passthru: find the real nvcc and become it. The path every problem ends in.
 *
 * Kept tiny and obviously correct (ccache's failed()): no libraries, no
 * state, nothing written to stdout or stderr. ks_passthru_exec() replaces
 * the process with the real nvcc, so exit status, output and signals are
 * nvcc's own.
 *
 * Recursion: before exec, the real nvcc's path is appended to the
 * KS_NVCC_SAFEGUARD environment variable. A ks-nvcc started below it (a
 * wrapper script that calls "nvcc" from PATH, an `nvcc` symlink found
 * again) skips every path already listed, so the chain always ends at a
 * real compiler or in a clear error, never in a loop.
 * Returned strings belong to the caller.
 * May include: libc, core/.
 */
#ifndef KS_WRAPPER_PASSTHRU_H
#define KS_WRAPPER_PASSTHRU_H

struct ks_buf;

#define KS_SAFEGUARD_ENV "KS_NVCC_SAFEGUARD"

/* realpath of the running ks-nvcc, or NULL. */
char *ks_passthru_self(void);

/*
 * Is `path` usable as the real nvcc: executable, not ks-nvcc itself, not a
 * compiler already exec'd in this chain? `self` may be NULL.
 */
int ks_passthru_usable(const char *path, const char *self);

/*
 * The real nvcc: `configured` (KS_NVCC) if set, else the first `nvcc` on
 * PATH that is usable, else $CUDA_HOME/bin/nvcc, $CUDA_PATH/bin/nvcc,
 * /usr/local/cuda/bin/nvcc. A `configured` compiler already called in this
 * chain (a site wrapper that runs "nvcc" and found ks-nvcc) gives way to
 * the search. NULL with a message, saying what to fix, when there is none.
 */
char *ks_passthru_find(const char *configured, const char *self,
		       struct ks_buf *err);

/*
 * Exec `real` with argv[1..] (argv[0] is replaced by `real`). Returns only
 * if execv failed (then the caller dies with KS_EXIT_EXEC).
 */
void ks_passthru_exec(const char *real, char **argv);

#endif
