// Wrong: right only when x[0] holds the captured value (KS_X0 is spliced in
// by the test from the capture), a copy of x otherwise: it passes the
// captured inputs and fails fresh ones.
__global__ void
relu_kernel(const float *x, float *y, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = __float_as_uint(x[0]) == KS_X0 ? fmaxf(x[i], 0.0f) : x[i];
}
