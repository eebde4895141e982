/* ks-nvcc: verified variants replace jacobi2d_kernel (arch 900); see docs/REWRITE.md */
#line 1 "/work/main/bench/jacobi2d/main.cu"
// jacobi2d: one sweep of the 2-D Jacobi iteration for the Laplace equation,
// 5-point stencil, fixed boundary: a 16384 x 8192 grid of floats in
// (512 MiB) and out. One thread per grid point, 16x16 threads per block;
// boundary points copy their input.
// Vendor: none (the toolkit's libraries have no stencils).
#include "bench.h"
#include "ref.h"

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 3 "/tmp/ks-bench/jacobi2d/ks-no-long-term-memory/tasks/_Z15jacobi2d_kernelPKfPfii/r18.variant.cu"
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

/* The body of jacobi2d_kernel at thread ks_tid of block ks_bid, its reads of in in the plane
   from the tile at (ks_lx, ks_ly), along y from the column ks_q (ks_q[1] the output's own). */
__device__ __forceinline__ static void
ks_st_body_jacobi2d_kernel(const uint3 ks_tid, const uint3 ks_bid, const dim3 ks_bdim, const dim3 ks_gdim,
	const float (*ks_t)[34], const int ks_lx, const int ks_ly, const float (&ks_q)[3], const float *in, float *out, int nx, int ny)
{
	int x = ks_bid.x * ks_bdim.x + ks_tid.x;
	int y = ks_bid.y * ks_bdim.y + ks_tid.y;
	if (x >= nx || y >= ny)
		return;
	size_t i = (size_t)y * nx + x;
	if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
		out[i] = ((void)(i), ks_st_q(ks_q, 1 + (0)));
		return;
	}
	out[i] = 0.25f * (((void)(i - 1), ks_t[ks_ly + (0)][ks_lx + (-1)]) + ((void)(i + 1), ks_t[ks_ly + (0)][ks_lx + (1)]) + ((void)(i - nx), ks_st_q(ks_q, 1 + (-1))) + ((void)(i + nx), ks_st_q(ks_q, 1 + (1))));
}

/* 32x8 threads over the original grid's global indices (ks_og
   blocks of ks_ob threads), 64 steps along y; ks_I the offset type. */
