// Kernels in the shapes the streaming transforms must handle or decline
// (tests/suites/transforms.sh). Each is launched once so that launchers
// are emitted.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

struct dims {
	int n;
	float scale;
};

// in place, a scalar and a struct of parameters
__global__ void
axpy_struct(const float *x, float *y, dims d)
{
	int i = threadIdx.x + blockDim.x * blockIdx.x;

	if (i < d.n)
		y[i] = d.scale * x[i] + y[i];
}

// early exit, halves (eight per 16-byte pack)
__global__ void
half_relu(const __half *x, __half *y, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= n)
		return;
	y[i] = __hgt(x[i], __float2half(0.0f)) ? x[i] : __float2half(0.0f);
}

// a gather: idx and y are streamed, x is read where idx says
__global__ void
gather(const float *x, const int *idx, float *y, long n)
{
	long i = (long)blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		y[i] = x[idx[i]];
}

// 2-D grid: rows of a matrix
__global__ void
scale2d(const float *in, float *out, int w, int h, float a)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;

	if (x < w && y < h)
		out[y * w + x] = a * in[y * w + x];
}

// a stride given as a parameter
__global__ void
strided(const double *x, double *y, int n, int s)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		y[i * s] = 2.0 * x[i * s];
}

// look-alike: the store is guarded by the data
__global__ void
keep_positive(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n && x[i] > 0.0f)
		y[i] = x[i];
}

// look-alike: threads cooperate through shared memory
__global__ void
reverse_block(const float *x, float *y)
{
	__shared__ float s[256];
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	s[threadIdx.x] = x[i];
	__syncthreads();
	y[i] = s[blockDim.x - 1 - threadIdx.x];
}

// look-alike: an atomic
__global__ void
count_positive(const float *x, int *count, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n && x[i] > 0.0f)
		atomicAdd(count, 1);
}

void
run(float *fx, float *fy, __half *hx, __half *hy, int *idx, double *dx,
    double *dy, int *count, int n, cudaStream_t st)
{
	dims d = { n, 2.0f };
	dim3 b2(32, 8), g2((n + 31) / 32, 4);

	axpy_struct<<<(n + 255) / 256, 256, 0, st>>>(fx, fy, d);
	half_relu<<<(n + 127) / 128, 128, 0, st>>>(hx, hy, (unsigned)n);
	gather<<<(n + 255) / 256, 256, 0, st>>>(fx, idx, fy, n);
	scale2d<<<g2, b2, 0, st>>>(fx, fy, n / 4, 4, 3.0f);
	strided<<<(n + 255) / 256, 256, 0, st>>>(dx, dy, n / 2, 2);
	keep_positive<<<(n + 255) / 256, 256, 0, st>>>(fx, fy, n);
	reverse_block<<<n / 256, 256, 0, st>>>(fx, fy);
	count_positive<<<(n + 255) / 256, 256, 0, st>>>(fx, count, n);
}
