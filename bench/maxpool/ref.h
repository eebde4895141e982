// ref.h: CPU reference for 2-D max pooling of an NCHW tensor with a k x k
// window, stride s and zero-size padding p on each side: padded positions
// are skipped (they never win), so
//   y[n][c][oh][ow] = max over in-bounds (ih, iw) of x[n][c][ih][iw],
//   ih = oh * s - p + kh, iw = ow * s - p + kw, 0 <= kh, kw < k.
// Output side: (in + 2p - k) / s + 1. Every window must hold at least one
// in-bounds element (p < k).
#pragma once

#include <cstddef>

static inline int
pool_out_size(int in, int k, int s, int p)
{
	return (in + 2 * p - k) / s + 1;
}

static inline void
maxpool_ref(const float *x, float *y, int n, int c, int h, int w, int k, int s, int p)
{
	const int ho = pool_out_size(h, k, s, p), wo = pool_out_size(w, k, s, p);
	for (size_t nc = 0; nc < (size_t)n * c; nc++) {
		const float *xp = x + nc * h * w;
		float *yp = y + nc * ho * wo;
		for (int oh = 0; oh < ho; oh++)
			for (int ow = 0; ow < wo; ow++) {
				bool any = false;
				float m = 0.0f;
				for (int kh = 0; kh < k; kh++) {
					int ih = oh * s - p + kh;
					if (ih < 0 || ih >= h)
						continue;
					for (int kw = 0; kw < k; kw++) {
						int iw = ow * s - p + kw;
						if (iw < 0 || iw >= w)
							continue;
						float v = xp[(size_t)ih * w + iw];
						if (!any || v > m)
							m = v;
						any = true;
					}
				}
				yp[(size_t)oh * wo + ow] = m;
			}
	}
}
