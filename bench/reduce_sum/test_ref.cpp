// test_ref.cpp: checks the row-sum reference against sums worked out by hand
// and against its properties (rows are independent, the total of the row
// sums is the sum of all entries, accumulation in double survives
// cancellation that a float accumulator would not).
#include "ref.h"
#include "ref_test.h"

int
main()
{
	// 2 x 3: (1 + 2 + 3, 4 + 5 + 6) = (6, 15).
	const float x[6] = {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f};
	float y[2];
	reduce_sum_ref(x, y, 2, 3);
	REF_CHECK_NEAR(y[0], 6.0, 0.0);
	REF_CHECK_NEAR(y[1], 15.0, 0.0);
	REF_CHECK(y[0] != 15.0f);

	// The same six numbers as 3 x 2: (3, 7, 11); as 1 x 6: 21; as 6 x 1:
	// the entries themselves.
	float y3[3];
	reduce_sum_ref(x, y3, 3, 2);
	REF_CHECK_NEAR(y3[0], 3.0, 0.0);
	REF_CHECK_NEAR(y3[1], 7.0, 0.0);
	REF_CHECK_NEAR(y3[2], 11.0, 0.0);
	float y1;
	reduce_sum_ref(x, &y1, 1, 6);
	REF_CHECK_NEAR(y1, 21.0, 0.0);
	float y6[6];
	reduce_sum_ref(x, y6, 6, 1);
	for (int i = 0; i < 6; i++)
		REF_CHECK(y6[i] == x[i]);

	// Mixed signs: 0.5 - 1.25 + 2 - 0.25 = 1.
	const float xs[4] = {0.5f, -1.25f, 2.0f, -0.25f};
	float ys;
	reduce_sum_ref(xs, &ys, 1, 4);
	REF_CHECK_NEAR(ys, 1.0, 0.0);

	// 1e8 + 1 - 1e8 = 1 in double; a float accumulator gives 0.
	const float xc[3] = {1e8f, 1.0f, -1e8f};
	float yc;
	reduce_sum_ref(xc, &yc, 1, 3);
	REF_CHECK_NEAR(yc, 1.0, 0.0);

	// Properties on a 5 x 7 pseudo-random matrix: the row sums add up to the
	// sum of all entries, and changing one entry changes only its row.
	float xr[35], yr[5], yr2[5];
	double all = 0.0;
	for (int i = 0; i < 35; i++) {
		xr[i] = (float)((i * 37 % 17) - 8) * 0.375f;
		all += xr[i];
	}
	reduce_sum_ref(xr, yr, 5, 7);
	double tot = 0.0;
	for (int r = 0; r < 5; r++) {
		double s = 0.0;
		for (int c = 0; c < 7; c++)
			s += xr[r * 7 + c];
		REF_CHECK_NEAR(yr[r], s, 0.0);
		tot += yr[r];
	}
	REF_CHECK_NEAR(tot, all, 1e-9);
	xr[9] += 2.0f;
	reduce_sum_ref(xr, yr2, 5, 7);
	REF_CHECK_NEAR(yr2[1], yr[1] + 2.0, 0.0);
	for (int r = 0; r < 5; r++)
		if (r != 1)
			REF_CHECK(yr2[r] == yr[r]);
	REF_TEST_END();
}
