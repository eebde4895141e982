// ref.h: CPU reference for the 3-D 25-point star stencil of radius 4 (the
// eighth-order finite-difference Laplacian of seismic codes) on an
// nx x ny x nz grid (x fastest, then y, then z), with a fixed boundary:
//   out = c[0] in[z][y][x] + sum over r = 1 .. 4 of c[r] (in[x-r] + in[x+r]
//         + in[y-r] + in[y+r] + in[z-r] + in[z+r])
// for points at least 4 steps inside every face, and out = in within 4
// steps of a face. Accumulates in double.
#pragma once

#include <cstddef>

#define STENCIL_R 4

static inline double
stencil3d25_ref_at(const float *in, int nx, int ny, int nz, const float *c, int x,
		   int y, int z)
{
	const int R = STENCIL_R;
	const size_t sy = (size_t)nx, sz = (size_t)nx * ny;
	const size_t i = (size_t)z * sz + (size_t)y * sy + x;
	if (x < R || y < R || z < R || x >= nx - R || y >= ny - R || z >= nz - R)
		return in[i];
	double acc = (double)c[0] * in[i];
	for (int r = 1; r <= R; r++)
		acc += (double)c[r] * ((double)in[i - r] + in[i + r] + in[i - r * sy] +
				       in[i + r * sy] + in[i - r * sz] + in[i + r * sz]);
	return acc;
}
