/* ks-nvcc: verified variants replace jacobi2d_kernel (arch 900); see docs/REWRITE.md */
#line 1 "/work/main/bench/jacobi2d/main.cu"
// jacobi2d: one sweep of the 2-D Jacobi iteration for the Laplace equation,
// 5-point stencil, fixed boundary: a 16384 x 8192 grid of floats in
// (512 MiB) and out. One thread per grid point, 16x16 threads per block;
// boundary points copy their input.
// Vendor: none (the toolkit's libraries have no stencils).
#include "bench.h"
#include "ref.h"

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 3 "/tmp/ks-bench/jacobi2d/ks-no-long-term-memory/tasks/_Z15jacobi2d_kernelPKfPfii/r5.variant.cu"
/* The original, for launches whose pointers share memory. */
#endif
#line 4 "/tmp/ks-bench/jacobi2d/ks-no-long-term-memory/tasks/_Z15jacobi2d_kernelPKfPfii/r5.variant.cu"
__global__ void
ks_ro_jacobi2d_kernel(const float *in, float *out, int nx, int ny)
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 6 "/tmp/ks-bench/jacobi2d/ks-no-long-term-memory/tasks/_Z15jacobi2d_kernelPKfPfii/r5.variant.cu"
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	if (x >= nx || y >= ny)
		return;
	size_t i = (size_t)y * nx + x;
	if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
		out[i] = in[i];
		return;
	}
	out[i] = 0.25f * (in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx]);
}
#else
{}
#endif
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 19 "/tmp/ks-bench/jacobi2d/ks-no-long-term-memory/tasks/_Z15jacobi2d_kernelPKfPfii/r5.variant.cu"
typedef int (*ks_ro_range_fn)(unsigned long long *, size_t *,
			       unsigned long long);

#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900
#line 23 "/tmp/ks-bench/jacobi2d/ks-no-long-term-memory/tasks/_Z15jacobi2d_kernelPKfPfii/r5.variant.cu"
__global__ void
jacobi2d_kernel(const float *__restrict__ in, float *__restrict__ out, int nx, int ny)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	if (x >= nx || y >= ny)
		return;
	size_t i = (size_t)y * nx + x;
	if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
		out[i] = __ldg(&(in[i]));
		return;
	}
	out[i] = 0.25f * (__ldg(&(in[i - 1])) + __ldg(&(in[i + 1])) + __ldg(&(in[i - nx])) + __ldg(&(in[i + nx])));
}
#else
#line 9 "/work/main/bench/jacobi2d/main.cu"
__global__ void
jacobi2d_kernel(const float *in, float *out, int nx, int ny)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	if (x >= nx || y >= ny)
		return;
	size_t i = (size_t)y * nx + x;
	if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
		out[i] = in[i];
		return;
	}
	out[i] = 0.25f * (in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx]);
}
#endif
#line 1 "<ks-nvcc>"
/* Never launched: cudaFuncGetAttributes on it tells which image
   of this file the device runs (__CUDA_ARCH__ is ptxVersion
   times 10). */
static __global__ void ks_probe_jacobi2d_kernel(void) {}
#ifndef __CUDA_ARCH__
/* 1 when the device code that runs is the variant's (arch 900):
   then its launcher must run. Cached per device. */
static int
ks_variant_active_jacobi2d_kernel(void)
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
	if (cudaFuncGetAttributes(&ks_attr, ks_probe_jacobi2d_kernel) != cudaSuccess)
		return 0;
	ks_on = ks_attr.ptxVersion == 90;
	if (ks_dev >= 0)
		__atomic_store_n(&ks_known[ks_dev], ks_on ? 1 : 2,
				 __ATOMIC_RELAXED);
	return ks_on;
}
#line 38 "/tmp/ks-bench/jacobi2d/ks-no-long-term-memory/tasks/_Z15jacobi2d_kernelPKfPfii/r5.variant.cu"
static void
ks_launch_jacobi2d_kernel(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
	const float *in, float *out, int nx, int ny)
{
	static ks_ro_range_fn ks_range;
	static int ks_looked;
	const void *const ks_p[2] = { (const void *)in, (const void *)out };
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
		jacobi2d_kernel<<<grid, block, shmem, stream>>>(in, out, nx, ny);
	else
		ks_ro_jacobi2d_kernel<<<grid, block, shmem, stream>>>(in, out, nx, ny);
}
#endif
#line 22 "/work/main/bench/jacobi2d/main.cu"
 

int
main(int argc, char **argv)
{
	bench_init("jacobi2d", argc, argv);
	// Small: sides that are not multiples of the 16x16 block.
	const int nx = bench_small() ? 37 : 16384;
	const int ny = bench_small() ? 23 : 8192;
	const size_t n = (size_t)nx * ny;

	std::vector<float> hin(n);
	bench_fill(hin, 701, -1.0f, 1.0f);
	std::vector<float> want(n);
	jacobi2d_ref(hin.data(), want.data(), nx, ny);

	float *din = bench_to_device(hin);
	float *dout = nullptr;
	BENCH_CK(cudaMalloc(&dout, n * sizeof(float)));
	// All-ones bytes are a NaN: a point the kernel misses fails the check.
	BENCH_CK(cudaMemset(dout, 0xff, n * sizeof(float)));

	const dim3 block(16, 16);
	const dim3 grid((nx + 15) / 16, (ny + 15) / 16);
	auto launch = [&]() { 
#ifdef __CUDA_ARCH__
#line 46 "/work/main/bench/jacobi2d/main.cu"
	                      jacobi2d_kernel<<<grid, block>>>(din, dout, nx, ny)
#else
#line 46 "/work/main/bench/jacobi2d/main.cu"
	                      (ks_variant_active_jacobi2d_kernel() ? ks_launch_jacobi2d_kernel(grid, block, 0, cudaStream_t(), din, dout, nx, ny) : (void)(
#line 46 "/work/main/bench/jacobi2d/main.cu"
	                      jacobi2d_kernel<<<grid, block>>>(din, dout, nx, ny)))
#endif
#line 46 "/work/main/bench/jacobi2d/main.cu"
	                                                                         ; };

	// The reference computes in float in the kernel's order (no product to
	// contract into an FMA): every point must match exactly.
	launch();
	BENCH_CK(cudaGetLastError());
	BENCH_CK(cudaDeviceSynchronize());
	std::vector<float> got = bench_to_host(dout, n);
	bool ok = bench_check("jacobi2d", got.data(), want.data(), n, 0.0, 0.0);

	// Minimum: read in once, write out once. Flops: 3 adds and 1 multiply
	// per interior point (boundary points are copies).
	bench_stats st = bench_time(launch);
	const double interior = (double)(nx - 2) * (ny - 2);
	bench_report("jacobi2d", "naive", st, 2.0 * sizeof(float) * (double)n, 4.0 * interior);

	got = bench_to_host(dout, n);
	ok = bench_check("jacobi2d after timing", got.data(), want.data(), n, 0.0, 0.0) && ok;

	BENCH_CK(cudaFree(din));
	BENCH_CK(cudaFree(dout));
	return bench_finish(ok);
}
