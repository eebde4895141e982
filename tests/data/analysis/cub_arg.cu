/* A kernel with a cub type among its template arguments: its name holds
 * cub's inline namespace, which CCCL spells from __CUDA_ARCH_LIST__
 * (tests/suites/analyze.sh compares it with nvcc's PTX). */
#include <cub/block/block_scan.cuh>

template <int B, cub::BlockScanAlgorithm A>
__global__ void scan_k(int *p)
{
	using S = cub::BlockScan<int, B, A>;
	__shared__ typename S::TempStorage t;
	int v = p[threadIdx.x];

	S(t).ExclusiveSum(v, v);
	p[threadIdx.x] = v;
}

int main()
{
	int *p = 0;

	scan_k<64, cub::BLOCK_SCAN_RAKING><<<1, 64>>>(p);
	scan_k<128, cub::BLOCK_SCAN_WARP_SCANS><<<1, 128>>>(p);
	return 0;
}
