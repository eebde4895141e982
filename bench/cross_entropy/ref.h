// ref.h: CPU reference for the mean cross-entropy loss of [rows x cols]
// logits against integer class targets,
//   loss_r = log(sum_c exp(x[r][c] - m_r)) + m_r - x[r][target[r]],
//   m_r = max_c x[r][c],   loss = (1 / rows) * sum_r loss_r,
// computed in double.
#pragma once

#include <cmath>
#include <cstddef>

static inline double
cross_entropy_row_ref(const float *xr, int target, size_t cols)
{
	double m = xr[0];
	for (size_t c = 1; c < cols; c++)
		m = std::fmax(m, (double)xr[c]);
	double s = 0.0;
	for (size_t c = 0; c < cols; c++)
		s += std::exp((double)xr[c] - m);
	return std::log(s) + m - (double)xr[target];
}

static inline double
cross_entropy_ref(const float *x, const int *target, size_t rows, size_t cols)
{
	double total = 0.0;
	for (size_t r = 0; r < rows; r++)
		total += cross_entropy_row_ref(x + r * cols, target[r], cols);
	return total / (double)rows;
}
