/*
 * libks-capture.so: records chosen kernel launches from inside an unchanged
 * program. The CUDA driver loads it at cuInit when CUDA_INJECTION64_PATH
 * names it and calls InitializeInjection(); `ks capture` sets that up.
 *
 * It subscribes to CUPTI's driver-API callbacks for the launch calls only
 * (cuLaunchKernel, cuLaunchKernelEx, cuLaunchCooperativeKernel and their
 * per-thread-stream forms): <<<>>>, cudaLaunchKernel and cudaLaunchKernelEx
 * all reach one of them, with static and shared cudart alike. At API ENTER
 * of a launch it reads the kernel's name and parameter layout, finds every
 * allocation a parameter word points into (device, pool, managed, mapped
 * host memory) and every global named by `ks capture`, decides by the
 * policy (distinct:N needs the shape first), synchronizes the context and
 * streams the buffers to disk in chunks, following pointers stored in
 * them; at API EXIT it times the launch by the events recorded around it,
 * synchronizes again, streams the after-state and publishes the capture
 * directory (capture.h). It also follows cuMemAllocAsync and
 * cuMemFreeAsync, since the driver reports a pool pointer's range as the
 * whole pool. The program's own output
 * and exit status are untouched: anything unexpected disables capture with
 * one warning line on stderr, and the program goes on.
 *
 * Settings come from the environment (`ks capture` sets them; see
 * docs/CAPTURE.md): KS_CAPTURE_DIR, KS_CAPTURE_KERNEL (an extended
 * regex), KS_CAPTURE_LAUNCH, KS_CAPTURE_MAX_BYTES, KS_CAPTURE_MAX_LAUNCHES,
 * KS_CAPTURE_GLOBALS (names, comma-separated), KS_CAPTURE_REPORT (a file
 * that gets one line per capture, skip or failure).
 *
 * Driver calls made here re-enter CUPTI, so a thread-local flag keeps the
 * callback from running inside itself; a mutex guards the counters. Only
 * InitializeInjection is exported (the rest is built hidden), so nothing
 * here can collide with the program's own symbols.
 */
#include <cuda.h>
#include <cupti.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "../core/buf.h"
#include "../core/grow.h"
#include "../core/fs.h"
#include "../core/util.h"
#include "capture.h"

#define EXPORT __attribute__((visibility("default")))

/* Parameter words examined per launch for device pointers. */
#define MAX_SCAN_WORDS 4096
/* Kernels whose launches are counted (beyond that, new names are not). */
#define MAX_KERNELS 4096

struct pending {
	struct ks_capture cap;
	char *tmp;		/* the capture's directory until it is renamed */
	int kept;		/* tmp was renamed: keep it */
	unsigned char *stage;	/* STAGE_BYTES of host memory */
	int pinned;		/* stage is page-locked (cuMemAllocHost) */
	CUstream stream;	/* the launch's */
	CUevent ev[2];		/* around the launch: its duration */
	unsigned long long limit, total;	/* bytes: allowed, held */
	/* distinct mode: the kernel's slot this launch fills (k < 0: none),
	 * that slot's generation then, and the capture it replaces (its
	 * directory, removed once this one is published). */
	long k;
	size_t slot;
	unsigned long gen;
	char *victim;
};

static struct {
	pthread_mutex_t lock;
	int disabled;
	char *dir;		/* <KS_DIR>/captures */
	char *report;		/* or NULL */
	int have_regex;
	regex_t regex;
	struct ks_capture_policy policy;
	char **globals;
	size_t nglobals;
	unsigned long captured;
	char *names[MAX_KERNELS];	/* launch counts per kernel name */
	unsigned long counts[MAX_KERNELS];
	/* distinct: per kernel, the shapes kept (nkeys of them), with their
	 * threads, their capture's directory (NULL until published, or when
	 * the capture failed) and a generation that a replacement bumps. */
	struct kept {
		unsigned long long key, threads;
		char *path;
		unsigned long gen;
	} *kept[MAX_KERNELS];
	size_t nkeys[MAX_KERNELS];
	/* distinct: the number after the kernel's last capture, so that a
	 * replacement does not take the number of the one it replaced. */
	unsigned long next[MAX_KERNELS];
	size_t nnames;
	int auto_limit;		/* KS_CAPTURE_MAX_BYTES=auto (or unset) */
	unsigned long seq;
	CUpti_SubscriberHandle sub;
} g = { .lock = PTHREAD_MUTEX_INITIALIZER };

static _Thread_local int in_callback;

