/*
 * stats: named counters in <dir>/stats, the tests' oracle and `ks stats`.
 *
 * The file holds "name value" lines. An update takes the stats lock, reads,
 * adds, and atomically replaces the file, so concurrent compiles under
 * make -j never lose a count. Counter names are short lowercase words
 * ("compile", "passthru-mode-link", "record-written"...), all listed in
 * docs/MANUAL.md. Failures are reported, never fatal: a read-only state
 * directory must not break a build. A counter saturates at LONG_MAX; a
 * stats file that cannot be read whole (over the cap, not a regular file)
 * is left as it is and the update fails.
 * May include: libc, buf.h, fs.h.
 */
#ifndef KS_CORE_STATS_H
#define KS_CORE_STATS_H

struct ks_buf;

/* Add `delta` to each of the `n` counters `names` in one locked update. */
int ks_stats_add(const char *dir, const char *const *names, int n, long delta,
		 int lock_timeout_ms, struct ks_buf *err);

/* Current value of one counter (0 when absent or unreadable). */
long ks_stats_get(const char *dir, const char *name);

/* Append the file's "name value" lines, sorted, to `out`. */
int ks_stats_read(const char *dir, struct ks_buf *out, struct ks_buf *err);

/* Zero every counter (removes the file). */
int ks_stats_zero(const char *dir, int lock_timeout_ms, struct ks_buf *err);

/* Pure: apply deltas to "name value" text, result sorted by name. */
void ks_stats_apply(const char *text, const char *const *names, int n,
		    long delta, struct ks_buf *out);

#endif
