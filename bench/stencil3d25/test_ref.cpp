// test_ref.cpp: checks the radius-4 star reference against values worked
// out by hand: single taps at each radius and axis (a spike seen from
// every distance), the 4-deep copied boundary, and a linear field
// (every radius's six taps sum to 6 v).
#include "ref.h"
#include "ref_test.h"

#include <vector>

int
main()
{
	// 9 x 9 x 9, only (4, 4, 4) is interior.
	const int n = 9;
	std::vector<float> in(n * n * n, 0.0f);
	auto at = [&](int x, int y, int z) { return (size_t)(z * n + y) * n + x; };
	const float c[5] = {1.0f, 10.0f, 100.0f, 1000.0f, 10000.0f};

	// A spike of 1 at distance r along one axis contributes c[r].
	for (int r = 1; r <= 4; r++) {
		const int pos[6][3] = {{4 - r, 4, 4}, {4 + r, 4, 4}, {4, 4 - r, 4},
				       {4, 4 + r, 4}, {4, 4, 4 - r}, {4, 4, 4 + r}};
		for (const auto &p : pos) {
			in[at(p[0], p[1], p[2])] = 1.0f;
			REF_CHECK_NEAR(stencil3d25_ref_at(in.data(), n, n, n, c, 4, 4, 4), c[r], 0.0);
			in[at(p[0], p[1], p[2])] = 0.0f;
		}
	}
	// Diagonal neighbours are not taps: (3, 3, 4) does not count.
	in[at(3, 3, 4)] = 1.0f;
	REF_CHECK_NEAR(stencil3d25_ref_at(in.data(), n, n, n, c, 4, 4, 4), 0.0, 0.0);
	in[at(3, 3, 4)] = 0.0f;
	// The centre counts c[0]: 2 * 1 = 2.
	in[at(4, 4, 4)] = 2.0f;
	REF_CHECK_NEAR(stencil3d25_ref_at(in.data(), n, n, n, c, 4, 4, 4), 2.0, 0.0);
	// Points within 4 of a face are copied: (3, 4, 4) and (4, 4, 8).
	in[at(3, 4, 4)] = 7.0f;
	in[at(4, 4, 8)] = -3.0f;
	REF_CHECK_NEAR(stencil3d25_ref_at(in.data(), n, n, n, c, 3, 4, 4), 7.0, 0.0);
	REF_CHECK_NEAR(stencil3d25_ref_at(in.data(), n, n, n, c, 4, 4, 8), -3.0, 0.0);
	// With those two, the centre sees 2 c[0] + 7 c[1] - 3 c[4] = -29928.
	REF_CHECK_NEAR(stencil3d25_ref_at(in.data(), n, n, n, c, 4, 4, 4), -29928.0, 0.0);

	// Linear field v = 1 + x + 2 y + 3 z on 10 x 10 x 11: at every
	// interior point the six taps of each radius sum to 6 v, so
	// out = (c0 + 6 (c1 + c2 + c3 + c4)) v.
	const int nx = 10, ny = 10, nz = 11;
	std::vector<float> l((size_t)nx * ny * nz);
	for (int z = 0; z < nz; z++)
		for (int y = 0; y < ny; y++)
			for (int x = 0; x < nx; x++)
				l[((size_t)z * ny + y) * nx + x] = 1.0f + x + 2.0f * y + 3.0f * z;
	const float w[5] = {0.5f, 0.25f, -0.125f, 0.0625f, 0.03125f};
	const double g = 0.5 + 6 * (0.25 - 0.125 + 0.0625 + 0.03125);
	for (int z = 4; z < nz - 4; z++)
		for (int y = 4; y < ny - 4; y++)
			for (int x = 4; x < nx - 4; x++)
				REF_CHECK_NEAR(stencil3d25_ref_at(l.data(), nx, ny, nz, w, x, y, z),
					       g * l[((size_t)z * ny + y) * nx + x], 1e-9);
	REF_TEST_END();
}
