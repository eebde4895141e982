/* ks-nvcc: verified variants replace relu_kernel (arch 900); see docs/REWRITE.md */
#line 1 "/work/main/bench/conv_norm/main.cu"
// conv_norm: a convolution block in inference mode, as three kernels:
// a direct NCHW conv2d with bias (3x3, stride 1, padding 1), then a
// per-channel batch norm with running statistics, then a ReLU. A batch of 32
// images of 32 channels, 224x224, into 64 output channels. Each kernel writes
// its own buffer; each is timed alone, and the three together as "chain".
#include "bench.h"
#include "ref.h"

// One thread per output element, 16x16 threads per block over the output
// plane, one grid layer per (image, output channel).
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

// One thread per element of the [N][K][H][W] tensor; hw = H * W.
__global__ void
batchnorm_kernel(const float *x, const float *mean, const float *var,
		 const float *gamma, const float *beta, float *y, size_t n,
		 size_t hw, int K, float eps)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < n) {
		int k = (int)((i / hw) % K);
		y[i] = (x[i] - mean[k]) / sqrtf(var[k] + eps) * gamma[k] + beta[k];
	}
}

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 3 "/tmp/ks-bench/conv_norm/ks/tasks/_Z11relu_kernelPKfPfm/r3.variant.cu"
static __device__ __forceinline__ void
ks_sb_relu_kernel(const uint3 threadIdx, const uint3 blockIdx, const dim3 blockDim,
	const dim3 gridDim,
	const float *x, float *y, size_t n)
{
	(void)threadIdx;
	(void)blockIdx;
	(void)blockDim;
	(void)gridDim;
	{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = fmaxf(x[i], 0.0f);
}
}

static __device__ __forceinline__ void
ks_vb_relu_kernel(const uint3 threadIdx, const uint3 blockIdx, const dim3 blockDim,
	const dim3 gridDim, const int ks_j, float *ks_v0, float *ks_v1,
	const float *x, float *y, size_t n)
{
	(void)threadIdx;
	(void)blockIdx;
	(void)blockDim;
	(void)gridDim;
	(void)ks_j;
	{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if ((true || (i < n)))
		(ks_v1[ks_j]) = fmaxf((ks_v0[ks_j]), 0.0f);
}
}

struct __align__(16) ks_pk0_relu_kernel {
	float v[4];
};

struct __align__(16) ks_pk1_relu_kernel {
	float v[4];
};

/* Every bounds check of the kernel passes for the original thread
   (ks_bx, ks_tx), ks_i = ks_bx * blockDim.x + ks_tx. */
static __device__ __forceinline__ bool
ks_in_relu_kernel(const unsigned ks_i, const unsigned ks_tx, const unsigned ks_bx,
	const dim3 ks_ob, const dim3 ks_og,
	const float *x, float *y, size_t n)
{
	(void)ks_i;
	(void)ks_tx;
	(void)ks_bx;
	return (((0LL) + (1LL) * (long long)ks_i) < ((1LL * (long long)(n))));
}

