// 3-D stencils whose packed form may or may not run its body once on
// 4-wide values (tests/unit/test_xf_stencil.c, xflane.h): one that may,
// and one look-alike for each reason it may not.
#define R 2

__constant__ float wts[R + 1];

// The weights by a radius loop, a local accumulator, an integer offset
// kept in a local, a border that copies: one body for the 4 outputs.
__global__ void lane_ok(const float *in, float *out, int nx, int ny, int nz)
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
	const size_t p = (size_t)nx * ny;
	float acc = wts[0] * in[i];
	for (int r = 1; r <= R; r++) {
		float s = in[i - r] + in[i + r];
		s += in[i - r * nx] + in[i + r * nx];
		acc += wts[r] * (s + in[i - r * p] + in[i + r * p]) / 2.0f;
	}
	out[i] = -acc + 2 * in[i];
}

// x in a value: the 4 outputs differ in it.
__global__ void lane_xvalue(const float *in, float *out, int nx, int ny, int nz)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	int z = blockIdx.z * blockDim.z + threadIdx.z;
	if (x >= nx || y >= ny || z >= nz)
		return;
	size_t i = ((size_t)z * ny + y) * nx + x;
	if (x < 1 || y < 1 || z < 1 || x >= nx - 1 || y >= ny - 1 || z >= nz - 1)
		return;
	int w = x % 3;
	out[i] = in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx] + w * in[i + (size_t)nx * ny];
}

// A call on a value.
__global__ void lane_call(const float *in, float *out, int nx, int ny, int nz)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	int z = blockIdx.z * blockDim.z + threadIdx.z;
	if (x >= nx || y >= ny || z >= nz)
		return;
	size_t i = ((size_t)z * ny + y) * nx + x;
	if (x < 1 || y < 1 || z < 1 || x >= nx - 1 || y >= ny - 1 || z >= nz - 1)
		return;
	out[i] = fabsf(in[i - 1] - in[i + 1]) + in[i - nx] + in[i + nx] + in[i - (size_t)nx * ny];
}

// A branch on a value.
__global__ void lane_datacond(const float *in, float *out, int nx, int ny, int nz)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	int z = blockIdx.z * blockDim.z + threadIdx.z;
	if (x >= nx || y >= ny || z >= nz)
		return;
	size_t i = ((size_t)z * ny + y) * nx + x;
	if (x < 1 || y < 1 || z < 1 || x >= nx - 1 || y >= ny - 1 || z >= nz - 1)
		return;
	float s = in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx] + in[i + (size_t)nx * ny];
	if (s > 0.0f)
		s = 0.5f * s;
	out[i] = s;
}

// The border by equality tests (not bounds checks the lanes can agree
// on).
__global__ void lane_equal(const float *in, float *out, int nx, int ny, int nz)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	int z = blockIdx.z * blockDim.z + threadIdx.z;
	if (x >= nx || y >= ny || z >= nz)
		return;
	size_t i = ((size_t)z * ny + y) * nx + x;
	if (x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1) {
		out[i] = in[i];
		return;
	}
	out[i] = in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx] + in[i + (size_t)nx * ny];
}

// A double literal: the original rounds once, lanes would round twice.
__global__ void lane_double(const float *in, float *out, int nx, int ny, int nz)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	int z = blockIdx.z * blockDim.z + threadIdx.z;
	if (x >= nx || y >= ny || z >= nz)
		return;
	size_t i = ((size_t)z * ny + y) * nx + x;
	if (x < 1 || y < 1 || z < 1 || x >= nx - 1 || y >= ny - 1 || z >= nz - 1)
		return;
	out[i] = 0.2 * (in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx] + in[i + (size_t)nx * ny]);
}

// A double parameter: the original computes the expression in double
// and rounds once, lanes would round at each operation.
__global__ void lane_dparam(const float *in, float *out, int nx, int ny, int nz, double a)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	int z = blockIdx.z * blockDim.z + threadIdx.z;
	if (x >= nx || y >= ny || z >= nz)
		return;
	size_t i = ((size_t)z * ny + y) * nx + x;
	if (x < 1 || y < 1 || z < 1 || x >= nx - 1 || y >= ny - 1 || z >= nz - 1)
		return;
	out[i] = a * (in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx] + in[i + (size_t)nx * ny]);
}

// The element type in a condition (on lanes it would be the vector).
__global__ void lane_castcond(const float *in, float *out, int nx, int ny, int nz, float h)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	int z = blockIdx.z * blockDim.z + threadIdx.z;
	if (x >= nx || y >= ny || z >= nz)
		return;
	size_t i = ((size_t)z * ny + y) * nx + x;
	if (x < 1 || y < 1 || z < 1 || x >= nx - 1 || y >= ny - 1 || z >= nz - 1)
		return;
	float s = in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx] + in[i + (size_t)nx * ny];
	if ((float)z * h > 1.0f)
		s = -s;
	out[i] = s;
}
