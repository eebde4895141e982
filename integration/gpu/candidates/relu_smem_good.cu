// Correct and race-free: each value goes through shared memory to the
// partner thread of its pair, after a warp barrier.
__global__ void
relu_kernel(const float *x, float *y, size_t n)
{
	__shared__ float s[1024];
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	size_t j = i ^ 1;

	s[threadIdx.x] = i < n && x[i] > 0.0f ? x[i] : 0.0f;
	__syncwarp();
	if (j < n)
		y[j] = s[threadIdx.x ^ 1];
}
