// rmsnorm_kernel: cooperative rows, 128 threads per row, 1 row per block (coop_rows)
// ks-nvcc: helpers
// The original kernel, for launches whose geometry the variant does not take.
__global__ void
ks_rows_orig_rmsnorm_kernel(const float *x, const float *w, float *y, int rows, int cols, float eps)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= rows)
		return;
	const float *xr = x + (size_t)row * cols;
	float *yr = y + (size_t)row * cols;
	float ss = 0.0f;
	for (int j = 0; j < cols; j++)
		ss += xr[j] * xr[j];
	float rinv = 1.0f / sqrtf(ss / cols + eps);
	for (int j = 0; j < cols; j++)
		yr[j] = xr[j] * rinv * w[j];
}
// ks-nvcc: definition
__global__ void
__launch_bounds__(128) rmsnorm_kernel(const float *x, const float *w, float *y, int rows, int cols, float eps)
{
	const unsigned ks_lane = threadIdx.x % 128;
	const uint3 ks_tid = make_uint3(blockIdx.z * 1 + threadIdx.x / 128, 0, 0);
	const uint3 ks_bid = make_uint3(blockIdx.x, blockIdx.y, 0);
	const dim3 ks_bdim(gridDim.z * 1, 1, 1);

	int row = ks_bid.x * ks_bdim.x + ks_tid.x;
	if (row >= rows)
		return;
	const float *xr = x + (size_t)row * cols;
	float *yr = y + (size_t)row * cols;
	float ss = 0.0f;
	{
		decltype(ss) ks_r0 = ss;
		ss = (decltype(ss))0;
#pragma unroll 4
		for (int j = (0) + (int)ks_lane; j < cols; j += 128)
			ss += xr[j] * xr[j];
		for (int ks_o = 16; ks_o > 0; ks_o >>= 1) {
			ss += __shfl_xor_sync(0xffffffffu, ss, ks_o);
		}
		{
			__shared__ decltype(ss) ks_sv[4];
			if ((ks_lane & 31) == 0) {
				ks_sv[ks_lane >> 5] = ss;
			}
			__syncthreads();
			ss = ks_sv[0];
			for (int ks_w = 1; ks_w < 4; ks_w++) {
				ss += ks_sv[ks_w];
			}
			__syncthreads();
		}
		ss = ks_r0 + ss;
	}
	float rinv = 1.0f / sqrtf(ss / cols + eps);
	{
#pragma unroll 4
		for (int j = (0) + (int)ks_lane; j < cols; j += 128)
			yr[j] = xr[j] * rinv * w[j];
	}
}
// ks-nvcc: launcher
static void
ks_launch_rmsnorm_kernel(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
		const float *x, const float *w, float *y, int rows, int cols, float eps)
{
	/* one original thread becomes 128; the original block's
	   x extent goes to gridDim.z */
	if (block.y == 1 && block.z == 1 && grid.z == 1 &&
	    block.x % 1 == 0 && block.x / 1 <= 65535) {
		rmsnorm_kernel<<<dim3(grid.x, grid.y, block.x / 1), 128, shmem, stream>>>(x, w, y, rows, cols, eps);
		return;
	}
	ks_rows_orig_rmsnorm_kernel<<<grid, block, shmem, stream>>>(x, w, y, rows, cols, eps);
}
