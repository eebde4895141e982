/* ks-nvcc: verified variants replace add_bias (arch 900); see docs/REWRITE.md */
#line 1 "/work/main/bench/gemm_bias_act_scale/main.cu"
// gemm_bias_act_scale: the forward pass of a linear layer followed by its
// epilogue, out = scale * gelu(A * B + bias), written the first-draft way as
// four kernels: a naive GEMM (one thread per output), then one elementwise
// kernel each for the bias (per column), the exact GELU and the scale.
// Full size: A is 32768 x 1024 (tokens x features), B is 1024 x 4096.
// Each kernel is timed alone, and the four together as "chain"; cuBLAS SGEMM
// is timed against the GEMM.
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

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 3 "/tmp/ks-bench/gemm_bias_act_scale/ks-no-long-term-memory/tasks/_Z8add_biasPKfS0_Pfii/r5.variant.cu"
static __device__ __forceinline__ void
ks_sb_add_bias(const uint3 threadIdx, const uint3 blockIdx, const dim3 blockDim,
	const dim3 gridDim,
	const float *C, const float *bias, float *Y, int M, int N)
{
	(void)threadIdx;
	(void)blockIdx;
	(void)blockDim;
	(void)gridDim;
	{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < M * N)
		Y[i] = C[i] + bias[i % N];
}
}

#endif
#line 19 "/tmp/ks-bench/gemm_bias_act_scale/ks-no-long-term-memory/tasks/_Z8add_biasPKfS0_Pfii/r5.variant.cu"
__global__ void __launch_bounds__(512)
ks_xf_add_bias(const float *C, const float *bias, float *Y, int M, int N, const dim3 ks_og, const dim3 ks_ob,
	const unsigned ks_mg, const unsigned ks_s1, const unsigned ks_s2)
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 22 "/tmp/ks-bench/gemm_bias_act_scale/ks-no-long-term-memory/tasks/_Z8add_biasPKfS0_Pfii/r5.variant.cu"
{
	const unsigned long long ks_ng =
		(unsigned long long)ks_og.x * ks_ob.x / 1;
	const unsigned long long ks_s = (unsigned long long)gridDim.x * 512;

	for (unsigned long long ks_g0 = (unsigned long long)blockIdx.x * 512 + threadIdx.x;
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
					ks_sb_add_bias(make_uint3(ks_tx + ks_j, 0, 0),
						make_uint3(ks_bx, 0, 0), ks_ob, ks_og, C, bias, Y, M, N);
			}
		}
	}
}
#else
{}
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900
#line 47 "/tmp/ks-bench/gemm_bias_act_scale/ks-no-long-term-memory/tasks/_Z8add_biasPKfS0_Pfii/r5.variant.cu"
__global__ void
add_bias(const float *C, const float *bias, float *Y, int M, int N)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < M * N)
		Y[i] = C[i] + bias[i % N];
}
#else
#line 37 "/work/main/bench/gemm_bias_act_scale/main.cu"
__global__ void
add_bias(const float *C, const float *bias, float *Y, int M, int N)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < M * N)
		Y[i] = C[i] + bias[i % N];
}
#endif
#line 1 "<ks-nvcc>"
/* Never launched: cudaFuncGetAttributes on it tells which image
   of this file the device runs (__CUDA_ARCH__ is ptxVersion
   times 10). */
static __global__ void ks_probe_add_bias(void) {}
#ifndef __CUDA_ARCH__
/* 1 when the device code that runs is the variant's (arch 900):
   then its launcher must run. Cached per device. */
static int
ks_variant_active_add_bias(void)
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
	if (cudaFuncGetAttributes(&ks_attr, ks_probe_add_bias) != cudaSuccess)
		return 0;
	ks_on = ks_attr.ptxVersion == 90;
	if (ks_dev >= 0)
		__atomic_store_n(&ks_known[ks_dev], ks_on ? 1 : 2,
				 __ATOMIC_RELAXED);
	return ks_on;
}
#line 55 "/tmp/ks-bench/gemm_bias_act_scale/ks-no-long-term-memory/tasks/_Z8add_biasPKfS0_Pfii/r5.variant.cu"
static void
ks_launch_add_bias(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
	const float *C, const float *bias, float *Y, int M, int N)
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
		add_bias<<<grid, block, shmem, stream>>>(C, bias, Y, M, N);
		return;
	}
	while ((1ull << ks_l) < block.x)
		ks_l++;
	ks_mg = (unsigned)(((1ull << 32) * ((1ull << ks_l) - block.x)) / block.x + 1);
	ks_s1 = ks_l < 1 ? ks_l : 1;
	ks_s2 = ks_l > 1 ? ks_l - 1 : 0;
	ks_blocks = ((unsigned long long)grid.x * block.x / 1 + 512 - 1) / 512;
	if (cudaGetDevice(&ks_dev) == cudaSuccess && ks_dev >= 0 && ks_dev < 64) {
		int ks_sms = 0, ks_per = 0;

		if (!ks_fill[ks_dev] &&
		    cudaDeviceGetAttribute(&ks_sms, cudaDevAttrMultiProcessorCount,
					   ks_dev) == cudaSuccess &&
		    cudaOccupancyMaxActiveBlocksPerMultiprocessor(
			    &ks_per, ks_xf_add_bias, 512, 0) == cudaSuccess)
			ks_fill[ks_dev] = ks_sms * ks_per;
		if (ks_fill[ks_dev] > 0 &&
		    ks_blocks > 4ULL * (unsigned long long)ks_fill[ks_dev])
			ks_blocks = 4ULL * (unsigned long long)ks_fill[ks_dev];
	}
	if (ks_blocks > 0x7fffffffULL)
		ks_blocks = 0x7fffffffULL;
	(void)shmem;
	ks_xf_add_bias<<<(unsigned)ks_blocks, 512, 0, stream>>>(C, bias, Y, M, N, grid, block, ks_mg, ks_s1, ks_s2);
}
#endif
#line 43 "/work/main/bench/gemm_bias_act_scale/main.cu"
 

