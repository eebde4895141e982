// Wrong, though every element it should write is right: the last thread also
// writes one float past the end of y. Only compute-sanitizer sees it.
__global__ void
relu_kernel(const float *x, float *y, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = fmaxf(x[i], 0.0f);
	if (i == n - 1)
		y[n] = 0.0f;
}