static void
report(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void
report(const char *fmt, ...)
{
	struct ks_buf line = KS_BUF_INIT;
	va_list ap;
	int fd;

	if (!g.report)
		return;
	va_start(ap, fmt);
	ks_buf_vaddf(&line, fmt, ap);
	va_end(ap);
	ks_buf_addch(&line, '\n');
	/* O_APPEND: the program's threads and children write whole lines. */
	fd = open(g.report, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
	if (fd >= 0) {
		if (write(fd, line.buf, line.len) < 0)
			(void)0;
		close(fd);
	}
	ks_buf_release(&line);
}

/* Turn capture off for the rest of the run, saying so once. */
static void
disable(const char *why)
{
	pthread_mutex_lock(&g.lock);
	if (!g.disabled) {
		g.disabled = 1;
		fprintf(stderr, "ks-capture: warning: capture disabled: %s\n", why);
		report("disabled %s", why);
	}
	pthread_mutex_unlock(&g.lock);
}

static const char *
cu_error(CUresult r)
{
	const char *s = NULL;

	if (cuGetErrorName(r, &s) != CUDA_SUCCESS || !s)
		return "unknown CUDA error";
	return s;
}

/* What one launch call says, whichever of the six it was. */
struct launch {
	const char *api;
	CUfunction f;
	unsigned grid[3], block[3], shmem;
	CUstream stream;
	void **params;
	void **extra;
	int cooperative;
	int cluster;
};

static int
read_launch(CUpti_CallbackId cbid, const void *fp, struct launch *l)
{
	const CUlaunchConfig *cfg;
	unsigned i;

	memset(l, 0, sizeof(*l));
	switch (cbid) {
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
		/* The two parameter structs have the same layout. */
		const cuLaunchKernel_params *p = fp;

		l->api = cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel ?
			"cuLaunchKernel" : "cuLaunchKernel_ptsz";
		l->f = p->f;
		l->grid[0] = p->gridDimX, l->grid[1] = p->gridDimY, l->grid[2] = p->gridDimZ;
		l->block[0] = p->blockDimX, l->block[1] = p->blockDimY;
		l->block[2] = p->blockDimZ;
		l->shmem = p->sharedMemBytes;
		l->stream = p->hStream;
		l->params = p->kernelParams;
		l->extra = p->extra;
		return 0;
	}
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
		const cuLaunchCooperativeKernel_params *p = fp;

		l->api = cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel ?
			"cuLaunchCooperativeKernel" : "cuLaunchCooperativeKernel_ptsz";
		l->f = p->f;
		l->grid[0] = p->gridDimX, l->grid[1] = p->gridDimY, l->grid[2] = p->gridDimZ;
		l->block[0] = p->blockDimX, l->block[1] = p->blockDimY;
		l->block[2] = p->blockDimZ;
		l->shmem = p->sharedMemBytes;
		l->stream = p->hStream;
		l->params = p->kernelParams;
		l->cooperative = 1;
		return 0;
	}
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
		const cuLaunchKernelEx_params *p = fp;

		cfg = p->config;
		if (!cfg)
			return -1;
		l->api = cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx ?
			"cuLaunchKernelEx" : "cuLaunchKernelEx_ptsz";
		l->f = p->f;
		l->grid[0] = cfg->gridDimX, l->grid[1] = cfg->gridDimY;
		l->grid[2] = cfg->gridDimZ;
		l->block[0] = cfg->blockDimX, l->block[1] = cfg->blockDimY;
		l->block[2] = cfg->blockDimZ;
		l->shmem = cfg->sharedMemBytes;
		l->stream = cfg->hStream;
		l->params = p->kernelParams;
		l->extra = p->extra;
		for (i = 0; cfg->attrs && i < cfg->numAttrs; i++) {
			if (cfg->attrs[i].id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE &&
			    cfg->attrs[i].value.cooperative)
				l->cooperative = 1;
			if (cfg->attrs[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
				l->cluster = 1;
		}
		return 0;
	}
	default:
		return -1;
	}
}

/*
 * The handle a CUDA 12/13 runtime passes is a CUkernel; a program using the
 * driver API directly passes a CUfunction. Asking the wrong kind fails
 * cleanly (CUDA_ERROR_INVALID_HANDLE), so try CUkernel first.
 */
static const char *
kernel_name(CUfunction f, const char *symbol, int *is_kernel)
{
	const char *name = NULL;

	*is_kernel = 1;
	if (cuKernelGetName(&name, (CUkernel)f) == CUDA_SUCCESS && name)
		return name;
	*is_kernel = 0;
	if (cuFuncGetName(&name, f) == CUDA_SUCCESS && name)
		return name;
	return symbol;
}

static int
param_info(CUfunction f, int is_kernel, size_t i, size_t *off, size_t *size)
{
	if (is_kernel)
		return cuKernelGetParamInfo((CUkernel)f, i, off, size) == CUDA_SUCCESS;
	return cuFuncGetParamInfo(f, i, off, size) == CUDA_SUCCESS;
}

static char *
demangle(const char *name)
{
	typedef char *(*demangler)(const char *, char *, size_t *, int *);
	demangler fn;
	void *sym = dlsym(RTLD_DEFAULT, "__cxa_demangle"), *lib;
	char *out;
	int status = -1;

	/* libstdc++ is there in a C++ program, though not always in the scope
	 * RTLD_DEFAULT searches from here; without it, ks demangles later. */
	if (!sym) {
		lib = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_NOLOAD);
		sym = lib ? dlsym(lib, "__cxa_demangle") : NULL;
	}
	if (!sym || strncmp(name, "_Z", 2))
		return NULL;
	memcpy(&fn, &sym, sizeof(fn));
	out = fn(name, NULL, NULL, &status);
	if (status || !out) {
		free(out);
		return NULL;
	}
	return out;
}

/* The launch number of this kernel in the run (from 1), 0 past
 * MAX_KERNELS; *k: the kernel's slot. */
static unsigned long
count_launch(const char *name, long *k)
{
	size_t i;

	*k = -1;
	for (i = 0; i < g.nnames; i++) {
		if (!strcmp(g.names[i], name)) {
			*k = (long)i;
			return ++g.counts[i];
		}
	}
	if (g.nnames == MAX_KERNELS)
		return 0;
	g.names[g.nnames] = ks_xstrdup(name);
	g.counts[g.nnames] = 1;
	*k = (long)g.nnames;
	return g.counts[g.nnames++];
}

static int
matches(const char *mangled, const char *demangled)
{
	if (!g.have_regex)
		return 1;
	return !regexec(&g.regex, mangled, 0, NULL, 0) ||
	       (demangled && !regexec(&g.regex, demangled, 0, NULL, 0));
}

/* The buffer starting at `base`, added if new. Returns its index. */
static size_t
add_buffer(struct ks_capture *c, enum ks_capture_mem mem, const char *name,
	   unsigned long long base, unsigned long long size)
{
	size_t i;

	for (i = 0; i < c->nbuffers; i++)
		if (c->buffers[i].base == base)
			return i;
	c->buffers = KS_GROW(c->buffers, c->nbuffers, NULL);
	memset(&c->buffers[c->nbuffers], 0, sizeof(*c->buffers));
	c->buffers[c->nbuffers].mem = mem;
	c->buffers[c->nbuffers].name = name ? ks_xstrdup(name) : NULL;
	c->buffers[c->nbuffers].base = base;
	c->buffers[c->nbuffers].size = size;
	c->buffers[c->nbuffers].written = -1;
	return c->nbuffers++;
}

/*
 * Allocations from memory pools (cuMemAllocAsync, cuMemAllocFromPoolAsync),
 * from their callbacks: the driver reports a pool pointer's range as the
 * pool's whole reservation, not the allocation.
 */
static struct {
	pthread_mutex_t lock;
	unsigned long long *base, *size;
	size_t n;
} pools = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void
pool_add(unsigned long long base, unsigned long long size)
{
	pthread_mutex_lock(&pools.lock);
	pools.base = KS_GROW(pools.base, pools.n, NULL);
	pools.size = KS_GROW(pools.size, pools.n, NULL);
	pools.base[pools.n] = base;
	pools.size[pools.n++] = size;
	pthread_mutex_unlock(&pools.lock);
}

static void
pool_remove(unsigned long long base)
{
	size_t i;

	pthread_mutex_lock(&pools.lock);
	for (i = pools.n; i-- > 0;) {
		if (pools.base[i] != base)
			continue;
		pools.base[i] = pools.base[pools.n - 1];
		pools.size[i] = pools.size[pools.n - 1];
		pools.n--;
		break;
	}
	pthread_mutex_unlock(&pools.lock);
}

