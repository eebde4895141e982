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
#include "../nvcc/arch.h"
#include "libclang.h"

/* The most bytes of a TU's own source read to find its leading includes. */
#define KS_TU_SOURCE_MAX (1u << 26)

/* Bump when the stub, the prelude or the PCH recipe changes. */
#define TU_STATE_VERSION 15
/* PCHs kept (7 MB for the prelude alone, 40 MB with cub and thrust);
 * the oldest go first. */
#define TU_MAX_PCH 8

/* The end of the prelude and of the extras: both come after clang's
 * CUDA wrapper, which defines __CUDACC__ empty after the command line;
 * nvcc defines it 1, so the value ks passed as __KS_CUDACC__ returns. */
#define KS_CUDACC_RESTORE \
	"#ifdef __KS_CUDACC__\n" \
	"#undef __CUDACC__\n" \
	"#define __CUDACC__ __KS_CUDACC__\n" \
	"#endif\n"

/*
 * What nvcc's headers give host code and clang's CUDA wrapper gives only
 * to device code: the integer and mixed min/max of math_functions.hpp
 * (the wrapper includes it with __host__ defined away), as host
 * overloads beside clang's device ones; and nvcc's __nv_atomic_* builtins
 * with their order and scope constants, declared for the analysis (the
 * walk reads calls, it never compiles them).
 */
#define KS_NVCC_BOTH_SIDES \
	"#define KS_MM(R, A, B) \\\n" \
	"  static inline __host__ R min(A a, B b) \\\n" \
	"  { return (R)a < (R)b ? (R)a : (R)b; } \\\n" \
	"  static inline __host__ R max(A a, B b) \\\n" \
	"  { return (R)a > (R)b ? (R)a : (R)b; }\n" \
	"#define KS_U unsigned\n" \
	"KS_MM(int, int, int) KS_MM(KS_U, KS_U, KS_U)\n" \
	"KS_MM(KS_U, int, KS_U) KS_MM(KS_U, KS_U, int)\n" \
	"KS_MM(long, long, long) KS_MM(KS_U long, KS_U long, KS_U long)\n" \
	"KS_MM(KS_U long, long, KS_U long) KS_MM(KS_U long, KS_U long, long)\n" \
	"KS_MM(long long, long long, long long)\n" \
	"KS_MM(KS_U long long, KS_U long long, KS_U long long)\n" \
	"KS_MM(KS_U long long, long long, KS_U long long)\n" \
	"KS_MM(KS_U long long, KS_U long long, long long)\n" \
	"KS_MM(float, float, float) KS_MM(double, double, double)\n" \
	"KS_MM(double, float, double) KS_MM(double, double, float)\n" \
	"#undef KS_U\n" \
	"#undef KS_MM\n" \
	"enum { __NV_ATOMIC_RELAXED, __NV_ATOMIC_CONSUME, " \
	"__NV_ATOMIC_ACQUIRE, __NV_ATOMIC_RELEASE, __NV_ATOMIC_ACQ_REL, " \
	"__NV_ATOMIC_SEQ_CST };\n" \
	"enum { __NV_THREAD_SCOPE_THREAD, __NV_THREAD_SCOPE_BLOCK, " \
	"__NV_THREAD_SCOPE_CLUSTER, __NV_THREAD_SCOPE_DEVICE, " \
	"__NV_THREAD_SCOPE_SYSTEM };\n" \
	"#define KS_NVA(op) template <class T, class U> __device__ T " \
	"__nv_atomic_##op(T *, U, int, int = __NV_THREAD_SCOPE_SYSTEM);\n" \
	"KS_NVA(fetch_add) KS_NVA(fetch_sub) KS_NVA(fetch_min) " \
	"KS_NVA(fetch_max) KS_NVA(fetch_and) KS_NVA(fetch_or) " \
	"KS_NVA(fetch_xor) KS_NVA(exchange_n)\n" \
	"#undef KS_NVA\n" \
	"template <class T> __device__ void __nv_atomic_exchange(T *, T *, " \
	"T *, int, int = __NV_THREAD_SCOPE_SYSTEM);\n" \
	"template <class T, class U> __device__ bool " \
	"__nv_atomic_compare_exchange_n(T *, T *, U, bool, int, int, " \
	"int = __NV_THREAD_SCOPE_SYSTEM);\n" \
	"template <class T> __device__ bool __nv_atomic_compare_exchange(" \
	"T *, T *, T *, bool, int, int, int = __NV_THREAD_SCOPE_SYSTEM);\n" \
	"template <class T> __device__ T __nv_atomic_load_n(T *, int, " \
	"int = __NV_THREAD_SCOPE_SYSTEM);\n" \
	"template <class T> __device__ void __nv_atomic_load(T *, T *, int, " \
	"int = __NV_THREAD_SCOPE_SYSTEM);\n" \
	"template <class T, class U> __device__ void __nv_atomic_store_n(" \
	"T *, U, int, int = __NV_THREAD_SCOPE_SYSTEM);\n" \
	"template <class T> __device__ void __nv_atomic_store(T *, T *, int, " \
	"int = __NV_THREAD_SCOPE_SYSTEM);\n" \
	"__device__ void __nv_atomic_thread_fence(int, " \
	"int = __NV_THREAD_SCOPE_SYSTEM);\n"

/*
 * Without a toolkit: enough of CUDA for self-contained kernels, so that
 * the analysis (and its tests) runs on machines without CUDA. clang's own
 * __clang_cuda_builtin_vars.h provides threadIdx and friends.
 */
