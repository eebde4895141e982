// shapes: one kernel launched at several shapes (grid, scalar argument)
// and several times at the same shape.
#include "common.h"

__global__ void
scale(float *x, int n, float a)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		x[i] = x[i] * a;
}

int
main()
{
	const int n = 1 << 16;
	float *x, h, *ones = new float[n];

	for (int i = 0; i < n; i++)
		ones[i] = 1.0f;
	CK(cudaMalloc(&x, n * sizeof(float)));
	CK(cudaMemcpy(x, ones, n * sizeof(float), cudaMemcpyHostToDevice));
	scale<<<n / 256, 256>>>(x, n, 2.0f);		// shape A
	scale<<<n / 256, 256>>>(x, n, 2.0f);		// A again
	scale<<<n / 512, 256>>>(x, n / 2, 2.0f);	// B: grid and n
	scale<<<n / 256, 256>>>(x, n, 0.5f);		// C: a scalar
	scale<<<n / 256, 256>>>(x, n, 2.0f);		// A again
	scale<<<n / 1024, 256>>>(x, n / 4, 2.0f);	// D
	CK(cudaDeviceSynchronize());
	CK(cudaMemcpy(&h, x, sizeof(h), cudaMemcpyDeviceToHost));
	// x[0]: 2, 4, 8 (B), 4 (C), 8, 16 (D)
	std::printf("%s\n", h == 16.0f ? "PASS" : "FAIL");
	return h == 16.0f ? 0 : 1;
}
