// test_ref.cpp: checks the 7-point reference against values worked out by
// hand on a 3 x 3 x 3 grid (one interior point), on a 4 x 3 x 3 grid
// (the two interior points see each other), and that a linear field keeps
// its values where c0 + 6 c1 = 1 (a weighted mean of a harmonic field).
#include "ref.h"
#include "ref_test.h"

int
main()
{
	// 3 x 3 x 3, in = flat index 0 .. 26: the only interior point is 13,
	// its neighbours 12, 14 (x), 10, 16 (y), 4, 22 (z) sum to 78:
	// 0.5 * 13 + 0.25 * 78 = 26.
	float in[27];
	for (int i = 0; i < 27; i++)
		in[i] = (float)i;
	REF_CHECK_NEAR(stencil3d7_ref_at(in, 3, 3, 3, 0.5f, 0.25f, 1, 1, 1), 26.0, 0.0);
	// Every other point is copied.
	REF_CHECK_NEAR(stencil3d7_ref_at(in, 3, 3, 3, 0.5f, 0.25f, 0, 1, 1), 12.0, 0.0);
	REF_CHECK_NEAR(stencil3d7_ref_at(in, 3, 3, 3, 0.5f, 0.25f, 1, 1, 2), 22.0, 0.0);
	REF_CHECK_NEAR(stencil3d7_ref_at(in, 3, 3, 3, 0.5f, 0.25f, 2, 2, 2), 26.0, 0.0);

	// 4 x 3 x 3, a spike of 10 at interior point (1, 1, 1) = index 17:
	// c0 = 1, c1 = 0.5: (1, 1, 1) keeps 10 (its neighbours are 0), and the
	// other interior point (2, 1, 1) gets 0.5 * 10 = 5.
	float s[36] = {0};
	s[17] = 10.0f;
	REF_CHECK_NEAR(stencil3d7_ref_at(s, 4, 3, 3, 1.0f, 0.5f, 1, 1, 1), 10.0, 0.0);
	REF_CHECK_NEAR(stencil3d7_ref_at(s, 4, 3, 3, 1.0f, 0.5f, 2, 1, 1), 5.0, 0.0);

	// Linear field 1 + x + 2 y + 3 z on 5 x 4 x 4, c0 = 0.4, c1 = 0.1:
	// the neighbours' sum is 6 v, so out = (0.4 + 0.6) v = v everywhere.
	float l[80];
	for (int z = 0; z < 4; z++)
		for (int y = 0; y < 4; y++)
			for (int x = 0; x < 5; x++)
				l[(z * 4 + y) * 5 + x] = 1.0f + x + 2.0f * y + 3.0f * z;
	for (int z = 0; z < 4; z++)
		for (int y = 0; y < 4; y++)
			for (int x = 0; x < 5; x++)
				REF_CHECK_NEAR(stencil3d7_ref_at(l, 5, 4, 4, 0.4f, 0.1f, x, y, z),
					       l[(z * 4 + y) * 5 + x], 1e-5);
	REF_TEST_END();
}
