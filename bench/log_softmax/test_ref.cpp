// test_ref.cpp: checks the row log-softmax reference against values worked
// out by hand and against its properties (exp of a row sums to 1, shift
// invariance, every entry <= 0, no overflow for large logits).
#include "ref.h"
#include "ref_test.h"

int
main()
{
	// log_softmax(1, 2, 3) = (1, 2, 3) - 3 - log(e^-2 + e^-1 + 1).
	// The second row is the first shifted by 1000: without the max
	// subtraction, exp would overflow there.
	const float x[6] = {1.0f, 2.0f, 3.0f, 1000.0f, 1001.0f, 1002.0f};
	const double want[3] = {-2.4076059644443806, -1.4076059644443804,
				-0.4076059644443804};
	float y[6];
	log_softmax_ref(x, y, 2, 3);
	for (int r = 0; r < 2; r++)
		for (int j = 0; j < 3; j++)
			REF_CHECK_NEAR(y[r * 3 + j], want[j], 1e-6);

	// log_softmax(0, ln 3) = (ln 1/4, ln 3/4).
	const float x2[2] = {0.0f, (float)std::log(3.0)};
	float y2[2];
	log_softmax_ref(x2, y2, 1, 2);
	REF_CHECK_NEAR(y2[0], std::log(0.25), 1e-6);
	REF_CHECK_NEAR(y2[1], std::log(0.75), 1e-6);

	// Two equal entries: both ln 1/2. One column: 0.
	const float x3[4] = {2.0f, 2.0f, -9.0f, 4.0f};
	float y3[4];
	log_softmax_ref(x3, y3, 2, 2);
	REF_CHECK_NEAR(y3[0], -std::log(2.0), 1e-7);
	REF_CHECK_NEAR(y3[1], -std::log(2.0), 1e-7);
	REF_CHECK_NEAR(y3[3], -std::log1p(std::exp(-13.0)), 1e-7);
	log_softmax_ref(x3, y3, 4, 1);
	for (int i = 0; i < 4; i++)
		REF_CHECK_NEAR(y3[i], 0.0, 0.0);

	// Properties on a 5 x 7 pseudo-random matrix: exp of each row sums to 1,
	// entries are negative, differences within a row equal differences of x.
	float xr[35], yr[35];
	for (int i = 0; i < 35; i++)
		xr[i] = (float)((i * 37 % 17) - 8) * 0.75f;
	log_softmax_ref(xr, yr, 5, 7);
	for (int r = 0; r < 5; r++) {
		double s = 0;
		for (int j = 0; j < 7; j++) {
			s += std::exp((double)yr[r * 7 + j]);
			REF_CHECK(yr[r * 7 + j] < 0.0f);
			REF_CHECK_NEAR(yr[r * 7 + j] - yr[r * 7],
				       xr[r * 7 + j] - xr[r * 7], 1e-5);
		}
		REF_CHECK_NEAR(s, 1.0, 1e-6);
	}
	// Rows are normalized separately: changing row 0 leaves row 1 as is.
	float yr2[35];
	xr[0] += 3.0f;
	log_softmax_ref(xr, yr2, 5, 7);
	REF_CHECK(yr2[0] != yr[0]);
	for (int j = 7; j < 14; j++)
		REF_CHECK(yr2[j] == yr[j]);
	REF_TEST_END();
}
