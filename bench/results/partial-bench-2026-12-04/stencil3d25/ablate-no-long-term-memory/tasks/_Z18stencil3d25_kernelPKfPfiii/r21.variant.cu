// stencil3d25_kernel: 3-D stencil of radius 4/4/4 walking z in planes: 16x16 threads of 2 consecutive outputs, 64 steps, each plane once into one of two shared 24x40 buffers as 8-byte vectors, the z column in 12 vector registers with 2 steps of loads ahead, the plane's window read into registers once for the 2 outputs (stencil_smem_halo, stream=2 pack=2)
// ks-nvcc: helpers
#include <string.h>
#ifndef KS_ST_HELPERS
#define KS_ST_HELPERS
/* q[i]: a select chain that folds to one register when i is a
   constant after unrolling, and stays correct when it is not. */
template <class T, int N> __device__ __forceinline__ static T
ks_st_q(const T (&q)[N], int i)
{
	T v = q[0];
#pragma unroll
	for (int j = 1; j < N; j++)
		if (j == i)
			v = q[j];
	return v;
}
/* p[f] where 0 <= f < n, else 0 (a cell no read of the kernel
   reaches). */
template <class T> __device__ __forceinline__ static T
ks_st_ld(const T *p, long long f, long long n)
{
	return f >= 0 && f < n ? __ldg(p + f) : T(0);
}
template <class T> __device__ __forceinline__ static T
ks_st_ld(T *p, long long f, long long n)
{
	return f >= 0 && f < n ? p[f] : T(0);
}
/* A hint: the line of p[f] into L1 where 0 <= f < n (nothing on
   the host, where the emulated kernel runs). */
template <class T> __device__ __forceinline__ static void
ks_st_pf(const T *p, long long f, long long n)
{
#ifdef __CUDA_ARCH__
	if (f >= 0 && f < n)
		asm volatile("prefetch.global.L1 [%0];" : : "l"(p + f));
#else
	(void)p;
	(void)f;
	(void)n;
#endif
}
#endif

#ifndef KS_ST_HELPERS_I
#define KS_ST_HELPERS_I
template <class T> __device__ __forceinline__ static T
ks_st_ld(const T *p, int f, int n)
{
	return (unsigned)f < (unsigned)n ? __ldg(p + f) : T(0);
}
template <class T> __device__ __forceinline__ static T
ks_st_ld(T *p, int f, int n)
{
	return (unsigned)f < (unsigned)n ? p[f] : T(0);
}
#endif

#ifndef KS_ST_HELPERS_2
#define KS_ST_HELPERS_2
template <class T> struct __align__(8) ks_st_v2 {
	T v[2];
};
/* p[f .. f + 1], each 0 outside [0, n): one 8-byte load where the
   2 are inside and aligned (al: p is), else one at a time */
template <class T, class I> __device__ __forceinline__ static ks_st_v2<T>
ks_st_ld2(const T *p, I f, I n, bool al)
{
	ks_st_v2<T> r;

	if (al && (f & 1) == 0 && f >= 0 && f + 1 < n) {
		const float2 w = __ldg(reinterpret_cast<const float2 *>(p + f));

		memcpy(&r, &w, sizeof(r));
		return r;
	}
#pragma unroll
	for (int j = 0; j < 2; j++)
		r.v[j] = ks_st_ld(p, f + (I)j, n);
	return r;
}
template <class T, class I> __device__ __forceinline__ static ks_st_v2<T>
ks_st_ld2(T *p, I f, I n, bool al)
{
	ks_st_v2<T> r;

	if (al && (f & 1) == 0 && f >= 0 && f + 1 < n)
		return *reinterpret_cast<const ks_st_v2<T> *>(p + f);
#pragma unroll
	for (int j = 0; j < 2; j++)
		r.v[j] = ks_st_ld(p, f + (I)j, n);
	return r;
}
#endif

/* The body of stencil3d25_kernel for output ks_j (0..1) of a thread at ks_tid of block ks_bid,
   its reads of in in the plane from the window ks_tw (row ry + dy, column 4 + ks_j + dx),
   along z from the column ks_q (ks_q[4] the output's own). */
