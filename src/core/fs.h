/*
 * fs: files the way the cache needs them: atomic writes, locks, bounded reads.
 *
 * Writers never leave a partial file under the final name: data goes to a
 * temporary name in the same directory and is renamed into place, so readers
 * (other compiles under make -j) see the old file or the new one. Locks are
 * flock(2) on a separate "<path>.lock" file: released by the kernel when a
 * process dies, so a crashed compile never wedges the cache.
 *
 * Every function returns 0 or -1 with one message appended to `err`.
 * Returned strings belong to the caller.
 * May include: libc, buf.h, strv.h.
 */
#ifndef KS_CORE_FS_H
#define KS_CORE_FS_H

#include <stddef.h>
#include <sys/types.h>

struct ks_buf;

/* mkdir -p with mode 0777 & ~umask. */
int ks_fs_mkdirs(const char *path, struct ks_buf *err);

/* Replace `path` atomically with `len` bytes of `data`, creating parents. */
int ks_fs_write_atomic(const char *path, const void *data, size_t len,
		       struct ks_buf *err);

/*
 * Append the whole file to `out` (subject to the buffer's cap). Only a
 * regular file is read: anything else (a FIFO, a device, a directory)
 * fails at once with errno EINVAL, so that no reader ever blocks.
 */
int ks_fs_read(const char *path, struct ks_buf *out, struct ks_buf *err);

/*
 * Temporaries a killed writer left behind: ks_fs_write_atomic() calls
 * ks_fs_sweep_stale() on its directory after each write. That costs one
 * stat of the mark file KS_FS_SWEEP_MARK; when the mark is older than
 * KS_FS_STALE_SECONDS (or absent), it is touched and every temporary
 * (ks_fs_is_temp_name) older than KS_FS_STALE_SECONDS is removed.
 */
#define KS_FS_SWEEP_MARK ".ks-swept"
#define KS_FS_STALE_SECONDS 3600
void ks_fs_sweep_stale(const char *dir, long long now);
/* Pure: is `name` a temporary of a writer ("x.json.tmp.123.0.1700000000")? */
int ks_fs_is_temp_name(const char *name);

/* 1 if `path` exists (any type), else 0. */
int ks_fs_exists(const char *path);
/* 1 if `path` is a regular file executable by us. */
int ks_fs_is_exec(const char *path);

/* realpath(3) into a fresh string, or NULL (errno set). */
char *ks_fs_realpath(const char *path);

/* The current directory as a fresh string, or NULL. */
char *ks_fs_getcwd(void);

/* `dir/name`, or `name` if it is absolute or dir is NULL/empty. */
char *ks_fs_join(const char *dir, const char *name);

/*
 * The first file named `name` in the directories of `path` (a PATH value;
 * an empty entry means the current directory) that is an executable and
 * that `accept` (may be NULL) takes, as "dir/name" in a fresh string; NULL
 * when there is none. What execvp would run, with a veto.
 */
char *ks_fs_which(const char *name, const char *path,
		  int (*accept)(const char *cand, void *ctx), void *ctx);

/* rm -rf: remove `path` and everything under it. Missing is not an error. */
int ks_fs_remove_tree(const char *path, struct ks_buf *err);

struct ks_lock {
	int fd;
};
#define KS_LOCK_INIT { -1 }

/*
 * Take an exclusive lock on `path`.lock, waiting at most `timeout_ms`
 * (0: try once). Fails with a message on timeout.
 */
int ks_lock_acquire(struct ks_lock *lock, const char *path, int timeout_ms,
		    struct ks_buf *err);
/* The same, shared with other shared holders (a reader's lock). */
int ks_lock_acquire_shared(struct ks_lock *lock, const char *path, int timeout_ms,
			   struct ks_buf *err);
/* Release; safe on an unlocked KS_LOCK_INIT lock. */
void ks_lock_release(struct ks_lock *lock);

#endif
