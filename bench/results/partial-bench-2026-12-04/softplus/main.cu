// softplus: y = log(1 + exp(x)), or x itself when x > 20 (PyTorch's
// softplus with beta = 1, threshold = 20), over a vector of 256M floats
// (1 GiB in, 1 GiB out), one thread per element.
#include "bench.h"
#include "ref.h"

__global__ void
softplus_kernel(const float *x, float *y, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < n) {
		float v = x[i];
		y[i] = v > 20.0f ? v : log1pf(expf(v));
	}
}

int
main(int argc, char **argv)
{
	bench_init("softplus", argc, argv);
	// Full: 2^28 floats. Small: a size that is not a multiple of the block.
	const size_t n = bench_small() ? 4099 : (size_t)1 << 28;

	// [-24, 24]: about 8% of the inputs take the x > 20 branch.
	std::vector<float> hx(n);
	bench_fill(hx, 104, -24.0f, 24.0f);
	std::vector<float> want(n);
	bench_par(n, [&](size_t lo, size_t hi) { softplus_ref_array(hx.data() + lo, want.data() + lo, hi - lo); });

	float *dx = bench_to_device(hx);
	float *dy = nullptr;
	BENCH_CK(cudaMalloc(&dy, n * sizeof(float)));
	// All-ones bytes are a NaN: an element the kernel misses fails the check.
	BENCH_CK(cudaMemset(dy, 0xff, n * sizeof(float)));

	const int threads = 256;
	const unsigned blocks = (unsigned)((n + threads - 1) / threads);
	auto launch = [&]() { softplus_kernel<<<blocks, threads>>>(dx, dy, n); };

	// Tolerance: expf and log1pf are each within a couple of ulp, so the
	// result is within a few ulp relative (rtol 1e-5); atol 1e-7 covers the
	// tiny outputs for very negative x.
	const double atol = 1e-7, rtol = 1e-5;
	launch();
	BENCH_CK(cudaGetLastError());
	BENCH_CK(cudaDeviceSynchronize());
	std::vector<float> got = bench_to_host(dy, n);
	bool ok = bench_check("softplus", got.data(), want.data(), n, atol, rtol);

	bench_stats s = bench_time(launch);
	// Minimum: read x once, write y once. Flops per element: 3 (compare,
	// exp, log1p), exp and log1p counted as 1 each.
	bench_report("softplus", "naive", s, 2.0 * sizeof(float) * (double)n, 3.0 * (double)n);

	got = bench_to_host(dy, n);
	ok = bench_check("softplus after timing", got.data(), want.data(), n, atol, rtol) && ok;

	BENCH_CK(cudaFree(dx));
	BENCH_CK(cudaFree(dy));
	return bench_finish(ok);
}
