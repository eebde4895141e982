// relu: y = max(x, 0) over a vector of 256M floats (1 GiB in, 1 GiB out),
// one thread per element.
#include "bench.h"
#include "ref.h"

__global__ void
relu_kernel(const float *x, float *y, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = fmaxf(x[i], 0.0f);
}

int
main(int argc, char **argv)
{
	bench_init("relu", argc, argv);
	// Full: 2^28 floats. Small: a size that is not a multiple of the block.
	const size_t n = bench_small() ? 4099 : (size_t)1 << 28;

	std::vector<float> hx(n);
	bench_fill(hx, 101, -4.0f, 4.0f);
	std::vector<float> want(n);
	bench_par(n, [&](size_t lo, size_t hi) { relu_ref_array(hx.data() + lo, want.data() + lo, hi - lo); });

	float *dx = bench_to_device(hx);
	float *dy = nullptr;
	BENCH_CK(cudaMalloc(&dy, n * sizeof(float)));
	// All-ones bytes are a NaN: an element the kernel misses fails the check.
	BENCH_CK(cudaMemset(dy, 0xff, n * sizeof(float)));

	const int threads = 256;
	const unsigned blocks = (unsigned)((n + threads - 1) / threads);
	auto launch = [&]() { relu_kernel<<<blocks, threads>>>(dx, dy, n); };

	launch();
	BENCH_CK(cudaGetLastError());
	BENCH_CK(cudaDeviceSynchronize());
	// max(x, 0) is exact in fp32: no tolerance.
	std::vector<float> got = bench_to_host(dy, n);
	bool ok = bench_check("relu", got.data(), want.data(), n, 0.0, 0.0);

	bench_stats s = bench_time(launch);
	// Minimum: read x once, write y once; 1 flop (max) per element.
	bench_report("relu", "naive", s, 2.0 * sizeof(float) * (double)n, (double)n);

	got = bench_to_host(dy, n);
	ok = bench_check("relu after timing", got.data(), want.data(), n, 0.0, 0.0) && ok;

	BENCH_CK(cudaFree(dx));
	BENCH_CK(cudaFree(dy));
	return bench_finish(ok);
}
