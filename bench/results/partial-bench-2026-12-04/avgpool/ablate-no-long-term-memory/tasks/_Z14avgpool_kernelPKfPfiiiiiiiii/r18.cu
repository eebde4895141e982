/* ks-nvcc: verified variants replace avgpool_kernel (arch 900); see docs/REWRITE.md */
#line 1 "/work/main/bench/avgpool/main.cu"
// avgpool: 2-D average pooling of an NCHW tensor, 3 x 3 window, stride 2,
// padding 1, count_include_pad = false (border windows divide by the number
// of in-bounds cells: 4 at corners, 6 on edges, 9 inside): 64 x 64 x 224 x
// 224 floats in (822 MB), 64 x 64 x 112 x 112 out (206 MB). One thread per
// output element over a 1-D grid.
// Vendor: none (the toolkit's CUB and cuBLAS have no pooling).
#include "bench.h"
#include "ref.h"

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 3 "/tmp/ks-bench/avgpool/ks-no-long-term-memory/tasks/_Z14avgpool_kernelPKfPfiiiiiiiii/r18.variant.cu"
/* The body of avgpool_kernel at thread ks_tid of block ks_bid, its divisions read from the digits. */
__device__ __forceinline__ static void
ks_dg_body_avgpool_kernel(const uint3 ks_tid, const uint3 ks_bid, const dim3 ks_bdim, const dim3 ks_gdim, const unsigned long long ks_d0, const unsigned long long ks_q0, const unsigned long long ks_d1, const unsigned long long ks_q1, const float *x, float *y, int n, int c, int h, int w, int ho, int wo, int k, int s, int p)
{
	size_t i = (size_t)ks_bid.x * ks_bdim.x + ks_tid.x;
	if (i >= (size_t)n * c * ho * wo)
		return;
	int ow = (int)(((decltype(i % wo))((void)(i % wo), ks_d0)));
	size_t t = ((decltype(i / wo))((void)(i / wo), ks_q0));
	int oh = (int)(((decltype(t % ho))((void)(t % ho), ks_d1)));
	size_t nc = ((decltype(t / ho))((void)(t / ho), ks_q1));
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

/* D0 from x, D1 from y, the top from z; the original grid is ks_og blocks of ks_ob. */
#endif
#line 33 "/tmp/ks-bench/avgpool/ks-no-long-term-memory/tasks/_Z14avgpool_kernelPKfPfiiiiiiiii/r18.variant.cu"
__global__ void __launch_bounds__(128)
ks_dg_avgpool_kernel(const dim3 ks_og, const dim3 ks_ob, const unsigned long long ks_top, const unsigned ks_mg, const unsigned ks_s1,
	const unsigned ks_s2, const float *x, float *y, int n, int c, int h, int w, int ho, int wo, int k, int s, int p)
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 36 "/tmp/ks-bench/avgpool/ks-no-long-term-memory/tasks/_Z14avgpool_kernelPKfPfiiiiiiiii/r18.variant.cu"
{
	const unsigned long long ks_n = (unsigned long long)ks_og.x * ks_ob.x;
	const unsigned long long ks_r0 = (unsigned long long)((1LL * (long long)(wo)));
	const unsigned long long ks_d0 = (unsigned long long)blockIdx.x * 32u + threadIdx.x;
	const unsigned long long ks_r1 = (unsigned long long)((1LL * (long long)(ho)));
	const unsigned long long ks_d1 = (unsigned long long)blockIdx.y * 4u + threadIdx.y;

	if (ks_d0 >= ks_r0 || ks_d1 >= ks_r1)
		return;
	for (unsigned long long ks_q1 = blockIdx.z; ks_q1 < ks_top; ks_q1 += gridDim.z) {
		const unsigned long long ks_q0 = ks_d1 + ks_r1 * ks_q1;
		const unsigned long long ks_g = ks_d0 + ks_r0 * ks_q0;
		/* ks_g / ks_ob.x by its multiplier (Granlund-Montgomery) */
		const unsigned ks_h = __umulhi((unsigned)ks_g, ks_mg);
		const unsigned ks_b = (ks_h + (((unsigned)ks_g - ks_h) >> ks_s1)) >> ks_s2;

		if (ks_g >= ks_n)
			return;
		ks_dg_body_avgpool_kernel(make_uint3((unsigned)ks_g - ks_b * ks_ob.x, 0, 0),
			make_uint3(ks_b, 0, 0), ks_ob, ks_og, ks_d0, ks_q0, ks_d1, ks_q1, x, y, n, c, h, w, ho, wo, k, s, p);
	}
}
#else
{}
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900
#line 59 "/tmp/ks-bench/avgpool/ks-no-long-term-memory/tasks/_Z14avgpool_kernelPKfPfiiiiiiiii/r18.variant.cu"
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
#else
#line 10 "/work/main/bench/avgpool/main.cu"
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
#endif
#line 1 "<ks-nvcc>"
/* Never launched: cudaFuncGetAttributes on it tells which image
   of this file the device runs (__CUDA_ARCH__ is ptxVersion
   times 10). */
static __global__ void ks_probe_avgpool_kernel(void) {}
#ifndef __CUDA_ARCH__
/* 1 when the device code that runs is the variant's (arch 900):
   then its launcher must run. Cached per device. */
static int
ks_variant_active_avgpool_kernel(void)
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
	if (cudaFuncGetAttributes(&ks_attr, ks_probe_avgpool_kernel) != cudaSuccess)
		return 0;
	ks_on = ks_attr.ptxVersion == 90;
	if (ks_dev >= 0)
		__atomic_store_n(&ks_known[ks_dev], ks_on ? 1 : 2,
				 __ATOMIC_RELAXED);
	return ks_on;
}
#line 88 "/tmp/ks-bench/avgpool/ks-no-long-term-memory/tasks/_Z14avgpool_kernelPKfPfiiiiiiiii/r18.variant.cu"
static void
ks_launch_avgpool_kernel(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
		const float *x, float *y, int n, int c, int h, int w, int ho, int wo, int k, int s, int p)
{
	const dim3 ks_ob = block, ks_og = grid;
	const unsigned long long ks_n = (unsigned long long)grid.x * block.x;
	const long long ks_r0 = ((1LL * (long long)(wo)));
	const long long ks_r1 = ((1LL * (long long)(ho)));
	unsigned long long ks_top;
	unsigned ks_l = 0, ks_mg, ks_s1, ks_s2;

	(void)ks_ob;
	(void)ks_og;
	/* what the decomposition assumes, else the original */
	if (grid.y != 1 || grid.z != 1 || block.y != 1 || block.z != 1 ||
	    ks_n == 0 || ks_n > 0x7fffffffull || ks_r0 <= 0 || ks_r0 > 0x7fffffffLL ||
	    ks_r1 <= 0 || ks_r1 > 65535LL * 4) {
		avgpool_kernel<<<grid, block, shmem, stream>>>(x, y, n, c, h, w, ho, wo, k, s, p);
		return;
	}
	ks_top = (ks_n + (unsigned long long)(ks_r0 * ks_r1) - 1) /
		(unsigned long long)(ks_r0 * ks_r1);
	/* the multiplier that divides 32-bit values by block.x */
	while ((1ull << ks_l) < block.x)
		ks_l++;
	ks_mg = (unsigned)(((1ull << 32) * ((1ull << ks_l) - block.x)) / block.x + 1);
	ks_s1 = ks_l < 1 ? ks_l : 1;
	ks_s2 = ks_l > 1 ? ks_l - 1 : 0;
	ks_dg_avgpool_kernel<<<dim3((unsigned)((ks_r0 + 31) / 32),
			   (unsigned)((ks_r1 + 3) / 4),
			   (unsigned)(ks_top < 65535 ? ks_top : 65535)),
		   dim3(32, 4), shmem, stream>>>(grid, block, ks_top, ks_mg, ks_s1, ks_s2, x, y, n, c, h, w, ho, wo, k, s, p);
}
#endif
#line 37 "/work/main/bench/avgpool/main.cu"
 

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
		
#ifdef __CUDA_ARCH__
#line 67 "/work/main/bench/avgpool/main.cu"
		avgpool_kernel<<<blocks, threads>>>(dx, dy, n, c, h, w, ho, wo, k, s, p)
#else
#line 67 "/work/main/bench/avgpool/main.cu"
		(ks_variant_active_avgpool_kernel() ? ks_launch_avgpool_kernel(blocks, threads, 0, cudaStream_t(), dx, dy, n, c, h, w, ho, wo, k, s, p) : (void)(
#line 67 "/work/main/bench/avgpool/main.cu"
		avgpool_kernel<<<blocks, threads>>>(dx, dy, n, c, h, w, ho, wo, k, s, p)))
#endif
#line 67 "/work/main/bench/avgpool/main.cu"
		                                                                        ;
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
