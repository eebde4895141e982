// test_ref.cpp: checks the gemm_transposed reference against a product
// worked out by hand and against an explicit transpose followed by an
// ordinary product.
#include "ref.h"
#include "ref_test.h"

int
main()
{
	// A stored 3 x 2 = [1 4; 2 5; 3 6], so A^T = [1 2 3; 4 5 6];
	// A^T * [7 8; 9 10; 11 12] = [58 64; 139 154].
	const float A[6] = {1, 4, 2, 5, 3, 6};
	const float B[6] = {7, 8, 9, 10, 11, 12};
	float C[4] = {0, 0, 0, 0};
	gemm_tn_ref(A, B, C, 2, 2, 3);
	REF_CHECK_NEAR(C[0], 58.0, 0.0);
	REF_CHECK_NEAR(C[1], 64.0, 0.0);
	REF_CHECK_NEAR(C[2], 139.0, 0.0);
	REF_CHECK_NEAR(C[3], 154.0, 0.0);
	// Negative: reading the storage as if it were A (2 x 3, [1 4 2; 5 3 6])
	// gives C[0][0] = 7 + 36 + 22 = 65, not 58.
	REF_CHECK(C[0] != 65.0f);

	// M = 4, N = 3, K = 5 against transpose-then-multiply.
	const int M = 4, N = 3, K = 5;
	float X[K * M], Y[K * N], T[M * K], Z[M * N];
	for (int i = 0; i < K * M; i++)
		X[i] = (float)((i * 7) % 11) - 5.0f;
	for (int i = 0; i < K * N; i++)
		Y[i] = 0.5f * (float)((i * 5) % 9) - 2.0f;
	for (int k = 0; k < K; k++)
		for (int i = 0; i < M; i++)
			T[i * K + k] = X[k * M + i];
	gemm_tn_ref(X, Y, Z, M, N, K);
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++) {
			double w = 0.0;
			for (int k = 0; k < K; k++)
				w += (double)T[i * K + k] * Y[k * N + j];
			REF_CHECK_NEAR(Z[i * N + j], w, 1e-6);
		}
	// The transposed reading matters: this A is not symmetric in layout.
	REF_CHECK(gemm_tn_ref_elem(X, Y, M, N, K, 1, 0) !=
		  gemm_tn_ref_elem(T, Y, M, N, K, 1, 0));

	// The sample: all indices when small, else spread, increasing, in range.
	std::vector<size_t> all = gemm_ref_sample(10, 16);
	REF_CHECK(all.size() == 10 && all.front() == 0 && all.back() == 9);
	const size_t n = (size_t)4096 * 4096;
	std::vector<size_t> s = gemm_ref_sample(n, 4096);
	REF_CHECK(s.front() == 0 && s.back() == n - 1);
	bool increasing = true, cols_vary = false;
	for (size_t q = 1; q < s.size(); q++) {
		increasing = increasing && s[q] > s[q - 1] && s[q] < n;
		cols_vary = cols_vary || s[q] % 4096 != s[q - 1] % 4096;
	}
	REF_CHECK(increasing);
	REF_CHECK(cols_vary);
	REF_TEST_END();
}
