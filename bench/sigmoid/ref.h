// ref.h: CPU reference for the logistic sigmoid, y = 1 / (1 + exp(-x)),
// computed in double.
#pragma once

#include <cmath>
#include <cstddef>

static inline double
sigmoid_ref(double x)
{
	return 1.0 / (1.0 + std::exp(-x));
}

static inline void
sigmoid_ref_array(const float *x, float *y, size_t n)
{
	for (size_t i = 0; i < n; i++)
		y[i] = (float)sigmoid_ref((double)x[i]);
}
