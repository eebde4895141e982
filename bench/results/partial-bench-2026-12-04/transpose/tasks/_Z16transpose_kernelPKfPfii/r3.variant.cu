// transpose_kernel: the permuted copy staged through a padded 64x64 shared tile, 64x8 threads, 2 tiles per block, blocks in groups of 8 columns (smem_tiled_transpose)
// ks-nvcc: helpers
#ifndef KS_XF_TILE_HELPERS
#define KS_XF_TILE_HELPERS
/* The load of the permuted array: in the load phase it reads memory
   and keeps the value in the tile, in the store phase it reads the
   tile. */
template <class T> struct ks_tile_in {
	const T *p;
	T *cell;
	int load;
	__device__ __forceinline__ T operator[](long long i) const
	{
		if (load) {
			const T v = p[i];

			*cell = v;
			return v;
		}
		return *cell;
	}
};
/* The store: done in the store phase only. */
template <class T> struct ks_tile_ref {
	T *a;
	int store;
	__device__ __forceinline__ void operator=(const T &v) const
	{
		if (store)
			*a = v;
	}
};
template <class T> struct ks_tile_out {
	T *p;
	int store;
	__device__ __forceinline__ ks_tile_ref<T> operator[](long long i) const
	{
		ks_tile_ref<T> r;

		r.a = p + i;
		r.store = store;
		return r;
	}
};
/* A body run once, in the load phase: loads read memory; the store
   records its value and address, stored later by the store phase. */
template <class T> struct ks_tile_ld {
	const T *p;
	__device__ __forceinline__ T operator[](long long i) const
	{
		return p[i];
	}
};
/* No recorded store: an index no array can have. */
#define KS_TILE_NONE (-0x7fffffffffffffffLL - 1)
template <class T> struct ks_tile_rref {
	long long i;
	T *v;
	long long *pi;
	__device__ __forceinline__ void operator=(const T &x) const
	{
		*v = x;
		*pi = i;
	}
};
template <class T> struct ks_tile_rec {
	T *v;
	long long *pi;
	__device__ __forceinline__ ks_tile_rref<T> operator[](long long i) const
	{
		ks_tile_rref<T> r;

		r.i = i;
		r.v = v;
		r.pi = pi;
		return r;
	}
};
#endif

/* The body of transpose_kernel at thread ks_tid of block ks_bid. */
__device__ __forceinline__ static void
ks_tile_body_transpose_kernel(const uint3 ks_tid, const uint3 ks_bid, const dim3 ks_bdim, const dim3 ks_gdim, ks_tile_in<float> x, ks_tile_out<float> y, int rows, int cols)
{
	int c = ks_bid.x * ks_bdim.x + ks_tid.x;
	int r = ks_bid.y * ks_bdim.y + ks_tid.y;
	if (r < rows && c < cols)
		y[(size_t)c * rows + r] = x[(size_t)r * cols + c];
}

/* Each block moves 2 64x64 tiles of the original grid's global
   indices (ks_og blocks of ks_ob threads), one above the other; the
   next tile's loads are in flight while the current one is stored. */
