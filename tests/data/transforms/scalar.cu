// Kernels for the in-place transforms (tests/suites/transforms.sh).
#include <cuda_runtime.h>

// a constant loop, double literals and a double call in float code
__global__ void
poly(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= n)
		return;
	float v = x[i], s = 0.0f;
	for (int k = 0; k < 8; k++) { s = s * v + 0.5f; }
	for (int k = 0; k < n; k++)
		s += 1.0f;
	y[i] = 0.5 * s + exp(v) * 1e-3 + expf(-v) / sinf(v);
}

// look-alike: the double arithmetic is meant (the kernel declares doubles)
__global__ void
dpoly(const double *x, double *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		y[i] = 0.5 * exp(x[i]);
}

// 2-D, a trip count that is a parameter, member access named like a call
struct coef {
	float exp;
	int taps;
};

__global__ void
taps2d(const float *in, float *out, int w, int h, coef c)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;

	if (x >= w || y >= h)
		return;
	float s = 0.0f;
	for (int t = 0; t < c.taps; t++)
		s += in[y * w + (x + t) % w];
	out[y * w + x] = s * c.exp;
}

void
run(const float *x, float *y, const double *dx, double *dy, int n, coef c)
{
	poly<<<(n + 255) / 256, 256>>>(x, y, n);
	dpoly<<<(n + 255) / 256, 256>>>(dx, dy, n);
	taps2d<<<dim3((n + 15) / 16, 4), dim3(16, 16)>>>(x, y, n, 4, c);
}
