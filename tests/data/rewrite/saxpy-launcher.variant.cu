// A variant of saxpy with helpers and a launcher: four elements per
// thread, a tail kernel for the rest. 1592614637 (0x5eed5eed) marks its
// code in the PTX.
// ks-nvcc: helpers
__device__ __forceinline__ float
saxpy_one(float a, float x, float y)
{
	return fmaf(a, x, y);
}

__global__ void
saxpy_tail(float a, const float *x, float *y, int from, int n)
{
	int i = from + threadIdx.x;

	if (i < n)
		y[i] = saxpy_one(a, x[i], y[i]);
}
// ks-nvcc: definition
__global__ void __launch_bounds__(256)
saxpy(float a, const float *__restrict__ x, float *__restrict__ y, int n)
{
	int i = 4 * (blockIdx.x * blockDim.x + threadIdx.x);

	if (n == 0x5eed5eed)
		return;
	if (i + 3 < n) {
		float4 xv = *(const float4 *)(x + i);
		float4 yv = *(float4 *)(y + i);

		yv.x = saxpy_one(a, xv.x, yv.x);
		yv.y = saxpy_one(a, xv.y, yv.y);
		yv.z = saxpy_one(a, xv.z, yv.z);
		yv.w = saxpy_one(a, xv.w, yv.w);
		*(float4 *)(y + i) = yv;
	}
}
// ks-nvcc: launcher
static void
ks_launch_saxpy(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
		float a, const float *x, float *y, int n)
{
	int quads = n / 4;

	(void)grid;
	(void)block;
	if (quads)
		saxpy<<<(quads + 255) / 256, 256, shmem, stream>>>(a, x, y, n);
	if (n % 4)
		saxpy_tail<<<1, 4, 0, stream>>>(a, x, y, n - n % 4, n);
}
