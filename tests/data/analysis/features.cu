/*
 * Kernels written for the feature tests (tests/unit/test_analysis_parse.c).
 * Each kernel is the smallest example of one feature being present or
 * absent. Self-contained (no includes): it parses with the CUDA toolkit
 * and with ks's minimal prelude alike.
 */
#define TILE 16
#define RADIUS 3

/* pointwise, streaming, canonical 1-D, bounds check, re-tunable */
__global__ void saxpy(float *y, const float *x, float a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = a * x[i] + y[i];
}

/* pointwise through a grid-stride loop and a transcendental */
__global__ void gelu_grid(float *out, const float *in, int n)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += blockDim.x * gridDim.x) {
		float v = in[i];
		out[i] = 0.5f * v * (1.0f + tanhf(0.79788456f * v));
	}
}

/* early-exit bounds check, 2-D canonical index */
__global__ void add2d(float *c, const float *a, const float *b, int w, int h)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	if (x >= w || y >= h)
		return;
	c[y * w + x] = a[y * w + x] + b[y * w + x];
}

/* transpose: streaming, no reuse, uncoalesced store */
__global__ void transpose_naive(float *out, const float *in, int w, int h)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	if (x < w && y < h)
		out[x * h + y] = in[y * w + x];
}

/* naive GEMM: k-loop over global memory */
__global__ void gemm_naive(const float *A, const float *B, float *C, int M,
			   int N, int K)
{
	int row = blockIdx.y * blockDim.y + threadIdx.y;
	int col = blockIdx.x * blockDim.x + threadIdx.x;
	if (row < M && col < N) {
		float acc = 0.0f;
		for (int k = 0; k < K; ++k)
			acc += A[row * K + k] * B[k * N + col];
		C[row * N + col] = acc;
	}
}

/* tiled GEMM: shared-memory tiles, k-loop, not naive */
__global__ void gemm_tiled(const float *A, const float *B, float *C, int M,
			   int N, int K)
{
	__shared__ float As[TILE][TILE];
	__shared__ float Bs[TILE][TILE];
	int tx = threadIdx.x, ty = threadIdx.y;
	int row = blockIdx.y * TILE + ty;
	int col = blockIdx.x * TILE + tx;
	float acc = 0.0f;
	for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
		As[ty][tx] = (row < M && t * TILE + tx < K) ? A[row * K + t * TILE + tx] : 0.0f;
		Bs[ty][tx] = (col < N && t * TILE + ty < K) ? B[(t * TILE + ty) * N + col] : 0.0f;
		__syncthreads();
		for (int k = 0; k < TILE; ++k)
			acc += As[ty][k] * Bs[k][tx];
		__syncthreads();
	}
	if (row < M && col < N)
		C[row * N + col] = acc;
}

/* dot-product rows (GEMV): a k-loop, reuse of x, not a GEMM */
__global__ void gemv(const float *A, const float *x, float *y, int M, int K)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row < M) {
		float s = 0.0f;
		for (int k = 0; k < K; ++k)
			s += A[row * K + k] * x[k];
		y[row] = s;
	}
}

/* 1-D stencil: neighbouring offsets */
__global__ void stencil3(float *out, const float *in, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i > 0 && i < n - 1)
		out[i] = 0.25f * in[i - 1] + 0.5f * in[i] + 0.25f * in[i + 1];
}

/* 1-D convolution: a window sliding with the thread index */
__global__ void conv1d(float *out, const float *in, const float *w, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float s = 0.0f;
		for (int k = 0; k < 2 * RADIUS + 1; ++k)
			s += in[i + k] * w[k];
		out[i] = s;
	}
}

