// test_ref.cpp: checks the gemv reference against values worked out by hand
// and against a column-by-column formulation.
#include "ref.h"
#include "ref_test.h"

int
main()
{
	// [1 2 3; 4 5 6] * [2 1 1] = [7 19]; * [1 0 -1] = [-2 -2].
	const float A[6] = {1, 2, 3, 4, 5, 6};
	const float x1[3] = {2, 1, 1}, x2[3] = {1, 0, -1};
	float y[2] = {0, 0};
	gemv_ref(A, x1, y, 2, 3);
	REF_CHECK_NEAR(y[0], 7.0, 0.0);
	REF_CHECK_NEAR(y[1], 19.0, 0.0);
	// Negative: reading A column-major (A[j * M + i]) would give y[0] = 10.
	REF_CHECK(y[0] != 10.0f);
	gemv_ref(A, x2, y, 2, 3);
	REF_CHECK_NEAR(y[0], -2.0, 0.0);
	REF_CHECK_NEAR(y[1], -2.0, 0.0);

	// 6 x 9 against y = sum over columns j of A[:, j] * x[j].
	const int M = 6, N = 9;
	float X[M * N], v[N], z[M];
	double w[M] = {0};
	for (int i = 0; i < M * N; i++)
		X[i] = (float)((i * 7) % 13) - 6.0f;
	for (int j = 0; j < N; j++)
		v[j] = 0.25f * (float)((j * 5) % 7) - 1.0f;
	gemv_ref(X, v, z, M, N);
	for (int j = 0; j < N; j++)
		for (int i = 0; i < M; i++)
			w[i] += (double)X[i * N + j] * v[j];
	for (int i = 0; i < M; i++)
		REF_CHECK_NEAR(z[i], w[i], 1e-6);
	// Linearity: A * (2 x) = 2 * (A * x).
	float v2[N], z2[M];
	for (int j = 0; j < N; j++)
		v2[j] = 2.0f * v[j];
	gemv_ref(X, v2, z2, M, N);
	for (int i = 0; i < M; i++)
		REF_CHECK_NEAR(z2[i], 2.0 * z[i], 1e-5);
	REF_TEST_END();
}
