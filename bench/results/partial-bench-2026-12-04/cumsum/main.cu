// cumsum: inclusive prefix sum along each row of a [rows x cols] matrix
// (65536 x 4096 floats: 1 GiB in, 1 GiB out), one thread per row: each
// thread walks its row keeping a running sum and writes every prefix.
// Vendor: CUB has no per-row scan of a matrix that fits this naturally, so
// the vendor line is cub::DeviceScan::InclusiveSum over the same 1 GiB seen
// as ONE row of rows * cols entries ("cub_scan_flat"): the same bytes in and
// out and the same adds, but a 1-D scan whose prefixes run across row ends.
// It is checked against the reference of that flat scan.
#include <cub/cub.cuh>

#include <climits>

#include "bench.h"
#include "ref.h"

__global__ void
cumsum_kernel(const float *x, float *y, int rows, int cols)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= rows)
		return;
	const float *xr = x + (size_t)row * cols;
	float *yr = y + (size_t)row * cols;
	float s = 0.0f;
	for (int c = 0; c < cols; c++) {
		s += xr[c];
		yr[c] = s;
	}
}

// Tolerance: a float prefix sum of x[0..j], in any summation order, is
// within about j * 2^-24 * mag_j of the exact value in the worst case,
// where mag_j = sum |x[0..j]|; in practice the roundings are independent
// and the error of a sequential row scan of [-1, 1) entries has a spread of
// about 1.4e-8 * j (~6e-5 at j = 4096) while mag_j ~ j / 2. We accept
// |got - want| <= 1e-6 * mag_j (about 35 spreads at every j), which still
// catches a missed or repeated entry (~0.5) anywhere in a 4096-entry row.
// (Near the end of the flat scan mag_j reaches ~1.3e8 and the test only
// guards against gross errors; the row kernel is the fine check.)
static const double scan_rtol = 1e-6;

// Compares got, nseg segments of seglen entries each, with the reference
// scan of the same segments of x, computed here in pieces of 4096.
static bool
check_scan(const char *what, const float *x, const float *got, size_t nseg,
	   size_t seglen)
{
	const size_t piece = 4096;
	std::vector<float> want(piece), mag(piece);
	size_t bad = 0, first = 0;
	double first_got = 0, first_want = 0;
	for (size_t sg = 0; sg < nseg; sg++) {
		cumsum_state st;
		for (size_t off = 0; off < seglen; off += piece) {
			size_t m = std::min(piece, seglen - off);
			size_t base = sg * seglen + off;
			cumsum_ref_part(x + base, want.data(), mag.data(), m, st);
			for (size_t j = 0; j < m; j++) {
				double g = got[base + j], w = want[j];
				if (!(std::fabs(g - w) <= scan_rtol * mag[j]) && !bad++) {
					first = base + j;
					first_got = g;
					first_want = w;
				}
			}
		}
	}
	if (bad)
		std::printf("check %s: %zu of %zu differ; first at %zu: got %.9g, want %.9g\n",
			    what, bad, nseg * seglen, first, first_got, first_want);
	return bad == 0;
}

int
main(int argc, char **argv)
{
	bench_init("cumsum", argc, argv);
	// Small: sizes that are not multiples of the block or of a warp.
	const int rows = bench_small() ? 37 : 65536;
	const int cols = bench_small() ? 150 : 4096;
	const size_t n = (size_t)rows * cols;
	if (n > (size_t)INT_MAX)
		return bench_finish(false, "size exceeds the int item count used for CUB");

	std::vector<float> hx(n);
	bench_fill(hx, 171, -1.0f, 1.0f);

	float *dx = bench_to_device(hx);
	float *dy = nullptr, *dv = nullptr;
	BENCH_CK(cudaMalloc(&dy, n * sizeof(float)));
	BENCH_CK(cudaMalloc(&dv, n * sizeof(float)));
	// All-ones bytes are a NaN: an element the kernel misses fails the check.
	BENCH_CK(cudaMemset(dy, 0xff, n * sizeof(float)));
	BENCH_CK(cudaMemset(dv, 0xff, n * sizeof(float)));

	size_t temp_bytes = 0;
	BENCH_CK(cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, dx, dv, (int)n));
	void *dtemp = nullptr;
	BENCH_CK(cudaMalloc(&dtemp, temp_bytes ? temp_bytes : 1));

	const int threads = 256;
	const int blocks = (rows + threads - 1) / threads;
	auto launch = [&]() { cumsum_kernel<<<blocks, threads>>>(dx, dy, rows, cols); };
	auto launch_cub = [&]() {
		BENCH_CK(cub::DeviceScan::InclusiveSum(dtemp, temp_bytes, dx, dv, (int)n));
	};

	launch();
	BENCH_CK(cudaGetLastError());
	launch_cub();
	BENCH_CK(cudaGetLastError());
	BENCH_CK(cudaDeviceSynchronize());
	std::vector<float> got = bench_to_host(dy, n);
	bool ok = check_scan("cumsum", hx.data(), got.data(), rows, cols);
	got = bench_to_host(dv, n);
	ok = check_scan("cub_scan_flat", hx.data(), got.data(), 1, n) && ok;

	// Minimum: read x once, write y once. Flops: one add per entry.
	const double bytes = 2.0 * sizeof(float) * (double)n;
	const double flops = (double)n;
	bench_stats s = bench_time(launch);
	bench_report("cumsum", "naive", s, bytes, flops);
	s = bench_time(launch_cub);
	bench_report("cub_scan_flat", "vendor", s, bytes, flops);

	got = bench_to_host(dy, n);
	ok = check_scan("cumsum after timing", hx.data(), got.data(), rows, cols) && ok;
	got = bench_to_host(dv, n);
	ok = check_scan("cub_scan_flat after timing", hx.data(), got.data(), 1, n) && ok;

	BENCH_CK(cudaFree(dtemp));
	BENCH_CK(cudaFree(dx));
	BENCH_CK(cudaFree(dy));
	BENCH_CK(cudaFree(dv));
	return bench_finish(ok);
}