static int
pool_find(unsigned long long v, unsigned long long *base, unsigned long long *size)
{
	size_t i;
	int found = 0;

	pthread_mutex_lock(&pools.lock);
	for (i = 0; i < pools.n && !found; i++) {
		if (v >= pools.base[i] && v - pools.base[i] < pools.size[i]) {
			*base = pools.base[i];
			*size = pools.size[i];
			found = 1;
		}
	}
	pthread_mutex_unlock(&pools.lock);
	return found;
}

/*
 * The allocation address `v` lies in: 1 with its base, size and kind, 0
 * when the driver does not know the address (not a pointer), -1 with the
 * reason when it is memory whose extent cannot be told (`what` names the
 * word for the reason).
 */
static int
resolve(unsigned long long v, unsigned long long *base, unsigned long long *size,
	enum ks_capture_mem *mem, const char *what, struct ks_buf *why)
{
	CUpointer_attribute attrs[] = {
		CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_IS_MANAGED,
		CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, CU_POINTER_ATTRIBUTE_RANGE_SIZE,
		CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE,
	};
	unsigned int mt = 0, managed = 0, last_mapped = 1;
	unsigned long long rbase = 0, mbase = 0;
	size_t rsize = 0, msize = 0;
	void *pool = NULL;
	void *data[] = { &mt, &managed, &rbase, &rsize, &pool };
	int have_map;

	if (v < 65536)
		return 0;
	if (pool_find(v, base, size)) {
		*mem = KS_MEM_POOL;
		return 1;
	}
	/* One call for every word: an address the driver does not know gets
	 * memory type 0, not an error. */
	if (cuPointerGetAttributes(KS_ARRAY_SIZE(attrs), attrs, data, (CUdeviceptr)v) !=
	    CUDA_SUCCESS) {
		mt = 0;
		if (cuPointerGetAttribute(&mt, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
					  (CUdeviceptr)v) != CUDA_SUCCESS)
			return 0;
		cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED,
				      (CUdeviceptr)v);
		if (cuPointerGetAttribute(&rbase, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
					  (CUdeviceptr)v) != CUDA_SUCCESS ||
		    cuPointerGetAttribute(&rsize, CU_POINTER_ATTRIBUTE_RANGE_SIZE,
					  (CUdeviceptr)v) != CUDA_SUCCESS)
			rsize = 0;
		pool = NULL;
	}
	if (!mt)
		return 0;	/* not a pointer the driver knows */
	if (v < rbase || v - rbase >= rsize)
		rbase = 0, rsize = 0;
	if (managed)
		*mem = KS_MEM_MANAGED;
	else if (pool)
		*mem = KS_MEM_POOL;
	else if (mt == CU_MEMORYTYPE_HOST)
		*mem = KS_MEM_HOST;
	else
		*mem = KS_MEM_DEVICE;
	/* The range is what was reserved (a whole pool, a cuMemAddressReserve);
	 * the mapping is what holds memory. Asked only where the two may differ. */
	have_map = 0;
	if (pool || (rsize && *mem == KS_MEM_DEVICE &&
		     cuPointerGetAttribute(&last_mapped, CU_POINTER_ATTRIBUTE_MAPPED,
					   (CUdeviceptr)(rbase + rsize - 1)) ==
			     CUDA_SUCCESS && !last_mapped))
		have_map = cuPointerGetAttribute(&mbase, CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR,
						 (CUdeviceptr)v) == CUDA_SUCCESS &&
			   cuPointerGetAttribute(&msize, CU_POINTER_ATTRIBUTE_MAPPING_SIZE,
						 (CUdeviceptr)v) == CUDA_SUCCESS &&
			   msize && v >= mbase && v - mbase < msize;
	if (pool) {
		/* A pool allocation the callbacks did not see (a graph's memory
		 * node): the mapping it lies in is the best extent known. */
		if (!have_map) {
			ks_buf_addf(why, "%s points into a memory-pool allocation whose "
					 "extent the driver does not report", what);
			return -1;
		}
		*base = mbase;
		*size = msize;
		return 1;
	}
	if (!rsize) {
		ks_buf_addf(why, "%s points into %s memory whose extent the driver does "
				 "not report (no allocation range)", what,
			    *mem == KS_MEM_HOST ? "host" : *mem == KS_MEM_MANAGED ?
			    "managed" : "device");
		return -1;
	}
	if (have_map) {
		/* A reservation mapped only in part. */
		*base = mbase;
		*size = msize;
		return 1;
	}
	*base = rbase;
	*size = rsize;
	return 1;
}

static void
add_param_ptr(struct ks_capture_param *p, size_t at, size_t buffer,
	      unsigned long long offset)
{
	p->ptrs = KS_GROW(p->ptrs, p->nptrs, NULL);
	p->ptrs[p->nptrs].at = at;
	p->ptrs[p->nptrs].buffer = buffer;
	p->ptrs[p->nptrs].offset = offset;
	p->nptrs++;
}

/* A word just past the end of an allocation lies in its padding (the
 * driver knows no allocation there): cudaMalloc hands out 512-byte slots. */
#define END_SLACK 512

/*
 * Find the device pointers in the parameter bytes: every 8-byte-aligned
 * word that the driver resolves to an allocation, then every word that
 * the driver does not know but that lies just past the end of one found
 * (an end pointer). Returns 0, or -1 with the reason the launch cannot be
 * captured.
 */
static int
find_pointers(struct ks_capture *c, struct ks_buf *why)
{
	size_t i, at, words = 0;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < c->nparams; i++) {
			struct ks_capture_param *p = &c->params[i];

			for (at = (8 - p->offset % 8) % 8; at + 8 <= p->size; at += 8) {
				unsigned long long v, base = 0, size = 0;
				enum ks_capture_mem mem;
				char what[48];
				size_t j;
				long b;
				int r, known = 0;

				if (pass == 0 && ++words > MAX_SCAN_WORDS)
					return 0;
				memcpy(&v, c->param_bytes + p->offset + at, 8);
				for (j = 0; j < p->nptrs; j++)
					known |= p->ptrs[j].at == at;
				if (known || v < 65536)
					continue;
				if (pass == 1) {
					b = ks_capture_buffer_at(c, v, END_SLACK);
					if (b >= 0 && c->buffers[b].mem != KS_MEM_GLOBAL)
						add_param_ptr(p, at, (size_t)b,
							      v - c->buffers[b].base);
					continue;
				}
				snprintf(what, sizeof(what), "parameter %zu", i);
				r = resolve(v, &base, &size, &mem, what, why);
				if (r < 0)
					return -1;
				if (r == 0)
					continue;
				add_param_ptr(p, at, add_buffer(c, mem, NULL, base, size),
					      v - base);
			}
		}
	}
	return 0;
}

