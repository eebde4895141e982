/* ks-nvcc: verified variants replace conv2d_kernel (arch 900); see docs/REWRITE.md */
#line 1 "/work/main/bench/conv2d/main.cu"
// conv2d: direct 2-D convolution in NCHW layout with bias, 3x3 kernel,
// stride 1, padding 1: a batch of 16 images of 64 channels, 128x128, into 64
// output channels. One thread per output element, 16x16 threads per block
// over the output plane, one grid layer per (image, output channel).
#include "bench.h"
#include "ref.h"

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 3 "/tmp/ks-bench/conv2d/ks-no-long-term-memory/tasks/_Z13conv2d_kernelPKfS0_S0_Pfiiii/r2.variant.cu"
static __device__ __forceinline__ void
ks_sb_conv2d_kernel(const uint3 threadIdx, const uint3 blockIdx, const dim3 blockDim,
	const dim3 gridDim,
	const float *x, const float *w, const float *b, float *y,
	      int C, int H, int W, int K)
{
	(void)threadIdx;
	(void)blockIdx;
	(void)blockDim;
	(void)gridDim;
	{
	int ox = blockIdx.x * blockDim.x + threadIdx.x;
	int oy = blockIdx.y * blockDim.y + threadIdx.y;
	int n = blockIdx.z / K;
	int k = blockIdx.z % K;
	if (ox >= W || oy >= H)
		return;
	float acc = b[k];
	for (int c = 0; c < C; c++)
		for (int r = 0; r < 3; r++) {
			int iy = oy + r - 1;
			if (iy < 0 || iy >= H)
				continue;
			for (int q = 0; q < 3; q++) {
				int ix = ox + q - 1;
				if (ix < 0 || ix >= W)
					continue;
				acc += x[(((size_t)n * C + c) * H + iy) * W + ix] *
				       w[((k * C + c) * 3 + r) * 3 + q];
			}
		}
	y[(((size_t)n * K + k) * H + oy) * W + ox] = acc;
}
}

#endif
#line 38 "/tmp/ks-bench/conv2d/ks-no-long-term-memory/tasks/_Z13conv2d_kernelPKfS0_S0_Pfiiii/r2.variant.cu"
__global__ void __launch_bounds__(256)
ks_xf_conv2d_kernel(const float *x, const float *w, const float *b, float *y,
	      int C, int H, int W, int K, const dim3 ks_og, const dim3 ks_ob,
	const unsigned ks_mg, const unsigned ks_s1, const unsigned ks_s2)
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 42 "/tmp/ks-bench/conv2d/ks-no-long-term-memory/tasks/_Z13conv2d_kernelPKfS0_S0_Pfiiii/r2.variant.cu"
{
	const unsigned long long ks_ng =
		(unsigned long long)ks_og.x * ks_ob.x / 1;
	const unsigned long long ks_s = (unsigned long long)gridDim.x * 256;

	for (unsigned long long ks_g0 = (unsigned long long)blockIdx.x * 256 + threadIdx.x;
	     ks_g0 < ks_ng; ks_g0 += 1 * ks_s) {
#pragma unroll
		for (int ks_u = 0; ks_u < 1; ks_u++) {
			const unsigned long long ks_g = ks_g0 + ks_u * ks_s;
			const unsigned long long ks_t = ks_g * 1;
			const unsigned ks_t32 = (unsigned)ks_t;
			const unsigned ks_h = __umulhi(ks_t32, ks_mg);
			const unsigned ks_bx = (ks_h + ((ks_t32 - ks_h) >> ks_s1)) >> ks_s2;
			const unsigned ks_tx = ks_t32 - ks_bx * ks_ob.x;

			if (ks_g < ks_ng) {
				for (unsigned ks_j = 0; ks_j < 1; ks_j++)
					ks_sb_conv2d_kernel(make_uint3(ks_tx + ks_j, 0, 0),
						make_uint3(ks_bx, 0, 0), ks_ob, ks_og, x, w, b, y, C, H, W, K);
			}
		}
	}
}
#else
{}
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900
#line 67 "/tmp/ks-bench/conv2d/ks-no-long-term-memory/tasks/_Z13conv2d_kernelPKfS0_S0_Pfiiii/r2.variant.cu"
__global__ void
conv2d_kernel(const float *x, const float *w, const float *b, float *y,
	      int C, int H, int W, int K)
{
	int ox = blockIdx.x * blockDim.x + threadIdx.x;
	int oy = blockIdx.y * blockDim.y + threadIdx.y;
	int n = blockIdx.z / K;
	int k = blockIdx.z % K;
	if (ox >= W || oy >= H)
		return;
	float acc = b[k];
	for (int c = 0; c < C; c++)
		for (int r = 0; r < 3; r++) {
			int iy = oy + r - 1;
			if (iy < 0 || iy >= H)
				continue;
			for (int q = 0; q < 3; q++) {
				int ix = ox + q - 1;
				if (ix < 0 || ix >= W)
					continue;
				acc += x[(((size_t)n * C + c) * H + iy) * W + ix] *
				       w[((k * C + c) * 3 + r) * 3 + q];
			}
		}
	y[(((size_t)n * K + k) * H + oy) * W + ox] = acc;
}
#else
#line 8 "/work/main/bench/conv2d/main.cu"
__global__ void
conv2d_kernel(const float *x, const float *w, const float *b, float *y,
	      int C, int H, int W, int K)
{
	int ox = blockIdx.x * blockDim.x + threadIdx.x;
	int oy = blockIdx.y * blockDim.y + threadIdx.y;
	int n = blockIdx.z / K;
	int k = blockIdx.z % K;
	if (ox >= W || oy >= H)
		return;
	float acc = b[k];
	for (int c = 0; c < C; c++)
		for (int r = 0; r < 3; r++) {
			int iy = oy + r - 1;
			if (iy < 0 || iy >= H)
				continue;
			for (int q = 0; q < 3; q++) {
				int ix = ox + q - 1;
				if (ix < 0 || ix >= W)
					continue;
				acc += x[(((size_t)n * C + c) * H + iy) * W + ix] *
				       w[((k * C + c) * 3 + r) * 3 + q];
			}
		}
	y[(((size_t)n * K + k) * H + oy) * W + ox] = acc;
}
#endif
#line 1 "<ks-nvcc>"
/* Never launched: cudaFuncGetAttributes on it tells which image
   of this file the device runs (__CUDA_ARCH__ is ptxVersion
   times 10). */
