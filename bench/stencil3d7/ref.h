// ref.h: CPU reference for the 3-D 7-point stencil (a weighted Laplacian
// smoother) on an nx x ny x nz grid (x fastest, then y, then z), with a
// fixed boundary:
//   out = c0 * in[z][y][x] + c1 * (in[x-1] + in[x+1] + in[y-1] + in[y+1]
//         + in[z-1] + in[z+1])
// for points at least one step inside every face, and out = in on the
// boundary faces. Accumulates in double.
#pragma once

#include <cstddef>

static inline double
stencil3d7_ref_at(const float *in, int nx, int ny, int nz, float c0, float c1,
		  int x, int y, int z)
{
	const size_t sy = (size_t)nx, sz = (size_t)nx * ny;
	const size_t i = (size_t)z * sz + (size_t)y * sy + x;
	if (x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1)
		return in[i];
	double s = (double)in[i - 1] + in[i + 1] + in[i - sy] + in[i + sy] +
		   in[i - sz] + in[i + sz];
	return (double)c0 * in[i] + (double)c1 * s;
}
