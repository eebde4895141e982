// Wrong: right on its first three launches (the captured inputs, one fresh
// set, the captured inputs again), then it writes nothing, counting on the
// results of its last run still being in the output. The outputs are
// poisoned before every timed run and checked after the last one.
__device__ unsigned long long ks_blocks_done;

__global__ void
relu_kernel(const float *x, float *y, size_t n)
{
	unsigned long long before = *(volatile unsigned long long *)&ks_blocks_done /
				    gridDim.x;
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;

	if (i < n && before < 3)
		y[i] = fmaxf(x[i], 0.0f);
	__syncthreads();
	if (threadIdx.x == 0)
		atomicAdd(&ks_blocks_done, 1ull);
}
