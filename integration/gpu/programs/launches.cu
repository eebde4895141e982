// launches: the launch paths and memory kinds capture must handle, in one
// small program: <<<>>> on a kernel that reads a __constant__ array and
// updates a __device__ counter, cudaLaunchKernelEx, a cooperative launch,
// and managed memory. Prints PASS when every result is right.
#include <cstdio>
#include <cuda_runtime.h>

#define CK(call)                                                            \
	do {                                                                \
		cudaError_t e_ = (call);                                    \
		if (e_ != cudaSuccess) {                                    \
			std::printf("FAIL %s: %s\n", #call, cudaGetErrorString(e_)); \
			return 1;                                           \
		}                                                           \
	} while (0)

__constant__ float coef[2];
__device__ int launches;

__global__ void
affine(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		x[i] = x[i] * coef[0] + coef[1];
	if (i == 0)
		atomicAdd(&launches, 1);
}

__global__ void
square_ex(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		y[i] = x[i] * x[i];
}

__global__ void
negate_coop(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		x[i] = -x[i];
}

int
main()
{
	const int n = 1000;
	const float c[2] = { 2.0f, 1.0f };
	float *x, *y, *m, h[n];
	int bad = 0, count = 0;

	CK(cudaMalloc(&x, n * sizeof(float)));
	CK(cudaMalloc(&y, n * sizeof(float)));
	CK(cudaMallocManaged(&m, n * sizeof(float)));
	for (int i = 0; i < n; i++) {
		h[i] = (float)i;
		m[i] = (float)i;
	}
	CK(cudaMemcpy(x, h, sizeof(h), cudaMemcpyHostToDevice));
	CK(cudaMemcpyToSymbol(coef, c, sizeof(c)));

	affine<<<(n + 127) / 128, 128>>>(x, n);
	CK(cudaGetLastError());

	cudaLaunchConfig_t cfg = {};
	cudaLaunchAttribute attr[1];
	attr[0].id = cudaLaunchAttributePriority;
	attr[0].val.priority = 0;
	cfg.gridDim = dim3((n + 127) / 128);
	cfg.blockDim = dim3(128);
	cfg.attrs = attr;
	cfg.numAttrs = 1;
	const float *cx = x;
	CK(cudaLaunchKernelEx(&cfg, square_ex, cx, y, n));

	int nn = n;
	void *args[] = { &m, &nn };
	CK(cudaLaunchCooperativeKernel((const void *)negate_coop, dim3(8), dim3(128),
				       args, 0, 0));
	CK(cudaDeviceSynchronize());

	CK(cudaMemcpy(h, y, sizeof(h), cudaMemcpyDeviceToHost));
	CK(cudaMemcpyFromSymbol(&count, launches, sizeof(count)));
	for (int i = 0; i < n; i++) {
		float a = 2.0f * i + 1.0f;
		bad += h[i] != a * a || m[i] != -(float)i;
	}
	bad += count != 1;
	std::printf("%s\n", bad ? "FAIL" : "PASS");
	return bad != 0;
}
