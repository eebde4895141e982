// test_ref.cpp: checks the conv2d reference against a box filter worked out
// by hand, the orientation of the kernel (cross-correlation, not flipped),
// and an independent scatter formulation on a multi-channel case.
#include "ref.h"
#include "ref_test.h"

#include <vector>

int
main()
{
	// 1 image, 1 channel, 3x3 input 1..9, all-ones kernel, bias 0.5: each
	// output is the sum of the in-bounds 3x3 neighbourhood plus 0.5.
	{
		const conv_shape s = {1, 1, 3, 3, 1};
		const float x[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
		const float w[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
		const float b[1] = {0.5f};
		const double want[9] = {12.5, 21.5, 16.5, 27.5, 45.5, 33.5, 24.5, 39.5, 28.5};
		float y[9];
		conv2d_ref(x, w, b, s, y);
		for (int i = 0; i < 9; i++)
			REF_CHECK_NEAR(y[i], want[i], 0.0);

		// Only the top-left tap set: y(oy, ox) = x(oy - 1, ox - 1), zero
		// outside. A flipped kernel (true convolution) would give
		// x(oy + 1, ox + 1) instead.
		const float wtl[9] = {1, 0, 0, 0, 0, 0, 0, 0, 0};
		const float b0[1] = {0.0f};
		conv2d_ref(x, wtl, b0, s, y);
		const double want_tl[9] = {0, 0, 0, 0, 1, 2, 0, 4, 5};
		for (int i = 0; i < 9; i++)
			REF_CHECK_NEAR(y[i], want_tl[i], 0.0);
		REF_CHECK(y[4] != 9.0f);
	}

	// 2 images, 3 channels, 5x4 input, 4 output channels, against a scatter
	// formulation: each input pixel adds its contribution to the outputs it
	// touches.
	{
		const conv_shape s = {2, 3, 5, 4, 4};
		const size_t nx = (size_t)s.N * s.C * s.H * s.W;
		const size_t nw = (size_t)s.K * s.C * 9;
		const size_t ny = (size_t)s.N * s.K * s.H * s.W;
		std::vector<float> x(nx), w(nw), b(s.K), y(ny);
		std::vector<double> want(ny, 0.0);
		for (size_t i = 0; i < nx; i++)
			x[i] = (float)((int)(i * 7 % 11) - 5) * 0.25f;
		for (size_t i = 0; i < nw; i++)
			w[i] = (float)((int)(i * 5 % 13) - 6) * 0.125f;
		for (int k = 0; k < s.K; k++)
			b[k] = 0.5f * (float)k - 1.0f;
		for (int n = 0; n < s.N; n++)
			for (int k = 0; k < s.K; k++)
				for (int p = 0; p < s.H * s.W; p++)
					want[((size_t)n * s.K + k) * s.H * s.W + p] = b[k];
		for (int n = 0; n < s.N; n++)
			for (int c = 0; c < s.C; c++)
				for (int iy = 0; iy < s.H; iy++)
					for (int ix = 0; ix < s.W; ix++) {
						double v = x[(((size_t)n * s.C + c) * s.H + iy) * s.W + ix];
						for (int k = 0; k < s.K; k++)
							for (int r = 0; r < 3; r++)
								for (int q = 0; q < 3; q++) {
									int oy = iy - r + 1, ox = ix - q + 1;
									if (oy < 0 || oy >= s.H || ox < 0 || ox >= s.W)
										continue;
									want[(((size_t)n * s.K + k) * s.H + oy) * s.W + ox] +=
										v * w[(((size_t)k * s.C + c) * 3 + r) * 3 + q];
								}
					}
		conv2d_ref(x.data(), w.data(), b.data(), s, y.data());
		for (size_t i = 0; i < ny; i++)
			REF_CHECK_NEAR(y[i], want[i], 1e-5);
		// conv2d_ref_at agrees with the flat index decoding.
		REF_CHECK_NEAR(conv2d_ref_at(x.data(), w.data(), b.data(), s, 1, 2, 3, 1),
			       want[(((size_t)1 * s.K + 2) * s.H + 3) * s.W + 1], 1e-12);
		// Negative check: the outputs are not all equal to the bias.
		REF_CHECK(std::fabs(y[ny - 1] - b[s.K - 1]) > 1e-3 ||
			  std::fabs(y[ny - 2] - b[s.K - 1]) > 1e-3);
	}
	REF_TEST_END();
}
