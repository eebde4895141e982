// test_ref.cpp: checks the row prefix-sum reference against sums worked out
// by hand, its running magnitudes, that rows restart from zero, that a row
// scanned in pieces equals the row scanned at once, and that the running
// sum is kept in double (1e8 + 1 - 1e8 = 1).
#include "ref.h"
#include "ref_test.h"

int
main()
{
	// [1 2 3; 4 5 6] -> [1 3 6; 4 9 15]; the second row restarts.
	const float x[6] = {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f};
	const float want[6] = {1.0f, 3.0f, 6.0f, 4.0f, 9.0f, 15.0f};
	float y[6];
	cumsum_ref(x, y, 2, 3);
	for (int i = 0; i < 6; i++)
		REF_CHECK(y[i] == want[i]);
	REF_CHECK(y[3] != 10.0f); // carrying over from row 0 would give 10
	// As one row of 6: 1 3 6 10 15 21 (inclusive: y[0] is x[0], not 0).
	float y1[6];
	cumsum_ref(x, y1, 1, 6);
	const float want1[6] = {1.0f, 3.0f, 6.0f, 10.0f, 15.0f, 21.0f};
	for (int i = 0; i < 6; i++)
		REF_CHECK(y1[i] == want1[i]);

	// Mixed signs: x = 1, -2, 3, -0.5 -> y = 1, -1, 2, 1.5 and
	// mag = 1, 3, 6, 6.5.
	const float xs[4] = {1.0f, -2.0f, 3.0f, -0.5f};
	const float ys_want[4] = {1.0f, -1.0f, 2.0f, 1.5f};
	const float mag_want[4] = {1.0f, 3.0f, 6.0f, 6.5f};
	float ys[4], mag[4];
	cumsum_state st;
	cumsum_ref_part(xs, ys, mag, 4, st);
	for (int i = 0; i < 4; i++) {
		REF_CHECK(ys[i] == ys_want[i]);
		REF_CHECK(mag[i] == mag_want[i]);
	}

	// 1e8, 1, -1e8: the last prefix is exactly 1 in double (a float running
	// sum gives 0).
	const float xc[3] = {1e8f, 1.0f, -1e8f};
	float yc[3];
	cumsum_ref(xc, yc, 1, 3);
	REF_CHECK(yc[2] == 1.0f);

	// A 3 x 11 pseudo-random matrix: consecutive differences give back the
	// input, the last entry is the row sum, and scanning each row in pieces
	// of 4 with the carried state gives the same result.
	float xr[33], yr[33], yp[33];
	for (int i = 0; i < 33; i++)
		xr[i] = (float)((i * 19 % 13) - 6) * 0.25f;
	cumsum_ref(xr, yr, 3, 11);
	for (int r = 0; r < 3; r++) {
		double s = 0.0;
		for (int c = 0; c < 11; c++) {
			s += xr[r * 11 + c];
			if (c > 0)
				REF_CHECK(yr[r * 11 + c] - yr[r * 11 + c - 1] == xr[r * 11 + c]);
		}
		REF_CHECK_NEAR(yr[r * 11 + 10], s, 0.0);
		cumsum_state part;
		for (int c = 0; c < 11; c += 4) {
			int m = c + 4 <= 11 ? 4 : 11 - c;
			cumsum_ref_part(xr + r * 11 + c, yp + r * 11 + c, nullptr, m, part);
		}
	}
	for (int i = 0; i < 33; i++)
		REF_CHECK(yp[i] == yr[i]);
	REF_TEST_END();
}
