// ref.h: CPU reference for the inclusive prefix sum along each row of a
// [rows x cols] matrix,
//   y[r][c] = sum_{j <= c} x[r][j],
// with the running sum kept in double and each output rounded to float once.
// It also gives, per output, the running sum of magnitudes
//   mag[r][c] = sum_{j <= c} |x[r][j]|,
// the scale of the rounding error that any float summation of that prefix
// can make (used to set the tolerance of the check).
#pragma once

#include <cmath>
#include <cstddef>

// Running state of one row, carried across calls so that a long row can be
// scanned in pieces.
struct cumsum_state {
	double sum = 0.0;
	double mag = 0.0;
};

// Scans the next n entries of a row; mag may be null.
static inline void
cumsum_ref_part(const float *x, float *y, float *mag, size_t n, cumsum_state &st)
{
	for (size_t j = 0; j < n; j++) {
		st.sum += x[j];
		st.mag += std::fabs((double)x[j]);
		y[j] = (float)st.sum;
		if (mag)
			mag[j] = (float)st.mag;
	}
}

static inline void
cumsum_ref(const float *x, float *y, size_t rows, size_t cols)
{
	for (size_t r = 0; r < rows; r++) {
		cumsum_state st;
		cumsum_ref_part(x + r * cols, y + r * cols, nullptr, cols, st);
	}
}