static __global__ void ks_probe_conv2d_kernel(void) {}
#ifndef __CUDA_ARCH__
/* 1 when the device code that runs is the variant's (arch 900):
   then its launcher must run. Cached per device. */
static int
ks_variant_active_conv2d_kernel(void)
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
	if (cudaFuncGetAttributes(&ks_attr, ks_probe_conv2d_kernel) != cudaSuccess)
		return 0;
	ks_on = ks_attr.ptxVersion == 90;
	if (ks_dev >= 0)
		__atomic_store_n(&ks_known[ks_dev], ks_on ? 1 : 2,
				 __ATOMIC_RELAXED);
	return ks_on;
}
#line 94 "/tmp/ks-bench/conv2d/ks-no-long-term-memory/tasks/_Z13conv2d_kernelPKfS0_S0_Pfiiii/r2.variant.cu"
static void
ks_launch_conv2d_kernel(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
	const float *x, const float *w, const float *b, float *y,
	      int C, int H, int W, int K)
{
	/* resident blocks of the helper kernel, per device */
	static int ks_fill[64];
	int ks_dev = -1;
	unsigned long long ks_blocks;
	unsigned ks_l = 0, ks_mg, ks_s1, ks_s2;

	if (grid.x == 0 || grid.y != 1 || grid.z != 1 || block.y != 1 ||
	    block.z != 1 || block.x % 1 != 0 ||
	    (unsigned long long)grid.x * block.x > 0xffffffffULL) {
		/* a launch the variant does not cover: the original */
		conv2d_kernel<<<grid, block, shmem, stream>>>(x, w, b, y, C, H, W, K);
		return;
	}
	while ((1ull << ks_l) < block.x)
		ks_l++;
	ks_mg = (unsigned)(((1ull << 32) * ((1ull << ks_l) - block.x)) / block.x + 1);
	ks_s1 = ks_l < 1 ? ks_l : 1;
	ks_s2 = ks_l > 1 ? ks_l - 1 : 0;
	ks_blocks = ((unsigned long long)grid.x * block.x / 1 + 256 - 1) / 256;
	if (cudaGetDevice(&ks_dev) == cudaSuccess && ks_dev >= 0 && ks_dev < 64) {
		int ks_sms = 0, ks_per = 0;

		if (!ks_fill[ks_dev] &&
		    cudaDeviceGetAttribute(&ks_sms, cudaDevAttrMultiProcessorCount,
					   ks_dev) == cudaSuccess &&
		    cudaOccupancyMaxActiveBlocksPerMultiprocessor(
			    &ks_per, ks_xf_conv2d_kernel, 256, 0) == cudaSuccess)
			ks_fill[ks_dev] = ks_sms * ks_per;
		if (ks_fill[ks_dev] > 0 &&
		    ks_blocks > 4ULL * (unsigned long long)ks_fill[ks_dev])
			ks_blocks = 4ULL * (unsigned long long)ks_fill[ks_dev];
	}
	if (ks_blocks > 0x7fffffffULL)
		ks_blocks = 0x7fffffffULL;
	(void)shmem;
	ks_xf_conv2d_kernel<<<(unsigned)ks_blocks, 256, 0, stream>>>(x, w, b, y, C, H, W, K, grid, block, ks_mg, ks_s1, ks_s2);
}
#endif
#line 33 "/work/main/bench/conv2d/main.cu"
 