#endif
#line 57 "/tmp/ks-bench/conv_norm/ks/tasks/_Z11relu_kernelPKfPfm/r3.variant.cu"
__global__ void __launch_bounds__(512)
ks_xf_relu_kernel(const float *x, float *y, size_t n, const dim3 ks_og, const dim3 ks_ob,
	const unsigned ks_mg, const unsigned ks_s1, const unsigned ks_s2)
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 60 "/tmp/ks-bench/conv_norm/ks/tasks/_Z11relu_kernelPKfPfm/r3.variant.cu"
{
	const unsigned ks_ng =
		(unsigned)((unsigned long long)ks_og.x * ks_ob.x / 4);
	const unsigned ks_s = gridDim.x * 512;

	for (unsigned ks_g0 = blockIdx.x * 512 + threadIdx.x;
	     ks_g0 < ks_ng; ks_g0 += 1 * ks_s) {
		ks_pk0_relu_kernel ks_v0[1];
		ks_pk1_relu_kernel ks_v1[1];
		bool ks_full[1];

#pragma unroll
		for (int ks_u = 0; ks_u < 1; ks_u++) {
			const unsigned ks_g = ks_g0 + ks_u * ks_s;
			const unsigned ks_t = ks_g * 4;
			const unsigned ks_t32 = (unsigned)ks_t;
			const unsigned ks_h = __umulhi(ks_t32, ks_mg);
			const unsigned ks_bx = (ks_h + ((ks_t32 - ks_h) >> ks_s1)) >> ks_s2;
			const unsigned ks_tx = ks_t32 - ks_bx * ks_ob.x;

			ks_full[ks_u] = ks_g < ks_ng &&
				ks_in_relu_kernel(ks_t32, ks_tx, ks_bx, ks_ob, ks_og, x, y, n) &&
				ks_in_relu_kernel(ks_t32 + 3, ks_tx + 3, ks_bx, ks_ob, ks_og, x, y, n);
			if (!ks_full[ks_u])
				continue;
			ks_v0[ks_u] = *reinterpret_cast<const ks_pk0_relu_kernel *>(
				x + ks_t);
		}
#pragma unroll
		for (int ks_u = 0; ks_u < 1; ks_u++) {
			const unsigned ks_g = ks_g0 + ks_u * ks_s;
			const unsigned ks_t = ks_g * 4;
			const unsigned ks_t32 = (unsigned)ks_t;
			const unsigned ks_h = __umulhi(ks_t32, ks_mg);
			const unsigned ks_bx = (ks_h + ((ks_t32 - ks_h) >> ks_s1)) >> ks_s2;
			const unsigned ks_tx = ks_t32 - ks_bx * ks_ob.x;

			if (ks_full[ks_u]) {
#pragma unroll
				for (int ks_j = 0; ks_j < 4; ks_j++)
					ks_vb_relu_kernel(make_uint3(ks_tx + ks_j, 0, 0),
						make_uint3(ks_bx, 0, 0), ks_ob, ks_og, ks_j, ks_v0[ks_u].v, ks_v1[ks_u].v, x, y, n);
				*reinterpret_cast<ks_pk1_relu_kernel *>(y + ks_t) = ks_v1[ks_u];
			} else if (ks_g < ks_ng) {
				for (unsigned ks_j = 0; ks_j < 4; ks_j++)
					ks_sb_relu_kernel(make_uint3(ks_tx + ks_j, 0, 0),
						make_uint3(ks_bx, 0, 0), ks_ob, ks_og, x, y, n);
			}
		}
	}
}
#else
{}
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900
#line 112 "/tmp/ks-bench/conv_norm/ks/tasks/_Z11relu_kernelPKfPfm/r3.variant.cu"
__global__ void
relu_kernel(const float *x, float *y, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = fmaxf(x[i], 0.0f);
}
#else
#line 51 "/work/main/bench/conv_norm/main.cu"
__global__ void
relu_kernel(const float *x, float *y, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = fmaxf(x[i], 0.0f);
}
#endif
#line 1 "<ks-nvcc>"
/* Never launched: cudaFuncGetAttributes on it tells which image
   of this file the device runs (__CUDA_ARCH__ is ptxVersion
   times 10). */
static __global__ void ks_probe_relu_kernel(void) {}
#ifndef __CUDA_ARCH__
/* 1 when the device code that runs is the variant's (arch 900):
   then its launcher must run. Cached per device. */
