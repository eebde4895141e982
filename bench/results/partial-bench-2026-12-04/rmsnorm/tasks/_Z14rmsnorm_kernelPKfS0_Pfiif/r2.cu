/* ks-nvcc: verified variants replace rmsnorm_kernel (arch 900); see docs/REWRITE.md */
#line 1 "/work/main/bench/rmsnorm/main.cu"
// rmsnorm: RMS normalization over the last dimension of a [rows x cols]
// matrix (262144 x 1024 floats: 1 GiB in, 1 GiB out) with a per-column
// weight, eps = 1e-6, one thread per row: each thread sums its row's
// squares, then writes x / sqrt(mean square + eps) * w.
#include "bench.h"
#include "ref.h"

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 3 "/tmp/ks-bench/rmsnorm/ks/tasks/_Z14rmsnorm_kernelPKfS0_Pfiif/r2.variant.cu"
// The original kernel, for launches whose geometry the variant does not take.
#endif
#line 4 "/tmp/ks-bench/rmsnorm/ks/tasks/_Z14rmsnorm_kernelPKfS0_Pfiif/r2.variant.cu"
__global__ void
ks_rows_orig_rmsnorm_kernel(const float *x, const float *w, float *y, int rows, int cols, float eps)
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 6 "/tmp/ks-bench/rmsnorm/ks/tasks/_Z14rmsnorm_kernelPKfS0_Pfiif/r2.variant.cu"
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= rows)
		return;
	const float *xr = x + (size_t)row * cols;
	float *yr = y + (size_t)row * cols;
	float ss = 0.0f;
	for (int j = 0; j < cols; j++)
		ss += xr[j] * xr[j];
	float rinv = 1.0f / sqrtf(ss / cols + eps);
	for (int j = 0; j < cols; j++)
		yr[j] = xr[j] * rinv * w[j];
}
#else
{}
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900
#line 20 "/tmp/ks-bench/rmsnorm/ks/tasks/_Z14rmsnorm_kernelPKfS0_Pfiif/r2.variant.cu"
__global__ void
__launch_bounds__(128) rmsnorm_kernel(const float *x, const float *w, float *y, int rows, int cols, float eps)
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
	float ss = 0.0f;
	{
		decltype(ss) ks_r0 = ss;
		ss = (decltype(ss))0;
#pragma unroll 4
		for (int j = (0) + (int)ks_lane; j < cols; j += 128)
			ss += xr[j] * xr[j];
		for (int ks_o = 16; ks_o > 0; ks_o >>= 1) {
			ss += __shfl_xor_sync(0xffffffffu, ss, ks_o);
		}
		{
			__shared__ decltype(ss) ks_sv[4];
			if ((ks_lane & 31) == 0) {
				ks_sv[ks_lane >> 5] = ss;
			}
			__syncthreads();
			ss = ks_sv[0];
			for (int ks_w = 1; ks_w < 4; ks_w++) {
				ss += ks_sv[ks_w];
			}
			__syncthreads();
		}
		ss = ks_r0 + ss;
	}
	float rinv = 1.0f / sqrtf(ss / cols + eps);
	{
#pragma unroll 4
		for (int j = (0) + (int)ks_lane; j < cols; j += 128)
			yr[j] = xr[j] * rinv * w[j];
	}
}
#else
#line 8 "/work/main/bench/rmsnorm/main.cu"
__global__ void
rmsnorm_kernel(const float *x, const float *w, float *y, int rows, int cols, float eps)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= rows)
		return;
	const float *xr = x + (size_t)row * cols;
	float *yr = y + (size_t)row * cols;
	float ss = 0.0f;
	for (int j = 0; j < cols; j++)
		ss += xr[j] * xr[j];
	float rinv = 1.0f / sqrtf(ss / cols + eps);
	for (int j = 0; j < cols; j++)
		yr[j] = xr[j] * rinv * w[j];
}
#endif
#line 1 "<ks-nvcc>"
/* Never launched: cudaFuncGetAttributes on it tells which image
   of this file the device runs (__CUDA_ARCH__ is ptxVersion
   times 10). */
static __global__ void ks_probe_rmsnorm_kernel(void) {}
#ifndef __CUDA_ARCH__
/* 1 when the device code that runs is the variant's (arch 900):
   then its launcher must run. Cached per device. */
