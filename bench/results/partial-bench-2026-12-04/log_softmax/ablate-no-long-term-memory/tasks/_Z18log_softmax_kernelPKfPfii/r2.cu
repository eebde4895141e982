/* ks-nvcc: verified variants replace log_softmax_kernel (arch 900); see docs/REWRITE.md */
#line 1 "/work/main/bench/log_softmax/main.cu"
// log_softmax: numerically stable log-softmax over each row of a
// [rows x cols] matrix (262144 x 1024 floats: 1 GiB in, 1 GiB out), one
// thread per row: each thread finds its row's max, sums exp(x - max), then
// writes x - max - log(sum).
#include "bench.h"
#include "ref.h"

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 3 "/tmp/ks-bench/log_softmax/ks-no-long-term-memory/tasks/_Z18log_softmax_kernelPKfPfii/r2.variant.cu"
static __device__ __forceinline__ void
ks_sb_log_softmax_kernel(const uint3 threadIdx, const uint3 blockIdx, const dim3 blockDim,
	const dim3 gridDim,
	const float *x, float *y, int rows, int cols)
{
	(void)threadIdx;
	(void)blockIdx;
	(void)blockDim;
	(void)gridDim;
	{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= rows)
		return;
	const float *xr = x + (size_t)row * cols;
	float *yr = y + (size_t)row * cols;
	float m = xr[0];
	for (int j = 1; j < cols; j++)
		m = fmaxf(m, xr[j]);
	float sum = 0.0f;
	for (int j = 0; j < cols; j++)
		sum += expf(xr[j] - m);
	float logsum = logf(sum);
	for (int j = 0; j < cols; j++)
		yr[j] = xr[j] - m - logsum;
}
}

#endif
#line 30 "/tmp/ks-bench/log_softmax/ks-no-long-term-memory/tasks/_Z18log_softmax_kernelPKfPfii/r2.variant.cu"
__global__ void __launch_bounds__(256)
ks_xf_log_softmax_kernel(const float *x, float *y, int rows, int cols, const dim3 ks_og, const dim3 ks_ob,
	const unsigned ks_mg, const unsigned ks_s1, const unsigned ks_s2)
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 33 "/tmp/ks-bench/log_softmax/ks-no-long-term-memory/tasks/_Z18log_softmax_kernelPKfPfii/r2.variant.cu"
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
					ks_sb_log_softmax_kernel(make_uint3(ks_tx + ks_j, 0, 0),
						make_uint3(ks_bx, 0, 0), ks_ob, ks_og, x, y, rows, cols);
			}
		}
	}
}
#else
{}
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900
#line 58 "/tmp/ks-bench/log_softmax/ks-no-long-term-memory/tasks/_Z18log_softmax_kernelPKfPfii/r2.variant.cu"
__global__ void
log_softmax_kernel(const float *x, float *y, int rows, int cols)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= rows)
		return;
	const float *xr = x + (size_t)row * cols;
	float *yr = y + (size_t)row * cols;
	float m = xr[0];
	for (int j = 1; j < cols; j++)
		m = fmaxf(m, xr[j]);
	float sum = 0.0f;
	for (int j = 0; j < cols; j++)
		sum += expf(xr[j] - m);
	float logsum = logf(sum);
	for (int j = 0; j < cols; j++)
		yr[j] = xr[j] - m - logsum;
}
#else
#line 8 "/work/main/bench/log_softmax/main.cu"
__global__ void
log_softmax_kernel(const float *x, float *y, int rows, int cols)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= rows)
		return;
	const float *xr = x + (size_t)row * cols;
	float *yr = y + (size_t)row * cols;
	float m = xr[0];
	for (int j = 1; j < cols; j++)
		m = fmaxf(m, xr[j]);
	float sum = 0.0f;
	for (int j = 0; j < cols; j++)
		sum += expf(xr[j] - m);
	float logsum = logf(sum);
	for (int j = 0; j < cols; j++)
		yr[j] = xr[j] - m - logsum;
}
#endif
#line 1 "<ks-nvcc>"
/* Never launched: cudaFuncGetAttributes on it tells which image
   of this file the device runs (__CUDA_ARCH__ is ptxVersion
   times 10). */
static __global__ void ks_probe_log_softmax_kernel(void) {}
#ifndef __CUDA_ARCH__
/* 1 when the device code that runs is the variant's (arch 900):
   then its launcher must run. Cached per device. */
