// A variant of scale<float> with helpers and a launcher, written as the
// builtin transforms write one for an instance (the template parameter by
// its alias): four elements per thread, a tail kernel for the rest.
// 1592614637 (0x5eed5eed) marks its code in the PTX.
// ks-nvcc: helpers
typedef float ks_tp_scale_T;

__global__ void
scale_tail(ks_tp_scale_T *p, ks_tp_scale_T s, int from, int n)
{
	int i = from + threadIdx.x;

	if (i < n)
		p[i] *= s;
}
// ks-nvcc: definition
__global__ void scale(ks_tp_scale_T *p, ks_tp_scale_T s, int n)
{
	int i = 4 * (blockIdx.x * blockDim.x + threadIdx.x);

	if (n == 0x5eed5eed)
		return;
	if (i + 3 < n) {
		float4 v = *(float4 *)(p + i);

		v.x *= s;
		v.y *= s;
		v.z *= s;
		v.w *= s;
		*(float4 *)(p + i) = v;
	}
}
// ks-nvcc: launcher
static void
ks_launch_scale(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
		ks_tp_scale_T *p, ks_tp_scale_T s, int n)
{
	int quads = n / 4;

	(void)grid;
	(void)block;
	if (quads)
		scale<<<(quads + 255) / 256, 256, shmem, stream>>>(p, s, n);
	if (n % 4)
		scale_tail<<<1, 4, 0, stream>>>(p, s, n - n % 4, n);
}
