// Correct: the same function, spelled differently.
__global__ void
relu_kernel(const float *x, float *y, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < n) {
		float v = x[i];
		y[i] = v > 0.0f ? v : 0.0f;
	}
}
