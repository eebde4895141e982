// ceilings: measures the two rates that the floors of every benchmark are
// computed from, on the machine at hand:
//   copy_d2d           a 2 GiB device-to-device cudaMemcpyAsync; bytes are
//                      those read plus those written (4 GiB);
//   cublas_sgemm_8192  cuBLAS SGEMM of two 8192 x 8192 fp32 matrices;
//                      flops = 2 * M * N * K.
// Both are reported with role "ceiling". The copy is checked in full, the
// product on a sample of 4096 outputs.
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

static bool
measure_copy(void)
{
	// Full: 2 GiB. Small: 1 MiB and a bit, not a round size.
	const size_t n = bench_small() ? ((size_t)1 << 18) + 3 : (size_t)1 << 29;
	const size_t nbytes = n * sizeof(float);
	std::vector<float> hsrc(n);
	bench_fill(hsrc, 41, -1.0f, 1.0f);
	float *src = bench_to_device(hsrc), *dst = nullptr;
	BENCH_CK(cudaMalloc(&dst, nbytes));
	// All-ones bytes are a NaN: a byte the copy misses fails the check.
	BENCH_CK(cudaMemset(dst, 0xff, nbytes));

	auto copy = [&]() {
		BENCH_CK(cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyDeviceToDevice, 0));
	};
	copy();
	BENCH_CK(cudaDeviceSynchronize());
	std::vector<float> got = bench_to_host(dst, n);
	// A copy is exact.
	bool ok = bench_check("copy_d2d", got.data(), hsrc.data(), n, 0.0, 0.0);

	bench_stats s = bench_time(copy);
	bench_report("copy_d2d", "ceiling", s, copy_bytes(nbytes), 0.0);
	std::printf("ceiling copy_d2d: %.1f GB/s (median of %d)\n",
		    rate_per_s(copy_bytes(nbytes), s.median_ms) * 1e-9, s.reps);

	got = bench_to_host(dst, n);
	ok = bench_check("copy_d2d after timing", got.data(), hsrc.data(), n, 0.0,
			 0.0) && ok;
	BENCH_CK(cudaFree(src));
	BENCH_CK(cudaFree(dst));
	return ok;
}

static bool
measure_sgemm(void)
{
	// Full: 8192^3 (256 MiB per matrix). Small: not a round size.
	const int M = bench_small() ? 131 : 8192;
	const int N = M, K = M;
	const size_t nA = (size_t)M * K, nB = (size_t)K * N, nC = (size_t)M * N;
	std::vector<float> hA(nA), hB(nB);
	bench_fill(hA, 42, -1.0f, 1.0f);
	bench_fill(hB, 43, -1.0f, 1.0f);
	// The reference in double for 4096 outputs spread over C (every output
	// at the small size).
	std::vector<size_t> idx = gemm_ref_sample(nC, bench_small() ? nC : 4096);
	std::vector<float> want(idx.size());
	for (size_t q = 0; q < idx.size(); q++)
		want[q] = (float)gemm_ref_elem(hA.data(), hB.data(), N, K,
					       idx[q] / N, idx[q] % N);

	float *dA = bench_to_device(hA), *dB = bench_to_device(hB), *dC = nullptr;
	BENCH_CK(cudaMalloc(&dC, nC * sizeof(float)));
	BENCH_CK(cudaMemset(dC, 0xff, nC * sizeof(float)));
	cublasHandle_t h;
	CUBLAS_CK(cublasCreate(&h));
	const float alpha = 1.0f, beta = 0.0f;
	// Row-major C = A * B is column-major C^T = B^T * A^T: pass B first.
	auto gemm = [&]() {
		CUBLAS_CK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha,
				      dB, N, dA, K, &beta, dC, N));
	};
	gemm();
	BENCH_CK(cudaDeviceSynchronize());

	// Tolerance: inputs in [-1, 1), outputs typically ~sqrt(K)/3 (about 30
	// at K = 8192); fp32 accumulation differs from the double reference by
	// ~1e-4 with random signs. 1e-6 * K (8e-3 at full size) is some 60x
	// that, while a wrong operand order gives errors of order 10.
	const double atol = 1e-6 * K, rtol = 1e-5;
	auto check = [&](const char *what) {
		std::vector<float> hC = bench_to_host(dC, nC);
		std::vector<float> got(idx.size());
		for (size_t q = 0; q < idx.size(); q++)
			got[q] = hC[idx[q]];
		return bench_check(what, got.data(), want.data(), idx.size(), atol,
				   rtol);
	};
	bool ok = check("cublas_sgemm_8192");

	bench_stats s = bench_time(gemm);
	bench_report("cublas_sgemm_8192", "ceiling", s, gemm_bytes(M, N, K, 4),
		     gemm_flops(M, N, K));
	std::printf("ceiling cublas_sgemm_8192: %.2f TFLOP/s (median of %d)\n",
		    rate_per_s(gemm_flops(M, N, K), s.median_ms) * 1e-12, s.reps);

	ok = check("cublas_sgemm_8192 after timing") && ok;
	CUBLAS_CK(cublasDestroy(h));
	BENCH_CK(cudaFree(dA));
	BENCH_CK(cudaFree(dB));
	BENCH_CK(cudaFree(dC));
	return ok;
}

int
main(int argc, char **argv)
{
	bench_init("ceilings", argc, argv);
	bool ok = measure_copy();
	ok = measure_sgemm() && ok;
	return bench_finish(ok);
}
