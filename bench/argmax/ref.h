// ref.h: CPU reference for the argmax over the last dimension of a
// [rows x cols] matrix: idx[r] = the smallest c with x[r][c] equal to the
// row's maximum (ties go to the first index). Inputs hold no NaN.
#pragma once

#include <cstddef>

static inline void
argmax_ref(const float *x, int *idx, size_t rows, size_t cols)
{
	for (size_t r = 0; r < rows; r++) {
		const float *xr = x + r * cols;
		size_t best = 0;
		for (size_t c = 1; c < cols; c++)
			if (xr[c] > xr[best])
				best = c;
		idx[r] = (int)best;
	}
}