static int
ks_variant_active_rmsnorm_kernel(void)
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
	if (cudaFuncGetAttributes(&ks_attr, ks_probe_rmsnorm_kernel) != cudaSuccess)
		return 0;
	ks_on = ks_attr.ptxVersion == 90;
	if (ks_dev >= 0)
		__atomic_store_n(&ks_known[ks_dev], ks_on ? 1 : 2,
				 __ATOMIC_RELAXED);
	return ks_on;
}
#line 65 "/tmp/ks-bench/rmsnorm/ks/tasks/_Z14rmsnorm_kernelPKfS0_Pfiif/r2.variant.cu"
static void
ks_launch_rmsnorm_kernel(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
		const float *x, const float *w, float *y, int rows, int cols, float eps)
{
	/* one original thread becomes 128; the original block's
	   x extent goes to gridDim.z */
	if (block.y == 1 && block.z == 1 && grid.z == 1 &&
	    block.x % 1 == 0 && block.x / 1 <= 65535) {
		rmsnorm_kernel<<<dim3(grid.x, grid.y, block.x / 1), 128, shmem, stream>>>(x, w, y, rows, cols, eps);
		return;
	}
	ks_rows_orig_rmsnorm_kernel<<<grid, block, shmem, stream>>>(x, w, y, rows, cols, eps);
}
#endif
#line 22 "/work/main/bench/rmsnorm/main.cu"
 

int
main(int argc, char **argv)
{
	bench_init("rmsnorm", argc, argv);
	// Small: sizes that are not multiples of the block or of a warp.
	const int rows = bench_small() ? 37 : 262144;
	const int cols = bench_small() ? 29 : 1024;
	const size_t n = (size_t)rows * cols;

	// Activations: uniform in [-2, 2], each row scaled by [0.5, 2].
	std::vector<float> hx(n), hw(cols);
	bench_fill(hx, 501, -2.0f, 2.0f);
	bench_rng rowp(502);
	for (int r = 0; r < rows; r++) {
		float scale = rowp.uniform(0.5f, 2.0f);
		for (int j = 0; j < cols; j++)
			hx[(size_t)r * cols + j] *= scale;
	}
	bench_fill(hw, 503, 0.5f, 1.5f);
	std::vector<float> want(n);
	bench_par(rows, [&](size_t lo, size_t hi) { rmsnorm_ref(hx.data() + lo * cols, hw.data(), want.data() + lo * cols, hi - lo, cols, RMSNORM_EPS); }, 64);

	float *dx = bench_to_device(hx);
	float *dw = bench_to_device(hw);
	float *dy = nullptr;
	BENCH_CK(cudaMalloc(&dy, n * sizeof(float)));
	// All-ones bytes are a NaN: an element the kernel misses fails the check.
	BENCH_CK(cudaMemset(dy, 0xff, n * sizeof(float)));

	const int threads = 256;
	const int blocks = (rows + threads - 1) / threads;
	auto launch = [&]() {
		
#ifdef __CUDA_ARCH__
#line 56 "/work/main/bench/rmsnorm/main.cu"
		rmsnorm_kernel<<<blocks, threads>>>(dx, dw, dy, rows, cols, RMSNORM_EPS)
#else
#line 56 "/work/main/bench/rmsnorm/main.cu"
		(ks_variant_active_rmsnorm_kernel() ? ks_launch_rmsnorm_kernel(blocks, threads, 0, cudaStream_t(), dx, dw, dy, rows, cols, RMSNORM_EPS) : (void)(
#line 56 "/work/main/bench/rmsnorm/main.cu"
		rmsnorm_kernel<<<blocks, threads>>>(dx, dw, dy, rows, cols, RMSNORM_EPS)))
#endif
#line 56 "/work/main/bench/rmsnorm/main.cu"
		                                                                        ;
	};

	// Tolerance: outputs are O(1) (|y| < ~3). The sum of squares is a sum
	// of positive terms, within (cols - 1) * 2^-24 ~ 6e-5 relative in the
	// worst case (typically ~1e-6), which the square root halves; with a
	// few ulp for the final products: atol = rtol = 1e-4.
	const double atol = 1e-4, rtol = 1e-4;
	launch();
	BENCH_CK(cudaGetLastError());
	BENCH_CK(cudaDeviceSynchronize());
	std::vector<float> got = bench_to_host(dy, n);
	bool ok = bench_check("rmsnorm", got.data(), want.data(), n, atol, rtol);

	bench_stats s = bench_time(launch);
	// Minimum: read x and w once, write y once. Flops per element: 4
	// (square-accumulate as one FMA, two multiplies), FMA counted as 2;
	// per-row work not counted.
	const double bytes = sizeof(float) * (2.0 * (double)n + (double)cols);
	bench_report("rmsnorm", "naive", s, bytes, 4.0 * (double)n);

	got = bench_to_host(dy, n);
	ok = bench_check("rmsnorm after timing", got.data(), want.data(), n, atol, rtol) && ok;

	BENCH_CK(cudaFree(dx));
	BENCH_CK(cudaFree(dw));
	BENCH_CK(cudaFree(dy));
	return bench_finish(ok);
}
