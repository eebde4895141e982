// Template host functions (and kernels) whose instances are named only
// as function pointers in an array's initializer: nvcc emits every
// instance they reach.
#include <cstdio>

namespace tile {
template <int K>
__global__ void mv_k(const float *w, float *o, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		o[i] = w[i] * K;
}

template <int K>
void run_mv(const float *w, float *o, int n)
{
	mv_k<K><<<(n + 255) / 256, 256>>>(w, o, n);
}
}

template <typename T>
__global__ void scale_k(T *p, T s)
{
	p[threadIdx.x] *= s;
}

typedef void (*runner)(const float *, float *, int);

static runner pick(int i)
{
	runner fs[] = {
		tile::run_mv<32 * 1>,
		tile::run_mv<32 * 2>,
		&tile::run_mv<96>,
	};
	return fs[i];
}

int main(void)
{
	void (*ks[])(float *, float) = { scale_k<float>, scale_k<float> };
	float *d = 0;

	pick(1)(d, d, 256);
	ks[0]<<<1, 32>>>(d, 2.0f);
	return 0;
}