static const char prelude_text[] =
	"/* ks: minimal CUDA prelude for parsing without a toolkit */\n"
	"#pragma once\n"
	"#pragma clang system_header\n"
	"#define __host__ __attribute__((host))\n"
	"#define __device__ __attribute__((device))\n"
	"#define __global__ __attribute__((global))\n"
	"#define __shared__ __attribute__((shared))\n"
	"#define __constant__ __attribute__((constant))\n"
	"#define __managed__ __attribute__((managed))\n"
	"#define __launch_bounds__(...) \\\n"
	"  __attribute__((launch_bounds(__VA_ARGS__)))\n"
	"#define __forceinline__ __inline__ __attribute__((always_inline))\n"
	"#define __noinline__ __attribute__((noinline))\n"
	"#define __restrict__ __restrict\n"
	"#include <__clang_cuda_builtin_vars.h>\n"
	"typedef __SIZE_TYPE__ size_t;\n"
	"struct dim3 {\n"
	"  unsigned x, y, z;\n"
	"  __host__ __device__ constexpr dim3(unsigned vx = 1,\n"
	"      unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}\n"
	"};\n"
	"typedef struct CUstream_st *cudaStream_t;\n"
	"typedef int cudaError_t;\n"
	"extern \"C\" unsigned __cudaPushCallConfiguration(dim3 gridDim,\n"
	"    dim3 blockDim, size_t sharedMem = 0, void *stream = 0);\n"
	"/* without a CUDA version clang takes the pre-9.2 launch API */\n"
	"extern \"C\" int cudaConfigureCall(dim3 gridDim, dim3 blockDim,\n"
	"    size_t sharedMem = 0, cudaStream_t stream = 0);\n"
	"#define KS_VEC(t, n, a) struct __attribute__((aligned(a))) t##n\n"
	"KS_VEC(float, 2, 8) { float x, y; };\n"
	"KS_VEC(float, 4, 16) { float x, y, z, w; };\n"
	"KS_VEC(int, 2, 8) { int x, y; };\n"
	"KS_VEC(int, 4, 16) { int x, y, z, w; };\n"
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
	"__device__ float __shfl_down_sync(unsigned, float, unsigned,\n"
	"    int w = 32);\n"
	"__device__ float __shfl_xor_sync(unsigned, float, int, int w = 32);\n"
	"__device__ float __shfl_sync(unsigned, float, int, int w = 32);\n"
	"__device__ unsigned __ballot_sync(unsigned, int);\n"
	"__device__ float __ldg(const float *);\n"
	"__device__ float4 __ldcs(const float4 *);\n"
	"__device__ void __stcs(float4 *, float4);\n"
	"__device__ float __expf(float);\n"
	"#define KS_MATH(n) __host__ __device__ float n##f(float); \\\n"
	"                   __host__ __device__ double n(double);\n"
	"KS_MATH(exp) KS_MATH(log) KS_MATH(sin) KS_MATH(cos) KS_MATH(tanh)\n"
	"KS_MATH(sqrt) KS_MATH(rsqrt) KS_MATH(fabs) KS_MATH(floor)\n"
	"KS_MATH(erf)\n"
	"#undef KS_MATH\n"
	"__host__ __device__ float powf(float, float);\n"
	"__host__ __device__ double pow(double, double);\n"
	"__host__ __device__ float fmaf(float, float, float);\n"
	"__host__ __device__ float fminf(float, float);\n"
	"__host__ __device__ float fmaxf(float, float);\n"
	"__host__ __device__ inline int min(int a, int b)\n"
	"{ return a < b ? a : b; }\n"
	"__host__ __device__ inline int max(int a, int b)\n"
	"{ return a > b ? a : b; }\n"
	"extern \"C\" cudaError_t cudaMalloc(void **, size_t);\n"
	"extern \"C\" cudaError_t cudaFree(void *);\n"
	"extern \"C\" cudaError_t cudaDeviceSynchronize(void);\n"
	"extern \"C\" cudaError_t cudaMemcpy(void *, const void *, size_t,\n"
	"    int);\n"
	"extern \"C\" cudaError_t cudaMemcpyAsync(void *, const void *,\n"
	"    size_t, int, cudaStream_t s = 0);\n"
	KS_CUDACC_RESTORE;

/*
 * With a toolkit: the cache-hint loads and stores of sm_32_intrinsics.h,
 * which nvcc declares and clang's CUDA wrapper (19 and before) leaves
 * out, so that code using them (__ldcs, __stcs, ...) parses.
 */
