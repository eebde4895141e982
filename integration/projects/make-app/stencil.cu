// A 2-D 5-point Jacobi stencil; boundary cells keep their values.
#include <cuda_runtime.h>

#include "app.h"

#define TILE_X 32
#define TILE_Y 8

__global__ void
jacobi_step(grid2d g, const float *in, float *out)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;

	if (x >= g.nx || y >= g.ny)
		return;
	int i = y * g.nx + x;
	if (x == 0 || y == 0 || x == g.nx - 1 || y == g.ny - 1) {
		out[i] = in[i];
		return;
	}
	out[i] = stencil_point(g, in[i], in[i - g.nx], in[i + g.nx],
			       in[i - 1], in[i + 1]);
}

const char *
gpu_stencil(const grid2d &g, int steps, float *field)
{
	cudaError_t err;
	float *a = NULL, *b = NULL;
	size_t bytes = (size_t)g.nx * g.ny * sizeof(float);
	dim3 block(TILE_X, TILE_Y);
	dim3 grid((g.nx + TILE_X - 1) / TILE_X, (g.ny + TILE_Y - 1) / TILE_Y);

	if ((err = cudaMalloc(&a, bytes)) != cudaSuccess ||
	    (err = cudaMalloc(&b, bytes)) != cudaSuccess ||
	    (err = cudaMemcpy(a, field, bytes, cudaMemcpyHostToDevice)) !=
		    cudaSuccess)
		goto out;
	for (int s = 0; s < steps; s++) {
		jacobi_step<<<grid, block>>>(g, a, b);
		float *t = a;
		a = b;
		b = t;
	}
	if ((err = cudaGetLastError()) != cudaSuccess)
		goto out;
	err = cudaMemcpy(field, a, bytes, cudaMemcpyDeviceToHost);
out:
	cudaFree(a);
	cudaFree(b);
	return err == cudaSuccess ? NULL : cudaGetErrorString(err);
}
