// ref.h: CPU reference for the row sum of a [rows x cols] matrix,
//   y[r] = sum_c x[r][c],
// accumulated in double and rounded to float once.
#pragma once

#include <cstddef>

static inline void
reduce_sum_ref(const float *x, float *y, size_t rows, size_t cols)
{
	for (size_t r = 0; r < rows; r++) {
		const float *xr = x + r * cols;
		double s = 0.0;
		for (size_t c = 0; c < cols; c++)
			s += xr[c];
		y[r] = (float)s;
	}
}
