/* ks-nvcc: verified variants replace cross_entropy_kernel (arch 900); see docs/REWRITE.md */
#line 1 "/work/main/bench/cross_entropy/main.cu"
// cross_entropy: mean cross-entropy loss of [batch x classes] logits
// (65536 x 4096 floats: 1 GiB) against integer class targets, reduced to one
// scalar. Single kernel, one thread per row: the thread finds the row max,
// sums exp(x - max), forms loss = log(sum) + max - x[target], and
// atomically adds loss / batch to a single float. The scalar is zeroed
// before each launch (part of the timed job).
// Vendor: none (the toolkit's CUB and cuBLAS have no cross-entropy).
#include "bench.h"
#include "ref.h"

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 3 "/tmp/ks-bench/cross_entropy/ks-no-long-term-memory/tasks/_Z20cross_entropy_kernelPKfPKiPfii/r3.variant.cu"
/* The original, for launches whose pointers share memory. */
#endif
#line 4 "/tmp/ks-bench/cross_entropy/ks-no-long-term-memory/tasks/_Z20cross_entropy_kernelPKfPKiPfii/r3.variant.cu"
__global__ void
ks_ro_cross_entropy_kernel(const float *x, const int *target, float *loss, int rows, int cols)
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 6 "/tmp/ks-bench/cross_entropy/ks-no-long-term-memory/tasks/_Z20cross_entropy_kernelPKfPKiPfii/r3.variant.cu"
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= rows)
		return;
	const float *xr = x + (size_t)row * cols;
	float m = xr[0];
	for (int c = 1; c < cols; c++)
		m = fmaxf(m, xr[c]);
	float s = 0.0f;
	for (int c = 0; c < cols; c++)
		s += expf(xr[c] - m);
	float l = logf(s) + m - xr[target[row]];
	atomicAdd(loss, l / rows);
}
#else
{}
#endif
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 21 "/tmp/ks-bench/cross_entropy/ks-no-long-term-memory/tasks/_Z20cross_entropy_kernelPKfPKiPfii/r3.variant.cu"
typedef int (*ks_ro_range_fn)(unsigned long long *, size_t *,
			       unsigned long long);

#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900
#line 25 "/tmp/ks-bench/cross_entropy/ks-no-long-term-memory/tasks/_Z20cross_entropy_kernelPKfPKiPfii/r3.variant.cu"
__global__ void
cross_entropy_kernel(const float *__restrict__ x, const int *__restrict__ target, float *__restrict__ loss, int rows, int cols)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= rows)
		return;
	const float *xr = x + (size_t)row * cols;
	float m = __ldg(&(xr[0]));
	for (int c = 1; c < cols; c++)
		m = fmaxf(m, __ldg(&(xr[c])));
	float s = 0.0f;
	for (int c = 0; c < cols; c++)
		s += expf(__ldg(&(xr[c])) - m);
	float l = logf(s) + m - xr[__ldg(&(target[row]))];
	atomicAdd(loss, l / rows);
}
#else
#line 11 "/work/main/bench/cross_entropy/main.cu"
__global__ void
cross_entropy_kernel(const float *x, const int *target, float *loss, int rows, int cols)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= rows)
		return;
	const float *xr = x + (size_t)row * cols;
	float m = xr[0];
	for (int c = 1; c < cols; c++)
		m = fmaxf(m, xr[c]);
	float s = 0.0f;
	for (int c = 0; c < cols; c++)
		s += expf(xr[c] - m);
	float l = logf(s) + m - xr[target[row]];
	atomicAdd(loss, l / rows);
}
#endif
#line 1 "<ks-nvcc>"
/* Never launched: cudaFuncGetAttributes on it tells which image
   of this file the device runs (__CUDA_ARCH__ is ptxVersion
   times 10). */
static __global__ void ks_probe_cross_entropy_kernel(void) {}
#ifndef __CUDA_ARCH__
/* 1 when the device code that runs is the variant's (arch 900):
   then its launcher must run. Cached per device. */
