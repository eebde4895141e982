/* ks-nvcc: verified variants replace gemm_batched_naive (arch 900); see docs/REWRITE.md */
#line 1 "/work/main/bench/gemm_batched/main.cu"
// gemm_batched: C[b] = A[b] * B[b] for 64 independent 512^3 row-major fp32
// products stored one after another (as in per-head attention products);
// one thread per output element, against cuBLAS strided-batched SGEMM.
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

// blockIdx.z selects the matrix of the batch.
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 3 "/tmp/ks-bench/gemm_batched/ks-no-long-term-memory/tasks/_Z18gemm_batched_naivePKfS0_Pfiii/r2.variant.cu"
static __device__ __forceinline__ void
ks_sb_gemm_batched_naive(const uint3 threadIdx, const uint3 blockIdx, const dim3 blockDim,
	const dim3 gridDim,
	const float *A, const float *B, float *C, int M, int N,
		   int K)
{
	(void)threadIdx;
	(void)blockIdx;
	(void)blockDim;
	(void)gridDim;
	{
	int b = blockIdx.z;
	int row = blockIdx.y * blockDim.y + threadIdx.y;
	int col = blockIdx.x * blockDim.x + threadIdx.x;
	if (row < M && col < N) {
		const float *a = A + (size_t)b * M * K;
		const float *bm = B + (size_t)b * K * N;
		float sum = 0.0f;
		for (int k = 0; k < K; k++)
			sum += a[row * K + k] * bm[k * N + col];
		C[(size_t)b * M * N + row * N + col] = sum;
	}
}
}

#endif
#line 28 "/tmp/ks-bench/gemm_batched/ks-no-long-term-memory/tasks/_Z18gemm_batched_naivePKfS0_Pfiii/r2.variant.cu"
__global__ void __launch_bounds__(256)
ks_xf_gemm_batched_naive(const float *A, const float *B, float *C, int M, int N,
		   int K, const dim3 ks_og, const dim3 ks_ob,
	const unsigned ks_mg, const unsigned ks_s1, const unsigned ks_s2)
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 32 "/tmp/ks-bench/gemm_batched/ks-no-long-term-memory/tasks/_Z18gemm_batched_naivePKfS0_Pfiii/r2.variant.cu"
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
					ks_sb_gemm_batched_naive(make_uint3(ks_tx + ks_j, 0, 0),
						make_uint3(ks_bx, 0, 0), ks_ob, ks_og, A, B, C, M, N, K);
			}
		}
	}
}
#else
{}
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900
#line 57 "/tmp/ks-bench/gemm_batched/ks-no-long-term-memory/tasks/_Z18gemm_batched_naivePKfS0_Pfiii/r2.variant.cu"
__global__ void
gemm_batched_naive(const float *A, const float *B, float *C, int M, int N,
		   int K)
{
	int b = blockIdx.z;
	int row = blockIdx.y * blockDim.y + threadIdx.y;
	int col = blockIdx.x * blockDim.x + threadIdx.x;
	if (row < M && col < N) {
		const float *a = A + (size_t)b * M * K;
		const float *bm = B + (size_t)b * K * N;
		float sum = 0.0f;
		for (int k = 0; k < K; k++)
			sum += a[row * K + k] * bm[k * N + col];
		C[(size_t)b * M * N + row * N + col] = sum;
	}
}
#else
#line 21 "/work/main/bench/gemm_batched/main.cu"
__global__ void
gemm_batched_naive(const float *A, const float *B, float *C, int M, int N,
		   int K)
{
	int b = blockIdx.z;
	int row = blockIdx.y * blockDim.y + threadIdx.y;
	int col = blockIdx.x * blockDim.x + threadIdx.x;
	if (row < M && col < N) {
		const float *a = A + (size_t)b * M * K;
		const float *bm = B + (size_t)b * K * N;
		float sum = 0.0f;
		for (int k = 0; k < K; k++)
			sum += a[row * K + k] * bm[k * N + col];
		C[(size_t)b * M * N + row * N + col] = sum;
	}
}
#endif
#line 1 "<ks-nvcc>"
/* Never launched: cudaFuncGetAttributes on it tells which image
   of this file the device runs (__CUDA_ARCH__ is ptxVersion
   times 10). */
static __global__ void ks_probe_gemm_batched_naive(void) {}
#ifndef __CUDA_ARCH__
/* 1 when the device code that runs is the variant's (arch 900):
   then its launcher must run. Cached per device. */
