// thrust included after the declarations of a user header, and
// explicit instantiations of a host template that sorts with it and
// launches a kernel: the PCH holds thrust ahead of the declarations
// (none of them sees a declaration of thrust's), so neither parse of
// the TU pays for thrust's bodies; the instances are nvcc 13.0's PTX
// entries.
#include "table.h"
#include <thrust/sort.h>
#include <thrust/device_ptr.h>

template <uint32_t N>
__global__ void mark_k(key<N> *t, uint32_t *first, uint64_t n)
{
	uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;

	if (i + 1 < n)
		first[i + 1] = scaled<uint32_t, 1>(t[i] != t[i + 1]);
}

template <uint32_t N>
void sort_table(key<N> *t, uint32_t *first, uint64_t n)
{
	thrust::device_ptr<key<N>> p(t);

	thrust::sort(p, p + n);
	mark_k<N><<<(unsigned)((n + 255) / 256), 256>>>(t, first, n);
}

template void sort_table<1>(key<1> *, uint32_t *, uint64_t);
template void sort_table<2>(key<2> *, uint32_t *, uint64_t);
