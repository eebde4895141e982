// The kernel of t_header, in a header of its own (as many programs keep
// their kernels): a naive out-of-place transpose.
#pragma once
#include "dims.h"

__global__ void
flip_h(const float *x, float *y, int rows, int cols)
{
	int c = blockIdx.x * blockDim.x + threadIdx.x;
	int r = blockIdx.y * blockDim.y + threadIdx.y;

	if (r < rows && c < cols)
		y[(size_t)c * rows + r] = x[(size_t)r * cols + c];
}
