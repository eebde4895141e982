// ref.h: CPU reference for the chain conv2d -> batch norm (inference) -> ReLU.
//
// conv2d: direct 2-D convolution (cross-correlation, as in PyTorch's Conv2d)
// in NCHW layout with bias, 3x3 kernel, stride 1, padding 1 (zeros):
//   c[n][k][oy][ox] = b[k] + sum_{c, r, s} x[n][c][oy + r - 1][ox + s - 1] * w[k][c][r][s]
// x is [N][C][H][W], w is [K][C][3][3], b is [K], c is [N][K][H][W].
// batch norm, inference mode, per output channel k with running statistics:
//   z = (c - mean[k]) / sqrt(var[k] + eps) * gamma[k] + beta[k]
// ReLU: y = max(z, 0).
// Computed in double.
#pragma once

#include <cmath>
#include <cstddef>

static const float BN_EPS = 1e-5f;

struct conv_shape {
	int N, C, H, W, K;
};

// One conv output element.
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

// Output channel of flat NCHW index i of the [N][K][H][W] output.
static inline int
conv_channel(const conv_shape &s, size_t i)
{
	return (int)(i / ((size_t)s.W * s.H) % s.K);
}

// The conv output element at flat NCHW index i.
static inline double
conv2d_ref_flat(const float *x, const float *w, const float *b, const conv_shape &s,
		size_t i)
{
	int ox = (int)(i % s.W);
	int oy = (int)(i / s.W % s.H);
	int n = (int)(i / ((size_t)s.W * s.H * s.K));
	return conv2d_ref_at(x, w, b, s, n, conv_channel(s, i), oy, ox);
}

static inline double
batchnorm_ref(double v, double mean, double var, double gamma, double beta, double eps)
{
	return (v - mean) / std::sqrt(var + eps) * gamma + beta;
}

static inline double
relu_ref(double v)
{
	return v > 0.0 ? v : 0.0;
}

// Batch norm of a whole [N][K][H][W] tensor.
static inline void
batchnorm_ref_array(const float *in, const float *mean, const float *var,
		    const float *gamma, const float *beta, const conv_shape &s,
		    double eps, float *out)
{
	size_t total = (size_t)s.N * s.K * s.H * s.W;
	for (size_t i = 0; i < total; i++) {
		int k = conv_channel(s, i);
		out[i] = (float)batchnorm_ref(in[i], mean[k], var[k], gamma[k], beta[k], eps);
	}
}

// The chain's final output at flat NCHW index i.
static inline double
chain_ref_flat(const float *x, const float *w, const float *b, const float *mean,
	       const float *var, const float *gamma, const float *beta,
	       const conv_shape &s, double eps, size_t i)
{
	int k = conv_channel(s, i);
	double c = conv2d_ref_flat(x, w, b, s, i);
	return relu_ref(batchnorm_ref(c, mean[k], var[k], gamma[k], beta[k], eps));
}
