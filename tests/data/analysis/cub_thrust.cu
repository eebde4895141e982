/* A TU with cub, thrust, cooperative groups and cuda_fp16 for the timing
 * measurements of docs/ANALYSIS.md (libclang 19: CCCL 3 needs it). */
#include <cub/cub.cuh>
#include <thrust/device_vector.h>
#include <thrust/reduce.h>
#include <cooperative_groups.h>
#include <cuda_fp16.h>
namespace cg = cooperative_groups;
template <int BLOCK>
__global__ void block_sum(const float *in, float *out, int n)
{
	typedef cub::BlockReduce<float, BLOCK> BR;
	__shared__ typename BR::TempStorage tmp;
	int i = blockIdx.x * BLOCK + threadIdx.x;
	float v = i < n ? in[i] : 0.0f;
	float s = BR(tmp).Sum(v);
	if (threadIdx.x == 0)
		atomicAdd(out, s);
}
__global__ void halfk(__half *h, int n)
{
	cg::thread_block b = cg::this_thread_block();
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) h[i] = __hmul(h[i], __float2half(2.0f));
	b.sync();
}
float total(const thrust::device_vector<float> &v, float *out)
{
	block_sum<256><<<(v.size() + 255) / 256, 256>>>(thrust::raw_pointer_cast(v.data()), out, (int)v.size());
	return thrust::reduce(v.begin(), v.end());
}
