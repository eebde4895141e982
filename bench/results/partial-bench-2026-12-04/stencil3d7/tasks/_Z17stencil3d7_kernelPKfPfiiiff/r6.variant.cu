// stencil3d7_kernel: 3-D stencil of radius 1/1/1 streamed along z: 32x8 threads, each a column of 64 steps, its 3 values and 4 steps of loads ahead in registers, other reads global (stencil_smem_halo, stream=1)
// ks-nvcc: helpers
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

/* The body of stencil3d7_kernel at thread ks_tid of block ks_bid, its reads of in along z
   from the column ks_q (ks_q[1] the output's own). */
__device__ __forceinline__ static void
ks_st_body_stencil3d7_kernel(const uint3 ks_tid, const uint3 ks_bid, const dim3 ks_bdim, const dim3 ks_gdim,
	const float (&ks_q)[3], const float *in, float *out, int nx, int ny, int nz, float c0, float c1)
{
	int x = ks_bid.x * ks_bdim.x + ks_tid.x;
	int y = ks_bid.y * ks_bdim.y + ks_tid.y;
	int z = ks_bid.z * ks_bdim.z + ks_tid.z;
	if (x >= nx || y >= ny || z >= nz)
		return;
	size_t i = ((size_t)z * ny + y) * nx + x;
	if (x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1) {
		out[i] = ((void)(i), ks_st_q(ks_q, 1 + (0)));
		return;
	}
	out[i] = c0 * ((void)(i), ks_st_q(ks_q, 1 + (0))) + c1 * (in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx] +
				    ((void)(i - (size_t)nx * ny), ks_st_q(ks_q, 1 + (-1))) + ((void)(i + (size_t)nx * ny), ks_st_q(ks_q, 1 + (1))));
}

/* 32x8 threads over the original grid's global indices (ks_og
   blocks of ks_ob threads), each walking 64 steps along z. */
