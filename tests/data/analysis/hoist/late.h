// A user header whose template calls __hadd2 unqualified before it
// includes cuda_fp16.h, which declares it: the call is found at the
// instantiation (__half2 is of the global namespace), and a PCH that
// held cuda_fp16.h ahead of the template would give the call
// candidates the plain parse does not have.
#ifndef HOIST_LATE_H
#define HOIST_LATE_H
template <typename T>
__device__ T sum2(T a, T b)
{
	return __hadd2(a, b);
}
#include <cuda_fp16.h>
#endif
