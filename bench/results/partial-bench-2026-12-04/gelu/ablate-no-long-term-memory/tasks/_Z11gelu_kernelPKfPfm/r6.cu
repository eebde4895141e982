/* ks-nvcc: verified variants replace gelu_kernel (arch 900); see docs/REWRITE.md */
#line 1 "/work/main/bench/gelu/main.cu"
// gelu: y = 0.5 * x * (1 + erf(x / sqrt(2))) (exact GELU, erf form) over a
// vector of 256M floats (1 GiB in, 1 GiB out), one thread per element.
#include "bench.h"
#include "ref.h"

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 3 "/tmp/ks-bench/gelu/ks-no-long-term-memory/tasks/_Z11gelu_kernelPKfPfm/r6.variant.cu"
static __device__ __forceinline__ void
ks_sb_gelu_kernel(const uint3 threadIdx, const uint3 blockIdx, const dim3 blockDim,
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
		y[i] = 0.5f * v * (1.0f + erff(v * 0.70710678f));
	}
}
}

static __device__ __forceinline__ void
ks_vb_gelu_kernel(const uint3 threadIdx, const uint3 blockIdx, const dim3 blockDim,
	const dim3 gridDim, const int ks_j, float *ks_v0, float *ks_v1,
	const float *x, float *y, size_t n)
{
	(void)threadIdx;
	(void)blockIdx;
	(void)blockDim;
	(void)gridDim;
	(void)ks_j;
	{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if ((true || (i < n))) {
		float v = (ks_v0[ks_j]);
		(ks_v1[ks_j]) = 0.5f * v * (1.0f + erff(v * 0.70710678f));
	}
}
}

struct __align__(16) ks_pk0_gelu_kernel {
	float v[4];
};

struct __align__(16) ks_pk1_gelu_kernel {
	float v[4];
};

/* Every bounds check of the kernel passes for the original thread
   (ks_bx, ks_tx), ks_i = ks_bx * blockDim.x + ks_tx. */
static __device__ __forceinline__ bool
ks_in_gelu_kernel(const unsigned ks_i, const unsigned ks_tx, const unsigned ks_bx,
	const dim3 ks_ob, const dim3 ks_og,
	const float *x, float *y, size_t n)
{
	(void)ks_i;
	(void)ks_tx;
	(void)ks_bx;
	return (((0LL) + (1LL) * (long long)ks_i) < ((1LL * (long long)(n))));
}

