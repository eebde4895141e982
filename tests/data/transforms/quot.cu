// Kernels for vectorize_memory's group quotients (tests/unit/
// test_xf_stream.c, tests/suites/xf_stream.sh): a flat index divided by a
// uniform value, the quotient only indexing per-slice loads (batch norm's
// shape), which the packed body reads once per group; and look-alikes
// whose division stays per lane or that are declined as before. Every
// kernel takes the same parameters, so that one CPU check (quot_check.cpp)
// runs them all.
#include <cuda_runtime.h>

// the divisor a product of two parameters, int indices, an early exit
__global__ void
bn_planes(const float *x, const float *mean, const float *var,
	  const float *gamma, const float *beta, float *y, int n, int H, int W,
	  int K, float eps)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= n)
		return;
	int c = i / (H * W) % K;
	y[i] = (x[i] - mean[c]) / sqrtf(var[c] + eps) * gamma[c] + beta[c];
}

// look-alike: the quotient also indexes the store (y is not streamed, so
// nothing is stored through a pack: declined as before)
__global__ void
quot_store(const float *x, const float *mean, const float *var,
	   const float *gamma, const float *beta, float *y, int n, int H, int W,
	   int K, float eps)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n) {
		int hw = H * W;
		y[(i / hw) * hw + i % hw] = x[i] * gamma[(i / hw) % K] + eps;
	}
}

// look-alike: the divisor depends on the thread (no quotient of the
// facts): the division stays per lane
__global__ void
thread_div(const float *x, const float *mean, const float *var,
	   const float *gamma, const float *beta, float *y, int n, int H, int W,
	   int K, float eps)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		y[i] = x[i] * gamma[(i / (threadIdx.x + H)) % K] + eps;
}
