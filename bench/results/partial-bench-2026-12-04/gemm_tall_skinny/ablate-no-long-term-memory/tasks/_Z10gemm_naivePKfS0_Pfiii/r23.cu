/* ks-nvcc: verified variants replace gemm_naive (arch 900); see docs/REWRITE.md */
#line 1 "/work/main/bench/gemm_tall_skinny/main.cu"
// gemm_tall_skinny: C = A * B for a tall, thin row-major fp32 product (M =
// 65536 rows, N = 128 columns, K = 1024 at full size), as in a linear layer
// applied to a large batch; one thread per output element, against cuBLAS.
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
#line 3 "/tmp/ks-bench/gemm_tall_skinny/ks-no-long-term-memory/tasks/_Z10gemm_naivePKfS0_Pfiii/r23.variant.cu"
static __device__ __forceinline__ void
ks_sb_gemm_naive(const uint3 threadIdx, const uint3 blockIdx, const dim3 blockDim,
	const dim3 gridDim,
	const float *A, const float *B, float *C, int M, int N, int K)
{
	(void)threadIdx;
	(void)blockIdx;
	(void)blockDim;
	(void)gridDim;
	{
	int row = blockIdx.y * blockDim.y + threadIdx.y;
	int col = blockIdx.x * blockDim.x + threadIdx.x;
	if (row < M && col < N) {
		float sum = 0.0f;
		for (int k = 0; k < K; k++)
			sum += A[row * K + k] * B[k * N + col];
		C[row * N + col] = sum;
	}
}
}

#endif
#line 24 "/tmp/ks-bench/gemm_tall_skinny/ks-no-long-term-memory/tasks/_Z10gemm_naivePKfS0_Pfiii/r23.variant.cu"
__global__ void __launch_bounds__(128)
ks_xf_gemm_naive(const float *A, const float *B, float *C, int M, int N, int K, const dim3 ks_og, const dim3 ks_ob,
	const unsigned ks_mg, const unsigned ks_s1, const unsigned ks_s2)
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 27 "/tmp/ks-bench/gemm_tall_skinny/ks-no-long-term-memory/tasks/_Z10gemm_naivePKfS0_Pfiii/r23.variant.cu"
{
	const unsigned long long ks_ng =
		(unsigned long long)ks_og.x * ks_ob.x / 1;
	const unsigned long long ks_s = (unsigned long long)gridDim.x * 128;

	for (unsigned long long ks_g0 = (unsigned long long)blockIdx.x * 128 + threadIdx.x;
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
					ks_sb_gemm_naive(make_uint3(ks_tx + ks_j, 0, 0),
						make_uint3(ks_bx, 0, 0), ks_ob, ks_og, A, B, C, M, N, K);
			}
		}
	}
}
#else
{}
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900
#line 52 "/tmp/ks-bench/gemm_tall_skinny/ks-no-long-term-memory/tasks/_Z10gemm_naivePKfS0_Pfiii/r23.variant.cu"
__global__ void
gemm_naive(const float *A, const float *B, float *C, int M, int N, int K)
{
	int row = blockIdx.y * blockDim.y + threadIdx.y;
	int col = blockIdx.x * blockDim.x + threadIdx.x;
	if (row < M && col < N) {
		float sum = 0.0f;
		for (int k = 0; k < K; k++)
			sum += A[row * K + k] * B[k * N + col];
		C[row * N + col] = sum;
	}
}
#else
#line 20 "/work/main/bench/gemm_tall_skinny/main.cu"
__global__ void
gemm_naive(const float *A, const float *B, float *C, int M, int N, int K)
{
	int row = blockIdx.y * blockDim.y + threadIdx.y;
	int col = blockIdx.x * blockDim.x + threadIdx.x;
	if (row < M && col < N) {
		float sum = 0.0f;
		for (int k = 0; k < K; k++)
			sum += A[row * K + k] * B[k * N + col];
		C[row * N + col] = sum;
	}
}
#endif
#line 1 "<ks-nvcc>"
/* Never launched: cudaFuncGetAttributes on it tells which image
   of this file the device runs (__CUDA_ARCH__ is ptxVersion
   times 10). */