__device__ __forceinline__ static void
ks_st_body_stencil3d25_kernel(const uint3 ks_tid, const uint3 ks_bid, const dim3 ks_bdim, const dim3 ks_gdim,
	const float (&ks_tw)[9][10], const int ks_j, const float (&ks_q)[9], float (&ks_ov)[2], unsigned &ks_om, const float *in, float *out, int nx, int ny, int nz)
{
	int x = ks_bid.x * ks_bdim.x + ks_tid.x;
	int y = ks_bid.y * ks_bdim.y + ks_tid.y;
	int z = ks_bid.z * ks_bdim.z + ks_tid.z;
	if (x >= nx || y >= ny || z >= nz)
		return;
	size_t i = ((size_t)z * ny + y) * nx + x;
	if (x < STENCIL_R || y < STENCIL_R || z < STENCIL_R || x >= nx - STENCIL_R ||
	    y >= ny - STENCIL_R || z >= nz - STENCIL_R) {
		((void)(i), ks_om |= 1u << ks_j, ks_ov[ks_j]) = ((void)(i), ks_st_q(ks_q, 4 + (0)));
		return;
	}
	float acc = coef[0] * ((void)(i), ks_st_q(ks_q, 4 + (0)));
	for (int r = 1; r <= STENCIL_R; r++)
		acc += coef[r] * (((void)(i - r), ks_tw[4 + (0)][4 + ks_j + (-1 + -1 * ((r) - (1)))]) + ((void)(i + r), ks_tw[4 + (0)][4 + ks_j + (1 + 1 * ((r) - (1)))]) + ((void)(i - r * nx), ks_tw[4 + (-1 + -1 * ((r) - (1)))][4 + ks_j + (0)]) + ((void)(i + r * nx), ks_tw[4 + (1 + 1 * ((r) - (1)))][4 + ks_j + (0)]) +
				  ((void)(i - r * (size_t)nx * ny), ks_st_q(ks_q, 4 + (-1 + -1 * ((r) - (1))))) + ((void)(i + r * (size_t)nx * ny), ks_st_q(ks_q, 4 + (1 + 1 * ((r) - (1))))));
	((void)(i), ks_om |= 1u << ks_j, ks_ov[ks_j]) = acc;
}

/* 16x16 threads over the original grid's global indices (ks_og
   blocks of ks_ob threads), 64 steps along z; ks_I the offset type,
   ks_al: in and out are 16-byte aligned. */