static int
ks_variant_active_cross_entropy_kernel(void)
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
	if (cudaFuncGetAttributes(&ks_attr, ks_probe_cross_entropy_kernel) != cudaSuccess)
		return 0;
	ks_on = ks_attr.ptxVersion == 90;
	if (ks_dev >= 0)
		__atomic_store_n(&ks_known[ks_dev], ks_on ? 1 : 2,
				 __ATOMIC_RELAXED);
	return ks_on;
}
#line 42 "/tmp/ks-bench/cross_entropy/ks-no-long-term-memory/tasks/_Z20cross_entropy_kernelPKfPKiPfii/r3.variant.cu"
static void
ks_launch_cross_entropy_kernel(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
	const float *x, const int *target, float *loss, int rows, int cols)
{
	static ks_ro_range_fn ks_range;
	static int ks_looked;
	const void *const ks_p[3] = { (const void *)x, (const void *)target, (const void *)loss };
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
		cross_entropy_kernel<<<grid, block, shmem, stream>>>(x, target, loss, rows, cols);
	else
		ks_ro_cross_entropy_kernel<<<grid, block, shmem, stream>>>(x, target, loss, rows, cols);
}
#endif
#line 26 "/work/main/bench/cross_entropy/main.cu"
 

int
main(int argc, char **argv)
{
	bench_init("cross_entropy", argc, argv);
	// Small: sizes that are not multiples of the block or of a warp.
	const int rows = bench_small() ? 37 : 65536;
	const int cols = bench_small() ? 100 : 4096;
	const size_t n = (size_t)rows * cols;

	// Logits uniform in [-4, 4), targets uniform over the classes, and the
	// target's logit raised by 3, as a model that has learned something
	// would score it.
	std::vector<float> hx(n);
	bench_fill(hx, 211, -4.0f, 4.0f);
	std::vector<int> ht(rows);
	bench_rng g(212);
	for (int r = 0; r < rows; r++) {
		ht[r] = (int)g.below(cols);
		hx[(size_t)r * cols + ht[r]] += 3.0f;
	}
	const float want = (float)cross_entropy_ref(hx.data(), ht.data(), rows, cols);

	float *dx = bench_to_device(hx);
	int *dt = bench_to_device(ht);
	float *dloss = nullptr;
	BENCH_CK(cudaMalloc(&dloss, sizeof(float)));

	const int threads = 256;
	const int blocks = (rows + threads - 1) / threads;
	auto launch = [&]() {
		BENCH_CK(cudaMemsetAsync(dloss, 0, sizeof(float)));
		
#ifdef __CUDA_ARCH__
#line 59 "/work/main/bench/cross_entropy/main.cu"
		cross_entropy_kernel<<<blocks, threads>>>(dx, dt, dloss, rows, cols)
#else
#line 59 "/work/main/bench/cross_entropy/main.cu"
		(ks_variant_active_cross_entropy_kernel() ? ks_launch_cross_entropy_kernel(blocks, threads, 0, cudaStream_t(), dx, dt, dloss, rows, cols) : (void)(
#line 59 "/work/main/bench/cross_entropy/main.cu"
		cross_entropy_kernel<<<blocks, threads>>>(dx, dt, dloss, rows, cols)))
#endif
#line 59 "/work/main/bench/cross_entropy/main.cu"
		                                                                    ;
	};

	// Tolerance: the per-row loss (~7) carries the rounding of x - max,
	// expf (2 ulp), a float sum of cols positive terms and logf: a few 1e-6
	// absolute in practice (the worst case, cols * 2^-24 ~ 2.4e-4, needs
	// every rounding in one direction). The batch mean adds rows float
	// additions of ~loss / rows in arbitrary order; their roundings are
	// independent, giving a relative spread of about
	// 2^-24 * sqrt(rows) / 3 (~5e-6 at rows = 65536). rtol 1e-4 is twenty
	// times that; reading any logit but the target's moves the mean by ~40%
	// (the target's is 3 higher). A single lost row (1 / rows ~ 1.5e-5
	// relative) is below what one float scalar can resolve.
	const double atol = 0.0, rtol = 1e-4;
	launch();
	BENCH_CK(cudaGetLastError());
	BENCH_CK(cudaDeviceSynchronize());
	float got = bench_to_host(dloss, 1)[0];
	bool ok = bench_check("cross_entropy", &got, &want, 1, atol, rtol);

	// Minimum: read the logits and targets once, write one float. Flops per
	// row: 4 * cols + 4 (cols - 1 max, cols subtracts, exps and adds; log,
	// add, subtract, divide), exp and log counted as 1.
	const double bytes = sizeof(float) * (double)n + sizeof(int) * (double)rows + sizeof(float);
	const double flops = (double)rows * (4.0 * cols + 4.0);
	bench_stats s = bench_time(launch);
	bench_report("cross_entropy", "naive", s, bytes, flops);

	got = bench_to_host(dloss, 1)[0];
	ok = bench_check("cross_entropy after timing", &got, &want, 1, atol, rtol) && ok;

	BENCH_CK(cudaFree(dx));
	BENCH_CK(cudaFree(dt));
	BENCH_CK(cudaFree(dloss));
	return bench_finish(ok);
}
