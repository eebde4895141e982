// cross_entropy: mean cross-entropy loss of [batch x classes] logits
// (65536 x 4096 floats: 1 GiB) against integer class targets, reduced to one
// scalar. Single kernel, one thread per row: the thread finds the row max,
// sums exp(x - max), forms loss = log(sum) + max - x[target], and
// atomically adds loss / batch to a single float. The scalar is zeroed
// before each launch (part of the timed job).
// Vendor: none (the toolkit's CUB and cuBLAS have no cross-entropy).
#include "bench.h"
#include "ref.h"

__global__ void
cross_entropy_kernel(const float *x, const int *target, float *loss, int rows, int cols)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= rows)
		return;
	const float *xr = x + (size_t)row * cols;
	float m = xr[0];
	for (int c = 1; c < cols; c++)
		m = fmaxf(m, xr[c]);
	float s = 0.0f;
	for (int c = 0; c < cols; c++)
		s += expf(xr[c] - m);
	float l = logf(s) + m - xr[target[row]];
	atomicAdd(loss, l / rows);
}

int
main(int argc, char **argv)
{
	bench_init("cross_entropy", argc, argv);
	// Small: sizes that are not multiples of the block or of a warp.
	const int rows = bench_small() ? 37 : 65536;
	const int cols = bench_small() ? 100 : 4096;
	const size_t n = (size_t)rows * cols;

	// Logits uniform in [-4, 4), targets uniform over the classes, and the
	// target's logit raised by 3, as a model that has learned something
	// would score it.
	std::vector<float> hx(n);
	bench_fill(hx, 211, -4.0f, 4.0f);
	std::vector<int> ht(rows);
	bench_rng g(212);
	for (int r = 0; r < rows; r++) {
		ht[r] = (int)g.below(cols);
		hx[(size_t)r * cols + ht[r]] += 3.0f;
	}
	const float want = (float)cross_entropy_ref(hx.data(), ht.data(), rows, cols);

	float *dx = bench_to_device(hx);
	int *dt = bench_to_device(ht);
	float *dloss = nullptr;
	BENCH_CK(cudaMalloc(&dloss, sizeof(float)));

	const int threads = 256;
	const int blocks = (rows + threads - 1) / threads;
	auto launch = [&]() {
		BENCH_CK(cudaMemsetAsync(dloss, 0, sizeof(float)));
		cross_entropy_kernel<<<blocks, threads>>>(dx, dt, dloss, rows, cols);
	};

	// Tolerance: the per-row loss (~7) carries the rounding of x - max,
	// expf (2 ulp), a float sum of cols positive terms and logf: a few 1e-6
	// absolute in practice (the worst case, cols * 2^-24 ~ 2.4e-4, needs
	// every rounding in one direction). The batch mean adds rows float
	// additions of ~loss / rows in arbitrary order; their roundings are
	// independent, giving a relative spread of about
	// 2^-24 * sqrt(rows) / 3 (~5e-6 at rows = 65536). rtol 1e-4 is twenty
	// times that; reading any logit but the target's moves the mean by ~40%
	// (the target's is 3 higher). A single lost row (1 / rows ~ 1.5e-5
	// relative) is below what one float scalar can resolve.
	const double atol = 0.0, rtol = 1e-4;
	launch();
	BENCH_CK(cudaGetLastError());
	BENCH_CK(cudaDeviceSynchronize());
	float got = bench_to_host(dloss, 1)[0];
	bool ok = bench_check("cross_entropy", &got, &want, 1, atol, rtol);

	// Minimum: read the logits and targets once, write one float. Flops per
	// row: 4 * cols + 4 (cols - 1 max, cols subtracts, exps and adds; log,
	// add, subtract, divide), exp and log counted as 1.
	const double bytes = sizeof(float) * (double)n + sizeof(int) * (double)rows + sizeof(float);
	const double flops = (double)rows * (4.0 * cols + 4.0);
	bench_stats s = bench_time(launch);
	bench_report("cross_entropy", "naive", s, bytes, flops);

	got = bench_to_host(dloss, 1)[0];
	ok = bench_check("cross_entropy after timing", &got, &want, 1, atol, rtol) && ok;

	BENCH_CK(cudaFree(dx));
	BENCH_CK(cudaFree(dt));
	BENCH_CK(cudaFree(dloss));
	return bench_finish(ok);
}
