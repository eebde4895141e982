/* A kernel launched with 2, 3 and 4 configuration values, for
 * tests/suites/rewrite.sh. The variants are saxpy-*.variant.cu. */
#include <cstdio>
#include <cuda_runtime.h>

__global__ void saxpy(float a, const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		y[i] = a * x[i] + y[i];
}

void
run2(float a, const float *x, float *y, int n)
{
	saxpy<<<(n + 255) / 256, 256>>>(a, x, y, n);
}

void
run3(float a, const float *x, float *y, int n)
{
	saxpy<<<(n + 127) / 128, 128, 0>>>(a, x, y, n);
}

void
run4(float a, const float *x, float *y, int n, cudaStream_t s)
{
	if (n > 0) saxpy<<<dim3((n + 255) / 256), dim3(256), 0, s>>>(a, x,
		y, n); else printf("nothing to do\n");
}
