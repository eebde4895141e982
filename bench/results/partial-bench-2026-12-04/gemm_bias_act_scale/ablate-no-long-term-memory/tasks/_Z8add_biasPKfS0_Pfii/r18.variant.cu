// add_bias: its flat index's derived coordinates from a 2D grid of 32x8 blocks, no division (derived_grid)
// ks-nvcc: helpers
/* The body of add_bias at thread ks_tid of block ks_bid, its divisions read from the digits. */
__device__ __forceinline__ static void
ks_dg_body_add_bias(const uint3 ks_tid, const uint3 ks_bid, const dim3 ks_bdim, const dim3 ks_gdim, const unsigned long long ks_d0, const unsigned long long ks_q0, const float *C, const float *bias, float *Y, int M, int N)
{
	int i = ks_bid.x * ks_bdim.x + ks_tid.x;
	if (i < M * N)
		Y[i] = C[i] + bias[((decltype(i % N))((void)(i % N), ks_d0))];
}

/* D0 from x, the top from y; the original grid is ks_og blocks of ks_ob. */
__global__ void __launch_bounds__(256)
ks_dg_add_bias(const dim3 ks_og, const dim3 ks_ob, const unsigned long long ks_top, const unsigned ks_mg, const unsigned ks_s1,
	const unsigned ks_s2, const float *C, const float *bias, float *Y, int M, int N)
{
	const unsigned long long ks_n = (unsigned long long)ks_og.x * ks_ob.x;
	const unsigned long long ks_r0 = (unsigned long long)((1LL * (long long)(N)));
	const unsigned long long ks_d0 = (unsigned long long)blockIdx.x * 32u + threadIdx.x;

	if (ks_d0 >= ks_r0)
		return;
	for (unsigned long long ks_q0 = (unsigned long long)blockIdx.y * 8u + threadIdx.y;
	     ks_q0 < ks_top; ks_q0 += (unsigned long long)gridDim.y * 8u) {
		const unsigned long long ks_g = ks_d0 + ks_r0 * ks_q0;
		/* ks_g / ks_ob.x by its multiplier (Granlund-Montgomery) */
		const unsigned ks_h = __umulhi((unsigned)ks_g, ks_mg);
		const unsigned ks_b = (ks_h + (((unsigned)ks_g - ks_h) >> ks_s1)) >> ks_s2;

		if (ks_g >= ks_n)
			return;
		ks_dg_body_add_bias(make_uint3((unsigned)ks_g - ks_b * ks_ob.x, 0, 0),
			make_uint3(ks_b, 0, 0), ks_ob, ks_og, ks_d0, ks_q0, C, bias, Y, M, N);
	}
}
// ks-nvcc: definition
__global__ void
add_bias(const float *C, const float *bias, float *Y, int M, int N)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < M * N)
		Y[i] = C[i] + bias[i % N];
}
// ks-nvcc: launcher
static void
ks_launch_add_bias(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
		const float *C, const float *bias, float *Y, int M, int N)
{
	const dim3 ks_ob = block, ks_og = grid;
	const unsigned long long ks_n = (unsigned long long)grid.x * block.x;
	const long long ks_r0 = ((1LL * (long long)(N)));
	const long long ks_r1 = 1LL;
	unsigned long long ks_top;
	unsigned ks_l = 0, ks_mg, ks_s1, ks_s2;

	(void)ks_ob;
	(void)ks_og;
	/* what the decomposition assumes, else the original */
	if (grid.y != 1 || grid.z != 1 || block.y != 1 || block.z != 1 ||
	    ks_n == 0 || ks_n > 0x7fffffffull || ks_r0 <= 0 || ks_r0 > 0x7fffffffLL ||
	    ks_r1 <= 0 || ks_r1 > 65535LL * 1) {
		add_bias<<<grid, block, shmem, stream>>>(C, bias, Y, M, N);
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
	ks_dg_add_bias<<<dim3((unsigned)((ks_r0 + 31) / 32),
			   (unsigned)((ks_top + 7) / 8 < 65535 ? (ks_top + 7) / 8 : 65535)),
		   dim3(32, 8), shmem, stream>>>(grid, block, ks_top, ks_mg, ks_s1, ks_s2, C, bias, Y, M, N);
}
