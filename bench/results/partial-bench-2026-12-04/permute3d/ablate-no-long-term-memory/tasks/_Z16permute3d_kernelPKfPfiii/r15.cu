/* ks-nvcc: verified variants replace permute3d_kernel (arch 900); see docs/REWRITE.md */
#line 1 "/work/main/bench/permute3d/main.cu"
// permute3d: permute a row-major [A x B x C] tensor into [C x A x B]
// (128 x 1024 x 2048 floats: 1 GiB in, 1 GiB out), e.g. moving a trailing
// feature dimension to the front. One thread per output element, 1-D grid
// over the output: writes are contiguous, reads jump C floats between
// neighbouring threads.
// Vendor: none (no CUDA library in the toolkit does a general permute).
#include "bench.h"
#include "ref.h"

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 3 "/tmp/ks-bench/permute3d/ks-no-long-term-memory/tasks/_Z16permute3d_kernelPKfPfiii/r15.variant.cu"
/* The original, for launches whose pointers share memory. */
#endif
#line 4 "/tmp/ks-bench/permute3d/ks-no-long-term-memory/tasks/_Z16permute3d_kernelPKfPfiii/r15.variant.cu"
__global__ void
ks_ro_permute3d_kernel(const float *x, float *y, int na, int nb, int nc)
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 6 "/tmp/ks-bench/permute3d/ks-no-long-term-memory/tasks/_Z16permute3d_kernelPKfPfiii/r15.variant.cu"
{
	size_t o = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (o >= (size_t)na * nb * nc)
		return;
	int b = (int)(o % nb);
	size_t t = o / nb;
	int a = (int)(t % na);
	int c = (int)(t / na);
	y[o] = x[((size_t)a * nb + b) * nc + c];
}
#else
{}
#endif
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 17 "/tmp/ks-bench/permute3d/ks-no-long-term-memory/tasks/_Z16permute3d_kernelPKfPfiii/r15.variant.cu"
typedef int (*ks_ro_range_fn)(unsigned long long *, size_t *,
			       unsigned long long);

#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900
#line 21 "/tmp/ks-bench/permute3d/ks-no-long-term-memory/tasks/_Z16permute3d_kernelPKfPfiii/r15.variant.cu"
__global__ void
permute3d_kernel(const float *__restrict__ x, float *__restrict__ y, int na, int nb, int nc)
{
	size_t o = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (o >= (size_t)na * nb * nc)
		return;
	int b = (int)(o % nb);
	size_t t = o / nb;
	int a = (int)(t % na);
	int c = (int)(t / na);
	y[o] = __ldg(&(x[((size_t)a * nb + b) * nc + c]));
}
#else
#line 10 "/work/main/bench/permute3d/main.cu"
__global__ void
permute3d_kernel(const float *x, float *y, int na, int nb, int nc)
{
	size_t o = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (o >= (size_t)na * nb * nc)
		return;
	int b = (int)(o % nb);
	size_t t = o / nb;
	int a = (int)(t % na);
	int c = (int)(t / na);
	y[o] = x[((size_t)a * nb + b) * nc + c];
}
#endif
#line 1 "<ks-nvcc>"
/* Never launched: cudaFuncGetAttributes on it tells which image
   of this file the device runs (__CUDA_ARCH__ is ptxVersion
   times 10). */
static __global__ void ks_probe_permute3d_kernel(void) {}
#ifndef __CUDA_ARCH__
/* 1 when the device code that runs is the variant's (arch 900):
   then its launcher must run. Cached per device. */
