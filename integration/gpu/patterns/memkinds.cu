// memkinds: one kernel body over four kinds of memory: a cudaMallocAsync
// pool, cudaMallocManaged, mapped pinned host memory (cudaHostAlloc) and
// registered host memory (cudaHostRegister).
#include "common.h"

#define AXPY(name)                                                          \
	__global__ void name(float a, const float *x, float *y, int n)      \
	{                                                                   \
		int i = blockIdx.x * blockDim.x + threadIdx.x;              \
		if (i < n)                                                  \
			y[i] = a * x[i] + y[i];                             \
	}
AXPY(axpy_pool)
AXPY(axpy_managed)
AXPY(axpy_mapped)
AXPY(axpy_registered)

static bool
check(const float *y, int n)
{
	for (int i = 0; i < n; i++)
		if (y[i] != 2.0f * (float)(i % 9) + 1.0f)
			return false;
	return true;
}

static void
init(float *x, float *y, int n)
{
	for (int i = 0; i < n; i++) {
		x[i] = (float)(i % 9);
		y[i] = 1.0f;
	}
}

int
main()
{
	const int n = 1 << 20;
	const size_t bytes = n * sizeof(float);
	float *hx = new float[n], *hy = new float[n];
	bool ok = true;
	cudaStream_t s;

	CK(cudaStreamCreate(&s));
	// A pool: allocated and freed in stream order.
	{
		float *x, *y;

		init(hx, hy, n);
		CK(cudaMallocAsync(&x, bytes, s));
		CK(cudaMallocAsync(&y, bytes, s));
		CK(cudaMemcpyAsync(x, hx, bytes, cudaMemcpyHostToDevice, s));
		CK(cudaMemcpyAsync(y, hy, bytes, cudaMemcpyHostToDevice, s));
		axpy_pool<<<(n + 255) / 256, 256, 0, s>>>(2.0f, x, y, n);
		CK(cudaMemcpyAsync(hy, y, bytes, cudaMemcpyDeviceToHost, s));
		CK(cudaFreeAsync(x, s));
		CK(cudaFreeAsync(y, s));
		CK(cudaStreamSynchronize(s));
		ok = ok && check(hy, n);
	}
	{
		float *x, *y;

		CK(cudaMallocManaged(&x, bytes));
		CK(cudaMallocManaged(&y, bytes));
		init(x, y, n);
		axpy_managed<<<(n + 255) / 256, 256>>>(2.0f, x, y, n);
		CK(cudaDeviceSynchronize());
		ok = ok && check(y, n);
		CK(cudaFree(x));
		CK(cudaFree(y));
	}
	{
		float *x, *y, *dx, *dy;

		CK(cudaHostAlloc(&x, bytes, cudaHostAllocMapped));
		CK(cudaHostAlloc(&y, bytes, cudaHostAllocMapped));
		CK(cudaHostGetDevicePointer(&dx, x, 0));
		CK(cudaHostGetDevicePointer(&dy, y, 0));
		init(x, y, n);
		axpy_mapped<<<(n + 255) / 256, 256>>>(2.0f, dx, dy, n);
		CK(cudaDeviceSynchronize());
		ok = ok && check(y, n);
		CK(cudaFreeHost(x));
		CK(cudaFreeHost(y));
	}
	{
		float *x = (float *)std::malloc(bytes), *y = (float *)std::malloc(bytes);
		float *dx, *dy;

		init(x, y, n);
		CK(cudaHostRegister(x, bytes, cudaHostRegisterMapped));
		CK(cudaHostRegister(y, bytes, cudaHostRegisterMapped));
		CK(cudaHostGetDevicePointer(&dx, x, 0));
		CK(cudaHostGetDevicePointer(&dy, y, 0));
		axpy_registered<<<(n + 255) / 256, 256>>>(2.0f, dx, dy, n);
		CK(cudaDeviceSynchronize());
		ok = ok && check(y, n);
		CK(cudaHostUnregister(x));
		CK(cudaHostUnregister(y));
		std::free(x);
		std::free(y);
	}
	std::printf("%s\n", ok ? "PASS" : "FAIL");
	return ok ? 0 : 1;
}
