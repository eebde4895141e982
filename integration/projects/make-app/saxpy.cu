// saxpy and a block-wise sum reduction.
#include <cuda_runtime.h>
#include <stdio.h>

#include "app.h"

#define THREADS 256

__global__ void
saxpy(int n, float a, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		y[i] = a * x[i] + y[i];
}

// Each block writes the sum of its slice of x to partial[blockIdx.x].
__global__ void
block_sum(const float *x, int n, float *partial)
{
	extern __shared__ float s[];
	unsigned t = threadIdx.x;
	int i = blockIdx.x * blockDim.x * 2 + threadIdx.x;
	float v = 0.0f;

	if (i < n)
		v = x[i];
	if (i + (int)blockDim.x < n)
		v += x[i + blockDim.x];
	s[t] = v;
	__syncthreads();
	for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
		if (t < stride)
			s[t] += s[t + stride];
		__syncthreads();
	}
	if (t == 0)
		partial[blockIdx.x] = s[0];
}

#define TRY(call)                                                      \
	do {                                                           \
		cudaError_t err_ = (call);                             \
		if (err_ != cudaSuccess) {                             \
			msg = cudaGetErrorString(err_);                \
			goto out;                                      \
		}                                                      \
	} while (0)

const char *
gpu_saxpy(int n, float a, const float *x, float *y)
{
	const char *msg = NULL;
	float *dx = NULL, *dy = NULL;
	size_t bytes = (size_t)n * sizeof(float);

	TRY(cudaMalloc(&dx, bytes));
	TRY(cudaMalloc(&dy, bytes));
	TRY(cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice));
	TRY(cudaMemcpy(dy, y, bytes, cudaMemcpyHostToDevice));
	saxpy<<<(n + THREADS - 1) / THREADS, THREADS>>>(n, a, dx, dy);
	TRY(cudaGetLastError());
	TRY(cudaMemcpy(y, dy, bytes, cudaMemcpyDeviceToHost));
out:
	cudaFree(dx);
	cudaFree(dy);
	return msg;
}

const char *
gpu_sum(int n, const float *x, double *sum)
{
	const char *msg = NULL;
	float *dx = NULL, *dpartial = NULL, *partial = NULL;
	int blocks = (n + 2 * THREADS - 1) / (2 * THREADS);

	partial = new float[blocks];
	TRY(cudaMalloc(&dx, (size_t)n * sizeof(float)));
	TRY(cudaMalloc(&dpartial, (size_t)blocks * sizeof(float)));
	TRY(cudaMemcpy(dx, x, (size_t)n * sizeof(float),
		       cudaMemcpyHostToDevice));
	block_sum<<<blocks, THREADS, THREADS * sizeof(float)>>>(dx, n,
								dpartial);
	TRY(cudaGetLastError());
	TRY(cudaMemcpy(partial, dpartial, (size_t)blocks * sizeof(float),
		       cudaMemcpyDeviceToHost));
	*sum = 0.0;
	for (int b = 0; b < blocks; b++)
		*sum += partial[b];
out:
	cudaFree(dx);
	cudaFree(dpartial);
	delete[] partial;
	return msg;
}

const char *
gpu_device_name(char *buf, size_t len)
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
