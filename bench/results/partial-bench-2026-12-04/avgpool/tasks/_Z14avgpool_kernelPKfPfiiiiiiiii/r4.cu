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
#line 3 "/tmp/ks-bench/avgpool/ks/tasks/_Z14avgpool_kernelPKfPfiiiiiiiii/r4.variant.cu"
#ifndef KS_PL_HELPERS
#define KS_PL_HELPERS
/* n / d for a 32-bit n, by the multiplier and shifts of d
   (Granlund-Montgomery) the launcher computes: v = { d, m, s1, s2 } */
__device__ __forceinline__ static unsigned
ks_pl_q(const unsigned n, const uint4 v)
{
	const unsigned h = __umulhi(n, v.y);

	return (h + ((n - h) >> v.z)) >> v.w;
}
static inline uint4
ks_pl_div_of(const unsigned d)
{
	unsigned l = 0;

	while ((1ull << l) < d)
		l++;
	return make_uint4(d, (unsigned)(((1ull << 32) * ((1ull << l) - d)) / d + 1),
			  l < 1 ? l : 1, l > 1 ? l - 1 : 0);
}
/* N (1 or 4) 4-byte elements from an address aligned to N of them
   (read-only path for a const array). */
template <int N, class T> __device__ __forceinline__ static void
ks_pl_ld(const T *p, T *o)
{
	if (N == 4) {
		const int4 v = __ldg((const int4 *)p);

		memcpy(o, &v, sizeof(v));
	} else {
		*o = __ldg(p);
	}
}
template <int N, class T> __device__ __forceinline__ static void
ks_pl_ld(T *p, T *o)
{
	if (N == 4) {
		const int4 v = *(const int4 *)p;

		memcpy(o, &v, sizeof(v));
	} else {
		*o = *p;
	}
}
/* N elements of o to an address aligned to N * sizeof(T), in
   16-byte (or 8-byte) pieces. */
template <int N, class T> __device__ __forceinline__ static void
ks_pl_st(T *p, const T *o)
{
	if (N * sizeof(T) % 16 == 0) {
#pragma unroll
		for (int i = 0; i < (int)(N * sizeof(T) / 16); i++) {
			int4 v;

			memcpy(&v, (const char *)o + 16 * i, sizeof(v));
			*((int4 *)p + i) = v;
		}
	} else {
		int2 v;

		memcpy(&v, o, sizeof(v));
		*(int2 *)p = v;
	}
}
#endif

/* The body of avgpool_kernel at thread ks_tid of block ks_bid: its divisions
   read from the digits, its window load from ks_win (columns from
   ks_c0), its store into ks_o[ks_j] (bit ks_j of ks_m). */
template <int KS_KR, int KS_NC>
__device__ __forceinline__ static void
ks_pl_body_avgpool_kernel(const uint3 ks_tid, const uint3 ks_bid, const dim3 ks_bdim,
	const dim3 ks_gdim, const unsigned long long ks_d0,
	const unsigned long long ks_q0, const unsigned long long ks_d1,
	const unsigned long long ks_q1, const float (&ks_win)[KS_KR][KS_NC],
	float *ks_o, unsigned &ks_m, const int ks_j, const int ks_c0, const float *x, float *y, int n, int c, int h, int w, int ho, int wo, int k, int s, int p)
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
			sum += ((void)sizeof(xp[(size_t)ih * w + iw]), ks_win[kh][ks_c0 + kw]);
			cnt++;
		}
	}
	((void)sizeof(y[i]), ks_m |= 1u << ks_j, ks_o[ks_j]) = sum / cnt;
}

/* Thread t: the row t / G and the group t % G of KS_V outputs
   along it; the window's rows and columns in registers (loaded
   KS_VEC elements at a time, the first column KS_MIS elements after
   an aligned one); then the body once per output. */
