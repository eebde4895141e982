// ref.h: CPU reference for relu, y = max(x, 0).
#pragma once

#include <cstddef>

static inline double
relu_ref(double x)
{
	return x > 0.0 ? x : 0.0;
}

static inline void
relu_ref_array(const float *x, float *y, size_t n)
{
	for (size_t i = 0; i < n; i++)
		y[i] = (float)relu_ref((double)x[i]);
}
