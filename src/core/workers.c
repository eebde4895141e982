#include "workers.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "strv.h"
#include "util.h"

#define NO_TASK ((size_t)-1)

/* What the workers of one pass share: the queue's head, and each worker's
 * current task (so that the parent knows what a dead worker was doing). */
struct shared {
	atomic_size_t next;
	size_t cur[];
};

static int
all_digits(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

/* An id CUDA_VISIBLE_DEVICES accepts: an ordinal, or a UUID / MIG name. */
static int
id_ok(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '-' && *s != '/' && *s != ':')
			return 0;
	return 1;
}

static void
split_ids(const char *list, struct ks_strv *out)
{
	const char *p = list;

	while (*p) {
		const char *e = strchr(p, ',');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		char *id = ks_xstrndup(p, n);
		char *a = id, *z;

		while (isspace((unsigned char)*a))
			a++;
		z = a + strlen(a);
		while (z > a && isspace((unsigned char)z[-1]))
			*--z = '\0';
		if (*a)
			ks_strv_push(out, a);
		free(id);
		if (!e)
			break;
		p = e + 1;
	}
}

int
ks_workers_gpus(const char *spec, const struct ks_strv *visible,
		struct ks_strv *out, struct ks_buf *err)
{
	struct ks_strv ids;
	size_t i;
	int rc = 0;

	if (!spec || !*spec)
		return ks_error(err, "--gpus needs all, a count or a list of GPU ids");
	if (!strcmp(spec, "all")) {
		if (!visible->n)
			return ks_error(err, "--gpus all: no GPU is visible");
		ks_strv_pushv(out, (const char *const *)visible->v, visible->n);
		return 0;
	}
	if (all_digits(spec) && !strchr(spec, ',')) {
		unsigned long n = strtoul(spec, NULL, 10);

		if (n == 0)
			return ks_error(err, "--gpus 0: at least one GPU");
		/* A lone digit is a count; "--gpus 1" with one GPU means it. */
		if (visible->n && n > visible->n)
			return ks_error(err, "--gpus %lu: only %zu GPU%s visible", n, visible->n,
					visible->n == 1 ? " is" : "s are");
		for (i = 0; i < n; i++) {
			if (visible->n)
				ks_strv_push(out, visible->v[i]);
			else
				ks_strv_push_owned(out, ks_xasprintf("%zu", i));
		}
		return 0;
	}
	ks_strv_init(&ids);
	split_ids(spec, &ids);
	if (!ids.n)
		rc = ks_error(err, "--gpus '%s': no GPU id in it", spec);
	for (i = 0; !rc && i < ids.n; i++) {
		if (!id_ok(ids.v[i]))
			rc = ks_error(err, "--gpus: '%s' is not a GPU id", ids.v[i]);
		else if (visible->n && ks_strv_find(visible, ids.v[i]) < 0)
			rc = ks_error(err, "--gpus: GPU '%s' is not visible here", ids.v[i]);
		else if (ks_strv_find(out, ids.v[i]) >= 0)
			rc = ks_error(err, "--gpus: GPU '%s' named twice", ids.v[i]);
		else
			ks_strv_push(out, ids.v[i]);
	}
	ks_strv_release(&ids);
	return rc;
}

void
ks_workers_visible(const char *visible_env, const char *dev_dir, struct ks_strv *out)
{
	DIR *d;
	struct dirent *e;
	size_t n = 0, i;

	if (visible_env) {
		split_ids(visible_env, out);
		return;
	}
	d = opendir(dev_dir);
	if (!d)
		return;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, "nvidia", 6) && all_digits(e->d_name + 6))
			n++;
	closedir(d);
	/* CUDA numbers the GPUs it sees 0 .. N-1 (its own order). */
	for (i = 0; i < n; i++)
		ks_strv_push_owned(out, ks_xasprintf("%zu", i));
}

/* One worker: tasks from the queue until it is empty, or only `only`. */
static void
worker(const struct ks_workers *w, struct shared *sh, size_t slot, const char *device,
       size_t only)
{
	if (device && setenv("CUDA_VISIBLE_DEVICES", device, 1))
		_exit(101);
	for (;;) {
		size_t t = only != NO_TASK ? only : atomic_fetch_add(&sh->next, 1);

		if (t >= w->ntasks)
			break;
		sh->cur[slot] = t;
		w->run(w->ctx, t, slot);
		sh->cur[slot] = NO_TASK;
		if (only != NO_TASK)
			break;
	}
	_exit(0);
}

static pid_t
spawn(const struct ks_workers *w, struct shared *sh, size_t slot, const char *device,
      size_t only)
{
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid == 0)
		worker(w, sh, slot, device, only);
	return pid;
}

int
ks_workers_run(struct ks_workers *w, struct ks_buf *err)
{
	size_t per = w->per_device ? w->per_device : 1;
	size_t ndev = w->ndevices;
	size_t n = (ndev ? ndev : 1) * per, i, started = 0;
	size_t *dead = NULL, ndead = 0, *dead_dev = NULL;
	pid_t *pids;
	struct shared *sh;
	size_t bytes;

	w->workers = w->rerun = 0;
	if (!w->ntasks)
		return 0;
	if (n > w->ntasks)
		n = w->ntasks;
	bytes = sizeof(*sh) + n * sizeof(size_t);
	sh = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return ks_error_errno(err, "cannot share the task queue");
	atomic_init(&sh->next, 0);
	pids = ks_xcalloc(n, sizeof(*pids));
	for (i = 0; i < n; i++) {
		sh->cur[i] = NO_TASK;
		/* Worker i on GPU i % ndev: the GPUs fill evenly. */
		pids[i] = spawn(w, sh, i, ndev ? w->devices[i % ndev] : NULL, NO_TASK);
		if (pids[i] > 0)
			started++;
	}
	w->workers = started;
	if (!started) {
		free(pids);
		munmap(sh, bytes);
		return ks_error_errno(err, "cannot start a worker");
	}
	dead = ks_xcalloc(n, sizeof(*dead));
	dead_dev = ks_xcalloc(n, sizeof(*dead_dev));
	for (i = 0; i < n; i++) {
		int status = 0;

		if (pids[i] <= 0)
			continue;
		while (waitpid(pids[i], &status, 0) < 0 && errno == EINTR)
			;
		if ((!WIFEXITED(status) || WEXITSTATUS(status) != 0) &&
		    sh->cur[i] != NO_TASK && !w->done(w->ctx, sh->cur[i])) {
			dead[ndead] = sh->cur[i];
			dead_dev[ndead++] = ndev ? i % ndev : 0;
		}
	}
	/* Tasks no worker reached (every worker died early) run in the
	 * second pass too. */
	for (i = atomic_load(&sh->next); i < w->ntasks && ndead < n; i++)
		if (!w->done(w->ctx, i)) {
			dead[ndead] = i;
			dead_dev[ndead++] = ndev ? (i + ndev - 1) % ndev : 0;
		}
	/* The second pass: each interrupted task once more, on the next GPU. */
	for (i = 0; i < ndead; i++) {
		const char *dev = ndev ? w->devices[(dead_dev[i] + 1) % ndev] : NULL;

		sh->cur[i] = NO_TASK;
		pids[i] = spawn(w, sh, i, dev, dead[i]);
	}
	for (i = 0; i < ndead; i++) {
		int status;

		if (pids[i] > 0) {
			while (waitpid(pids[i], &status, 0) < 0 && errno == EINTR)
				;
			w->rerun++;
		}
	}
	free(dead);
	free(dead_dev);
	free(pids);
	munmap(sh, bytes);
	return 0;
}
