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
#line 3 "/tmp/ks-bench/stencil3d25/ks-no-long-term-memory/tasks/_Z18stencil3d25_kernelPKfPfiii/r27.variant.cu"
static __device__ __forceinline__ void
ks_sb_stencil3d25_kernel(const uint3 threadIdx, const uint3 blockIdx, const dim3 blockDim,
	const dim3 gridDim,
	const float *in, float *out, int nx, int ny, int nz)
{
	(void)threadIdx;
	(void)blockIdx;
	(void)blockDim;
	(void)gridDim;
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
}

#endif
#line 32 "/tmp/ks-bench/stencil3d25/ks-no-long-term-memory/tasks/_Z18stencil3d25_kernelPKfPfiii/r27.variant.cu"
__global__ void __launch_bounds__(512)
ks_xf_stencil3d25_kernel(const float *in, float *out, int nx, int ny, int nz, const dim3 ks_og, const dim3 ks_ob,
	const unsigned ks_mg, const unsigned ks_s1, const unsigned ks_s2)
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 35 "/tmp/ks-bench/stencil3d25/ks-no-long-term-memory/tasks/_Z18stencil3d25_kernelPKfPfiii/r27.variant.cu"
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
					ks_sb_stencil3d25_kernel(make_uint3(ks_tx + ks_j, 0, 0),
						make_uint3(ks_bx, 0, 0), ks_ob, ks_og, in, out, nx, ny, nz);
			}
		}
	}
}
#else
{}
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900
#line 60 "/tmp/ks-bench/stencil3d25/ks-no-long-term-memory/tasks/_Z18stencil3d25_kernelPKfPfiii/r27.variant.cu"
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
#line 81 "/tmp/ks-bench/stencil3d25/ks-no-long-term-memory/tasks/_Z18stencil3d25_kernelPKfPfiii/r27.variant.cu"
static void
ks_launch_stencil3d25_kernel(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
	const float *in, float *out, int nx, int ny, int nz)
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
		stencil3d25_kernel<<<grid, block, shmem, stream>>>(in, out, nx, ny, nz);
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
			    &ks_per, ks_xf_stencil3d25_kernel, 512, 0) == cudaSuccess)
			ks_fill[ks_dev] = ks_sms * ks_per;
		if (ks_fill[ks_dev] > 0 &&
		    ks_blocks > 4ULL * (unsigned long long)ks_fill[ks_dev])
			ks_blocks = 4ULL * (unsigned long long)ks_fill[ks_dev];
	}
	if (ks_blocks > 0x7fffffffULL)
		ks_blocks = 0x7fffffffULL;
	(void)shmem;
	ks_xf_stencil3d25_kernel<<<(unsigned)ks_blocks, 512, 0, stream>>>(in, out, nx, ny, nz, grid, block, ks_mg, ks_s1, ks_s2);
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