/* The globals named by `ks capture` that the kernel's module holds. */
static void
find_globals(struct ks_capture *c, CUfunction f, int is_kernel)
{
	CUlibrary lib = NULL;
	CUmodule mod = NULL;
	size_t i;

	if (!g.nglobals)
		return;
	if (is_kernel ? cuKernelGetLibrary(&lib, (CUkernel)f) != CUDA_SUCCESS
		      : cuFuncGetModule(&mod, f) != CUDA_SUCCESS)
		return;
	for (i = 0; i < g.nglobals; i++) {
		CUdeviceptr p = 0;
		size_t size = 0;
		CUresult r = is_kernel ? cuLibraryGetGlobal(&p, &size, lib, g.globals[i])
				       : cuModuleGetGlobal(&p, &size, mod, g.globals[i]);

		if (r == CUDA_SUCCESS && size)
			add_buffer(c, KS_MEM_GLOBAL, g.globals[i], p, size);
	}
}

static void
pending_free(struct pending *pd)
{
	if (!pd)
		return;
	if (pd->tmp) {
		if (!pd->kept)
			ks_fs_remove_tree(pd->tmp, NULL);
		free(pd->tmp);
	}
	if (pd->stage) {
		if (pd->pinned)
			cuMemFreeHost(pd->stage);
		else
			free(pd->stage);
	}
	if (pd->ev[0])
		cuEventDestroy(pd->ev[0]);
	if (pd->ev[1])
		cuEventDestroy(pd->ev[1]);
	free(pd->victim);
	ks_capture_release(&pd->cap);
	free(pd);
}

/* Copy bytes [off, off + len) of buffer `i` into `dst`; host memory by the
 * CPU. */
static int
copy_range(const struct ks_capture *c, size_t i, unsigned long long off,
	   size_t len, unsigned char *dst, struct ks_buf *why)
{
	const struct ks_capture_buffer *b = &c->buffers[i];
	CUresult r;

	if (b->mem == KS_MEM_HOST) {
		void *hp = NULL;

		if (cuPointerGetAttribute(&hp, CU_POINTER_ATTRIBUTE_HOST_POINTER,
					  (CUdeviceptr)(b->base + off)) != CUDA_SUCCESS || !hp) {
			ks_buf_addf(why, "buffer %zu is host memory without a host address", i);
			return -1;
		}
		memcpy(dst, hp, len);
		return 0;
	}
	r = cuMemcpyDtoH(dst, (CUdeviceptr)(b->base + off), len);
	if (r != CUDA_SUCCESS) {
		ks_buf_addf(why, "copying buffer %zu: %s", i, cu_error(r));
		return -1;
	}
	return 0;
}

/* Address windows (2^36 bytes) that device buffers lie in: a word outside
 * them is not looked up as a pointer. */
#define WINDOW_SHIFT 36
#define MAX_WINDOWS 16
/* Driver lookups of buffer words per capture. */
#define MAX_INNER_LOOKUPS 65536

struct scan {
	unsigned long long win[MAX_WINDOWS];
	size_t nwin;
	size_t lookups;
	int truncated;
};

static void
scan_windows(const struct ks_capture *c, struct scan *sc)
{
	size_t i, j;

	for (i = 0; i < c->nbuffers; i++) {
		unsigned long long w = c->buffers[i].base >> WINDOW_SHIFT;
		int have = 0;

		if (c->buffers[i].mem == KS_MEM_GLOBAL || c->buffers[i].mem == KS_MEM_HOST)
			continue;
		for (j = 0; j < sc->nwin; j++)
			have |= sc->win[j] == w;
		if (!have && sc->nwin < MAX_WINDOWS)
			sc->win[sc->nwin++] = w;
	}
}

static void
add_buffer_ptr(struct ks_capture_buffer *b, unsigned long long at, size_t target,
	       unsigned long long offset)
{
	b->ptrs = KS_GROW(b->ptrs, b->nptrs, NULL);
	b->ptrs[b->nptrs].at = (size_t)at;
	b->ptrs[b->nptrs].buffer = target;
	b->ptrs[b->nptrs].offset = offset;
	b->nptrs++;
}

/*
 * The device pointers stored in bytes [off, off + len) of buffer `i`
 * (8-byte aligned words): recorded in buffers[i].ptrs; an allocation one
 * points to that is not a buffer yet becomes one (and is scanned in turn).
 */
static int
scan_chunk(struct ks_capture *c, size_t i, unsigned long long off,
	   const unsigned char *data, size_t len, struct scan *sc,
	   unsigned long long *total, unsigned long long limit, struct ks_buf *why)
{
	size_t at, j;

	for (at = (size_t)((8 - (c->buffers[i].base + off) % 8) % 8); at + 8 <= len;
	     at += 8) {
		unsigned long long v, base, size;
		enum ks_capture_mem mem;
		char what[64];
		int inwin = 0, r;
		long b;

		memcpy(&v, data + at, 8);
		if (v < 65536)
			continue;
		for (j = 0; j < sc->nwin; j++)
			inwin |= sc->win[j] == v >> WINDOW_SHIFT;
		if (!inwin)
			continue;
		b = ks_capture_buffer_at(c, v, 0);
		if (b >= 0 && v - c->buffers[b].base < c->buffers[b].size) {
			add_buffer_ptr(&c->buffers[i], off + at, (size_t)b,
				       v - c->buffers[b].base);
			continue;
		}
		if (sc->lookups >= MAX_INNER_LOOKUPS) {
			sc->truncated = 1;
			continue;
		}
		sc->lookups++;
		snprintf(what, sizeof(what), "a pointer stored in buffer %zu", i);
		r = resolve(v, &base, &size, &mem, what, why);
		if (r < 0)
			return -1;
		if (r == 0) {
			/* An end pointer in the padding after an allocation. */
			b = ks_capture_buffer_at(c, v, END_SLACK);
			if (b >= 0 && c->buffers[b].mem != KS_MEM_GLOBAL)
				add_buffer_ptr(&c->buffers[i], off + at, (size_t)b,
					       v - c->buffers[b].base);
			continue;
		}
		if (*total + size > limit) {
			ks_buf_addf(why, "buffer %zu holds a pointer to an allocation of "
					 "%llu bytes, over the limit of %llu (--max-bytes)",
				    i, size, limit);
			return -1;
		}
		*total += size;
		add_buffer_ptr(&c->buffers[i], off + at, add_buffer(c, mem, NULL, base, size),
			       v - base);
	}
	return 0;
}

