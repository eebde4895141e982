// Tiled matrix transpose through shared memory.
#include <cuda_runtime.h>

#include "vecops.h"

#define TILE 32
#define ROWS_PER_PASS 8

// out (cols x rows) = transpose of in (rows x cols)
__global__ void
transpose(mat_desc d, const float *in, float *out)
{
	__shared__ float tile[TILE][TILE + 1]; // +1: no bank conflicts
	int x = blockIdx.x * TILE + threadIdx.x;
	int y = blockIdx.y * TILE + threadIdx.y;

	for (int j = 0; j < TILE; j += ROWS_PER_PASS)
		if (x < d.cols && y + j < d.rows)
			tile[threadIdx.y + j][threadIdx.x] =
				in[(size_t)(y + j) * d.cols + x];
	__syncthreads();
	x = blockIdx.y * TILE + threadIdx.x;
	y = blockIdx.x * TILE + threadIdx.y;
	for (int j = 0; j < TILE; j += ROWS_PER_PASS)
		if (x < d.rows && y + j < d.cols)
			out[(size_t)(y + j) * d.rows + x] =
				tile[threadIdx.x][threadIdx.y + j];
}

const char *
vecops_transpose(mat_desc d, const float *in, float *out)
{
	cudaError_t err;
	float *din = NULL, *dout = NULL;
	size_t bytes = (size_t)d.rows * d.cols * sizeof(float);
	dim3 block(TILE, ROWS_PER_PASS);
	dim3 grid((d.cols + TILE - 1) / TILE, (d.rows + TILE - 1) / TILE);

	if ((err = cudaMalloc(&din, bytes)) != cudaSuccess ||
	    (err = cudaMalloc(&dout, bytes)) != cudaSuccess ||
	    (err = cudaMemcpy(din, in, bytes, cudaMemcpyHostToDevice)) !=
		    cudaSuccess)
		goto out;
	transpose<<<grid, block>>>(d, din, dout);
	if ((err = cudaGetLastError()) != cudaSuccess)
		goto out;
	err = cudaMemcpy(out, dout, bytes, cudaMemcpyDeviceToHost);
out:
	cudaFree(din);
	cudaFree(dout);
	return err == cudaSuccess ? NULL : cudaGetErrorString(err);
}