static int
ks_variant_active_relu_kernel(void)
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
	if (cudaFuncGetAttributes(&ks_attr, ks_probe_relu_kernel) != cudaSuccess)
		return 0;
	ks_on = ks_attr.ptxVersion == 90;
	if (ks_dev >= 0)
		__atomic_store_n(&ks_known[ks_dev], ks_on ? 1 : 2,
				 __ATOMIC_RELAXED);
	return ks_on;
}
#line 120 "/tmp/ks-bench/conv_norm/ks/tasks/_Z11relu_kernelPKfPfm/r3.variant.cu"
static void
ks_launch_relu_kernel(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
	const float *x, float *y, size_t n)
{
	unsigned long long ks_blocks;
	unsigned ks_l = 0, ks_mg, ks_s1, ks_s2;

	if (grid.x == 0 || grid.y != 1 || grid.z != 1 || block.y != 1 ||
	    block.z != 1 || block.x % 4 != 0 ||
	    (unsigned long long)grid.x * block.x > 0xfffff7ffULL ||
	    (unsigned long long)(const void *)x % 16 != 0 ||
	    (unsigned long long)(const void *)y % 16 != 0) {
		/* a launch the variant does not cover: the original */
		relu_kernel<<<grid, block, shmem, stream>>>(x, y, n);
		return;
	}
	while ((1ull << ks_l) < block.x)
		ks_l++;
	ks_mg = (unsigned)(((1ull << 32) * ((1ull << ks_l) - block.x)) / block.x + 1);
	ks_s1 = ks_l < 1 ? ks_l : 1;
	ks_s2 = ks_l > 1 ? ks_l - 1 : 0;
	ks_blocks = ((unsigned long long)grid.x * block.x / 4 + 512 - 1) / 512;
	if (ks_blocks > 0x7fffffffULL)
		ks_blocks = 0x7fffffffULL;
	(void)shmem;
	ks_xf_relu_kernel<<<(unsigned)ks_blocks, 512, 0, stream>>>(x, y, n, grid, block, ks_mg, ks_s1, ks_s2);
}
#endif
#line 57 "/work/main/bench/conv_norm/main.cu"
 

