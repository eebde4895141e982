/*
 * libks-capture.so: records chosen kernel launches from inside an unchanged
 * program. The CUDA driver loads it at cuInit when CUDA_INJECTION64_PATH
 * names it and calls InitializeInjection(); `ks capture` sets that up.
 *
 * It subscribes to CUPTI's driver-API callbacks for the launch calls only
 * (cuLaunchKernel, cuLaunchKernelEx, cuLaunchCooperativeKernel and their
 * per-thread-stream forms): <<<>>>, cudaLaunchKernel and cudaLaunchKernelEx
 * all reach one of them, with static and shared cudart alike. At API ENTER
 * of a chosen launch it reads the kernel's name and parameter layout,
 * finds every device allocation a parameter word points into and every
 * global named by `ks capture`, synchronizes the context and copies them to
 * host memory; at API EXIT it synchronizes again, copies the after-state
 * and writes the capture directory (capture.h). The program's own output
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
	unsigned char **in;	/* before-state of each buffer */
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
	size_t nnames;
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

/* The launch number of this kernel in the run (from 1), 0 past MAX_KERNELS. */
static unsigned long
count_launch(const char *name)
{
	size_t i;

	for (i = 0; i < g.nnames; i++)
		if (!strcmp(g.names[i], name))
			return ++g.counts[i];
	if (g.nnames == MAX_KERNELS)
		return 0;
	g.names[g.nnames] = ks_xstrdup(name);
	g.counts[g.nnames] = 1;
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
 * Find the device pointers in the parameter bytes: every 8-byte-aligned
 * word that the driver resolves to an allocation. Returns 0, or -1 with
 * the reason the launch cannot be captured.
 */
static int
find_pointers(struct ks_capture *c, struct ks_buf *why)
{
	size_t i, at, words = 0;

	for (i = 0; i < c->nparams; i++) {
		struct ks_capture_param *p = &c->params[i];

		for (at = (8 - p->offset % 8) % 8; at + 8 <= p->size; at += 8) {
			unsigned long long v, base = 0;
			size_t range = 0;
			unsigned int mt = 0, managed = 0;
			size_t b;

			if (++words > MAX_SCAN_WORDS)
				return 0;
			memcpy(&v, c->param_bytes + p->offset + at, 8);
			if (v < 65536)
				continue;
			if (cuPointerGetAttribute(&mt, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
						  (CUdeviceptr)v) != CUDA_SUCCESS)
				continue;	/* not a pointer the driver knows */
			cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED,
					      (CUdeviceptr)v);
			if (mt == CU_MEMORYTYPE_HOST && !managed) {
				ks_buf_addf(why, "parameter %zu points into host memory", i);
				return -1;
			}
			if (cuPointerGetAttribute(&base, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
						  (CUdeviceptr)v) != CUDA_SUCCESS ||
			    cuPointerGetAttribute(&range, CU_POINTER_ATTRIBUTE_RANGE_SIZE,
						  (CUdeviceptr)v) != CUDA_SUCCESS ||
			    v < base || v - base > range) {
				ks_buf_addf(why, "no allocation range for parameter %zu", i);
				return -1;
			}
			b = add_buffer(c, managed ? KS_MEM_MANAGED : KS_MEM_DEVICE, NULL,
				       base, range);
			p->ptrs = KS_GROW(p->ptrs, p->nptrs, NULL);
			p->ptrs[p->nptrs].at = at;
			p->ptrs[p->nptrs].buffer = b;
			p->ptrs[p->nptrs].offset = v - base;
			p->nptrs++;
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
	size_t i;

	if (!pd)
		return;
	for (i = 0; pd->in && i < pd->cap.nbuffers; i++)
		free(pd->in[i]);
	free(pd->in);
	ks_capture_release(&pd->cap);
	free(pd);
}

/* Copy every buffer of `c` to fresh host memory; NULL on failure. */
static unsigned char **
snapshot(const struct ks_capture *c, struct ks_buf *why)
{
	unsigned char **data = ks_xcalloc(c->nbuffers + 1, sizeof(*data));
	size_t i;
	CUresult r;

	for (i = 0; i < c->nbuffers; i++) {
		data[i] = malloc(c->buffers[i].size ? c->buffers[i].size : 1);
		if (!data[i]) {
			ks_buf_addf(why, "no host memory for %llu bytes", c->buffers[i].size);
			goto fail;
		}
		r = cuMemcpyDtoH(data[i], (CUdeviceptr)c->buffers[i].base,
				 c->buffers[i].size);
		if (r != CUDA_SUCCESS) {
			ks_buf_addf(why, "copying buffer %zu: %s", i, cu_error(r));
			goto fail;
		}
	}
	return data;
fail:
	for (i = 0; i < c->nbuffers; i++)
		free(data[i]);
	free(data);
	return NULL;
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

/* Build the pending capture for a chosen launch; NULL (why set) if none. */
static struct pending *
begin(const struct launch *l, const char *name, int is_kernel,
      unsigned long ordinal, struct ks_buf *why)
{
	struct pending *pd = ks_xcalloc(1, sizeof(*pd));
	struct ks_capture *c = &pd->cap;
	CUstreamCaptureStatus cs = CU_STREAM_CAPTURE_STATUS_NONE;
	unsigned long long total = 0;
	size_t i, off, size;
	CUresult r;

	if (cuStreamIsCapturing(l->stream, &cs) == CUDA_SUCCESS &&
	    cs != CU_STREAM_CAPTURE_STATUS_NONE) {
		ks_buf_adds(why, "launched into a CUDA graph being captured");
		goto fail;
	}
	c->kernel = ks_xstrdup(name);
	c->demangled = demangle(name);
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
	find_globals(c, l->f, is_kernel);
	for (i = 0; i < c->nbuffers; i++)
		total += c->buffers[i].size;
	if (total > g.policy.max_bytes) {
		ks_buf_addf(why, "its buffers hold %llu bytes, over the limit of %llu "
				 "(--max-bytes)", total, g.policy.max_bytes);
		goto fail;
	}
	/* The before-state is what the kernel will see: let earlier work end. */
	r = cuCtxSynchronize();
	if (r != CUDA_SUCCESS) {
		ks_buf_addf(why, "synchronizing before the launch: %s", cu_error(r));
		goto fail;
	}
	pd->in = snapshot(c, why);
	if (!pd->in)
		goto fail;
	return pd;
fail:
	pending_free(pd);
	return NULL;
}

/* Write <dir>/<kernel>/<n>/: files into a temporary directory, renamed to
 * the first free number. */
static int
write_capture(struct pending *pd, unsigned char **out, char **where,
	      struct ks_buf *err)
{
	struct ks_capture *c = &pd->cap;
	char *kdir = ks_capture_kernel_dir(c->kernel), *parent, *tmp, *path;
	unsigned long n;
	size_t i;
	int rc = -1;

	parent = ks_fs_join(g.dir, kdir);
	pthread_mutex_lock(&g.lock);
	tmp = ks_xasprintf("%s/.tmp-%ld-%lu", parent, (long)getpid(), ++g.seq);
	pthread_mutex_unlock(&g.lock);
	if (ks_fs_mkdirs(tmp, err))
		goto out;
	for (i = 0; i < 2 * c->nbuffers; i++) {
		int is_out = (int)(i & 1);
		const unsigned char *data = is_out ? out[i / 2] : pd->in[i / 2];
		int bad;

		path = ks_capture_buffer_path(tmp, i / 2, is_out);
		bad = ks_fs_write_atomic(path, data, c->buffers[i / 2].size, err);
		free(path);
		if (bad)
			goto out;
	}
	/* launch.json last: a directory without it is unfinished. */
	if (ks_capture_save(tmp, c, err))
		goto out;
	for (n = 1; n < 100000; n++) {
		path = ks_xasprintf("%s/%lu", parent, n);
		if (!rename(tmp, path)) {
			*where = path;
			rc = 0;
			break;
		}
		free(path);
		if (errno != EEXIST && errno != ENOTEMPTY) {
			ks_error_errno(err, "cannot rename '%s'", tmp);
			break;
		}
	}
out:
	if (rc)
		ks_fs_remove_tree(tmp, NULL);
	free(tmp);
	free(parent);
	free(kdir);
	return rc;
}

static void
on_enter(CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
	struct ks_buf why = KS_BUF_INIT;
	struct launch l;
	const char *name;
	char *dem = NULL;
	unsigned long ordinal;
	int is_kernel, want;
	struct pending *pd;

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
	pthread_mutex_lock(&g.lock);
	ordinal = count_launch(name);
	want = ordinal && !g.disabled &&
	       ks_capture_policy_wants(&g.policy, ordinal, g.captured);
	if (want)
		g.captured++;	/* reserved; given back if the capture fails */
	pthread_mutex_unlock(&g.lock);
	if (!want)
		return;
	pd = begin(&l, name, is_kernel, ordinal, &why);
	if (!pd) {
		report("skipped %s launch %lu: %s", name, ordinal, why.buf);
		pthread_mutex_lock(&g.lock);
		g.captured--;
		pthread_mutex_unlock(&g.lock);
	}
	*cb->correlationData = (uint64_t)(uintptr_t)pd;
	ks_buf_release(&why);
}

static void
on_exit_(const CUpti_CallbackData *cb)
{
	struct pending *pd = (struct pending *)(uintptr_t)*cb->correlationData;
	struct ks_buf why = KS_BUF_INIT;
	unsigned char **out = NULL;
	char *where = NULL;
	CUresult r;
	size_t i;

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
	r = cuCtxSynchronize();
	if (r != CUDA_SUCCESS) {
		ks_buf_addf(&why, "kernel %s failed: %s", pd->cap.kernel, cu_error(r));
		disable(why.buf);
		goto out;
	}
	out = snapshot(&pd->cap, &why);
	if (!out) {
		report("skipped %s launch %lu: %s", pd->cap.kernel, pd->cap.launch,
		       why.buf);
		goto out;
	}
	for (i = 0; i < pd->cap.nbuffers; i++)
		pd->cap.buffers[i].written =
			memcmp(pd->in[i], out[i], pd->cap.buffers[i].size) != 0;
	device_info(&pd->cap);
	pd->cap.time = now_iso();
	pd->cap.program = program_name();
	if (write_capture(pd, out, &where, &why)) {
		ks_buf_addf(&why, " (writing under %s)", g.dir);
		disable(why.buf);
		goto out;
	}
	report("captured %s", where);
out:
	if (out) {
		for (i = 0; i < pd->cap.nbuffers; i++)
			free(out[i]);
		free(out);
	}
	if (!where) {
		/* Not captured after all: give the reserved count back. */
		pthread_mutex_lock(&g.lock);
		g.captured--;
		pthread_mutex_unlock(&g.lock);
	}
	free(where);
	pending_free(pd);
	ks_buf_release(&why);
}

static void CUPTIAPI
on_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
	    const void *data)
{
	const CUpti_CallbackData *cb = data;

	(void)userdata;
	if (domain != CUPTI_CB_DOMAIN_DRIVER_API || in_callback)
		return;
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
	g.policy.launch = 1;
	g.policy.max_launches = 16;
	g.policy.max_bytes = 1ull << 30;
	if (launch && *launch &&
	    ks_capture_parse_launch(launch, &g.policy.launch, err))
		return -1;
	if (bytes && *bytes && ks_capture_parse_bytes(bytes, &g.policy.max_bytes, err))
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
