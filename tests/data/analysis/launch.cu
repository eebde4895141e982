/*
 * Launch sites, templates and launch bounds for the inventory tests.
 * Self-contained: parses with the toolkit and with ks's prelude.
 */
#define BLOCK 128
#define MIN_BLOCKS 4

typedef struct CUstream_st *stream_t;

/* declared here, defined after the function that launches it */
__global__ void late(float *x, int n);

template <typename T, int N>
__global__ void __launch_bounds__(BLOCK, MIN_BLOCKS) fill(T *__restrict__ out, T v, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = v + (T)N;
}

__global__ void step_a(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] += 1.0f;
}

__global__ void step_b(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] *= 2.0f;
}

__global__ void lonely(const float *__restrict__ in, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = in[i];
}

/* a pipeline: graph-capturable */
void pipeline(float *x, int n, cudaStream_t s)
{
	dim3 grid((n + BLOCK - 1) / BLOCK);
	step_a<<<grid, BLOCK, 0, s>>>(x, n);
	late<<<grid, BLOCK, 0, s>>>(x, n);
	fill<float, 3><<<grid, dim3(BLOCK)>>>(x, 0.5f, n);
}

/* a loop of launches with a synchronization between: not capturable */
void iterate(float *x, int n, int steps)
{
	for (int t = 0; t < steps; ++t) {
		step_b<<<(n + 255) / 256, 256>>>(x, n);
		cudaDeviceSynchronize();
	}
}

void once(const float *in, float *out, int n)
{
	lonely<<<(n + 255) / 256, 256, 64 * sizeof(float)>>>(in, out, n);
}

void constant(int *out, int n)
{
	fill<int, 1><<<1, 32>>>(out, 7, n);
}

__global__ void late(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] -= 1.0f;
}
