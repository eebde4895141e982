// ref.h: CPU reference for the row log-softmax of a [rows x cols] matrix,
//   y[r][j] = x[r][j] - m_r - log(sum_k exp(x[r][k] - m_r)),
//   m_r = max_k x[r][k],
// computed in double.
#pragma once

#include <cmath>
#include <cstddef>

static inline void
log_softmax_ref(const float *x, float *y, size_t rows, size_t cols)
{
	for (size_t r = 0; r < rows; r++) {
		const float *xr = x + r * cols;
		float *yr = y + r * cols;
		double m = xr[0];
		for (size_t j = 1; j < cols; j++)
			m = std::fmax(m, (double)xr[j]);
		double sum = 0.0;
		for (size_t j = 0; j < cols; j++)
			sum += std::exp((double)xr[j] - m);
		double lse = std::log(sum);
		for (size_t j = 0; j < cols; j++)
			yr[j] = (float)((double)xr[j] - m - lse);
	}
}
