// ref.h: CPU reference for gemm_bias_act_scale, out = scale * gelu(A * B +
// bias) with row-major fp32 matrices (A is M x K, B is K x N, the bias has
// one value per column), computed in double. GELU is the exact form,
// gelu(x) = x/2 * (1 + erf(x / sqrt(2))).
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

// One element (A * B)[i][j].
static inline double
gemm_ref_elem(const float *A, const float *B, size_t N, size_t K, size_t i,
	      size_t j)
{
	double s = 0.0;
	for (size_t k = 0; k < K; k++)
		s += (double)A[i * K + k] * (double)B[k * N + j];
	return s;
}

static inline double
gelu_ref(double x)
{
	return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
}

// The three elementwise stages, each from the previous stage's output.
static inline void
bias_ref_array(const float *C, const float *bias, float *Y, size_t M,
	       size_t N)
{
	for (size_t i = 0; i < M; i++)
		for (size_t j = 0; j < N; j++)
			Y[i * N + j] = (float)((double)C[i * N + j] + (double)bias[j]);
}

static inline void
gelu_ref_array(const float *X, float *Y, size_t n)
{
	for (size_t i = 0; i < n; i++)
		Y[i] = (float)gelu_ref((double)X[i]);
}

static inline void
scale_ref_array(const float *X, float scale, float *Y, size_t n)
{
	for (size_t i = 0; i < n; i++)
		Y[i] = (float)((double)scale * (double)X[i]);
}

// One element of the whole chain, from the inputs.
static inline double
chain_ref_elem(const float *A, const float *B, const float *bias, float scale,
	       size_t N, size_t K, size_t i, size_t j)
{
	return (double)scale *
	       gelu_ref(gemm_ref_elem(A, B, N, K, i, j) + (double)bias[j]);
}

// A deterministic sample of about `count` indices spread over [0, n): one in
// each of `count` equal stripes, at an offset that moves from stripe to
// stripe, plus the last index. Every index when n <= count. Increasing, no
// repeats.
static inline std::vector<size_t>
gemm_ref_sample(size_t n, size_t count)
{
	std::vector<size_t> idx;
	if (n <= count) {
		for (size_t i = 0; i < n; i++)
			idx.push_back(i);
		return idx;
	}
	const size_t stripe = n / count;
	for (size_t s = 0; s < count; s++)
		idx.push_back(s * stripe + (s * 2654435761u) % stripe);
	if (idx.back() != n - 1)
		idx.push_back(n - 1);
	return idx;
}
