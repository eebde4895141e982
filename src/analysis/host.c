/*
 * The host facts of features.h: host functions, the launches they make and
 * the blocking calls between them, as the TU visitor finds them.
 */
#include "features.h"

#include <stdlib.h>
#include <string.h>

#include "../core/grow.h"
#include "../core/util.h"

/* ---- host facts ---------------------------------------------------------- */

void
ks_host_release(struct ks_host *h)
{
	size_t i;

	for (i = 0; i < h->nfns; i++)
		free(h->fns[i]);
	for (i = 0; i < h->nblocking; i++)
		free(h->blocking[i].name);
	free(h->fns);
	free(h->launches);
	free(h->blocking);
	memset(h, 0, sizeof(*h));
}

int
ks_host_add_fn(struct ks_host *h, const char *name)
{
	h->fns = KS_GROW(h->fns, h->nfns, NULL);
	h->fns[h->nfns] = ks_xstrdup(name ? name : "");
	return (int)h->nfns++;
}

void
ks_host_add_launch(struct ks_host *h, const struct ks_host_launch *l)
{
	h->launches = KS_GROW(h->launches, h->nlaunches, NULL);
	h->launches[h->nlaunches++] = *l;
}

void
ks_host_add_blocking(struct ks_host *h, int fn, unsigned long offset,
		     const char *name)
{
	h->blocking = KS_GROW(h->blocking, h->nblocking, NULL);
	h->blocking[h->nblocking].fn = fn;
	h->blocking[h->nblocking].offset = offset;
	h->blocking[h->nblocking].name = ks_xstrdup(name);
	h->nblocking++;
}

int
ks_host_is_blocking(const char *name)
{
	/* Calls that cannot be captured into a graph, or that make the host
	 * wait: allocation and release, synchronous copies and sets, every
	 * synchronization, device reset and selection. The *Async forms of
	 * copies, sets and allocation are capturable. */
	static const char *const exact[] = {
		"cudaMalloc", "cudaMallocManaged", "cudaMallocHost",
		"cudaMallocPitch", "cudaMalloc3D", "cudaMallocArray",
		"cudaHostAlloc", "cudaFree", "cudaFreeHost", "cudaFreeArray",
		"cudaMemcpy", "cudaMemcpy2D", "cudaMemcpy3D",
		"cudaMemcpyToSymbol", "cudaMemcpyFromSymbol", "cudaMemset",
		"cudaMemset2D", "cudaMemset3D", "cudaDeviceSynchronize",
		"cudaStreamSynchronize", "cudaEventSynchronize",
		"cudaStreamQuery", "cudaEventQuery", "cudaDeviceReset",
		"cudaSetDevice", "cudaStreamCreate", "cudaStreamDestroy",
		"cudaEventCreate", "cudaEventDestroy", "cudaHostRegister",
		"cudaHostUnregister", "cuCtxSynchronize", "cuStreamSynchronize",
		"cuMemAlloc", "cuMemFree", "cuMemcpyHtoD", "cuMemcpyDtoH",
		"malloc", "free",
	};
	size_t i;

	for (i = 0; name && i < KS_ARRAY_SIZE(exact); i++)
		if (!strcmp(name, exact[i]) ||
		    (ks_starts_with(name, exact[i]) &&
		     !strcmp(name + strlen(exact[i]), "_v2")))
			return 1;
	return 0;
}
