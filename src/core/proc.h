/*
 * proc: run a child process and collect what it says, with a time limit.
 *
 * Used by ks (doctor, analysis, the loop) and by ks-nvcc to ask nvcc its
 * version once. Never uses a shell: argv goes to execvp as given. stdin is
 * /dev/null unless `in` is set. stdout and stderr are captured into the
 * caller's buffers (their caps bound memory; output beyond a cap is read and
 * dropped, and `truncated` says so), or passed through when the buffer
 * pointer is NULL. A child that outlives `timeout_ms` (0: none) gets
 * SIGTERM, then SIGKILL, and `timed_out` is set.
 * The caller owns every buffer; struct ks_proc holds no allocation.
 * May include: libc, buf.h, strv.h.
 */
#ifndef KS_CORE_PROC_H
#define KS_CORE_PROC_H

struct ks_buf;

struct ks_proc {
	const char *const *argv;  /* argv[0] is the program (PATH searched) */
	const char *const *env;   /* extra "NAME=value" entries, NULL-ended, or NULL */
	const char *cwd;          /* or NULL */
	const struct ks_buf *in;  /* written to the child's stdin, or NULL */
	struct ks_buf *out;       /* captured stdout, or NULL to inherit */
	struct ks_buf *err_out;   /* captured stderr, or NULL to inherit */
	int timeout_ms;
	/* results */
	int status;               /* exit status, or 128 + signal */
	int timed_out;
	int truncated;
};

/*
 * Run to completion. Returns 0 when the child ran (its status is in
 * p->status, whatever it is), -1 with a message when it could not be started.
 */
int ks_proc_run(struct ks_proc *p, struct ks_buf *err);

#endif
