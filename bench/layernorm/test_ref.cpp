// test_ref.cpp: checks the layer-norm reference against values worked out by
// hand and against its properties (with gamma = 1, beta = 0 each row has
// mean 0 and variance var / (var + eps)).
#include "ref.h"
#include "ref_test.h"

int
main()
{
	// Row (1, 2, 3, 4): mean 2.5, biased variance 1.25,
	// rstd = 1 / sqrt(1.25 + 1e-5) = 0.894423613312618.
	// Second row: the first times 2 plus 10, which normalizes the same way
	// up to the eps term (var 5: rstd = 1 / sqrt(5 + 1e-5)).
	const float x[8] = {1, 2, 3, 4, 12, 14, 16, 18};
	const float gamma[4] = {1.0f, 0.5f, 2.0f, -1.0f};
	const float beta[4] = {0.0f, 1.0f, -1.0f, 0.5f};
	const double want[4] = {-1.3416354199689269, 0.7763940966718454,
				-0.105576386687382, -0.8416354199689269};
	float y[8];
	layernorm_ref(x, gamma, beta, y, 2, 4, LAYERNORM_EPS);
	for (int j = 0; j < 4; j++)
		REF_CHECK_NEAR(y[j], want[j], 1e-6);
	const double r2 = 1.0 / std::sqrt(5.0 + (double)LAYERNORM_EPS);
	const double d2[4] = {-3, -1, 1, 3};
	for (int j = 0; j < 4; j++)
		REF_CHECK_NEAR(y[4 + j], d2[j] * r2 * gamma[j] + beta[j], 1e-6);
	// Negative check: the unbiased variance (divide by cols - 1) gives
	// rstd = 1 / sqrt(5/3), visibly different.
	REF_CHECK(std::fabs(y[0] - (-1.5 / std::sqrt(5.0 / 3.0))) > 0.1);

	// A constant row normalizes to beta (x - mean = 0, eps avoids 0/0).
	const float c[4] = {7, 7, 7, 7};
	float yc[4];
	layernorm_ref(c, gamma, beta, yc, 1, 4, LAYERNORM_EPS);
	for (int j = 0; j < 4; j++)
		REF_CHECK_NEAR(yc[j], beta[j], 0.0);

	// Properties on a 3 x 9 matrix with gamma = 1, beta = 0.
	float xm[27], ym[27], ones[9], zeros[9];
	for (int i = 0; i < 27; i++)
		xm[i] = (float)((i * 29 % 13) - 4) * 0.5f + (float)(i / 9) * 3.0f;
	for (int j = 0; j < 9; j++) {
		ones[j] = 1.0f;
		zeros[j] = 0.0f;
	}
	layernorm_ref(xm, ones, zeros, ym, 3, 9, LAYERNORM_EPS);
	for (int r = 0; r < 3; r++) {
		double m = 0, v = 0, xm_mean = 0, xm_var = 0;
		for (int j = 0; j < 9; j++)
			xm_mean += xm[r * 9 + j] / 9.0;
		for (int j = 0; j < 9; j++) {
			m += ym[r * 9 + j] / 9.0;
			xm_var += (xm[r * 9 + j] - xm_mean) * (xm[r * 9 + j] - xm_mean) / 9.0;
		}
		for (int j = 0; j < 9; j++)
			v += (ym[r * 9 + j] - m) * (ym[r * 9 + j] - m) / 9.0;
		REF_CHECK_NEAR(m, 0.0, 1e-6);
		REF_CHECK_NEAR(v, xm_var / (xm_var + LAYERNORM_EPS), 1e-6);
	}
	REF_TEST_END();
}