#endif
#line 110 "/tmp/ks-bench/avgpool/ks/tasks/_Z14avgpool_kernelPKfPfiiiiiiiii/r4.variant.cu"
template <int KS_KR, int KS_KC, int KS_S, int KS_V, int KS_VEC, int KS_MIS>
__global__ void __launch_bounds__(512)
ks_pl_avgpool_kernel(const dim3 ks_og, const dim3 ks_ob, const unsigned ks_nt,
	const uint4 ks_dg, const uint4 ks_dr1, const uint4 ks_db,
	const long long ks_nin, const int ks_vs, const float *x, float *y, int n, int c, int h, int w, int ho, int wo, int k, int s, int p)
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 115 "/tmp/ks-bench/avgpool/ks/tasks/_Z14avgpool_kernelPKfPfiiiiiiiii/r4.variant.cu"
{
	enum {
		KS_C = (KS_V - 1) * KS_S + KS_KC,
		KS_NC = KS_VEC > 1 ? (KS_MIS + KS_C + KS_VEC - 1) / KS_VEC * KS_VEC : KS_C
	};
	const unsigned ks_t = blockIdx.x * 512u + threadIdx.x;

	if (ks_t >= ks_nt)
		return;
	const unsigned ks_row = ks_pl_q(ks_t, ks_dg);
	const unsigned ks_d0 = (ks_t - ks_row * ks_dg.x) * KS_V;
	const unsigned ks_q1 = ks_pl_q(ks_row, ks_dr1);
	const unsigned ks_d1 = ks_row - ks_q1 * ks_dr1.x;
	const unsigned long long ks_r0 = (unsigned long long)((1LL * (long long)(wo)));
	const unsigned long long ks_n = (unsigned long long)ks_og.x * ks_ob.x;
	const unsigned long long ks_g0 = ks_d0 + ks_r0 * ks_row;

	if (ks_g0 >= ks_n)
		return;
	const long long ks_base = ((1LL * (long long)(h) * (long long)(w))) * (long long)ks_q1 + ((1LL * (long long)(w) * (long long)(s))) * (long long)ks_d1 +
		(long long)KS_S * ks_d0 + ((-1LL * (long long)(p) + -1LL * (long long)(w) * (long long)(p))) - KS_MIS;
	const long long ks_wr = ((1LL * (long long)(w)));
	float ks_win[KS_KR][KS_NC];
	/* the whole window inside the array (most threads): no test per load */
	const bool ks_in = ks_base >= 0 && ks_wr >= 0 &&
		ks_base + (KS_KR - 1) * ks_wr + KS_NC <= ks_nin;

#pragma unroll
	for (int ks_r = 0; ks_r < KS_KR; ks_r++) {
		const long long ks_or = ks_base + ks_r * ks_wr;

#pragma unroll
		for (int ks_c = 0; ks_c < KS_NC; ks_c += KS_VEC) {
			const long long ks_f = ks_or + ks_c;

			if (ks_in || (ks_f >= 0 && ks_f + KS_VEC <= ks_nin)) {
				ks_pl_ld<KS_VEC>(x + ks_f, &ks_win[ks_r][ks_c]);
			} else {
#pragma unroll
				for (int ks_e = 0; ks_e < KS_VEC; ks_e++)
					ks_win[ks_r][ks_c + ks_e] = float();
			}
		}
	}

	float ks_o[KS_V];
	unsigned ks_m = 0;
	unsigned ks_b = ks_pl_q((unsigned)ks_g0, ks_db);
	unsigned ks_x = (unsigned)ks_g0 - ks_b * ks_ob.x;

	/* every output of the group exists (most groups): the bodies
	   without a test between them */
	const bool ks_all = ks_d0 + KS_V <= ks_r0 && ks_g0 + KS_V <= ks_n;

#pragma unroll
	for (int ks_j = 0; ks_j < KS_V; ks_j++) {
		if (ks_all || (ks_d0 + ks_j < ks_r0 && ks_g0 + ks_j < ks_n))
			ks_pl_body_avgpool_kernel<KS_KR, KS_NC>(make_uint3(ks_x, 0, 0), make_uint3(ks_b, 0, 0),
				ks_ob, ks_og, ks_d0 + ks_j, ks_row, ks_d1, ks_q1, ks_win, ks_o, ks_m,
				ks_j, KS_MIS + ks_j * KS_S, x, y, n, c, h, w, ho, wo, KS_KR, KS_S, p);
		if (++ks_x == ks_ob.x) {
			ks_x = 0;
			ks_b++;
		}
	}
	if (KS_V * sizeof(float) % 8 == 0 && ks_vs && ks_m == (1u << KS_V) - 1) {
		ks_pl_st<KS_V>(y + ks_g0, ks_o);
	} else {
#pragma unroll
		for (int ks_j = 0; ks_j < KS_V; ks_j++)
			if (ks_m >> ks_j & 1u)
				y[ks_g0 + ks_j] = ks_o[ks_j];
	}
}
#else
{}
#endif
#line 189 "/tmp/ks-bench/avgpool/ks/tasks/_Z14avgpool_kernelPKfPfiiiiiiiii/r4.variant.cu"
template __global__ void ks_pl_avgpool_kernel<3, 3, 2, 4, 1, 0>(
	const dim3, const dim3, const unsigned, const uint4, const uint4,
	const uint4, const long long, const int, const float *x, float *y, int n, int c, int h, int w, int ho, int wo, int k, int s, int p);
