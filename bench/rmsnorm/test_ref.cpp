// test_ref.cpp: checks the RMS-norm reference against values worked out by
// hand and against its properties (with w = 1 the row's mean square is
// ms / (ms + eps); scaling a row leaves the output unchanged).
#include "ref.h"
#include "ref_test.h"

int
main()
{
	// Row (1, 2, 3, 4): mean square 30 / 4 = 7.5,
	// 1 / sqrt(7.5 + 1e-6) = 0.3651483473268884.
	// Row (3, 4): mean square 12.5.
	const float x[4] = {1, 2, 3, 4};
	const float w[4] = {1.0f, 0.5f, 2.0f, -1.0f};
	const double want[4] = {0.3651483473268884, 0.3651483473268884,
				2.1908900839613303, -1.4605933893075536};
	float y[4];
	rmsnorm_ref(x, w, y, 1, 4, RMSNORM_EPS);
	for (int j = 0; j < 4; j++)
		REF_CHECK_NEAR(y[j], want[j], 1e-6);
	const float x2[4] = {3, 4, 0, -5};
	rmsnorm_ref(x2, w, y, 2, 2, RMSNORM_EPS);
	REF_CHECK_NEAR(y[0], 3.0 / std::sqrt(12.5), 1e-6);
	REF_CHECK_NEAR(y[1], 4.0 / std::sqrt(12.5) * 0.5, 1e-6);
	REF_CHECK_NEAR(y[2], 0.0, 0.0);
	REF_CHECK_NEAR(y[3], -5.0 / std::sqrt(12.5) * 0.5, 1e-6);
	// Negative checks: no mean subtraction (unlike layer norm), and the
	// divisor is the root mean square, not the root sum of squares.
	rmsnorm_ref(x, w, y, 1, 4, RMSNORM_EPS);
	REF_CHECK(std::fabs(y[0] - (-1.5 / std::sqrt(1.25))) > 0.1);
	REF_CHECK(std::fabs(y[0] - 1.0 / std::sqrt(30.0)) > 0.1);

	// A zero row stays zero (eps avoids 0/0).
	const float z[3] = {0, 0, 0};
	float yz[3] = {9, 9, 9};
	rmsnorm_ref(z, w, yz, 1, 3, RMSNORM_EPS);
	for (int j = 0; j < 3; j++)
		REF_CHECK_NEAR(yz[j], 0.0, 0.0);

	// Properties on a 3 x 9 matrix with w = 1: mean square ~ 1; a row and
	// the same row times 4 give the same output.
	float xm[27], ym[27], ones[9];
	for (int j = 0; j < 9; j++)
		ones[j] = 1.0f;
	for (int i = 0; i < 18; i++)
		xm[i] = (float)((i * 29 % 13) - 4) * 0.5f;
	for (int j = 0; j < 9; j++)
		xm[18 + j] = 4.0f * xm[9 + j];
	rmsnorm_ref(xm, ones, ym, 3, 9, RMSNORM_EPS);
	for (int r = 0; r < 3; r++) {
		double ms = 0;
		for (int j = 0; j < 9; j++)
			ms += (double)ym[r * 9 + j] * ym[r * 9 + j] / 9.0;
		REF_CHECK_NEAR(ms, 1.0, 1e-5);
	}
	for (int j = 0; j < 9; j++)
		REF_CHECK_NEAR(ym[18 + j], ym[9 + j], 1e-6);
	REF_TEST_END();
}
