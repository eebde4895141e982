/* ks-nvcc: verified variants replace layernorm_kernel (arch 900); see docs/REWRITE.md */
#line 1 "/work/main/bench/layernorm/main.cu"
// layernorm: layer normalization over the last dimension of a [rows x cols]
// matrix (262144 x 1024 floats: 1 GiB in, 1 GiB out) with per-column gamma
// and beta, eps = 1e-5, one thread per row: each thread computes its row's
// mean, then its (biased) variance, then writes the normalized row.
#include "bench.h"
#include "ref.h"

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 3 "/tmp/ks-bench/layernorm/ks/tasks/_Z16layernorm_kernelPKfS0_S0_Pfiif/r2.variant.cu"
// The original kernel, for launches whose geometry the variant does not take.
#endif
#line 4 "/tmp/ks-bench/layernorm/ks/tasks/_Z16layernorm_kernelPKfS0_S0_Pfiif/r2.variant.cu"
__global__ void
ks_rows_orig_layernorm_kernel(const float *x, const float *gamma, const float *beta, float *y,
		 int rows, int cols, float eps)
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 7 "/tmp/ks-bench/layernorm/ks/tasks/_Z16layernorm_kernelPKfS0_S0_Pfiif/r2.variant.cu"
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= rows)
		return;
	const float *xr = x + (size_t)row * cols;
	float *yr = y + (size_t)row * cols;
	float mean = 0.0f;
	for (int j = 0; j < cols; j++)
		mean += xr[j];
	mean /= cols;
	float var = 0.0f;
	for (int j = 0; j < cols; j++) {
		float d = xr[j] - mean;
		var += d * d;
	}
	var /= cols;
	float rstd = 1.0f / sqrtf(var + eps);
	for (int j = 0; j < cols; j++)
		yr[j] = (xr[j] - mean) * rstd * gamma[j] + beta[j];
}
#else
{}
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900
#line 28 "/tmp/ks-bench/layernorm/ks/tasks/_Z16layernorm_kernelPKfS0_S0_Pfiif/r2.variant.cu"
__global__ void
__launch_bounds__(128) layernorm_kernel(const float *x, const float *gamma, const float *beta, float *y,
		 int rows, int cols, float eps)
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
	float mean = 0.0f;
	{
		decltype(mean) ks_r0 = mean;
		mean = (decltype(mean))0;
#pragma unroll 4
		for (int j = (0) + (int)ks_lane; j < cols; j += 128)
			mean += xr[j];
		for (int ks_o = 16; ks_o > 0; ks_o >>= 1) {
			mean += __shfl_xor_sync(0xffffffffu, mean, ks_o);
		}
		{
			__shared__ decltype(mean) ks_sv[4];
			if ((ks_lane & 31) == 0) {
				ks_sv[ks_lane >> 5] = mean;
			}
			__syncthreads();
			mean = ks_sv[0];
			for (int ks_w = 1; ks_w < 4; ks_w++) {
				mean += ks_sv[ks_w];
			}
			__syncthreads();
		}
		mean = ks_r0 + mean;
	}
	mean /= cols;
	float var = 0.0f;
	{
		decltype(var) ks_r0 = var;
		var = (decltype(var))0;
#pragma unroll 4
		for (int j = (0) + (int)ks_lane; j < cols; j += 128) {
			float d = xr[j] - mean;
			var += d * d;
		}
		for (int ks_o = 16; ks_o > 0; ks_o >>= 1) {
			var += __shfl_xor_sync(0xffffffffu, var, ks_o);
		}
		{
			__shared__ decltype(var) ks_sv[4];
			if ((ks_lane & 31) == 0) {
				ks_sv[ks_lane >> 5] = var;
			}
			__syncthreads();
			var = ks_sv[0];
			for (int ks_w = 1; ks_w < 4; ks_w++) {
				var += ks_sv[ks_w];
			}
			__syncthreads();
		}
		var = ks_r0 + var;
	}
	var /= cols;
	float rstd = 1.0f / sqrtf(var + eps);
	{
#pragma unroll 4
		for (int j = (0) + (int)ks_lane; j < cols; j += 128)
			yr[j] = (xr[j] - mean) * rstd * gamma[j] + beta[j];
	}
}
#else
#line 8 "/work/main/bench/layernorm/main.cu"
__global__ void
layernorm_kernel(const float *x, const float *gamma, const float *beta, float *y,
		 int rows, int cols, float eps)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= rows)
		return;
	const float *xr = x + (size_t)row * cols;
	float *yr = y + (size_t)row * cols;
	float mean = 0.0f;
	for (int j = 0; j < cols; j++)
		mean += xr[j];
	mean /= cols;
	float var = 0.0f;
	for (int j = 0; j < cols; j++) {
		float d = xr[j] - mean;
		var += d * d;
	}
	var /= cols;
	float rstd = 1.0f / sqrtf(var + eps);
	for (int j = 0; j < cols; j++)
		yr[j] = (xr[j] - mean) * rstd * gamma[j] + beta[j];
}
#endif
#line 1 "<ks-nvcc>"
/* Never launched: cudaFuncGetAttributes on it tells which image
   of this file the device runs (__CUDA_ARCH__ is ptxVersion
   times 10). */
static __global__ void ks_probe_layernorm_kernel(void) {}
#ifndef __CUDA_ARCH__
/* 1 when the device code that runs is the variant's (arch 900):
   then its launcher must run. Cached per device. */
