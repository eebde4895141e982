// Sliding-window reductions for pool_window_rows (tests/suites/xf_pool.sh,
// tests/unit/test_xf_pool.c): pooling kernels in other shapes than the
// bench's, and look-alikes it must decline.
#include <math.h>

// A 3x3 window of constant bounds and stride 2, padding 1, 32-bit flat
// index, the row loop written over columns first.
__global__ void
maxpool_const(const float *x, float *y, int n, int c, int h, int w, int ho, int wo,
	      int k, int s, int p)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n * c * ho * wo)
		return;
	int ow = i % wo;
	int t = i / wo;
	int oh = t % ho;
	int nc = t / ho;
	float m = -INFINITY;
	for (int kw = 0; kw < 3; kw++) {
		int iw = ow * 2 - 1 + kw;
		if (iw < 0 || iw >= w)
			continue;
		for (int kh = 0; kh < 3; kh++) {
			int ih = oh * 2 - 1 + kh;
			if (ih < 0 || ih >= h)
				continue;
			m = fmaxf(m, x[(nc * h + ih) * w + iw]);
		}
	}
	y[i] = m;
	(void)k;
	(void)s;
	(void)p;
}

// Average pooling counting the padding (divides by k * k), window and
// stride as parameters.
__global__ void
avgpool_incl(const float *x, float *y, int n, int c, int h, int w, int ho, int wo,
	     int k, int s, int p)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= (size_t)n * c * ho * wo)
		return;
	int ow = (int)(i % wo);
	size_t t = i / wo;
	int oh = (int)(t % ho);
	size_t nc = t / ho;
	float acc = 0.0f;
	for (int a = 0; a < k; a++) {
		int ih = oh * s - p + a;
		for (int b = 0; b < k; b++) {
			int iw = ow * s - p + b;
			if (ih >= 0 && ih < h && iw >= 0 && iw < w)
				acc += x[nc * h * w + (size_t)ih * w + iw];
		}
	}
	y[i] = acc / (float)(k * k);
}

// L2 pooling without padding: sqrt of the window's sum of squares.
__global__ void
l2pool(const float *x, float *y, int n, int c, int h, int w, int ho, int wo,
       int k, int s, int p)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= (size_t)n * c * ho * wo)
		return;
	size_t ow = i % wo;
	size_t oh = (i / wo) % ho;
	size_t nc = i / wo / ho;
	const float *xp = x + nc * h * w + oh * s * w + ow * s;
	float q = 0.0f;
	for (int a = 0; a < k; a++)
		for (int b = 0; b < k; b++) {
			float v = xp[a * w + b];
			q += v * v;
		}
	y[i] = sqrtf(q);
	(void)p;
}

// --- look-alikes ---

// The window's offset comes from memory.
__global__ void
gather_pool(const float *x, const int *base, float *y, int n, int c, int h, int w,
	    int ho, int wo, int k, int s, int p)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= (size_t)n * c * ho * wo)
		return;
	int ow = (int)(i % wo);
	size_t t = i / wo;
	int oh = (int)(t % ho);
	float m = -INFINITY;
	for (int a = 0; a < k; a++)
		for (int b = 0; b < k; b++)
			m = fmaxf(m, x[base[t / ho] + (oh * s + a) * w + ow * s + b]);
	y[i] = m;
	(void)h;
	(void)p;
}

// Two arrays read through the window (a difference of two images).
__global__ void
two_windows(const float *x, const float *z, float *y, int n, int c, int h, int w,
	    int ho, int wo, int k, int s, int p)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= (size_t)n * c * ho * wo)
		return;
	int ow = (int)(i % wo);
	size_t t = i / wo;
	int oh = (int)(t % ho);
	size_t nc = t / ho;
	float d = 0.0f;
	for (int a = 0; a < k; a++)
		for (int b = 0; b < k; b++) {
			size_t o = nc * h * w + (size_t)(oh * s + a) * w + ow * s + b;
			d += x[o] - z[o];
		}
	y[i] = d;
	(void)p;
}

