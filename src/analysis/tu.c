/*
 * Parsing a CUDA translation unit with libclang, the way the build sees it.
 */
#include "tu.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../core/buf.h"
#include "../core/fs.h"
#include "../core/hash.h"
#include "../core/log.h"
#include "../core/strv.h"
#include "../core/util.h"
#include "libclang.h"

/* Bump when the stub, the prelude or the PCH recipe changes. */
#define TU_STATE_VERSION 1
/* Prelude PCHs kept (about 7 MB each); the oldest go first. */
#define TU_MAX_PCH 8

/*
 * Without a toolkit: enough of CUDA for self-contained kernels, so that
 * the analysis (and its tests) runs on machines without CUDA. clang's own
 * __clang_cuda_builtin_vars.h provides threadIdx and friends.
 */
static const char prelude_text[] =
	"/* ks: minimal CUDA prelude for parsing without a toolkit */\n"
	"#pragma once\n"
	"#define __host__ __attribute__((host))\n"
	"#define __device__ __attribute__((device))\n"
	"#define __global__ __attribute__((global))\n"
	"#define __shared__ __attribute__((shared))\n"
	"#define __constant__ __attribute__((constant))\n"
	"#define __managed__ __attribute__((managed))\n"
	"#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))\n"
	"#define __forceinline__ __inline__ __attribute__((always_inline))\n"
	"#define __noinline__ __attribute__((noinline))\n"
	"#define __restrict__ __restrict\n"
	"#include <__clang_cuda_builtin_vars.h>\n"
	"typedef __SIZE_TYPE__ size_t;\n"
	"struct dim3 {\n"
	"  unsigned x, y, z;\n"
	"  __host__ __device__ constexpr dim3(unsigned vx = 1, unsigned vy = 1,\n"
	"                                    unsigned vz = 1) : x(vx), y(vy), z(vz) {}\n"
	"};\n"
	"typedef struct CUstream_st *cudaStream_t;\n"
	"typedef int cudaError_t;\n"
	"extern \"C\" unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim,\n"
	"    size_t sharedMem = 0, void *stream = 0);\n"
	"#define KS_VEC(t, n, a) struct __attribute__((aligned(a))) t##n\n"
	"KS_VEC(float, 2, 8) { float x, y; }; KS_VEC(float, 4, 16) { float x, y, z, w; };\n"
	"KS_VEC(int, 2, 8) { int x, y; }; KS_VEC(int, 4, 16) { int x, y, z, w; };\n"
	"KS_VEC(double, 2, 16) { double x, y; };\n"
	"#undef KS_VEC\n"
	"__device__ void __syncthreads(void);\n"
	"__device__ void __syncwarp(unsigned mask = 0xffffffffu);\n"
	"__device__ float atomicAdd(float *, float);\n"
	"__device__ double atomicAdd(double *, double);\n"
	"__device__ int atomicAdd(int *, int);\n"
	"__device__ unsigned atomicAdd(unsigned *, unsigned);\n"
	"__device__ int atomicMax(int *, int);\n"
	"__device__ int atomicMin(int *, int);\n"
	"__device__ int atomicCAS(int *, int, int);\n"
	"__device__ float __shfl_down_sync(unsigned, float, unsigned, int w = 32);\n"
	"__device__ float __shfl_xor_sync(unsigned, float, int, int w = 32);\n"
	"__device__ float __shfl_sync(unsigned, float, int, int w = 32);\n"
	"__device__ unsigned __ballot_sync(unsigned, int);\n"
	"__device__ float __ldg(const float *);\n"
	"__device__ float __expf(float);\n"
	"#define KS_MATH(f) __host__ __device__ float f##f(float); \\\n"
	"                   __host__ __device__ double f(double);\n"
	"KS_MATH(exp) KS_MATH(log) KS_MATH(sin) KS_MATH(cos) KS_MATH(tanh)\n"
	"KS_MATH(sqrt) KS_MATH(rsqrt) KS_MATH(fabs) KS_MATH(floor) KS_MATH(erf)\n"
	"#undef KS_MATH\n"
	"__host__ __device__ float powf(float, float);\n"
	"__host__ __device__ double pow(double, double);\n"
	"__host__ __device__ float fmaf(float, float, float);\n"
	"__host__ __device__ float fminf(float, float);\n"
	"__host__ __device__ float fmaxf(float, float);\n"
	"__host__ __device__ inline int min(int a, int b) { return a < b ? a : b; }\n"
	"__host__ __device__ inline int max(int a, int b) { return a > b ? a : b; }\n"
	"extern \"C\" cudaError_t cudaMalloc(void **, size_t);\n"
	"extern \"C\" cudaError_t cudaFree(void *);\n"
	"extern \"C\" cudaError_t cudaDeviceSynchronize(void);\n"
	"extern \"C\" cudaError_t cudaMemcpy(void *, const void *, size_t, int);\n"
	"extern \"C\" cudaError_t cudaMemcpyAsync(void *, const void *, size_t, int,\n"
	"    cudaStream_t s = 0);\n";

