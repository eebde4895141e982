// thrust reached through the TU's own header: held by the PCH (hoisted),
// so the parse does not pay for thrust's bodies.
#include "common.h"

__global__ void fill_k(int *o, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		o[i] = n - i;
}

void sort(thrust::device_vector<int> &v)
{
	fill_k<<<1, 256>>>(thrust::raw_pointer_cast(v.data()), (int)v.size());
	thrust::sort(v.begin(), v.end());
}
