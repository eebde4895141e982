// Correct on every run a warp executes in step, but racy: the partner's
// value is read from shared memory with no barrier after its write, a
// hazard in every block that racecheck reports (on a sample of the blocks
// as on all of them).
__global__ void
relu_kernel(const float *x, float *y, size_t n)
{
	__shared__ float s[1024];
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	size_t j = i ^ 1;

	s[threadIdx.x] = i < n && x[i] > 0.0f ? x[i] : 0.0f;
	if (j < n)
		y[j] = s[threadIdx.x ^ 1];
}
