// histogram: 4096-bin histogram of 256M float samples (1 GiB in), e.g.
// calibrated 12-bit sensor readings with one bin per level over [0, 4096);
// readings that calibration pushed slightly outside the range are not
// counted. One thread per sample, one global atomicAdd per counted sample;
// the counts are zeroed before each launch (part of the timed job).
// Vendor: cub::DeviceHistogram::HistogramEven, same levels and semantics.
#include <cub/cub.cuh>

#include <climits>

#include "bench.h"
#include "ref.h"

__global__ void
histogram_kernel(const float *x, size_t n, unsigned *hist, int nbins, float lo, float hi,
		 float scale)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v = x[i];
	if (v >= lo && v < hi) {
		int b = (int)((v - lo) * scale);
		if (b > nbins - 1)
			b = nbins - 1;
		atomicAdd(&hist[b], 1u);
	}
}

// Counts are compared exactly.
static bool
check_counts(const char *what, const unsigned *got, const unsigned *want, size_t n)
{
	size_t bad = 0, first = 0;
	for (size_t i = 0; i < n; i++)
		if (got[i] != want[i] && !bad++)
			first = i;
	if (bad)
		std::printf("check %s: %zu of %zu bins differ; first at %zu: got %u, want %u\n",
			    what, bad, n, first, got[first], want[first]);
	return bad == 0;
}

int
main(int argc, char **argv)
{
	bench_init("histogram", argc, argv);
	const size_t n = bench_small() ? 50001 : (size_t)1 << 28;
	const int nbins = 4096;
	// lo = 0, hi = nbins: unit bins, so the bin is exactly floor(v) in the
	// kernel, in CUB ((v - lo) * (nbins / (hi - lo))) and in the reference.
	const float lo = 0.0f, hi = (float)nbins;
	const float scale = (float)nbins / (hi - lo);
	if (n > (size_t)INT_MAX)
		return bench_finish(false, "size exceeds the int sample count used for CUB");

	// Readings in [-16, 4112): about 0.8% fall outside [0, 4096).
	std::vector<float> hx(n);
	bench_fill(hx, 181, -16.0f, 4112.0f);
	std::vector<unsigned> want(nbins);
	histogram_ref(hx.data(), n, want.data(), nbins, lo, hi);

	float *dx = bench_to_device(hx);
	unsigned *dh = nullptr, *dv = nullptr;
	BENCH_CK(cudaMalloc(&dh, nbins * sizeof(unsigned)));
	BENCH_CK(cudaMalloc(&dv, nbins * sizeof(unsigned)));
	BENCH_CK(cudaMemset(dv, 0xff, nbins * sizeof(unsigned)));

	size_t temp_bytes = 0;
	BENCH_CK(cub::DeviceHistogram::HistogramEven(nullptr, temp_bytes, dx, dv, nbins + 1, lo,
						     hi, (int)n));
	void *dtemp = nullptr;
	BENCH_CK(cudaMalloc(&dtemp, temp_bytes ? temp_bytes : 1));

	const int threads = 256;
	const unsigned blocks = (unsigned)((n + threads - 1) / threads);
	auto launch = [&]() {
		BENCH_CK(cudaMemsetAsync(dh, 0, nbins * sizeof(unsigned)));
		histogram_kernel<<<blocks, threads>>>(dx, n, dh, nbins, lo, hi, scale);
	};
	auto launch_cub = [&]() {
		BENCH_CK(cub::DeviceHistogram::HistogramEven(dtemp, temp_bytes, dx, dv, nbins + 1,
							     lo, hi, (int)n));
	};

	launch();
	BENCH_CK(cudaGetLastError());
	launch_cub();
	BENCH_CK(cudaGetLastError());
	BENCH_CK(cudaDeviceSynchronize());
	std::vector<unsigned> got = bench_to_host(dh, nbins);
	bool ok = check_counts("histogram", got.data(), want.data(), nbins);
	got = bench_to_host(dv, nbins);
	ok = check_counts("cub_histogram_even", got.data(), want.data(), nbins) && ok;

	// Minimum: read x once, write the counts once. Flops: 2 per sample (the
	// bin position (v - lo) * scale).
	const double bytes = sizeof(float) * (double)n + sizeof(unsigned) * (double)nbins;
	const double flops = 2.0 * (double)n;
	bench_stats s = bench_time(launch);
	bench_report("histogram", "naive", s, bytes, flops);
	s = bench_time(launch_cub);
	bench_report("cub_histogram_even", "vendor", s, bytes, flops);

	got = bench_to_host(dh, nbins);
	ok = check_counts("histogram after timing", got.data(), want.data(), nbins) && ok;
	got = bench_to_host(dv, nbins);
	ok = check_counts("cub_histogram_even after timing", got.data(), want.data(), nbins) &&
	     ok;

	BENCH_CK(cudaFree(dtemp));
	BENCH_CK(cudaFree(dx));
	BENCH_CK(cudaFree(dh));
	BENCH_CK(cudaFree(dv));
	return bench_finish(ok);
}
