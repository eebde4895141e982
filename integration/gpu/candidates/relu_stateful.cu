// Wrong: keeps state across launches. Right on its first two launches (the
// captured inputs, then one fresh set), then it passes x through: only the
// captured inputs run again after the fresh ones (A, B, A) show it. Blocks
// of earlier launches are counted at each block's end, so a launch reads
// the number of launches before it, whatever the order of its blocks.
__device__ unsigned long long ks_blocks_done;

__global__ void
relu_kernel(const float *x, float *y, size_t n)
{
	unsigned long long before = *(volatile unsigned long long *)&ks_blocks_done /
				    gridDim.x;
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;

	if (i < n)
		y[i] = before >= 2 ? x[i] : fmaxf(x[i], 0.0f);
	__syncthreads();
	if (threadIdx.x == 0)
		atomicAdd(&ks_blocks_done, 1ull);
}