static const char extras_text[] =
	"/* ks: what clang's CUDA wrapper lacks and nvcc declares */\n"
	"#pragma once\n"
	"#pragma clang system_header\n"
	/* nvcc's crt/common_functions.h includes <new> for every CUDA
	 * compile, so placement new is declared where code (cub's
	 * block_load.cuh) uses it without including <new> itself. */
	"#include <new>\n"
	/* and its crt/math_functions.h includes <math.h>, <stdlib.h>,
	 * <cmath> and <cstdlib>, so host code may call isfinite, isnan,
	 * abs ... unqualified (`if (!isfinite(r[i]))` in a host template)
	 * without including them; clang's wrapper leaves host code only
	 * what <cmath> puts in std. */
	"#include <math.h>\n"
	"#include <stdlib.h>\n"
	"#include <cmath>\n"
	"#include <cstdlib>\n"

	"#define KS_CACHE_HINTS(T) \\\n"
	"  __device__ T __ldcg(const T *); __device__ T __ldca(const T *); \\\n"
	"  __device__ T __ldcs(const T *); __device__ T __ldlu(const T *); \\\n"
	"  __device__ T __ldcv(const T *); __device__ void __stwb(T *, T); \\\n"
	"  __device__ void __stcg(T *, T); __device__ void __stcs(T *, T); \\\n"
	"  __device__ void __stwt(T *, T);\n"
	"KS_CACHE_HINTS(char) KS_CACHE_HINTS(signed char)\n"
	"KS_CACHE_HINTS(unsigned char) KS_CACHE_HINTS(short)\n"
	"KS_CACHE_HINTS(unsigned short) KS_CACHE_HINTS(int)\n"
	"KS_CACHE_HINTS(unsigned int) KS_CACHE_HINTS(long)\n"
	"KS_CACHE_HINTS(unsigned long) KS_CACHE_HINTS(long long)\n"
	"KS_CACHE_HINTS(unsigned long long) KS_CACHE_HINTS(char2)\n"
	"KS_CACHE_HINTS(char4) KS_CACHE_HINTS(short2) KS_CACHE_HINTS(short4)\n"
	"KS_CACHE_HINTS(int2) KS_CACHE_HINTS(int4) KS_CACHE_HINTS(longlong2)\n"
	"KS_CACHE_HINTS(uchar2) KS_CACHE_HINTS(uchar4) "
	"KS_CACHE_HINTS(ushort2)\n"
	"KS_CACHE_HINTS(ushort4) KS_CACHE_HINTS(uint2) KS_CACHE_HINTS(uint4)\n"
	"KS_CACHE_HINTS(ulonglong2) KS_CACHE_HINTS(float)\n"
	"KS_CACHE_HINTS(float2) KS_CACHE_HINTS(float4) KS_CACHE_HINTS(double)\n"
	"KS_CACHE_HINTS(double2)\n"
	"#undef KS_CACHE_HINTS\n"
	/* nvcc's __managed__ is a device variable host code may use too;
	 * clang knows the attribute for HIP only and ignores it in CUDA,
	 * leaving a host variable that device code may not read. */
	"#undef __managed__\n"
	"#define __managed__ __device__\n"
	KS_CUDACC_RESTORE;

/* Written after extras_text, in the same header. */
static const char both_sides_text[] = KS_NVCC_BOTH_SIDES;

const char *
ks_tu_clang_arch(const char *target, char *buf, size_t size)
{
	struct ks_arch_target a;

	if (!target || ks_arch_parse(target, &a) || a.number < 20)
		return NULL;
	/* libclang 19 stops at sm_90a; sm_100 and later parse as sm_90. */
	if (a.number > 90) {
		snprintf(buf, size, "sm_90");
		return buf;
	}
	snprintf(buf, size, "sm_%s", a.digits);
	/* sm_90f (family) has no clang name: the plain arch parses alike. */
	if (ks_ends_with(buf, "f"))
		buf[strlen(buf) - 1] = '\0';
	return buf;
}

char *
ks_tu_arch_list(const char *const *targets, size_t n)
{
	long nums[64];
	size_t i, k, m = 0;
	struct ks_buf b = KS_BUF_INIT;

	for (i = 0; i < n; i++) {
		struct ks_arch_target a;

		if (!targets[i] || ks_arch_parse(targets[i], &a))
			continue;
		for (k = 0; k < m && nums[k] != a.number; k++)
			;
		if (k < m || m == KS_ARRAY_SIZE(nums))
			continue;
		/* insertion, ascending */
		for (k = m++; k > 0 && nums[k - 1] > a.number; k--)
			nums[k] = nums[k - 1];
		nums[k] = a.number;
	}
	if (!m)
		return NULL;
	for (k = 0; k < m; k++)
		ks_buf_addf(&b, "%s%ld", k ? "," : "", nums[k] * 10);
	return ks_buf_detach(&b, NULL);
}

static char *
absolute(const char *cwd, const char *p)
{
	if (p[0] == '/' || !cwd)
		return ks_xstrdup(p);
	return ks_fs_join(cwd, p);
}

/* After the argument `a`, __CUDACC__'s value: `cur`, NULL when undefined. */
static const char *
cudacc_of(const char *a, const char *cur)
{
	if (!strcmp(a, "-U__CUDACC__"))
		return NULL;
	if (!strcmp(a, "-D__CUDACC__"))
		return "1";
	if (ks_starts_with(a, "-D__CUDACC__="))
		return a + 13;
	return cur;
}

