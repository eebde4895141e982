/*
 * ks doctor: what this machine has, and which features that allows.
 * Every probe is read-only and bounded; libraries are dlopen'ed so that a
 * missing one is a line in the report, not a failure to start.
 */
#include <cjson/cJSON.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../nvcc/nvccver.h"
#include "../nvcc/passthru.h"
#include "../analysis/libclang.h"
#include "../core/buf.h"
#include "../core/conf.h"
#include "../core/fs.h"
#include "../core/toolkit.h"
#include "../core/util.h"
#include "ks.h"

struct probe {
	int ok;
	struct ks_buf what;
};

static void
line(const char *name, const struct probe *p)
{
	printf("%-18s %-8s %s\n", name, p->ok ? "ok" : "missing", p->what.buf);
}

static void
probe_nvcc(struct ks_conf *conf, struct probe *p, char **toolkit)
{
	struct ks_buf err = KS_BUF_INIT, ver = KS_BUF_INIT;
	char *self = ks_passthru_self();
	char *nvcc = ks_passthru_find(conf->nvcc, self, &err);
	char *real;

	*toolkit = NULL;
	if (!nvcc) {
		ks_buf_adds(&p->what, err.buf);
		goto out;
	}
	if (ks_nvccver_get(NULL, nvcc, &ver, &err)) {
		ks_buf_addf(&p->what, "%s: %s", nvcc, err.buf);
		goto out;
	}
	p->ok = 1;
	ks_buf_addf(&p->what, "%s (%s)", nvcc, ver.buf);
	real = ks_fs_realpath(nvcc);
	if (real) {
		/* <toolkit>/bin/nvcc */
		char *slash = strrchr(real, '/');
		if (slash)
			*slash = '\0';
		slash = strrchr(real, '/');
		if (slash)
			*slash = '\0';
		*toolkit = real;
	}
out:
	free(nvcc);
	free(self);
	ks_buf_release(&err);
	ks_buf_release(&ver);
}

static void
probe_file(struct probe *p, const char *toolkit, const char *const *rel,
	   size_t n)
{
	size_t i;

	for (i = 0; toolkit && i < n; i++) {
		char *path = ks_fs_join(toolkit, rel[i]);
		int ok = ks_fs_exists(path);

		if (ok) {
			p->ok = 1;
			ks_buf_adds(&p->what, path);
			free(path);
			return;
		}
		free(path);
	}
	ks_buf_adds(&p->what, toolkit ? "not found in the toolkit" : "no toolkit");
}

static void
probe_libclang(struct probe *p)
{
	struct ks_buf err = KS_BUF_INIT;

	/* The loader analysis uses, so that doctor reports what ks analyze
	 * will get (search order, KS_LIBCLANG, required functions). */
	if (ks_libclang_load(&err) == 0) {
		p->ok = 1;
		ks_buf_addf(&p->what, "%s (%s)", ks_libclang_path(),
			    ks_libclang_version());
	} else {
		ks_buf_adds(&p->what, err.buf);
	}
	ks_buf_release(&err);
}

static void
probe_gpu(struct probe *p, int *have_gpu)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	int (*init)(unsigned), (*count)(int *), (*drv)(int *);
	int (*get)(int *, int), (*name)(char *, int, int), (*attr)(int *, int, int);
	int n = 0, v = 0, i, rc;

	*have_gpu = 0;
	if (!h) {
		ks_buf_adds(&p->what, "no CUDA driver (libcuda.so.1 not found)");
		return;
	}
	*(void **)&init = dlsym(h, "cuInit");
	*(void **)&count = dlsym(h, "cuDeviceGetCount");
	*(void **)&drv = dlsym(h, "cuDriverGetVersion");
	*(void **)&get = dlsym(h, "cuDeviceGet");
	*(void **)&name = dlsym(h, "cuDeviceGetName");
	*(void **)&attr = dlsym(h, "cuDeviceGetAttribute");
	if (!init || !count || !drv || !get || !name || !attr) {
		ks_buf_adds(&p->what, "libcuda.so.1 lacks the driver API");
		return;
	}
	rc = init(0);
	if (rc) {
		ks_buf_addf(&p->what, "cuInit failed (CUresult %d): no usable GPU", rc);
		return;
	}
	drv(&v);
	count(&n);
	ks_buf_addf(&p->what, "driver API %d.%d, %d device(s)", v / 1000,
		    (v % 1000) / 10, n);
	for (i = 0; i < n; i++) {
		int dev = 0, major = 0, minor = 0;
		char nm[256] = "";

		get(&dev, i);
		name(nm, sizeof(nm), dev);
		/* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR/MINOR = 75/76 */
		attr(&major, 75, dev);
		attr(&minor, 76, dev);
		ks_buf_addf(&p->what, "; %d: %s sm_%d%d", i, nm, major, minor);
	}
	p->ok = n > 0;
	*have_gpu = n > 0;
}

static void
probe_counters(struct probe *p, int have_gpu)
{
	struct ks_buf params = KS_BUF_INIT;
	const char *s;

	params.max = 1 << 16;
	if (!have_gpu) {
		ks_buf_adds(&p->what, "no GPU");
	} else if (geteuid() == 0) {
		p->ok = 1;
		ks_buf_adds(&p->what, "running as root");
	} else if (ks_fs_read("/proc/driver/nvidia/params", &params, NULL) == 0 &&
		   (s = strstr(params.buf, "RmProfilingAdminOnly: ")) != NULL) {
		p->ok = s[22] == '0';
		ks_buf_adds(&p->what, p->ok ? "open to all users"
					    : "admin only (NVreg_RestrictProfilingToAdminUsers=1)");
	} else {
		ks_buf_adds(&p->what, "unknown (no /proc/driver/nvidia/params)");
	}
	ks_buf_release(&params);
}