// The window loop runs one row too far (<=).
__global__ void
inclusive_bound(const float *x, float *y, int n, int c, int h, int w, int ho, int wo,
		int k, int s, int p)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= (size_t)n * c * ho * wo)
		return;
	int ow = (int)(i % wo);
	size_t t = i / wo;
	int oh = (int)(t % ho);
	size_t nc = t / ho;
	float m = -INFINITY;
	for (int a = 0; a <= k; a++)
		for (int b = 0; b < k; b++) {
			int ih = oh * s + a, iw = ow * s + b;
			if (ih < h && iw < w)
				m = fmaxf(m, x[nc * h * w + (size_t)ih * w + iw]);
		}
	y[i] = m;
	(void)p;
}

// The output is written transposed (column-major rows): not at the flat
// index.
__global__ void
transposed_out(const float *x, float *y, int n, int c, int h, int w, int ho, int wo,
	       int k, int s, int p)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= (size_t)n * c * ho * wo)
		return;
	int ow = (int)(i % wo);
	size_t t = i / wo;
	int oh = (int)(t % ho);
	size_t nc = t / ho;
	float m = -INFINITY;
	for (int a = 0; a < k; a++)
		for (int b = 0; b < k; b++)
			m = fmaxf(m, x[nc * h * w + (size_t)(oh * s + a) * w + ow * s + b]);
	y[nc * ho * wo + (size_t)ow * ho + oh] = m;
	(void)p;
}

// The threads of a block share a staged row (cooperating threads).
__global__ void
staged_rows(const float *x, float *y, int n, int c, int h, int w, int ho, int wo,
	    int k, int s, int p)
{
	__shared__ float row[256];
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	row[threadIdx.x] = i < (size_t)n * c * h * w ? x[i] : 0.0f;
	__syncthreads();
	if (i >= (size_t)n * c * ho * wo)
		return;
	int ow = (int)(i % wo);
	size_t t = i / wo;
	int oh = (int)(t % ho);
	float m = row[(oh * s + ow * s) % 256];
	for (int a = 0; a < k; a++)
		for (int b = 0; b < k; b++)
			m = fmaxf(m, x[(t / ho) * h * w + (size_t)(oh * s + a) * w + ow * s + b]);
	y[i] = m;
	(void)p;
}

// A 2-D image pooled in k x k windows: one quotient (the row), a window
// of several rows.
__global__ void
image_pool(const float *x, float *y, int h, int w, int ho, int wo, int k, int s)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= (size_t)ho * wo)
		return;
	size_t ow = i % wo, oh = i / wo;
	float m = -INFINITY;
	for (int a = 0; a < k; a++)
		for (int b = 0; b < k; b++)
			m = fmaxf(m, x[(oh * s + a) * w + ow * s + b]);
	y[i] = m;
	(void)h;
}

// Rows of a 2-D array pooled along x only: one quotient, a one-row window
// (applies).
__global__ void
row_pool(const float *x, float *y, int rows, int w, int wo, int k, int s)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= (size_t)rows * wo)
		return;
	size_t ow = i % wo, r = i / wo;
	float m = -INFINITY;
	for (int b = 0; b < k; b++)
		m = fmaxf(m, x[r * w + ow * s + b]);
	y[i] = m;
}

// No early exit: the work sits inside `if (i < total)`.
__global__ void
guarded_body(const float *x, float *y, int n, int c, int h, int w, int ho, int wo,
	     int k, int s, int p)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < (size_t)n * c * ho * wo) {
		int ow = (int)(i % wo);
		size_t t = i / wo;
		int oh = (int)(t % ho);
		size_t nc = t / ho;
		float m = -INFINITY;
		for (int a = 0; a < k; a++)
			for (int b = 0; b < k; b++)
				m = fmaxf(m, x[nc * h * w + (size_t)(oh * s + a) * w + ow * s + b]);
		y[i] = m;
	}
	(void)p;
}
