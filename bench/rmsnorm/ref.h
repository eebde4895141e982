// ref.h: CPU reference for RMS normalization over the last dimension of a
// [rows x cols] matrix, with a per-column weight (as in LLaMA-style models):
//   y[r][j] = x[r][j] / sqrt(sum_k x[r][k]^2 / cols + eps) * w[j]
// with eps = 1e-6, computed in double.
#pragma once

#include <cmath>
#include <cstddef>

static const float RMSNORM_EPS = 1e-6f;

static inline void
rmsnorm_ref(const float *x, const float *w, float *y, size_t rows, size_t cols,
	    double eps)
{
	for (size_t r = 0; r < rows; r++) {
		const float *xr = x + r * cols;
		float *yr = y + r * cols;
		double ss = 0.0;
		for (size_t j = 0; j < cols; j++)
			ss += (double)xr[j] * xr[j];
		double rinv = 1.0 / std::sqrt(ss / (double)cols + eps);
		for (size_t j = 0; j < cols; j++)
			yr[j] = (float)(xr[j] * rinv * w[j]);
	}
}