const char *
ks_tu_clang_arch(const char *target, char *buf, size_t size)
{
	const char *digits;
	int n;

	if (!target || !*target)
		return NULL;
	if (ks_starts_with(target, "sm_"))
		digits = target + 3;
	else if (ks_starts_with(target, "compute_"))
		digits = target + 8;
	else if (ks_starts_with(target, "lto_"))
		digits = target + 4;
	else
		return NULL;
	n = atoi(digits);
	if (n < 20)
		return NULL;
	/* libclang 19 stops at sm_90a; sm_100 and later parse as sm_90. */
	if (n > 90) {
		snprintf(buf, size, "sm_90");
		return buf;
	}
	snprintf(buf, size, "sm_%s", digits);
	/* sm_90f (family) has no clang name: the plain arch parses alike. */
	if (ks_ends_with(buf, "f"))
		buf[strlen(buf) - 1] = '\0';
	return buf;
}

static char *
absolute(const char *cwd, const char *p)
{
	if (p[0] == '/' || !cwd)
		return ks_xstrdup(p);
	return ks_fs_join(cwd, p);
}

void
ks_tu_args(const struct ks_tu_opts *o, const char *stub_dir,
	   const char *prelude, struct ks_strv *out)
{
	char archbuf[32];
	const char *arch = ks_tu_clang_arch(o->arch ? o->arch : "sm_75", archbuf,
					    sizeof(archbuf));
	size_t i;

	ks_strv_push(out, "-x");
	ks_strv_push(out, "cuda");
	/* The device side: __CUDA_ARCH__ defined, as kernels are compiled. */
	ks_strv_push(out, "--cuda-device-only");
	ks_strv_push_owned(out, ks_xasprintf("--cuda-gpu-arch=%s",
					     arch ? arch : "sm_75"));
	if (o->toolkit) {
		ks_strv_push_owned(out, ks_xasprintf("--cuda-path=%s", o->toolkit));
		/* nvcc adds CCCL to the include path itself; clang does not. */
		ks_strv_push(out, "-isystem");
		ks_strv_push_owned(out, ks_xasprintf("%s/include/cccl", o->toolkit));
	} else {
		ks_strv_push(out, "-nocudainc");
		ks_strv_push(out, "-nocudalib");
		ks_strv_push(out, "-include");
		ks_strv_push(out, prelude);
	}
	ks_strv_push(out, "-Wno-unknown-cuda-version");
	/* Errors are all that matter; warnings cost time. */
	ks_strv_push(out, "-w");
	ks_strv_push(out, "-isystem");
	ks_strv_push(out, stub_dir);
	ks_strv_push_owned(out, ks_xasprintf("-std=%s", o->std && *o->std ? o->std
									   : "c++17"));
	for (i = 0; o->includes && i < o->includes->n; i++) {
		const char *s = o->includes->v[i];
		static const char *const opts[] = { "-isystem", "-include", "-I" };
		size_t k;

		for (k = 0; k < KS_ARRAY_SIZE(opts); k++) {
			if (ks_starts_with(s, opts[k]) && s[strlen(opts[k])]) {
				char *p = absolute(o->cwd, s + strlen(opts[k]));

				ks_strv_push(out, opts[k]);
				ks_strv_push_owned(out, p);
				break;
			}
		}
	}
	for (i = 0; o->defines && i < o->defines->n; i++)
		ks_strv_push(out, o->defines->v[i]);
}

