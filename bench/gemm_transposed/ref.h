// ref.h: CPU reference for gemm_transposed, C = A^T * B with row-major fp32
// storage: A is stored K x M (so A^T is M x K), B is K x N, C is M x N.
// Accumulated in double.
#pragma once

#include <cstddef>
#include <vector>

// One element C[i][j] = sum over k of A[k][i] * B[k][j].
static inline double
gemm_tn_ref_elem(const float *A, const float *B, size_t M, size_t N,
		 size_t K, size_t i, size_t j)
{
	double s = 0.0;
	for (size_t k = 0; k < K; k++)
		s += (double)A[k * M + i] * (double)B[k * N + j];
	return s;
}

// The whole product (the tests and the small size use it).
static inline void
gemm_tn_ref(const float *A, const float *B, float *C, size_t M, size_t N,
	    size_t K)
{
	for (size_t i = 0; i < M; i++)
		for (size_t j = 0; j < N; j++)
			C[i * N + j] = (float)gemm_tn_ref_elem(A, B, M, N, K, i, j);
}

// A deterministic sample of about `count` indices spread over [0, n): one in
// each of `count` equal stripes, at an offset that moves from stripe to
// stripe (for a row-sized stripe, a different column in every row), plus the
// last index. Every index when n <= count. Increasing, no repeats.
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
