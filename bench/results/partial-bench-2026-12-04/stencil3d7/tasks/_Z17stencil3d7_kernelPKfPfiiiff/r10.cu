/* ks-nvcc: verified variants replace stencil3d7_kernel (arch 900); see docs/REWRITE.md */
#line 1 "/work/main/bench/stencil3d7/main.cu"
// stencil3d7: the 3-D 7-point stencil (a weighted Laplacian smoother,
// c0 * centre + c1 * the six face neighbours) with a fixed boundary, on a
// 512^3 grid of floats in (512 MiB) and out. One thread per grid point,
// 8x8x8 threads per block; boundary points copy their input.
// Vendor: none (the toolkit's libraries have no stencils).
#include "bench.h"
#include "ref.h"

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 3 "/tmp/ks-bench/stencil3d7/ks/tasks/_Z17stencil3d7_kernelPKfPfiiiff/r10.variant.cu"
static __device__ __forceinline__ void
ks_sb_stencil3d7_kernel(const uint3 threadIdx, const uint3 blockIdx, const dim3 blockDim,
	const dim3 gridDim,
	const float *in, float *out, int nx, int ny, int nz, float c0, float c1)
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
	if (x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1) {
		out[i] = in[i];
		return;
	}
	out[i] = c0 * in[i] + c1 * (in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx] +
				    in[i - (size_t)nx * ny] + in[i + (size_t)nx * ny]);
}
}

#endif
#line 28 "/tmp/ks-bench/stencil3d7/ks/tasks/_Z17stencil3d7_kernelPKfPfiiiff/r10.variant.cu"
__global__ void __launch_bounds__(256)
ks_xf_stencil3d7_kernel(const float *in, float *out, int nx, int ny, int nz, float c0, float c1, const dim3 ks_og, const dim3 ks_ob,
	const unsigned ks_mg, const unsigned ks_s1, const unsigned ks_s2)
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 31 "/tmp/ks-bench/stencil3d7/ks/tasks/_Z17stencil3d7_kernelPKfPfiiiff/r10.variant.cu"
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
					ks_sb_stencil3d7_kernel(make_uint3(ks_tx + ks_j, 0, 0),
						make_uint3(ks_bx, 0, 0), ks_ob, ks_og, in, out, nx, ny, nz, c0, c1);
			}
		}
	}
}
#else
{}
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900
#line 56 "/tmp/ks-bench/stencil3d7/ks/tasks/_Z17stencil3d7_kernelPKfPfiiiff/r10.variant.cu"
__global__ void
stencil3d7_kernel(const float *in, float *out, int nx, int ny, int nz, float c0, float c1)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	int z = blockIdx.z * blockDim.z + threadIdx.z;
	if (x >= nx || y >= ny || z >= nz)
		return;
	size_t i = ((size_t)z * ny + y) * nx + x;
	if (x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1) {
		out[i] = in[i];
		return;
	}
	out[i] = c0 * in[i] + c1 * (in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx] +
				    in[i - (size_t)nx * ny] + in[i + (size_t)nx * ny]);
}
#else
#line 9 "/work/main/bench/stencil3d7/main.cu"
__global__ void
stencil3d7_kernel(const float *in, float *out, int nx, int ny, int nz, float c0, float c1)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	int z = blockIdx.z * blockDim.z + threadIdx.z;
	if (x >= nx || y >= ny || z >= nz)
		return;
	size_t i = ((size_t)z * ny + y) * nx + x;
	if (x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1) {
		out[i] = in[i];
		return;
	}
	out[i] = c0 * in[i] + c1 * (in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx] +
				    in[i - (size_t)nx * ny] + in[i + (size_t)nx * ny]);
}
#endif
#line 1 "<ks-nvcc>"
/* Never launched: cudaFuncGetAttributes on it tells which image
   of this file the device runs (__CUDA_ARCH__ is ptxVersion
   times 10). */
static __global__ void ks_probe_stencil3d7_kernel(void) {}
#ifndef __CUDA_ARCH__
/* 1 when the device code that runs is the variant's (arch 900):
   then its launcher must run. Cached per device. */