__global__ void
gelu(const float *X, float *Y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float v = X[i];
		Y[i] = 0.5f * v * (1.0f + erff(v * 0.70710678f));
	}
}

__global__ void
scale(const float *X, float s, float *Y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		Y[i] = s * X[i];
}

// Compares the sampled elements of a device matrix with reference values.
static bool
check_sample(const char *what, const float *d, const std::vector<size_t> &idx,
	     const std::vector<float> &want, size_t n, double atol, double rtol)
{
	std::vector<float> h = bench_to_host(d, n);
	std::vector<float> got(idx.size());
	for (size_t q = 0; q < idx.size(); q++)
		got[q] = h[idx[q]];
	return bench_check(what, got.data(), want.data(), idx.size(), atol, rtol);
}

static bool
check_all(const char *what, const float *d, const std::vector<float> &want,
	  double atol, double rtol)
{
	std::vector<float> got = bench_to_host(d, want.size());
	return bench_check(what, got.data(), want.data(), want.size(), atol, rtol);
}

int
main(int argc, char **argv)
{
	bench_init("gemm_bias_act_scale", argc, argv);
	// Full: A 128 MiB, B 16 MiB, each M x N intermediate 512 MiB (M * N =
	// 2^27 fits an int). Small: not multiples of the blocks.
	const int M = bench_small() ? 133 : 32768;
	const int N = bench_small() ? 71 : 4096;
	const int K = bench_small() ? 40 : 1024;
	const float s = 0.7f;
	const size_t nA = (size_t)M * K, nB = (size_t)K * N, nC = (size_t)M * N;

	std::vector<float> hA(nA), hB(nB), hbias(N);
	bench_fill(hA, 31, -1.0f, 1.0f);
	bench_fill(hB, 32, -1.0f, 1.0f);
	bench_fill(hbias, 33, -0.5f, 0.5f);

	// The GEMM and the whole chain are checked against the reference in
	// double for a sample of 4096 outputs spread over the matrix (every
	// output at the small size): the full product would take minutes on one
	// core. Each elementwise stage is checked in full against the reference
	// applied to the previous stage's device output.
	std::vector<size_t> idx = gemm_ref_sample(nC, bench_small() ? nC : 4096);
	std::vector<float> want_gemm(idx.size()), want_chain(idx.size());
	for (size_t q = 0; q < idx.size(); q++) {
		size_t i = idx[q] / N, j = idx[q] % N;
		want_gemm[q] = (float)gemm_ref_elem(hA.data(), hB.data(), N, K, i, j);
		want_chain[q] = (float)chain_ref_elem(hA.data(), hB.data(),
						      hbias.data(), s, N, K, i, j);
	}

	float *dA = bench_to_device(hA), *dB = bench_to_device(hB);
	float *dbias = bench_to_device(hbias);
	float *dC, *dT1, *dT2, *dOut, *dCv;
	for (float **p : {&dC, &dT1, &dT2, &dOut, &dCv}) {
		BENCH_CK(cudaMalloc(p, nC * sizeof(float)));
		// All-ones bytes are a NaN: an element a kernel misses fails.
		BENCH_CK(cudaMemset(*p, 0xff, nC * sizeof(float)));
	}

	cublasHandle_t h;
	CUBLAS_CK(cublasCreate(&h));
	const float alpha = 1.0f, beta = 0.0f;

	const int n = M * N;
	dim3 block(16, 16);
	dim3 grid((N + 15) / 16, (M + 15) / 16);
	const int threads = 256;
	const int blocks = (n + threads - 1) / threads;
	auto k_gemm = [&]() { gemm_naive<<<grid, block>>>(dA, dB, dC, M, N, K); };
	auto k_bias = [&]() { 
#ifdef __CUDA_ARCH__
#line 133 "/work/main/bench/gemm_bias_act_scale/main.cu"
	                      add_bias<<<blocks, threads>>>(dC, dbias, dT1, M, N)
#else
#line 133 "/work/main/bench/gemm_bias_act_scale/main.cu"
	                      (ks_variant_active_add_bias() ? ks_launch_add_bias(blocks, threads, 0, cudaStream_t(), dC, dbias, dT1, M, N) : (void)(
#line 133 "/work/main/bench/gemm_bias_act_scale/main.cu"
	                      add_bias<<<blocks, threads>>>(dC, dbias, dT1, M, N)))
#endif
#line 133 "/work/main/bench/gemm_bias_act_scale/main.cu"
	                                                                         ; };
	auto k_gelu = [&]() { gelu<<<blocks, threads>>>(dT1, dT2, n); };
	auto k_scale = [&]() { scale<<<blocks, threads>>>(dT2, s, dOut, n); };
	auto chain = [&]() {
		k_gemm();
		k_bias();
		k_gelu();
		k_scale();
	};
	// Row-major C = A * B is column-major C^T = B^T * A^T: pass B first.
	auto vendor = [&]() {
		CUBLAS_CK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha,
				      dB, N, dA, K, &beta, dCv, N));
	};

	chain();
	BENCH_CK(cudaGetLastError());
	vendor();
	BENCH_CK(cudaDeviceSynchronize());

	// GEMM tolerance: inputs in [-1, 1), outputs typically ~sqrt(K)/3
	// (about 11 at K = 1024); fp32 accumulation differs from the double
	// reference by the rounding errors of the K additions, ~2e-5 here with
	// random signs. 1e-6 * K (1e-3 at full size) is some 40x that, while an
	// indexing error gives errors of order 1-10. The chain carries that
	// error through GELU (slope at most 1.13) and the scale (0.7): twice the
	// GEMM tolerance covers it.
	const double atol = 1e-6 * K, rtol = 1e-5;
	bool ok = check_sample("gemm_naive", dC, idx, want_gemm, nC, atol, rtol);
	ok = check_sample("cublas_sgemm", dCv, idx, want_gemm, nC, atol, rtol) && ok;
	ok = check_sample("chain", dOut, idx, want_chain, nC, 2 * atol, rtol) && ok;

	// The stages, each from the device output of the one before. The bias
	// add and the scale are one rounding each (equal to the reference's up
	// to the double rounding of its float conversion); erff is within 2 ulp,
	// and 1 + erff(v / sqrt 2) loses absolute precision ~6e-8 near v << 0:
	// 1e-6 absolute covers both.
	std::vector<float> want_bias(nC), want_gelu(nC), want_scale(nC);
	{
		std::vector<float> c = bench_to_host(dC, nC);
		bias_ref_array(c.data(), hbias.data(), want_bias.data(), M, N);
		std::vector<float> t1 = bench_to_host(dT1, nC);
		gelu_ref_array(t1.data(), want_gelu.data(), nC);
		std::vector<float> t2 = bench_to_host(dT2, nC);
		scale_ref_array(t2.data(), s, want_scale.data(), nC);
	}
	const double etol = 1e-6, ertol = 1e-6;
	ok = check_all("add_bias", dT1, want_bias, etol, ertol) && ok;
	ok = check_all("gelu", dT2, want_gelu, etol, 1e-5) && ok;
	ok = check_all("scale", dOut, want_scale, etol, ertol) && ok;

	// Minimum bytes: each input read once, each output written once. FLOPs:
	// an FMA counts 2 (2 * M * N * K for the GEMM), an add or multiply 1,
	// erf 1: the bias add 1 per element, GELU 5 (multiply by 1/sqrt 2, erf,
	// add 1, two multiplies), the scale 1. The chain's minimum reads A, B
	// and the bias and writes only the result.
	const double f = sizeof(float);
	const double b_gemm = f * (double)(nA + nB + nC);
	const double fl_gemm = 2.0 * M * (double)N * K;
	const double b_bias = f * (2.0 * nC + N), fl_bias = (double)nC;
	const double b_ew = f * 2.0 * nC;
	const double b_chain = f * (double)(nA + nB + N + nC);
	const double fl_chain = fl_gemm + 7.0 * nC;
	bench_report("gemm_naive", "naive", bench_time(k_gemm), b_gemm, fl_gemm);
	bench_report("add_bias", "naive", bench_time(k_bias), b_bias, fl_bias);
	bench_report("gelu", "naive", bench_time(k_gelu), b_ew, 5.0 * nC);
	bench_report("scale", "naive", bench_time(k_scale), b_ew, (double)nC);
	bench_report("chain", "naive", bench_time(chain), b_chain, fl_chain);
	bench_report("cublas_sgemm", "vendor", bench_time(vendor), b_gemm, fl_gemm);

	ok = check_sample("gemm_naive after timing", dC, idx, want_gemm, nC, atol,
			  rtol) && ok;
	ok = check_sample("cublas_sgemm after timing", dCv, idx, want_gemm, nC,
			  atol, rtol) && ok;
	ok = check_all("add_bias after timing", dT1, want_bias, etol, ertol) && ok;
	ok = check_all("gelu after timing", dT2, want_gelu, etol, 1e-5) && ok;
	ok = check_all("scale after timing", dOut, want_scale, etol, ertol) && ok;

	CUBLAS_CK(cublasDestroy(h));
	for (float *p : {dA, dB, dbias, dC, dT1, dT2, dOut, dCv})
		BENCH_CK(cudaFree(p));
	return bench_finish(ok);
}
