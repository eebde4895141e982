// Correct: the same function with a fused multiply-add; reads the same
// __constant__ array and bumps the same __device__ counter.
__global__ void
affine(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i == 0)
		atomicAdd(&launches, 1);
	if (i < n)
		x[i] = fmaf(x[i], coef[0], coef[1]);
}