template <unsigned ks_OX, unsigned ks_OY, unsigned ks_OZ>
__global__ void __launch_bounds__(512, 2)
ks_tile_transpose_kernel(const dim3 ks_og, const dim3 ks_obr, const float *x, float *y, int rows, int cols)
{
	/* the original block's sides: constants in the instances the
	   launcher picks for the common shapes, so the coordinates the
	   body gets fold into its own index arithmetic */
	const dim3 ks_ob(ks_OX ? ks_OX : ks_obr.x, ks_OY ? ks_OY : ks_obr.y,
			 ks_OZ ? ks_OZ : ks_obr.z);
	__shared__ float ks_t[64][65];
	const float *const ks_L = x;
	float *const ks_S = y;
	const unsigned ks_nx = ks_og.x * ks_ob.x, ks_ny = ks_og.y * ks_ob.y;
	const unsigned ks_nz = ks_og.z * ks_ob.z;
	/* blocks in groups of 8 columns, one column of the group after
	   the other: the blocks in flight read and write regions longer
	   than one tile in both arrays (a permutation of the blocks) */
	const unsigned ks_bl = blockIdx.y * gridDim.x + blockIdx.x;
	const unsigned ks_gw = 8u * gridDim.y, ks_gi = ks_bl / ks_gw;
	const unsigned ks_g0 = ks_gi * 8u;
	const unsigned ks_gn = gridDim.x - ks_g0 < 8u ? gridDim.x - ks_g0 : 8u;
	const unsigned ks_gl = ks_bl - ks_gi * ks_gw;
	const unsigned ks_bx = ks_g0 + ks_gl % ks_gn, ks_by = ks_gl / ks_gn;
	const unsigned ks_xb = ks_bx * 64u;
	const unsigned ks_ta = ks_by * 2u;
	const unsigned ks_tn = (ks_ny + 63u) / 64u;
	const unsigned ks_te = ks_ta + 2u < ks_tn ? ks_ta + 2u : ks_tn;

	for (unsigned ks_z = blockIdx.z; ks_z < ks_nz; ks_z += gridDim.z) {
		const unsigned ks_tz = ks_z % ks_ob.z, ks_bz = ks_z / ks_ob.z;
		float ks_v[8] = {};

		{
			const unsigned ks_x0 = ks_xb, ks_y0 = ks_ta * 64u;

			/* load phase: threadIdx.x walks gx */
			const unsigned ks_gf = ks_x0 + threadIdx.x;
			const unsigned ks_tf = ks_gf % ks_ob.x, ks_bf = ks_gf / ks_ob.x;
			const unsigned ks_gm = ks_y0 + threadIdx.y;
			const unsigned ks_sq = 8u / ks_ob.y, ks_sr = 8u % ks_ob.y;
			unsigned ks_ts = ks_gm % ks_ob.y, ks_bs = ks_gm / ks_ob.y;

#pragma unroll
			for (unsigned ks_j = 0; ks_j < 64u; ks_j += 8u) {
				/* a block side known at compile time: its own
				   division, which folds into the body's index */
				const unsigned ks_tm = ks_OY ? (ks_gm + ks_j) % ks_ob.y : ks_ts;
				const unsigned ks_bm = ks_OY ? (ks_gm + ks_j) / ks_ob.y : ks_bs;

				if (ks_gf < ks_nx && ks_gm + ks_j < ks_ny) {
					ks_tile_in<float> ks_in = { ks_L, &ks_v[ks_j / 8u], 1 };
					ks_tile_out<float> ks_out = { ks_S, 0 };

					ks_tile_body_transpose_kernel(make_uint3(ks_tf, ks_tm, ks_tz),
						make_uint3(ks_bf, ks_bm, ks_bz), ks_ob, ks_og, ks_in, ks_out, rows, cols);
				}
				ks_ts += ks_sr;
				ks_bs += ks_sq;
				if (ks_ts >= ks_ob.y) {
					ks_ts -= ks_ob.y;
					ks_bs++;
				}
			}
		}
		for (unsigned ks_ty = ks_ta; ks_ty < ks_te; ks_ty++) {
#pragma unroll
			for (unsigned ks_j = 0; ks_j < 64u; ks_j += 8u) {
				ks_t[threadIdx.y + ks_j][threadIdx.x] = ks_v[ks_j / 8u];
			}
			__syncthreads();
			if (ks_ty + 1 < ks_te) {
				const unsigned ks_x0 = ks_xb, ks_y0 = (ks_ty + 1) * 64u;

			/* load phase: threadIdx.x walks gx */
			const unsigned ks_gf = ks_x0 + threadIdx.x;
			const unsigned ks_tf = ks_gf % ks_ob.x, ks_bf = ks_gf / ks_ob.x;
			const unsigned ks_gm = ks_y0 + threadIdx.y;
			const unsigned ks_sq = 8u / ks_ob.y, ks_sr = 8u % ks_ob.y;
			unsigned ks_ts = ks_gm % ks_ob.y, ks_bs = ks_gm / ks_ob.y;

#pragma unroll
			for (unsigned ks_j = 0; ks_j < 64u; ks_j += 8u) {
				/* a block side known at compile time: its own
				   division, which folds into the body's index */
				const unsigned ks_tm = ks_OY ? (ks_gm + ks_j) % ks_ob.y : ks_ts;
				const unsigned ks_bm = ks_OY ? (ks_gm + ks_j) / ks_ob.y : ks_bs;

				if (ks_gf < ks_nx && ks_gm + ks_j < ks_ny) {
					ks_tile_in<float> ks_in = { ks_L, &ks_v[ks_j / 8u], 1 };
					ks_tile_out<float> ks_out = { ks_S, 0 };

					ks_tile_body_transpose_kernel(make_uint3(ks_tf, ks_tm, ks_tz),
						make_uint3(ks_bf, ks_bm, ks_bz), ks_ob, ks_og, ks_in, ks_out, rows, cols);
				}
				ks_ts += ks_sr;
				ks_bs += ks_sq;
				if (ks_ts >= ks_ob.y) {
					ks_ts -= ks_ob.y;
					ks_bs++;
				}
			}
			}
			{
				const unsigned ks_x0 = ks_xb, ks_y0 = ks_ty * 64u;

			/* store phase: threadIdx.x walks gy */
			const unsigned ks_gf = ks_y0 + threadIdx.x;
			const unsigned ks_tf = ks_gf % ks_ob.y, ks_bf = ks_gf / ks_ob.y;
			const unsigned ks_gm = ks_x0 + threadIdx.y;
			const unsigned ks_sq = 8u / ks_ob.x, ks_sr = 8u % ks_ob.x;
			unsigned ks_ts = ks_gm % ks_ob.x, ks_bs = ks_gm / ks_ob.x;

#pragma unroll
			for (unsigned ks_j = 0; ks_j < 64u; ks_j += 8u) {
				/* a block side known at compile time: its own
				   division, which folds into the body's index */
				const unsigned ks_tm = ks_OX ? (ks_gm + ks_j) % ks_ob.x : ks_ts;
				const unsigned ks_bm = ks_OX ? (ks_gm + ks_j) / ks_ob.x : ks_bs;

				if (ks_gf < ks_ny && ks_gm + ks_j < ks_nx) {
					ks_tile_in<float> ks_in = { ks_L, &ks_t[threadIdx.x][threadIdx.y + ks_j], 0 };
					ks_tile_out<float> ks_out = { ks_S, 1 };

					ks_tile_body_transpose_kernel(make_uint3(ks_tm, ks_tf, ks_tz),
						make_uint3(ks_bm, ks_bf, ks_bz), ks_ob, ks_og, ks_in, ks_out, rows, cols);
				}
				ks_ts += ks_sr;
				ks_bs += ks_sq;
				if (ks_ts >= ks_ob.x) {
					ks_ts -= ks_ob.x;
					ks_bs++;
				}
			}
			}
			__syncthreads();
		}
	}
}
/* the instances in the device code (the launcher that names them
   is host code only) */
