/* ks-nvcc: verified variants replace softplus_kernel (arch 900); see docs/REWRITE.md */
#line 1 "/work/main/bench/softplus/main.cu"
// softplus: y = log(1 + exp(x)), or x itself when x > 20 (PyTorch's
// softplus with beta = 1, threshold = 20), over a vector of 256M floats
// (1 GiB in, 1 GiB out), one thread per element.
#include "bench.h"
#include "ref.h"

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 3 "/tmp/ks-bench/softplus/ks-no-long-term-memory/tasks/_Z15softplus_kernelPKfPfm/r1.variant.cu"
static __device__ __forceinline__ void
ks_sb_softplus_kernel(const uint3 threadIdx, const uint3 blockIdx, const dim3 blockDim,
	const dim3 gridDim,
	const float *x, float *y, size_t n)
{
	(void)threadIdx;
	(void)blockIdx;
	(void)blockDim;
	(void)gridDim;
	{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < n) {
		float v = x[i];
		y[i] = v > 20.0f ? v : log1pf(expf(v));
	}
}
}

#endif
#line 21 "/tmp/ks-bench/softplus/ks-no-long-term-memory/tasks/_Z15softplus_kernelPKfPfm/r1.variant.cu"
__global__ void __launch_bounds__(256)
ks_xf_softplus_kernel(const float *x, float *y, size_t n, const dim3 ks_og, const dim3 ks_ob,
	const unsigned ks_mg, const unsigned ks_s1, const unsigned ks_s2)
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 24 "/tmp/ks-bench/softplus/ks-no-long-term-memory/tasks/_Z15softplus_kernelPKfPfm/r1.variant.cu"
{
	const unsigned long long ks_ng =
		(unsigned long long)ks_og.x * ks_ob.x / 1;
	const unsigned long long ks_s = (unsigned long long)gridDim.x * 256;

	for (unsigned long long ks_g0 = (unsigned long long)blockIdx.x * 256 + threadIdx.x;
	     ks_g0 < ks_ng; ks_g0 += 1 * ks_s) {
#pragma unroll
		for (int ks_u = 0; ks_u < 1; ks_u++) {
			const unsigned long long ks_g = ks_g0 + ks_u * ks_s;
			const unsigned long long ks_t = ks_g * 1;
			const unsigned ks_t32 = (unsigned)ks_t;
			const unsigned ks_h = __umulhi(ks_t32, ks_mg);
			const unsigned ks_bx = (ks_h + ((ks_t32 - ks_h) >> ks_s1)) >> ks_s2;
			const unsigned ks_tx = ks_t32 - ks_bx * ks_ob.x;

			if (ks_g < ks_ng) {
				for (unsigned ks_j = 0; ks_j < 1; ks_j++)
					ks_sb_softplus_kernel(make_uint3(ks_tx + ks_j, 0, 0),
						make_uint3(ks_bx, 0, 0), ks_ob, ks_og, x, y, n);
			}
		}
	}
}
#else
{}
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900
#line 49 "/tmp/ks-bench/softplus/ks-no-long-term-memory/tasks/_Z15softplus_kernelPKfPfm/r1.variant.cu"
__global__ void
softplus_kernel(const float *x, float *y, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < n) {
		float v = x[i];
		y[i] = v > 20.0f ? v : log1pf(expf(v));
	}
}
#else
#line 7 "/work/main/bench/softplus/main.cu"
__global__ void
softplus_kernel(const float *x, float *y, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < n) {
		float v = x[i];
		y[i] = v > 20.0f ? v : log1pf(expf(v));
	}
}
#endif
#line 1 "<ks-nvcc>"
/* Never launched: cudaFuncGetAttributes on it tells which image
   of this file the device runs (__CUDA_ARCH__ is ptxVersion
   times 10). */
static __global__ void ks_probe_softplus_kernel(void) {}
#ifndef __CUDA_ARCH__
/* 1 when the device code that runs is the variant's (arch 900):
   then its launcher must run. Cached per device. */
