// test_ref.cpp: checks the row-softmax reference against values worked out
// by hand and against its properties (rows sum to 1, shift invariance,
// order preserved, no overflow for large logits).
#include "ref.h"
#include "ref_test.h"

int
main()
{
	// 2 x 3: softmax(1, 2, 3) = (e^-2, e^-1, 1) / (e^-2 + e^-1 + 1).
	// The second row is the first shifted by 1000: a formula without the
	// max subtraction would overflow to inf/inf = NaN there.
	const float x[6] = {1.0f, 2.0f, 3.0f, 1000.0f, 1001.0f, 1002.0f};
	const double want[3] = {0.09003057317038046, 0.24472847105479764,
				0.6652409557748218};
	float y[6];
	softmax_ref(x, y, 2, 3);
	for (int r = 0; r < 2; r++)
		for (int j = 0; j < 3; j++)
			REF_CHECK_NEAR(y[r * 3 + j], want[j], 1e-7);

	// softmax(0, ln 3) = (1/4, 3/4).
	const float x2[2] = {0.0f, (float)std::log(3.0)};
	float y2[2];
	softmax_ref(x2, y2, 1, 2);
	REF_CHECK_NEAR(y2[0], 0.25, 1e-7);
	REF_CHECK_NEAR(y2[1], 0.75, 1e-7);

	// A single column is all ones; equal entries are uniform.
	const float x3[4] = {-5.0f, 7.0f, 2.0f, 2.0f};
	float y3[4];
	softmax_ref(x3, y3, 2, 2);
	REF_CHECK_NEAR(y3[0], 0.5 / (0.5 + 0.5 * std::exp(12.0)), 1e-7);
	REF_CHECK_NEAR(y3[2], 0.5, 0.0);
	REF_CHECK_NEAR(y3[3], 0.5, 0.0);
	softmax_ref(x3, y3, 4, 1);
	for (int i = 0; i < 4; i++)
		REF_CHECK_NEAR(y3[i], 1.0, 0.0);

	// Properties on a 5 x 7 pseudo-random matrix: rows sum to 1, every entry
	// is in (0, 1), the larger input has the larger output.
	float xr[35], yr[35];
	for (int i = 0; i < 35; i++)
		xr[i] = (float)((i * 37 % 17) - 8) * 0.75f;
	softmax_ref(xr, yr, 5, 7);
	for (int r = 0; r < 5; r++) {
		double s = 0;
		for (int j = 0; j < 7; j++) {
			s += yr[r * 7 + j];
			REF_CHECK(yr[r * 7 + j] > 0.0f && yr[r * 7 + j] < 1.0f);
			for (int k = 0; k < 7; k++)
				if (xr[r * 7 + j] > xr[r * 7 + k])
					REF_CHECK(yr[r * 7 + j] > yr[r * 7 + k]);
		}
		REF_CHECK_NEAR(s, 1.0, 1e-6);
	}
	// Rows are normalized separately: the whole matrix sums to 5, and
	// changing row 0 leaves row 1 unchanged.
	double all = 0;
	for (int i = 0; i < 35; i++)
		all += yr[i];
	REF_CHECK_NEAR(all, 5.0, 1e-5);
	float yr2[35];
	xr[0] += 3.0f;
	softmax_ref(xr, yr2, 5, 7);
	REF_CHECK(yr2[0] != yr[0]);
	for (int j = 7; j < 14; j++)
		REF_CHECK(yr2[j] == yr[j]);
	REF_TEST_END();
}
