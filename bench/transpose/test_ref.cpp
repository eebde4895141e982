// test_ref.cpp: checks the transpose reference on a 2 x 3 matrix written out
// by hand, and its properties: transposing twice gives back the input, a
// 1 x n row becomes an n x 1 column with the same memory, and the
// transpose of a product is the product of the transposes.
#include "ref.h"
#include "ref_test.h"

int
main()
{
	// [1 2 3; 4 5 6]^T = [1 4; 2 5; 3 6].
	const float x[6] = {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f};
	const float want[6] = {1.0f, 4.0f, 2.0f, 5.0f, 3.0f, 6.0f};
	float y[6];
	transpose_ref(x, y, 2, 3);
	for (int i = 0; i < 6; i++)
		REF_CHECK(y[i] == want[i]);
	// Reading the shape the wrong way round gives [1 3 5; 2 4 6] instead.
	float yw[6];
	transpose_ref(x, yw, 3, 2);
	REF_CHECK(yw[1] == 3.0f);
	REF_CHECK(yw[1] != y[1]);

	// (x^T)^T = x on a 5 x 7 matrix.
	float a[35], at[35], att[35];
	for (int i = 0; i < 35; i++)
		a[i] = (float)(i * 13 % 35) - 17.0f;
	transpose_ref(a, at, 5, 7);
	transpose_ref(at, att, 7, 5);
	for (int i = 0; i < 35; i++)
		REF_CHECK(att[i] == a[i]);
	for (int r = 0; r < 5; r++)
		for (int c = 0; c < 7; c++)
			REF_CHECK(at[c * 5 + r] == a[r * 7 + c]);

	// A row vector transposes to a column with identical memory.
	float v[7];
	transpose_ref(a, v, 1, 7);
	for (int i = 0; i < 7; i++)
		REF_CHECK(v[i] == a[i]);

	// (A B)^T = B^T A^T with A 2 x 3 (x above) and B 3 x 2 (B = x read as
	// 3 x 2): (A B) = [22 28; 49 64].
	float ab[4], abt[4], bt[6], btat[4];
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++) {
			float s = 0;
			for (int k = 0; k < 3; k++)
				s += x[i * 3 + k] * x[k * 2 + j];
			ab[i * 2 + j] = s;
		}
	REF_CHECK(ab[0] == 22.0f && ab[1] == 28.0f && ab[2] == 49.0f && ab[3] == 64.0f);
	transpose_ref(ab, abt, 2, 2);
	transpose_ref(x, bt, 3, 2); // B^T, 2 x 3
	// B^T (2 x 3) times A^T (3 x 2, = y).
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++) {
			float s = 0;
			for (int k = 0; k < 3; k++)
				s += bt[i * 3 + k] * y[k * 2 + j];
			btat[i * 2 + j] = s;
		}
	for (int i = 0; i < 4; i++)
		REF_CHECK(btat[i] == abt[i]);
	REF_TEST_END();
}
