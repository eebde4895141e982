/*
 * The time bound of one TU's analysis (tu.h, ks_tu_watch_*), in CPU time
 * of the process, so that a loaded machine (a build running many jobs)
 * does not refuse TUs a quiet one analyzes: a deadline the walk checks as
 * it steps, so that it stops with a reason; and, since libclang cannot be
 * interrupted (a parse, or one call that never returns, as the sizing of
 * a pseudo-object type once did), a profiling timer a second of CPU past
 * the deadline that ends the process with the same reason: the TU gets
 * no inventory either way. One TU is watched at a time.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "../core/util.h"
#include "tu.h"

/* After the deadline: how much CPU libclang gets to return to the walk. */
#define KS_WATCH_GRACE_MS 1000

static char watch_msg[1024];
static size_t watch_len;
static double watch_deadline;	/* CPU seconds; 0: not watching */
static struct sigaction watch_old;
static int watch_armed;

static double
mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
on_alarm(int sig)
{
	ssize_t w;

	(void)sig;
	/* async-signal-safe: the message was made before */
	w = write(2, watch_msg, watch_len);
	(void)w;
	_exit(KS_EXIT_FAILED);
}

void
ks_tu_watch_reason(const char *source, unsigned long ms, char *buf,
		   size_t size)
{
	snprintf(buf, size, "%s: analysis took longer than %lu ms of CPU "
		 "time (KS_ANALYSIS_TIMEOUT)", source, ms);
}

static double watch_start_cpu;	/* CPU seconds at the bound's start */

void
ks_tu_watch_start(const char *source, unsigned long ms)
{
	ks_tu_watch_resume(source, ms, 0);
}

unsigned long
ks_tu_watch_spent(void)
{
	double d = watch_deadline > 0 ? mono() - watch_start_cpu : 0;

	return d > 0 ? (unsigned long)(d * 1000.0) : 0;
}

void
ks_tu_watch_resume(const char *source, unsigned long ms, unsigned long spent)
{
	struct sigaction sa;
	struct itimerval it;
	unsigned long left = spent < ms ? ms - spent : 1;
	unsigned long hard = left + KS_WATCH_GRACE_MS;
	char reason[900];

	ks_tu_watch_stop();
	if (!ms)
		return;
	ks_tu_watch_reason(source, ms, reason, sizeof(reason));
	snprintf(watch_msg, sizeof(watch_msg), "ks: error: %s\n", reason);
	watch_len = strlen(watch_msg);
	watch_start_cpu = mono() - (double)spent / 1000.0;
	watch_deadline = mono() + (double)left / 1000.0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	if (sigaction(SIGPROF, &sa, &watch_old))
		return;
	memset(&it, 0, sizeof(it));
	it.it_value.tv_sec = (time_t)(hard / 1000);
	it.it_value.tv_usec = (suseconds_t)((hard % 1000) * 1000);
	setitimer(ITIMER_PROF, &it, NULL);
	watch_armed = 1;
}

void
ks_tu_watch_stop(void)
{
	struct itimerval it;

	watch_deadline = 0;
	if (!watch_armed)
		return;
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_PROF, &it, NULL);
	sigaction(SIGPROF, &watch_old, NULL);
	watch_armed = 0;
}

int
ks_tu_watch_expired(void)
{
	return watch_deadline > 0 && mono() > watch_deadline;
}
