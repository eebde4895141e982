// ref.h: CPU reference for the transpose of a row-major [rows x cols]
// matrix into a row-major [cols x rows] matrix: y[c][r] = x[r][c].
#pragma once

#include <cstddef>

static inline void
transpose_ref(const float *x, float *y, size_t rows, size_t cols)
{
	for (size_t r = 0; r < rows; r++)
		for (size_t c = 0; c < cols; c++)
			y[c * rows + r] = x[r * cols + c];
}
