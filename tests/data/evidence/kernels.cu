/*
 * Kernels that each show one thing the compiler evidence must see. Compiled
 * by tests/suites/evidence.sh and, once, by regen.sh into the captured
 * outputs next to this file that tests/unit/test_evidence.c reads.
 */
#include <mma.h>

/* 128-bit global loads and stores. */
__global__ void vec4_scale(const float4 *in, float4 *out, float a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float4 v = in[i];
		v.x *= a; v.y *= a; v.z *= a; v.w *= a;
		out[i] = v;
	}
}

/* Scalar float; sinf is a library sequence unless -use_fast_math. */
__global__ void sin_scale(const float *in, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = sinf(in[i]) * 2.0f;
}

/* Double precision. */
__global__ void daxpy(double a, const double *x, double *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = a * x[i] + y[i];
}

/* A dynamically indexed local array lives in local memory. */
__global__ void local_table(const int *idx, float *out, int n)
{
	float t[64];
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	for (int j = 0; j < 64; j++)
		t[j] = out[j] * j;
	if (i < n)
		out[i] = t[idx[i] & 63];
}

/* 48 live accumulators under a 32-register cap: ptxas spills. */
__global__ void __launch_bounds__(1024, 2) reg_pressure(const float *in, float *out, int n)
{
	float acc[48];
	int i = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
	for (int j = 0; j < 48; j++)
		acc[j] = in[(i + j * 977) % n];
	for (int k = 0; k < 8; k++) {
#pragma unroll
		for (int j = 0; j < 48; j++)
			acc[j] = acc[j] * acc[(j + k + 1) % 48] + in[(i * k + j) % n];
	}
	float s = 0;
#pragma unroll
	for (int j = 0; j < 48; j++)
		s += acc[j];
	out[i] = s;
}

/* Shared memory, a barrier, warp shuffles and an atomic. */
__global__ void block_sum(const float *in, float *total, int n)
{
	__shared__ float part[32];
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float v = i < n ? in[i] : 0.0f;
	for (int o = 16; o > 0; o /= 2)
		v += __shfl_down_sync(0xffffffffu, v, o);
	if (threadIdx.x % 32 == 0)
		part[threadIdx.x / 32] = v;
	__syncthreads();
	if (threadIdx.x < 32) {
		v = threadIdx.x < blockDim.x / 32 ? part[threadIdx.x] : 0.0f;
		for (int o = 16; o > 0; o /= 2)
			v += __shfl_down_sync(0xffffffffu, v, o);
		if (threadIdx.x == 0)
			atomicAdd(total, v);
	}
}

/* One 16x16x16 half-precision tile on the tensor cores. */
__global__ void wmma_tile(const half *a, const half *b, float *c)
{
	using namespace nvcuda;
	wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
	wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
	wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
	wmma::fill_fragment(fc, 0.0f);
	wmma::load_matrix_sync(fa, a, 16);
	wmma::load_matrix_sync(fb, b, 16);
	wmma::mma_sync(fc, fa, fb, fc);
	wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}

/* A device function ptxas keeps out of line: its FP64 and SFU work counts
 * for the kernel that calls it. */
__device__ __noinline__ double twice_sin(double x)
{
	return x * 2.0 + __sinf((float)x);
}

__global__ void call_helper(double *y)
{
	y[threadIdx.x] = twice_sin(y[threadIdx.x]);
}
