/* The kernel-key tests edit copies of this file. */
#define SCALE 2.0f
#define TWICE(x) ((x) * SCALE)

struct pair {
	float a;
	float b;
};

__constant__ float bias[4];

__device__ float combine(struct pair p)
{
	return TWICE(p.a) + p.b + bias[0];
}

__global__ void target(float *out, const struct pair *in, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = combine(in[i]);
}

/* a comment outside every closure */
__global__ void other(float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = 0.0f;
}

void host(float *out, const struct pair *in, int n)
{
	target<<<(n + 255) / 256, 256>>>(out, in, n);
	other<<<(n + 255) / 256, 256>>>(out, n);
}
