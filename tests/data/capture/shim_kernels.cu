// Kernels whose entry shims tests/suites/shim.sh compiles: a struct passed
// by value, pointers (one __restrict__), scalars and __half, a kernel in a
// namespace whose parameter type is spelled without qualification there, a
// template instance, and a kernel with a launcher.
#include <cuda_fp16.h>

struct grid2d {
	int nx, ny;
	float w_center, w_side;
};

__global__ void
mixed(grid2d g, const float *__restrict__ in, float *out, __half scale, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n && i < g.nx * g.ny)
		out[i] = g.w_center * in[i] * __half2float(scale);
}

namespace ns {
struct pair {
	float a, b;
};

template <typename T>
__global__ void
axpb(T *x, pair p, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		x[i] = p.a * x[i] + p.b;
}

template __global__ void axpb<float>(float *, pair, int);

__global__ void
fill(float *x, pair p, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		x[i] = p.a;
}

static void
ks_launch_fill(dim3 grid, dim3 block, size_t shmem, cudaStream_t s, float *x,
	       pair p, int n)
{
	(void)grid;
	(void)block;
	fill<<<(n + 127) / 128, 128, shmem, s>>>(x, p, n);
}
} // namespace ns

int
main()
{
	return 0;
}
