// Wrong: writes far outside its buffer (an illegal address).
__global__ void
relu_kernel(const float *x, float *y, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < n)
		y[i + ((size_t)1 << 36)] = fmaxf(x[i], 0.0f);
}