void
ks_tu_args(const struct ks_tu_opts *o, const char *stub_dir,
	   const char *prelude, struct ks_strv *out)
{
	const char *cudacc = NULL;
	char archbuf[32];
	const char *arch = ks_tu_clang_arch(o->arch ? o->arch : "sm_75",
					    archbuf, sizeof(archbuf));
	size_t i;

	ks_strv_push(out, "-x");
	ks_strv_push(out, "cuda");
	/* The device side: __CUDA_ARCH__ defined, as kernels are compiled. */
	ks_strv_push(out, "--cuda-device-only");
	ks_strv_push_owned(out, ks_xasprintf("--cuda-gpu-arch=%s",
					     arch ? arch : "sm_75"));
	if (o->toolkit) {
		ks_strv_push_owned(out,
				   ks_xasprintf("--cuda-path=%s", o->toolkit));
		/* nvcc adds CCCL to the include path itself; clang does not. */
		ks_strv_push(out, "-isystem");
		ks_strv_push_owned(out,
				   ks_xasprintf("%s/include/cccl", o->toolkit));
		if (o->cuda_wrappers) {
			const char *w = o->cuda_wrappers;
			size_t wl = strlen(w), sl = strlen("/include/cuda_wrappers");

			ks_strv_push(out, "-isystem");
			ks_strv_push(out, w);
			/* The resource headers beside the wrappers, named: a
			 * libclang moved out of its installation (a copy
			 * under /opt, KS_LIBCLANG) looks for them where it
			 * was built to, and misses them. */
			if (wl > sl && !strcmp(w + wl - sl, "/include/cuda_wrappers")) {
				ks_strv_push(out, "-resource-dir");
				ks_strv_push_owned(out, ks_xasprintf("%.*s", (int)(wl - sl), w));
			}
		}
		ks_strv_push(out, "-include");
		ks_strv_push_owned(
			out, ks_xasprintf("%s/ks_cuda_extras.h", stub_dir));
	} else {
		ks_strv_push(out, "-nocudainc");
		ks_strv_push(out, "-nocudalib");
		ks_strv_push(out, "-include");
		ks_strv_push(out, prelude);
	}
	ks_strv_push(out, "-Wno-unknown-cuda-version");
	/* Errors are all that matter; warnings cost time. */
	ks_strv_push(out, "-w");
	/* What nvcc (its front end and the host compiler) warns about at
	 * most and clang refuses by default: `register` in C++17, narrowing
	 * in braced initializers. */
	ks_strv_push(out, "-Wno-register");
	ks_strv_push(out, "-Wno-c++11-narrowing");
	/* Names as nvcc's front end (and gcc) mangles them: clang 18 began
	 * to mangle the type of a non-type template parameter when it is
	 * deduced (`template <auto N>`: TnDa) or depends on another
	 * parameter (enable_if: TnN...), so such kernels had names that
	 * nvcc's PTX and the runtime never have. Clang 17's mangling is
	 * nvcc's there; the setting changes mangling only. */
	ks_strv_push(out, "-fclang-abi-compat=17");
	ks_strv_push(out, "-isystem");
	ks_strv_push(out, stub_dir);
	ks_strv_push_owned(
		out,
		ks_xasprintf("-std=%s", o->std && *o->std ? o->std : "c++17"));
	for (i = 0; o->includes && i < o->includes->n; i++) {
		const char *s = o->includes->v[i];
		static const char *const opts[] = {"-isystem", "-include",
						   "-I"};
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
	/* The host compiler's directories last: only what clang lacks
	 * (omp.h, ...) comes from them. */
	for (i = 0; o->host_includes && i < o->host_includes->n; i++) {
		ks_strv_push(out, "-idirafter");
		ks_strv_push(out, o->host_includes->v[i]);
	}
	/* nvcc's macros after clang's own, the build's -D/-U after both,
	 * as nvcc takes a build's -U__CUDACC__ after its predefines. */
	for (i = 0; o->nvcc_macros && i < o->nvcc_macros->n; i++) {
		ks_strv_push(out, o->nvcc_macros->v[i]);
		cudacc = cudacc_of(o->nvcc_macros->v[i], cudacc);
	}
	if (o->arch_list)
		ks_strv_push_owned(out, ks_xasprintf("-D__CUDA_ARCH_LIST__=%s",
						     o->arch_list));
	for (i = 0; o->defines && i < o->defines->n; i++) {
		ks_strv_push(out, o->defines->v[i]);
		cudacc = cudacc_of(o->defines->v[i], cudacc);
	}
	/* The value the extras (or the prelude) restore after clang's
	 * wrapper: the last word on __CUDACC__ of nvcc's and the build's. */
	if (cudacc)
		ks_strv_push_owned(out, ks_xasprintf("-D__KS_CUDACC__=%s",
						     cudacc));
}

static const char omp_text[] =
	"/* ks: the host compiler's omp.h, as clang can take it */\n"
	"#pragma clang system_header\n"
	"#pragma push_macro(\"__malloc__\")\n"
	"#define __malloc__(...) __malloc__\n"
	"#include_next <omp.h>\n"
	"#pragma pop_macro(\"__malloc__\")\n";

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
	/* The host compiler's omp.h (gcc's, found through -idirafter) gives
	 * __malloc__ a deallocator argument that clang refuses as an error;
	 * clang takes the plain attribute it stands for. */
	if (!rc) {
		char *omp = ks_xasprintf("%s/omp.h", *dir);

		if (!ks_fs_exists(omp))
			rc = ks_fs_write_atomic(omp, omp_text,
						sizeof(omp_text) - 1, err);
		free(omp);
	}
	if (!rc && want_prelude && !ks_fs_exists(*prelude))
		rc = ks_fs_write_atomic(*prelude, prelude_text,
					sizeof(prelude_text) - 1, err);
	if (!rc && !want_prelude) {
		char *extras = ks_xasprintf("%s/ks_cuda_extras.h", *dir);

		if (!ks_fs_exists(extras)) {
			struct ks_buf text = KS_BUF_INIT;

			ks_buf_add(&text, extras_text, sizeof(extras_text) - 1);
			ks_buf_add(&text, both_sides_text,
				   sizeof(both_sides_text) - 1);
			rc = ks_fs_write_atomic(extras, text.buf, text.len,
						err);
			ks_buf_release(&text);
		}
		free(extras);
	}
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
				char *text = ks_cx_str(
					ks_cx.getDiagnosticSpelling(d));
				char *name;

				ks_cx.getSpellingLocation(
					ks_cx.getDiagnosticLocation(d), &file,
					&line, &col, NULL);
				name = file ? ks_cx_str(ks_cx.getFileName(file))
					    : ks_xstrdup("<command line>");
				ks_buf_addf(msg, "%s%s:%u:%u: %s",
					    nerr ? "; " : "", name, line, col,
					    text);
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

int
ks_tu_prefix(const char *text, struct ks_strv *out)
{
	const char *s = text;
	int n = 0;

	for (;;) {
		const char *name, *close;

		while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' ||
		       *s == '\f' || *s == '\v')
			s++;
		if (s[0] == '/' && s[1] == '/') {
			s = strchr(s, '\n');
			if (!s)
				break;
			continue;
		}
		if (s[0] == '/' && s[1] == '*') {
			s = strstr(s + 2, "*/");
			if (!s)
				break;
			s += 2;
			continue;
		}
		if (*s != '#')
			break;
		s++;
		while (*s == ' ' || *s == '\t')
			s++;
		if (ks_starts_with(s, "pragma") &&
		    (s[6] == ' ' || s[6] == '\t')) {
			const char *w = s + 6;

			while (*w == ' ' || *w == '\t')
				w++;
			if (!ks_starts_with(w, "once"))
				break;
			s = w + 4;
			continue;
		}
		if (!ks_starts_with(s, "include"))
			break;
		s += 7;
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s != '<')
			break;
		name = s + 1;
		close = strchr(name, '>');
		if (!close || memchr(name, '\n', (size_t)(close - name)) ||
		    close == name)
			break;
		/* nothing but blanks or a comment may follow on the line */
		s = close + 1;
		while (*s == ' ' || *s == '\t' || *s == '\r')
			s++;
		if (*s && *s != '\n' &&
		    !(s[0] == '/' && (s[1] == '/' || s[1] == '*')))
			break;
		ks_strv_push_owned(out,
				   ks_xstrndup(name, (size_t)(close - name)));
		n++;
	}
	return n;
}