template __global__ void ks_tile_transpose_kernel<32u, 8u, 1u>(const dim3, const dim3, const float *x, float *y, int rows, int cols);
template __global__ void ks_tile_transpose_kernel<16u, 16u, 1u>(const dim3, const dim3, const float *x, float *y, int rows, int cols);
template __global__ void ks_tile_transpose_kernel<32u, 32u, 1u>(const dim3, const dim3, const float *x, float *y, int rows, int cols);
template __global__ void ks_tile_transpose_kernel<32u, 4u, 1u>(const dim3, const dim3, const float *x, float *y, int rows, int cols);
template __global__ void ks_tile_transpose_kernel<32u, 16u, 1u>(const dim3, const dim3, const float *x, float *y, int rows, int cols);
template __global__ void ks_tile_transpose_kernel<16u, 8u, 1u>(const dim3, const dim3, const float *x, float *y, int rows, int cols);
template __global__ void ks_tile_transpose_kernel<16u, 4u, 1u>(const dim3, const dim3, const float *x, float *y, int rows, int cols);
template __global__ void ks_tile_transpose_kernel<16u, 32u, 1u>(const dim3, const dim3, const float *x, float *y, int rows, int cols);
template __global__ void ks_tile_transpose_kernel<8u, 8u, 1u>(const dim3, const dim3, const float *x, float *y, int rows, int cols);
template __global__ void ks_tile_transpose_kernel<8u, 4u, 1u>(const dim3, const dim3, const float *x, float *y, int rows, int cols);
template __global__ void ks_tile_transpose_kernel<8u, 16u, 1u>(const dim3, const dim3, const float *x, float *y, int rows, int cols);
template __global__ void ks_tile_transpose_kernel<8u, 32u, 1u>(const dim3, const dim3, const float *x, float *y, int rows, int cols);
template __global__ void ks_tile_transpose_kernel<0u, 0u, 0u>(const dim3, const dim3, const float *x, float *y, int rows, int cols);
// ks-nvcc: definition
__global__ void
transpose_kernel(const float *x, float *y, int rows, int cols)
{
	int c = blockIdx.x * blockDim.x + threadIdx.x;
	int r = blockIdx.y * blockDim.y + threadIdx.y;
	if (r < rows && c < cols)
		y[(size_t)c * rows + r] = x[(size_t)r * cols + c];
}
// ks-nvcc: launcher
static void
ks_launch_transpose_kernel(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
		const float *x, float *y, int rows, int cols)
{
	const unsigned long long ks_nx = (unsigned long long)grid.x * block.x;
	const unsigned long long ks_ny = (unsigned long long)grid.y * block.y;
	const unsigned long long ks_nz = (unsigned long long)grid.z * block.z;

	/* sizes the tile grid cannot cover: the original */
	if (!ks_nx || !ks_ny || !ks_nz || ks_nx > 0xffffff00ull ||
	    ks_ny > 65535ull * 64 || ks_nz > 0xffffffffull ||
	    (ks_nx + 63) / 64 * ((ks_ny + 127) / 128) > 0xffffffffull) {
		transpose_kernel<<<grid, block, shmem, stream>>>(x, y, rows, cols);
		return;
	}
	const dim3 ks_g((unsigned)((ks_nx + 63) / 64), (unsigned)((ks_ny + 127) / 128),
			 (unsigned)(ks_nz < 65535 ? ks_nz : 65535));
	const dim3 ks_b(64, 8);

	if (block.x == 32u && block.y == 8u && block.z == 1u)
		ks_tile_transpose_kernel<32u, 8u, 1u><<<ks_g, ks_b, 0, stream>>>(grid, block, x, y, rows, cols);
	else if (block.x == 16u && block.y == 16u && block.z == 1u)
		ks_tile_transpose_kernel<16u, 16u, 1u><<<ks_g, ks_b, 0, stream>>>(grid, block, x, y, rows, cols);
	else if (block.x == 32u && block.y == 32u && block.z == 1u)
		ks_tile_transpose_kernel<32u, 32u, 1u><<<ks_g, ks_b, 0, stream>>>(grid, block, x, y, rows, cols);
	else if (block.x == 32u && block.y == 4u && block.z == 1u)
		ks_tile_transpose_kernel<32u, 4u, 1u><<<ks_g, ks_b, 0, stream>>>(grid, block, x, y, rows, cols);
	else if (block.x == 32u && block.y == 16u && block.z == 1u)
		ks_tile_transpose_kernel<32u, 16u, 1u><<<ks_g, ks_b, 0, stream>>>(grid, block, x, y, rows, cols);
	else if (block.x == 16u && block.y == 8u && block.z == 1u)
		ks_tile_transpose_kernel<16u, 8u, 1u><<<ks_g, ks_b, 0, stream>>>(grid, block, x, y, rows, cols);
	else if (block.x == 16u && block.y == 4u && block.z == 1u)
		ks_tile_transpose_kernel<16u, 4u, 1u><<<ks_g, ks_b, 0, stream>>>(grid, block, x, y, rows, cols);
	else if (block.x == 16u && block.y == 32u && block.z == 1u)
		ks_tile_transpose_kernel<16u, 32u, 1u><<<ks_g, ks_b, 0, stream>>>(grid, block, x, y, rows, cols);
	else if (block.x == 8u && block.y == 8u && block.z == 1u)
		ks_tile_transpose_kernel<8u, 8u, 1u><<<ks_g, ks_b, 0, stream>>>(grid, block, x, y, rows, cols);
	else if (block.x == 8u && block.y == 4u && block.z == 1u)
		ks_tile_transpose_kernel<8u, 4u, 1u><<<ks_g, ks_b, 0, stream>>>(grid, block, x, y, rows, cols);
	else if (block.x == 8u && block.y == 16u && block.z == 1u)
		ks_tile_transpose_kernel<8u, 16u, 1u><<<ks_g, ks_b, 0, stream>>>(grid, block, x, y, rows, cols);
	else if (block.x == 8u && block.y == 32u && block.z == 1u)
		ks_tile_transpose_kernel<8u, 32u, 1u><<<ks_g, ks_b, 0, stream>>>(grid, block, x, y, rows, cols);
	else
		ks_tile_transpose_kernel<0u, 0u, 0u><<<ks_g, ks_b, 0, stream>>>(grid, block, x, y, rows, cols);
}
