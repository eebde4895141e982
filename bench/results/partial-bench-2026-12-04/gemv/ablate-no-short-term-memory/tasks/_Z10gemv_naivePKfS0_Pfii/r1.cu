/* ks-nvcc: verified variants replace gemv_naive (arch 900); see docs/REWRITE.md */
#line 1 "/work/main/bench/gemv/main.cu"
// gemv: y = A * x for a 16384 x 16384 row-major fp32 matrix (1 GiB), one
// thread per output row walking along its row; against cuBLAS SGEMV.
#include <cublas_v2.h>

#include "bench.h"
#include "ref.h"

#define CUBLAS_CK(call)                                                       \
	do {                                                                  \
		cublasStatus_t s_ = (call);                                   \
		if (s_ != CUBLAS_STATUS_SUCCESS) {                            \
			std::printf("FAIL %s: %s at %s:%d: cuBLAS status %d\n", \
				    bench_prog, #call, __FILE__, __LINE__,    \
				    (int)s_);                                 \
			std::exit(1);                                         \
		}                                                             \
	} while (0)

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 3 "/tmp/ks-bench/gemv/ks-no-short-term-memory/tasks/_Z10gemv_naivePKfS0_Pfii/r1.variant.cu"
#ifndef KS_GEMV_HELPERS
#define KS_GEMV_HELPERS
__host__ __device__ __forceinline__ static long long
ks_min_ll(long long a, long long b)
{
	return a < b ? a : b;
}
/* Iterations of for (k = init; k < bound; k += step). */
__host__ __device__ __forceinline__ static long long
ks_trip(long long init, long long bound, long long step)
{
	return bound > init ? (bound - init + step - 1) / step : 0;
}
#endif

#pragma nv_diagnostic push
#pragma nv_diag_suppress 177
#pragma nv_diag_suppress 550
/* The body of gemv_naive at thread ks_tid of block ks_bid, its k-loop's sum given
   as ks_gemm_v. */
__device__ __forceinline__ static void
ks_gemv_body_gemv_naive(const uint3 ks_tid, const uint3 ks_bid, const dim3 ks_bdim,
	const dim3 ks_gdim, const float *A, const float *x, float *y, int M, int N, const float ks_gemm_v)
{
	int row = ks_bid.x * ks_bdim.x + ks_tid.x;
	if (row < M) {
		float sum = 0.0f;
		sum += ks_gemm_v;
		y[row] = sum;
	}
}
#pragma nv_diagnostic pop

