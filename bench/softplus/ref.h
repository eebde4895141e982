// ref.h: CPU reference for softplus as PyTorch defines it with beta = 1 and
// threshold = 20:
//   y = x                 if x > 20
//   y = log(1 + exp(x))   otherwise
// computed in double.
#pragma once

#include <cmath>
#include <cstddef>

static const double SOFTPLUS_THRESHOLD = 20.0;

static inline double
softplus_ref(double x)
{
	return x > SOFTPLUS_THRESHOLD ? x : std::log1p(std::exp(x));
}

static inline void
softplus_ref_array(const float *x, float *y, size_t n)
{
	for (size_t i = 0; i < n; i++)
		y[i] = (float)softplus_ref((double)x[i]);
}
