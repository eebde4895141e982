// stencil3d7: the 3-D 7-point stencil (a weighted Laplacian smoother,
// c0 * centre + c1 * the six face neighbours) with a fixed boundary, on a
// 512^3 grid of floats in (512 MiB) and out. One thread per grid point,
// 8x8x8 threads per block; boundary points copy their input.
// Vendor: none (the toolkit's libraries have no stencils).
#include "bench.h"
#include "ref.h"

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
		stencil3d7_kernel<<<grid, block>>>(din, dout, nx, ny, nz, c0, c1);
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