#endif
#line 36 "/tmp/ks-bench/gemv/ks-no-short-term-memory/tasks/_Z10gemv_naivePKfS0_Pfii/r1.variant.cu"
__global__ void __launch_bounds__(64)
ks_gemv_gemv_naive(const dim3 ks_og, const dim3 ks_ob, const float *A, const float *x, float *y, int M, int N)
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 38 "/tmp/ks-bench/gemv/ks-no-short-term-memory/tasks/_Z10gemv_naivePKfS0_Pfii/r1.variant.cu"
{
	const long long ks_nx = (long long)ks_og.x * ks_ob.x;
	const long long ks_limx = ks_min_ll(ks_nx, ((1LL * (long long)(M))));
	const long long ks_T = ks_trip(((0LL)), ((1LL * (long long)(N))), 1LL);
	/* A (line 26): element L of row gx at A[c0 + cz*z + cx*gx + ck*L] */
	const long long ks_mx = ((1LL * (long long)(N))), ks_mk = ((1LL));
	(void)ks_mk;
	const float *const ks_mP = (const float *)A + (((0LL)) + ((0LL)) * (long long)blockIdx.z);
	const long long ks_vk = ((1LL));
	const float *const ks_vp = (const float *)x + (((0LL)) + ((0LL)) * (long long)blockIdx.z);
	const unsigned ks_lane = threadIdx.x & 31u;
	const long long ks_gx = (long long)blockIdx.x * 2 + threadIdx.x / 32u;
	float ks_acc = 0.0f;

	if (ks_gx >= ks_nx)
		return;
	if (ks_gx < ks_limx) {
		const float *const ks_mp = ks_mP + ks_mx * ks_gx;
		long long ks_L = 0;

		if (((unsigned long long)ks_mp & 15) == 0 &&
		    ((unsigned long long)ks_vp & 15) == 0) {
			for (; ks_L + 512 <= ks_T; ks_L += 512) {
				float4 ks_a[4], ks_x[4];

				#pragma unroll
				for (int ks_u = 0; ks_u < 4; ks_u++) {
					const long long ks_l = ks_L + ks_u * 128 + ks_lane * 4;

					ks_a[ks_u] = *(const float4 *)(ks_mp + ks_l);
					ks_x[ks_u] = *(const float4 *)(ks_vp + ks_l);
				}
				#pragma unroll
				for (int ks_u = 0; ks_u < 4; ks_u++) {
					ks_acc += ks_a[ks_u].x * ks_x[ks_u].x;
					ks_acc += ks_a[ks_u].y * ks_x[ks_u].y;
					ks_acc += ks_a[ks_u].z * ks_x[ks_u].z;
					ks_acc += ks_a[ks_u].w * ks_x[ks_u].w;
				}
			}
		}
		for (long long ks_l = ks_L + ks_lane; ks_l < ks_T; ks_l += 32)
			ks_acc += ks_mp[ks_l] * ks_vp[ks_vk * ks_l];
	}
	for (int ks_o = 16; ks_o > 0; ks_o /= 2)
		ks_acc += __shfl_xor_sync(0xffffffffu, ks_acc, ks_o);
	if (ks_lane == 0) {
		const unsigned ks_ux = (unsigned)ks_gx;

		ks_gemv_body_gemv_naive(make_uint3(ks_ux % ks_ob.x, 0u, 0u),
			make_uint3(ks_ux / ks_ob.x, 0u, blockIdx.z), ks_ob, ks_og,
			A, x, y, M, N, ks_acc);
	}
}
#else
{}
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900
#line 93 "/tmp/ks-bench/gemv/ks-no-short-term-memory/tasks/_Z10gemv_naivePKfS0_Pfii/r1.variant.cu"
__global__ void
gemv_naive(const float *A, const float *x, float *y, int M, int N)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row < M) {
		float sum = 0.0f;
		for (int j = 0; j < N; j++)
			sum += A[row * N + j] * x[j];
		y[row] = sum;
	}
}
#else
#line 19 "/work/main/bench/gemv/main.cu"
__global__ void
gemv_naive(const float *A, const float *x, float *y, int M, int N)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row < M) {
		float sum = 0.0f;
		for (int j = 0; j < N; j++)
			sum += A[row * N + j] * x[j];
		y[row] = sum;
	}
}
#endif
#line 1 "<ks-nvcc>"
/* Never launched: cudaFuncGetAttributes on it tells which image
   of this file the device runs (__CUDA_ARCH__ is ptxVersion
   times 10). */
static __global__ void ks_probe_gemv_naive(void) {}
#ifndef __CUDA_ARCH__
/* 1 when the device code that runs is the variant's (arch 900):
   then its launcher must run. Cached per device. */
static int
ks_variant_active_gemv_naive(void)
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
	if (cudaFuncGetAttributes(&ks_attr, ks_probe_gemv_naive) != cudaSuccess)
		return 0;
	ks_on = ks_attr.ptxVersion == 90;
	if (ks_dev >= 0)
		__atomic_store_n(&ks_known[ks_dev], ks_on ? 1 : 2,
				 __ATOMIC_RELAXED);
	return ks_on;
}
#line 105 "/tmp/ks-bench/gemv/ks-no-short-term-memory/tasks/_Z10gemv_naivePKfS0_Pfii/r1.variant.cu"
static void
ks_launch_gemv_naive(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
		const float *A, const float *x, float *y, int M, int N)
{
	const unsigned long long ks_nx = (unsigned long long)grid.x * block.x;

	/* launches that are not 1-D in x: the original */
	if (block.y != 1 || block.z != 1 || grid.y != 1 || !grid.z || !ks_nx ||
	    ks_nx > 0xffffffffull) {
		gemv_naive<<<grid, block, shmem, stream>>>(A, x, y, M, N);
		return;
	}
	ks_gemv_gemv_naive<<<dim3((unsigned)((ks_nx + 1) / 2), 1, grid.z), dim3(64), 0, stream>>>(grid, block, A, x, y, M, N);
}
#endif
#line 29 "/work/main/bench/gemv/main.cu"
 

