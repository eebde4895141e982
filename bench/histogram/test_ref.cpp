// test_ref.cpp: checks the histogram reference on samples binned by hand:
// bin edges (lower edge in, upper edge out), out-of-range samples dropped,
// unit and non-unit bin widths, and that the counts add up to the number of
// in-range samples.
#include "ref.h"
#include "ref_test.h"

int
main()
{
	// 4 unit bins over [0, 4): 0, 0.5 -> bin 0; 1 -> 1; 2 -> 2; 3.99 -> 3;
	// 4 (upper edge) and -0.1 are outside.
	const float x[7] = {0.0f, 0.5f, 1.0f, 3.99f, 4.0f, -0.1f, 2.0f};
	unsigned h[4];
	histogram_ref(x, 7, h, 4, 0.0f, 4.0f);
	REF_CHECK(h[0] == 2);
	REF_CHECK(h[1] == 1);
	REF_CHECK(h[2] == 1);
	REF_CHECK(h[3] == 1);
	REF_CHECK(h[0] + h[1] + h[2] + h[3] == 5);
	REF_CHECK(h[3] != 2); // 4.0 must not land in the last bin

	// 4 bins of width 0.5 over [-1, 1): -1 -> 0; -0.75 -> 0; -0.5 -> 1;
	// 0 -> 2; 0.25 -> 2; 0.999 -> 3; 1 and 7 are outside.
	const float x2[8] = {-1.0f, -0.75f, -0.5f, 0.0f, 0.25f, 0.999f, 1.0f, 7.0f};
	histogram_ref(x2, 8, h, 4, -1.0f, 1.0f);
	REF_CHECK(h[0] == 2 && h[1] == 1 && h[2] == 2 && h[3] == 1);

	// Counts are reset on each call: the same call twice gives the same.
	histogram_ref(x2, 8, h, 4, -1.0f, 1.0f);
	REF_CHECK(h[0] == 2 && h[1] == 1 && h[2] == 2 && h[3] == 1);

	// 16 unit bins, samples k + 0.25 for k = -3 .. 19: bin k gets one
	// sample for 0 <= k < 16; the rest are dropped.
	float x3[23];
	for (int i = 0; i < 23; i++)
		x3[i] = (float)(i - 3) + 0.25f;
	unsigned h3[16];
	histogram_ref(x3, 23, h3, 16, 0.0f, 16.0f);
	unsigned tot = 0;
	for (int b = 0; b < 16; b++) {
		REF_CHECK(h3[b] == 1);
		tot += h3[b];
	}
	REF_CHECK(tot == 16);
	REF_TEST_END();
}
