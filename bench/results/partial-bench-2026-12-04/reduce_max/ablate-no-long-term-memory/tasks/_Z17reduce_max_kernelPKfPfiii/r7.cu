/* ks-nvcc: verified variants replace reduce_max_kernel (arch 900); see docs/REWRITE.md */
#line 1 "/work/main/bench/reduce_max/main.cu"
// reduce_max: max over dimension 1 of a [B x R x C] tensor, e.g. max-pooling
// [batch x seq x hidden] activations over the sequence (64 x 1024 x 4096
// floats: 1 GiB in, 1 MiB out). One thread per output (b, c): it walks r
// with a stride of C floats, so neighbouring threads read neighbouring
// addresses.
// Vendor: none. CUB's segmented reductions need each segment contiguous,
// and here a segment (fixed b, c) is strided by C.
#include "bench.h"
#include "ref.h"

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 3 "/tmp/ks-bench/reduce_max/ks-no-long-term-memory/tasks/_Z17reduce_max_kernelPKfPfiii/r7.variant.cu"
/* The original, for launches whose pointers share memory. */
#endif
#line 4 "/tmp/ks-bench/reduce_max/ks-no-long-term-memory/tasks/_Z17reduce_max_kernelPKfPfiii/r7.variant.cu"
__global__ void
ks_ro_reduce_max_kernel(const float *x, float *y, int nb, int nr, int nc)
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 6 "/tmp/ks-bench/reduce_max/ks-no-long-term-memory/tasks/_Z17reduce_max_kernelPKfPfiii/r7.variant.cu"
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= nb * nc)
		return;
	int b = i / nc, c = i % nc;
	const float *xb = x + (size_t)b * nr * nc + c;
	float m = xb[0];
	for (int r = 1; r < nr; r++)
		m = fmaxf(m, xb[(size_t)r * nc]);
	y[i] = m;
}
#else
{}
#endif
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 18 "/tmp/ks-bench/reduce_max/ks-no-long-term-memory/tasks/_Z17reduce_max_kernelPKfPfiii/r7.variant.cu"
typedef int (*ks_ro_range_fn)(unsigned long long *, size_t *,
			       unsigned long long);

#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900
#line 22 "/tmp/ks-bench/reduce_max/ks-no-long-term-memory/tasks/_Z17reduce_max_kernelPKfPfiii/r7.variant.cu"
__global__ void
reduce_max_kernel(const float *__restrict__ x, float *__restrict__ y, int nb, int nr, int nc)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= nb * nc)
		return;
	int b = i / nc, c = i % nc;
	const float *xb = x + (size_t)b * nr * nc + c;
	float m = __ldg(&(xb[0]));
	for (int r = 1; r < nr; r++)
		m = fmaxf(m, __ldg(&(xb[(size_t)r * nc])));
	y[i] = m;
}
#else
#line 11 "/work/main/bench/reduce_max/main.cu"
__global__ void
reduce_max_kernel(const float *x, float *y, int nb, int nr, int nc)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= nb * nc)
		return;
	int b = i / nc, c = i % nc;
	const float *xb = x + (size_t)b * nr * nc + c;
	float m = xb[0];
	for (int r = 1; r < nr; r++)
		m = fmaxf(m, xb[(size_t)r * nc]);
	y[i] = m;
}
#endif
#line 1 "<ks-nvcc>"
/* Never launched: cudaFuncGetAttributes on it tells which image
   of this file the device runs (__CUDA_ARCH__ is ptxVersion
   times 10). */
static __global__ void ks_probe_reduce_max_kernel(void) {}
#ifndef __CUDA_ARCH__
/* 1 when the device code that runs is the variant's (arch 900):
   then its launcher must run. Cached per device. */