static int
ks_variant_active_layernorm_kernel(void)
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
	if (cudaFuncGetAttributes(&ks_attr, ks_probe_layernorm_kernel) != cudaSuccess)
		return 0;
	ks_on = ks_attr.ptxVersion == 90;
	if (ks_dev >= 0)
		__atomic_store_n(&ks_known[ks_dev], ks_on ? 1 : 2,
				 __ATOMIC_RELAXED);
	return ks_on;
}
#line 102 "/tmp/ks-bench/layernorm/ks/tasks/_Z16layernorm_kernelPKfS0_S0_Pfiif/r2.variant.cu"
static void
ks_launch_layernorm_kernel(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
		const float *x, const float *gamma, const float *beta, float *y,
		 int rows, int cols, float eps)
{
	/* one original thread becomes 128; the original block's
	   x extent goes to gridDim.z */
	if (block.y == 1 && block.z == 1 && grid.z == 1 &&
	    block.x % 1 == 0 && block.x / 1 <= 65535) {
		layernorm_kernel<<<dim3(grid.x, grid.y, block.x / 1), 128, shmem, stream>>>(x, gamma, beta, y, rows, cols, eps);
		return;
	}
	ks_rows_orig_layernorm_kernel<<<grid, block, shmem, stream>>>(x, gamma, beta, y, rows, cols, eps);
}
#endif
#line 30 "/work/main/bench/layernorm/main.cu"
 

int
main(int argc, char **argv)
{
	bench_init("layernorm", argc, argv);
	// Small: sizes that are not multiples of the block or of a warp.
	const int rows = bench_small() ? 37 : 262144;
	const int cols = bench_small() ? 29 : 1024;
	const size_t n = (size_t)rows * cols;

	// Activations: uniform in [-2, 2], each row scaled by [0.5, 2] and
	// shifted by [-1, 1], so rows differ in mean and spread.
	std::vector<float> hx(n), hg(cols), hb(cols);
	bench_fill(hx, 401, -2.0f, 2.0f);
	bench_rng rowp(402);
	for (int r = 0; r < rows; r++) {
		float scale = rowp.uniform(0.5f, 2.0f);
		float off = rowp.uniform(-1.0f, 1.0f);
		for (int j = 0; j < cols; j++)
			hx[(size_t)r * cols + j] = hx[(size_t)r * cols + j] * scale + off;
	}
	bench_fill(hg, 403, 0.5f, 1.5f);
	bench_fill(hb, 404, -0.5f, 0.5f);
	std::vector<float> want(n);
	bench_par(rows, [&](size_t lo, size_t hi) { layernorm_ref(hx.data() + lo * cols, hg.data(), hb.data(), want.data() + lo * cols, hi - lo, cols, LAYERNORM_EPS); }, 64);

	float *dx = bench_to_device(hx);
	float *dg = bench_to_device(hg);
	float *db = bench_to_device(hb);
	float *dy = nullptr;
	BENCH_CK(cudaMalloc(&dy, n * sizeof(float)));
	// All-ones bytes are a NaN: an element the kernel misses fails the check.
	BENCH_CK(cudaMemset(dy, 0xff, n * sizeof(float)));

	const int threads = 256;
	const int blocks = (rows + threads - 1) / threads;
	auto launch = [&]() {
		
#ifdef __CUDA_ARCH__
#line 68 "/work/main/bench/layernorm/main.cu"
		layernorm_kernel<<<blocks, threads>>>(dx, dg, db, dy, rows, cols, LAYERNORM_EPS)
#else
#line 68 "/work/main/bench/layernorm/main.cu"
		(ks_variant_active_layernorm_kernel() ? ks_launch_layernorm_kernel(blocks, threads, 0, cudaStream_t(), dx, dg, db, dy, rows, cols, LAYERNORM_EPS) : (void)(
#line 68 "/work/main/bench/layernorm/main.cu"
		layernorm_kernel<<<blocks, threads>>>(dx, dg, db, dy, rows, cols, LAYERNORM_EPS)))
#endif
#line 68 "/work/main/bench/layernorm/main.cu"
		                                                                                ;
	};

	// Tolerance: outputs are O(1) (|y| < ~3). The fp32 sums over 1024
	// terms carry rounding errors that grow like sqrt(cols) * 2^-24 relative
	// (~1e-6 here, for any summation order), so atol = rtol = 1e-4 leaves a
	// wide margin; the unbiased variance would already be off by ~1e-3.
	const double atol = 1e-4, rtol = 1e-4;
	launch();
	BENCH_CK(cudaGetLastError());
	BENCH_CK(cudaDeviceSynchronize());
	std::vector<float> got = bench_to_host(dy, n);
	bool ok = bench_check("layernorm", got.data(), want.data(), n, atol, rtol);

	bench_stats s = bench_time(launch);
	// Minimum: read x, gamma and beta once, write y once. Flops per element:
	// 8 (mean: add; variance: subtract, multiply-add; output: subtract,
	// multiply, multiply-add), FMA counted as 2; per-row work not counted.
	const double bytes = sizeof(float) * (2.0 * (double)n + 2.0 * cols);
	bench_report("layernorm", "naive", s, bytes, 8.0 * (double)n);

	got = bench_to_host(dy, n);
	ok = bench_check("layernorm after timing", got.data(), want.data(), n, atol, rtol) && ok;

	BENCH_CK(cudaFree(dx));
	BENCH_CK(cudaFree(dg));
	BENCH_CK(cudaFree(db));
	BENCH_CK(cudaFree(dy));
	return bench_finish(ok);
}