int
main(int argc, char **argv)
{
	bench_init("gemv", argc, argv);
	// Full: 16384 x 16384. Small: not multiples of the block.
	const int M = bench_small() ? 301 : 16384;
	const int N = bench_small() ? 203 : 16384;
	const size_t nA = (size_t)M * N;

	std::vector<float> hA(nA), hx(N);
	bench_fill(hA, 21, -1.0f, 1.0f);
	bench_fill(hx, 22, -1.0f, 1.0f);
	// The whole reference (2.7e8 multiply-adds in double, well under a
	// second).
	std::vector<float> want(M);
	gemv_ref(hA.data(), hx.data(), want.data(), M, N);

	float *dA = bench_to_device(hA), *dx = bench_to_device(hx);
	float *dy = nullptr, *dyv = nullptr;
	BENCH_CK(cudaMalloc(&dy, M * sizeof(float)));
	BENCH_CK(cudaMalloc(&dyv, M * sizeof(float)));
	// All-ones bytes are a NaN: an element a kernel misses fails the check.
	BENCH_CK(cudaMemset(dy, 0xff, M * sizeof(float)));
	BENCH_CK(cudaMemset(dyv, 0xff, M * sizeof(float)));

	cublasHandle_t h;
	CUBLAS_CK(cublasCreate(&h));
	const float alpha = 1.0f, beta = 0.0f;

	const int threads = 256;
	const int blocks = (M + threads - 1) / threads;
	auto naive = [&]() { 
#ifdef __CUDA_ARCH__
#line 62 "/work/main/bench/gemv/main.cu"
	                     gemv_naive<<<blocks, threads>>>(dA, dx, dy, M, N)
#else
#line 62 "/work/main/bench/gemv/main.cu"
	                     (ks_variant_active_gemv_naive() ? ks_launch_gemv_naive(blocks, threads, 0, cudaStream_t(), dA, dx, dy, M, N) : (void)(
#line 62 "/work/main/bench/gemv/main.cu"
	                     gemv_naive<<<blocks, threads>>>(dA, dx, dy, M, N)))
#endif
#line 62 "/work/main/bench/gemv/main.cu"
	                                                                      ; };
	// Column-major, the row-major A is an N x M matrix A^T with leading
	// dimension N: y = (A^T)^T * x.
	auto vendor = [&]() {
		CUBLAS_CK(cublasSgemv(h, CUBLAS_OP_T, N, M, &alpha, dA, N, dx, 1,
				      &beta, dyv, 1));
	};

	naive();
	BENCH_CK(cudaGetLastError());
	vendor();
	BENCH_CK(cudaDeviceSynchronize());
	// Tolerance: inputs in [-1, 1), so each output sums N products and is
	// typically ~sqrt(N)/3 (about 43 at N = 16384). fp32 accumulation
	// differs from the double reference by the rounding errors of the N
	// additions, each up to 2^-24 times a partial sum of size ~sqrt(j)/3;
	// with random signs they add up to ~3e-4 at N = 16384. 1e-6 * N (0.016
	// at full size) is some 50x that, while an indexing error gives errors
	// of order 10.
	const double atol = 1e-6 * N, rtol = 1e-5;
	std::vector<float> got = bench_to_host(dy, M);
	bool ok = bench_check("gemv_naive", got.data(), want.data(), M, atol, rtol);
	got = bench_to_host(dyv, M);
	ok = bench_check("cublas_sgemv", got.data(), want.data(), M, atol, rtol) && ok;

	// Minimum: read A and x once, write y once; one FMA (2 flops) per
	// element of A.
	const double bytes = sizeof(float) * ((double)nA + N + M);
	const double flops = 2.0 * (double)nA;
	bench_report("gemv_naive", "naive", bench_time(naive), bytes, flops);
	bench_report("cublas_sgemv", "vendor", bench_time(vendor), bytes, flops);

	got = bench_to_host(dy, M);
	ok = bench_check("gemv_naive after timing", got.data(), want.data(), M,
			 atol, rtol) && ok;
	got = bench_to_host(dyv, M);
	ok = bench_check("cublas_sgemv after timing", got.data(), want.data(), M,
			 atol, rtol) && ok;

	CUBLAS_CK(cublasDestroy(h));
	BENCH_CK(cudaFree(dA));
	BENCH_CK(cudaFree(dx));
	BENCH_CK(cudaFree(dy));
	BENCH_CK(cudaFree(dyv));
	return bench_finish(ok);
}
