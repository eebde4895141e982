/* ks-nvcc: verified variants replace stencil3d25_kernel (arch 900); see docs/REWRITE.md */
#line 1 "/work/main/bench/stencil3d25/main.cu"
// stencil3d25: the 3-D 25-point star stencil of radius 4 (the
// eighth-order Laplacian of seismic wave codes), fixed boundary 4 points
// deep, on a 512^3 grid of floats in (512 MiB) and out. One thread per
// grid point, 8x8x8 threads per block, the coefficients in constant
// memory; points within 4 of a face copy their input.
// Vendor: none (the toolkit's libraries have no stencils).
#include "bench.h"
#include "ref.h"

__constant__ float coef[STENCIL_R + 1];

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 3 "/tmp/ks-bench/stencil3d25/ks-no-long-term-memory/tasks/_Z18stencil3d25_kernelPKfPfiii/r5.variant.cu"
/* The original, for launches whose pointers share memory. */
#endif
#line 4 "/tmp/ks-bench/stencil3d25/ks-no-long-term-memory/tasks/_Z18stencil3d25_kernelPKfPfiii/r5.variant.cu"
__global__ void
ks_ro_stencil3d25_kernel(const float *in, float *out, int nx, int ny, int nz)
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 6 "/tmp/ks-bench/stencil3d25/ks-no-long-term-memory/tasks/_Z18stencil3d25_kernelPKfPfiii/r5.variant.cu"
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	int z = blockIdx.z * blockDim.z + threadIdx.z;
	if (x >= nx || y >= ny || z >= nz)
		return;
	size_t i = ((size_t)z * ny + y) * nx + x;
	if (x < STENCIL_R || y < STENCIL_R || z < STENCIL_R || x >= nx - STENCIL_R ||
	    y >= ny - STENCIL_R || z >= nz - STENCIL_R) {
		out[i] = in[i];
		return;
	}
	float acc = coef[0] * in[i];
	for (int r = 1; r <= STENCIL_R; r++)
		acc += coef[r] * (in[i - r] + in[i + r] + in[i - r * nx] + in[i + r * nx] +
				  in[i - r * (size_t)nx * ny] + in[i + r * (size_t)nx * ny]);
	out[i] = acc;
}
#else
{}
#endif
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 25 "/tmp/ks-bench/stencil3d25/ks-no-long-term-memory/tasks/_Z18stencil3d25_kernelPKfPfiii/r5.variant.cu"
typedef int (*ks_ro_range_fn)(unsigned long long *, size_t *,
			       unsigned long long);

#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900
#line 29 "/tmp/ks-bench/stencil3d25/ks-no-long-term-memory/tasks/_Z18stencil3d25_kernelPKfPfiii/r5.variant.cu"
__global__ void
stencil3d25_kernel(const float *__restrict__ in, float *__restrict__ out, int nx, int ny, int nz)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	int z = blockIdx.z * blockDim.z + threadIdx.z;
	if (x >= nx || y >= ny || z >= nz)
		return;
	size_t i = ((size_t)z * ny + y) * nx + x;
	if (x < STENCIL_R || y < STENCIL_R || z < STENCIL_R || x >= nx - STENCIL_R ||
	    y >= ny - STENCIL_R || z >= nz - STENCIL_R) {
		out[i] = __ldg(&(in[i]));
		return;
	}
	float acc = coef[0] * __ldg(&(in[i]));
	for (int r = 1; r <= STENCIL_R; r++)
		acc += coef[r] * (__ldg(&(in[i - r])) + __ldg(&(in[i + r])) + __ldg(&(in[i - r * nx])) + __ldg(&(in[i + r * nx])) +
				  __ldg(&(in[i - r * (size_t)nx * ny])) + __ldg(&(in[i + r * (size_t)nx * ny])));
	out[i] = acc;
}
#else
#line 12 "/work/main/bench/stencil3d25/main.cu"
__global__ void
stencil3d25_kernel(const float *in, float *out, int nx, int ny, int nz)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	int z = blockIdx.z * blockDim.z + threadIdx.z;
	if (x >= nx || y >= ny || z >= nz)
		return;
	size_t i = ((size_t)z * ny + y) * nx + x;
	if (x < STENCIL_R || y < STENCIL_R || z < STENCIL_R || x >= nx - STENCIL_R ||
	    y >= ny - STENCIL_R || z >= nz - STENCIL_R) {
		out[i] = in[i];
		return;
	}
	float acc = coef[0] * in[i];
	for (int r = 1; r <= STENCIL_R; r++)
		acc += coef[r] * (in[i - r] + in[i + r] + in[i - r * nx] + in[i + r * nx] +
				  in[i - r * (size_t)nx * ny] + in[i + r * (size_t)nx * ny]);
	out[i] = acc;
}
#endif
#line 1 "<ks-nvcc>"
/* Never launched: cudaFuncGetAttributes on it tells which image
   of this file the device runs (__CUDA_ARCH__ is ptxVersion
   times 10). */
static __global__ void ks_probe_stencil3d25_kernel(void) {}
#ifndef __CUDA_ARCH__
/* 1 when the device code that runs is the variant's (arch 900):
   then its launcher must run. Cached per device. */