#endif
#line 61 "/tmp/ks-bench/gelu/ks-no-long-term-memory/tasks/_Z11gelu_kernelPKfPfm/r6.variant.cu"
__global__ void __launch_bounds__(256)
ks_xf_gelu_kernel(const float *x, float *y, size_t n, const dim3 ks_og, const dim3 ks_ob,
	const unsigned ks_mg, const unsigned ks_s1, const unsigned ks_s2)
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 64 "/tmp/ks-bench/gelu/ks-no-long-term-memory/tasks/_Z11gelu_kernelPKfPfm/r6.variant.cu"
{
	const unsigned ks_ng =
		(unsigned)((unsigned long long)ks_og.x * ks_ob.x / 4);
	const unsigned ks_s = gridDim.x * 256;

	for (unsigned ks_g0 = blockIdx.x * 256 + threadIdx.x;
	     ks_g0 < ks_ng; ks_g0 += 1 * ks_s) {
		ks_pk0_gelu_kernel ks_v0[1];
		ks_pk1_gelu_kernel ks_v1[1];
		bool ks_full[1];

#pragma unroll
		for (int ks_u = 0; ks_u < 1; ks_u++) {
			const unsigned ks_g = ks_g0 + ks_u * ks_s;
			const unsigned ks_t = ks_g * 4;
			const unsigned ks_t32 = (unsigned)ks_t;
			const unsigned ks_h = __umulhi(ks_t32, ks_mg);
			const unsigned ks_bx = (ks_h + ((ks_t32 - ks_h) >> ks_s1)) >> ks_s2;
			const unsigned ks_tx = ks_t32 - ks_bx * ks_ob.x;

			ks_full[ks_u] = ks_g < ks_ng &&
				ks_in_gelu_kernel(ks_t32, ks_tx, ks_bx, ks_ob, ks_og, x, y, n) &&
				ks_in_gelu_kernel(ks_t32 + 3, ks_tx + 3, ks_bx, ks_ob, ks_og, x, y, n);
			if (!ks_full[ks_u])
				continue;
			ks_v0[ks_u] = *reinterpret_cast<const ks_pk0_gelu_kernel *>(
				x + ks_t);
		}
#pragma unroll
		for (int ks_u = 0; ks_u < 1; ks_u++) {
			const unsigned ks_g = ks_g0 + ks_u * ks_s;
			const unsigned ks_t = ks_g * 4;
			const unsigned ks_t32 = (unsigned)ks_t;
			const unsigned ks_h = __umulhi(ks_t32, ks_mg);
			const unsigned ks_bx = (ks_h + ((ks_t32 - ks_h) >> ks_s1)) >> ks_s2;
			const unsigned ks_tx = ks_t32 - ks_bx * ks_ob.x;

			if (ks_full[ks_u]) {
#pragma unroll
				for (int ks_j = 0; ks_j < 4; ks_j++)
					ks_vb_gelu_kernel(make_uint3(ks_tx + ks_j, 0, 0),
						make_uint3(ks_bx, 0, 0), ks_ob, ks_og, ks_j, ks_v0[ks_u].v, ks_v1[ks_u].v, x, y, n);
				*reinterpret_cast<ks_pk1_gelu_kernel *>(y + ks_t) = ks_v1[ks_u];
			} else if (ks_g < ks_ng) {
				for (unsigned ks_j = 0; ks_j < 4; ks_j++)
					ks_sb_gelu_kernel(make_uint3(ks_tx + ks_j, 0, 0),
						make_uint3(ks_bx, 0, 0), ks_ob, ks_og, x, y, n);
			}
		}
	}
}
#else
{}
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900
#line 116 "/tmp/ks-bench/gelu/ks-no-long-term-memory/tasks/_Z11gelu_kernelPKfPfm/r6.variant.cu"
__global__ void
gelu_kernel(const float *x, float *y, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < n) {
		float v = x[i];
		y[i] = 0.5f * v * (1.0f + erff(v * 0.70710678f));
	}
}
#else
#line 6 "/work/main/bench/gelu/main.cu"
__global__ void
gelu_kernel(const float *x, float *y, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < n) {
		float v = x[i];
		y[i] = 0.5f * v * (1.0f + erff(v * 0.70710678f));
	}
}
#endif
#line 1 "<ks-nvcc>"
/* Never launched: cudaFuncGetAttributes on it tells which image
   of this file the device runs (__CUDA_ARCH__ is ptxVersion
   times 10). */
static __global__ void ks_probe_gelu_kernel(void) {}
#ifndef __CUDA_ARCH__
/* 1 when the device code that runs is the variant's (arch 900):
   then its launcher must run. Cached per device. */
static int
ks_variant_active_gelu_kernel(void)
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
	if (cudaFuncGetAttributes(&ks_attr, ks_probe_gelu_kernel) != cudaSuccess)
		return 0;
	ks_on = ks_attr.ptxVersion == 90;
	if (ks_dev >= 0)
		__atomic_store_n(&ks_known[ks_dev], ks_on ? 1 : 2,
				 __ATOMIC_RELAXED);
	return ks_on;
}
#line 126 "/tmp/ks-bench/gelu/ks-no-long-term-memory/tasks/_Z11gelu_kernelPKfPfm/r6.variant.cu"
static void
ks_launch_gelu_kernel(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
	const float *x, float *y, size_t n)
{
	/* resident blocks of the helper kernel, per device */
	static int ks_fill[64];
	int ks_dev = -1;
	unsigned long long ks_blocks;
	unsigned ks_l = 0, ks_mg, ks_s1, ks_s2;

	if (grid.x == 0 || grid.y != 1 || grid.z != 1 || block.y != 1 ||
	    block.z != 1 || block.x % 4 != 0 ||
	    (unsigned long long)grid.x * block.x > 0xfffffbffULL ||
	    (unsigned long long)(const void *)x % 16 != 0 ||
	    (unsigned long long)(const void *)y % 16 != 0) {
		/* a launch the variant does not cover: the original */
		gelu_kernel<<<grid, block, shmem, stream>>>(x, y, n);
		return;
	}
	while ((1ull << ks_l) < block.x)
		ks_l++;
	ks_mg = (unsigned)(((1ull << 32) * ((1ull << ks_l) - block.x)) / block.x + 1);
	ks_s1 = ks_l < 1 ? ks_l : 1;
	ks_s2 = ks_l > 1 ? ks_l - 1 : 0;
	ks_blocks = ((unsigned long long)grid.x * block.x / 4 + 256 - 1) / 256;
	if (cudaGetDevice(&ks_dev) == cudaSuccess && ks_dev >= 0 && ks_dev < 64) {
		int ks_sms = 0, ks_per = 0;

		if (!ks_fill[ks_dev] &&
		    cudaDeviceGetAttribute(&ks_sms, cudaDevAttrMultiProcessorCount,
					   ks_dev) == cudaSuccess &&
		    cudaOccupancyMaxActiveBlocksPerMultiprocessor(
			    &ks_per, ks_xf_gelu_kernel, 256, 0) == cudaSuccess)
			ks_fill[ks_dev] = ks_sms * ks_per;
		if (ks_fill[ks_dev] > 0 &&
		    ks_blocks > 8ULL * (unsigned long long)ks_fill[ks_dev])
			ks_blocks = 8ULL * (unsigned long long)ks_fill[ks_dev];
	}
	if (ks_blocks > 0x7fffffffULL)
		ks_blocks = 0x7fffffffULL;
	(void)shmem;
	ks_xf_gelu_kernel<<<(unsigned)ks_blocks, 256, 0, stream>>>(x, y, n, grid, block, ks_mg, ks_s1, ks_s2);
}
#endif
#line 14 "/work/main/bench/gelu/main.cu"
 

