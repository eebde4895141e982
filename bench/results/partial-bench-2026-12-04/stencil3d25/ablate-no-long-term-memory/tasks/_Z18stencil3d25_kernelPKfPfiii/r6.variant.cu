// stencil3d25_kernel: unroll_constant_loops, 1 edit (builtin transform, arch 900)
// ks-nvcc: definition
__global__ void
stencil3d25_kernel(const float *in, float *out, int nx, int ny, int nz)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	int z = blockIdx.z * blockDim.z + threadIdx.z;
	if (x >= nx || y >= ny || z >= nz)
		return;
	size_t i = ((size_t)z * ny + y) * nx + x;
	if (x < STENCIL_R || y < STENCIL_R || z < STENCIL_R || x >= nx - STENCIL_R ||
	    y >= ny - STENCIL_R || z >= nz - STENCIL_R) {
		out[i] = in[i];
		return;
	}
	float acc = coef[0] * in[i];
	#pragma unroll
	for (int r = 1; r <= STENCIL_R; r++)
		acc += coef[r] * (in[i - r] + in[i + r] + in[i - r * nx] + in[i + r * nx] +
				  in[i - r * (size_t)nx * ny] + in[i + r * (size_t)nx * ny]);
	out[i] = acc;
}
