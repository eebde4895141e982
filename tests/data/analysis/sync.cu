// A kernel that calls __syncthreads, and a template kernel that leaves
// `fma` unresolved, parsed with and without the PCH (which holds the
// toolkit's declarations): the same closures.
#include <cstdio>

template <typename T>
__global__ void fma_k(T *o, T a)
{
	o[threadIdx.x] = fma(a, a, o[threadIdx.x]);
}

__global__ void rev_k(int *d, int n)
{
	__shared__ int s[256];
	int t = threadIdx.x;

	s[t] = d[t];
	__syncthreads();
	d[t] = s[n - t - 1];
}

int main(void)
{
	int *d = 0;

	rev_k<<<1, 256>>>(d, 256);
	fma_k<float><<<1, 32>>>((float *)d, 2.0f);
	printf("done\n");
	return 0;
}
