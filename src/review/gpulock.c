#include "gpulock.h"

#include <stdlib.h>
#include <string.h>

#include "../core/util.h"

/* A process that `ks gpu-lock` started holds the GPU through it already
 * (exclusively): taking the lock again would wait for itself. */
static int
held(const char *path)
{
	const char *h = getenv(KS_GPULOCK_HELD_ENV);

	return h && *h && !strcmp(h, path);
}

void
ks_gpulock_release(struct ks_gpulock *g)
{
	ks_lock_release(&g->main);
	ks_lock_release(&g->gate);
}

int
ks_gpulock_shared(struct ks_gpulock *g, const char *path, int timeout_ms,
		  struct ks_buf *err)
{
	char *gate;
	double t0 = ks_now_ms();
	int rc = -1;

	ks_gpulock_release(g);
	if (held(path))
		return 0;
	gate = ks_xasprintf("%s-gate", path);
	/* Through the gate, which a waiting measurer holds shut. */
	if (!ks_lock_acquire_shared(&g->gate, gate, timeout_ms, err) &&
	    !ks_lock_acquire_shared(&g->main, path, timeout_ms, err))
		rc = 0;
	ks_lock_release(&g->gate);
	if (rc)
		ks_gpulock_release(g);
	g->waited_ms += ks_now_ms() - t0;
	free(gate);
	return rc;
}

int
ks_gpulock_exclusive(struct ks_gpulock *g, const char *path, int timeout_ms,
		     struct ks_buf *err)
{
	char *gate;
	double t0 = ks_now_ms();
	int rc = -1;

	ks_gpulock_release(g);
	if (held(path))
		return 0;
	gate = ks_xasprintf("%s-gate", path);
	if (!ks_lock_acquire(&g->gate, gate, timeout_ms, err) &&
	    !ks_lock_acquire(&g->main, path, timeout_ms, err))
		rc = 0;
	if (rc)
		ks_gpulock_release(g);
	g->waited_ms += ks_now_ms() - t0;
	free(gate);
	return rc;
}