static __global__ void ks_probe_gemm_naive(void) {}
#ifndef __CUDA_ARCH__
/* 1 when the device code that runs is the variant's (arch 900):
   then its launcher must run. Cached per device. */
static int
ks_variant_active_gemm_naive(void)
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
	if (cudaFuncGetAttributes(&ks_attr, ks_probe_gemm_naive) != cudaSuccess)
		return 0;
	ks_on = ks_attr.ptxVersion == 90;
	if (ks_dev >= 0)
		__atomic_store_n(&ks_known[ks_dev], ks_on ? 1 : 2,
				 __ATOMIC_RELAXED);
	return ks_on;
}
#line 65 "/tmp/ks-bench/gemm_tall_skinny/ks-no-long-term-memory/tasks/_Z10gemm_naivePKfS0_Pfiii/r23.variant.cu"
static void
ks_launch_gemm_naive(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
	const float *A, const float *B, float *C, int M, int N, int K)
{
	unsigned long long ks_blocks;
	unsigned ks_l = 0, ks_mg, ks_s1, ks_s2;

	if (grid.x == 0 || grid.y != 1 || grid.z != 1 || block.y != 1 ||
	    block.z != 1 || block.x % 1 != 0 ||
	    (unsigned long long)grid.x * block.x > 0xffffffffULL) {
		/* a launch the variant does not cover: the original */
		gemm_naive<<<grid, block, shmem, stream>>>(A, B, C, M, N, K);
		return;
	}
	while ((1ull << ks_l) < block.x)
		ks_l++;
	ks_mg = (unsigned)(((1ull << 32) * ((1ull << ks_l) - block.x)) / block.x + 1);
	ks_s1 = ks_l < 1 ? ks_l : 1;
	ks_s2 = ks_l > 1 ? ks_l - 1 : 0;
	ks_blocks = ((unsigned long long)grid.x * block.x / 1 + 128 - 1) / 128;
	if (ks_blocks > 0x7fffffffULL)
		ks_blocks = 0x7fffffffULL;
	(void)shmem;
	ks_xf_gemm_naive<<<(unsigned)ks_blocks, 128, 0, stream>>>(A, B, C, M, N, K, grid, block, ks_mg, ks_s1, ks_s2);
}
#endif
#line 31 "/work/main/bench/gemm_tall_skinny/main.cu"
 

// Compares the sampled elements of C with the reference values.
static bool
check_sample(const char *what, const float *dC, const std::vector<size_t> &idx,
	     const std::vector<float> &want, size_t n, double atol, double rtol)
{
	std::vector<float> h = bench_to_host(dC, n);
	std::vector<float> got(idx.size());
	for (size_t q = 0; q < idx.size(); q++)
		got[q] = h[idx[q]];
	return bench_check(what, got.data(), want.data(), idx.size(), atol, rtol);
}

