// conv2d_kernel: cooperative rows, 128 threads per row, 1 row per block (coop_rows)
// row cache: none (a block per row)
// ks-nvcc: helpers
// The original kernel, for launches whose geometry the variant does not take.
__global__ void
ks_rows_orig_conv2d_kernel(const float *x, const float *w, const float *b, float *y,
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
// ks-nvcc: definition
__global__ void
__launch_bounds__(128) conv2d_kernel(const float *x, const float *w, const float *b, float *y,
	      int C, int H, int W, int K)
{
	const unsigned ks_lane = threadIdx.x % 128;
	const uint3 ks_tid = make_uint3(blockIdx.z * 1 + threadIdx.x / 128, 0, 0);
	const uint3 ks_bid = make_uint3(blockIdx.x, blockIdx.y, 0);
	const dim3 ks_bdim(gridDim.z * 1, 1, 1);

	int ox = ks_bid.x * ks_bdim.x + ks_tid.x;
	int oy = ks_bid.y * ks_bdim.y + ks_tid.y;
	int n = ks_bid.z / K;
	int k = ks_bid.z % K;
	if (ox >= W || oy >= H)
		return;
	float acc = b[k];
	for (int c = 0; c < C; c++)
		for (int r = 0; r < 3; r++) {
			int iy = oy + r - 1;
			if (iy < 0 || iy >= H)
				continue;
			{
				decltype(acc) ks_r0 = acc;
				acc = (decltype(acc))0;
#pragma unroll 4
				for (int q = (0) + (int)ks_lane; q < 3; q += 128) {
					int ix = ox + q - 1;
					if (ix < 0 || ix >= W)
						continue;
					acc += x[(((size_t)n * C + c) * H + iy) * W + ix] *
					       w[((k * C + c) * 3 + r) * 3 + q];
				}
				for (int ks_o = 16; ks_o > 0; ks_o >>= 1) {
					acc += __shfl_xor_sync(0xffffffffu, acc, ks_o);
				}
				{
					__shared__ decltype(acc) ks_sv[4];
					if ((ks_lane & 31) == 0) {
						ks_sv[ks_lane >> 5] = acc;
					}
					__syncthreads();
					acc = ks_sv[0];
					for (int ks_w = 1; ks_w < 4; ks_w++) {
						acc += ks_sv[ks_w];
					}
					__syncthreads();
				}
				acc = ks_r0 + acc;
			}
		}
	if (ks_lane == 0) {
		y[(((size_t)n * K + k) * H + oy) * W + ox] = acc;
	}
}
// ks-nvcc: launcher
static void
ks_launch_conv2d_kernel(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
		const float *x, const float *w, const float *b, float *y,
	      int C, int H, int W, int K)
{
	/* one original thread becomes 128; the original block's
	   x extent goes to gridDim.z */
	if (block.y == 1 && block.z == 1 && grid.z == 1 &&
	    block.x % 1 == 0 && block.x / 1 <= 65535) {
		conv2d_kernel<<<dim3(grid.x, grid.y, block.x / 1), 128, shmem, stream>>>(x, w, b, y, C, H, W, K);
		return;
	}
	ks_rows_orig_conv2d_kernel<<<grid, block, shmem, stream>>>(x, w, b, y, C, H, W, K);
}
