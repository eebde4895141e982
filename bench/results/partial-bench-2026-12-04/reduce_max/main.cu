// reduce_max: max over dimension 1 of a [B x R x C] tensor, e.g. max-pooling
// [batch x seq x hidden] activations over the sequence (64 x 1024 x 4096
// floats: 1 GiB in, 1 MiB out). One thread per output (b, c): it walks r
// with a stride of C floats, so neighbouring threads read neighbouring
// addresses.
// Vendor: none. CUB's segmented reductions need each segment contiguous,
// and here a segment (fixed b, c) is strided by C.
#include "bench.h"
#include "ref.h"

__global__ void
reduce_max_kernel(const float *x, float *y, int nb, int nr, int nc)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= nb * nc)
		return;
	int b = i / nc, c = i % nc;
	const float *xb = x + (size_t)b * nr * nc + c;
	float m = xb[0];
	for (int r = 1; r < nr; r++)
		m = fmaxf(m, xb[(size_t)r * nc]);
	y[i] = m;
}

int
main(int argc, char **argv)
{
	bench_init("reduce_max", argc, argv);
	// Small: sizes that are not multiples of the block or of a warp.
	const int nb = bench_small() ? 3 : 64;
	const int nr = bench_small() ? 17 : 1024;
	const int nc = bench_small() ? 45 : 4096;
	const size_t n = (size_t)nb * nr * nc;
	const int nout = nb * nc;

	std::vector<float> hx(n);
	bench_fill(hx, 111, -4.0f, 4.0f);
	std::vector<float> want(nout);
	reduce_max_ref(hx.data(), want.data(), nb, nr, nc);

	float *dx = bench_to_device(hx);
	float *dy = nullptr;
	BENCH_CK(cudaMalloc(&dy, nout * sizeof(float)));
	// All-ones bytes are a NaN: an output the kernel misses fails the check.
	BENCH_CK(cudaMemset(dy, 0xff, nout * sizeof(float)));

	const int threads = 256;
	const int blocks = (nout + threads - 1) / threads;
	auto launch = [&]() { reduce_max_kernel<<<blocks, threads>>>(dx, dy, nb, nr, nc); };

	// Max involves no rounding: the result must be exact.
	launch();
	BENCH_CK(cudaGetLastError());
	BENCH_CK(cudaDeviceSynchronize());
	std::vector<float> got = bench_to_host(dy, nout);
	bool ok = bench_check("reduce_max", got.data(), want.data(), nout, 0.0, 0.0);

	bench_stats s = bench_time(launch);
	// Minimum: read x once, write y once. Flops: R - 1 max operations per
	// output (a comparison counted as 1).
	bench_report("reduce_max", "naive", s, sizeof(float) * ((double)n + nout),
		     (double)nout * (nr - 1));

	got = bench_to_host(dy, nout);
	ok = bench_check("reduce_max after timing", got.data(), want.data(), nout, 0.0, 0.0) &&
	     ok;

	BENCH_CK(cudaFree(dx));
	BENCH_CK(cudaFree(dy));
	return bench_finish(ok);
}