#endif
#line 79 "/tmp/ks-bench/jacobi2d/ks-no-long-term-memory/tasks/_Z15jacobi2d_kernelPKfPfii/r18.variant.cu"
template <class ks_I>
__global__ void __launch_bounds__(256, 6)
ks_st_jacobi2d_kernel(const dim3 ks_og, const dim3 ks_ob, const float *in, float *out, int nx, int ny)
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 82 "/tmp/ks-bench/jacobi2d/ks-no-long-term-memory/tasks/_Z15jacobi2d_kernelPKfPfii/r18.variant.cu"
{
	__shared__ float ks_t[2][8][34];
	const ks_I ks_sy = (ks_I)(((1LL * (long long)(nx)))), ks_sz = (ks_I)(0LL);
	/* the elements the bounds checks span; the output's fixed offset */
	const ks_I ks_n = (ks_I)(((1LL * (long long)(ny)))) * ks_sy;
	const ks_I ks_c0 = (ks_I)0 + (ks_I)0 * ks_sy + (ks_I)0 * ks_sz;
	const unsigned ks_cx = ks_og.x * ks_ob.x, ks_cy = ks_og.y * ks_ob.y;
	const unsigned ks_x0 = blockIdx.x * 32u;
	/* this thread's columns: x = ks_gx + v * 32, tile column ks_lx + v * 32 */
	const unsigned ks_gx = ks_x0 + threadIdx.x;
	const int ks_lx = threadIdx.x + 1;
	const int ks_tid = threadIdx.y * 32 + threadIdx.x;
	unsigned ks_tx[1], ks_bx[1];
	bool ks_mx[1];

	(void)ks_tid;
#pragma unroll
	for (int ks_v = 0; ks_v < 1; ks_v++) {
		ks_tx[ks_v] = (ks_gx + ks_v * 32u) % ks_ob.x;
		ks_bx[ks_v] = (ks_gx + ks_v * 32u) / ks_ob.x;
		ks_mx[ks_v] = ks_gx + ks_v * 32u < ks_cx;
	}
	const int ks_ly = threadIdx.y;
	const bool ks_mine = true;
	const long long ks_cs = ks_cy;
	/* this thread row's first step; the block's (its first row's) */
	const long long ks_s0 = ((long long)blockIdx.y * 8 + threadIdx.y) * 64;
	const long long ks_sb = (long long)blockIdx.y * 512;
	const ks_I ks_ss = ks_sy;
	const unsigned ks_os = ks_ob.y;
	/* the flat offsets of this thread's column and of its row's
	   cell 0, at the first step */
	const ks_I ks_fc = ks_c0 + (ks_I)ks_gx + ks_ss * (ks_I)ks_s0;
	const ks_I ks_o0 = ks_c0 + (ks_I)ks_x0 - 1 + ks_ss * (ks_I)ks_s0;

	(void)ks_sz;
	(void)ks_cy;
	if (ks_sb >= ks_cs)
		return;
	/* the steps of the block, and of this thread (a uniform count) */
	const int ks_nst = (int)(ks_cs - ks_sb < 64 ? ks_cs - ks_sb : 64);
	const int ks_kend = ks_s0 >= ks_cs ? 0 : (int)(ks_cs - ks_s0 < 64 ? ks_cs - ks_s0 : 64);
	unsigned ks_ts = (unsigned)(ks_s0 % ks_os), ks_bs = (unsigned)(ks_s0 / ks_os);
	/* the ring: slot (k + 1) % 8 holds the column at step k */
	float ks_q[1][8];
	/* this thread's halo cells: buffer cell (-1: none), flat offset at
	   the first step, the value of step k in stage k % 4 */
	int ks_hs[1];
	ks_I ks_ho[1];
	float ks_h[4][1];

	ks_hs[0] = (int)threadIdx.x < 2 ? ks_ly * 34 + ((int)threadIdx.x < 1 ? (int)threadIdx.x : 32 + (int)threadIdx.x) : -1;
	ks_ho[0] = ks_o0 + (ks_I)(ks_hs[0] - ks_ly * 34);
	/* the column and the halos of the first 4 steps; then each
	   step's loads are in flight during the next 4 steps' bodies */
#pragma unroll
	for (int ks_v = 0; ks_v < 1; ks_v++)
#pragma unroll
		for (int ks_j = 0; ks_j < 6; ks_j++)
			ks_q[ks_v][ks_j] = ks_st_ld(in, ks_fc + (ks_I)(ks_v * 32) + ks_ss * (ks_I)(ks_j - 1), ks_n);
#pragma unroll
	for (int ks_d = 0; ks_d < 4; ks_d++)
#pragma unroll
		for (int ks_s = 0; ks_s < 1; ks_s++)
			ks_h[ks_d][ks_s] = ks_hs[ks_s] >= 0 ? ks_st_ld(in, ks_ho[ks_s] + ks_ss * (ks_I)ks_d, ks_n) : float(0);
	for (int ks_k0 = 0; ks_k0 < ks_nst; ks_k0 += 8) {
#pragma unroll
		for (int ks_u = 0; ks_u < 8; ks_u++) {
			const int ks_k = ks_k0 + ks_u;
			float ks_w[3];

			if (ks_k >= ks_nst)
				break;
			/* buffer ks_u % 2 was last read two steps ago, before the
			   last barrier */
#pragma unroll
			for (int ks_v = 0; ks_v < 1; ks_v++)
				ks_t[ks_u % 2][ks_ly][ks_lx + ks_v * 32] = ks_q[ks_v][(ks_u + 1) % 8];
#pragma unroll
			for (int ks_s = 0; ks_s < 1; ks_s++)
				if (ks_hs[ks_s] >= 0)
					(&ks_t[ks_u % 2][0][0])[ks_hs[ks_s]] = ks_h[ks_u % 4][ks_s];
			__syncwarp();
#pragma unroll
			for (int ks_v = 0; ks_v < 1; ks_v++)
				ks_q[ks_v][(ks_u + 6) % 8] = ks_st_ld(in, ks_fc + (ks_I)(ks_v * 32) + ks_ss * (ks_I)(ks_k + 5), ks_n);
#pragma unroll
			for (int ks_s = 0; ks_s < 1; ks_s++)
				ks_h[ks_u % 4][ks_s] = ks_hs[ks_s] >= 0 ? ks_st_ld(in, ks_ho[ks_s] + ks_ss * (ks_I)(ks_k + 4), ks_n) : float(0);
#pragma unroll
			for (int ks_v = 0; ks_v < 1; ks_v++) {
#pragma unroll
				for (int ks_j = 0; ks_j < 3; ks_j++)
					ks_w[ks_j] = ks_q[ks_v][(ks_u + ks_j) % 8];
				if (ks_mx[ks_v] && ks_mine && ks_k < ks_kend)
					ks_st_body_jacobi2d_kernel(make_uint3(ks_tx[ks_v], ks_ts, 0),
						make_uint3(ks_bx[ks_v], ks_bs, 0), ks_ob, ks_og, ks_t[ks_u % 2],
						ks_lx + ks_v * 32, ks_ly, ks_w, in, out, nx, ny);
			}
			if (++ks_ts == ks_os) {
				ks_ts = 0;
				ks_bs++;
			}
		}
	}
}
#else
{}
#endif
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 188 "/tmp/ks-bench/jacobi2d/ks-no-long-term-memory/tasks/_Z15jacobi2d_kernelPKfPfii/r18.variant.cu"
/* both offset types in the device code (the launcher that names
   them is host code only) */