template <class ks_I>
__global__ void __launch_bounds__(256, 3)
ks_st_stencil3d25_kernel(const dim3 ks_og, const dim3 ks_ob, const bool ks_al, const float *in, float *out, int nx, int ny, int nz)
{
	__shared__ __align__(16) float ks_t[2][24][40];
	const ks_I ks_sy = (ks_I)(((1LL * (long long)(nx)))), ks_sz = (ks_I)(((1LL * (long long)(nx) * (long long)(ny))));
	/* the elements the bounds checks span; the output's fixed offset */
	const ks_I ks_n = (ks_I)(((1LL * (long long)(nz)))) * ks_sz;
	const ks_I ks_c0 = (ks_I)0 + (ks_I)0 * ks_sy + (ks_I)0 * ks_sz;
	const unsigned ks_cx = ks_og.x * ks_ob.x, ks_cy = ks_og.y * ks_ob.y;
	const unsigned ks_x0 = blockIdx.x * 32u, ks_y0 = blockIdx.y * 16u;
	/* this thread's outputs: x = ks_gx + v, tile column ks_lx + v */
	const unsigned ks_gx = ks_x0 + 2 * threadIdx.x, ks_gy = ks_y0 + threadIdx.y;
	const int ks_lx = 2 * (int)threadIdx.x + 4, ks_ly = threadIdx.y + 4;
	const int ks_tid = threadIdx.y * 16 + threadIdx.x;
	const unsigned ks_ty = ks_gy % ks_ob.y, ks_by = ks_gy / ks_ob.y;
	const bool ks_mine = ks_gy < ks_cy;
	unsigned ks_tx[2], ks_bx[2];
	bool ks_mx[2];

#pragma unroll
	for (int ks_v = 0; ks_v < 2; ks_v++) {
		ks_tx[ks_v] = (ks_gx + ks_v) % ks_ob.x;
		ks_bx[ks_v] = (ks_gx + ks_v) / ks_ob.x;
		ks_mx[ks_v] = ks_gx + ks_v < ks_cx;
	}
	const long long ks_cs = (long long)ks_og.z * ks_ob.z;
	const long long ks_s0 = (long long)blockIdx.z * 64;
	if (ks_s0 >= ks_cs)
		return;
	const int ks_nst = (int)(ks_cs - ks_s0 < 64 ? ks_cs - ks_s0 : 64);
	unsigned ks_ts = (unsigned)(ks_s0 % ks_ob.z), ks_bs = (unsigned)(ks_s0 / ks_ob.z);
	/* the flat offsets of this thread's first column and of the tile's
	   cell (0, 0), at the first step */
	const ks_I ks_fc = ks_c0 + (ks_I)ks_gx + ks_sy * (ks_I)ks_gy + ks_sz * (ks_I)ks_s0;
	const ks_I ks_o0 = ks_c0 + (ks_I)ks_x0 - 4 + ks_sy * ((ks_I)ks_y0 - 4) + ks_sz * (ks_I)ks_s0;
	/* the ring: slot (k + 4) % 12 holds the 2 columns at step k */
	ks_st_v2<float> ks_q[12];
	/* this thread's halo vectors: buffer cell (-1: none), flat offset
	   at the first step, the value of step k in stage k % 2 */
	int ks_hs[1];
	ks_I ks_ho[1];
	ks_st_v2<float> ks_h[2][1];

#pragma unroll
	for (int ks_s = 0; ks_s < 1; ks_s++) {
		const int ks_c = ks_tid + ks_s * 256;
		int ks_r, ks_cv;

		if (ks_c < 64) {
			ks_r = ks_c / 16;
			ks_cv = 2 + ks_c % 16;
		} else if (ks_c < 128) {
			ks_r = 20 + (ks_c - 64) / 16;
			ks_cv = 2 + (ks_c - 64) % 16;
		} else {
			const int ks_e = (ks_c - 128) % 4;

			ks_r = 4 + (ks_c - 128) / 4;
			ks_cv = ks_e < 2 ? ks_e : 16 + ks_e;
		}
		ks_hs[ks_s] = ks_c < 192 ? ks_r * 40 + 2 * ks_cv : -1;
		ks_ho[ks_s] = ks_o0 + (ks_I)(2 * ks_cv) + ks_sy * (ks_I)ks_r;
	}
	/* the column and the halos of the first 2 steps; then each
	   step's loads are in flight during the next 2 steps' bodies */
#pragma unroll
	for (int ks_j = 0; ks_j < 10; ks_j++)
		ks_q[ks_j] = ks_st_ld2(in, ks_fc + ks_sz * (ks_I)(ks_j - 4), ks_n, ks_al);
#pragma unroll
	for (int ks_d = 0; ks_d < 2; ks_d++)
#pragma unroll
		for (int ks_s = 0; ks_s < 1; ks_s++)
			if (ks_hs[ks_s] >= 0)
				ks_h[ks_d][ks_s] = ks_st_ld2(in, ks_ho[ks_s] + ks_sz * (ks_I)ks_d, ks_n, ks_al);
	for (int ks_k0 = 0; ks_k0 < ks_nst; ks_k0 += 12) {
#pragma unroll
		for (int ks_u = 0; ks_u < 12; ks_u++) {
			const int ks_k = ks_k0 + ks_u;
			float ks_tw[9][10];

			if (ks_k >= ks_nst)
				break;
			/* buffer ks_u % 2 was last read two steps ago, before the
			   last barrier */
			*reinterpret_cast<ks_st_v2<float> *>(&ks_t[ks_u % 2][ks_ly][ks_lx]) = ks_q[(ks_u + 4) % 12];
#pragma unroll
			for (int ks_s = 0; ks_s < 1; ks_s++)
				if (ks_hs[ks_s] >= 0)
					*reinterpret_cast<ks_st_v2<float> *>(&ks_t[ks_u % 2][0][0] + ks_hs[ks_s]) = ks_h[ks_u % 2][ks_s];
			__syncthreads();
			ks_q[(ks_u + 10) % 12] = ks_st_ld2(in, ks_fc + ks_sz * (ks_I)(ks_k + 6), ks_n, ks_al);
#pragma unroll
			for (int ks_s = 0; ks_s < 1; ks_s++)
				if (ks_hs[ks_s] >= 0)
					ks_h[ks_u % 2][ks_s] = ks_st_ld2(in, ks_ho[ks_s] + ks_sz * (ks_I)(ks_k + 2), ks_n, ks_al);
			/* the window: 10 columns of each row, ks_lx - 4 on */
#pragma unroll
			for (int ks_r = 0; ks_r < 9; ks_r++)
#pragma unroll
				for (int ks_c = 0; ks_c < 5; ks_c++) {
					const ks_st_v2<float> ks_e = *reinterpret_cast<const ks_st_v2<float> *>(
						&ks_t[ks_u % 2][ks_ly - 4 + ks_r][ks_lx - 4 + 2 * ks_c]);

#pragma unroll
					for (int ks_e4 = 0; ks_e4 < 2; ks_e4++)
						ks_tw[ks_r][2 * ks_c + ks_e4] = ks_e.v[ks_e4];
				}
			ks_st_v2<float> ks_o;
			unsigned ks_om = 0;

#pragma unroll
			for (int ks_v = 0; ks_v < 2; ks_v++) {
				float ks_w[9];

#pragma unroll
				for (int ks_j = 0; ks_j < 9; ks_j++)
					ks_w[ks_j] = ks_q[(ks_u + ks_j) % 12].v[ks_v];
				if (ks_mx[ks_v] && ks_mine)
					ks_st_body_stencil3d25_kernel(make_uint3(ks_tx[ks_v], ks_ty, ks_ts),
						make_uint3(ks_bx[ks_v], ks_by, ks_bs), ks_ob, ks_og, ks_tw,
						ks_v, ks_w, ks_o.v, ks_om, in, out, nx, ny, nz);
			}
			/* the outputs the bodies wrote: one vector when all 2 */
			if (ks_om) {
				const ks_I ks_fo = ks_fc + ks_sz * (ks_I)ks_k;

				if (ks_om == 3u && ks_al && (ks_fo & 1) == 0) {
					*reinterpret_cast<ks_st_v2<float> *>(out + ks_fo) = ks_o;
				} else {
#pragma unroll
					for (int ks_v = 0; ks_v < 2; ks_v++)
						if (ks_om >> ks_v & 1u)
							out[ks_fo + ks_v] = ks_o.v[ks_v];
				}
			}
			if (++ks_ts == ks_ob.z) {
				ks_ts = 0;
				ks_bs++;
			}
		}
	}
}
/* both offset types in the device code (the launcher that names
   them is host code only) */