static int
ks_variant_active_gemm_batched_naive(void)
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
	if (cudaFuncGetAttributes(&ks_attr, ks_probe_gemm_batched_naive) != cudaSuccess)
		return 0;
	ks_on = ks_attr.ptxVersion == 90;
	if (ks_dev >= 0)
		__atomic_store_n(&ks_known[ks_dev], ks_on ? 1 : 2,
				 __ATOMIC_RELAXED);
	return ks_on;
}
#line 74 "/tmp/ks-bench/gemm_batched/ks-no-long-term-memory/tasks/_Z18gemm_batched_naivePKfS0_Pfiii/r2.variant.cu"
static void
ks_launch_gemm_batched_naive(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
	const float *A, const float *B, float *C, int M, int N,
		   int K)
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
		gemm_batched_naive<<<grid, block, shmem, stream>>>(A, B, C, M, N, K);
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
			    &ks_per, ks_xf_gemm_batched_naive, 256, 0) == cudaSuccess)
			ks_fill[ks_dev] = ks_sms * ks_per;
		if (ks_fill[ks_dev] > 0 &&
		    ks_blocks > 4ULL * (unsigned long long)ks_fill[ks_dev])
			ks_blocks = 4ULL * (unsigned long long)ks_fill[ks_dev];
	}
	if (ks_blocks > 0x7fffffffULL)
		ks_blocks = 0x7fffffffULL;
	(void)shmem;
	ks_xf_gemm_batched_naive<<<(unsigned)ks_blocks, 256, 0, stream>>>(A, B, C, M, N, K, grid, block, ks_mg, ks_s1, ks_s2);
}
#endif
#line 36 "/work/main/bench/gemm_batched/main.cu"
 

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
	bench_init("gemm_batched", argc, argv);
	// Full: 64 x 512^3 (64 MiB per operand in all). Small: 3 matrices of
	// sizes that are not multiples of the block.
	const int batch = bench_small() ? 3 : 64;
	const int M = bench_small() ? 37 : 512;
	const int N = bench_small() ? 29 : 512;
	const int K = bench_small() ? 21 : 512;
	const size_t nA = (size_t)batch * M * K, nB = (size_t)batch * K * N;
	const size_t nC = (size_t)batch * M * N;

	std::vector<float> hA(nA), hB(nB);
	bench_fill(hA, 11, -1.0f, 1.0f);
	bench_fill(hB, 12, -1.0f, 1.0f);

	// The CPU reference in double for a sample of 4096 outputs spread over
	// the whole batch (every output at the small size).
	std::vector<size_t> idx = gemm_ref_sample(nC, bench_small() ? nC : 4096);
	std::vector<float> want(idx.size());
	for (size_t q = 0; q < idx.size(); q++)
		want[q] = (float)gemm_batched_ref_at(hA.data(), hB.data(), M, N, K,
						     idx[q]);

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
	dim3 grid((N + 15) / 16, (M + 15) / 16, batch);
	auto naive = [&]() {
		
#ifdef __CUDA_ARCH__
#line 90 "/work/main/bench/gemm_batched/main.cu"
		gemm_batched_naive<<<grid, block>>>(dA, dB, dC, M, N, K)
#else
#line 90 "/work/main/bench/gemm_batched/main.cu"
		(ks_variant_active_gemm_batched_naive() ? ks_launch_gemm_batched_naive(grid, block, 0, cudaStream_t(), dA, dB, dC, M, N, K) : (void)(
#line 90 "/work/main/bench/gemm_batched/main.cu"
		gemm_batched_naive<<<grid, block>>>(dA, dB, dC, M, N, K)))
#endif
#line 90 "/work/main/bench/gemm_batched/main.cu"
		                                                        ;
	};
	// Row-major C = A * B is column-major C^T = B^T * A^T: pass B first;
	// the strides are the sizes of one matrix.
	auto vendor = [&]() {
		CUBLAS_CK(cublasSgemmStridedBatched(
			h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, dB, N,
			(long long)K * N, dA, K, (long long)M * K, &beta, dCv, N,
			(long long)M * N, batch));
	};

	naive();
	BENCH_CK(cudaGetLastError());
	vendor();
	BENCH_CK(cudaDeviceSynchronize());
	// Tolerance: inputs in [-1, 1), so each output sums K products and is
	// typically ~sqrt(K)/3 (about 8 at K = 512). fp32 accumulation differs
	// from the double reference by the rounding errors of the K additions,
	// each up to 2^-24 times a partial sum of size ~sqrt(k)/3; with random
	// signs they add up to ~1e-5 at K = 512. 1e-6 * K (5e-4 at full size)
	// is some 40x that, while an indexing error gives errors of order 1-10.
	const double atol = 1e-6 * K, rtol = 1e-5;
	bool ok = check_sample("gemm_batched_naive", dC, idx, want, nC, atol, rtol);
	ok = check_sample("cublas_sgemm_strided_batched", dCv, idx, want, nC, atol,
			  rtol) && ok;

	// Minimum: read every A and B once, write every C once; one FMA (2
	// flops) per multiply-add, 2 * batch * M * N * K in all.
	const double bytes = sizeof(float) * (double)(nA + nB + nC);
	const double flops = 2.0 * batch * (double)M * N * K;
	bench_report("gemm_batched_naive", "naive", bench_time(naive), bytes, flops);
	bench_report("cublas_sgemm_strided_batched", "vendor", bench_time(vendor),
		     bytes, flops);

	ok = check_sample("gemm_batched_naive after timing", dC, idx, want, nC,
			  atol, rtol) && ok;
	ok = check_sample("cublas_sgemm_strided_batched after timing", dCv, idx,
			  want, nC, atol, rtol) && ok;

	CUBLAS_CK(cublasDestroy(h));
	BENCH_CK(cudaFree(dA));
	BENCH_CK(cudaFree(dB));
	BENCH_CK(cudaFree(dC));
	BENCH_CK(cudaFree(dCv));
	return bench_finish(ok);
}
