// rmsnorm: RMS normalization over the last dimension of a [rows x cols]
// matrix (262144 x 1024 floats: 1 GiB in, 1 GiB out) with a per-column
// weight, eps = 1e-6, one thread per row: each thread sums its row's
// squares, then writes x / sqrt(mean square + eps) * w.
#include "bench.h"
#include "ref.h"

__global__ void
rmsnorm_kernel(const float *x, const float *w, float *y, int rows, int cols, float eps)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= rows)
		return;
	const float *xr = x + (size_t)row * cols;
	float *yr = y + (size_t)row * cols;
	float ss = 0.0f;
	for (int j = 0; j < cols; j++)
		ss += xr[j] * xr[j];
	float rinv = 1.0f / sqrtf(ss / cols + eps);
	for (int j = 0; j < cols; j++)
		yr[j] = xr[j] * rinv * w[j];
}

int
main(int argc, char **argv)
{
	bench_init("rmsnorm", argc, argv);
	// Small: sizes that are not multiples of the block or of a warp.
	const int rows = bench_small() ? 37 : 262144;
	const int cols = bench_small() ? 29 : 1024;
	const size_t n = (size_t)rows * cols;

	// Activations: uniform in [-2, 2], each row scaled by [0.5, 2].
	std::vector<float> hx(n), hw(cols);
	bench_fill(hx, 501, -2.0f, 2.0f);
	bench_rng rowp(502);
	for (int r = 0; r < rows; r++) {
		float scale = rowp.uniform(0.5f, 2.0f);
		for (int j = 0; j < cols; j++)
			hx[(size_t)r * cols + j] *= scale;
	}
	bench_fill(hw, 503, 0.5f, 1.5f);
	std::vector<float> want(n);
	bench_par(rows, [&](size_t lo, size_t hi) { rmsnorm_ref(hx.data() + lo * cols, hw.data(), want.data() + lo * cols, hi - lo, cols, RMSNORM_EPS); }, 64);

	float *dx = bench_to_device(hx);
	float *dw = bench_to_device(hw);
	float *dy = nullptr;
	BENCH_CK(cudaMalloc(&dy, n * sizeof(float)));
	// All-ones bytes are a NaN: an element the kernel misses fails the check.
	BENCH_CK(cudaMemset(dy, 0xff, n * sizeof(float)));

	const int threads = 256;
	const int blocks = (rows + threads - 1) / threads;
	auto launch = [&]() {
		rmsnorm_kernel<<<blocks, threads>>>(dx, dw, dy, rows, cols, RMSNORM_EPS);
	};

	// Tolerance: outputs are O(1) (|y| < ~3). The sum of squares is a sum
	// of positive terms, within (cols - 1) * 2^-24 ~ 6e-5 relative in the
	// worst case (typically ~1e-6), which the square root halves; with a
	// few ulp for the final products: atol = rtol = 1e-4.
	const double atol = 1e-4, rtol = 1e-4;
	launch();
	BENCH_CK(cudaGetLastError());
	BENCH_CK(cudaDeviceSynchronize());
	std::vector<float> got = bench_to_host(dy, n);
	bool ok = bench_check("rmsnorm", got.data(), want.data(), n, atol, rtol);

	bench_stats s = bench_time(launch);
	// Minimum: read x and w once, write y once. Flops per element: 4
	// (square-accumulate as one FMA, two multiplies), FMA counted as 2;
	// per-row work not counted.
	const double bytes = sizeof(float) * (2.0 * (double)n + (double)cols);
	bench_report("rmsnorm", "naive", s, bytes, 4.0 * (double)n);

	got = bench_to_host(dy, n);
	ok = bench_check("rmsnorm after timing", got.data(), want.data(), n, atol, rtol) && ok;

	BENCH_CK(cudaFree(dx));
	BENCH_CK(cudaFree(dw));
	BENCH_CK(cudaFree(dy));
	return bench_finish(ok);
}
