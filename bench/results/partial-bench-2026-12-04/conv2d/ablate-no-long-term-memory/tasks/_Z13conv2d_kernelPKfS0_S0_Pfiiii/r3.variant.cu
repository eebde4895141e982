// conv2d_kernel: launch_geometry block=512 waves=0 (builtin transform, arch 900)
// ks-nvcc: helpers
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

__global__ void __launch_bounds__(512)
ks_xf_conv2d_kernel(const float *x, const float *w, const float *b, float *y,
	      int C, int H, int W, int K, const dim3 ks_og, const dim3 ks_ob,
	const unsigned ks_mg, const unsigned ks_s1, const unsigned ks_s2)
{
	const unsigned long long ks_ng =
		(unsigned long long)ks_og.x * ks_ob.x / 1;
	const unsigned long long ks_s = (unsigned long long)gridDim.x * 512;

	for (unsigned long long ks_g0 = (unsigned long long)blockIdx.x * 512 + threadIdx.x;
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
// ks-nvcc: definition
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
// ks-nvcc: launcher
static void
ks_launch_conv2d_kernel(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
	const float *x, const float *w, const float *b, float *y,
	      int C, int H, int W, int K)
{
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
	ks_blocks = ((unsigned long long)grid.x * block.x / 1 + 512 - 1) / 512;
	if (ks_blocks > 0x7fffffffULL)
		ks_blocks = 0x7fffffffULL;
	(void)shmem;
	ks_xf_conv2d_kernel<<<(unsigned)ks_blocks, 512, 0, stream>>>(x, w, b, y, C, H, W, K, grid, block, ks_mg, ks_s1, ks_s2);
}
