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
	auto naive = [&]() { gemv_naive<<<blocks, threads>>>(dA, dx, dy, M, N); };
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
