// A kernel calling a __device__ function from another translation unit.
#include <cuda_runtime.h>
#include <stdio.h>

#include "poly.h"

__global__ void
poly_apply(poly p, int n, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		y[i] = poly_eval(p, x[i]);
}

const char *
poly_apply_gpu(const poly &p, int n, const float *x, float *y)
{
	cudaError_t err;
	float *dx = NULL, *dy = NULL;
	size_t bytes = (size_t)n * sizeof(float);

	if ((err = cudaMalloc(&dx, bytes)) != cudaSuccess ||
	    (err = cudaMalloc(&dy, bytes)) != cudaSuccess ||
	    (err = cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice)) !=
		    cudaSuccess)
		goto out;
	poly_apply<<<(n + 127) / 128, 128>>>(p, n, dx, dy);
	if ((err = cudaGetLastError()) != cudaSuccess)
		goto out;
	err = cudaMemcpy(y, dy, bytes, cudaMemcpyDeviceToHost);
out:
	cudaFree(dx);
	cudaFree(dy);
	return err == cudaSuccess ? NULL : cudaGetErrorString(err);
}

const char *
poly_device_name(char *buf, size_t len)
{
	cudaDeviceProp prop;
	int dev;
	cudaError_t err = cudaGetDevice(&dev);

	if (err == cudaSuccess)
		err = cudaGetDeviceProperties(&prop, dev);
	if (err != cudaSuccess)
		return cudaGetErrorString(err);
	snprintf(buf, len, "%s (sm_%d%d)", prop.name, prop.major, prop.minor);
	return NULL;
}
