// test_ref.cpp: checks the dim-1 max reference against maxima picked by hand
// on a 2 x 3 x 2 tensor (all-negative slices included, so a reduction that
// started from 0 would be caught) and against an independent formulation.
#include "ref.h"
#include "ref_test.h"

int
main()
{
	// x[b][r][c], B = 2, R = 3, C = 2.
	const float x[12] = {
		1.0f, -4.0f, // b0 r0
		7.0f, -2.0f, // b0 r1
		3.0f, -9.0f, // b0 r2
		-5.0f, 0.5f, // b1 r0
		-1.5f, 8.0f, // b1 r1
		-3.0f, 8.0f, // b1 r2
	};
	float y[4];
	reduce_max_ref(x, y, 2, 3, 2);
	REF_CHECK(y[0] == 7.0f);
	REF_CHECK(y[1] == -2.0f);
	REF_CHECK(y[2] == -1.5f);
	REF_CHECK(y[3] == 8.0f);
	// Not the max over the last dimension (7, -2, 3, 0.5, 8, 8), nor over
	// the whole batch.
	REF_CHECK(y[1] != 7.0f);
	REF_CHECK(y[2] != 7.0f);

	// R = 1 copies the input; B = 1, C = 1 is the max of a vector.
	float y1[12];
	reduce_max_ref(x, y1, 6, 1, 2);
	for (int i = 0; i < 12; i++)
		REF_CHECK(y1[i] == x[i]);
	float yv;
	reduce_max_ref(x, &yv, 1, 12, 1);
	REF_CHECK(yv == 8.0f);

	// 3 x 5 x 4 pseudo-random tensor: every output is one of its inputs and
	// no input is larger.
	float xr[60], yr[12];
	for (int i = 0; i < 60; i++)
		xr[i] = (float)((i * 29 % 23) - 15) * 0.5f;
	reduce_max_ref(xr, yr, 3, 5, 4);
	for (int b = 0; b < 3; b++)
		for (int c = 0; c < 4; c++) {
			bool found = false;
			for (int r = 0; r < 5; r++) {
				float v = xr[(b * 5 + r) * 4 + c];
				REF_CHECK(v <= yr[b * 4 + c]);
				found = found || v == yr[b * 4 + c];
			}
			REF_CHECK(found);
		}
	REF_TEST_END();
}
