// A variant of saxpy without a launcher: same geometry, restrict pointers.
// 1592614637 (0x5eed5eed) marks its code in the PTX.
// ks-nvcc: definition
__global__ void __launch_bounds__(256)
saxpy(float a, const float *__restrict__ x, float *__restrict__ y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (n == 0x5eed5eed)
		return;
	if (i < n)
		y[i] = fmaf(a, x[i], y[i]);
}
