/* A simple TU for the timing measurements of docs/ANALYSIS.md. */
#include <cstdio>

__global__ void scale(float *x, float a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] *= a;
}

void run_scale(float *x, int n)
{
	scale<<<(n + 255) / 256, 256>>>(x, 2.0f, n);
}
