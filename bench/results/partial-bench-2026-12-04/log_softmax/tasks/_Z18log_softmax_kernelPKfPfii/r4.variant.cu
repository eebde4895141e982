// log_softmax_kernel: cooperative rows, 256 threads per row, 1 row per block (coop_rows)
// ks-nvcc: helpers
// The original kernel, for launches whose geometry the variant does not take.
__global__ void
ks_rows_orig_log_softmax_kernel(const float *x, float *y, int rows, int cols)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= rows)
		return;
	const float *xr = x + (size_t)row * cols;
	float *yr = y + (size_t)row * cols;
	float m = xr[0];
	for (int j = 1; j < cols; j++)
		m = fmaxf(m, xr[j]);
	float sum = 0.0f;
	for (int j = 0; j < cols; j++)
		sum += expf(xr[j] - m);
	float logsum = logf(sum);
	for (int j = 0; j < cols; j++)
		yr[j] = xr[j] - m - logsum;
}
// ks-nvcc: definition
__global__ void
__launch_bounds__(256) log_softmax_kernel(const float *x, float *y, int rows, int cols)
{
	const unsigned ks_lane = threadIdx.x % 256;
	const uint3 ks_tid = make_uint3(blockIdx.z * 1 + threadIdx.x / 256, 0, 0);
	const uint3 ks_bid = make_uint3(blockIdx.x, blockIdx.y, 0);
	const dim3 ks_bdim(gridDim.z * 1, 1, 1);

	int row = ks_bid.x * ks_bdim.x + ks_tid.x;
	if (row >= rows)
		return;
	const float *xr = x + (size_t)row * cols;
	float *yr = y + (size_t)row * cols;
	float m = xr[0];
	{
#pragma unroll 4
		for (int j = (1) + (int)ks_lane; j < cols; j += 256)
			m = fmaxf(m, xr[j]);
		for (int ks_o = 16; ks_o > 0; ks_o >>= 1) {
			m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, ks_o));
		}
		{
			__shared__ decltype(m) ks_sv[8];
			if ((ks_lane & 31) == 0) {
				ks_sv[ks_lane >> 5] = m;
			}
			__syncthreads();
			m = ks_sv[0];
			for (int ks_w = 1; ks_w < 8; ks_w++) {
				m = fmaxf(m, ks_sv[ks_w]);
			}
			__syncthreads();
		}
	}
	float sum = 0.0f;
	{
		decltype(sum) ks_r0 = sum;
		sum = (decltype(sum))0;
#pragma unroll 4
		for (int j = (0) + (int)ks_lane; j < cols; j += 256)
			sum += expf(xr[j] - m);
		for (int ks_o = 16; ks_o > 0; ks_o >>= 1) {
			sum += __shfl_xor_sync(0xffffffffu, sum, ks_o);
		}
		{
			__shared__ decltype(sum) ks_sv[8];
			if ((ks_lane & 31) == 0) {
				ks_sv[ks_lane >> 5] = sum;
			}
			__syncthreads();
			sum = ks_sv[0];
			for (int ks_w = 1; ks_w < 8; ks_w++) {
				sum += ks_sv[ks_w];
			}
			__syncthreads();
		}
		sum = ks_r0 + sum;
	}
	float logsum = logf(sum);
	{
#pragma unroll 4
		for (int j = (0) + (int)ks_lane; j < cols; j += 256)
			yr[j] = xr[j] - m - logsum;
	}
}
// ks-nvcc: launcher
static void
ks_launch_log_softmax_kernel(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
		const float *x, float *y, int rows, int cols)
{
	/* one original thread becomes 256; the original block's
	   x extent goes to gridDim.z */
	if (block.y == 1 && block.z == 1 && grid.z == 1 &&
	    block.x % 1 == 0 && block.x / 1 <= 65535) {
		log_softmax_kernel<<<dim3(grid.x, grid.y, block.x / 1), 256, shmem, stream>>>(x, y, rows, cols);
		return;
	}
	ks_rows_orig_log_softmax_kernel<<<grid, block, shmem, stream>>>(x, y, rows, cols);
}
