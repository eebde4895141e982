/* ks-nvcc: verified variants replace reduce_sum_kernel (arch 900); see docs/REWRITE.md */
#line 1 "/work/main/bench/reduce_sum/main.cu"
// reduce_sum: sum over the last dimension of a [rows x cols] matrix
// (65536 x 4096 floats: 1 GiB in, 256 KiB out), one thread per row: each
// thread walks its own row and adds the entries in order.
// Vendor: cub::DeviceSegmentedReduce::Sum with one segment per row.
#include <cub/cub.cuh>

#include "bench.h"
#include "ref.h"

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 3 "/tmp/ks-bench/reduce_sum/ks-no-long-term-memory/tasks/_Z17reduce_sum_kernelPKfPfii/r13.variant.cu"
// The original kernel, for launches whose geometry the variant does not take.
#endif
#line 4 "/tmp/ks-bench/reduce_sum/ks-no-long-term-memory/tasks/_Z17reduce_sum_kernelPKfPfii/r13.variant.cu"
__global__ void
ks_rows_orig_reduce_sum_kernel(const float *x, float *y, int rows, int cols)
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 6 "/tmp/ks-bench/reduce_sum/ks-no-long-term-memory/tasks/_Z17reduce_sum_kernelPKfPfii/r13.variant.cu"
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= rows)
		return;
	const float *xr = x + (size_t)row * cols;
	float s = 0.0f;
	for (int c = 0; c < cols; c++)
		s += xr[c];
	y[row] = s;
}
#else
{}
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900
#line 17 "/tmp/ks-bench/reduce_sum/ks-no-long-term-memory/tasks/_Z17reduce_sum_kernelPKfPfii/r13.variant.cu"
__global__ void
__launch_bounds__(128) reduce_sum_kernel(const float *x, float *y, int rows, int cols)
{
	const unsigned ks_lane = threadIdx.x % 32;
	const uint3 ks_tid = make_uint3(blockIdx.z * 4 + threadIdx.x / 32, 0, 0);
	const uint3 ks_bid = make_uint3(blockIdx.x, blockIdx.y, 0);
	const dim3 ks_bdim(gridDim.z * 4, 1, 1);

	int row = ks_bid.x * ks_bdim.x + ks_tid.x;
	if (row >= rows)
		return;
	const float *xr = x + (size_t)row * cols;
	float s = 0.0f;
	{
		decltype(s) ks_r0 = s;
		s = (decltype(s))0;
#pragma unroll 4
		for (int c = (0) + (int)ks_lane; c < cols; c += 32)
			s += xr[c];
		for (int ks_o = 16; ks_o > 0; ks_o >>= 1) {
			s += __shfl_xor_sync(0xffffffffu, s, ks_o);
		}
		s = ks_r0 + s;
	}
	if (ks_lane == 0) {
		y[row] = s;
	}
}
#else
#line 10 "/work/main/bench/reduce_sum/main.cu"
__global__ void
reduce_sum_kernel(const float *x, float *y, int rows, int cols)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= rows)
		return;
	const float *xr = x + (size_t)row * cols;
	float s = 0.0f;
	for (int c = 0; c < cols; c++)
		s += xr[c];
	y[row] = s;
}
#endif
#line 1 "<ks-nvcc>"
/* Never launched: cudaFuncGetAttributes on it tells which image
   of this file the device runs (__CUDA_ARCH__ is ptxVersion
   times 10). */
static __global__ void ks_probe_reduce_sum_kernel(void) {}
#ifndef __CUDA_ARCH__
/* 1 when the device code that runs is the variant's (arch 900):
   then its launcher must run. Cached per device. */
static int
ks_variant_active_reduce_sum_kernel(void)
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
	if (cudaFuncGetAttributes(&ks_attr, ks_probe_reduce_sum_kernel) != cudaSuccess)
		return 0;
	ks_on = ks_attr.ptxVersion == 90;
	if (ks_dev >= 0)
		__atomic_store_n(&ks_known[ks_dev], ks_on ? 1 : 2,
				 __ATOMIC_RELAXED);
	return ks_on;
}
#line 46 "/tmp/ks-bench/reduce_sum/ks-no-long-term-memory/tasks/_Z17reduce_sum_kernelPKfPfii/r13.variant.cu"
static void
ks_launch_reduce_sum_kernel(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
		const float *x, float *y, int rows, int cols)
{
	/* one original thread becomes 32; the original block's
	   x extent goes to gridDim.z */
	if (block.y == 1 && block.z == 1 && grid.z == 1 &&
	    block.x % 4 == 0 && block.x / 4 <= 65535) {
		reduce_sum_kernel<<<dim3(grid.x, grid.y, block.x / 4), 128, shmem, stream>>>(x, y, rows, cols);
		return;
	}
	ks_rows_orig_reduce_sum_kernel<<<grid, block, shmem, stream>>>(x, y, rows, cols);
}
#endif
#line 21 "/work/main/bench/reduce_sum/main.cu"
 

