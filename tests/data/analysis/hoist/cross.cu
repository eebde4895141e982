// A system header included after a template of a user header is hoisted
// into the PCH, ahead of the template: the global operators it declares
// join the candidates of the template's operator there, which the plain
// parse has not, and the closure leaves them out, so the kernel's
// closure, and its key, are those of the plain parse.
#include "cross.h"

template <typename T>
__global__ void count_k(int *n, const T *a, const T *b)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (differ(a[i], b[i]))
		atomicAdd(n, 1);
}

template __global__ void count_k<int>(int *, const int *, const int *);