/* The leading system includes of the TU: the prefix, cut before the first
 * one that a -I directory (the user's own headers) provides. */
static void
system_prefix(const struct ks_tu_opts *o, const char *source,
	      struct ks_strv *out)
{
	struct ks_buf text = KS_BUF_INIT;
	struct ks_strv all = KS_STRV_INIT;
	size_t i, k;

	text.max = KS_TU_SOURCE_MAX;
	if (ks_fs_read(source, &text, NULL) == 0)
		ks_tu_prefix(text.buf, &all);
	for (i = 0; i < all.n; i++) {
		int user = 0;

		for (k = 0; o->includes && k < o->includes->n && !user; k++) {
			const char *inc = o->includes->v[k];
			char *dir, *path;

			if (!ks_starts_with(inc, "-I") || !inc[2])
				continue;
			dir = absolute(o->cwd, inc + 2);
			path = ks_fs_join(dir, all.v[i]);
			user = ks_fs_exists(path);
			free(path);
			free(dir);
		}
		if (user)
			break;
		ks_strv_push(out, all.v[i]);
	}
	ks_strv_release(&all);
	ks_buf_release(&text);
}

/* The PCH for these arguments and leading includes. */
static char *
pch_path(const char *dir, const struct ks_strv *args, const char *toolkit,
	 const struct ks_strv *prefix, const struct ks_strv *user_macros)
{
	struct ks_hash h = KS_HASH_INIT;
	char *hdr = ks_xasprintf("%s/include/cuda_runtime.h", toolkit);
	struct stat st;
	char hex[17];
	size_t i;

	ks_hash_init(&h);
	/* -2: the macros' lines tell definitions from undefinitions, and
	 * the files' lines are kept */
	ks_hash_str(&h, "ks-pch-2");
	ks_hash_str(&h, ks_libclang_path());
	ks_hash_str(&h, ks_libclang_version());
	/* A toolkit updated in place gets a new PCH. */
	if (stat(hdr, &st) == 0) {
		ks_hash_u64(&h, (uint64_t)st.st_mtime);
		ks_hash_u64(&h, (uint64_t)st.st_size);
	}
	ks_hash_u64(&h, args->n);
	for (i = 0; i < args->n; i++)
		ks_hash_str(&h, args->v[i]);
	ks_hash_u64(&h, prefix->n);
	for (i = 0; i < prefix->n; i++)
		ks_hash_str(&h, prefix->v[i]);
	/* the user macros that the headers were checked against */
	for (i = 0; user_macros && i < user_macros->n; i++)
		ks_hash_str(&h, user_macros->v[i]);
	ks_hash_hex64(&h, hex);
	ks_hash_release(&h);
	free(hdr);
	return ks_xasprintf("%s/%s-%s.pch", dir,
			    prefix->n ? "prefix" : "prelude", hex);
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
		/* and its source, prefix-<hash>.cu, and its macros */
		memcpy(oldest + strlen(oldest) - 4, ".cu", 4);
		unlink(oldest);
		oldest = ks_xrealloc(oldest, strlen(oldest) + 8);
		memcpy(oldest + strlen(oldest) - 3, ".macros", 8);
		unlink(oldest);
		memcpy(oldest + strlen(oldest) - 7, ".files", 7);
		unlink(oldest);
		free(oldest);
	}
	closedir(d);
}

/*
 * Build the PCH of clang's CUDA prelude plus the TU's leading system
 * includes. Function bodies are skipped: the analysis never walks into
 * system code, and skipping them makes the PCH cheaper to build than the
 * headers are to parse once (constexpr bodies and deduced return types
 * are kept by clang, so declarations stay exact). Failures cost speed
 * only.
 */