int
main(int argc, char **argv)
{
	bench_init("reduce_sum", argc, argv);
	// Small: sizes that are not multiples of the block or of a warp.
	const int rows = bench_small() ? 37 : 65536;
	const int cols = bench_small() ? 77 : 4096;
	const size_t n = (size_t)rows * cols;

	std::vector<float> hx(n);
	bench_fill(hx, 101, -1.0f, 1.0f);
	std::vector<float> want(rows);
	bench_par(rows, [&](size_t lo, size_t hi) { reduce_sum_ref(hx.data() + lo * cols, want.data() + lo, hi - lo, cols); }, 64);

	float *dx = bench_to_device(hx);
	float *dy = nullptr, *dv = nullptr;
	BENCH_CK(cudaMalloc(&dy, rows * sizeof(float)));
	BENCH_CK(cudaMalloc(&dv, rows * sizeof(float)));
	// All-ones bytes are a NaN: a row the kernel misses fails the check.
	BENCH_CK(cudaMemset(dy, 0xff, rows * sizeof(float)));
	BENCH_CK(cudaMemset(dv, 0xff, rows * sizeof(float)));

	// Segment r is [off[r], off[r + 1]); n < 2^31 fits an int offset.
	std::vector<int> hoff(rows + 1);
	for (int r = 0; r <= rows; r++)
		hoff[r] = r * cols;
	int *doff = bench_to_device(hoff);
	size_t temp_bytes = 0;
	BENCH_CK(cub::DeviceSegmentedReduce::Sum(nullptr, temp_bytes, dx, dv, rows,
						 doff, doff + 1));
	void *dtemp = nullptr;
	BENCH_CK(cudaMalloc(&dtemp, temp_bytes ? temp_bytes : 1));

	const int threads = 256;
	const int blocks = (rows + threads - 1) / threads;
	auto launch = [&]() { 
#ifdef __CUDA_ARCH__
#line 58 "/work/main/bench/reduce_sum/main.cu"
	                      reduce_sum_kernel<<<blocks, threads>>>(dx, dy, rows, cols)
#else
#line 58 "/work/main/bench/reduce_sum/main.cu"
	                      (ks_variant_active_reduce_sum_kernel() ? ks_launch_reduce_sum_kernel(blocks, threads, 0, cudaStream_t(), dx, dy, rows, cols) : (void)(
#line 58 "/work/main/bench/reduce_sum/main.cu"
	                      reduce_sum_kernel<<<blocks, threads>>>(dx, dy, rows, cols)))
#endif
#line 58 "/work/main/bench/reduce_sum/main.cu"
	                                                                                ; };
	auto launch_cub = [&]() {
		BENCH_CK(cub::DeviceSegmentedReduce::Sum(dtemp, temp_bytes, dx, dv, rows,
							 doff, doff + 1));
	};

	// Tolerance: entries are in [-1, 1), so a row's partial sums wander like
	// a random walk of size ~sqrt(k / 3). Each fp32 addition rounds by at
	// most 2^-24 of the partial sum, and these roundings are independent, so
	// the error of a sequential sum of cols terms has a spread of about
	// 2^-24 * cols / 2.5 (~3e-5 at cols = 4096); a tree order (CUB) does
	// better. We allow 1e-6 * cols (4e-3 at full size, two orders of
	// magnitude above that spread), still far below the ~0.5 that a missed or
	// repeated entry would cause.
	const double atol = 1e-6 * cols, rtol = 0.0;
	launch();
	BENCH_CK(cudaGetLastError());
	launch_cub();
	BENCH_CK(cudaGetLastError());
	BENCH_CK(cudaDeviceSynchronize());
	std::vector<float> got = bench_to_host(dy, rows);
	bool ok = bench_check("reduce_sum", got.data(), want.data(), rows, atol, rtol);
	got = bench_to_host(dv, rows);
	ok = bench_check("cub_segmented_sum", got.data(), want.data(), rows, atol, rtol) && ok;

	// Minimum: read x once, write y once. Flops: one add per entry.
	const double bytes = sizeof(float) * ((double)n + rows);
	const double flops = (double)n;
	bench_stats s = bench_time(launch);
	bench_report("reduce_sum", "naive", s, bytes, flops);
	s = bench_time(launch_cub);
	bench_report("cub_segmented_sum", "vendor", s, bytes, flops);

	got = bench_to_host(dy, rows);
	ok = bench_check("reduce_sum after timing", got.data(), want.data(), rows, atol,
			 rtol) && ok;
	got = bench_to_host(dv, rows);
	ok = bench_check("cub_segmented_sum after timing", got.data(), want.data(), rows,
			 atol, rtol) && ok;

	BENCH_CK(cudaFree(dtemp));
	BENCH_CK(cudaFree(doff));
	BENCH_CK(cudaFree(dx));
	BENCH_CK(cudaFree(dy));
	BENCH_CK(cudaFree(dv));
	return bench_finish(ok);
}
