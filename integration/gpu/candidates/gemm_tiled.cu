// Faster: 16x16 tiles of A and B staged in shared memory, for the captured
// 16x16 blocks; each output is still summed over k in order, as the
// original does.
__global__ void
gemm_naive(const float *A, const float *B, float *C, int M, int N, int K)
{
	__shared__ float As[16][16], Bs[16][16];
	int tx = threadIdx.x, ty = threadIdx.y;
	int row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
	float sum = 0.0f;

	for (int k0 = 0; k0 < K; k0 += 16) {
		As[ty][tx] = row < M && k0 + tx < K ? A[(size_t)row * K + k0 + tx] : 0.0f;
		Bs[ty][tx] = k0 + ty < K && col < N ? B[(size_t)(k0 + ty) * N + col] : 0.0f;
		__syncthreads();
		for (int k = 0; k < 16; k++)
			sum += As[ty][k] * Bs[k][tx];
		__syncthreads();
	}
	if (row < M && col < N)
		C[(size_t)row * N + col] = sum;
}
