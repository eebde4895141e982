// Kernels for the derived_grid tests: 1-D kernels whose coordinates come
// from their flat index by division and remainder, in other shapes than
// the bench programs (one level, another order, double and int, a
// permutation among three coordinates), and look-alikes that must be
// declined.
#include <cuda_runtime.h>
#include <stddef.h>

// One level, a scaled copy (load and store along the same coordinate).
__global__ void
unflatten2(const float *x, float *y, int rows, int cols, float k)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= rows * cols)
		return;
	int col = i % cols;
	int row = i / cols;
	y[i] = k * x[row * cols + col];
}

// One level, a transpose of channels and pixels (NHWC to NCHW) in int.
__global__ void
channels_first(const int *x, int *y, int channels, int pixels)
{
	size_t o = (size_t)blockIdx.x * blockDim.x + threadIdx.x;

	if (o < (size_t)channels * pixels) {
		size_t c = o % channels;
		size_t p = o / channels;
		y[o] = x[c * pixels + p];
	}
}

// Two levels, [A][B][C] to [B][C][A] in double: the store along a, the
// load along c.
__global__ void
rotate3(const double *in, double *out, int na, int nb, int nc)
{
	unsigned o = blockIdx.x * blockDim.x + threadIdx.x;

	if (o >= (unsigned)(na * nb * nc))
		return;
	unsigned a = o % na;
	unsigned t = o / na;
	unsigned c = t % nc;
	unsigned b = t / nc;
	out[o] = in[((size_t)a * nb + b) * nc + c];
}

// Look-alike: divided by a thread-dependent value.
__global__ void
by_thread(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		y[i] = x[i % (threadIdx.x + 1)];
}

// Look-alike: two decompositions of the index, not one chain.
__global__ void
two_ways(const float *x, float *y, int a, int b, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		y[i] = x[i % a] + x[i / b];
}

// Look-alike: three quotients (four coordinates).
__global__ void
four_levels(const float *x, float *y, int a, int b, int c, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= n)
		return;
	int d0 = i % a, t0 = i / a;
	int d1 = t0 % b, t1 = t0 / b;
	int d2 = t1 % c, d3 = t1 / c;
	y[i] = x[((d3 * c + d2) * b + d1) * a + d0];
}

// Look-alike: a grid-stride loop (the index is a loop variable).
__global__ void
strided(const float *x, float *y, int a, int b)
{
	for (int o = blockIdx.x * blockDim.x + threadIdx.x; o < a * b;
	     o += gridDim.x * blockDim.x)
		y[o] = x[(o % a) * b + o / a];
}

// Look-alike: its threads cooperate through shared memory.
__global__ void
staged(const float *x, float *y, int cols, int n)
{
	__shared__ float s[256];
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	s[threadIdx.x] = i < n ? x[(i % cols) * 2] : 0.0f;
	__syncthreads();
	if (i < n)
		y[i] = s[255 - threadIdx.x] + (float)(i / cols);
}
