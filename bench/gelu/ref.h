// ref.h: CPU reference for GELU, exact (erf) form:
//   y = 0.5 * x * (1 + erf(x / sqrt(2)))
// (PyTorch's gelu with approximate='none'), computed in double.
#pragma once

#include <cmath>
#include <cstddef>

static inline double
gelu_ref(double x)
{
	return 0.5 * x * (1.0 + std::erf(x * 0.70710678118654752440));
}

static inline void
gelu_ref_array(const float *x, float *y, size_t n)
{
	for (size_t i = 0; i < n; i++)
		y[i] = (float)gelu_ref((double)x[i]);
}
