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
#line 3 "/tmp/ks-bench/gemv/ks-no-long-term-memory/tasks/_Z10gemv_naivePKfS0_Pfii/r7.variant.cu"
/* The original, for launches whose pointers share memory. */
#endif
#line 4 "/tmp/ks-bench/gemv/ks-no-long-term-memory/tasks/_Z10gemv_naivePKfS0_Pfii/r7.variant.cu"
__global__ void
ks_ro_gemv_naive(const float *A, const float *x, float *y, int M, int N)
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 6 "/tmp/ks-bench/gemv/ks-no-long-term-memory/tasks/_Z10gemv_naivePKfS0_Pfii/r7.variant.cu"
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
{}
#endif
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 16 "/tmp/ks-bench/gemv/ks-no-long-term-memory/tasks/_Z10gemv_naivePKfS0_Pfii/r7.variant.cu"
typedef int (*ks_ro_range_fn)(unsigned long long *, size_t *,
			       unsigned long long);

#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900
#line 20 "/tmp/ks-bench/gemv/ks-no-long-term-memory/tasks/_Z10gemv_naivePKfS0_Pfii/r7.variant.cu"
__global__ void
gemv_naive(const float *__restrict__ A, const float *__restrict__ x, float *__restrict__ y, int M, int N)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row < M) {
		float sum = 0.0f;
		for (int j = 0; j < N; j++)
			sum += __ldg(&(A[row * N + j])) * __ldg(&(x[j]));
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
#line 32 "/tmp/ks-bench/gemv/ks-no-long-term-memory/tasks/_Z10gemv_naivePKfS0_Pfii/r7.variant.cu"
static void
ks_launch_gemv_naive(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
	const float *A, const float *x, float *y, int M, int N)
{
	static ks_ro_range_fn ks_range;
	static int ks_looked;
	const void *const ks_p[3] = { (const void *)A, (const void *)x, (const void *)y };
	const int ks_w[3] = { 0, 0, 1 };
	unsigned long long ks_base[3];
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
	for (int ks_i = 0; ks_i < 3 && ks_ok; ks_i++) {
		size_t ks_size = 0;

		ks_ok = ks_range && ks_range(&ks_base[ks_i], &ks_size,
					       (unsigned long long)ks_p[ks_i]) == 0;
	}
	for (int ks_i = 0; ks_i < 3 && ks_ok; ks_i++)
		for (int ks_j = ks_i + 1; ks_j < 3 && ks_ok; ks_j++)
			if ((ks_w[ks_i] || ks_w[ks_j]) && ks_base[ks_i] == ks_base[ks_j])
				ks_ok = 0;
	(void)ks_w;
	if (ks_ok)
		gemv_naive<<<grid, block, shmem, stream>>>(A, x, y, M, N);
	else
		ks_ro_gemv_naive<<<grid, block, shmem, stream>>>(A, x, y, M, N);
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
