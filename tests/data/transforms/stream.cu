// Kernels for vectorize_memory's packed body (tests/unit/test_xf_stream.c,
// tests/suites/xf_stream.sh): bounds checks in the forms the group check
// decides, which the packed body then has as constants, next to
// comparisons it must leave alone. Every kernel takes (x, y, n, m), so
// that one CPU check (stream_check.cpp) runs them all.
#include <cuda_runtime.h>

// one guard; the value chosen on the loaded data and on a parameter stay
// comparisons
__global__ void
guarded(const float *x, float *y, int n, int m)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n) {
		float v = x[i];
		y[i] = (v > 0.5f ? v : log1pf(expf(v))) * (m > 0 ? 1.0f : 0.5f);
	}
}

// an early exit: the comparison is false where the packed path runs
__global__ void
early_exit(const float *x, float *y, int n, int m)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= n)
		return;
	y[i] = x[i] * 2.0f + (float)m;
}

// two guards joined by &&
__global__ void
two_guards(const float *x, float *y, int n, int m)
{
	long i = (long)blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n && i < m)
		y[i] = x[i] - 1.0f;
}

// two exits joined by ||, one of them at an offset
__global__ void
either_exit(const float *x, float *y, int n, int m)
{
	int i = threadIdx.x + blockIdx.x * blockDim.x;

	if (i >= n || i + 2 >= m)
		return;
	y[i] = -x[i];
}

// a check on the thread's coordinate in its block (not the flat index),
// and a bounds check that only chooses a value
__global__ void
block_part(const float *x, float *y, int n, int m)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (threadIdx.x < 192 && i < n)
		y[i] = i < m ? x[i] : 0.0f;
}

// look-alike: the exit is taken when the comparison is false, which the
// facts do not tell apart from a plain `if (i < n) return;`
__global__ void
negated_exit(const float *x, float *y, int n, int m)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (!(i < n))
		return;
	y[i] = x[i] + (float)m;
}

// look-alike: a bounds check that chooses a switch's case
__global__ void
switch_guard(const float *x, float *y, int n, int m)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	switch (i < n) {
	case 1:
		y[i] = x[i] * (float)m;
		break;
	default:
		break;
	}
}

void
run(const float *x, float *y, int n, int m, cudaStream_t st)
{
	const unsigned g = (unsigned)((n + 255) / 256);

	guarded<<<g, 256, 0, st>>>(x, y, n, m);
	early_exit<<<g, 256, 0, st>>>(x, y, n, m);
	two_guards<<<g, 256, 0, st>>>(x, y, n, m);
	either_exit<<<g, 256, 0, st>>>(x, y, n, m);
	block_part<<<g, 256, 0, st>>>(x, y, n, m);
	negated_exit<<<g, 256, 0, st>>>(x, y, n, m);
	switch_guard<<<g, 256, 0, st>>>(x, y, n, m);
}
