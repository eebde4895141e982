// gelu: y = 0.5 * x * (1 + erf(x / sqrt(2))) (exact GELU, erf form) over a
// vector of 256M floats (1 GiB in, 1 GiB out), one thread per element.
#include "bench.h"
#include "ref.h"

__global__ void
gelu_kernel(const float *x, float *y, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < n) {
		float v = x[i];
		y[i] = 0.5f * v * (1.0f + erff(v * 0.70710678f));
	}
}

int
main(int argc, char **argv)
{
	bench_init("gelu", argc, argv);
	// Full: 2^28 floats. Small: a size that is not a multiple of the block.
	const size_t n = bench_small() ? 4099 : (size_t)1 << 28;

	std::vector<float> hx(n);
	bench_fill(hx, 102, -6.0f, 6.0f);
	std::vector<float> want(n);
	bench_par(n, [&](size_t lo, size_t hi) { gelu_ref_array(hx.data() + lo, want.data() + lo, hi - lo); });

	float *dx = bench_to_device(hx);
	float *dy = nullptr;
	BENCH_CK(cudaMalloc(&dy, n * sizeof(float)));
	// All-ones bytes are a NaN: an element the kernel misses fails the check.
	BENCH_CK(cudaMemset(dy, 0xff, n * sizeof(float)));

	const int threads = 256;
	const unsigned blocks = (unsigned)((n + threads - 1) / threads);
	auto launch = [&]() { gelu_kernel<<<blocks, threads>>>(dx, dy, n); };

	// Tolerance: erff is within 2 ulp; for x < 0, 1 + erff(x/sqrt 2)
	// cancels, leaving an absolute error of a few ulp(1) (~1e-7) times
	// 0.5|x| <= 3, hence atol 1e-6; elsewhere a few ulp relative, rtol 1e-5.
	// The tanh approximation is off by up to ~4e-4 and fails.
	const double atol = 1e-6, rtol = 1e-5;
	launch();
	BENCH_CK(cudaGetLastError());
	BENCH_CK(cudaDeviceSynchronize());
	std::vector<float> got = bench_to_host(dy, n);
	bool ok = bench_check("gelu", got.data(), want.data(), n, atol, rtol);

	bench_stats s = bench_time(launch);
	// Minimum: read x once, write y once. Flops per element: 5 (scale,
	// erf, add, two multiplies), erf counted as 1.
	bench_report("gelu", "naive", s, 2.0 * sizeof(float) * (double)n, 5.0 * (double)n);

	got = bench_to_host(dy, n);
	ok = bench_check("gelu after timing", got.data(), want.data(), n, atol, rtol) && ok;

	BENCH_CK(cudaFree(dx));
	BENCH_CK(cudaFree(dy));
	return bench_finish(ok);
}
