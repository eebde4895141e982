// Wrong: one value everywhere; within a loose tolerance (10) of every
// reference value, so only the constant-output rule rejects it.
__global__ void
relu_kernel(const float *x, float *y, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	(void)x;
	if (i < n)
		y[i] = 1.0f;
}
