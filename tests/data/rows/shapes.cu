// Kernels in other shapes than the benchmarks' for the coop_rows transform
// (tests/unit/test_transforms_rows.c, tests/suites/coop_rows.sh): the first
// group is rewritten, the second ("look-alikes") is declined.
#include <cuda_runtime.h>

// Row stride as a parameter, a sum that starts from a value, a product.
__global__ void
row_sum_ld(const float *x, float *y, double *p, int rows, int cols, int ld)
{
	int r = threadIdx.x + blockDim.x * blockIdx.x;

	if (r >= rows)
		return;
	float s = 1.0f;
	double q = 1.0;
	for (int j = 0; j < cols; ++j) {
		s += x[(size_t)r * ld + j];
		q *= 1.0 + 0.001 * x[(size_t)r * ld + j];
	}
	y[r] = s;
	p[r] = q;
}

// A 2-D grid (a batch in y), an arg-min written the other way round.
__global__ void
batched_argmin(const float *x, int *out, int R, int C)
{
	int b = blockIdx.y;
	int r = blockIdx.x * blockDim.x + threadIdx.x;

	if (r < R) {
		const float *p = x + ((size_t)b * R + r) * C;
		float best = p[0];
		int bi = 0;

		for (int j = 1; j < C; j++)
			if (best > p[j]) {
				bi = j;
				best = p[j];
			}
		out[b * R + r] = bi;
	}
}

// A grid-stride loop over rows; max through max(); an unrolled loop.
__global__ void
row_max_gridstride(const float *x, float *y, int rows, int cols)
{
	for (int row = blockIdx.x * blockDim.x + threadIdx.x; row < rows;
	     row += blockDim.x * gridDim.x) {
		float m = -3.0e38f;

#pragma unroll 2
		for (int j = 0; j < cols; j++)
			m = max(m, x[row * cols + j]);
		y[row] = m;
	}
}

// An exclusive scan (the store reads the running sum before the add),
// and a row scaling loop without any carried value.
__global__ void
exclusive_scan_scale(const float *x, float *y, float *z, const float *w,
		     int rows, int cols)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;

	if (row >= rows)
		return;
	float s = 0.0f;
	for (int j = 0; j < cols; j++) {
		y[row * cols + j] = s;
		s += x[row * cols + j];
	}
	for (int j = 0; j < cols; j++)
		z[row * cols + j] = x[row * cols + j] * w[row];
}

// Softmax with the row's offset written at each read and its max from
// the second element: three passes over one row (the row cache).
__global__ void
softmax_rows(const float *x, float *y, int rows, int cols)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;

	if (row >= rows)
		return;
	float m = x[(size_t)row * cols];
	for (int j = 1; j < cols; j++)
		m = fmaxf(m, x[(size_t)row * cols + j]);
	float s = 0.0f;
	for (int j = 0; j < cols; j++)
		s += expf(x[(size_t)row * cols + j] - m);
	for (int j = 0; j < cols; j++)
		y[(size_t)row * cols + j] = expf(x[(size_t)row * cols + j] - m) / s;
}

// A norm of double rows through a local pointer, a body with a local.
__global__ void
norm_rows(const double *x, const float *g, double *y, int rows, int n)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;

	if (r >= rows)
		return;
	const double *p = x + (size_t)r * n;
	double mu = 0.0;
	for (int j = 0; j < n; j++)
		mu += p[j];
	mu /= n;
	double v = 0.0;
	for (int j = 0; j < n; j++) {
		double d = p[j] - mu;
		v += d * d;
	}
	double inv = 1.0 / sqrt(v / n + 1e-6);
	for (int j = 0; j < n; j++)
		y[(size_t)r * n + j] = (p[j] - mu) * inv * g[j];
}

// An arg-max from the second element (ties: the first), then a pass that
// reads the row again; the index is stored after the passes.
__global__ void
argmax_gap(const float *x, int *idx, float *y, int rows, int cols)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;

	if (row >= rows)
		return;
	const float *xr = x + (size_t)row * cols;
	float best = xr[0];
	int bi = 0;
	for (int j = 1; j < cols; j++)
		if (xr[j] > best) {
			best = xr[j];
			bi = j;
		}
	float s = 0.0f;
	for (int j = 0; j < cols; j++)
		s += best - xr[j];
	idx[row] = bi;
	y[row] = s;
}

