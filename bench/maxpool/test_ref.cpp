// test_ref.cpp: checks the max-pooling reference against maxima picked by
// hand on a 4 x 4 image (3 x 3 window, stride 2, padding 1, and 2 x 2,
// stride 2, no padding), on all-negative input (padding must not act as a
// zero), and that channels and images are pooled separately.
#include "ref.h"
#include "ref_test.h"

int
main()
{
	REF_CHECK(pool_out_size(224, 3, 2, 1) == 112);
	REF_CHECK(pool_out_size(4, 3, 2, 1) == 2);
	REF_CHECK(pool_out_size(5, 2, 2, 0) == 2);

	// x = 0 .. 15 in a 4 x 4 image. 3 x 3, stride 2, padding 1: windows
	// rows {-1,0,1} / {1,2,3} by cols {-1,0,1} / {1,2,3}, so the maxima are
	// x[1][1] = 5, x[1][3] = 7, x[3][1] = 13, x[3][3] = 15.
	float x[16];
	for (int i = 0; i < 16; i++)
		x[i] = (float)i;
	float y[4];
	maxpool_ref(x, y, 1, 1, 4, 4, 3, 2, 1);
	REF_CHECK(y[0] == 5.0f);
	REF_CHECK(y[1] == 7.0f);
	REF_CHECK(y[2] == 13.0f);
	REF_CHECK(y[3] == 15.0f);
	// 2 x 2, stride 2, no padding: 5, 7, 13, 15 as well; on the reversed
	// image 15 - i the first element of each window wins: 15, 13, 7, 5.
	maxpool_ref(x, y, 1, 1, 4, 4, 2, 2, 0);
	REF_CHECK(y[0] == 5.0f && y[1] == 7.0f && y[2] == 13.0f && y[3] == 15.0f);
	float xr[16];
	for (int i = 0; i < 16; i++)
		xr[i] = (float)(15 - i);
	maxpool_ref(xr, y, 1, 1, 4, 4, 2, 2, 0);
	REF_CHECK(y[0] == 15.0f && y[1] == 13.0f && y[2] == 7.0f && y[3] == 5.0f);

	// All negative, -1 - i: the corner window (3 x 3, padding 1) holds
	// -1, -2, -5, -6 and must give -1, not the 0 of a padded cell.
	float xn[16];
	for (int i = 0; i < 16; i++)
		xn[i] = -1.0f - (float)i;
	maxpool_ref(xn, y, 1, 1, 4, 4, 3, 2, 1);
	REF_CHECK(y[0] == -1.0f);
	REF_CHECK(y[0] != 0.0f);
	REF_CHECK(y[3] == -6.0f); // rows 1..3, cols 1..3: x[1][1]

	// N = 2, C = 3: plane i is x + 100 i; each plane pools on its own.
	float xb[96], yb[24];
	for (int pl = 0; pl < 6; pl++)
		for (int i = 0; i < 16; i++)
			xb[pl * 16 + i] = (float)(i + 100 * pl);
	maxpool_ref(xb, yb, 2, 3, 4, 4, 3, 2, 1);
	const float base[4] = {5.0f, 7.0f, 13.0f, 15.0f};
	for (int pl = 0; pl < 6; pl++)
		for (int j = 0; j < 4; j++)
			REF_CHECK(yb[pl * 4 + j] == base[j] + 100.0f * pl);

	// Odd sizes: 5 x 3 image, 3 x 3 window, stride 2, padding 1 gives 3 x 2.
	// x = 0 .. 14 (rows of 3): maxima x[1][1] = 4, x[1][2] = 5,
	// x[3][1] = 10, x[3][2] = 11, x[4][1] = 13, x[4][2] = 14.
	float y6[6];
	maxpool_ref(x, y6, 1, 1, 5, 3, 3, 2, 1);
	const float w6[6] = {4, 5, 10, 11, 13, 14};
	for (int i = 0; i < 6; i++)
		REF_CHECK(y6[i] == w6[i]);
	REF_TEST_END();
}