static int
ks_variant_active_softplus_kernel(void)
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
	if (cudaFuncGetAttributes(&ks_attr, ks_probe_softplus_kernel) != cudaSuccess)
		return 0;
	ks_on = ks_attr.ptxVersion == 90;
	if (ks_dev >= 0)
		__atomic_store_n(&ks_known[ks_dev], ks_on ? 1 : 2,
				 __ATOMIC_RELAXED);
	return ks_on;
}
#line 59 "/tmp/ks-bench/softplus/ks-no-long-term-memory/tasks/_Z15softplus_kernelPKfPfm/r1.variant.cu"
static void
ks_launch_softplus_kernel(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
	const float *x, float *y, size_t n)
{
	unsigned long long ks_blocks;
	unsigned ks_l = 0, ks_mg, ks_s1, ks_s2;

	if (grid.x == 0 || grid.y != 1 || grid.z != 1 || block.y != 1 ||
	    block.z != 1 || block.x % 1 != 0 ||
	    (unsigned long long)grid.x * block.x > 0xffffffffULL) {
		/* a launch the variant does not cover: the original */
		softplus_kernel<<<grid, block, shmem, stream>>>(x, y, n);
		return;
	}
	while ((1ull << ks_l) < block.x)
		ks_l++;
	ks_mg = (unsigned)(((1ull << 32) * ((1ull << ks_l) - block.x)) / block.x + 1);
	ks_s1 = ks_l < 1 ? ks_l : 1;
	ks_s2 = ks_l > 1 ? ks_l - 1 : 0;
	ks_blocks = ((unsigned long long)grid.x * block.x / 1 + 256 - 1) / 256;
	if (ks_blocks > 0x7fffffffULL)
		ks_blocks = 0x7fffffffULL;
	(void)shmem;
	ks_xf_softplus_kernel<<<(unsigned)ks_blocks, 256, 0, stream>>>(x, y, n, grid, block, ks_mg, ks_s1, ks_s2);
}
#endif
#line 15 "/work/main/bench/softplus/main.cu"
 

int
main(int argc, char **argv)
{
	bench_init("softplus", argc, argv);
	// Full: 2^28 floats. Small: a size that is not a multiple of the block.
	const size_t n = bench_small() ? 4099 : (size_t)1 << 28;

	// [-24, 24]: about 8% of the inputs take the x > 20 branch.
	std::vector<float> hx(n);
	bench_fill(hx, 104, -24.0f, 24.0f);
	std::vector<float> want(n);
	bench_par(n, [&](size_t lo, size_t hi) { softplus_ref_array(hx.data() + lo, want.data() + lo, hi - lo); });

	float *dx = bench_to_device(hx);
	float *dy = nullptr;
	BENCH_CK(cudaMalloc(&dy, n * sizeof(float)));
	// All-ones bytes are a NaN: an element the kernel misses fails the check.
	BENCH_CK(cudaMemset(dy, 0xff, n * sizeof(float)));

	const int threads = 256;
	const unsigned blocks = (unsigned)((n + threads - 1) / threads);
	auto launch = [&]() { 
#ifdef __CUDA_ARCH__
#line 38 "/work/main/bench/softplus/main.cu"
	                      softplus_kernel<<<blocks, threads>>>(dx, dy, n)
#else
#line 38 "/work/main/bench/softplus/main.cu"
	                      (ks_variant_active_softplus_kernel() ? ks_launch_softplus_kernel(blocks, threads, 0, cudaStream_t(), dx, dy, n) : (void)(
#line 38 "/work/main/bench/softplus/main.cu"
	                      softplus_kernel<<<blocks, threads>>>(dx, dy, n)))
#endif
#line 38 "/work/main/bench/softplus/main.cu"
	                                                                     ; };

	// Tolerance: expf and log1pf are each within a couple of ulp, so the
	// result is within a few ulp relative (rtol 1e-5); atol 1e-7 covers the
	// tiny outputs for very negative x.
	const double atol = 1e-7, rtol = 1e-5;
	launch();
	BENCH_CK(cudaGetLastError());
	BENCH_CK(cudaDeviceSynchronize());
	std::vector<float> got = bench_to_host(dy, n);
	bool ok = bench_check("softplus", got.data(), want.data(), n, atol, rtol);

	bench_stats s = bench_time(launch);
	// Minimum: read x once, write y once. Flops per element: 3 (compare,
	// exp, log1p), exp and log1p counted as 1 each.
	bench_report("softplus", "naive", s, 2.0 * sizeof(float) * (double)n, 3.0 * (double)n);

	got = bench_to_host(dy, n);
	ok = bench_check("softplus after timing", got.data(), want.data(), n, atol, rtol) && ok;

	BENCH_CK(cudaFree(dx));
	BENCH_CK(cudaFree(dy));
	return bench_finish(ok);
}