static void
build_pch(CXIndex index, const char *dir, const struct ks_strv *args,
	  const struct ks_strv *prefix, const struct ks_tu_hoist *hoist,
	  const char *pch)
{
	char *src = ks_xasprintf("%.*s.cu", (int)(strlen(pch) - 4), pch);
	char *mac = ks_xasprintf("%.*s.macros", (int)(strlen(pch) - 4), pch);
	char *fil = ks_xasprintf("%.*s.files", (int)(strlen(pch) - 4), pch);
	struct ks_buf macros = KS_BUF_INIT, files = KS_BUF_INIT;
	char *tmp = ks_xasprintf("%s.tmp.%ld", pch, (long)getpid());
	const char **argv = ks_xcalloc(args->n + 1, sizeof(*argv));
	struct ks_buf err = KS_BUF_INIT, text = KS_BUF_INIT;
	CXTranslationUnit tu = NULL;
	enum CXErrorCode ec;
	size_t i;

	for (i = 0; i < prefix->n; i++)
		ks_buf_addf(&text, "#include <%s>\n", prefix->v[i]);
	if (ks_fs_write_atomic(src, text.buf, text.len, &err))
		goto out;
	argv_of(args, argv);
	ec = ks_cx.parseTranslationUnit2(
		index, src, argv, (int)args->n, NULL, 0,
		CXTranslationUnit_ForSerialization |
			CXTranslationUnit_Incomplete |
			CXTranslationUnit_SkipFunctionBodies,
		&tu);
	if (ec != CXError_Success || !tu || errors_of(tu, &err)) {
		ks_log("analysis: no PCH: %s",
		       err.len ? err.buf : "parse failed");
		goto out;
	}
	/* hoisted headers: checked against the user macros before them,
	 * their own macros kept for the TUs' checks */
	if (hoist && ks_tu_hoist_build_check(tu, hoist, &macros, &files)) {
		ks_log("analysis: no PCH of %zu hoisted headers: a user macro "
		       "before them is a name in them", prefix->n);
		ks_fs_write_atomic(mac, "!\n", 2, &err);
		goto out;
	}
	if (hoist && (ks_fs_write_atomic(fil, files.buf ? files.buf : "",
					 files.len, &err) ||
		      ks_fs_write_atomic(mac, macros.buf ? macros.buf : "",
					 macros.len, &err)))
		goto out;
	if (ks_cx.saveTranslationUnit(tu, tmp, CXSaveTranslationUnit_None) ==
		    CXSaveError_None &&
	    rename(tmp, pch) == 0) {
		ks_log("analysis: PCH %s (%zu leading includes)", pch,
		       prefix->n);
		prune_pch(dir);
	}
out:
	/* the source stays: clang checks it when it loads the PCH */
	unlink(tmp);
	if (tu)
		ks_cx.disposeTranslationUnit(tu);
	ks_buf_release(&err);
	ks_buf_release(&text);
	ks_buf_release(&macros);
	ks_buf_release(&files);
	free(argv);
	free(tmp);
	free(src);
	free(mac);
	free(fil);
}

/* The build of the PCH of hoisted headers found a user macro in them
 * (no PCH; kept, so that it is not built again). */
static int
hoist_refused(const char *pch)
{
	char *mac = ks_xasprintf("%.*s.macros", (int)(strlen(pch) - 4), pch);
	struct ks_buf text = KS_BUF_INIT;
	int r;

	text.max = 16;
	r = ks_fs_read(mac, &text, NULL) == 0 && text.len &&
	    text.buf[0] == '!';
	ks_buf_release(&text);
	free(mac);
	return r;
}

/* The PCH of hoisted headers exists, and the TU's text passes the
 * check against the macros of its headers. */
static int
hoisted_ok(const char *pch, const struct ks_tu_hoist *hoist,
	   const struct ks_strv *args)
{
	char *mac = ks_xasprintf("%.*s.macros", (int)(strlen(pch) - 4), pch);
	struct ks_buf text = KS_BUF_INIT;
	int ok = 0;

	if (ks_fs_exists(pch) && ks_fs_read(mac, &text, NULL) == 0 &&
	    !(text.len && text.buf[0] == '!')) {
		ok = !ks_tu_hoist_check(hoist, text.buf ? text.buf : "", args);
		if (!ok)
			ks_log("analysis: hoisted headers not used: a name of "
			       "the text before them is their macro");
	}
	ks_buf_release(&text);
	free(mac);
	return ok;
}

static int
parse(CXIndex index, const char *source, const struct ks_strv *args,
      const struct ks_tu_repair *repair, CXTranslationUnit *tu,
      struct ks_buf *errors)
{
	const char **argv = ks_xcalloc(args->n + 1, sizeof(*argv));
	enum CXErrorCode ec;
	int rc = 0;

	argv_of(args, argv);
	*tu = NULL;
	ec = ks_cx.parseTranslationUnit2(
		index, source, argv, (int)args->n, repair->files,
		(unsigned)repair->n,
		CXTranslationUnit_DetailedPreprocessingRecord, tu);
	if (ec != CXError_Success || !*tu) {
		ks_buf_addf(errors, "libclang could not parse it (error %d)",
			    (int)ec);
		rc = -1;
	} else if (errors_of(*tu, errors)) {
		rc = -1;
	}
	free(argv);
	return rc;
}

/* The `-include-pch FILE` pair of the arguments, removed. */
static void
drop_pch_args(struct ks_strv *args)
{
	size_t i;

	for (i = 0; i + 1 < args->n; i++) {
		if (strcmp(args->v[i], "-include-pch"))
			continue;
		free(args->v[i]);
		free(args->v[i + 1]);
		memmove(&args->v[i], &args->v[i + 2],
			(args->n - i - 2) * sizeof(*args->v));
		args->n -= 2;
		args->v[args->n] = NULL;
		return;
	}
}

/* Parse with `args`, host-only errors set aside, and once more with
 * nvcc's dialect repaired where the errors are of its sites. */
