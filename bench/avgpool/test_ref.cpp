// test_ref.cpp: checks the average-pooling reference (count_include_pad =
// false) against means worked out by hand on a 4 x 4 and a 5 x 3 image
// (3 x 3 window, stride 2, padding 1, so corners average 4 cells, edges 6,
// the interior 9), a constant image (stays constant, padding included), and
// separate pooling of channels and images.
#include "ref.h"
#include "ref_test.h"

int
main()
{
	REF_CHECK(pool_out_size(224, 3, 2, 1) == 112);

	// x = 0 .. 15 in a 4 x 4 image:
	//   (0,0): rows 0-1, cols 0-1: (0 + 1 + 4 + 5) / 4 = 2.5
	//   (0,1): rows 0-1, cols 1-3: (1 + 2 + 3 + 5 + 6 + 7) / 6 = 4
	//   (1,0): rows 1-3, cols 0-1: (4 + 5 + 8 + 9 + 12 + 13) / 6 = 8.5
	//   (1,1): rows 1-3, cols 1-3: 90 / 9 = 10
	float x[16];
	for (int i = 0; i < 16; i++)
		x[i] = (float)i;
	float y[4];
	avgpool_ref(x, y, 1, 1, 4, 4, 3, 2, 1);
	REF_CHECK(y[0] == 2.5f);
	REF_CHECK(y[1] == 4.0f);
	REF_CHECK(y[2] == 8.5f);
	REF_CHECK(y[3] == 10.0f);
	// count_include_pad = true would give 10 / 9 at the corner.
	REF_CHECK(y[0] != (float)(10.0 / 9.0));

	// 2 x 2, stride 2, no padding: (0+1+4+5)/4 = 2.5, 4.5, 10.5, 12.5.
	avgpool_ref(x, y, 1, 1, 4, 4, 2, 2, 0);
	REF_CHECK(y[0] == 2.5f && y[1] == 4.5f && y[2] == 10.5f && y[3] == 12.5f);

	// A constant image stays constant at every position, borders included.
	float xc[35], yc[12];
	for (int i = 0; i < 35; i++)
		xc[i] = -0.75f;
	avgpool_ref(xc, yc, 1, 1, 5, 7, 3, 2, 1); // 3 x 4 out
	for (int i = 0; i < 12; i++)
		REF_CHECK(yc[i] == -0.75f);

	// 5 x 3 image, x = 0 .. 14 in rows of 3, 3 x 3 / 2 / 1 gives 3 x 2:
	//   (0,0): {0,1,3,4} / 4 = 2         (0,1): {1,2,4,5} / 4 = 3
	//   (1,0): {3,4,6,7,9,10} / 6 = 6.5  (1,1): {4,5,7,8,10,11} / 6 = 7.5
	//   (2,0): {9,10,12,13} / 4 = 11     (2,1): {10,11,13,14} / 4 = 12
	float y6[6];
	avgpool_ref(x, y6, 1, 1, 5, 3, 3, 2, 1);
	const float w6[6] = {2.0f, 3.0f, 6.5f, 7.5f, 11.0f, 12.0f};
	for (int i = 0; i < 6; i++)
		REF_CHECK_NEAR(y6[i], w6[i], 0.0);

	// N = 2, C = 3: plane i is x + 100 i; averages shift by 100 i.
	float xb[96], yb[24], y0[4];
	for (int pl = 0; pl < 6; pl++)
		for (int i = 0; i < 16; i++)
			xb[pl * 16 + i] = (float)(i + 100 * pl);
	avgpool_ref(xb, yb, 2, 3, 4, 4, 3, 2, 1);
	avgpool_ref(x, y0, 1, 1, 4, 4, 3, 2, 1);
	for (int pl = 0; pl < 6; pl++)
		for (int j = 0; j < 4; j++)
			REF_CHECK_NEAR(yb[pl * 4 + j], y0[j] + 100.0 * pl, 0.0);
	REF_TEST_END();
}
