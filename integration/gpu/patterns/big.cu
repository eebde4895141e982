// big: one launch over a buffer of more than 2 GiB and one over more than
// 4 GiB (64-bit sizes and indices all the way).
#include "common.h"

__global__ void
scale_2g(float *x, size_t n, float a)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		x[i] = x[i] * a + 1.0f;
}

__global__ void
scale_4g(float *x, size_t n, float a)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		x[i] = x[i] * a - 1.0f;
}

__global__ void
fill(float *x, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		x[i] = (float)(i % 1000) * 0.5f;
}

int
main()
{
	const size_t n2 = (size_t)2304 << 18;	// 2.25 GiB of floats
	const size_t n4 = (size_t)4352 << 18;	// 4.25 GiB of floats
	float *x, *y, h[2];

	CK(cudaMalloc(&x, n2 * sizeof(float)));
	CK(cudaMalloc(&y, n4 * sizeof(float)));
	fill<<<1024, 256>>>(x, n2);
	fill<<<1024, 256>>>(y, n4);
	scale_2g<<<2048, 256>>>(x, n2, 2.0f);
	scale_4g<<<2048, 256>>>(y, n4, 3.0f);
	CK(cudaDeviceSynchronize());
	CK(cudaMemcpy(&h[0], x + n2 - 1, sizeof(float), cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(&h[1], y + n4 - 1, sizeof(float), cudaMemcpyDeviceToHost));
	bool ok = h[0] == (float)((n2 - 1) % 1000) * 0.5f * 2.0f + 1.0f &&
		  h[1] == (float)((n4 - 1) % 1000) * 0.5f * 3.0f - 1.0f;
	std::printf("%s\n", ok ? "PASS" : "FAIL");
	return ok ? 0 : 1;
}