__global__ void __launch_bounds__(256, 6)
ks_st_stencil3d7_kernel(const dim3 ks_og, const dim3 ks_ob, const float *in, float *out, int nx, int ny, int nz, float c0, float c1)
{
	const long long ks_sy = ((1LL * (long long)(nx))), ks_sz = ((1LL * (long long)(nx) * (long long)(ny)));
	/* the elements the bounds checks span; the output's fixed offset */
	const long long ks_n = (long long)(((1LL * (long long)(nz)))) * ks_sz;
	const long long ks_c0 = 0LL + 0LL * ks_sy + 0LL * ks_sz;
	const unsigned ks_cx = ks_og.x * ks_ob.x, ks_cy = ks_og.y * ks_ob.y;
	/* this thread's 1 columns: x = ks_gx0 + ks_v * 32 */
	const unsigned ks_gx0 = blockIdx.x * 32u + threadIdx.x;
	unsigned ks_tx[1], ks_bx[1];
	bool ks_mine[1];
	long long ks_f[1];
	const unsigned ks_gy = blockIdx.y * 8u + threadIdx.y;
	const unsigned ks_ty = ks_gy % ks_ob.y, ks_by = ks_gy / ks_ob.y;
	const long long ks_cs = (long long)ks_og.z * ks_ob.z;
	const long long ks_s0 = (long long)blockIdx.z * 64;
	const long long ks_ss = ks_sz;
	const unsigned ks_os = ks_ob.z;

#pragma unroll
	for (int ks_v = 0; ks_v < 1; ks_v++) {
		const unsigned ks_gx = ks_gx0 + ks_v * 32u;

		ks_tx[ks_v] = ks_gx % ks_ob.x;
		ks_bx[ks_v] = ks_gx / ks_ob.x;
		ks_mine[ks_v] = ks_gx < ks_cx && ks_gy < ks_cy;
		ks_f[ks_v] = ks_c0 + (long long)ks_gx + ks_sy * ks_gy;
	}
	if (ks_s0 >= ks_cs)
		return;
	const long long ks_send = ks_s0 + 64 < ks_cs ? ks_s0 + 64 : ks_cs;
	unsigned ks_ts = (unsigned)(ks_s0 % ks_os), ks_bs = (unsigned)(ks_s0 / ks_os);
	/* the ring: slot (p - ks_s0 + 1) % 7 holds the column at step p */
	float ks_q[1][7];

#pragma unroll
	for (int ks_v = 0; ks_v < 1; ks_v++) {
#pragma unroll
		for (int ks_j = 0; ks_j < 6; ks_j++)
			ks_q[ks_v][ks_j] = ks_st_ld(in, ks_f[ks_v] + ks_ss * (ks_s0 - 1 + ks_j), ks_n);
		ks_q[ks_v][6] = float(0);
	}
	for (long long ks_s = ks_s0; ks_s < ks_send; ks_s += 7) {
#pragma unroll
		for (int ks_u = 0; ks_u < 7; ks_u++) {
			const long long ks_p = ks_s + ks_u;

			if (ks_p >= ks_send)
				break;
			/* 4 steps ahead: in flight during the next bodies */
#pragma unroll
			for (int ks_v = 0; ks_v < 1; ks_v++)
				ks_q[ks_v][(ks_u + 6) % 7] = ks_st_ld(in, ks_f[ks_v] + ks_ss * (ks_p + 5), ks_n);
			ks_st_pf(in, ks_f[0] + ks_ss * (ks_p + 5) - 1, ks_n);
			ks_st_pf(in, ks_f[0] + ks_ss * (ks_p + 5) + 1, ks_n);
#pragma unroll
			for (int ks_v = 0; ks_v < 1; ks_v++) {
				if (threadIdx.y < 1u)
					ks_st_pf(in, ks_f[ks_v] + ks_ss * (ks_p + 5) - 1 * ks_sy, ks_n);
				if (threadIdx.y + 1u >= 8u)
					ks_st_pf(in, ks_f[ks_v] + ks_ss * (ks_p + 5) + 1 * ks_sy, ks_n);
			}
#pragma unroll
			for (int ks_v = 0; ks_v < 1; ks_v++) {
				float ks_w[3];

#pragma unroll
				for (int ks_j = 0; ks_j < 3; ks_j++)
					ks_w[ks_j] = ks_q[ks_v][(ks_u + ks_j) % 7];
				if (ks_mine[ks_v])
					ks_st_body_stencil3d7_kernel(make_uint3(ks_tx[ks_v], ks_ty, ks_ts),
						make_uint3(ks_bx[ks_v], ks_by, ks_bs), ks_ob, ks_og, ks_w, in, out, nx, ny, nz, c0, c1);
			}
			if (++ks_ts == ks_os) {
				ks_ts = 0;
				ks_bs++;
			}
		}
	}
}
// ks-nvcc: definition
__global__ void
stencil3d7_kernel(const float *in, float *out, int nx, int ny, int nz, float c0, float c1)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	int z = blockIdx.z * blockDim.z + threadIdx.z;
	if (x >= nx || y >= ny || z >= nz)
		return;
	size_t i = ((size_t)z * ny + y) * nx + x;
	if (x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1) {
		out[i] = in[i];
		return;
	}
	out[i] = c0 * in[i] + c1 * (in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx] +
				    in[i - (size_t)nx * ny] + in[i + (size_t)nx * ny]);
}
// ks-nvcc: launcher
static void
ks_launch_stencil3d7_kernel(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
		const float *in, float *out, int nx, int ny, int nz, float c0, float c1)
{
	const unsigned long long ks_nx = (unsigned long long)grid.x * block.x;
	const unsigned long long ks_ny = (unsigned long long)grid.y * block.y;
	const unsigned long long ks_nz = (unsigned long long)grid.z * block.z;

	/* a grid the threads cannot cover: the original */
	if (!ks_nx || !ks_ny || !ks_nz || ks_nx > 0xffffff00ull ||
	    ks_ny > 65535ull * 8 || ks_nz > 65535ull * 64) {
		stencil3d7_kernel<<<grid, block, shmem, stream>>>(in, out, nx, ny, nz, c0, c1);
		return;
	}
	ks_st_stencil3d7_kernel<<<dim3((unsigned)((ks_nx + 31) / 32), (unsigned)((ks_ny + 7) / 8),
			     (unsigned)((ks_nz + 63) / 64)),
		   dim3(32, 8), 0, stream>>>(grid, block, in, out, nx, ny, nz, c0, c1);
}
