// Stencil kernels for stencil_smem_halo: shapes it takes and look-alikes
// it declines (tests/unit/test_xf_stencil.c, tests/suites/xf_stencil.sh).
#define R 2

__constant__ float wts[R + 1];

// 2-D 5-point Jacobi with a copied boundary.
__global__ void jacobi(const float *in, float *out, int nx, int ny)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	if (x >= nx || y >= ny)
		return;
	size_t i = (size_t)y * nx + x;
	if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
		out[i] = in[i];
		return;
	}
	out[i] = 0.25f * (in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx]);
}

// 2-D 9-point box (diagonals) in double, the row pitch a parameter, a
// second array read at the centre only.
__global__ void box9(const double *in, const double *k, double *out, int w, int h, int pitch)
{
	int c = blockIdx.x * blockDim.x + threadIdx.x;
	int r = blockIdx.y * blockDim.y + threadIdx.y;
	if (c >= w || r >= h)
		return;
	if (c < 1 || r < 1 || c > w - 2 || r > h - 2)
		return;
	size_t i = (size_t)r * pitch + c;
	double s = 0;
	s += in[i - pitch - 1] + in[i - pitch] + in[i - pitch + 1];
	s += in[i - 1] + in[i] + in[i + 1];
	s += in[i + pitch - 1] + in[i + pitch] + in[i + pitch + 1];
	out[i] = k[i] * s;
}

// 2-D star of radius R, a loop over the radius stepping by 1 from -R.
__global__ void star2d_r(const float *in, float *out, int nx, int ny)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	if (x >= nx || y >= ny)
		return;
	if (x < R || y < R || x >= nx - R || y >= ny - R) {
		out[y * nx + x] = 0.0f;
		return;
	}
	float s = 0.0f;
	for (int d = -R; d <= R; d++)
		s += wts[d < 0 ? -d : d] * (in[y * nx + x + d] + in[(y + d) * nx + x]);
	out[y * nx + x] = s;
}

// The input through a pointer into it.
__global__ void ptr_alias(const float *in, float *out, int nx, int ny)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	if (x >= nx || y >= ny || x < 1 || x >= nx - 1)
		return;
	const float *p = in + (size_t)y * nx + x;
	out[(size_t)y * nx + x] = p[-1] + p[1];
}

// 3-D 7-point.
__global__ void heat3d(const float *u, float *v, int nx, int ny, int nz, float a)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	int z = blockIdx.z * blockDim.z + threadIdx.z;
	if (x >= nx || y >= ny || z >= nz)
		return;
	size_t i = ((size_t)z * ny + y) * nx + x;
	if (x < 1 || y < 1 || z < 1 || x >= nx - 1 || y >= ny - 1 || z >= nz - 1)
		return;
	size_t p = (size_t)nx * ny;
	v[i] = u[i] + a * (u[i - 1] + u[i + 1] + u[i - nx] + u[i + nx] + u[i - p] + u[i + p] -
			   6.0f * u[i]);
}

// 3-D star of radius R, a radius loop from 1, the weights in constant
// memory (the shape of a seismic stencil).
__global__ void star3d_r(const float *in, float *out, int nx, int ny, int nz)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	int z = blockIdx.z * blockDim.z + threadIdx.z;
	if (x >= nx || y >= ny || z >= nz)
		return;
	size_t i = ((size_t)z * ny + y) * nx + x;
	if (x < R || y < R || z < R || x >= nx - R || y >= ny - R || z >= nz - R) {
		out[i] = in[i];
		return;
	}
	float acc = wts[0] * in[i];
	for (int r = 1; r <= R; r++)
		acc += wts[r] * (in[i - r] + in[i + r] + in[i - r * nx] + in[i + r * nx] +
				 in[i - r * (size_t)nx * ny] + in[i + r * (size_t)nx * ny]);
	out[i] = acc;
}

// The exit stops one row short of the array, whose last row the
// stencil reads as y + 1: the tile holds the rows below the limit, and
// the outputs next to them run the kernel's own body.
__global__ void short_exit(const float *in, float *out, int nx, int ny)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	if (y >= ny - 1)
		return;
	if (x >= 1 && x < nx - 1 && y >= 1)
		out[y * nx + x] = 0.2f * (in[y * nx + x] + in[y * nx + x - 1] +
					  in[y * nx + x + 1] + in[(y + 1) * nx + x] +
					  in[(y - 1) * nx + x]);
}

// Guarded by an if around the work, no early exit: the guard's limit
// bounds the tile, with the kernel's own body next to its ends.
__global__ void no_exit(const float *in, float *out, int nx, int ny)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	if (x > 0 && y > 0 && x < nx - 1 && y < ny - 1)
		out[y * nx + x] = in[y * nx + x - 1] + in[y * nx + x + 1];
}