static int
ks_variant_active_reduce_max_kernel(void)
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
	if (cudaFuncGetAttributes(&ks_attr, ks_probe_reduce_max_kernel) != cudaSuccess)
		return 0;
	ks_on = ks_attr.ptxVersion == 90;
	if (ks_dev >= 0)
		__atomic_store_n(&ks_known[ks_dev], ks_on ? 1 : 2,
				 __ATOMIC_RELAXED);
	return ks_on;
}
#line 36 "/tmp/ks-bench/reduce_max/ks-no-long-term-memory/tasks/_Z17reduce_max_kernelPKfPfiii/r7.variant.cu"
static void
ks_launch_reduce_max_kernel(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
	const float *x, float *y, int nb, int nr, int nc)
{
	static ks_ro_range_fn ks_range;
	static int ks_looked;
	const void *const ks_p[2] = { (const void *)x, (const void *)y };
	const int ks_w[2] = { 0, 1 };
	unsigned long long ks_base[2];
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
	for (int ks_i = 0; ks_i < 2 && ks_ok; ks_i++) {
		size_t ks_size = 0;

		ks_ok = ks_range && ks_range(&ks_base[ks_i], &ks_size,
					       (unsigned long long)ks_p[ks_i]) == 0;
	}
	for (int ks_i = 0; ks_i < 2 && ks_ok; ks_i++)
		for (int ks_j = ks_i + 1; ks_j < 2 && ks_ok; ks_j++)
			if ((ks_w[ks_i] || ks_w[ks_j]) && ks_base[ks_i] == ks_base[ks_j])
				ks_ok = 0;
	(void)ks_w;
	if (ks_ok)
		reduce_max_kernel<<<grid, block, shmem, stream>>>(x, y, nb, nr, nc);
	else
		ks_ro_reduce_max_kernel<<<grid, block, shmem, stream>>>(x, y, nb, nr, nc);
}
#endif
#line 23 "/work/main/bench/reduce_max/main.cu"
 

int
main(int argc, char **argv)
{
	bench_init("reduce_max", argc, argv);
	// Small: sizes that are not multiples of the block or of a warp.
	const int nb = bench_small() ? 3 : 64;
	const int nr = bench_small() ? 17 : 1024;
	const int nc = bench_small() ? 45 : 4096;
	const size_t n = (size_t)nb * nr * nc;
	const int nout = nb * nc;

	std::vector<float> hx(n);
	bench_fill(hx, 111, -4.0f, 4.0f);
	std::vector<float> want(nout);
	reduce_max_ref(hx.data(), want.data(), nb, nr, nc);

	float *dx = bench_to_device(hx);
	float *dy = nullptr;
	BENCH_CK(cudaMalloc(&dy, nout * sizeof(float)));
	// All-ones bytes are a NaN: an output the kernel misses fails the check.
	BENCH_CK(cudaMemset(dy, 0xff, nout * sizeof(float)));

	const int threads = 256;
	const int blocks = (nout + threads - 1) / threads;
	auto launch = [&]() { 
#ifdef __CUDA_ARCH__
#line 49 "/work/main/bench/reduce_max/main.cu"
	                      reduce_max_kernel<<<blocks, threads>>>(dx, dy, nb, nr, nc)
#else
#line 49 "/work/main/bench/reduce_max/main.cu"
	                      (ks_variant_active_reduce_max_kernel() ? ks_launch_reduce_max_kernel(blocks, threads, 0, cudaStream_t(), dx, dy, nb, nr, nc) : (void)(
#line 49 "/work/main/bench/reduce_max/main.cu"
	                      reduce_max_kernel<<<blocks, threads>>>(dx, dy, nb, nr, nc)))
#endif
#line 49 "/work/main/bench/reduce_max/main.cu"
	                                                                                ; };

	// Max involves no rounding: the result must be exact.
	launch();
	BENCH_CK(cudaGetLastError());
	BENCH_CK(cudaDeviceSynchronize());
	std::vector<float> got = bench_to_host(dy, nout);
	bool ok = bench_check("reduce_max", got.data(), want.data(), nout, 0.0, 0.0);

	bench_stats s = bench_time(launch);
	// Minimum: read x once, write y once. Flops: R - 1 max operations per
	// output (a comparison counted as 1).
	bench_report("reduce_max", "naive", s, sizeof(float) * ((double)n + nout),
		     (double)nout * (nr - 1));

	got = bench_to_host(dy, nout);
	ok = bench_check("reduce_max after timing", got.data(), want.data(), nout, 0.0, 0.0) &&
	     ok;

	BENCH_CK(cudaFree(dx));
	BENCH_CK(cudaFree(dy));
	return bench_finish(ok);
}