#line 192 "/tmp/ks-bench/avgpool/ks/tasks/_Z14avgpool_kernelPKfPfiiiiiiiii/r4.variant.cu"
template __global__ void ks_pl_avgpool_kernel<3, 3, 2, 4, 4, 0>(
	const dim3, const dim3, const unsigned, const uint4, const uint4,
	const uint4, const long long, const int, const float *x, float *y, int n, int c, int h, int w, int ho, int wo, int k, int s, int p);
#line 195 "/tmp/ks-bench/avgpool/ks/tasks/_Z14avgpool_kernelPKfPfiiiiiiiii/r4.variant.cu"
template __global__ void ks_pl_avgpool_kernel<3, 3, 2, 4, 4, 3>(
	const dim3, const dim3, const unsigned, const uint4, const uint4,
	const uint4, const long long, const int, const float *x, float *y, int n, int c, int h, int w, int ho, int wo, int k, int s, int p);
#line 198 "/tmp/ks-bench/avgpool/ks/tasks/_Z14avgpool_kernelPKfPfiiiiiiiii/r4.variant.cu"
template __global__ void ks_pl_avgpool_kernel<2, 2, 2, 4, 1, 0>(
	const dim3, const dim3, const unsigned, const uint4, const uint4,
	const uint4, const long long, const int, const float *x, float *y, int n, int c, int h, int w, int ho, int wo, int k, int s, int p);
#line 201 "/tmp/ks-bench/avgpool/ks/tasks/_Z14avgpool_kernelPKfPfiiiiiiiii/r4.variant.cu"
template __global__ void ks_pl_avgpool_kernel<2, 2, 2, 4, 4, 0>(
	const dim3, const dim3, const unsigned, const uint4, const uint4,
	const uint4, const long long, const int, const float *x, float *y, int n, int c, int h, int w, int ho, int wo, int k, int s, int p);
#line 204 "/tmp/ks-bench/avgpool/ks/tasks/_Z14avgpool_kernelPKfPfiiiiiiiii/r4.variant.cu"
template __global__ void ks_pl_avgpool_kernel<2, 2, 2, 4, 4, 3>(
	const dim3, const dim3, const unsigned, const uint4, const uint4,
	const uint4, const long long, const int, const float *x, float *y, int n, int c, int h, int w, int ho, int wo, int k, int s, int p);
#line 207 "/tmp/ks-bench/avgpool/ks/tasks/_Z14avgpool_kernelPKfPfiiiiiiiii/r4.variant.cu"
template __global__ void ks_pl_avgpool_kernel<3, 3, 1, 4, 1, 0>(
	const dim3, const dim3, const unsigned, const uint4, const uint4,
	const uint4, const long long, const int, const float *x, float *y, int n, int c, int h, int w, int ho, int wo, int k, int s, int p);
#line 210 "/tmp/ks-bench/avgpool/ks/tasks/_Z14avgpool_kernelPKfPfiiiiiiiii/r4.variant.cu"
template __global__ void ks_pl_avgpool_kernel<3, 3, 1, 4, 4, 0>(
	const dim3, const dim3, const unsigned, const uint4, const uint4,
	const uint4, const long long, const int, const float *x, float *y, int n, int c, int h, int w, int ho, int wo, int k, int s, int p);
