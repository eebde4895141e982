// Kernels for the smem_tiled_transpose tests: transposes in other shapes
// (strides as parameters, the other direction, a batch in z, double and
// int) and look-alikes that must be declined.
#include <cuda_runtime.h>
#include <stddef.h>

// Leading dimensions as parameters, double.
__global__ void
transpose_ld(const double *in, int ldi, double *out, int ldo, int m, int n)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if (i < m && j < n)
		out[(size_t)j * ldo + i] = in[(size_t)i * ldi + j];
}

// The other direction: the store is contiguous along x, the load along y;
// scaled on the way.
__global__ void
gather_transpose(const int *src, int *dst, int rows, int cols, int k)
{
	int c = blockIdx.x * blockDim.x + threadIdx.x;
	int r = blockIdx.y * blockDim.y + threadIdx.y;

	if (c >= cols || r >= rows)
		return;
	dst[r * cols + c] = k * src[c * rows + r];
}

// A batch of matrices along z.
__global__ void
batched_transpose(const float *x, float *y, int rows, int cols)
{
	int c = blockIdx.x * blockDim.x + threadIdx.x;
	int r = blockIdx.y * blockDim.y + threadIdx.y;
	int b = blockIdx.z;

	if (r < rows && c < cols)
		y[((size_t)b * cols + c) * rows + r] = x[((size_t)b * rows + r) * cols + c];
}

// Look-alike: a copy, already coalesced on both sides.
__global__ void
copy2d(const float *x, float *y, int rows, int cols)
{
	int c = blockIdx.x * blockDim.x + threadIdx.x;
	int r = blockIdx.y * blockDim.y + threadIdx.y;

	if (r < rows && c < cols)
		y[r * cols + c] = x[r * cols + c];
}

// Look-alike: every row writes the same elements (not a permutation).
__global__ void
collapse_rows(const float *x, float *y, int rows, int cols)
{
	int c = blockIdx.x * blockDim.x + threadIdx.x;
	int r = blockIdx.y * blockDim.y + threadIdx.y;

	if (r < rows && c < cols)
		y[c] = x[r * cols + c];
}

// Look-alike: the index goes through a division (not affine).
__global__ void
permute_1d(const float *x, float *y, int a, int b)
{
	int o = blockIdx.x * blockDim.x + threadIdx.x;

	if (o < a * b)
		y[o] = x[(o % a) * b + o / a];
}

// Look-alike: two loads of the input (a stencil, not a permutation).
__global__ void
transpose_sum(const float *x, float *y, int rows, int cols)
{
	int c = blockIdx.x * blockDim.x + threadIdx.x;
	int r = blockIdx.y * blockDim.y + threadIdx.y;

	if (r + 1 < rows && c < cols)
		y[c * rows + r] = x[r * cols + c] + x[(r + 1) * cols + c];
}

void
run(const double *d, double *e, const int *s, int *t, const float *x, float *y)
{
	transpose_ld<<<dim3(4, 4), dim3(16, 16)>>>(d, 70, e, 64, 60, 50);
	gather_transpose<<<dim3(4, 4), dim3(32, 4)>>>(s, t, 9, 100, 3);
	batched_transpose<<<dim3(2, 2, 3), dim3(16, 16)>>>(x, y, 20, 30);
	copy2d<<<dim3(2, 2), dim3(16, 16)>>>(x, y, 20, 30);
	collapse_rows<<<dim3(2, 2), dim3(16, 16)>>>(x, y, 20, 30);
	permute_1d<<<4, 256>>>(x, y, 20, 30);
	transpose_sum<<<dim3(2, 2), dim3(16, 16)>>>(x, y, 20, 30);
}
