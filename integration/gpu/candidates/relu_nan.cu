// Wrong: NaN where the reference has numbers (any tolerance).
__global__ void
relu_kernel(const float *x, float *y, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = x[i] < -3.5f ? __int_as_float(0x7fc00000) : fmaxf(x[i], 0.0f);
}
