// ref.h: CPU reference for the row softmax of a [rows x cols] matrix,
//   y[r][j] = exp(x[r][j] - m_r) / sum_k exp(x[r][k] - m_r),
//   m_r = max_k x[r][k],
// computed in double.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

static inline void
softmax_ref(const float *x, float *y, size_t rows, size_t cols)
{
	std::vector<double> e(cols);
	for (size_t r = 0; r < rows; r++) {
		const float *xr = x + r * cols;
		float *yr = y + r * cols;
		double m = xr[0];
		for (size_t j = 1; j < cols; j++)
			m = std::fmax(m, (double)xr[j]);
		double sum = 0.0;
		for (size_t j = 0; j < cols; j++) {
			e[j] = std::exp((double)xr[j] - m);
			sum += e[j];
		}
		for (size_t j = 0; j < cols; j++)
			yr[j] = (float)(e[j] / sum);
	}
}
