// test_ref.cpp: checks the Jacobi reference against sweeps worked out by
// hand on a 4 x 3 grid (boundary copied, interior the mean of the four
// neighbours), on a linear field (harmonic: a sweep leaves it unchanged),
// and that the centre point itself never enters its own update.
#include "ref.h"
#include "ref_test.h"

int
main()
{
	// in = 0 .. 11 in a 4 x 3 grid (nx = 4, ny = 3): the interior points
	// are (1, 1) = 5 and (2, 1) = 6. (1, 1): (4 + 6 + 1 + 9) / 4 = 5;
	// (2, 1): (5 + 7 + 2 + 10) / 4 = 6. Everything else is copied.
	float in[12], out[12];
	for (int i = 0; i < 12; i++)
		in[i] = (float)i;
	jacobi2d_ref(in, out, 4, 3);
	for (int i = 0; i < 12; i++)
		REF_CHECK(out[i] == (float)i);

	// A spike at (1, 1) of a 4 x 4 grid: its own update ignores it (0),
	// its interior neighbours (2, 1) and (1, 2) get 8 / 4 = 2, and (2, 2)
	// sees none of it.
	float s[16] = {0}, so[16];
	s[5] = 8.0f;
	jacobi2d_ref(s, so, 4, 4);
	REF_CHECK(so[5] == 0.0f);
	REF_CHECK(so[6] == 2.0f);
	REF_CHECK(so[9] == 2.0f);
	REF_CHECK(so[10] == 0.0f);
	REF_CHECK(so[0] == 0.0f && so[1] == 0.0f);

	// Hand-worked uneven weights: 3 x 3 grid, only the centre is interior:
	// neighbours 1, 2, 4, 8 (left, right, up, down) give 15 / 4 = 3.75.
	float t[9] = {0, 4, 0, 1, 100, 2, 0, 8, 0}, to[9];
	jacobi2d_ref(t, to, 3, 3);
	REF_CHECK(to[4] == 3.75f);
	REF_CHECK(to[1] == 4.0f && to[3] == 1.0f && to[7] == 8.0f);

	// A linear field a + b x + c y is harmonic: the sweep keeps it (the
	// values are small integers and quarters, exact in float).
	float l[35], lo[35];
	for (int y = 0; y < 5; y++)
		for (int x = 0; x < 7; x++)
			l[y * 7 + x] = 1.0f + 2.0f * x - 3.0f * y;
	jacobi2d_ref(l, lo, 7, 5);
	for (int i = 0; i < 35; i++)
		REF_CHECK(lo[i] == l[i]);
	REF_TEST_END();
}
