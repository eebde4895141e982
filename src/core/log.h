/*
 * log: traces, silent by default.
 *
 * Nothing is written unless KS_LOG names a file (appended to, one line per
 * message, prefixed with time, pid and program) or KS_DEBUG=1 (stderr). This
 * is what keeps ks-nvcc indistinguishable from nvcc: build tools parse
 * nvcc's stdout and stderr, so ks-nvcc writes nothing there on a normal run.
 * A format ending in ':' has strerror(errno) appended (samurai's rule).
 * The log owns its FILE; ks_log_close() is optional (exit closes it).
 * May include: libc.
 */
#ifndef KS_CORE_LOG_H
#define KS_CORE_LOG_H

/* Open the log: `path` (may be NULL or empty) and/or `to_stderr`. */
void ks_log_open(const char *path, int to_stderr);
void ks_log_close(void);
/* Non-zero when a log destination is open (to skip building costly text). */
int ks_log_enabled(void);
void ks_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
