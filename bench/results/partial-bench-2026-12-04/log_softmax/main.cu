// log_softmax: numerically stable log-softmax over each row of a
// [rows x cols] matrix (262144 x 1024 floats: 1 GiB in, 1 GiB out), one
// thread per row: each thread finds its row's max, sums exp(x - max), then
// writes x - max - log(sum).
#include "bench.h"
#include "ref.h"

__global__ void
log_softmax_kernel(const float *x, float *y, int rows, int cols)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= rows)
		return;
	const float *xr = x + (size_t)row * cols;
	float *yr = y + (size_t)row * cols;
	float m = xr[0];
	for (int j = 1; j < cols; j++)
		m = fmaxf(m, xr[j]);
	float sum = 0.0f;
	for (int j = 0; j < cols; j++)
		sum += expf(xr[j] - m);
	float logsum = logf(sum);
	for (int j = 0; j < cols; j++)
		yr[j] = xr[j] - m - logsum;
}

int
main(int argc, char **argv)
{
	bench_init("log_softmax", argc, argv);
	// Small: sizes that are not multiples of the block or of a warp.
	const int rows = bench_small() ? 37 : 262144;
	const int cols = bench_small() ? 29 : 1024;
	const size_t n = (size_t)rows * cols;

	// Logits uniform in [-8, 8] plus a per-row offset in [-40, 100]: rows
	// with large offsets overflow expf unless the max is subtracted.
	std::vector<float> hx(n);
	bench_fill(hx, 301, -8.0f, 8.0f);
	bench_rng shift(302);
	for (int r = 0; r < rows; r++) {
		float off = shift.uniform(-40.0f, 100.0f);
		for (int j = 0; j < cols; j++)
			hx[(size_t)r * cols + j] += off;
	}
	std::vector<float> want(n);
	bench_par(rows, [&](size_t lo, size_t hi) { log_softmax_ref(hx.data() + lo * cols, want.data() + lo * cols, hi - lo, cols); }, 64);

	float *dx = bench_to_device(hx);
	float *dy = nullptr;
	BENCH_CK(cudaMalloc(&dy, n * sizeof(float)));
	// All-ones bytes are a NaN: an element the kernel misses fails the check.
	BENCH_CK(cudaMemset(dy, 0xff, n * sizeof(float)));

	const int threads = 256;
	const int blocks = (rows + threads - 1) / threads;
	auto launch = [&]() { log_softmax_kernel<<<blocks, threads>>>(dx, dy, rows, cols); };

	// Tolerance: outputs lie in about [-23, 0]. A sequential fp32 sum of
	// 1024 positive terms is within (cols - 1) * 2^-24 ~ 6e-5 relative in
	// the worst case, which log turns into ~6e-5 absolute; rounding x - max
	// (and m + log(sum), if a variant forms it, ulp(108) ~ 8e-6) adds
	// ~1e-5: atol 1e-4, rtol 1e-5.
	const double atol = 1e-4, rtol = 1e-5;
	launch();
	BENCH_CK(cudaGetLastError());
	BENCH_CK(cudaDeviceSynchronize());
	std::vector<float> got = bench_to_host(dy, n);
	bool ok = bench_check("log_softmax", got.data(), want.data(), n, atol, rtol);

	bench_stats s = bench_time(launch);
	// Minimum: read x once, write y once. Flops per element: 5 (max,
	// subtract, exp, add, final subtract), exp counted as 1; the per-row
	// log is negligible and not counted.
	bench_report("log_softmax", "naive", s, 2.0 * sizeof(float) * (double)n, 5.0 * (double)n);

	got = bench_to_host(dy, n);
	ok = bench_check("log_softmax after timing", got.data(), want.data(), n, atol, rtol) && ok;

	BENCH_CK(cudaFree(dx));
	BENCH_CK(cudaFree(dy));
	return bench_finish(ok);
}
