// test_ref.cpp: checks the [A x B x C] -> [C x A x B] permute reference on a
// 2 x 2 x 3 tensor written out by hand, and its properties: applying it three
// times (with the shape rotating each time) gives back the input, and with
// A = 1 it is a plain 2-D transpose.
#include "ref.h"
#include "ref_test.h"

int
main()
{
	// x[a][b][c] = 100 a + 10 b + c, A = 2, B = 2, C = 3. y[c][a][b] is
	// then 100 a + 10 b + c listed with c slowest and b fastest.
	float x[12];
	for (int a = 0; a < 2; a++)
		for (int b = 0; b < 2; b++)
			for (int c = 0; c < 3; c++)
				x[(a * 2 + b) * 3 + c] = (float)(100 * a + 10 * b + c);
	const float want[12] = {0, 10, 100, 110, 1, 11, 101, 111, 2, 12, 102, 112};
	float y[12];
	permute3d_ref(x, y, 2, 2, 3);
	for (int i = 0; i < 12; i++)
		REF_CHECK(y[i] == want[i]);
	// [A x B x C] -> [B x C x A] (the other rotation) would put 100 at y[1].
	REF_CHECK(y[1] != 100.0f);

	// Three rotations: [A B C] -> [C A B] -> [B C A] -> [A B C].
	float p[60], q[60], r[60], s[60];
	for (int i = 0; i < 60; i++)
		p[i] = (float)(i * 17 % 60);
	permute3d_ref(p, q, 3, 4, 5); // q is [5 x 3 x 4]
	permute3d_ref(q, r, 5, 3, 4); // r is [4 x 5 x 3]
	permute3d_ref(r, s, 4, 5, 3); // s is [3 x 4 x 5]
	for (int i = 0; i < 60; i++)
		REF_CHECK(s[i] == p[i]);
	bool moved = false; // one rotation is not the identity
	for (int i = 0; i < 60; i++)
		moved = moved || q[i] != p[i];
	REF_CHECK(moved);
	REF_CHECK(q[1] == p[5]); // y[0][0][1] = x[0][1][0]

	// A = 1: [1 x B x C] -> [C x 1 x B] is the transpose of a B x C matrix.
	float t[12];
	permute3d_ref(x, t, 1, 4, 3);
	for (int b = 0; b < 4; b++)
		for (int c = 0; c < 3; c++)
			REF_CHECK(t[c * 4 + b] == x[b * 3 + c]);
	REF_TEST_END();
}