// A sum of the row and of the squares from its third element: the second
// pass walks the registers under j >= 2.
__global__ void
tail_sums(const float *x, float *y, int rows, int cols)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;

	if (row >= rows)
		return;
	float s = 0.0f, t = 0.0f;
	for (int j = 0; j < cols; j++)
		s += x[row * cols + j];
	for (int j = 2; j < cols; j++)
		t += x[row * cols + j] * x[row * cols + j];
	y[row] = s + t;
}

// Rewritten, without the row cache: the row is also stored (in place).
__global__ void
scale_inplace(float *x, int rows, int cols)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;

	if (row >= rows)
		return;
	float s = 0.0f;
	for (int j = 0; j < cols; j++)
		s += x[row * cols + j];
	for (int j = 0; j < cols; j++)
		x[row * cols + j] = x[row * cols + j] / s;
}

// Without the row cache: the second pass reads the element before its own.
__global__ void
diff_rows(const float *x, float *y, int rows, int cols)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;

	if (row >= rows)
		return;
	float s = 0.0f;
	for (int j = 0; j < cols; j++)
		s += x[row * cols + j];
	for (int j = 1; j < cols; j++)
		y[row * cols + j] = x[row * cols + j - 1] - s;
}

// Without the row cache: the passes have different bounds.
__global__ void
prefix_sums2(const float *x, float *y, int rows, int cols, int n)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;

	if (row >= rows)
		return;
	float s = 0.0f, t = 0.0f;
	for (int j = 0; j < cols; j++)
		s += x[row * cols + j];
	for (int j = 0; j < n; j++)
		t += x[row * cols + j];
	y[row] = s - t;
}

// Without the row cache: a store between the passes (y may be x).
__global__ void
store_between(const float *x, float *y, float *z, int rows, int cols)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;

	if (row >= rows)
		return;
	float s = 0.0f;
	for (int j = 0; j < cols; j++)
		s += x[row * cols + j];
	y[row] = s;
	float t = 0.0f;
	for (int j = 0; j < cols; j++)
		t += x[row * cols + j] * s;
	z[row] = t;
}

// ---- look-alikes ----

// Each row adds the previous row's output: a dependency across rows.
__global__ void
cross_row(const float *x, float *y, int rows, int cols)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;

	if (row < 1 || row >= rows)
		return;
	for (int j = 0; j < cols; j++)
		y[row * cols + j] = y[(row - 1) * cols + j] + x[row * cols + j];
}

// The row's length is read from memory: not uniform across the block.
__global__ void
ragged_rows(const float *x, const int *len, float *y, int rows, int cols)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;

	if (row >= rows)
		return;
	float s = 0.0f;
	for (int j = 0; j < len[row]; j++)
		s += x[row * cols + j];
	y[row] = s;
}

// A gather: the loop's index is data.
__global__ void
gather_rows(const float *x, const int *idx, float *y, int rows, int cols)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;

	if (row >= rows)
		return;
	float s = 0.0f;
	for (int j = 0; j < cols; j++)
		s += x[row * cols + idx[j]];
	y[row] = s;
}

// A column walk (threads are already coalesced): stride cols.
__global__ void
column_sum(const float *x, float *y, int rows, int cols)
{
	int col = blockIdx.x * blockDim.x + threadIdx.x;

	if (col >= cols)
		return;
	float s = 0.0f;
	for (int j = 0; j < rows; j++)
		s += x[j * cols + col];
	y[col] = s;
}

// A recurrence along the row (an exponential moving average).
__global__ void
ema_rows(const float *x, float *y, int rows, int cols, float a)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;

	if (row >= rows)
		return;
	float e = 0.0f;
	for (int j = 0; j < cols; j++) {
		e = a * e + (1.0f - a) * x[row * cols + j];
		y[row * cols + j] = e;
	}
}

// A triangular loop: the bound is the thread's own row.
__global__ void
lower_sum(const float *x, float *y, int rows, int cols)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;

	if (row >= rows)
		return;
	float s = 0.0f;
	for (int j = 0; j <= row; j++)
		s += x[row * cols + j];
	y[row] = s;
}

// Leaves the row early.
__global__ void
first_negative(const float *x, int *y, int rows, int cols)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;

	if (row >= rows)
		return;
	int at = -1;
	for (int j = 0; j < cols; j++)
		if (x[row * cols + j] < 0.0f) {
			at = j;
			break;
		}
	y[row] = at;
}

