#include "gpulock.h"

#include <stdlib.h>

#include "../core/util.h"

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
	char *gate = ks_xasprintf("%s-gate", path);
	double t0 = ks_now_ms();
	int rc = -1;

	ks_gpulock_release(g);
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
	char *gate = ks_xasprintf("%s-gate", path);
	double t0 = ks_now_ms();
	int rc = -1;

	ks_gpulock_release(g);
	if (!ks_lock_acquire(&g->gate, gate, timeout_ms, err) &&
	    !ks_lock_acquire(&g->main, path, timeout_ms, err))
		rc = 0;
	if (rc)
		ks_gpulock_release(g);
	g->waited_ms += ks_now_ms() - t0;
	free(gate);
	return rc;
}
