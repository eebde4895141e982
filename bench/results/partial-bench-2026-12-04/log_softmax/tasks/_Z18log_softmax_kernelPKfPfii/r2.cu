/* ks-nvcc: verified variants replace log_softmax_kernel (arch 900); see docs/REWRITE.md */
#line 1 "/work/main/bench/log_softmax/main.cu"
// log_softmax: numerically stable log-softmax over each row of a
// [rows x cols] matrix (262144 x 1024 floats: 1 GiB in, 1 GiB out), one
// thread per row: each thread finds its row's max, sums exp(x - max), then
// writes x - max - log(sum).
#include "bench.h"
#include "ref.h"

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 3 "/tmp/ks-bench/log_softmax/ks/tasks/_Z18log_softmax_kernelPKfPfii/r2.variant.cu"
// The original kernel, for launches whose geometry the variant does not take.
#endif
#line 4 "/tmp/ks-bench/log_softmax/ks/tasks/_Z18log_softmax_kernelPKfPfii/r2.variant.cu"
__global__ void
ks_rows_orig_log_softmax_kernel(const float *x, float *y, int rows, int cols)
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 6 "/tmp/ks-bench/log_softmax/ks/tasks/_Z18log_softmax_kernelPKfPfii/r2.variant.cu"
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
{}
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900
#line 23 "/tmp/ks-bench/log_softmax/ks/tasks/_Z18log_softmax_kernelPKfPfii/r2.variant.cu"
__global__ void
__launch_bounds__(128) log_softmax_kernel(const float *x, float *y, int rows, int cols)
{
	const unsigned ks_lane = threadIdx.x % 128;
	const uint3 ks_tid = make_uint3(blockIdx.z * 1 + threadIdx.x / 128, 0, 0);
	const uint3 ks_bid = make_uint3(blockIdx.x, blockIdx.y, 0);
	const dim3 ks_bdim(gridDim.z * 1, 1, 1);

	int row = ks_bid.x * ks_bdim.x + ks_tid.x;
	if (row >= rows)
		return;
	const float *xr = x + (size_t)row * cols;
	float *yr = y + (size_t)row * cols;
	float m = xr[0];
	{
#pragma unroll 4
		for (int j = (1) + (int)ks_lane; j < cols; j += 128)
			m = fmaxf(m, xr[j]);
		for (int ks_o = 16; ks_o > 0; ks_o >>= 1) {
			m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, ks_o));
		}
		{
			__shared__ decltype(m) ks_sv[4];
			if ((ks_lane & 31) == 0) {
				ks_sv[ks_lane >> 5] = m;
			}
			__syncthreads();
			m = ks_sv[0];
			for (int ks_w = 1; ks_w < 4; ks_w++) {
				m = fmaxf(m, ks_sv[ks_w]);
			}
			__syncthreads();
		}
	}
	float sum = 0.0f;
	{
		decltype(sum) ks_r0 = sum;
		sum = (decltype(sum))0;
#pragma unroll 4
		for (int j = (0) + (int)ks_lane; j < cols; j += 128)
			sum += expf(xr[j] - m);
		for (int ks_o = 16; ks_o > 0; ks_o >>= 1) {
			sum += __shfl_xor_sync(0xffffffffu, sum, ks_o);
		}
		{
			__shared__ decltype(sum) ks_sv[4];
			if ((ks_lane & 31) == 0) {
				ks_sv[ks_lane >> 5] = sum;
			}
			__syncthreads();
			sum = ks_sv[0];
			for (int ks_w = 1; ks_w < 4; ks_w++) {
				sum += ks_sv[ks_w];
			}
			__syncthreads();
		}
		sum = ks_r0 + sum;
	}
	float logsum = logf(sum);
	{
#pragma unroll 4
		for (int j = (0) + (int)ks_lane; j < cols; j += 128)
			yr[j] = xr[j] - m - logsum;
	}
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
#line 89 "/tmp/ks-bench/log_softmax/ks/tasks/_Z18log_softmax_kernelPKfPfii/r2.variant.cu"
static void
ks_launch_log_softmax_kernel(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
		const float *x, float *y, int rows, int cols)
{
	/* one original thread becomes 128; the original block's
	   x extent goes to gridDim.z */
	if (block.y == 1 && block.z == 1 && grid.z == 1 &&
	    block.x % 1 == 0 && block.x / 1 <= 65535) {
		log_softmax_kernel<<<dim3(grid.x, grid.y, block.x / 1), 128, shmem, stream>>>(x, y, rows, cols);
		return;
	}
	ks_rows_orig_log_softmax_kernel<<<grid, block, shmem, stream>>>(x, y, rows, cols);
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
