/* ks-nvcc: verified variants replace cumsum_kernel (arch 900); see docs/REWRITE.md */
#line 1 "/work/main/bench/cumsum/main.cu"
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

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 4 "/tmp/ks-bench/cumsum/ks-no-long-term-memory/tasks/_Z13cumsum_kernelPKfPfii/r10.variant.cu"
// The original kernel, for launches whose geometry the variant does not take.
#endif
#line 5 "/tmp/ks-bench/cumsum/ks-no-long-term-memory/tasks/_Z13cumsum_kernelPKfPfii/r10.variant.cu"
__global__ void
ks_rows_orig_cumsum_kernel(const float *x, float *y, int rows, int cols)
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 7 "/tmp/ks-bench/cumsum/ks-no-long-term-memory/tasks/_Z13cumsum_kernelPKfPfii/r10.variant.cu"
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
#else
{}
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900
#line 20 "/tmp/ks-bench/cumsum/ks-no-long-term-memory/tasks/_Z13cumsum_kernelPKfPfii/r10.variant.cu"
__global__ void
__launch_bounds__(128) cumsum_kernel(const float *x, float *y, int rows, int cols)
{
	const unsigned ks_lane = threadIdx.x % 32;
	const uint3 ks_tid = make_uint3(blockIdx.z * 4 + threadIdx.x / 32, 0, 0);
	const uint3 ks_bid = make_uint3(blockIdx.x, blockIdx.y, 0);
	const dim3 ks_bdim(gridDim.z * 4, 1, 1);

	int row = ks_bid.x * ks_bdim.x + ks_tid.x;
	if (row >= rows)
		return;
	const float *xr = x + (size_t)row * cols;
	float *yr = y + (size_t)row * cols;
	float s = 0.0f;
	{
		decltype(s) ks_carry = s;
		for (int ks_b = (0); ks_b < cols; ks_b += 128) {
			decltype(s) ks_v[4];
#pragma unroll
			for (int ks_u = 0; ks_u < 4; ks_u++) {
				int c = ks_b + ks_u * 32 + (int)ks_lane;
				ks_v[ks_u] = (c < cols) ? (decltype(s))(xr[c]) : (decltype(s))0;
			}
#pragma unroll
			for (int ks_u = 0; ks_u < 4; ks_u++) {
				int c = ks_b + ks_u * 32 + (int)ks_lane;
				decltype(s) ks_in = ks_v[ks_u];
				for (int ks_o = 1; ks_o < 32; ks_o <<= 1) {
					decltype(s) ks_t = __shfl_up_sync(0xffffffffu, ks_in, ks_o);
					if ((int)ks_lane >= ks_o)
						ks_in += ks_t;
				}
				if (c < cols) {
					s = ks_carry + ks_in;
					yr[c] = s;
				}
				ks_carry += __shfl_sync(0xffffffffu, ks_in, 31);
			}
		}
		s = ks_carry;
	}
}
#else
#line 16 "/work/main/bench/cumsum/main.cu"
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
#endif
#line 1 "<ks-nvcc>"
/* Never launched: cudaFuncGetAttributes on it tells which image
   of this file the device runs (__CUDA_ARCH__ is ptxVersion
   times 10). */
static __global__ void ks_probe_cumsum_kernel(void) {}
#ifndef __CUDA_ARCH__
/* 1 when the device code that runs is the variant's (arch 900):
   then its launcher must run. Cached per device. */
static int
ks_variant_active_cumsum_kernel(void)
{
	static int ks_known[64];
	struct cudaFuncAttributes ks_attr;
	int ks_dev = -1, ks_k = 0, ks_on;

	if (cudaGetDevice(&ks_dev) != cudaSuccess || ks_dev >= 64)
		ks_dev = -1;
	if (ks_dev >= 0)
		ks_k = __atomic_load_n(&ks_known[ks_dev], __ATOMIC_RELAXED);
	if (ks_k)
		return ks_k == 1;
	if (cudaFuncGetAttributes(&ks_attr, ks_probe_cumsum_kernel) != cudaSuccess)
		return 0;
	ks_on = ks_attr.ptxVersion == 90;
	if (ks_dev >= 0)
		__atomic_store_n(&ks_known[ks_dev], ks_on ? 1 : 2,
				 __ATOMIC_RELAXED);
	return ks_on;
}
#line 63 "/tmp/ks-bench/cumsum/ks-no-long-term-memory/tasks/_Z13cumsum_kernelPKfPfii/r10.variant.cu"
static void
ks_launch_cumsum_kernel(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
		const float *x, float *y, int rows, int cols)
{
	/* one original thread becomes 32; the original block's
	   x extent goes to gridDim.z */
	if (block.y == 1 && block.z == 1 && grid.z == 1 &&
	    block.x % 4 == 0 && block.x / 4 <= 65535) {
		cumsum_kernel<<<dim3(grid.x, grid.y, block.x / 4), 128, shmem, stream>>>(x, y, rows, cols);
		return;
	}
	ks_rows_orig_cumsum_kernel<<<grid, block, shmem, stream>>>(x, y, rows, cols);
}
#endif
#line 29 "/work/main/bench/cumsum/main.cu"
 

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
	auto launch = [&]() { 
#ifdef __CUDA_ARCH__
#line 103 "/work/main/bench/cumsum/main.cu"
	                      cumsum_kernel<<<blocks, threads>>>(dx, dy, rows, cols)
#else
#line 103 "/work/main/bench/cumsum/main.cu"
	                      (ks_variant_active_cumsum_kernel() ? ks_launch_cumsum_kernel(blocks, threads, 0, cudaStream_t(), dx, dy, rows, cols) : (void)(
#line 103 "/work/main/bench/cumsum/main.cu"
	                      cumsum_kernel<<<blocks, threads>>>(dx, dy, rows, cols)))
#endif
#line 103 "/work/main/bench/cumsum/main.cu"
	                                                                            ; };
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
