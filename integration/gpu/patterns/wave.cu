// wave: a wavefront, one kernel launched on diagonals of 1 to 64 blocks:
// the first launches are the smallest.
#include "common.h"

__global__ void
relax(float *x, int d, int w)
{
	int b = blockIdx.x;
	int i = (d - 1 - b) * w + b * blockDim.x + threadIdx.x;

	x[i] = x[i] + 1.0f;
}

int
main()
{
	const int w = 64 * 32, n = 64 * w;
	float *x, h = 0;

	CK(cudaMalloc(&x, n * sizeof(float)));
	CK(cudaMemset(x, 0, n * sizeof(float)));
	for (int d = 1; d <= 64; d++)
		relax<<<d, 32>>>(x, d, w);
	CK(cudaDeviceSynchronize());
	CK(cudaMemcpy(&h, x, sizeof(h), cudaMemcpyDeviceToHost));
	// x[0] is touched by the first diagonal only.
	std::printf("%s\n", h == 1.0f ? "PASS" : "FAIL");
	return h == 1.0f ? 0 : 1;
}