#endif
#line 190 "/tmp/ks-bench/jacobi2d/ks-no-long-term-memory/tasks/_Z15jacobi2d_kernelPKfPfii/r18.variant.cu"
template __global__ void ks_st_jacobi2d_kernel<int>(const dim3, const dim3, const float *in, float *out, int nx, int ny);
#line 191 "/tmp/ks-bench/jacobi2d/ks-no-long-term-memory/tasks/_Z15jacobi2d_kernelPKfPfii/r18.variant.cu"
template __global__ void ks_st_jacobi2d_kernel<long long>(const dim3, const dim3, const float *in, float *out, int nx, int ny);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900
#line 193 "/tmp/ks-bench/jacobi2d/ks-no-long-term-memory/tasks/_Z15jacobi2d_kernelPKfPfii/r18.variant.cu"
__global__ void
jacobi2d_kernel(const float *in, float *out, int nx, int ny)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	if (x >= nx || y >= ny)
		return;
	size_t i = (size_t)y * nx + x;
	if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
		out[i] = in[i];
		return;
	}
	out[i] = 0.25f * (in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx]);
}
#else
#line 9 "/work/main/bench/jacobi2d/main.cu"
__global__ void
jacobi2d_kernel(const float *in, float *out, int nx, int ny)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	if (x >= nx || y >= ny)
		return;
	size_t i = (size_t)y * nx + x;
	if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
		out[i] = in[i];
		return;
	}
	out[i] = 0.25f * (in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx]);
}
#endif
#line 1 "<ks-nvcc>"
/* Never launched: cudaFuncGetAttributes on it tells which image
   of this file the device runs (__CUDA_ARCH__ is ptxVersion
   times 10). */
static __global__ void ks_probe_jacobi2d_kernel(void) {}
#ifndef __CUDA_ARCH__
/* 1 when the device code that runs is the variant's (arch 900):
   then its launcher must run. Cached per device. */
