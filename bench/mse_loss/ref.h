// ref.h: CPU reference for the mean squared error of two vectors,
//   mse = (1 / n) * sum_i (pred[i] - target[i])^2,
// computed in double.
#pragma once

#include <cstddef>

static inline double
mse_ref(const float *pred, const float *target, size_t n)
{
	double s = 0.0;
	for (size_t i = 0; i < n; i++) {
		double d = (double)pred[i] - (double)target[i];
		s += d * d;
	}
	return s / (double)n;
}