template __global__ void ks_st_stencil3d25_kernel<int>(const dim3, const dim3, const bool, const float *in, float *out, int nx, int ny, int nz);
template __global__ void ks_st_stencil3d25_kernel<long long>(const dim3, const dim3, const bool, const float *in, float *out, int nx, int ny, int nz);
// ks-nvcc: definition
__global__ void
stencil3d25_kernel(const float *in, float *out, int nx, int ny, int nz)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	int z = blockIdx.z * blockDim.z + threadIdx.z;
	if (x >= nx || y >= ny || z >= nz)
		return;
	size_t i = ((size_t)z * ny + y) * nx + x;
	if (x < STENCIL_R || y < STENCIL_R || z < STENCIL_R || x >= nx - STENCIL_R ||
	    y >= ny - STENCIL_R || z >= nz - STENCIL_R) {
		out[i] = in[i];
		return;
	}
	float acc = coef[0] * in[i];
	for (int r = 1; r <= STENCIL_R; r++)
		acc += coef[r] * (in[i - r] + in[i + r] + in[i - r * nx] + in[i + r * nx] +
				  in[i - r * (size_t)nx * ny] + in[i + r * (size_t)nx * ny]);
	out[i] = acc;
}
// ks-nvcc: launcher
static void
ks_launch_stencil3d25_kernel(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
		const float *in, float *out, int nx, int ny, int nz)
{
	const unsigned long long ks_nx = (unsigned long long)grid.x * block.x;
	const unsigned long long ks_ny = (unsigned long long)grid.y * block.y;
	const unsigned long long ks_nz = (unsigned long long)grid.z * block.z;
	const long long ks_sy = ((1LL * (long long)(nx))), ks_sz = ((1LL * (long long)(nx) * (long long)(ny)));
	const long long ks_c0 = 0LL + 0LL * ks_sy + 0LL * ks_sz;

	/* a grid the threads cannot cover: the original */
	if (!ks_nx || !ks_ny || !ks_nz || ks_nx > 0xffffff00ull ||
	    ks_ny > 65535ull * 16 || ks_nz > 65535ull * 64) {
		stencil3d25_kernel<<<grid, block, shmem, stream>>>(in, out, nx, ny, nz);
		return;
	}
	const dim3 ks_g((unsigned)((ks_nx + 31) / 32), (unsigned)((ks_ny + 15) / 16),
			 (unsigned)((ks_nz + 63) / 64));
	/* the largest flat offset a thread forms (the n of its checks too) */
	const long long ks_hi = llabs(ks_c0) + (long long)ks_nx + 40 +
		llabs(ks_sy) * ((long long)ks_ny + 20) + llabs(ks_sz) * ((long long)ks_nz + 70);
	const long long ks_n = (long long)(((1LL * (long long)(nz)))) * ks_sz;
	const bool ks_al = ((unsigned long long)(const void *)in |
			     (unsigned long long)(const void *)out) % 16 == 0;

	if (ks_hi < 0x7fffffffLL && ks_n >= 0 && ks_n < 0x7fffffffLL)
		ks_st_stencil3d25_kernel<int><<<ks_g, dim3(16, 16), 0, stream>>>(grid, block, ks_al, in, out, nx, ny, nz);
	else
		ks_st_stencil3d25_kernel<long long><<<ks_g, dim3(16, 16), 0, stream>>>(grid, block, ks_al, in, out, nx, ny, nz);
}