static int
ks_variant_active_stencil3d7_kernel(void)
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
	if (cudaFuncGetAttributes(&ks_attr, ks_probe_stencil3d7_kernel) != cudaSuccess)
		return 0;
	ks_on = ks_attr.ptxVersion == 90;
	if (ks_dev >= 0)
		__atomic_store_n(&ks_known[ks_dev], ks_on ? 1 : 2,
				 __ATOMIC_RELAXED);
	return ks_on;
}
#line 73 "/tmp/ks-bench/stencil3d7/ks/tasks/_Z17stencil3d7_kernelPKfPfiiiff/r10.variant.cu"
static void
ks_launch_stencil3d7_kernel(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
	const float *in, float *out, int nx, int ny, int nz, float c0, float c1)
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
		stencil3d7_kernel<<<grid, block, shmem, stream>>>(in, out, nx, ny, nz, c0, c1);
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
			    &ks_per, ks_xf_stencil3d7_kernel, 256, 0) == cudaSuccess)
			ks_fill[ks_dev] = ks_sms * ks_per;
		if (ks_fill[ks_dev] > 0 &&
		    ks_blocks > 4ULL * (unsigned long long)ks_fill[ks_dev])
			ks_blocks = 4ULL * (unsigned long long)ks_fill[ks_dev];
	}
	if (ks_blocks > 0x7fffffffULL)
		ks_blocks = 0x7fffffffULL;
	(void)shmem;
	ks_xf_stencil3d7_kernel<<<(unsigned)ks_blocks, 256, 0, stream>>>(in, out, nx, ny, nz, c0, c1, grid, block, ks_mg, ks_s1, ks_s2);
}
#endif
#line 24 "/work/main/bench/stencil3d7/main.cu"
 

int
main(int argc, char **argv)
{
	bench_init("stencil3d7", argc, argv);
	// Small: sides that are not multiples of the 8x8x8 block.
	const int nx = bench_small() ? 19 : 512;
	const int ny = bench_small() ? 13 : 512;
	const int nz = bench_small() ? 11 : 512;
	const float c0 = 0.4f, c1 = 0.1f;
	const size_t n = (size_t)nx * ny * nz;

	std::vector<float> hin(n);
	bench_fill(hin, 711, -1.0f, 1.0f);

	// Points checked: all of them at the small size. At full size, 262144
	// pseudo-random points plus the first two, the middle and the last two
	// z planes, which hold every kind of boundary point and their inner
	// neighbours.
	std::vector<size_t> idx;
	const size_t plane = (size_t)nx * ny;
	if (bench_small()) {
		for (size_t i = 0; i < n; i++)
			idx.push_back(i);
	} else {
		bench_rng pick(712);
		for (int i = 0; i < 262144; i++)
			idx.push_back((size_t)(pick.next() % n));
		const int zs[5] = {0, 1, nz / 2, nz - 2, nz - 1};
		for (int z : zs)
			for (size_t p = 0; p < plane; p++)
				idx.push_back((size_t)z * plane + p);
	}
	std::vector<float> want(idx.size()), got(idx.size());
	for (size_t j = 0; j < idx.size(); j++) {
		const size_t i = idx[j];
		want[j] = (float)stencil3d7_ref_at(hin.data(), nx, ny, nz, c0, c1,
						   (int)(i % nx), (int)(i / nx % ny),
						   (int)(i / plane));
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
#line 75 "/work/main/bench/stencil3d7/main.cu"
		stencil3d7_kernel<<<grid, block>>>(din, dout, nx, ny, nz, c0, c1)
#else
#line 75 "/work/main/bench/stencil3d7/main.cu"
		(ks_variant_active_stencil3d7_kernel() ? ks_launch_stencil3d7_kernel(grid, block, 0, cudaStream_t(), din, dout, nx, ny, nz, c0, c1) : (void)(
#line 75 "/work/main/bench/stencil3d7/main.cu"
		stencil3d7_kernel<<<grid, block>>>(din, dout, nx, ny, nz, c0, c1)))
#endif
#line 75 "/work/main/bench/stencil3d7/main.cu"
		                                                                 ;
	};

	// Tolerance: |out| <= 1, a float sum of seven terms rounded a few
	// times (and contracted into FMAs by the compiler): atol 1e-6, rtol
	// 1e-6. A missing or shifted neighbour is off by ~1e-2 or more.
	const double atol = 1e-6, rtol = 1e-6;
	auto check = [&](const char *what) {
		std::vector<float> all = bench_to_host(dout, n);
		for (size_t j = 0; j < idx.size(); j++)
			got[j] = all[idx[j]];
		return bench_check(what, got.data(), want.data(), idx.size(), atol, rtol);
	};

	launch();
	BENCH_CK(cudaGetLastError());
	BENCH_CK(cudaDeviceSynchronize());
	bool ok = check("stencil3d7");

	// Minimum: read in once, write out once. Flops per interior point: 5
	// adds of the neighbours, 2 multiplies, 1 add (boundary points are
	// copies).
	bench_stats st = bench_time(launch);
	const double interior = (double)(nx - 2) * (ny - 2) * (nz - 2);
	bench_report("stencil3d7", "naive", st, 2.0 * sizeof(float) * (double)n, 8.0 * interior);

	ok = check("stencil3d7 after timing") && ok;

	BENCH_CK(cudaFree(din));
	BENCH_CK(cudaFree(dout));
	return bench_finish(ok);
}
