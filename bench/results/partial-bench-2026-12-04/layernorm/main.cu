// layernorm: layer normalization over the last dimension of a [rows x cols]
// matrix (262144 x 1024 floats: 1 GiB in, 1 GiB out) with per-column gamma
// and beta, eps = 1e-5, one thread per row: each thread computes its row's
// mean, then its (biased) variance, then writes the normalized row.
#include "bench.h"
#include "ref.h"

__global__ void
layernorm_kernel(const float *x, const float *gamma, const float *beta, float *y,
		 int rows, int cols, float eps)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= rows)
		return;
	const float *xr = x + (size_t)row * cols;
	float *yr = y + (size_t)row * cols;
	float mean = 0.0f;
	for (int j = 0; j < cols; j++)
		mean += xr[j];
	mean /= cols;
	float var = 0.0f;
	for (int j = 0; j < cols; j++) {
		float d = xr[j] - mean;
		var += d * d;
	}
	var /= cols;
	float rstd = 1.0f / sqrtf(var + eps);
	for (int j = 0; j < cols; j++)
		yr[j] = (xr[j] - mean) * rstd * gamma[j] + beta[j];
}

int
main(int argc, char **argv)
{
	bench_init("layernorm", argc, argv);
	// Small: sizes that are not multiples of the block or of a warp.
	const int rows = bench_small() ? 37 : 262144;
	const int cols = bench_small() ? 29 : 1024;
	const size_t n = (size_t)rows * cols;

	// Activations: uniform in [-2, 2], each row scaled by [0.5, 2] and
	// shifted by [-1, 1], so rows differ in mean and spread.
	std::vector<float> hx(n), hg(cols), hb(cols);
	bench_fill(hx, 401, -2.0f, 2.0f);
	bench_rng rowp(402);
	for (int r = 0; r < rows; r++) {
		float scale = rowp.uniform(0.5f, 2.0f);
		float off = rowp.uniform(-1.0f, 1.0f);
		for (int j = 0; j < cols; j++)
			hx[(size_t)r * cols + j] = hx[(size_t)r * cols + j] * scale + off;
	}
	bench_fill(hg, 403, 0.5f, 1.5f);
	bench_fill(hb, 404, -0.5f, 0.5f);
	std::vector<float> want(n);
	bench_par(rows, [&](size_t lo, size_t hi) { layernorm_ref(hx.data() + lo * cols, hg.data(), hb.data(), want.data() + lo * cols, hi - lo, cols, LAYERNORM_EPS); }, 64);

	float *dx = bench_to_device(hx);
	float *dg = bench_to_device(hg);
	float *db = bench_to_device(hb);
	float *dy = nullptr;
	BENCH_CK(cudaMalloc(&dy, n * sizeof(float)));
	// All-ones bytes are a NaN: an element the kernel misses fails the check.
	BENCH_CK(cudaMemset(dy, 0xff, n * sizeof(float)));

	const int threads = 256;
	const int blocks = (rows + threads - 1) / threads;
	auto launch = [&]() {
		layernorm_kernel<<<blocks, threads>>>(dx, dg, db, dy, rows, cols, LAYERNORM_EPS);
	};

	// Tolerance: outputs are O(1) (|y| < ~3). The fp32 sums over 1024
	// terms carry rounding errors that grow like sqrt(cols) * 2^-24 relative
	// (~1e-6 here, for any summation order), so atol = rtol = 1e-4 leaves a
	// wide margin; the unbiased variance would already be off by ~1e-3.
	const double atol = 1e-4, rtol = 1e-4;
	launch();
	BENCH_CK(cudaGetLastError());
	BENCH_CK(cudaDeviceSynchronize());
	std::vector<float> got = bench_to_host(dy, n);
	bool ok = bench_check("layernorm", got.data(), want.data(), n, atol, rtol);

	bench_stats s = bench_time(launch);
	// Minimum: read x, gamma and beta once, write y once. Flops per element:
	// 8 (mean: add; variance: subtract, multiply-add; output: subtract,
	// multiply, multiply-add), FMA counted as 2; per-row work not counted.
	const double bytes = sizeof(float) * (2.0 * (double)n + 2.0 * cols);
	bench_report("layernorm", "naive", s, bytes, 8.0 * (double)n);

	got = bench_to_host(dy, n);
	ok = bench_check("layernorm after timing", got.data(), want.data(), n, atol, rtol) && ok;

	BENCH_CK(cudaFree(dx));
	BENCH_CK(cudaFree(dg));
	BENCH_CK(cudaFree(db));
	BENCH_CK(cudaFree(dy));
	return bench_finish(ok);
}
