// A kernel that calls __syncthreads, parsed with and without the PCH
// (which holds the toolkit's declaration of it): the same closure.
#include <cstdio>

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
	printf("done\n");
	return 0;
}
