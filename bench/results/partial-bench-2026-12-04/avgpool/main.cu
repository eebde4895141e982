// avgpool: 2-D average pooling of an NCHW tensor, 3 x 3 window, stride 2,
// padding 1, count_include_pad = false (border windows divide by the number
// of in-bounds cells: 4 at corners, 6 on edges, 9 inside): 64 x 64 x 224 x
// 224 floats in (822 MB), 64 x 64 x 112 x 112 out (206 MB). One thread per
// output element over a 1-D grid.
// Vendor: none (the toolkit's CUB and cuBLAS have no pooling).
#include "bench.h"
#include "ref.h"

__global__ void
avgpool_kernel(const float *x, float *y, int n, int c, int h, int w, int ho, int wo,
	       int k, int s, int p)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= (size_t)n * c * ho * wo)
		return;
	int ow = (int)(i % wo);
	size_t t = i / wo;
	int oh = (int)(t % ho);
	size_t nc = t / ho;
	const float *xp = x + nc * h * w;
	float sum = 0.0f;
	int cnt = 0;
	for (int kh = 0; kh < k; kh++) {
		int ih = oh * s - p + kh;
		if (ih < 0 || ih >= h)
			continue;
		for (int kw = 0; kw < k; kw++) {
			int iw = ow * s - p + kw;
			if (iw < 0 || iw >= w)
				continue;
			sum += xp[(size_t)ih * w + iw];
			cnt++;
		}
	}
	y[i] = sum / cnt;
}

int
main(int argc, char **argv)
{
	bench_init("avgpool", argc, argv);
	// Small: odd image sides, a plane count that is not a multiple of a warp.
	const int n = bench_small() ? 2 : 64;
	const int c = bench_small() ? 3 : 64;
	const int h = bench_small() ? 13 : 224;
	const int w = bench_small() ? 11 : 224;
	const int k = 3, s = 2, p = 1;
	const int ho = pool_out_size(h, k, s, p), wo = pool_out_size(w, k, s, p);
	const size_t nin = (size_t)n * c * h * w;
	const size_t nout = (size_t)n * c * ho * wo;

	std::vector<float> hx(nin);
	bench_fill(hx, 161, -1.0f, 1.0f);
	std::vector<float> want(nout);
	avgpool_ref(hx.data(), want.data(), n, c, h, w, k, s, p);

	float *dx = bench_to_device(hx);
	float *dy = nullptr;
	BENCH_CK(cudaMalloc(&dy, nout * sizeof(float)));
	// All-ones bytes are a NaN: an output the kernel misses fails the check.
	BENCH_CK(cudaMemset(dy, 0xff, nout * sizeof(float)));

	const int threads = 256;
	const unsigned blocks = (unsigned)((nout + threads - 1) / threads);
	auto launch = [&]() {
		avgpool_kernel<<<blocks, threads>>>(dx, dy, n, c, h, w, ho, wo, k, s, p);
	};

	// Tolerance: a float sum of cnt <= 9 terms with |x| < 1 is within
	// (cnt - 1) * 2^-24 * sum|x| of the exact sum in any order, so the mean
	// is within 8 * 2^-24, plus 2^-24 for the division: ~5.4e-7 absolute.
	// atol 2e-6.
	const double atol = 2e-6, rtol = 0.0;
	launch();
	BENCH_CK(cudaGetLastError());
	BENCH_CK(cudaDeviceSynchronize());
	std::vector<float> got = bench_to_host(dy, nout);
	bool ok = bench_check("avgpool", got.data(), want.data(), nout, atol, rtol);

	// Minimum: read x once, write y once. Flops: k * k per output (k * k - 1
	// adds and one divide; border windows need fewer).
	bench_stats st = bench_time(launch);
	bench_report("avgpool", "naive", st, sizeof(float) * ((double)nin + (double)nout),
		     (double)nout * (k * k));

	got = bench_to_host(dy, nout);
	ok = bench_check("avgpool after timing", got.data(), want.data(), nout, atol, rtol) && ok;

	BENCH_CK(cudaFree(dx));
	BENCH_CK(cudaFree(dy));
	return bench_finish(ok);
}
