// ref.h: CPU reference for gemv, y = A * x with A an M x N row-major fp32
// matrix, accumulated in double.
#pragma once

#include <cstddef>

// One element y[i], the dot product of row i of A with x.
static inline double
gemv_ref_row(const float *A, const float *x, size_t N, size_t i)
{
	double s = 0.0;
	for (size_t j = 0; j < N; j++)
		s += (double)A[i * N + j] * (double)x[j];
	return s;
}

static inline void
gemv_ref(const float *A, const float *x, float *y, size_t M, size_t N)
{
	for (size_t i = 0; i < M; i++)
		y[i] = (float)gemv_ref_row(A, x, N, i);
}
