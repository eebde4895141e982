// test_ref.cpp: checks the gemm_square reference against a product worked
// out by hand and against an independent loop order.
#include "ref.h"
#include "ref_test.h"

int
main()
{
	// [1 2 3; 4 5 6] * [7 8; 9 10; 11 12] = [58 64; 139 154].
	const float A[6] = {1, 2, 3, 4, 5, 6};
	const float B[6] = {7, 8, 9, 10, 11, 12};
	float C[4] = {0, 0, 0, 0};
	gemm_ref(A, B, C, 2, 2, 3);
	REF_CHECK_NEAR(C[0], 58.0, 0.0);
	REF_CHECK_NEAR(C[1], 64.0, 0.0);
	REF_CHECK_NEAR(C[2], 139.0, 0.0);
	REF_CHECK_NEAR(C[3], 154.0, 0.0);
	// Negative: B read as if transposed, or the operands swapped, differ.
	REF_CHECK(gemm_ref_elem(A, B, 2, 3, 0, 1) != 1 * 8 + 2 * 9 + 3 * 10);
	REF_CHECK(C[1] != C[2]);

	// A 5x3 by 3x4 product against the i-k-j loop order.
	float X[15], Y[12], Z[20], W[20];
	for (int i = 0; i < 15; i++)
		X[i] = (float)((i * 7) % 11) - 5.0f;
	for (int i = 0; i < 12; i++)
		Y[i] = 0.5f * (float)((i * 5) % 9) - 2.0f;
	gemm_ref(X, Y, Z, 5, 4, 3);
	for (int i = 0; i < 20; i++)
		W[i] = 0.0f;
	for (int i = 0; i < 5; i++)
		for (int k = 0; k < 3; k++)
			for (int j = 0; j < 4; j++)
				W[i * 4 + j] += X[i * 3 + k] * Y[k * 4 + j];
	for (int i = 0; i < 20; i++)
		REF_CHECK_NEAR(Z[i], W[i], 1e-5);

	// The sample: all indices when small, else spread, increasing, in range.
	std::vector<size_t> all = gemm_ref_sample(10, 16);
	REF_CHECK(all.size() == 10 && all.front() == 0 && all.back() == 9);
	const size_t n = (size_t)4096 * 4096;
	std::vector<size_t> s = gemm_ref_sample(n, 4096);
	REF_CHECK(s.size() == 4096 || s.size() == 4097);
	REF_CHECK(s.front() == 0 && s.back() == n - 1);
	bool increasing = true, cols_vary = false;
	for (size_t q = 1; q < s.size(); q++) {
		increasing = increasing && s[q] > s[q - 1] && s[q] < n;
		cols_vary = cols_vary || s[q] % 4096 != s[q - 1] % 4096;
	}
	REF_CHECK(increasing);
	REF_CHECK(cols_vary);
	REF_CHECK(s[1] / 4096 == 1); // one per row
	REF_TEST_END();
}