// A while loop walks the row: only for loops are rewritten.
__global__ void
while_rows(const float *x, float *y, int rows, int cols)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;

	if (row >= rows)
		return;
	float s = 0.0f;
	int j = 0;
	while (j < cols) {
		s += x[row * cols + j];
		j++;
	}
	y[row] = s;
}

// Sums into the members of a local struct (not a variable of its own).
struct pair2 {
	float s, q;
};

__global__ void
struct_sums(const float *x, float *y, int rows, int cols)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;

	if (row >= rows)
		return;
	pair2 a = { 0.0f, 0.0f };
	for (int j = 0; j < cols; j++) {
		a.s += x[row * cols + j];
		a.q += x[row * cols + j] * x[row * cols + j];
	}
	y[row] = a.s + a.q;
}

// One thread of the row stores the sum, every thread reads it back.
__global__ void
readback(const float *x, float *y, float *z, int rows, int cols)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;

	if (row >= rows)
		return;
	float s = 0.0f;
	for (int j = 0; j < cols; j++)
		s += x[row * cols + j];
	y[row] = s;
	float t = y[row] * 0.5f;
	for (int j = 0; j < cols; j++)
		z[row * cols + j] = x[row * cols + j] - t;
}

// Already cooperative.
__global__ void
block_sum(const float *x, float *y, int n)
{
	__shared__ float part[256];
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	part[threadIdx.x] = i < n ? x[i] : 0.0f;
	__syncthreads();
	for (int s = blockDim.x / 2; s > 0; s >>= 1) {
		if (threadIdx.x < s)
			part[threadIdx.x] += part[threadIdx.x + s];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		y[blockIdx.x] = part[0];
}

void
launch_all(const float *x, float *y, float *z, double *p, int *iy,
	   const int *len, int rows, int cols, cudaStream_t s)
{
	softmax_rows<<<(rows + 255) / 256, 256, 0, s>>>(x, y, rows, cols);
	norm_rows<<<(rows + 255) / 256, 256, 0, s>>>(p, x, p, rows, cols);
	argmax_gap<<<(rows + 255) / 256, 256, 0, s>>>(x, iy, y, rows, cols);
	tail_sums<<<(rows + 255) / 256, 256, 0, s>>>(x, y, rows, cols);
	scale_inplace<<<(rows + 255) / 256, 256, 0, s>>>(y, rows, cols);
	diff_rows<<<(rows + 255) / 256, 256, 0, s>>>(x, y, rows, cols);
	prefix_sums2<<<(rows + 255) / 256, 256, 0, s>>>(x, y, rows, cols, cols / 2);
	store_between<<<(rows + 255) / 256, 256, 0, s>>>(x, y, z, rows, cols);
	row_sum_ld<<<(rows + 255) / 256, 256, 0, s>>>(x, y, p, rows, cols, cols + 3);
	batched_argmin<<<dim3((rows + 127) / 128, 4), 128, 0, s>>>(x, iy, rows, cols);
	row_max_gridstride<<<64, 256, 0, s>>>(x, y, rows, cols);
	exclusive_scan_scale<<<(rows + 255) / 256, 256, 0, s>>>(x, y, z, x, rows, cols);
	cross_row<<<(rows + 255) / 256, 256, 0, s>>>(x, y, rows, cols);
	ragged_rows<<<(rows + 255) / 256, 256, 0, s>>>(x, len, y, rows, cols);
	gather_rows<<<(rows + 255) / 256, 256, 0, s>>>(x, len, y, rows, cols);
	column_sum<<<(cols + 255) / 256, 256, 0, s>>>(x, y, rows, cols);
	ema_rows<<<(rows + 255) / 256, 256, 0, s>>>(x, y, rows, cols, 0.5f);
	lower_sum<<<(rows + 255) / 256, 256, 0, s>>>(x, y, rows, cols);
	first_negative<<<(rows + 255) / 256, 256, 0, s>>>(x, iy, rows, cols);
	while_rows<<<(rows + 255) / 256, 256, 0, s>>>(x, y, rows, cols);
	struct_sums<<<(rows + 255) / 256, 256, 0, s>>>(x, y, rows, cols);
	readback<<<(rows + 255) / 256, 256, 0, s>>>(x, y, z, rows, cols);
	block_sum<<<(rows + 255) / 256, 256, 0, s>>>(x, y, rows);
}