int
main(int argc, char **argv)
{
	bench_init("gemm_tall_skinny", argc, argv);
	// Full: A is 256 MiB, B 512 KiB, C 32 MiB. Small: not multiples of the
	// block.
	const int M = bench_small() ? 301 : 65536;
	const int N = bench_small() ? 24 : 128;
	const int K = bench_small() ? 37 : 1024;
	const size_t nA = (size_t)M * K, nB = (size_t)K * N, nC = (size_t)M * N;

	std::vector<float> hA(nA), hB(nB);
	bench_fill(hA, 1, -1.0f, 1.0f);
	bench_fill(hB, 2, -1.0f, 1.0f);

	// The CPU reference in double for a sample of 4096 outputs spread over
	// C (every output at the small size): the full product would take about
	// a minute on one core.
	std::vector<size_t> idx = gemm_ref_sample(nC, bench_small() ? nC : 4096);
	std::vector<float> want(idx.size());
	for (size_t q = 0; q < idx.size(); q++)
		want[q] = (float)gemm_ref_elem(hA.data(), hB.data(), N, K,
					       idx[q] / N, idx[q] % N);

	float *dA = bench_to_device(hA), *dB = bench_to_device(hB);
	float *dC = nullptr, *dCv = nullptr;
	BENCH_CK(cudaMalloc(&dC, nC * sizeof(float)));
	BENCH_CK(cudaMalloc(&dCv, nC * sizeof(float)));
	// All-ones bytes are a NaN: an element a kernel misses fails the check.
	BENCH_CK(cudaMemset(dC, 0xff, nC * sizeof(float)));
	BENCH_CK(cudaMemset(dCv, 0xff, nC * sizeof(float)));

	cublasHandle_t h;
	CUBLAS_CK(cublasCreate(&h));
	const float alpha = 1.0f, beta = 0.0f;

	dim3 block(16, 16);
	dim3 grid((N + 15) / 16, (M + 15) / 16);
	auto naive = [&]() { 
#ifdef __CUDA_ARCH__
#line 83 "/work/main/bench/gemm_tall_skinny/main.cu"
	                     gemm_naive<<<grid, block>>>(dA, dB, dC, M, N, K)
#else
#line 83 "/work/main/bench/gemm_tall_skinny/main.cu"
	                     (ks_variant_active_gemm_naive() ? ks_launch_gemm_naive(grid, block, 0, cudaStream_t(), dA, dB, dC, M, N, K) : (void)(
#line 83 "/work/main/bench/gemm_tall_skinny/main.cu"
	                     gemm_naive<<<grid, block>>>(dA, dB, dC, M, N, K)))
#endif
#line 83 "/work/main/bench/gemm_tall_skinny/main.cu"
	                                                                     ; };
	// Row-major C = A * B is column-major C^T = B^T * A^T: pass B first.
	auto vendor = [&]() {
		CUBLAS_CK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha,
				      dB, N, dA, K, &beta, dCv, N));
	};

	naive();
	BENCH_CK(cudaGetLastError());
	vendor();
	BENCH_CK(cudaDeviceSynchronize());
	// Tolerance: inputs in [-1, 1), so each output sums K products of mean
	// magnitude 1/4 and is typically ~sqrt(K)/3 (about 11 at K = 1024).
	// fp32 accumulation differs from the double reference by the rounding
	// errors of the K additions, each up to 2^-24 times a partial sum of
	// size ~sqrt(k)/3; with random signs they add up to ~2e-5 at K = 1024.
	// 1e-6 * K (1e-3 at full size) is some 40x that, while an indexing error
	// gives errors of order 1-10.
	const double atol = 1e-6 * K, rtol = 1e-5;
	bool ok = check_sample("gemm_naive", dC, idx, want, nC, atol, rtol);
	ok = check_sample("cublas_sgemm", dCv, idx, want, nC, atol, rtol) && ok;

	// Minimum: read A and B once, write C once; one FMA (2 flops) per
	// multiply-add, 2 * M * N * K in all.
	const double bytes = sizeof(float) * (double)(nA + nB + nC);
	const double flops = 2.0 * M * (double)N * K;
	bench_report("gemm_naive", "naive", bench_time(naive), bytes, flops);
	bench_report("cublas_sgemm", "vendor", bench_time(vendor), bytes, flops);

	ok = check_sample("gemm_naive after timing", dC, idx, want, nC, atol, rtol) && ok;
	ok = check_sample("cublas_sgemm after timing", dCv, idx, want, nC, atol, rtol) && ok;

	CUBLAS_CK(cublasDestroy(h));
	BENCH_CK(cudaFree(dA));
	BENCH_CK(cudaFree(dB));
	BENCH_CK(cudaFree(dC));
	BENCH_CK(cudaFree(dCv));
	return bench_finish(ok);
}
