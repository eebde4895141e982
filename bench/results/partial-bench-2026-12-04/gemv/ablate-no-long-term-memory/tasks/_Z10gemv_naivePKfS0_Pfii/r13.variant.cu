// gemv_naive: cooperative rows, 32 threads per row, 4 rows per block (coop_rows)
// ks-nvcc: helpers
// The original kernel, for launches whose geometry the variant does not take.
__global__ void
ks_rows_orig_gemv_naive(const float *A, const float *x, float *y, int M, int N)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row < M) {
		float sum = 0.0f;
		for (int j = 0; j < N; j++)
			sum += A[row * N + j] * x[j];
		y[row] = sum;
	}
}
// ks-nvcc: definition
__global__ void
__launch_bounds__(128) gemv_naive(const float *A, const float *x, float *y, int M, int N)
{
	const unsigned ks_lane = threadIdx.x % 32;
	const uint3 ks_tid = make_uint3(blockIdx.z * 4 + threadIdx.x / 32, 0, 0);
	const uint3 ks_bid = make_uint3(blockIdx.x, blockIdx.y, 0);
	const dim3 ks_bdim(gridDim.z * 4, 1, 1);

	int row = ks_bid.x * ks_bdim.x + ks_tid.x;
	if (row < M) {
		float sum = 0.0f;
		{
			decltype(sum) ks_r0 = sum;
			sum = (decltype(sum))0;
#pragma unroll 4
			for (int j = (0) + (int)ks_lane; j < N; j += 32)
				sum += A[row * N + j] * x[j];
			for (int ks_o = 16; ks_o > 0; ks_o >>= 1) {
				sum += __shfl_xor_sync(0xffffffffu, sum, ks_o);
			}
			sum = ks_r0 + sum;
		}
		if (ks_lane == 0) {
			y[row] = sum;
		}
	}
}
// ks-nvcc: launcher
static void
ks_launch_gemv_naive(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
		const float *A, const float *x, float *y, int M, int N)
{
	/* one original thread becomes 32; the original block's
	   x extent goes to gridDim.z */
	if (block.y == 1 && block.z == 1 && grid.z == 1 &&
	    block.x % 4 == 0 && block.x / 4 <= 65535) {
		gemv_naive<<<dim3(grid.x, grid.y, block.x / 4), 128, shmem, stream>>>(A, x, y, M, N);
		return;
	}
	ks_rows_orig_gemv_naive<<<grid, block, shmem, stream>>>(A, x, y, M, N);
}
