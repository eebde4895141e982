// jacobi2d: one sweep of the 2-D Jacobi iteration for the Laplace equation,
// 5-point stencil, fixed boundary: a 16384 x 8192 grid of floats in
// (512 MiB) and out. One thread per grid point, 16x16 threads per block;
// boundary points copy their input.
// Vendor: none (the toolkit's libraries have no stencils).
#include "bench.h"
#include "ref.h"

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
	auto launch = [&]() { jacobi2d_kernel<<<grid, block>>>(din, dout, nx, ny); };

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
