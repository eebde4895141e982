// ref.h: CPU reference for the max over dimension 1 of a [B x R x C] tensor,
//   y[b][c] = max_r x[b][r][c].
// Max is exact, so no wider type is needed.
#pragma once

#include <cstddef>

static inline void
reduce_max_ref(const float *x, float *y, size_t nb, size_t nr, size_t nc)
{
	for (size_t b = 0; b < nb; b++) {
		const float *xb = x + b * nr * nc;
		float *yb = y + b * nc;
		for (size_t c = 0; c < nc; c++)
			yb[c] = xb[c];
		for (size_t r = 1; r < nr; r++)
			for (size_t c = 0; c < nc; c++)
				if (xb[r * nc + c] > yb[c])
					yb[c] = xb[r * nc + c];
	}
}
