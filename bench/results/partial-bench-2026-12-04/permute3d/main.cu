// permute3d: permute a row-major [A x B x C] tensor into [C x A x B]
// (128 x 1024 x 2048 floats: 1 GiB in, 1 GiB out), e.g. moving a trailing
// feature dimension to the front. One thread per output element, 1-D grid
// over the output: writes are contiguous, reads jump C floats between
// neighbouring threads.
// Vendor: none (no CUDA library in the toolkit does a general permute).
#include "bench.h"
#include "ref.h"

__global__ void
permute3d_kernel(const float *x, float *y, int na, int nb, int nc)
{
	size_t o = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (o >= (size_t)na * nb * nc)
		return;
	int b = (int)(o % nb);
	size_t t = o / nb;
	int a = (int)(t % na);
	int c = (int)(t / na);
	y[o] = x[((size_t)a * nb + b) * nc + c];
}

int
main(int argc, char **argv)
{
	bench_init("permute3d", argc, argv);
	// Small: three different sizes, none a multiple of a warp.
	const int na = bench_small() ? 6 : 128;
	const int nb = bench_small() ? 10 : 1024;
	const int nc = bench_small() ? 13 : 2048;
	const size_t n = (size_t)na * nb * nc;

	std::vector<float> hx(n);
	bench_fill(hx, 141, -1.0f, 1.0f);
	std::vector<float> want(n);
	permute3d_ref(hx.data(), want.data(), na, nb, nc);

	float *dx = bench_to_device(hx);
	float *dy = nullptr;
	BENCH_CK(cudaMalloc(&dy, n * sizeof(float)));
	// All-ones bytes are a NaN: an element the kernel misses fails the check.
	BENCH_CK(cudaMemset(dy, 0xff, n * sizeof(float)));

	const int threads = 256;
	const unsigned blocks = (unsigned)((n + threads - 1) / threads);
	auto launch = [&]() { permute3d_kernel<<<blocks, threads>>>(dx, dy, na, nb, nc); };

	// A permute copies values: the result must be exact.
	launch();
	BENCH_CK(cudaGetLastError());
	BENCH_CK(cudaDeviceSynchronize());
	std::vector<float> got = bench_to_host(dy, n);
	bool ok = bench_check("permute3d", got.data(), want.data(), n, 0.0, 0.0);

	// Minimum: read x once, write y once; no floating-point work.
	bench_stats s = bench_time(launch);
	bench_report("permute3d", "naive", s, 2.0 * sizeof(float) * (double)n, 0.0);

	got = bench_to_host(dy, n);
	ok = bench_check("permute3d after timing", got.data(), want.data(), n, 0.0, 0.0) && ok;

	BENCH_CK(cudaFree(dx));
	BENCH_CK(cudaFree(dy));
	return bench_finish(ok);
}
