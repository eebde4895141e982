// ref.h: CPU reference for the permute of a row-major [A x B x C] tensor
// into a row-major [C x A x B] tensor: y[c][a][b] = x[a][b][c].
#pragma once

#include <cstddef>

static inline void
permute3d_ref(const float *x, float *y, size_t na, size_t nb, size_t nc)
{
	for (size_t a = 0; a < na; a++)
		for (size_t b = 0; b < nb; b++)
			for (size_t c = 0; c < nc; c++)
				y[(c * na + a) * nb + b] = x[(a * nb + b) * nc + c];
}
