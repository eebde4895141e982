// test_ref.cpp: checks the gemm_batched reference against products worked
// out by hand and against an ordinary product of each slice.
#include "ref.h"
#include "ref_test.h"

int
main()
{
	// Batch 0: [1 2; 3 4] * [5 6; 7 8] = [19 22; 43 50].
	// Batch 1: [2 0; 1 -1] * [1 2; 3 4] = [2 4; -2 -2].
	const float A[8] = {1, 2, 3, 4, 2, 0, 1, -1};
	const float B[8] = {5, 6, 7, 8, 1, 2, 3, 4};
	const float want[8] = {19, 22, 43, 50, 2, 4, -2, -2};
	float C[8];
	gemm_batched_ref(A, B, C, 2, 2, 2, 2);
	for (int i = 0; i < 8; i++)
		REF_CHECK_NEAR(C[i], want[i], 0.0);
	// Negative: batch 1 with batch 0's B would give [10 12; -2 -2].
	REF_CHECK(C[4] != 10.0f && C[5] != 12.0f);

	// 3 batches of 4x5 by 5x3 against a plain product of each slice.
	const int nb = 3, M = 4, N = 3, K = 5;
	float X[nb * M * K], Y[nb * K * N], Z[nb * M * N];
	for (int i = 0; i < nb * M * K; i++)
		X[i] = (float)((i * 7) % 11) - 5.0f;
	for (int i = 0; i < nb * K * N; i++)
		Y[i] = 0.5f * (float)((i * 5) % 9) - 2.0f;
	gemm_batched_ref(X, Y, Z, nb, M, N, K);
	for (int b = 0; b < nb; b++)
		for (int i = 0; i < M; i++)
			for (int j = 0; j < N; j++) {
				double w = 0.0;
				for (int k = 0; k < K; k++)
					w += (double)X[b * M * K + i * K + k] *
					     Y[b * K * N + k * N + j];
				REF_CHECK_NEAR(Z[b * M * N + i * N + j], w, 1e-6);
			}
	// The flat index maps to (batch, row, column).
	REF_CHECK_NEAR(gemm_batched_ref_at(X, Y, M, N, K, 2 * M * N + 1 * N + 2),
		       gemm_batched_ref_elem(X, Y, M, N, K, 2, 1, 2), 0.0);
	REF_CHECK(gemm_batched_ref_elem(X, Y, M, N, K, 1, 0, 0) !=
		  gemm_batched_ref_elem(X, Y, M, N, K, 0, 0, 0));

	// The sample: all indices when small, else spread, increasing, in
	// range, and reaching every batch.
	std::vector<size_t> all = gemm_ref_sample(10, 16);
	REF_CHECK(all.size() == 10 && all.front() == 0 && all.back() == 9);
	const size_t mn = (size_t)512 * 512, n = 64 * mn;
	std::vector<size_t> s = gemm_ref_sample(n, 4096);
	REF_CHECK(s.front() == 0 && s.back() == n - 1);
	bool increasing = true;
	std::vector<int> per_batch(64, 0);
	for (size_t q = 0; q < s.size(); q++) {
		increasing = increasing && (q == 0 || s[q] > s[q - 1]) && s[q] < n;
		per_batch[s[q] / mn]++;
	}
	REF_CHECK(increasing);
	bool every = true;
	for (int b = 0; b < 64; b++)
		every = every && per_batch[b] >= 64;
	REF_CHECK(every);
	REF_TEST_END();
}
