// permute3d_kernel: vectorize_memory bytes=16 ilp=1 block=512 waves=0 (builtin transform, arch 900)
// group quotients: 1 division of the flat index, once per group of 4 (a divisor not a multiple of 4 runs the original)
// per lane: the remainder at line 16 is a remainder that differs between the lanes of a group
// ks-nvcc: helpers
static __device__ __forceinline__ void
ks_sb_permute3d_kernel(const uint3 threadIdx, const uint3 blockIdx, const dim3 blockDim,
	const dim3 gridDim,
	const float *x, float *y, int na, int nb, int nc)
{
	(void)threadIdx;
	(void)blockIdx;
	(void)blockDim;
	(void)gridDim;
	{
	size_t o = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (o >= (size_t)na * nb * nc)
		return;
	int b = (int)(o % nb);
	size_t t = o / nb;
	int a = (int)(t % na);
	int c = (int)(t / na);
	y[o] = x[((size_t)a * nb + b) * nc + c];
}
}

static __device__ __forceinline__ void
ks_vb_permute3d_kernel(const uint3 threadIdx, const uint3 blockIdx, const dim3 blockDim,
	const dim3 gridDim, const int ks_j, const unsigned ks_gq0, float *ks_v1,
	const float *x, float *y, int na, int nb, int nc)
{
	(void)threadIdx;
	(void)blockIdx;
	(void)blockDim;
	(void)gridDim;
	(void)ks_j;
	{
	size_t o = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if ((false && (o >= (size_t)na * nb * nc)))
		return;
	int b = (int)(o % nb);
	size_t t = ((decltype(o / nb))((void)(o / nb), ks_gq0));
	int a = (int)(t % na);
	int c = (int)(t / na);
	(ks_v1[ks_j]) = x[((size_t)a * nb + b) * nc + c];
}
}

struct __align__(16) ks_pk1_permute3d_kernel {
	float v[4];
};

/* Every bounds check of the kernel passes for the original thread
   (ks_bx, ks_tx), ks_i = ks_bx * blockDim.x + ks_tx. */
static __device__ __forceinline__ bool
ks_in_permute3d_kernel(const unsigned ks_i, const unsigned ks_tx, const unsigned ks_bx,
	const dim3 ks_ob, const dim3 ks_og,
	const float *x, float *y, int na, int nb, int nc)
{
	(void)ks_i;
	(void)ks_tx;
	(void)ks_bx;
	return !(((0LL) + (1LL) * (long long)ks_i) >= ((1LL * (long long)(na) * (long long)(nb) * (long long)(nc))));
}

__global__ void __launch_bounds__(512)
ks_xf_permute3d_kernel(const float *x, float *y, int na, int nb, int nc, const dim3 ks_og, const dim3 ks_ob,
	const unsigned ks_mg, const unsigned ks_s1, const unsigned ks_s2)
{
	const unsigned ks_ng =
		(unsigned)((unsigned long long)ks_og.x * ks_ob.x / 4);
	const unsigned ks_s = gridDim.x * 512;
	const unsigned ks_qd0 = (unsigned)((1LL * (long long)(nb)));

	for (unsigned ks_g0 = blockIdx.x * 512 + threadIdx.x;
	     ks_g0 < ks_ng; ks_g0 += 1 * ks_s) {
		ks_pk1_permute3d_kernel ks_v1[1];
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
				ks_in_permute3d_kernel(ks_t32, ks_tx, ks_bx, ks_ob, ks_og, x, y, na, nb, nc) &&
				ks_in_permute3d_kernel(ks_t32 + 3, ks_tx + 3, ks_bx, ks_ob, ks_og, x, y, na, nb, nc);
			if (!ks_full[ks_u])
				continue;
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
				const unsigned ks_gq0 = ks_t32 / ks_qd0;
#pragma unroll
				for (int ks_j = 0; ks_j < 4; ks_j++)
					ks_vb_permute3d_kernel(make_uint3(ks_tx + ks_j, 0, 0),
						make_uint3(ks_bx, 0, 0), ks_ob, ks_og, ks_j, ks_gq0, ks_v1[ks_u].v, x, y, na, nb, nc);
				*reinterpret_cast<ks_pk1_permute3d_kernel *>(y + ks_t) = ks_v1[ks_u];
			} else if (ks_g < ks_ng) {
				for (unsigned ks_j = 0; ks_j < 4; ks_j++)
					ks_sb_permute3d_kernel(make_uint3(ks_tx + ks_j, 0, 0),
						make_uint3(ks_bx, 0, 0), ks_ob, ks_og, x, y, na, nb, nc);
			}
		}
	}
}
// ks-nvcc: definition
__global__ void
permute3d_kernel(const float *x, float *y, int na, int nb, int nc)
{
	size_t o = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (o >= (size_t)na * nb * nc)
		return;
	int b = (int)(o % nb);
	size_t t = o / nb;
	int a = (int)(t % na);
	int c = (int)(t / na);
	y[o] = x[((size_t)a * nb + b) * nc + c];
}
// ks-nvcc: launcher
static void
ks_launch_permute3d_kernel(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
	const float *x, float *y, int na, int nb, int nc)
{
	const dim3 ks_ob = block, ks_og = grid;
	unsigned long long ks_blocks;
	unsigned ks_l = 0, ks_mg, ks_s1, ks_s2;

	(void)ks_ob;
	(void)ks_og;
	if (grid.x == 0 || grid.y != 1 || grid.z != 1 || block.y != 1 ||
	    block.z != 1 || block.x % 4 != 0 ||
	    (unsigned long long)grid.x * block.x > 0xfffff7ffULL ||
	    (unsigned long long)(const void *)y % 16 != 0 ||
	    ((1LL * (long long)(nb))) <= 0 || ((1LL * (long long)(nb))) > 0x7fffffffLL ||
	    ((1LL * (long long)(nb))) % 4 != 0) {
		/* a launch the variant does not cover: the original */
		permute3d_kernel<<<grid, block, shmem, stream>>>(x, y, na, nb, nc);
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
	ks_xf_permute3d_kernel<<<(unsigned)ks_blocks, 512, 0, stream>>>(x, y, na, nb, nc, grid, block, ks_mg, ks_s1, ks_s2);
}