static int
ks_variant_active_permute3d_kernel(void)
{
	static int ks_known[64];
	struct cudaFuncAttributes ks_attr;
	int ks_dev = -1, ks_k = 0, ks_on;

	if (cudaGetDevice(&ks_dev) != cudaSuccess || ks_dev >= 64)
		ks_dev = -1;
	if (ks_dev >= 0)
		ks_k = __atomic_load_n(&ks_known[ks_dev], __ATOMIC_RELAXED);
	if (ks_k)
		return ks_k == 1;
	if (cudaFuncGetAttributes(&ks_attr, ks_probe_permute3d_kernel) != cudaSuccess)
		return 0;
	ks_on = ks_attr.ptxVersion == 90;
	if (ks_dev >= 0)
		__atomic_store_n(&ks_known[ks_dev], ks_on ? 1 : 2,
				 __ATOMIC_RELAXED);
	return ks_on;
}
#line 34 "/tmp/ks-bench/permute3d/ks-no-long-term-memory/tasks/_Z16permute3d_kernelPKfPfiii/r15.variant.cu"
static void
ks_launch_permute3d_kernel(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
	const float *x, float *y, int na, int nb, int nc)
{
	static ks_ro_range_fn ks_range;
	static int ks_looked;
	const void *const ks_p[2] = { (const void *)x, (const void *)y };
	const int ks_w[2] = { 0, 1 };
	unsigned long long ks_base[2];
	int ks_ok = 1;

	if (!ks_looked) {
		void *ks_fn = NULL;
		cudaDriverEntryPointQueryResult ks_q;

		if (cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", &ks_fn,
						      12000, cudaEnableDefault, &ks_q) == cudaSuccess &&
		    ks_q == cudaDriverEntryPointSuccess)
			ks_range = (ks_ro_range_fn)ks_fn;
		ks_looked = 1;
	}
	for (int ks_i = 0; ks_i < 2 && ks_ok; ks_i++) {
		size_t ks_size = 0;

		ks_ok = ks_range && ks_range(&ks_base[ks_i], &ks_size,
					       (unsigned long long)ks_p[ks_i]) == 0;
	}
	for (int ks_i = 0; ks_i < 2 && ks_ok; ks_i++)
		for (int ks_j = ks_i + 1; ks_j < 2 && ks_ok; ks_j++)
			if ((ks_w[ks_i] || ks_w[ks_j]) && ks_base[ks_i] == ks_base[ks_j])
				ks_ok = 0;
	(void)ks_w;
	if (ks_ok)
		permute3d_kernel<<<grid, block, shmem, stream>>>(x, y, na, nb, nc);
	else
		ks_ro_permute3d_kernel<<<grid, block, shmem, stream>>>(x, y, na, nb, nc);
}
#endif
#line 21 "/work/main/bench/permute3d/main.cu"
 

int
main(int argc, char **argv)
{
	bench_init("permute3d", argc, argv);
	// Small: three different sizes, none a multiple of a warp.
	const int na = bench_small() ? 6 : 128;
	const int nb = bench_small() ? 10 : 1024;
	const int nc = bench_small() ? 13 : 2048;
	const size_t n = (size_t)na * nb * nc;

	std::vector<float> hx(n);
	bench_fill(hx, 141, -1.0f, 1.0f);
	std::vector<float> want(n);
	permute3d_ref(hx.data(), want.data(), na, nb, nc);

	float *dx = bench_to_device(hx);
	float *dy = nullptr;
	BENCH_CK(cudaMalloc(&dy, n * sizeof(float)));
	// All-ones bytes are a NaN: an element the kernel misses fails the check.
	BENCH_CK(cudaMemset(dy, 0xff, n * sizeof(float)));

	const int threads = 256;
	const unsigned blocks = (unsigned)((n + threads - 1) / threads);
	auto launch = [&]() { 
#ifdef __CUDA_ARCH__
#line 46 "/work/main/bench/permute3d/main.cu"
	                      permute3d_kernel<<<blocks, threads>>>(dx, dy, na, nb, nc)
#else
#line 46 "/work/main/bench/permute3d/main.cu"
	                      (ks_variant_active_permute3d_kernel() ? ks_launch_permute3d_kernel(blocks, threads, 0, cudaStream_t(), dx, dy, na, nb, nc) : (void)(
#line 46 "/work/main/bench/permute3d/main.cu"
	                      permute3d_kernel<<<blocks, threads>>>(dx, dy, na, nb, nc)))
#endif
#line 46 "/work/main/bench/permute3d/main.cu"
	                                                                               ; };

	// A permute copies values: the result must be exact.
	launch();
	BENCH_CK(cudaGetLastError());
	BENCH_CK(cudaDeviceSynchronize());
	std::vector<float> got = bench_to_host(dy, n);
	bool ok = bench_check("permute3d", got.data(), want.data(), n, 0.0, 0.0);

	// Minimum: read x once, write y once; no floating-point work.
	bench_stats s = bench_time(launch);
	bench_report("permute3d", "naive", s, 2.0 * sizeof(float) * (double)n, 0.0);

	got = bench_to_host(dy, n);
	ok = bench_check("permute3d after timing", got.data(), want.data(), n, 0.0, 0.0) && ok;

	BENCH_CK(cudaFree(dx));
	BENCH_CK(cudaFree(dy));
	return bench_finish(ok);
}
