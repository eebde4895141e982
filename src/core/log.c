#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

static FILE *log_file;
static int log_stderr;

void
ks_log_open(const char *path, int to_stderr)
{
	ks_log_close();
	log_stderr = to_stderr;
	if (path && *path) {
		/*
		 * A log that cannot be opened must not break a build: stay
		 * silent. O_NONBLOCK: a FIFO without a reader fails at once
		 * (ENXIO) instead of blocking the compile; a full pipe drops
		 * lines instead of stalling it.
		 */
		int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK |
					    O_CLOEXEC, 0666);
		struct stat st;

		if (fd >= 0 && (fstat(fd, &st) || S_ISDIR(st.st_mode) ||
				!(log_file = fdopen(fd, "a"))))
			close(fd);
	}
}

void
ks_log_close(void)
{
	if (log_file)
		fclose(log_file);
	log_file = NULL;
	log_stderr = 0;
}

int
ks_log_enabled(void)
{
	return log_file || log_stderr;
}

static void
emit(FILE *f, const char *stamp, const char *msg)
{
	fprintf(f, "%s %s[%ld] %s\n", stamp, ks_progname, (long)getpid(), msg);
	fflush(f);
}

void
ks_log(const char *fmt, ...)
{
	char msg[4096], stamp[64];
	struct timeval tv;
	struct tm tm;
	va_list ap;
	size_t n, flen;
	int saved = errno;

	if (!ks_log_enabled())
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	flen = strlen(fmt);
	if (flen && fmt[flen - 1] == ':') {
		n = strlen(msg);
		snprintf(msg + n, sizeof(msg) - n, " %s", strerror(saved));
	}
	gettimeofday(&tv, NULL);
	localtime_r(&tv.tv_sec, &tm);
	n = strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(stamp + n, sizeof(stamp) - n, ".%06ld", (long)tv.tv_usec);
	if (log_file)
		emit(log_file, stamp, msg);
	if (log_stderr)
		emit(stderr, stamp, msg);
	errno = saved;
}
