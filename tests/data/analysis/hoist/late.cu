// A system header included after a template that names one of its
// functions: the PCH of the headers hoisted past code is not taken
// (a declaration of it is visible to the template only through the
// PCH), so the kernel's closure, and its key, are those of the plain
// parse.
#include "late.h"

__global__ void sum2_k(__half2 *o, const __half2 *a, const __half2 *b)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	o[i] = sum2(a[i], b[i]);
}