static int
parse_repaired(struct ks_tu *t, const char *dir, struct ks_strv *args,
	       struct ks_buf *errors)
{
	int prc = parse(t->index, t->source, args, &t->repair, &t->tu, errors);

	if (prc && t->tu && !ks_walk_host_errors(t, &t->host_errors))
		prc = 0;
	if (prc && t->tu && ks_tu_repair_find(t->tu, dir, &t->repair)) {
		/* nvcc's dialect: member templates of dependent classes
		 * named without `template`, `x = {}` that clang finds
		 * ambiguous; parsed again with the sites repaired (the PCH
		 * is not at fault, so it stays) */
		ks_log("analysis: %d sites of nvcc's dialect repaired (%s)",
		       t->repair.sites, errors->buf);
		ks_cx.disposeTranslationUnit(t->tu);
		t->tu = NULL;
		ks_buf_reset(errors);
		ks_strv_release(&t->host_errors);
		ks_strv_push(args, "-include");
		ks_strv_push(args, t->repair.defs);
		prc = parse(t->index, t->source, args, &t->repair, &t->tu,
			    errors);
		if (prc && t->tu && !ks_walk_host_errors(t, &t->host_errors))
			prc = 0;
	}
	return prc;
}

/* Back to no parse: for another try with other arguments. */
static void
unparse(struct ks_tu *t, struct ks_buf *errors)
{
	if (t->tu)
		ks_cx.disposeTranslationUnit(t->tu);
	t->tu = NULL;
	ks_buf_reset(errors);
	ks_strv_release(&t->host_errors);
	ks_tu_repair_release(&t->repair);
}

/* The late map of a PCH of headers hoisted past code, or NULL when it
 * cannot be used (not built, its files unknown, the macro checks). */
static struct ks_tu_late *
crossed_late(const char *pch, const struct ks_tu_hoist *hoist,
	     const struct ks_strv *args)
{
	char *fil = ks_xasprintf("%.*s.files", (int)(strlen(pch) - 4), pch);
	struct ks_buf text = KS_BUF_INIT;
	struct ks_tu_late *l = NULL;

	text.max = 1u << 26;
	if (hoisted_ok(pch, hoist, args) && ks_fs_read(fil, &text, NULL) == 0)
		l = ks_tu_late_new(hoist, text.buf ? text.buf : "");
	ks_buf_release(&text);
	free(fil);
	return l;
}

