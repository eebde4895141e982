// ref.h: CPU reference for one sweep of the 2-D Jacobi iteration of the
// Laplace equation on an nx x ny grid (row-major, x fastest), 5-point
// stencil with a fixed (Dirichlet) boundary:
//   out[y][x] = 0.25f * (in[y][x-1] + in[y][x+1] + in[y-1][x] + in[y+1][x])
// for 0 < x < nx - 1 and 0 < y < ny - 1, and out = in on the boundary rows
// and columns. Computed in float with the kernel's order of operations
// (a sum of four terms, left to right, then the product), so the GPU's
// result must agree to the last bit.
#pragma once

#include <cstddef>

static inline float
jacobi2d_ref_at(const float *in, int nx, int ny, int x, int y)
{
	const size_t i = (size_t)y * nx + x;
	if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1)
		return in[i];
	return 0.25f * (in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx]);
}

static inline void
jacobi2d_ref(const float *in, float *out, int nx, int ny)
{
	for (int y = 0; y < ny; y++)
		for (int x = 0; x < nx; x++)
			out[(size_t)y * nx + x] = jacobi2d_ref_at(in, nx, ny, x, y);
}