int
main(int argc, char **argv)
{
	bench_init("gelu", argc, argv);
	// Full: 2^28 floats. Small: a size that is not a multiple of the block.
	const size_t n = bench_small() ? 4099 : (size_t)1 << 28;

	std::vector<float> hx(n);
	bench_fill(hx, 102, -6.0f, 6.0f);
	std::vector<float> want(n);
	bench_par(n, [&](size_t lo, size_t hi) { gelu_ref_array(hx.data() + lo, want.data() + lo, hi - lo); });

	float *dx = bench_to_device(hx);
	float *dy = nullptr;
	BENCH_CK(cudaMalloc(&dy, n * sizeof(float)));
	// All-ones bytes are a NaN: an element the kernel misses fails the check.
	BENCH_CK(cudaMemset(dy, 0xff, n * sizeof(float)));

	const int threads = 256;
	const unsigned blocks = (unsigned)((n + threads - 1) / threads);
	auto launch = [&]() { 
#ifdef __CUDA_ARCH__
#line 36 "/work/main/bench/gelu/main.cu"
	                      gelu_kernel<<<blocks, threads>>>(dx, dy, n)
#else
#line 36 "/work/main/bench/gelu/main.cu"
	                      (ks_variant_active_gelu_kernel() ? ks_launch_gelu_kernel(blocks, threads, 0, cudaStream_t(), dx, dy, n) : (void)(
#line 36 "/work/main/bench/gelu/main.cu"
	                      gelu_kernel<<<blocks, threads>>>(dx, dy, n)))
#endif
#line 36 "/work/main/bench/gelu/main.cu"
	                                                                 ; };

	// Tolerance: erff is within 2 ulp; for x < 0, 1 + erff(x/sqrt 2)
	// cancels, leaving an absolute error of a few ulp(1) (~1e-7) times
	// 0.5|x| <= 3, hence atol 1e-6; elsewhere a few ulp relative, rtol 1e-5.
	// The tanh approximation is off by up to ~4e-4 and fails.
	const double atol = 1e-6, rtol = 1e-5;
	launch();
	BENCH_CK(cudaGetLastError());
	BENCH_CK(cudaDeviceSynchronize());
	std::vector<float> got = bench_to_host(dy, n);
	bool ok = bench_check("gelu", got.data(), want.data(), n, atol, rtol);

	bench_stats s = bench_time(launch);
	// Minimum: read x once, write y once. Flops per element: 5 (scale,
	// erf, add, two multiplies), erf counted as 1.
	bench_report("gelu", "naive", s, 2.0 * sizeof(float) * (double)n, 5.0 * (double)n);

	got = bench_to_host(dy, n);
	ok = bench_check("gelu after timing", got.data(), want.data(), n, atol, rtol) && ok;

	BENCH_CK(cudaFree(dx));
	BENCH_CK(cudaFree(dy));
	return bench_finish(ok);
}