static int
ks_variant_active_stencil3d25_kernel(void)
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
	if (cudaFuncGetAttributes(&ks_attr, ks_probe_stencil3d25_kernel) != cudaSuccess)
		return 0;
	ks_on = ks_attr.ptxVersion == 90;
	if (ks_dev >= 0)
		__atomic_store_n(&ks_known[ks_dev], ks_on ? 1 : 2,
				 __ATOMIC_RELAXED);
	return ks_on;
}
#line 50 "/tmp/ks-bench/stencil3d25/ks-no-long-term-memory/tasks/_Z18stencil3d25_kernelPKfPfiii/r5.variant.cu"
static void
ks_launch_stencil3d25_kernel(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
	const float *in, float *out, int nx, int ny, int nz)
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
		stencil3d25_kernel<<<grid, block, shmem, stream>>>(in, out, nx, ny, nz);
	else
		ks_ro_stencil3d25_kernel<<<grid, block, shmem, stream>>>(in, out, nx, ny, nz);
}
#endif
#line 31 "/work/main/bench/stencil3d25/main.cu"
 

int
main(int argc, char **argv)
{
	bench_init("stencil3d25", argc, argv);
	// Small: sides that are not multiples of the 8x8x8 block, each with
	// some interior beyond the 4-deep boundary.
	const int nx = bench_small() ? 21 : 512;
	const int ny = bench_small() ? 15 : 512;
	const int nz = bench_small() ? 13 : 512;
	const size_t n = (size_t)nx * ny * nz;
	// The eighth-order second-derivative weights over 3 dimensions
	// (centre 3 * -205/72), scaled by 0.1 so the output stays near the
	// input's size.
	const float hc[STENCIL_R + 1] = {0.1f * 3.0f * (-205.0f / 72.0f), 0.1f * 8.0f / 5.0f,
					 0.1f * -1.0f / 5.0f, 0.1f * 8.0f / 315.0f,
					 0.1f * -1.0f / 560.0f};
	BENCH_CK(cudaMemcpyToSymbol(coef, hc, sizeof(hc)));

	std::vector<float> hin(n);
	bench_fill(hin, 721, -1.0f, 1.0f);

	// Points checked: all of them at the small size. At full size, 262144
	// pseudo-random points plus the z planes 0, 3, 4, 5, nz / 2, nz - 5,
	// nz - 4 and nz - 1, which hold every kind of boundary point and the
	// interior points next to the boundary.
	std::vector<size_t> idx;
	const size_t plane = (size_t)nx * ny;
	if (bench_small()) {
		for (size_t i = 0; i < n; i++)
			idx.push_back(i);
	} else {
		bench_rng pick(722);
		for (int i = 0; i < 262144; i++)
			idx.push_back((size_t)(pick.next() % n));
		const int zs[8] = {0, 3, 4, 5, nz / 2, nz - 5, nz - 4, nz - 1};
		for (int z : zs)
			for (size_t p = 0; p < plane; p++)
				idx.push_back((size_t)z * plane + p);
	}
	std::vector<float> want(idx.size()), got(idx.size());
	for (size_t j = 0; j < idx.size(); j++) {
		const size_t i = idx[j];
		want[j] = (float)stencil3d25_ref_at(hin.data(), nx, ny, nz, hc, (int)(i % nx),
						    (int)(i / nx % ny), (int)(i / plane));
	}

	float *din = bench_to_device(hin);
	float *dout = nullptr;
	BENCH_CK(cudaMalloc(&dout, n * sizeof(float)));
	// All-ones bytes are a NaN: a point the kernel misses fails the check.
	BENCH_CK(cudaMemset(dout, 0xff, n * sizeof(float)));

	const dim3 block(8, 8, 8);
	const dim3 grid((nx + 7) / 8, (ny + 7) / 8, (nz + 7) / 8);
	auto launch = [&]() { 
#ifdef __CUDA_ARCH__
#line 87 "/work/main/bench/stencil3d25/main.cu"
	                      stencil3d25_kernel<<<grid, block>>>(din, dout, nx, ny, nz)
#else
#line 87 "/work/main/bench/stencil3d25/main.cu"
	                      (ks_variant_active_stencil3d25_kernel() ? ks_launch_stencil3d25_kernel(grid, block, 0, cudaStream_t(), din, dout, nx, ny, nz) : (void)(
#line 87 "/work/main/bench/stencil3d25/main.cu"
	                      stencil3d25_kernel<<<grid, block>>>(din, dout, nx, ny, nz)))
#endif
#line 87 "/work/main/bench/stencil3d25/main.cu"
	                                                                                ; };

	// Tolerance: |out| stays below ~2; a float sum of 25 terms of size
	// <= 0.86 in any order is within ~25 * 2^-24 * 3 ~ 5e-6 of the double
	// sum: atol 5e-6, rtol 1e-6. A missing or shifted tap is off by 1e-4
	// (the smallest weight, 1.8e-4, times a value of typical size 0.5) or
	// more.
	const double atol = 5e-6, rtol = 1e-6;
	auto check = [&](const char *what) {
		std::vector<float> all = bench_to_host(dout, n);
		for (size_t j = 0; j < idx.size(); j++)
			got[j] = all[idx[j]];
		return bench_check(what, got.data(), want.data(), idx.size(), atol, rtol);
	};

	launch();
	BENCH_CK(cudaGetLastError());
	BENCH_CK(cudaDeviceSynchronize());
	bool ok = check("stencil3d25");

	// Minimum: read in once, write out once. Flops per interior point: 1
	// multiply, then per radius 5 adds, a multiply and an add: 29.
	bench_stats st = bench_time(launch);
	const double interior = (double)(nx - 2 * STENCIL_R) * (ny - 2 * STENCIL_R) *
				(nz - 2 * STENCIL_R);
	bench_report("stencil3d25", "naive", st, 2.0 * sizeof(float) * (double)n,
		     29.0 * interior);

	ok = check("stencil3d25 after timing") && ok;

	BENCH_CK(cudaFree(din));
	BENCH_CK(cudaFree(dout));
	return bench_finish(ok);
}
