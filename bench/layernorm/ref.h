// ref.h: CPU reference for layer normalization over the last dimension of a
// [rows x cols] matrix, with per-column gamma and beta:
//   mean_r = sum_j x[r][j] / cols
//   var_r  = sum_j (x[r][j] - mean_r)^2 / cols        (biased, as PyTorch)
//   y[r][j] = (x[r][j] - mean_r) / sqrt(var_r + eps) * gamma[j] + beta[j]
// computed in double.
#pragma once

#include <cmath>
#include <cstddef>

static const float LAYERNORM_EPS = 1e-5f;

static inline void
layernorm_ref(const float *x, const float *gamma, const float *beta, float *y,
	      size_t rows, size_t cols, double eps)
{
	for (size_t r = 0; r < rows; r++) {
		const float *xr = x + r * cols;
		float *yr = y + r * cols;
		double mean = 0.0;
		for (size_t j = 0; j < cols; j++)
			mean += xr[j];
		mean /= (double)cols;
		double var = 0.0;
		for (size_t j = 0; j < cols; j++) {
			double d = xr[j] - mean;
			var += d * d;
		}
		var /= (double)cols;
		double rstd = 1.0 / std::sqrt(var + eps);
		for (size_t j = 0; j < cols; j++)
			yr[j] = (float)((xr[j] - mean) * rstd * gamma[j] + beta[j]);
	}
}
