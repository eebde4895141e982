// test_ref.cpp: checks the argmax reference against positions picked by hand
// (ties resolved to the first index, all-negative rows, max first or last)
// and against its defining properties on a pseudo-random matrix.
#include "ref.h"
#include "ref_test.h"

int
main()
{
	// 4 x 4: max in the middle with a later tie; all negative; max last;
	// all equal.
	const float x[16] = {
		1.0f, 5.0f, 2.0f, 5.0f,
		-3.0f, -1.0f, -2.0f, -7.0f,
		0.25f, 0.5f, 0.75f, 1.0f,
		4.0f, 4.0f, 4.0f, 4.0f,
	};
	int idx[4];
	argmax_ref(x, idx, 4, 4);
	REF_CHECK(idx[0] == 1);
	REF_CHECK(idx[0] != 3); // the last of the tied maxima is wrong
	REF_CHECK(idx[1] == 1);
	REF_CHECK(idx[2] == 3);
	REF_CHECK(idx[3] == 0);

	// Max first; a single column is always 0; one row of 16 is the
	// position of the global max (the first 5.0).
	const float x2[3] = {9.0f, -9.0f, 8.5f};
	int i2;
	argmax_ref(x2, &i2, 1, 3);
	REF_CHECK(i2 == 0);
	int i16[16];
	argmax_ref(x, i16, 16, 1);
	for (int i = 0; i < 16; i++)
		REF_CHECK(i16[i] == 0);
	int i1;
	argmax_ref(x, &i1, 1, 16);
	REF_CHECK(i1 == 1);

	// 6 x 9 with values on a coarse grid (many ties): the chosen entry is a
	// maximum, and no earlier entry equals it.
	float xr[54];
	for (int i = 0; i < 54; i++)
		xr[i] = (float)(i * 7 % 5);
	int ir[6];
	argmax_ref(xr, ir, 6, 9);
	for (int r = 0; r < 6; r++) {
		REF_CHECK(ir[r] >= 0 && ir[r] < 9);
		float m = xr[r * 9 + ir[r]];
		for (int c = 0; c < 9; c++) {
			REF_CHECK(xr[r * 9 + c] <= m);
			if (c < ir[r])
				REF_CHECK(xr[r * 9 + c] < m);
		}
	}
	REF_TEST_END();
}