// Sizes fixed at compile time (the strides are constants), a 9-point box
// inside a guard.
#define FIXED_N 40
__global__ void fixed2d(const float *in, float *out, int nx, int ny)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;
	const float c1 = 0.2f, c2 = 0.5f, c3 = -0.8f;

	if ((i < FIXED_N - 1) && (j < FIXED_N - 1) && (i > 0) && (j > 0))
		out[i * FIXED_N + j] =
			c1 * in[(i - 1) * FIXED_N + (j - 1)] + c2 * in[(i - 1) * FIXED_N + j] +
			c3 * in[(i - 1) * FIXED_N + (j + 1)] + c2 * in[i * FIXED_N + (j - 1)] +
			c1 * in[i * FIXED_N + j] + c3 * in[i * FIXED_N + (j + 1)] +
			c3 * in[(i + 1) * FIXED_N + (j - 1)] + c1 * in[(i + 1) * FIXED_N + j] +
			c2 * in[(i + 1) * FIXED_N + (j + 1)];
	(void)nx;
	(void)ny;
}

// An update of the output from its own element (read before it is
// written, by its thread alone) and the input's neighbours.
__global__ void own_update(const float *in, float *out, int nx, int ny)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if (i < ny && j < nx && i > 0)
		out[i * nx + j] = out[i * nx + j] - 0.5f * (in[i * nx + j] - in[(i - 1) * nx + j]);
}

// 3-D 7-point inside a guard on all three axes.
__global__ void guard3d(const float *in, float *out, int nx, int ny, int nz)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	int z = blockIdx.z * blockDim.z + threadIdx.z;

	if (x > 0 && y > 0 && z > 0 && x < nx - 1 && y < ny - 1 && z < nz - 1) {
		int i = (z * ny + y) * nx + x;

		out[i] = 0.5f * in[i] + 0.1f * (in[i - 1] + in[i + 1] + in[i - nx] +
						  in[i + nx] + in[i - nx * ny] + in[i + nx * ny]);
	}
}

// --- look-alikes ---

// 1-D three-point smoother.
__global__ void smooth1d(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i > 0 && i < n - 1)
		y[i] = 0.25f * x[i - 1] + 0.5f * x[i] + 0.25f * x[i + 1];
}

// 3-D 27-point box: reads off the column and the plane at once.
__global__ void box27(const float *in, float *out, int nx, int ny, int nz)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	int z = blockIdx.z * blockDim.z + threadIdx.z;
	if (x >= nx || y >= ny || z >= nz)
		return;
	if (x < 1 || y < 1 || z < 1 || x >= nx - 1 || y >= ny - 1 || z >= nz - 1)
		return;
	size_t i = ((size_t)z * ny + y) * nx + x;
	size_t p = (size_t)nx * ny;
	out[i] = in[i - p - nx - 1] + in[i] + in[i + p + nx + 1];
}

// A neighbour found through an index array.
__global__ void gathered(const float *in, const int *nb, float *out, int nx, int ny)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	if (x >= nx || y >= ny)
		return;
	size_t i = (size_t)y * nx + x;
	out[i] = in[i] + in[nb[i]];
}

// In place: reads the array it writes.
__global__ void inplace(float *u, int nx, int ny)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	if (x >= nx || y >= ny || x < 1 || x >= nx - 1)
		return;
	size_t i = (size_t)y * nx + x;
	u[i] = 0.5f * (u[i - 1] + u[i + 1]);
}

// An interior-only grid (x = ... + R): the exit bounds the outputs, not
// the rows the reads reach.
__global__ void interior_r(const float *in, float *out, int nx, int ny)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x + R;
	int y = blockIdx.y * blockDim.y + threadIdx.y + R;
	if (y >= ny - R)
		return;
	if (x >= nx - R)
		return;
	float acc = wts[0] * in[y * nx + x];
	for (int d = 1; d <= R; d++)
		acc += wts[d] * (in[y * nx + x - d] + in[y * nx + x + d] +
				 in[(y - d) * nx + x] + in[(y + d) * nx + x]);
	out[y * nx + x] = acc;
}


// A transposed read: moves with the thread differently from the store.
__global__ void transposed(const float *in, float *out, int n)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	if (x >= n || y >= n)
		return;
	out[(size_t)y * n + x] = in[(size_t)x * n + y] + in[(size_t)y * n + x];
}

// The radius a parameter: no constant trip count.
__global__ void radius_param(const float *in, float *out, int nx, int ny, int r)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	if (x >= nx || y >= ny || x < r || x >= nx - r)
		return;
	float s = 0;
	for (int d = -r; d <= r; d++)
		s += in[y * nx + x + d];
	out[y * nx + x] = s;
}

// The output along y fastest (column-major store).
__global__ void colmajor(const float *in, float *out, int nx, int ny)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	if (x >= nx || y >= ny || y < 1 || y >= ny - 1)
		return;
	out[(size_t)x * ny + y] = in[(size_t)x * ny + y - 1] + in[(size_t)x * ny + y + 1];
}