static int
ks_variant_active_log_softmax_kernel(void)
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
	if (cudaFuncGetAttributes(&ks_attr, ks_probe_log_softmax_kernel) != cudaSuccess)
		return 0;
	ks_on = ks_attr.ptxVersion == 90;
	if (ks_dev >= 0)
		__atomic_store_n(&ks_known[ks_dev], ks_on ? 1 : 2,
				 __ATOMIC_RELAXED);
	return ks_on;
}
#line 77 "/tmp/ks-bench/log_softmax/ks-no-long-term-memory/tasks/_Z18log_softmax_kernelPKfPfii/r2.variant.cu"
static void
ks_launch_log_softmax_kernel(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
	const float *x, float *y, int rows, int cols)
{
	/* resident blocks of the helper kernel, per device */
	static int ks_fill[64];
	int ks_dev = -1;
	unsigned long long ks_blocks;
	unsigned ks_l = 0, ks_mg, ks_s1, ks_s2;

	if (grid.x == 0 || grid.y != 1 || grid.z != 1 || block.y != 1 ||
	    block.z != 1 || block.x % 1 != 0 ||
	    (unsigned long long)grid.x * block.x > 0xffffffffULL) {
		/* a launch the variant does not cover: the original */
		log_softmax_kernel<<<grid, block, shmem, stream>>>(x, y, rows, cols);
		return;
	}
	while ((1ull << ks_l) < block.x)
		ks_l++;
	ks_mg = (unsigned)(((1ull << 32) * ((1ull << ks_l) - block.x)) / block.x + 1);
	ks_s1 = ks_l < 1 ? ks_l : 1;
	ks_s2 = ks_l > 1 ? ks_l - 1 : 0;
	ks_blocks = ((unsigned long long)grid.x * block.x / 1 + 256 - 1) / 256;
	if (cudaGetDevice(&ks_dev) == cudaSuccess && ks_dev >= 0 && ks_dev < 64) {
		int ks_sms = 0, ks_per = 0;

		if (!ks_fill[ks_dev] &&
		    cudaDeviceGetAttribute(&ks_sms, cudaDevAttrMultiProcessorCount,
					   ks_dev) == cudaSuccess &&
		    cudaOccupancyMaxActiveBlocksPerMultiprocessor(
			    &ks_per, ks_xf_log_softmax_kernel, 256, 0) == cudaSuccess)
			ks_fill[ks_dev] = ks_sms * ks_per;
		if (ks_fill[ks_dev] > 0 &&
		    ks_blocks > 4ULL * (unsigned long long)ks_fill[ks_dev])
			ks_blocks = 4ULL * (unsigned long long)ks_fill[ks_dev];
	}
	if (ks_blocks > 0x7fffffffULL)
		ks_blocks = 0x7fffffffULL;
	(void)shmem;
	ks_xf_log_softmax_kernel<<<(unsigned)ks_blocks, 256, 0, stream>>>(x, y, rows, cols, grid, block, ks_mg, ks_s1, ks_s2);
}
#endif
#line 25 "/work/main/bench/log_softmax/main.cu"
 

int
main(int argc, char **argv)
{
	bench_init("log_softmax", argc, argv);
	// Small: sizes that are not multiples of the block or of a warp.
	const int rows = bench_small() ? 37 : 262144;
	const int cols = bench_small() ? 29 : 1024;
	const size_t n = (size_t)rows * cols;

	// Logits uniform in [-8, 8] plus a per-row offset in [-40, 100]: rows
	// with large offsets overflow expf unless the max is subtracted.
	std::vector<float> hx(n);
	bench_fill(hx, 301, -8.0f, 8.0f);
	bench_rng shift(302);
	for (int r = 0; r < rows; r++) {
		float off = shift.uniform(-40.0f, 100.0f);
		for (int j = 0; j < cols; j++)
			hx[(size_t)r * cols + j] += off;
	}
	std::vector<float> want(n);
	bench_par(rows, [&](size_t lo, size_t hi) { log_softmax_ref(hx.data() + lo * cols, want.data() + lo * cols, hi - lo, cols); }, 64);

	float *dx = bench_to_device(hx);
	float *dy = nullptr;
	BENCH_CK(cudaMalloc(&dy, n * sizeof(float)));
	// All-ones bytes are a NaN: an element the kernel misses fails the check.
	BENCH_CK(cudaMemset(dy, 0xff, n * sizeof(float)));

	const int threads = 256;
	const int blocks = (rows + threads - 1) / threads;
	auto launch = [&]() { 
#ifdef __CUDA_ARCH__
#line 57 "/work/main/bench/log_softmax/main.cu"
	                      log_softmax_kernel<<<blocks, threads>>>(dx, dy, rows, cols)
#else
#line 57 "/work/main/bench/log_softmax/main.cu"
	                      (ks_variant_active_log_softmax_kernel() ? ks_launch_log_softmax_kernel(blocks, threads, 0, cudaStream_t(), dx, dy, rows, cols) : (void)(
#line 57 "/work/main/bench/log_softmax/main.cu"
	                      log_softmax_kernel<<<blocks, threads>>>(dx, dy, rows, cols)))
#endif
#line 57 "/work/main/bench/log_softmax/main.cu"
	                                                                                 ; };

	// Tolerance: outputs lie in about [-23, 0]. A sequential fp32 sum of
	// 1024 positive terms is within (cols - 1) * 2^-24 ~ 6e-5 relative in
	// the worst case, which log turns into ~6e-5 absolute; rounding x - max
	// (and m + log(sum), if a variant forms it, ulp(108) ~ 8e-6) adds
	// ~1e-5: atol 1e-4, rtol 1e-5.
	const double atol = 1e-4, rtol = 1e-5;
	launch();
	BENCH_CK(cudaGetLastError());
	BENCH_CK(cudaDeviceSynchronize());
	std::vector<float> got = bench_to_host(dy, n);
	bool ok = bench_check("log_softmax", got.data(), want.data(), n, atol, rtol);

	bench_stats s = bench_time(launch);
	// Minimum: read x once, write y once. Flops per element: 5 (max,
	// subtract, exp, add, final subtract), exp counted as 1; the per-row
	// log is negligible and not counted.
	bench_report("log_softmax", "naive", s, 2.0 * sizeof(float) * (double)n, 5.0 * (double)n);

	got = bench_to_host(dy, n);
	ok = bench_check("log_softmax after timing", got.data(), want.data(), n, atol, rtol) && ok;

	BENCH_CK(cudaFree(dx));
	BENCH_CK(cudaFree(dy));
	return bench_finish(ok);
}
