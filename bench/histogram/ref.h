// ref.h: CPU reference for an even-width histogram: nbins bins of width
// (hi - lo) / nbins over [lo, hi); a sample v in [lo, hi) goes to bin
//   b = (int)((v - lo) * (nbins / (hi - lo))),
// clamped to nbins - 1; samples outside [lo, hi) are not counted (the
// semantics of cub::DeviceHistogram::HistogramEven). With lo = 0 and
// hi = nbins every formula for b is exact: b = floor(v).
#pragma once

#include <cstddef>

static inline void
histogram_ref(const float *x, size_t n, unsigned *hist, int nbins, float lo, float hi)
{
	const double scale = nbins / ((double)hi - (double)lo);
	for (int b = 0; b < nbins; b++)
		hist[b] = 0;
	for (size_t i = 0; i < n; i++) {
		float v = x[i];
		if (!(v >= lo && v < hi))
			continue;
		int b = (int)(((double)v - lo) * scale);
		if (b > nbins - 1)
			b = nbins - 1;
		hist[b]++;
	}
}
