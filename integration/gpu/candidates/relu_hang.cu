// Wrong: never finishes (ks-replay is killed on its time limit).
__global__ void
relu_kernel(const float *x, float *y, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	volatile float *v = (volatile float *)x;
	if (i < n) {
		while (v[i] < 1e30f)
			;
		y[i] = fmaxf(x[i], 0.0f);
	}
}