int
ks_tu_parse(const struct ks_tu_opts *o, struct ks_tu *t, struct ks_buf *err)
{
	struct ks_strv args = KS_STRV_INIT, xargs = KS_STRV_INIT;
	struct ks_buf errors = KS_BUF_INIT;
	char *dir = NULL, *prelude = NULL, *pch = NULL, *xpch = NULL;
	struct ks_tu_late *late = NULL;
	double start = now();
	int rc = -1, prc = -1, parsed = 0;

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
	{
		struct ks_tu_opts with = *o;

		if (o->toolkit && !o->cuda_wrappers)
			with.cuda_wrappers = ks_libclang_cuda_wrappers();
		ks_tu_args(&with, dir, prelude, &args);
	}
	t->index = ks_cx.createIndex(0, 0);
	if (o->toolkit && !o->no_pch) {
		struct ks_strv prefix = KS_STRV_INIT;
		struct ks_tu_hoist hoist, cross;

		system_prefix(o, t->source, &prefix);
		/* the system headers the TU reaches through its own headers
		 * past its code too (the PCH of them is taken where no
		 * code before a header sees its declarations: checked after
		 * the parse, ks_tu_late_check) */
		ks_tu_hoist_scan(o, t->source, 1, &cross);
		if (cross.crossed && cross.headers.n > prefix.n) {
			xpch = pch_path(dir, &args, o->toolkit, &cross.headers,
					&cross.macros);
			if (!ks_fs_exists(xpch) && !hoist_refused(xpch))
				build_pch(t->index, dir, &args, &cross.headers,
					  &cross, xpch);
			late = crossed_late(xpch, &cross, &args);
			ks_log("analysis: %zu system headers in the include "
			       "closure past code, up to %s%s",
			       cross.headers.n,
			       cross.stopped ? cross.stopped : "its end",
			       late ? "" : " (not used: the macro checks)");
		}
		ks_tu_hoist_release(&cross);
		/* those before the first code, where the checks hold
		 * (tu_hoist.c); else the main file's leading includes */
		ks_tu_hoist_scan(o, t->source, 0, &hoist);
		ks_log("analysis: %zu system headers in the include closure, "
		       "up to %s", hoist.headers.n,
		       hoist.stopped ? hoist.stopped : "its end");
		if (hoist.headers.n > prefix.n) {
			pch = pch_path(dir, &args, o->toolkit, &hoist.headers,
				       &hoist.macros);
			if (!late && !ks_fs_exists(pch) && !hoist_refused(pch))
				build_pch(t->index, dir, &args, &hoist.headers,
					  &hoist, pch);
			if (!late && !hoisted_ok(pch, &hoist, &args)) {
				free(pch);
				pch = NULL;
			} else if (!late) {
				ks_log("analysis: %zu system headers hoisted "
				       "(%zu leading)", hoist.headers.n,
				       prefix.n);
			}
		}
		if (late) {
			/* the try past code first; the other PCH is built
			 * only if it fails */
			ks_strv_pushv(&xargs, (const char *const *)args.v,
				      args.n);
			ks_strv_push(&xargs, "-include-pch");
			ks_strv_push(&xargs, xpch);
			ks_tu_watch_start(t->source, o->timeout_ms);
			t->used_pch = 1;
			prc = parse_repaired(t, dir, &xargs, &errors);
			if (!prc) {
				struct ks_buf why = KS_BUF_INIT;

				if (ks_tu_late_check(t->tu, late, &why)) {
					ks_log("analysis: headers hoisted past "
					       "code not used: %s", why.buf);
					prc = -1;
				}
				ks_buf_release(&why);
			} else {
				ks_log("analysis: parse with headers hoisted "
				       "past code failed (%s); parsing with "
				       "those before it", errors.buf);
			}
			if (!prc) {
				parsed = 1;
				t->late = late;
				late = NULL;
				ks_strv_release(&args);
				ks_strv_pushv(&args,
					      (const char *const *)xargs.v,
					      xargs.n);
			} else {
				unparse(t, &errors);
				t->used_pch = 0;
			}
		}
		if (!parsed) {
			unsigned long spent = ks_tu_watch_spent();

			if (pch && !ks_fs_exists(pch) && !hoist_refused(pch))
				build_pch(t->index, dir, &args, &hoist.headers,
					  &hoist, pch);
			if (pch && !hoisted_ok(pch, &hoist, &args)) {
				free(pch);
				pch = NULL;
			}
			if (!pch) {
				pch = pch_path(dir, &args, o->toolkit, &prefix,
					       NULL);
				if (!ks_fs_exists(pch))
					build_pch(t->index, dir, &args, &prefix,
						  NULL, pch);
			}
			if (ks_fs_exists(pch)) {
				ks_strv_push(&args, "-include-pch");
				ks_strv_push(&args, pch);
				t->used_pch = 1;
			}
			/* a failed try past code counts; the build of
			 * a PCH does not */
			if (spent)
				ks_tu_watch_resume(t->source, o->timeout_ms,
						   spent);
		}
		ks_tu_hoist_release(&hoist);
		ks_strv_release(&prefix);
	}
	if (!parsed) {
		/* The bound starts here: the PCH is built once, for many
		 * TUs. */
		if (!ks_tu_watch_spent())
			ks_tu_watch_start(t->source, o->timeout_ms);
		prc = parse_repaired(t, dir, &args, &errors);
	}
	if (prc && t->used_pch && !parsed) {
		/* A stale or foreign PCH must never cost a correct answer:
		 * drop it and parse plainly. */
		ks_log("analysis: parse with PCH failed (%s); retrying without",
		       errors.buf);
		unlink(pch);
		unparse(t, &errors);
		drop_pch_args(&args);
		t->used_pch = 0;
		/* The bound starts here: the PCH is built once, for many TUs. */
		ks_tu_watch_start(t->source, o->timeout_ms);
		prc = parse_repaired(t, dir, &args, &errors);
	}
	if (prc) {
		ks_error(err, "%s does not parse as CUDA with %s%s: %s",
			 t->source, ks_libclang_path(),
			 t->prelude ? " (no CUDA toolkit: minimal prelude)"
				    : "",
			 errors.buf);
		goto out;
	}
	t->seconds = now() - start;
	ks_log("analysis: parsed %s in %.3f s%s", t->source, t->seconds,
	       t->used_pch ? (t->late ? " (PCH of headers hoisted past code)"
				      : " (PCH)")
			   : "");
	if (t->host_errors.n)
		ks_log("analysis: %zu host-only errors set aside (first: %s)",
		       t->host_errors.n, t->host_errors.v[0]);
	rc = 0;
	ks_strv_pushv(&t->args, (const char *const *)args.v, args.n);
out:
	if (rc)
		ks_tu_release(t);
	ks_tu_late_free(late);
	ks_strv_release(&args);
	ks_strv_release(&xargs);
	ks_buf_release(&errors);
	free(dir);
	free(prelude);
	free(pch);
	free(xpch);
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
	ks_strv_release(&t->host_errors);
	ks_strv_release(&t->args);
	ks_tu_repair_release(&t->repair);
	ks_tu_late_free(t->late);
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

	ks_cx.getExpansionLocation(ks_cx.getCursorLocation(c), NULL, &line,
				   NULL, NULL);
	return line;
}

void
ks_cx_range(CXCursor c, unsigned long *begin, unsigned long *end, int *in_main)
{
	CXSourceRange r = ks_cx.getCursorExtent(c);
	CXSourceLocation b = ks_cx.getRangeStart(r), e = ks_cx.getRangeEnd(r);
	CXFile fb = NULL, fe = NULL, sb = NULL, se = NULL;
	unsigned ob = 0, oe = 0, osb = 0, ose = 0;

	ks_cx.getExpansionLocation(b, &fb, NULL, NULL, &ob);
	ks_cx.getExpansionLocation(e, &fe, NULL, NULL, &oe);
	ks_cx.getSpellingLocation(b, &sb, NULL, NULL, &osb);
	ks_cx.getSpellingLocation(e, &se, NULL, NULL, &ose);
	*begin = ob;
	*end = oe;
	*in_main = fb && fe && ks_cx.File_isEqual(fb, fe) &&
		   ks_cx.Location_isFromMainFile(b) && ob == osb && oe == ose &&
		   sb && ks_cx.File_isEqual(fb, sb) && oe >= ob;
}

int
ks_cx_cmp(int op, int swapped)
{
	switch (op) {
	case KS_CXBO_LT:
		return swapped ? KS_CMP_GT : KS_CMP_LT;
	case KS_CXBO_LE:
		return swapped ? KS_CMP_GE : KS_CMP_LE;
	case KS_CXBO_GT:
		return swapped ? KS_CMP_LT : KS_CMP_GT;
	case KS_CXBO_GE:
		return swapped ? KS_CMP_LE : KS_CMP_GE;
	default:
		return KS_CMP_NONE;
	}
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
