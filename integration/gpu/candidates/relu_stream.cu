// Wrong: right, but its launcher puts the work on a stream of its own that
// the timing events do not wait for, so its timed runs look like no work
// at all. The GPU stays busy about a millisecond after each stop event.
__global__ void
relu_kernel(const float *x, float *y, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = fmaxf(x[i], 0.0f);
}

__global__ void
relu_late(const float *x, float *y, size_t n)
{
	long long t0 = clock64();

	while (clock64() - t0 < 2000000)
		;
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = fmaxf(x[i], 0.0f);
}

static void
ks_launch_relu_kernel(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
		      const float *x, float *y, size_t n)
{
	static cudaStream_t side;

	(void)stream;
	if (!side)
		cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
	relu_late<<<grid, block, shmem, side>>>(x, y, n);
}
