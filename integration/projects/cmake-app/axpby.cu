// y = a * x + b * y
#include <cuda_runtime.h>
#include <stdio.h>

#include "vecops.h"

__global__ void
axpby(int n, float a, float b, const float *__restrict__ x,
      float *__restrict__ y)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += gridDim.x * blockDim.x)
		y[i] = a * x[i] + b * y[i];
}

const char *
vecops_axpby(int n, float a, float b, const float *x, float *y)
{
	cudaError_t err;
	float *dx = NULL, *dy = NULL;
	size_t bytes = (size_t)n * sizeof(float);
	int blocks = (n + 255) / 256;

	if (blocks > 1024)
		blocks = 1024; // grid-stride loop covers the rest
	if ((err = cudaMalloc(&dx, bytes)) != cudaSuccess ||
	    (err = cudaMalloc(&dy, bytes)) != cudaSuccess ||
	    (err = cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice)) !=
		    cudaSuccess ||
	    (err = cudaMemcpy(dy, y, bytes, cudaMemcpyHostToDevice)) !=
		    cudaSuccess)
		goto out;
	axpby<<<blocks, 256>>>(n, a, b, dx, dy);
	if ((err = cudaGetLastError()) != cudaSuccess)
		goto out;
	err = cudaMemcpy(y, dy, bytes, cudaMemcpyDeviceToHost);
out:
	cudaFree(dx);
	cudaFree(dy);
	return err == cudaSuccess ? NULL : cudaGetErrorString(err);
}

const char *
vecops_device_name(char *buf, size_t len)
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
