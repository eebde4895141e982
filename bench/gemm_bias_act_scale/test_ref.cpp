// test_ref.cpp: checks the gemm_bias_act_scale reference against values
// worked out by hand (GELU through the normal distribution function,
// gelu(x) = x * Phi(x)) and against its own stages composed.
#include "ref.h"
#include "ref_test.h"

int
main()
{
	// Phi(1) = 0.8413447460685429, Phi(2) = 0.9772498680518208.
	REF_CHECK_NEAR(gelu_ref(0.0), 0.0, 0.0);
	REF_CHECK_NEAR(gelu_ref(1.0), 0.8413447460685429, 1e-12);
	REF_CHECK_NEAR(gelu_ref(-1.0), -0.15865525393145707, 1e-12);
	REF_CHECK_NEAR(gelu_ref(2.0), 1.9544997361036416, 1e-12);
	REF_CHECK_NEAR(gelu_ref(-8.0), 0.0, 1e-12);
	// gelu(x) - gelu(-x) = x; and it is not the tanh approximation, which
	// gives 0.841191990 at x = 1, nor ReLU.
	REF_CHECK_NEAR(gelu_ref(1.5) - gelu_ref(-1.5), 1.5, 1e-12);
	REF_CHECK(std::fabs(gelu_ref(1.0) - 0.841191990) > 1e-4);
	REF_CHECK(gelu_ref(-1.0) < 0.0);

	// [1 -1] * [2 1; 1 1] = [1 0]; + bias [0 -1] = [1 -1];
	// gelu = [0.841344746 -0.158655254]; * 2 = [1.682689492 -0.317310508].
	const float A[2] = {1, -1}, B[4] = {2, 1, 1, 1}, bias[2] = {0, -1};
	REF_CHECK_NEAR(gemm_ref_elem(A, B, 2, 2, 0, 0), 1.0, 0.0);
	REF_CHECK_NEAR(gemm_ref_elem(A, B, 2, 2, 0, 1), 0.0, 0.0);
	REF_CHECK_NEAR(chain_ref_elem(A, B, bias, 2.0f, 2, 2, 0, 0), 1.6826894921370859, 1e-9);
	REF_CHECK_NEAR(chain_ref_elem(A, B, bias, 2.0f, 2, 2, 0, 1), -0.31731050786291415, 1e-9);

	// The bias goes by column: [1 2 3; 4 5 6] + [10 20 30].
	const float C[6] = {1, 2, 3, 4, 5, 6}, b3[3] = {10, 20, 30};
	const float wb[6] = {11, 22, 33, 14, 25, 36};
	float Y[6], G[6], S[6];
	bias_ref_array(C, b3, Y, 2, 3);
	for (int i = 0; i < 6; i++)
		REF_CHECK_NEAR(Y[i], wb[i], 0.0);
	// Scale: exact for these values.
	scale_ref_array(C, -0.5f, S, 6);
	for (int i = 0; i < 6; i++)
		REF_CHECK_NEAR(S[i], -0.5 * C[i], 0.0);

	// The stages composed agree with the element-wise chain (2x3 by 3x2).
	const float X[6] = {0.5f, -1, 0.25f, 2, 0, -0.75f};
	const float W[6] = {1, -0.5f, 0.5f, 2, -1, 0.25f};
	const float bb[2] = {0.1f, -0.2f};
	float P[4], Q[4], R[4], T[4];
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++)
			P[i * 2 + j] = (float)gemm_ref_elem(X, W, 2, 3, i, j);
	bias_ref_array(P, bb, Q, 2, 2);
	gelu_ref_array(Q, R, 4);
	scale_ref_array(R, 0.7f, T, 4);
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++)
			REF_CHECK_NEAR(T[i * 2 + j],
				       chain_ref_elem(X, W, bb, 0.7f, 2, 3, i, j), 1e-6);
	gelu_ref_array(C, G, 6);
	REF_CHECK(G[0] < C[0] && G[5] <= C[5] && G[5] > 5.99f);

	// The sample: all indices when small, else spread and in range.
	std::vector<size_t> all = gemm_ref_sample(10, 16);
	REF_CHECK(all.size() == 10 && all.front() == 0 && all.back() == 9);
	const size_t n = (size_t)32768 * 4096;
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
