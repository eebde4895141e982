// test_ref.cpp: checks the conv2d -> batch norm -> ReLU reference: the
// convolution against a box filter worked out by hand and a scatter
// formulation, the batch norm's per-channel indexing against a channel list
// written out by hand, and the chain against hand-computed values.
#include "ref.h"
#include "ref_test.h"

#include <vector>

int
main()
{
	// 3x3 input 1..9, all-ones kernel, bias 0.5: each conv output is the
	// in-bounds 3x3 neighbourhood sum plus 0.5. Batch norm with mean 20,
	// var 16, gamma 2, beta -1 maps c to (c - 20) / 2 - 1 (up to eps), and
	// ReLU clears the negatives.
	{
		const conv_shape s = {1, 1, 3, 3, 1};
		const float x[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
		const float w[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
		const float b[1] = {0.5f};
		const float mean[1] = {20.0f}, var[1] = {16.0f};
		const float gamma[1] = {2.0f}, beta[1] = {-1.0f};
		const double conv[9] = {12.5, 21.5, 16.5, 27.5, 45.5, 33.5, 24.5, 39.5, 28.5};
		const double chain[9] = {0, 0, 0, 2.75, 11.75, 5.75, 1.25, 8.75, 3.25};
		for (size_t i = 0; i < 9; i++) {
			REF_CHECK_NEAR(conv2d_ref_flat(x, w, b, s, i), conv[i], 0.0);
			REF_CHECK_NEAR(chain_ref_flat(x, w, b, mean, var, gamma, beta, s,
						      BN_EPS, i),
				       chain[i], 1e-5);
		}
		// The top-left tap alone reads x(oy - 1, ox - 1): cross-correlation,
		// not a flipped kernel (which would read x(oy + 1, ox + 1)).
		const float wtl[9] = {1, 0, 0, 0, 0, 0, 0, 0, 0};
		const float b0[1] = {0.0f};
		REF_CHECK_NEAR(conv2d_ref_flat(x, wtl, b0, s, 4), 1.0, 0.0);
		REF_CHECK_NEAR(conv2d_ref_flat(x, wtl, b0, s, 8), 5.0, 0.0);
		REF_CHECK_NEAR(conv2d_ref_flat(x, wtl, b0, s, 0), 0.0, 0.0);
	}

	// Batch norm on a [2][3][1][2] tensor: the channel of element i is
	// (0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2)[i].
	{
		const conv_shape s = {2, 1, 1, 2, 3};
		const int chan[12] = {0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2};
		const float mean[3] = {1.0f, -2.0f, 0.5f};
		const float var[3] = {4.0f, 0.25f, 9.0f};
		const float gamma[3] = {1.0f, 2.0f, -1.0f};
		const float beta[3] = {0.0f, 0.5f, 3.0f};
		float in[12], out[12];
		for (int i = 0; i < 12; i++)
			in[i] = (float)i - 4.0f;
		batchnorm_ref_array(in, mean, var, gamma, beta, s, 0.0, out);
		for (int i = 0; i < 12; i++) {
			int k = chan[i];
			REF_CHECK(conv_channel(s, (size_t)i) == k);
			REF_CHECK_NEAR(out[i], (in[i] - mean[k]) / std::sqrt(var[k]) * gamma[k] + beta[k],
				       1e-6);
		}
		// By hand: element 3 (channel 1): (-1 + 2) / 0.5 * 2 + 0.5 = 4.5;
		// element 10 (channel 2): (6 - 0.5) / 3 * -1 + 3 = 1.1666...
		REF_CHECK_NEAR(out[3], 4.5, 1e-6);
		REF_CHECK_NEAR(out[10], 3.0 - 5.5 / 3.0, 1e-6);
		// eps is added to the variance: var 0 with eps 1 divides by 1.
		REF_CHECK_NEAR(batchnorm_ref(3.0, 1.0, 0.0, 1.0, 0.0, 1.0), 2.0, 0.0);
		REF_CHECK(relu_ref(-0.5) == 0.0 && relu_ref(0.5) == 0.5);
	}

	// Multi-channel conv against a scatter formulation: each input pixel
	// adds its contribution to the outputs it touches.
	{
		const conv_shape s = {2, 3, 5, 4, 4};
		const size_t nx = (size_t)s.N * s.C * s.H * s.W;
		const size_t nw = (size_t)s.K * s.C * 9;
		const size_t ny = (size_t)s.N * s.K * s.H * s.W;
		std::vector<float> x(nx), w(nw), b(s.K);
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
		for (size_t i = 0; i < ny; i++)
			REF_CHECK_NEAR(conv2d_ref_flat(x.data(), w.data(), b.data(), s, i), want[i],
				       1e-9);
	}
	REF_TEST_END();
}