int
main(int argc, char **argv)
{
	bench_init("conv2d", argc, argv);
	// Small: a plane that is not a multiple of the 16x16 block.
	const conv_shape s = bench_small() ? conv_shape{2, 3, 19, 21, 5}
					   : conv_shape{16, 64, 128, 128, 64};
	const size_t nx = (size_t)s.N * s.C * s.H * s.W;
	const size_t nw = (size_t)s.K * s.C * 9;
	const size_t ny = (size_t)s.N * s.K * s.H * s.W;

	// Input uniform in [-1, 1]; weights and bias uniform in +-1/sqrt(C*9),
	// the bounds of PyTorch's default Conv2d initialization.
	const float a = 1.0f / std::sqrt((float)(s.C * 9));
	std::vector<float> hx(nx), hw(nw), hb(s.K);
	bench_fill(hx, 601, -1.0f, 1.0f);
	bench_fill(hw, 602, -a, a);
	bench_fill(hb, 603, -a, a);

	// Outputs checked: all of them at the small size. At full size the CPU
	// reference for all 16.8M outputs (9.7e9 multiply-adds) is too slow, so
	// a deterministic sample is checked: 65536 pseudo-random outputs plus
	// the whole last plane (image N-1, channel K-1), which covers every
	// border and corner position.
	std::vector<size_t> idx;
	if (bench_small()) {
		for (size_t i = 0; i < ny; i++)
			idx.push_back(i);
	} else {
		bench_rng pick(604);
		for (int i = 0; i < 65536; i++)
			idx.push_back((size_t)(pick.next() % ny));
		const size_t plane = (size_t)s.H * s.W;
		for (size_t p = 0; p < plane; p++)
			idx.push_back(ny - plane + p);
	}
	std::vector<float> want(idx.size()), got(idx.size());
	for (size_t i = 0; i < idx.size(); i++)
		want[i] = (float)conv2d_ref_flat(hx.data(), hw.data(), hb.data(), s, idx[i]);

	float *dx = bench_to_device(hx);
	float *dw = bench_to_device(hw);
	float *db = bench_to_device(hb);
	float *dy = nullptr;
	BENCH_CK(cudaMalloc(&dy, ny * sizeof(float)));
	// All-ones bytes are a NaN: an element the kernel misses fails the check.
	BENCH_CK(cudaMemset(dy, 0xff, ny * sizeof(float)));

	const dim3 block(16, 16);
	const dim3 grid((s.W + 15) / 16, (s.H + 15) / 16, s.N * s.K);
	auto launch = [&]() {
		
#ifdef __CUDA_ARCH__
#line 86 "/work/main/bench/conv2d/main.cu"
		conv2d_kernel<<<grid, block>>>(dx, dw, db, dy, s.C, s.H, s.W, s.K)
#else
#line 86 "/work/main/bench/conv2d/main.cu"
		(ks_variant_active_conv2d_kernel() ? ks_launch_conv2d_kernel(grid, block, 0, cudaStream_t(), dx, dw, db, dy, s.C, s.H, s.W, s.K) : (void)(
#line 86 "/work/main/bench/conv2d/main.cu"
		conv2d_kernel<<<grid, block>>>(dx, dw, db, dy, s.C, s.H, s.W, s.K)))
#endif
#line 86 "/work/main/bench/conv2d/main.cu"
		                                                                  ;
	};

	// Tolerance: outputs are ~N(0, 1/3^2) in size. Each is an fp32 sum of
	// C*9 = 576 products of |x * w| <= 0.042; in any summation order the
	// rounding error is bounded by 576 * 2^-24 * sum |x * w| ~ 2e-4 (and
	// typically ~1e-6): atol 2e-4, rtol 1e-4. A missing tap or a shifted
	// window is off by ~1e-2 or more.
	const double atol = 2e-4, rtol = 1e-4;
	auto check = [&](const char *what) {
		std::vector<float> all = bench_to_host(dy, ny);
		for (size_t i = 0; i < idx.size(); i++)
			got[i] = all[idx[i]];
		return bench_check(what, got.data(), want.data(), idx.size(), atol, rtol);
	};

	launch();
	BENCH_CK(cudaGetLastError());
	BENCH_CK(cudaDeviceSynchronize());
	bool ok = check("conv2d");

	bench_stats st = bench_time(launch);
	// Minimum: read x, w and b once, write y once. Flops: 2 * C * 9 per
	// output (one FMA per tap, padded taps included; the bias add is not
	// counted).
	const double bytes = sizeof(float) * ((double)nx + (double)nw + s.K + (double)ny);
	const double flops = 2.0 * 9.0 * s.C * (double)ny;
	bench_report("conv2d", "naive", st, bytes, flops);

	ok = check("conv2d after timing") && ok;

	BENCH_CK(cudaFree(dx));
	BENCH_CK(cudaFree(dw));
	BENCH_CK(cudaFree(db));
	BENCH_CK(cudaFree(dy));
	return bench_finish(ok);
}