static int
ks_variant_active_jacobi2d_kernel(void)
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
	if (cudaFuncGetAttributes(&ks_attr, ks_probe_jacobi2d_kernel) != cudaSuccess)
		return 0;
	ks_on = ks_attr.ptxVersion == 90;
	if (ks_dev >= 0)
		__atomic_store_n(&ks_known[ks_dev], ks_on ? 1 : 2,
				 __ATOMIC_RELAXED);
	return ks_on;
}
#line 208 "/tmp/ks-bench/jacobi2d/ks-no-long-term-memory/tasks/_Z15jacobi2d_kernelPKfPfii/r18.variant.cu"
static void
ks_launch_jacobi2d_kernel(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
		const float *in, float *out, int nx, int ny)
{
	const unsigned long long ks_nx = (unsigned long long)grid.x * block.x;
	const unsigned long long ks_ny = (unsigned long long)grid.y * block.y;
	const unsigned long long ks_nz = (unsigned long long)grid.z * block.z;
	const long long ks_sy = ((1LL * (long long)(nx))), ks_sz = 0LL;
	const long long ks_ss = ks_sy;
	const long long ks_c0 = 0LL + 0LL * ks_sy + 0LL * ks_sz;

	/* a grid the threads cannot cover, or layers in z: the original */
	if (!ks_nx || !ks_ny || ks_nz != 1 || ks_nx > 0xffffff00ull ||
	    ks_ny > 0xffffff00ull || (ks_ny + 511) / 512 > 65535ull) {
		jacobi2d_kernel<<<grid, block, shmem, stream>>>(in, out, nx, ny);
		return;
	}
	const dim3 ks_g((unsigned)((ks_nx + 31) / 32), (unsigned)((ks_ny + 511) / 512));
	/* the largest flat offset a thread forms (the n of its checks too) */
	const long long ks_hi = llabs(ks_c0) + (long long)ks_nx + 33 +
		llabs(ks_ss) * ((long long)ks_ny + 517);

	(void)ks_sz;
	const long long ks_n = (long long)(((1LL * (long long)(ny)))) * ks_ss;

	if (ks_hi < 0x7fffffffLL && ks_n >= 0 && ks_n < 0x7fffffffLL)
		ks_st_jacobi2d_kernel<int><<<ks_g, dim3(32, 8), 0, stream>>>(grid, block, in, out, nx, ny);
	else
		ks_st_jacobi2d_kernel<long long><<<ks_g, dim3(32, 8), 0, stream>>>(grid, block, in, out, nx, ny);
}
#endif
#line 22 "/work/main/bench/jacobi2d/main.cu"
 

int
main(int argc, char **argv)
{
	bench_init("jacobi2d", argc, argv);
	// Small: sides that are not multiples of the 16x16 block.
	const int nx = bench_small() ? 37 : 16384;
	const int ny = bench_small() ? 23 : 8192;
	const size_t n = (size_t)nx * ny;

	std::vector<float> hin(n);
	bench_fill(hin, 701, -1.0f, 1.0f);
	std::vector<float> want(n);
	jacobi2d_ref(hin.data(), want.data(), nx, ny);

	float *din = bench_to_device(hin);
	float *dout = nullptr;
	BENCH_CK(cudaMalloc(&dout, n * sizeof(float)));
	// All-ones bytes are a NaN: a point the kernel misses fails the check.
	BENCH_CK(cudaMemset(dout, 0xff, n * sizeof(float)));

	const dim3 block(16, 16);
	const dim3 grid((nx + 15) / 16, (ny + 15) / 16);
	auto launch = [&]() { 
#ifdef __CUDA_ARCH__
#line 46 "/work/main/bench/jacobi2d/main.cu"
	                      jacobi2d_kernel<<<grid, block>>>(din, dout, nx, ny)
#else
#line 46 "/work/main/bench/jacobi2d/main.cu"
	                      (ks_variant_active_jacobi2d_kernel() ? ks_launch_jacobi2d_kernel(grid, block, 0, cudaStream_t(), din, dout, nx, ny) : (void)(
#line 46 "/work/main/bench/jacobi2d/main.cu"
	                      jacobi2d_kernel<<<grid, block>>>(din, dout, nx, ny)))
#endif
#line 46 "/work/main/bench/jacobi2d/main.cu"
	                                                                         ; };

	// The reference computes in float in the kernel's order (no product to
	// contract into an FMA): every point must match exactly.
	launch();
	BENCH_CK(cudaGetLastError());
	BENCH_CK(cudaDeviceSynchronize());
	std::vector<float> got = bench_to_host(dout, n);
	bool ok = bench_check("jacobi2d", got.data(), want.data(), n, 0.0, 0.0);

	// Minimum: read in once, write out once. Flops: 3 adds and 1 multiply
	// per interior point (boundary points are copies).
	bench_stats st = bench_time(launch);
	const double interior = (double)(nx - 2) * (ny - 2);
	bench_report("jacobi2d", "naive", st, 2.0 * sizeof(float) * (double)n, 4.0 * interior);

	got = bench_to_host(dout, n);
	ok = bench_check("jacobi2d after timing", got.data(), want.data(), n, 0.0, 0.0) && ok;

	BENCH_CK(cudaFree(din));
	BENCH_CK(cudaFree(dout));
	return bench_finish(ok);
}
