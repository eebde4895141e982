// gemm_square: C = A * B for square row-major fp32 matrices (4096^3 at full
// size), one thread per output element, against cuBLAS SGEMM.
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
	bench_init("gemm_square", argc, argv);
	// Full: 4096^3 (64 MiB per matrix). Small: not a multiple of the block.
	const int M = bench_small() ? 103 : 4096;
	const int N = M, K = M;
	const size_t nA = (size_t)M * K, nB = (size_t)K * N, nC = (size_t)M * N;

	std::vector<float> hA(nA), hB(nB);
	bench_fill(hA, 1, -1.0f, 1.0f);
	bench_fill(hB, 2, -1.0f, 1.0f);

	// The CPU reference in double for a sample of 4096 outputs spread over
	// C (every output at the small size): the full 4096^3 product would take
	// minutes on one core.
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
	auto naive = [&]() { gemm_naive<<<grid, block>>>(dA, dB, dC, M, N, K); };
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
	// magnitude 1/4 and is typically ~sqrt(K)/3 (about 21 at K = 4096).
	// fp32 accumulation differs from the double reference by the rounding
	// errors of the K additions, each up to 2^-24 times a partial sum of
	// size ~sqrt(k)/3; with random signs they add up to ~1e-4 at K = 4096.
	// 1e-6 * K (4e-3 at full size) is some 40x that, while an indexing error
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