#line 213 "/tmp/ks-bench/avgpool/ks/tasks/_Z14avgpool_kernelPKfPfiiiiiiiii/r4.variant.cu"
template __global__ void ks_pl_avgpool_kernel<3, 3, 1, 4, 4, 3>(
	const dim3, const dim3, const unsigned, const uint4, const uint4,
	const uint4, const long long, const int, const float *x, float *y, int n, int c, int h, int w, int ho, int wo, int k, int s, int p);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900
#line 217 "/tmp/ks-bench/avgpool/ks/tasks/_Z14avgpool_kernelPKfPfiiiiiiiii/r4.variant.cu"
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
#line 246 "/tmp/ks-bench/avgpool/ks/tasks/_Z14avgpool_kernelPKfPfiiiiiiiii/r4.variant.cu"
#define KS_PL_V 4
#define KS_PL_B 512
static void
ks_launch_avgpool_kernel(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
		const float *x, float *y, int n, int c, int h, int w, int ho, int wo, int k, int s, int p)
{
	const dim3 ks_ob = block, ks_og = grid;
	const long long ks_n = (long long)grid.x * block.x;
	const long long ks_r0 = ((1LL * (long long)(wo))), ks_r1 = ((1LL * (long long)(ho)));
	const long long ks_lim = ((long long)((size_t)n * c * ho * wo));
	const long long ks_a1 = ((1LL * (long long)(h) * (long long)(w))), ks_b1 = ((1LL * (long long)(w) * (long long)(s))), ks_c0 = ((-1LL * (long long)(p) + -1LL * (long long)(w) * (long long)(p))), ks_wr = ((1LL * (long long)(w)));
	int ks_ok = 1;

	(void)ks_ob;
	(void)ks_og;
	/* what the variant assumes, else the original: a 1-D launch of
	   fewer than 2^31 threads, divisors between 1 and 2^31, the
	   window's planes of a positive size */
	ks_ok = ks_ok && grid.y == 1 && grid.z == 1 && block.y == 1 && block.z == 1 &&
		!shmem && ks_n > 0 && ks_n <= 0x7fffffffLL && ks_r0 > 0 &&
		ks_r0 <= 0x7fffffffLL && ks_r1 > 0 && ks_r1 <= 0x7fffffffLL && ks_a1 > 0 &&
		ks_lim > 0;
	if (ks_ok) {
		const long long ks_g = (ks_r0 + KS_PL_V - 1) / KS_PL_V;
		const long long ks_used = ks_lim < ks_n ? ks_lim : ks_n;
		const long long ks_planes = (ks_used + ks_r0 * ks_r1 - 1) / (ks_r0 * ks_r1);
		const long long ks_nt = (ks_n + ks_r0 * ks_r1 - 1) / (ks_r0 * ks_r1) * ks_r1 * ks_g;
		const long long ks_nin = ks_planes * ks_a1;
		const long long ks_mis = ((ks_c0 % 4) + 4) % 4;
		const int ks_vs = KS_PL_V * sizeof(float) >= 8 &&
			KS_PL_V * sizeof(float) % 8 == 0 && ks_r0 % KS_PL_V == 0 &&
			(unsigned long long)y % (KS_PL_V * sizeof(float) >= 16 ? 16 : 8) == 0;
		const int ks_vl = 1 && (unsigned long long)x % 16 == 0 &&
			ks_a1 % 4 == 0 && ks_b1 % 4 == 0 && ks_wr % 4 == 0 &&
			ks_nin % 4 == 0;

		if (ks_nt <= 0xffffffffLL && ks_g <= 0x7fffffffLL) {
			const uint4 ks_dg = ks_pl_div_of((unsigned)ks_g);
			const uint4 ks_dr1 = ks_pl_div_of((unsigned)ks_r1);
			const uint4 ks_db = ks_pl_div_of(block.x);
			const unsigned ks_nb = (unsigned)((ks_nt + KS_PL_B - 1) / KS_PL_B);

			/* the window 3 x 3, stride 2 */
			if (1 && (long long)k == 3LL && (long long)k == 3LL && (long long)s == 2LL) {
				if (ks_vl && ks_mis == 0) {
					ks_pl_avgpool_kernel<3, 3, 2, KS_PL_V, 4, 0><<<ks_nb, KS_PL_B, 0, stream>>>(
						grid, block, ks_nt, ks_dg, ks_dr1, ks_db, ks_nin, ks_vs, x, y, n, c, h, w, ho, wo, k, s, p);
					return;
				}
				if (ks_vl && ks_mis == 3) {
					ks_pl_avgpool_kernel<3, 3, 2, KS_PL_V, 4, 3><<<ks_nb, KS_PL_B, 0, stream>>>(
						grid, block, ks_nt, ks_dg, ks_dr1, ks_db, ks_nin, ks_vs, x, y, n, c, h, w, ho, wo, k, s, p);
					return;
				}
				ks_pl_avgpool_kernel<3, 3, 2, KS_PL_V, 1, 0><<<ks_nb, KS_PL_B, 0, stream>>>(
					grid, block, ks_nt, ks_dg, ks_dr1, ks_db, ks_nin, ks_vs, x, y, n, c, h, w, ho, wo, k, s, p);
				return;
			}

			/* the window 2 x 2, stride 2 */
			if (1 && (long long)k == 2LL && (long long)k == 2LL && (long long)s == 2LL) {
				if (ks_vl && ks_mis == 0) {
					ks_pl_avgpool_kernel<2, 2, 2, KS_PL_V, 4, 0><<<ks_nb, KS_PL_B, 0, stream>>>(
						grid, block, ks_nt, ks_dg, ks_dr1, ks_db, ks_nin, ks_vs, x, y, n, c, h, w, ho, wo, k, s, p);
					return;
				}
				if (ks_vl && ks_mis == 3) {
					ks_pl_avgpool_kernel<2, 2, 2, KS_PL_V, 4, 3><<<ks_nb, KS_PL_B, 0, stream>>>(
						grid, block, ks_nt, ks_dg, ks_dr1, ks_db, ks_nin, ks_vs, x, y, n, c, h, w, ho, wo, k, s, p);
					return;
				}
				ks_pl_avgpool_kernel<2, 2, 2, KS_PL_V, 1, 0><<<ks_nb, KS_PL_B, 0, stream>>>(
					grid, block, ks_nt, ks_dg, ks_dr1, ks_db, ks_nin, ks_vs, x, y, n, c, h, w, ho, wo, k, s, p);
				return;
			}

			/* the window 3 x 3, stride 1 */
			if (1 && (long long)k == 3LL && (long long)k == 3LL && (long long)s == 1LL) {
				if (ks_vl && ks_mis == 0) {
					ks_pl_avgpool_kernel<3, 3, 1, KS_PL_V, 4, 0><<<ks_nb, KS_PL_B, 0, stream>>>(
						grid, block, ks_nt, ks_dg, ks_dr1, ks_db, ks_nin, ks_vs, x, y, n, c, h, w, ho, wo, k, s, p);
					return;
				}
				if (ks_vl && ks_mis == 3) {
					ks_pl_avgpool_kernel<3, 3, 1, KS_PL_V, 4, 3><<<ks_nb, KS_PL_B, 0, stream>>>(
						grid, block, ks_nt, ks_dg, ks_dr1, ks_db, ks_nin, ks_vs, x, y, n, c, h, w, ho, wo, k, s, p);
					return;
				}
				ks_pl_avgpool_kernel<3, 3, 1, KS_PL_V, 1, 0><<<ks_nb, KS_PL_B, 0, stream>>>(
					grid, block, ks_nt, ks_dg, ks_dr1, ks_db, ks_nin, ks_vs, x, y, n, c, h, w, ho, wo, k, s, p);
				return;
			}
		}
	}
	avgpool_kernel<<<grid, block, shmem, stream>>>(x, y, n, c, h, w, ho, wo, k, s, p);
}
#undef KS_PL_V
#undef KS_PL_B
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
