// ref.h: CPU reference for a direct 2-D convolution (cross-correlation, as
// in PyTorch's Conv2d) in NCHW layout with bias, 3x3 kernel, stride 1,
// padding 1 (zeros), so the output is as large as the input:
//   y[n][k][oy][ox] = b[k] + sum_{c, r, s} x[n][c][oy + r - 1][ox + s - 1] * w[k][c][r][s]
// x is [N][C][H][W], w is [K][C][3][3], b is [K], y is [N][K][H][W].
// Accumulates in double.
#pragma once

#include <cstddef>

struct conv_shape {
	int N, C, H, W, K;
};

// One output element.
static inline double
conv2d_ref_at(const float *x, const float *w, const float *b, const conv_shape &s,
	      int n, int k, int oy, int ox)
{
	double acc = b[k];
	for (int c = 0; c < s.C; c++)
		for (int r = 0; r < 3; r++) {
			int iy = oy + r - 1;
			if (iy < 0 || iy >= s.H)
				continue;
			for (int q = 0; q < 3; q++) {
				int ix = ox + q - 1;
				if (ix < 0 || ix >= s.W)
					continue;
				acc += (double)x[(((size_t)n * s.C + c) * s.H + iy) * s.W + ix] *
				       w[(((size_t)k * s.C + c) * 3 + r) * 3 + q];
			}
		}
	return acc;
}

// The output element at flat NCHW index i of y.
static inline double
conv2d_ref_flat(const float *x, const float *w, const float *b, const conv_shape &s,
		size_t i)
{
	int ox = (int)(i % s.W);
	int oy = (int)(i / s.W % s.H);
	int k = (int)(i / ((size_t)s.W * s.H) % s.K);
	int n = (int)(i / ((size_t)s.W * s.H * s.K));
	return conv2d_ref_at(x, w, b, s, n, k, oy, ox);
}

// The whole output.
static inline void
conv2d_ref(const float *x, const float *w, const float *b, const conv_shape &s, float *y)
{
	size_t total = (size_t)s.N * s.K * s.H * s.W;
	for (size_t i = 0; i < total; i++)
		y[i] = (float)conv2d_ref_flat(x, w, b, s, i);
}
