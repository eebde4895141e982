// ref.h: CPU reference for gemm_batched, C[b] = A[b] * B[b] for a batch of
// row-major fp32 matrices stored one after another (A[b] is M x K, B[b] is
// K x N, C[b] is M x N). Accumulated in double.
#pragma once

#include <cstddef>
#include <vector>

// One element C[b][i][j].
static inline double
gemm_batched_ref_elem(const float *A, const float *B, size_t M, size_t N,
		      size_t K, size_t b, size_t i, size_t j)
{
	const float *a = A + b * M * K, *bm = B + b * K * N;
	double s = 0.0;
	for (size_t k = 0; k < K; k++)
		s += (double)a[i * K + k] * (double)bm[k * N + j];
	return s;
}

// Element `e` of the whole output (batch-major, then row, then column).
static inline double
gemm_batched_ref_at(const float *A, const float *B, size_t M, size_t N,
		    size_t K, size_t e)
{
	const size_t b = e / (M * N), r = e % (M * N);
	return gemm_batched_ref_elem(A, B, M, N, K, b, r / N, r % N);
}

// The whole batch (the tests and the small size use it).
static inline void
gemm_batched_ref(const float *A, const float *B, float *C, size_t batch,
		 size_t M, size_t N, size_t K)
{
	for (size_t e = 0; e < batch * M * N; e++)
		C[e] = (float)gemm_batched_ref_at(A, B, M, N, K, e);
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
