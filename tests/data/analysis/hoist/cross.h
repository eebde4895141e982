// A user header that declares a template with an unqualified operator
// before it includes cuda_fp16.h, whose global operators join the
// operator's candidates when the PCH holds cuda_fp16.h ahead of it.
#ifndef HOIST_CROSS_H
#define HOIST_CROSS_H
template <typename T>
__device__ bool differ(T a, T b)
{
	return a != b;
}
#include <cuda_fp16.h>
#endif