/* reduction: shared-memory tree, barriers, atomics */
__global__ void reduce_sum(const float *in, float *out, int n)
{
	__shared__ float buf[256];
	int tid = threadIdx.x;
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	buf[tid] = i < n ? in[i] : 0.0f;
	__syncthreads();
	for (int s = blockDim.x / 2; s > 0; s >>= 1) {
		if (tid < s)
			buf[tid] += buf[tid + s];
		__syncthreads();
	}
	if (tid == 0)
		atomicAdd(out, buf[0]);
}

/* warp reduction with shuffles */
__global__ void warp_sum(const float *in, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float v = i < n ? in[i] : 0.0f;
	for (int off = 16; off > 0; off /= 2)
		v += __shfl_down_sync(0xffffffffu, v, off);
	if ((threadIdx.x & 31) == 0)
		atomicAdd(out, v);
}

/* histogram: atomics at data-dependent addresses (irregular) */
__global__ void histogram(const int *data, int *bins, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		atomicAdd(&bins[data[i]], 1);
}

/* gather: indirect loads */
__global__ void gather(float *out, const float *in, const int *idx, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = in[idx[i]];
}

/* vectorized and aligned */
__global__ void copy4(float4 *out, const float4 *in, int n4)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n4)
		out[i] = in[i];
}

/* vectorized through a cast at an odd offset: not provably aligned */
__global__ void copy4_offset(float *out, const float *in, int n4)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n4)
		reinterpret_cast<float4 *>(out)[i] =
			reinterpret_cast<const float4 *>(in + 1)[i];
}

/* vectorized main part plus a scalar tail */
__global__ void scale_vec_tail(float *x, float a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	int n4 = n / 4;
	if (i < n4) {
		float4 v = reinterpret_cast<float4 *>(x)[i];
		v.x *= a; v.y *= a; v.z *= a; v.w *= a;
		reinterpret_cast<float4 *>(x)[i] = v;
	}
	if (i < n % 4)
		x[n4 * 4 + i] *= a;
}

/* double literals and a double function in float code */
__global__ void fp64_leak(float *y, const float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = x[i] * 0.5 + exp((double)x[i]);
}

/* float code done right: no FP64 */
__global__ void fp32_clean(float *y, const float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = x[i] * 0.5f + expf(x[i]);
}

/* run-time division in a loop, and a fixed trip count */
__global__ void divmod_loop(int *out, const int *in, int n, int w)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	int s = 0;
	for (int k = 0; k < 8; ++k)
		s += in[(i + k) / w] % w;
	if (i < n)
		out[i] = s;
}

/* thread-dependent branches that are not bounds checks */
__global__ void divergent(float *y, const float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	if (threadIdx.x % 2 == 0)
		y[i] = x[i] * 2.0f;
	else
		y[i] = x[i] * 3.0f;
}

/* a helper does the loads: walked in place */
__device__ float load_scaled(const float *p, int i, float s)
{
	return p[i] * s;
}

__global__ void via_helper(float *y, const float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = load_scaled(x, i, 2.0f);
}

/* a serial reduction per row, the loop body without braces */
__global__ void row_sum(const float *x, float *y, int rows, int cols)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= rows)
		return;
	float s = 0.0f;
	for (int c = 0; c < cols; c++)
		s += x[row * cols + c];
	y[row] = s;
}

/* a running maximum */
__global__ void row_max(const float *x, float *y, int rows, int cols)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= rows)
		return;
	float m = x[row * cols];
	for (int c = 1; c < cols; c++)
		m = fmaxf(m, x[row * cols + c]);
	y[row] = m;
}

/* a sum of squares: a product of a load with itself is no dot product */
__global__ void sum_squares(const float *x, float *y, int rows, int cols)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= rows)
		return;
	float s = 0.0f;
	for (int c = 0; c < cols; c++)
		s += x[row * cols + c] * x[row * cols + c];
	y[row] = s;
}

/* streaming cache hints (sm_32_intrinsics.h; clang's wrapper lacks them) */
__global__ void stream_hint(float4 *y, const float4 *x, int n4)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n4)
		__stcs(&y[i], __ldcs(&x[i]));
}