/* A toolkit program as every command finds it (core/toolkit.h). */
static void
probe_tool(struct probe *p, const char *tool, const char *setting,
	   const char *toolkit)
{
	char *nvcc = toolkit ? ks_xasprintf("%s/bin/nvcc", toolkit) : NULL;
	char *cand = ks_toolkit_program(tool, setting, nvcc);

	free(nvcc);
	if (cand) {
		p->ok = 1;
		ks_buf_adds(&p->what, cand);
		free(cand);
		return;
	}
	ks_buf_adds(&p->what, setting ? "none (set empty)" : "not found");
}

int
ks_cmd_doctor(int argc, char **argv, struct ks_conf *conf)
{
	static const char *const cupti_lib[] = {
		"lib64/libcupti.so", "extras/CUPTI/lib64/libcupti.so",
		"targets/x86_64-linux/lib/libcupti.so",
	};
	static const char *const cupti_h[] = {
		"include/cupti.h", "extras/CUPTI/include/cupti.h",
		"targets/x86_64-linux/include/cupti.h",
	};
	struct probe nvcc = { 0, KS_BUF_INIT }, cupti = { 0, KS_BUF_INIT },
		     cuptih = { 0, KS_BUF_INIT }, clang = { 0, KS_BUF_INIT },
		     gpu = { 0, KS_BUF_INIT }, counters = { 0, KS_BUF_INIT },
		     ncu = { 0, KS_BUF_INIT }, san = { 0, KS_BUF_INIT },
		     cuobjdump = { 0, KS_BUF_INIT },
		     cjson = { 1, KS_BUF_INIT }, dir = { 0, KS_BUF_INIT };
	struct ks_buf err = KS_BUF_INIT;
	char *toolkit = NULL;
	int have_gpu;

	(void)argv;
	if (argc > 1) {
		fprintf(stderr, "usage: ks doctor\n");
		return KS_EXIT_USAGE;
	}
	probe_nvcc(conf, &nvcc, &toolkit);
	probe_file(&cupti, toolkit, cupti_lib, KS_ARRAY_SIZE(cupti_lib));
	probe_file(&cuptih, toolkit, cupti_h, KS_ARRAY_SIZE(cupti_h));
	probe_libclang(&clang);
	probe_gpu(&gpu, &have_gpu);
	probe_counters(&counters, have_gpu);
	probe_tool(&ncu, "ncu", NULL, toolkit);
	probe_tool(&san, "compute-sanitizer", NULL, toolkit);
	probe_tool(&cuobjdump, "cuobjdump",
		   ks_conf_path_setting(conf, KS_CONF_CUOBJDUMP), toolkit);
	ks_buf_adds(&cjson.what, cJSON_Version());
	if (ks_fs_mkdirs(conf->dir, &err) == 0 && access(conf->dir, W_OK) == 0) {
		dir.ok = 1;
		ks_buf_addf(&dir.what, "%s (writable)", conf->dir);
	} else {
		ks_buf_addf(&dir.what, "%s: %s", conf->dir,
			    err.len ? err.buf : "not writable");
	}

	line("nvcc", &nvcc);
	printf("%-18s %-8s %s\n", "toolkit", toolkit ? "ok" : "missing",
	       toolkit ? toolkit : "unknown (no nvcc)");
	line("cupti library", &cupti);
	line("cupti headers", &cuptih);
	line("libclang", &clang);
	line("gpu", &gpu);
	line("counter access", &counters);
	line("ncu", &ncu);
	line("compute-sanitizer", &san);
	line("cuobjdump", &cuobjdump);
	line("cjson", &cjson);
	line("state dir", &dir);

	printf("\nfeatures:\n");
	printf("  %-34s %s\n", "build through ks-nvcc (record)",
	       nvcc.ok ? (dir.ok ? "ready" : "passes through only: state dir not writable")
		       : "needs nvcc");
	printf("  %-34s %s\n", "ks analyze (kernel inventory)",
	       clang.ok ? "ready" : "needs libclang 16-19");
	printf("  %-34s %s\n", "ks capture, ks optimize",
	       have_gpu && cupti.ok ? "ready" : "needs a GPU, its driver and CUPTI");
	printf("  %-34s %s\n", "metrics (CUPTI range profiler)",
	       have_gpu && counters.ok ? "ready"
		       : ncu.ok && have_gpu ? "ncu fallback" : "timing only");
	printf("  %-34s %s\n", "LLM agents",
	       getenv("KS_LLM_URL") ? "endpoint configured"
				    : "rules-only (no KS_LLM_URL)");

	free(toolkit);
	ks_buf_release(&err);
	ks_buf_release(&nvcc.what);
	ks_buf_release(&cupti.what);
	ks_buf_release(&cuptih.what);
	ks_buf_release(&clang.what);
	ks_buf_release(&gpu.what);
	ks_buf_release(&counters.what);
	ks_buf_release(&ncu.what);
	ks_buf_release(&san.what);
	ks_buf_release(&cuobjdump.what);
	ks_buf_release(&cjson.what);
	ks_buf_release(&dir.what);
	return nvcc.ok ? 0 : KS_EXIT_FAILED;
}
