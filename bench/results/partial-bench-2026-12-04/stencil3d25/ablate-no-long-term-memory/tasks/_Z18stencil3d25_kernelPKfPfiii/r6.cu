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

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900
#line 3 "/tmp/ks-bench/stencil3d25/ks-no-long-term-memory/tasks/_Z18stencil3d25_kernelPKfPfiii/r6.variant.cu"
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
	#pragma unroll
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
	auto launch = [&]() { stencil3d25_kernel<<<grid, block>>>(din, dout, nx, ny, nz); };

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