static int
write_all_fd(int fd, const unsigned char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int
read_all_fd(int fd, unsigned char *p, size_t n)
{
	while (n) {
		ssize_t r = read(fd, p, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

/* Host memory one capture streams through: buffers go to disk in chunks,
 * so a capture needs no host memory of its size. */
#define STAGE_BYTES (64u << 20)

/*
 * Stream every buffer to <tmp>/b<i>.in (`out` 0; pointers stored in them
 * are found on the way) or to b<i>.out (`out` 1; `written` set by
 * comparing with b<i>.in, read back chunk by chunk).
 */
static int
stream_state(struct pending *pd, int out, struct ks_buf *why)
{
	struct ks_capture *c = &pd->cap;
	unsigned char *cmp = NULL;
	struct scan sc;
	size_t i;
	int rc = -1;

	memset(&sc, 0, sizeof(sc));
	scan_windows(c, &sc);
	if (out)
		cmp = ks_xmalloc(STAGE_BYTES);
	for (i = 0; i < c->nbuffers; i++) {
		struct ks_capture_buffer *b = &c->buffers[i];
		char *path = ks_capture_buffer_path(pd->tmp, i, out), *inpath = NULL;
		unsigned long long off;
		int fd, in = -1, bad = 0, differ = 0;

		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
		if (out) {
			inpath = ks_capture_buffer_path(pd->tmp, i, 0);
			in = open(inpath, O_RDONLY | O_CLOEXEC);
		}
		if (fd < 0 || (out && in < 0)) {
			ks_buf_addf(why, "cannot create '%s': %s", path, strerror(errno));
			bad = 1;
		}
		for (off = 0; !bad && off < b->size; off += STAGE_BYTES) {
			size_t len = b->size - off < STAGE_BYTES ? (size_t)(b->size - off)
								   : STAGE_BYTES;

			if (copy_range(c, i, off, len, pd->stage, why)) {
				bad = 1;
				break;
			}
			if (!out && scan_chunk(c, i, off, pd->stage, len, &sc, &pd->total,
					       pd->limit, why)) {
				bad = 1;
				break;
			}
			/* scan_chunk may have grown c->buffers. */
			b = &c->buffers[i];
			if (out && !differ) {
				if (read_all_fd(in, cmp, len)) {
					ks_buf_addf(why, "cannot read back '%s'", inpath);
					bad = 1;
					break;
				}
				differ = memcmp(cmp, pd->stage, len) != 0;
			}
			if (write_all_fd(fd, pd->stage, len)) {
				ks_buf_addf(why, "cannot write '%s': %s", path, strerror(errno));
				bad = 1;
			}
		}
		if (fd >= 0 && close(fd) && !bad) {
			ks_buf_addf(why, "cannot write '%s': %s", path, strerror(errno));
			bad = 1;
		}
		if (in >= 0)
			close(in);
		if (out)
			b->written = differ;
		free(path);
		free(inpath);
		if (bad)
			goto done;
	}
	if (sc.truncated && !out)
		ks_capture_note_add(c, "more words of the buffers looked like pointers "
				       "than were looked up; some stored pointers may "
				       "not be relocated");
	rc = 0;
done:
	free(cmp);
	return rc;
}

/* Copy the raw parameter bytes from kernelParams or from `extra`. */
static int
param_bytes(struct ks_capture *c, const struct launch *l, struct ks_buf *why)
{
	size_t i, size = 0;
	void *buf = NULL;

	for (i = 0; i < c->nparams; i++)
		if (c->params[i].offset + c->params[i].size > size)
			size = c->params[i].offset + c->params[i].size;
	c->param_size = size;
	c->param_bytes = ks_xcalloc(size ? size : 1, 1);
	if (l->params) {
		for (i = 0; i < c->nparams; i++)
			memcpy(c->param_bytes + c->params[i].offset, l->params[i],
			       c->params[i].size);
		return 0;
	}
	for (i = 0; l->extra && l->extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
		if (l->extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
			buf = l->extra[i + 1];
		else if (l->extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE)
			size = *(size_t *)l->extra[i + 1];
		else
			break;
	}
	if (!buf || size < c->param_size) {
		ks_buf_addf(why, "parameters in an 'extra' list it cannot read");
		return -1;
	}
	memcpy(c->param_bytes, buf, c->param_size);
	return 0;
}

static void
device_info(struct ks_capture *c)
{
	CUdevice dev;
	char name[256];
	int v;

	if (cuCtxGetDevice(&dev) == CUDA_SUCCESS) {
		if (cuDeviceGetName(name, sizeof(name), dev) == CUDA_SUCCESS)
			c->device = ks_xstrdup(name);
		cuDeviceGetAttribute(&c->cc_major,
				     CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
		cuDeviceGetAttribute(&c->cc_minor,
				     CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
	}
	if (cuDriverGetVersion(&v) == CUDA_SUCCESS)
		c->cuda_version = v;
}

static char *
now_iso(void)
{
	char buf[32];
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	return ks_xstrdup(buf);
}

static char *
program_name(void)
{
	char buf[4096];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);

	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return ks_xstrdup(buf);
}

/*
 * The first step of a capture: the launch's name, geometry, parameters and
 * the buffers its parameters point into. Enough to tell its shape. NULL
 * (why set) if the launch cannot be captured.
 */
static struct pending *
prepare(const struct launch *l, const char *name, int is_kernel,
	unsigned long ordinal, struct ks_buf *why)
{
	struct pending *pd = ks_xcalloc(1, sizeof(*pd));
	struct ks_capture *c = &pd->cap;
	CUstreamCaptureStatus cs = CU_STREAM_CAPTURE_STATUS_NONE;
	size_t i, off, size;

	pd->stream = l->stream;
	if (!l->stream && strstr(l->api, "_ptsz"))
		pd->stream = CU_STREAM_PER_THREAD;
	if (cuStreamIsCapturing(pd->stream, &cs) == CUDA_SUCCESS &&
	    cs != CU_STREAM_CAPTURE_STATUS_NONE) {
		ks_buf_adds(why, "launched into a CUDA graph being captured");
		goto fail;
	}
	c->kernel = ks_xstrdup(name);
	c->api = ks_xstrdup(l->api);
	memcpy(c->grid, l->grid, sizeof(c->grid));
	memcpy(c->block, l->block, sizeof(c->block));
	c->shmem = l->shmem;
	c->cooperative = l->cooperative;
	c->launch = ordinal;
	if (l->cluster)
		c->note = ks_xstrdup("launched with a cluster-dimension attribute; "
				     "replay uses the kernel's compiled cluster shape");
	for (i = 0; param_info(l->f, is_kernel, i, &off, &size); i++) {
		c->params = KS_GROW(c->params, i, NULL);
		memset(&c->params[i], 0, sizeof(*c->params));
		c->params[i].offset = off;
		c->params[i].size = size;
		c->nparams = i + 1;
	}
	if (param_bytes(c, l, why) || find_pointers(c, why))
		goto fail;
	return pd;
fail:
	pending_free(pd);
	return NULL;
}

/* The limit of one capture: --max-bytes, or (auto) from the machine now. */
static unsigned long long
capture_limit(void)
{
	size_t dev_free = 0, dev_total = 0;

	if (!g.auto_limit)
		return g.policy.max_bytes;
	if (cuMemGetInfo(&dev_free, &dev_total) != CUDA_SUCCESS)
		dev_free = 0;
	return ks_capture_auto_limit(ks_capture_host_memory(), dev_free);
}

/*
 * The rest of a capture before the launch: globals, the limits,
 * the before-state streamed to disk, the start event. 0, or -1 (why set).
 */
static int
begin(struct pending *pd, const struct launch *l, int is_kernel, struct ks_buf *why)
{
	struct ks_capture *c = &pd->cap;
	struct statvfs vfs;
	char *kdir, *parent;
	void *stage = NULL;
	CUresult r;
	size_t i;

	c->demangled = demangle(c->kernel);
	find_globals(c, l->f, is_kernel);
	for (i = 0; i < c->nbuffers; i++) {
		char note[160];

		if (c->buffers[i].mem != KS_MEM_HOST)
			continue;
		snprintf(note, sizeof(note), "buffer %zu is mapped host memory; a "
			 "replay restores it into device memory", i);
		ks_capture_note_add(c, note);
	}
	pd->limit = capture_limit();
	for (i = 0; i < c->nbuffers; i++)
		pd->total += c->buffers[i].size;
	if (pd->total > pd->limit) {
		ks_buf_addf(why, "its buffers hold %llu bytes, over the limit of %llu "
				 "(%s)", pd->total, pd->limit,
			    g.auto_limit ? "the automatic limit; --max-bytes" : "--max-bytes");
		return -1;
	}
	if (!statvfs(g.dir, &vfs) &&
	    (unsigned long long)vfs.f_bavail * vfs.f_frsize < 2 * pd->total + (64ull << 20)) {
		ks_buf_addf(why, "not enough disk space under %s for 2 x %llu bytes",
			    g.dir, pd->total);
		return -1;
	}
	kdir = ks_capture_kernel_dir(c->kernel);
	parent = ks_fs_join(g.dir, kdir);
	pthread_mutex_lock(&g.lock);
	pd->tmp = ks_xasprintf("%s/.tmp-%ld-%lu", parent, (long)getpid(), ++g.seq);
	pthread_mutex_unlock(&g.lock);
	free(kdir);
	free(parent);
	if (ks_fs_mkdirs(pd->tmp, why))
		return -1;
	if (cuMemAllocHost(&stage, STAGE_BYTES) == CUDA_SUCCESS) {
		pd->stage = stage;
		pd->pinned = 1;
	} else {
		pd->stage = malloc(STAGE_BYTES);
		if (!pd->stage) {
			ks_buf_addf(why, "no host memory for a %u-byte staging buffer",
				    STAGE_BYTES);
			return -1;
		}
	}
	/* The before-state is what the kernel will see: let earlier work end. */
	r = cuCtxSynchronize();
	if (r != CUDA_SUCCESS) {
		ks_buf_addf(why, "synchronizing before the launch: %s", cu_error(r));
		return -1;
	}
	if (stream_state(pd, 0, why))
		return -1;
	/* The launch's duration: events on its stream around it, the device
	 * idle before it. */
	if (cuEventCreate(&pd->ev[0], CU_EVENT_DEFAULT) != CUDA_SUCCESS ||
	    cuEventCreate(&pd->ev[1], CU_EVENT_DEFAULT) != CUDA_SUCCESS ||
	    cuEventRecord(pd->ev[0], pd->stream) != CUDA_SUCCESS) {
		if (pd->ev[0])
			cuEventDestroy(pd->ev[0]);
		if (pd->ev[1])
			cuEventDestroy(pd->ev[1]);
		pd->ev[0] = pd->ev[1] = NULL;
	}
	return 0;
}

/* Rename the finished temporary directory to the first free number. */
static int
publish(struct pending *pd, char **where, struct ks_buf *err)
{
	struct ks_capture *c = &pd->cap;
	char *kdir = ks_capture_kernel_dir(c->kernel), *parent, *path;
	unsigned long n;
	int rc = -1;

	parent = ks_fs_join(g.dir, kdir);
	/* launch.json last: a directory without it is unfinished. */
	if (ks_capture_save(pd->tmp, c, err))
		goto out;
	n = 1;
	if (pd->k >= 0) {
		pthread_mutex_lock(&g.lock);
		n = g.next[pd->k] ? g.next[pd->k] : 1;
		pthread_mutex_unlock(&g.lock);
	}
	for (; n < 100000; n++) {
		path = ks_xasprintf("%s/%lu", parent, n);
		if (!rename(pd->tmp, path)) {
			*where = path;
			pd->kept = 1;
			rc = 0;
			if (pd->k >= 0) {
				pthread_mutex_lock(&g.lock);
				if (g.next[pd->k] <= n)
					g.next[pd->k] = n + 1;
				pthread_mutex_unlock(&g.lock);
			}
			break;
		}
		free(path);
		if (errno != EEXIST && errno != ENOTEMPTY) {
			ks_error_errno(err, "cannot rename '%s'", pd->tmp);
			break;
		}
	}
out:
	free(parent);
	free(kdir);
	return rc;
}

/* Give a reserved capture count back. */
static void
unreserve(void)
{
	pthread_mutex_lock(&g.lock);
	g.captured--;
	pthread_mutex_unlock(&g.lock);
}

/* g.lock held: the keys (or the threads) of kernel k's kept shapes, as
 * the pure policy functions take them; the caller frees. */
static unsigned long long *
kept_column(long k, int threads)
{
	unsigned long long *v = ks_xcalloc(g.nkeys[k] + 1, sizeof(*v));
	size_t i;

	for (i = 0; i < g.nkeys[k]; i++)
		v[i] = threads ? g.kept[k][i].threads : g.kept[k][i].key;
	return v;
}

/* distinct mode, g.lock held: the slot a launch of `threads` threads of
 * kernel k would replace, or -1. */
static long
grows(long k, unsigned long long threads)
{
	unsigned long long *t = kept_column(k, 1);
	long v = ks_capture_policy_replace(&g.policy, g.captured, t, g.nkeys[k], threads);

	free(t);
	return v;
}

/*
 * distinct mode, g.lock held: does this launch of kernel k (shape `key`,
 * prepared as pd, or NULL where it cannot be captured) get a slot? A new
 * shape while fewer than N are kept adds one; a launch that grows the
 * kernel's captures takes the smallest one's slot, and pd then owns that
 * capture's directory, removed once pd's is published. A launch that
 * cannot be captured keeps its slot too (with no directory), so that it is
 * reported once, not at every launch.
 */
static int
take_slot(long k, unsigned long long key, unsigned long long threads,
	  struct pending *pd)
{
	struct kept *s;
	unsigned long long *seen = kept_column(k, 0);
	long v;
	int add;

	/* (A launch that grows the captures has a shape not seen: its grid or
	 * block differs.) */
	add = ks_capture_policy_wants_key(&g.policy, g.captured, seen, g.nkeys[k], key);
	free(seen);
	if (add) {
		g.kept[k] = KS_GROW(g.kept[k], g.nkeys[k], NULL);
		s = &g.kept[k][g.nkeys[k]++];
		memset(s, 0, sizeof(*s));
	} else if ((v = grows(k, threads)) >= 0) {
		s = &g.kept[k][v];
		if (pd) {
			pd->victim = s->path;
			s->path = NULL;
		}
	} else {
		return 0;
	}
	s->key = key;
	s->threads = threads;
	s->gen++;
	if (pd) {
		pd->k = k;
		pd->slot = (size_t)(s - g.kept[k]);
		pd->gen = s->gen;
	}
	g.captured++;
	return 1;
}

/*
 * A capture published: its slot names its directory now (unless a later
 * launch took the slot meanwhile), and the capture it replaces goes.
 */
static void
keep_published(struct pending *pd, const char *where)
{
	struct kept *s;

	if (pd->k < 0)
		return;
	pthread_mutex_lock(&g.lock);
	s = &g.kept[pd->k][pd->slot];
	if (s->gen == pd->gen && !s->path)
		s->path = ks_xstrdup(where);
	if (pd->victim)
		g.captured--;	/* the run's limit counts captures kept */
	pthread_mutex_unlock(&g.lock);
	if (pd->victim) {
		ks_fs_remove_tree(pd->victim, NULL);
		report("replaced %s\t%s", pd->victim, where);
	}
}

/* A capture that failed: the one it was to replace stays, and its slot
 * names it again (unless a later launch took the slot meanwhile). */
static void
keep_victim(struct pending *pd)
{
	struct kept *s;

	if (pd->k < 0 || !pd->victim)
		return;
	pthread_mutex_lock(&g.lock);
	s = &g.kept[pd->k][pd->slot];
	if (s->gen == pd->gen && !s->path) {
		s->path = pd->victim;
		pd->victim = NULL;
	}
	pthread_mutex_unlock(&g.lock);
}

static void
on_enter(CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
	struct ks_buf why = KS_BUF_INIT;
	struct launch l;
	const char *name;
	char *dem = NULL;
	unsigned long ordinal;
	unsigned long long key, threads;
	int is_kernel, want;
	long k;
	struct pending *pd = NULL;

	*cb->correlationData = 0;
	if (read_launch(cbid, cb->functionParams, &l))
		return;
	name = kernel_name(l.f, cb->symbolName, &is_kernel);
	if (!name)
		return;
	if (g.have_regex) {
		dem = demangle(name);
		want = matches(name, dem);
		free(dem);
		if (!want)
			return;
	}
	threads = (unsigned long long)l.grid[0] * l.grid[1] * l.grid[2] *
		  l.block[0] * l.block[1] * l.block[2];
	pthread_mutex_lock(&g.lock);
	ordinal = count_launch(name, &k);
	if (g.policy.distinct)
		want = ordinal && !g.disabled && g.captured < g.policy.max_launches &&
		       (g.nkeys[k] < g.policy.distinct || grows(k, threads) >= 0);
	else
		want = ordinal && !g.disabled &&
		       ks_capture_policy_wants(&g.policy, ordinal, g.captured);
	if (want && !g.policy.distinct)
		g.captured++;	/* reserved; given back if the capture fails */
	pthread_mutex_unlock(&g.lock);
	if (!want)
		return;
	pd = prepare(&l, name, is_kernel, ordinal, &why);
	if (pd)
		pd->k = -1;
	if (g.policy.distinct) {
		/* A launch that cannot be captured counts as one shape seen, so
		 * that it is reported once, not at every launch. */
		key = pd ? ks_capture_launch_key(&pd->cap) : 0;
		pthread_mutex_lock(&g.lock);
		want = take_slot(k, key, threads, pd);
		pthread_mutex_unlock(&g.lock);
		if (!want) {
			pending_free(pd);
			ks_buf_release(&why);
			return;
		}
	}
	if (pd && begin(pd, &l, is_kernel, &why)) {
		keep_victim(pd);
		pending_free(pd);
		pd = NULL;
	}
	if (!pd) {
		report("skipped %s launch %lu: %s", name, ordinal, why.buf);
		unreserve();
	}
	*cb->correlationData = (uint64_t)(uintptr_t)pd;
	ks_buf_release(&why);
}

static void
on_exit_(const CUpti_CallbackData *cb)
{
	struct pending *pd = (struct pending *)(uintptr_t)*cb->correlationData;
	struct ks_buf why = KS_BUF_INIT;
	char *where = NULL;
	float ms = 0;
	CUresult r;

	if (!pd)
		return;
	*cb->correlationData = 0;
	r = cb->functionReturnValue ? *(const CUresult *)cb->functionReturnValue
				    : CUDA_SUCCESS;
	if (r != CUDA_SUCCESS) {
		report("skipped %s launch %lu: the launch failed: %s", pd->cap.kernel,
		       pd->cap.launch, cu_error(r));
		goto out;
	}
	if (pd->ev[1] && cuEventRecord(pd->ev[1], pd->stream) == CUDA_SUCCESS &&
	    cuEventSynchronize(pd->ev[1]) == CUDA_SUCCESS &&
	    cuEventElapsedTime(&ms, pd->ev[0], pd->ev[1]) == CUDA_SUCCESS && ms > 0)
		pd->cap.duration_ns = (unsigned long long)((double)ms * 1e6 + 0.5);
	r = cuCtxSynchronize();
	if (r != CUDA_SUCCESS) {
		ks_buf_addf(&why, "kernel %s failed: %s", pd->cap.kernel, cu_error(r));
		disable(why.buf);
		goto out;
	}
	if (stream_state(pd, 1, &why)) {
		report("skipped %s launch %lu: %s", pd->cap.kernel, pd->cap.launch,
		       why.buf);
		goto out;
	}
	device_info(&pd->cap);
	pd->cap.time = now_iso();
	pd->cap.program = program_name();
	if (publish(pd, &where, &why)) {
		ks_buf_addf(&why, " (writing under %s)", g.dir);
		disable(why.buf);
		goto out;
	}
	report("captured %s", where);
	keep_published(pd, where);
out:
	if (!where) {
		unreserve();	/* not captured after all */
		keep_victim(pd);
	}
	free(where);
	pending_free(pd);
	ks_buf_release(&why);
}

/* Pool allocations and frees, for resolve(). */
static void
on_memory(CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
	const CUresult *rv = cb->functionReturnValue;

	switch (cbid) {
	case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync:
	case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz: {
		const cuMemAllocAsync_params *p = cb->functionParams;

		if (cb->callbackSite == CUPTI_API_EXIT && rv && *rv == CUDA_SUCCESS &&
		    p->dptr)
			pool_add(*p->dptr, p->bytesize);
		break;
	}
	case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync:
	case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz: {
		const cuMemAllocFromPoolAsync_params *p = cb->functionParams;

		if (cb->callbackSite == CUPTI_API_EXIT && rv && *rv == CUDA_SUCCESS &&
		    p->dptr)
			pool_add(*p->dptr, p->bytesize);
		break;
	}
	case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync:
	case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz: {
		const cuMemFreeAsync_params *p = cb->functionParams;

		if (cb->callbackSite == CUPTI_API_ENTER)
			pool_remove(p->dptr);
		break;
	}
	default:
		break;
	}
}

static int
is_memory_cbid(CUpti_CallbackId cbid)
{
	return cbid == CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync ||
	       cbid == CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz ||
	       cbid == CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync ||
	       cbid == CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz ||
	       cbid == CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync ||
	       cbid == CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz;
}

static void CUPTIAPI
on_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
	    const void *data)
{
	const CUpti_CallbackData *cb = data;

	(void)userdata;
	if (domain != CUPTI_CB_DOMAIN_DRIVER_API || in_callback)
		return;
	if (is_memory_cbid(cbid)) {
		on_memory(cbid, cb);
		return;
	}
	in_callback = 1;
	if (cb->callbackSite == CUPTI_API_ENTER) {
		if (!g.disabled)
			on_enter(cbid, cb);
		else
			*cb->correlationData = 0;
	} else {
		on_exit_(cb);
	}
	in_callback = 0;
}

static int
settings(struct ks_buf *err)
{
	const char *dir = getenv("KS_CAPTURE_DIR"), *re = getenv("KS_CAPTURE_KERNEL");
	const char *launch = getenv("KS_CAPTURE_LAUNCH");
	const char *bytes = getenv("KS_CAPTURE_MAX_BYTES");
	const char *launches = getenv("KS_CAPTURE_MAX_LAUNCHES");
	const char *globals = getenv("KS_CAPTURE_GLOBALS");
	const char *rep = getenv("KS_CAPTURE_REPORT");
	char *end;

	if (!dir || !*dir)
		return ks_error(err, "KS_CAPTURE_DIR is not set (run the program "
				"through 'ks capture')");
	g.dir = ks_xstrdup(dir);
	g.report = rep && *rep ? ks_xstrdup(rep) : NULL;
	g.policy.max_launches = 16;
	if (ks_capture_parse_launch_mode(launch && *launch ? launch
					 : KS_CAPTURE_LAUNCH_DEFAULT, &g.policy, err))
		return -1;
	g.auto_limit = !bytes || !*bytes || !strcmp(bytes, "auto");
	if (!g.auto_limit && ks_capture_parse_bytes(bytes, &g.policy.max_bytes, err))
		return -1;
	if (launches && *launches) {
		errno = 0;
		g.policy.max_launches = strtoul(launches, &end, 10);
		if (errno || *end || end == launches)
			return ks_error(err, "KS_CAPTURE_MAX_LAUNCHES: '%s' is not a number",
					launches);
	}
	if (re && *re) {
		if (regcomp(&g.regex, re, REG_EXTENDED | REG_NOSUB))
			return ks_error(err, "KS_CAPTURE_KERNEL: '%s' is not an extended "
					"regular expression", re);
		g.have_regex = 1;
	}
	while (globals && *globals) {
		size_t n = strcspn(globals, ",");

		if (n) {
			g.globals = KS_GROW(g.globals, g.nglobals, NULL);
			g.globals[g.nglobals++] = ks_xstrndup(globals, n);
		}
		globals += n + (globals[n] == ',');
	}
	return 0;
}

EXPORT int InitializeInjection(void);

EXPORT int
InitializeInjection(void)
{
	static const CUpti_CallbackId cbids[] = {
		CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
		CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
		CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
		CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
		CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
		CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
		CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync,
		CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz,
		CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync,
		CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz,
		CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync,
		CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz,
	};
	struct ks_buf err = KS_BUF_INIT;
	const char *msg = NULL;
	CUptiResult r;
	size_t i;

	ks_progname = "ks-capture";
	if (settings(&err)) {
		disable(err.buf);
		goto out;
	}
	r = cuptiSubscribe(&g.sub, on_callback, NULL);
	if (r != CUPTI_SUCCESS) {
		cuptiGetResultString(r, &msg);
		ks_buf_reset(&err);
		ks_buf_addf(&err, "cannot subscribe to CUPTI callbacks: %s (is another "
				  "profiler attached?)", msg ? msg : "?");
		disable(err.buf);
		goto out;
	}
	for (i = 0; i < KS_ARRAY_SIZE(cbids); i++) {
		r = cuptiEnableCallback(1, g.sub, CUPTI_CB_DOMAIN_DRIVER_API, cbids[i]);
		if (r != CUPTI_SUCCESS) {
			cuptiGetResultString(r, &msg);
			ks_buf_reset(&err);
			ks_buf_addf(&err, "cannot enable launch callback %u: %s",
				    (unsigned)cbids[i], msg ? msg : "?");
			disable(err.buf);
			goto out;
		}
	}
	report("started pid %ld", (long)getpid());
out:
	ks_buf_release(&err);
	return 1;
}