/* <state>/clang/, with the stub header (and the prelude) in it. */
static int
prepare_state(const char *state_dir, int want_prelude, char **dir,
	      char **prelude, struct ks_buf *err)
{
	char *stub;
	int rc = 0;

	*dir = ks_xasprintf("%s/clang/v%d", state_dir, TU_STATE_VERSION);
	*prelude = ks_xasprintf("%s/ks_cuda_prelude.h", *dir);
	stub = ks_xasprintf("%s/texture_fetch_functions.h", *dir);
	/* CUDA 13 removed texture_fetch_functions.h; clang's CUDA wrapper
	 * (19 and before) still includes it. An empty one is enough. */
	if (!ks_fs_exists(stub))
		rc = ks_fs_write_atomic(stub, "", 0, err);
	if (!rc && want_prelude && !ks_fs_exists(*prelude))
		rc = ks_fs_write_atomic(*prelude, prelude_text,
					sizeof(prelude_text) - 1, err);
	free(stub);
	return rc;
}

static void
argv_of(const struct ks_strv *args, const char **argv)
{
	size_t i;

	for (i = 0; i < args->n; i++)
		argv[i] = args->v[i];
}

/* Collect the first error diagnostics; returns how many errors. */
static int
errors_of(CXTranslationUnit tu, struct ks_buf *msg)
{
	unsigned i, n = ks_cx.getNumDiagnostics(tu);
	int nerr = 0;

	for (i = 0; i < n; i++) {
		CXDiagnostic d = ks_cx.getDiagnostic(tu, i);
		enum CXDiagnosticSeverity sev = ks_cx.getDiagnosticSeverity(d);

		if (sev >= CXDiagnostic_Error) {
			if (nerr < 3) {
				CXFile file;
				unsigned line, col;
				char *text = ks_cx_str(ks_cx.getDiagnosticSpelling(d));
				char *name;

				ks_cx.getSpellingLocation(ks_cx.getDiagnosticLocation(d),
							  &file, &line, &col, NULL);
				name = file ? ks_cx_str(ks_cx.getFileName(file))
					    : ks_xstrdup("<command line>");
				ks_buf_addf(msg, "%s%s:%u:%u: %s", nerr ? "; " : "",
					    name, line, col, text);
				free(name);
				free(text);
			}
			nerr++;
		}
		ks_cx.disposeDiagnostic(d);
	}
	return nerr;
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The PCH file for these arguments (without -include-pch). */
static char *
pch_path(const char *dir, const struct ks_strv *args, const char *toolkit)
{
	struct ks_hash h = KS_HASH_INIT;
	char *hdr = ks_xasprintf("%s/include/cuda_runtime.h", toolkit);
	struct stat st;
	char hex[17];
	size_t i;

	ks_hash_init(&h);
	ks_hash_str(&h, "ks-pch");
	ks_hash_str(&h, ks_libclang_path());
	ks_hash_str(&h, ks_libclang_version());
	/* A toolkit updated in place gets a new PCH. */
	if (stat(hdr, &st) == 0) {
		ks_hash_u64(&h, (uint64_t)st.st_mtime);
		ks_hash_u64(&h, (uint64_t)st.st_size);
	}
	for (i = 0; i < args->n; i++)
		ks_hash_str(&h, args->v[i]);
	ks_hash_hex64(&h, hex);
	ks_hash_release(&h);
	free(hdr);
	return ks_xasprintf("%s/prelude-%s.pch", dir, hex);
}

/* Remove the oldest PCHs beyond TU_MAX_PCH. */
static void
prune_pch(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	for (;;) {
		char *oldest = NULL;
		time_t t = 0;
		int n = 0;

		if (!d)
			return;
		rewinddir(d);
		while ((de = readdir(d))) {
			char *p;
			struct stat st;

			if (!ks_ends_with(de->d_name, ".pch"))
				continue;
			p = ks_fs_join(dir, de->d_name);
			n++;
			if (stat(p, &st) == 0 && (!oldest || st.st_mtime < t)) {
				free(oldest);
				oldest = p;
				t = st.st_mtime;
			} else {
				free(p);
			}
		}
		if (n <= TU_MAX_PCH || !oldest) {
			free(oldest);
			break;
		}
		unlink(oldest);
		free(oldest);
	}
	closedir(d);
}

/* Build the prelude PCH for `args`; failures only cost speed. */
static void
build_pch(CXIndex index, const char *dir, const struct ks_strv *args,
	  const char *pch)
{
	char *empty = ks_xasprintf("%s/empty.cu", dir);
	char *tmp = ks_xasprintf("%s.tmp.%ld", pch, (long)getpid());
	const char **argv = ks_xcalloc(args->n + 1, sizeof(*argv));
	struct ks_buf err = KS_BUF_INIT;
	CXTranslationUnit tu = NULL;
	enum CXErrorCode ec;

	if (!ks_fs_exists(empty) && ks_fs_write_atomic(empty, "", 0, &err))
		goto out;
	argv_of(args, argv);
	ec = ks_cx.parseTranslationUnit2(index, empty, argv, (int)args->n, NULL, 0,
					 CXTranslationUnit_ForSerialization |
						 CXTranslationUnit_Incomplete,
					 &tu);
	if (ec != CXError_Success || !tu || errors_of(tu, &err)) {
		ks_log("analysis: no prelude PCH: %s", err.len ? err.buf : "parse failed");
		goto out;
	}
	if (ks_cx.saveTranslationUnit(tu, tmp, CXSaveTranslationUnit_None) ==
		    CXSaveError_None &&
	    rename(tmp, pch) == 0) {
		ks_log("analysis: prelude PCH %s", pch);
		prune_pch(dir);
	}
out:
	unlink(tmp);
	if (tu)
		ks_cx.disposeTranslationUnit(tu);
	ks_buf_release(&err);
	free(argv);
	free(tmp);
	free(empty);
}

static int
parse(CXIndex index, const char *source, const struct ks_strv *args,
      CXTranslationUnit *tu, struct ks_buf *errors)
{
	const char **argv = ks_xcalloc(args->n + 1, sizeof(*argv));
	enum CXErrorCode ec;
	int rc = 0;

	argv_of(args, argv);
	*tu = NULL;
	ec = ks_cx.parseTranslationUnit2(index, source, argv, (int)args->n, NULL, 0,
					 CXTranslationUnit_DetailedPreprocessingRecord,
					 tu);
	if (ec != CXError_Success || !*tu) {
		ks_buf_addf(errors, "libclang could not parse it (error %d)", (int)ec);
		rc = -1;
	} else if (errors_of(*tu, errors)) {
		rc = -1;
	}
	free(argv);
	return rc;
}

int
ks_tu_parse(const struct ks_tu_opts *o, struct ks_tu *t, struct ks_buf *err)
{
	struct ks_strv args = KS_STRV_INIT;
	struct ks_buf errors = KS_BUF_INIT;
	char *dir = NULL, *prelude = NULL, *pch = NULL;
	double start = now();
	int rc = -1;

	memset(t, 0, sizeof(*t));
	if (ks_libclang_load(err))
		return -1;
	t->source = ks_fs_realpath(o->source);
	if (!t->source) {
		char *p = absolute(o->cwd, o->source);

		t->source = ks_fs_realpath(p);
		free(p);
	}
	if (!t->source)
		return ks_error_errno(err, "cannot read '%s'", o->source);
	t->prelude = o->toolkit == NULL;
	if (prepare_state(o->state_dir, t->prelude, &dir, &prelude, err))
		goto out;
	ks_tu_args(o, dir, prelude, &args);
	t->index = ks_cx.createIndex(0, 0);
	if (o->toolkit && !o->no_pch) {
		pch = pch_path(dir, &args, o->toolkit);
		if (!ks_fs_exists(pch))
			build_pch(t->index, dir, &args, pch);
		if (ks_fs_exists(pch)) {
			ks_strv_push(&args, "-include-pch");
			ks_strv_push(&args, pch);
			t->used_pch = 1;
		}
	}
	if (parse(t->index, t->source, &args, &t->tu, &errors) && t->used_pch) {
		/* A stale or foreign PCH must never cost a correct answer:
		 * drop it and parse plainly. */
		ks_log("analysis: parse with PCH failed (%s); retrying without",
		       errors.buf);
		unlink(pch);
		if (t->tu)
			ks_cx.disposeTranslationUnit(t->tu);
		ks_buf_reset(&errors);
		args.n -= 2;
		free(args.v[args.n]);
		free(args.v[args.n + 1]);
		args.v[args.n] = NULL;
		t->used_pch = 0;
		parse(t->index, t->source, &args, &t->tu, &errors);
	}
	if (errors.len) {
		ks_error(err, "%s does not parse as CUDA with %s%s: %s", t->source,
			 ks_libclang_path(),
			 t->prelude ? " (no CUDA toolkit: minimal prelude)" : "",
			 errors.buf);
		goto out;
	}
	t->seconds = now() - start;
	ks_log("analysis: parsed %s in %.3f s%s", t->source, t->seconds,
	       t->used_pch ? " (prelude PCH)" : "");
	rc = 0;
out:
	if (rc)
		ks_tu_release(t);
	ks_strv_release(&args);
	ks_buf_release(&errors);
	free(dir);
	free(prelude);
	free(pch);
	return rc;
}

void
ks_tu_release(struct ks_tu *t)
{
	if (t->tu)
		ks_cx.disposeTranslationUnit(t->tu);
	if (t->index)
		ks_cx.disposeIndex(t->index);
	free(t->source);
	memset(t, 0, sizeof(*t));
}

/* ---- helpers shared with walk.c and closure.c ---------------------------- */

char *
ks_cx_str(CXString s)
{
	const char *c = ks_cx.getCString(s);
	char *r = ks_xstrdup(c ? c : "");

	ks_cx.disposeString(s);
	return r;
}

unsigned
ks_cx_line(CXCursor c)
{
	unsigned line = 0;

	ks_cx.getExpansionLocation(ks_cx.getCursorLocation(c), NULL, &line, NULL,
				   NULL);
	return line;
}

void
ks_cx_extent(CXSourceRange r, struct ks_extent *out)
{
	CXFile f1 = NULL, f2 = NULL;
	unsigned l1 = 0, c1 = 0, o1 = 0, l2 = 0, c2 = 0, o2 = 0;

	ks_cx.getExpansionLocation(ks_cx.getRangeStart(r), &f1, &l1, &c1, &o1);
	ks_cx.getExpansionLocation(ks_cx.getRangeEnd(r), &f2, &l2, &c2, &o2);
	free(out->file);
	out->file = f1 ? ks_cx_str(ks_cx.getFileName(f1)) : ks_xstrdup("");
	if (out->file[0] && out->file[0] != '/') {
		char *abs = ks_fs_realpath(out->file);

		if (abs) {
			free(out->file);
			out->file = abs;
		}
	}
	out->begin = o1;
	out->end = o2 >= o1 ? o2 : o1;
	out->line = l1;
	out->col = c1;
	/* The range end is one past the last character. */
	out->end_line = l2;
	out->end_col = c2 > 1 ? c2 - 1 : c2;
}

int
ks_cx_is_system(CXCursor c)
{
	return ks_cx.Location_isInSystemHeader(ks_cx.getCursorLocation(c));
}

const char *
ks_cx_file_text(CXTranslationUnit tu, CXFile file, size_t *size)
{
	size_t n = 0;
	const char *s = file ? ks_cx.getFileContents(tu, file, &n) : NULL;

	if (size)
		*size = n;
	return s;
}
