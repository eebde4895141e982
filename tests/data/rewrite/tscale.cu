// A template kernel launched from a template host function for float and
// double and by an explicit instance, for the instance rewriting tests.
#include <cstdio>

template <class T> __global__ void scale(T *p, T s, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		p[i] *= s;
}

template <class T> void run(T *p, int n)
{
	scale<<<(n + 255) / 256, 256>>>(p, (T)2, n);
}

int main(void)
{
	float *f = 0;
	double *d = 0;

	run(f, 1024);
	run(d, 1024);
	scale<float><<<4, 256>>>(f, 3.0f, 1021);
	printf("%d\n", (int)cudaDeviceSynchronize());
	return 0;
}
