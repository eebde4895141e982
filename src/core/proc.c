#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "util.h"

static long long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* In the child: wire fds and exec. Only async-signal-safe calls. */
static void
child(const struct ks_proc *p, int in_fd, int out_fd, int err_fd)
{
	size_t i;

	if (in_fd >= 0)
		dup2(in_fd, 0);
	if (out_fd >= 0)
		dup2(out_fd, 1);
	if (err_fd >= 0)
		dup2(err_fd, 2);
	if (p->cwd && chdir(p->cwd))
		_exit(127);
	for (i = 0; p->env && p->env[i]; i++)
		putenv((char *)p->env[i]);
	execvp(p->argv[0], (char *const *)p->argv);
	_exit(127);
}

static void
close_pair(int fd[2])
{
	if (fd[0] >= 0)
		close(fd[0]);
	if (fd[1] >= 0)
		close(fd[1]);
	fd[0] = fd[1] = -1;
}

/* Read what is available on `fd` into `b`; returns 0 at EOF. */
static int
drain(int fd, struct ks_buf *b, int *truncated)
{
	char chunk[16384];
	ssize_t n = read(fd, chunk, sizeof(chunk));

	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 1 : 0;
	if (n == 0)
		return 0;
	if (ks_buf_add(b, chunk, (size_t)n)) {
		/* Keep what fits: the output's beginning, whatever the chunks. */
		size_t room = b->max > b->len ? b->max - b->len : 0;

		if (room)
			ks_buf_add(b, chunk, room < (size_t)n ? room : (size_t)n);
		*truncated = 1;
	}
	return 1;
}

int
ks_proc_run(struct ks_proc *p, struct ks_buf *err)
{
	int in[2] = { -1, -1 }, out[2] = { -1, -1 }, er[2] = { -1, -1 };
	int devnull = -1, status = 0, killed = 0, rc = -1;
	long long deadline;
	size_t in_off = 0;
	pid_t pid;

	p->status = -1;
	p->timed_out = 0;
	p->truncated = 0;
	if ((p->in && pipe2(in, O_CLOEXEC)) || (p->out && pipe2(out, O_CLOEXEC)) ||
	    (p->err_out && pipe2(er, O_CLOEXEC))) {
		ks_error_errno(err, "cannot create pipe");
		goto out;
	}
	if (!p->in && (devnull = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
		ks_error_errno(err, "cannot open /dev/null");
		goto out;
	}
	pid = fork();
	if (pid < 0) {
		ks_error_errno(err, "cannot fork '%s'", p->argv[0]);
		goto out;
	}
	if (pid == 0)
		child(p, p->in ? in[0] : devnull, out[1], er[1]);
	if (in[0] >= 0) {
		close(in[0]);
		in[0] = -1;
		fcntl(in[1], F_SETFL, O_NONBLOCK);
	}
	if (out[1] >= 0) {
		close(out[1]);
		out[1] = -1;
	}
	if (er[1] >= 0) {
		close(er[1]);
		er[1] = -1;
	}
	deadline = p->timeout_ms > 0 ? now_ms() + p->timeout_ms : 0;
	/* A writer ignoring SIGPIPE: a child that exits early must not kill us. */
	signal(SIGPIPE, SIG_IGN);
	while (in[1] >= 0 || out[0] >= 0 || er[0] >= 0) {
		struct pollfd fds[3];
		int nfds = 0, wait_ms = -1, i;

		if (in[1] >= 0)
			fds[nfds++] = (struct pollfd){ in[1], POLLOUT, 0 };
		if (out[0] >= 0)
			fds[nfds++] = (struct pollfd){ out[0], POLLIN, 0 };
		if (er[0] >= 0)
			fds[nfds++] = (struct pollfd){ er[0], POLLIN, 0 };
		if (deadline) {
			long long left = deadline - now_ms();
			if (left <= 0) {
				p->timed_out = 1;
				kill(pid, killed ? SIGKILL : SIGTERM);
				killed++;
				deadline = now_ms() + 1000;
				left = 1000;
			}
			wait_ms = (int)left;
		}
		if (poll(fds, (nfds_t)nfds, wait_ms) < 0 && errno != EINTR)
			break;
		for (i = 0; i < nfds; i++) {
			if (!fds[i].revents)
				continue;
			if (fds[i].fd == in[1]) {
				ssize_t n = write(in[1], p->in->buf + in_off,
						  p->in->len - in_off);
				if (n > 0)
					in_off += (size_t)n;
				if (n < 0 && errno != EAGAIN && errno != EINTR)
					in_off = p->in->len;
				if (in_off >= p->in->len) {
					close(in[1]);
					in[1] = -1;
				}
			} else if (fds[i].fd == out[0]) {
				if (!drain(out[0], p->out, &p->truncated)) {
					close(out[0]);
					out[0] = -1;
				}
			} else if (fds[i].fd == er[0]) {
				if (!drain(er[0], p->err_out, &p->truncated)) {
					close(er[0]);
					er[0] = -1;
				}
			}
		}
	}
	/* The pipes may close before the child exits: keep the deadline. */
	for (;;) {
		struct timespec pause = { 0, 1000 * 1000 };
		pid_t w = waitpid(pid, &status, deadline ? WNOHANG : 0);

		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			ks_error_errno(err, "cannot wait for '%s'", p->argv[0]);
			goto out;
		}
		if (deadline && now_ms() > deadline) {
			p->timed_out = 1;
			kill(pid, killed++ ? SIGKILL : SIGTERM);
			deadline = now_ms() + 1000;
		}
		nanosleep(&pause, NULL);
	}
	p->status = WIFEXITED(status) ? WEXITSTATUS(status)
				      : 128 + WTERMSIG(status);
	rc = 0;
out:
	close_pair(in);
	close_pair(out);
	close_pair(er);
	if (devnull >= 0)
		close(devnull);
	return rc;
}