int
main(int argc, char **argv)
{
	bench_init("conv_norm", argc, argv);
	// Small: a plane that is not a multiple of the 16x16 block.
	const conv_shape s = bench_small() ? conv_shape{2, 3, 19, 21, 5}
					   : conv_shape{32, 32, 224, 224, 64};
	const size_t nx = (size_t)s.N * s.C * s.H * s.W;
	const size_t nw = (size_t)s.K * s.C * 9;
	const size_t ny = (size_t)s.N * s.K * s.H * s.W;
	const size_t hw = (size_t)s.H * s.W;

	// Input uniform in [-1, 1]; weights and bias uniform in +-1/sqrt(C*9),
	// the bounds of PyTorch's default Conv2d initialization. The conv output
	// then has variance about 1/9 and mean 0, so the running statistics are
	// drawn around those: mean in [-0.05, 0.05], var in [0.08, 0.15].
	const float a = 1.0f / std::sqrt((float)(s.C * 9));
	std::vector<float> hx(nx), hwt(nw), hb(s.K);
	std::vector<float> hmean(s.K), hvar(s.K), hgamma(s.K), hbeta(s.K);
	bench_fill(hx, 701, -1.0f, 1.0f);
	bench_fill(hwt, 702, -a, a);
	bench_fill(hb, 703, -a, a);
	bench_fill(hmean, 704, -0.05f, 0.05f);
	bench_fill(hvar, 705, 0.08f, 0.15f);
	bench_fill(hgamma, 706, 0.5f, 1.5f);
	bench_fill(hbeta, 707, -0.2f, 0.2f);

	// Conv and chain outputs checked: all of them at the small size. At
	// full size the CPU conv for all 103M outputs (3e10 multiply-adds) is
	// too slow, so a deterministic sample is checked: 65536 pseudo-random
	// outputs plus the whole last plane (image N-1, channel K-1), which
	// covers every border and corner position. Batch norm and ReLU are
	// checked in full against the reference applied to the GPU's own input
	// to that stage.
	std::vector<size_t> idx;
	if (bench_small()) {
		for (size_t i = 0; i < ny; i++)
			idx.push_back(i);
	} else {
		bench_rng pick(708);
		for (int i = 0; i < 65536; i++)
			idx.push_back((size_t)(pick.next() % ny));
		for (size_t p = 0; p < hw; p++)
			idx.push_back(ny - hw + p);
	}
	std::vector<float> want_conv(idx.size()), want_chain(idx.size()), got(idx.size());
	for (size_t i = 0; i < idx.size(); i++) {
		want_conv[i] = (float)conv2d_ref_flat(hx.data(), hwt.data(), hb.data(), s, idx[i]);
		want_chain[i] = (float)chain_ref_flat(hx.data(), hwt.data(), hb.data(), hmean.data(),
						      hvar.data(), hgamma.data(), hbeta.data(), s,
						      BN_EPS, idx[i]);
	}

	float *dx = bench_to_device(hx);
	float *dw = bench_to_device(hwt);
	float *db = bench_to_device(hb);
	float *dmean = bench_to_device(hmean);
	float *dvar = bench_to_device(hvar);
	float *dgamma = bench_to_device(hgamma);
	float *dbeta = bench_to_device(hbeta);
	float *dconv = nullptr, *dbn = nullptr, *dout = nullptr;
	BENCH_CK(cudaMalloc(&dconv, ny * sizeof(float)));
	BENCH_CK(cudaMalloc(&dbn, ny * sizeof(float)));
	BENCH_CK(cudaMalloc(&dout, ny * sizeof(float)));
	// All-ones bytes are a NaN: an element a kernel misses fails the check.
	BENCH_CK(cudaMemset(dconv, 0xff, ny * sizeof(float)));
	BENCH_CK(cudaMemset(dbn, 0xff, ny * sizeof(float)));
	BENCH_CK(cudaMemset(dout, 0xff, ny * sizeof(float)));

	const dim3 cblock(16, 16);
	const dim3 cgrid((s.W + 15) / 16, (s.H + 15) / 16, s.N * s.K);
	const int threads = 256;
	const unsigned blocks = (unsigned)((ny + threads - 1) / threads);
	auto launch_conv = [&]() {
		conv2d_kernel<<<cgrid, cblock>>>(dx, dw, db, dconv, s.C, s.H, s.W, s.K);
	};
	auto launch_bn = [&]() {
		batchnorm_kernel<<<blocks, threads>>>(dconv, dmean, dvar, dgamma, dbeta, dbn, ny,
						      hw, s.K, BN_EPS);
	};
	auto launch_relu = [&]() { 
#ifdef __CUDA_ARCH__
#line 139 "/work/main/bench/conv_norm/main.cu"
	                           relu_kernel<<<blocks, threads>>>(dbn, dout, ny)
#else
#line 139 "/work/main/bench/conv_norm/main.cu"
	                           (ks_variant_active_relu_kernel() ? ks_launch_relu_kernel(blocks, threads, 0, cudaStream_t(), dbn, dout, ny) : (void)(
#line 139 "/work/main/bench/conv_norm/main.cu"
	                           relu_kernel<<<blocks, threads>>>(dbn, dout, ny)))
#endif
#line 139 "/work/main/bench/conv_norm/main.cu"
	                                                                          ; };
	auto launch_chain = [&]() {
		launch_conv();
		launch_bn();
		launch_relu();
	};

	// Tolerances. conv: outputs are ~N(0, 1/3^2) in size, each an fp32 sum
	// of C*9 = 288 products of |x * w| <= 0.059; in any summation order the
	// rounding error is bounded by 288 * 2^-24 * sum |x * w| ~ 1e-4 (and
	// typically ~1e-6): atol 2e-4, rtol 1e-4. Batch norm, from the GPU's conv
	// output: a few ulp of outputs below ~10: atol = rtol = 1e-5. ReLU is
	// exact. Chain: the conv tolerance times the largest gain
	// gamma / sqrt(var) < 1.5 / sqrt(0.08) ~ 5.3, plus the batch norm's own
	// error: atol 1.2e-3, rtol 1e-4. Wrong channel statistics or a shifted
	// window are off by ~1e-2 or more.
	auto check = [&](const char *when) {
		char what[64];
		std::vector<float> hconv = bench_to_host(dconv, ny);
		std::vector<float> hbn = bench_to_host(dbn, ny);
		std::vector<float> hout = bench_to_host(dout, ny);
		for (size_t i = 0; i < idx.size(); i++)
			got[i] = hconv[idx[i]];
		std::snprintf(what, sizeof what, "conv2d%s", when);
		bool good = bench_check(what, got.data(), want_conv.data(), idx.size(), 2e-4, 1e-4);
		std::vector<float> want(ny);
		batchnorm_ref_array(hconv.data(), hmean.data(), hvar.data(), hgamma.data(),
				    hbeta.data(), s, BN_EPS, want.data());
		std::snprintf(what, sizeof what, "batchnorm%s", when);
		good = bench_check(what, hbn.data(), want.data(), ny, 1e-5, 1e-5) && good;
		for (size_t i = 0; i < ny; i++)
			want[i] = (float)relu_ref(hbn[i]);
		std::snprintf(what, sizeof what, "relu%s", when);
		good = bench_check(what, hout.data(), want.data(), ny, 0.0, 0.0) && good;
		for (size_t i = 0; i < idx.size(); i++)
			got[i] = hout[idx[i]];
		std::snprintf(what, sizeof what, "chain%s", when);
		good = bench_check(what, got.data(), want_chain.data(), idx.size(), 1.2e-3, 1e-4) &&
		       good;
		return good;
	};

	launch_chain();
	BENCH_CK(cudaGetLastError());
	BENCH_CK(cudaDeviceSynchronize());
	bool ok = check("");

	// Minimum bytes: each kernel reads its inputs once and writes its output
	// once; the chain as a whole only needs x, the parameters and the final
	// output. Flops: conv 2 * C * 9 per output (one FMA per tap, padded taps
	// included, bias add not counted); batch norm 4 per element (subtract,
	// multiply by the per-channel 1/sqrt(var + eps), multiply-add with gamma
	// and beta; per-channel work not counted); ReLU 1 per element.
	const double f = sizeof(float);
	const double conv_bytes = f * ((double)nx + (double)nw + s.K + (double)ny);
	const double bn_bytes = f * (2.0 * (double)ny + 4.0 * s.K);
	const double relu_bytes = f * 2.0 * (double)ny;
	const double chain_bytes = f * ((double)nx + (double)nw + 5.0 * s.K + (double)ny);
	const double conv_flops = 2.0 * 9.0 * s.C * (double)ny;
	const double bn_flops = 4.0 * (double)ny;
	const double relu_flops = (double)ny;

	bench_stats st = bench_time(launch_conv);
	bench_report("conv2d", "naive", st, conv_bytes, conv_flops);
	st = bench_time(launch_bn);
	bench_report("batchnorm", "naive", st, bn_bytes, bn_flops);
	st = bench_time(launch_relu);
	bench_report("relu", "naive", st, relu_bytes, relu_flops);
	st = bench_time(launch_chain);
	bench_report("chain", "naive", st, chain_bytes, conv_flops + bn_flops + relu_flops);

	ok = check(" after timing") && ok;

	BENCH_CK(cudaFree(dx));
	BENCH_CK(cudaFree(dw));
	BENCH_CK(cudaFree(db));
	BENCH_CK(cudaFree(dmean));
	BENCH_CK(cudaFree(dvar));
	BENCH_CK(cudaFree(dgamma));
	BENCH_CK(cudaFree(dbeta));
	BENCH_CK(cudaFree(dconv));
	BENCH_CK(cudaFree(dbn));
	BENCH_CK(cudaFree(dout));
	return bench_finish(ok);
}
