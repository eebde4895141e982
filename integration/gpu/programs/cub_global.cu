// cub_global: a translation unit that includes CUB (so CCCL puts its
// internal-linkage objects in it) and whose kernel reads a __device__
// array and an internal-linkage __device__ global the host sets. Replay
// builds this TU again inside an entry shim, a different main file, where
// every internal-linkage name differs: the globals the kernel reaches must
// be found by their path-independent names and restored, CCCL's must be
// left alone. Prints PASS when the sums are right.
#include <cstdio>
#include <cub/cub.cuh>

#define CK(call)                                                            \
	do {                                                                \
		cudaError_t e_ = (call);                                    \
		if (e_ != cudaSuccess) {                                    \
			std::printf("FAIL %s: %s\n", #call, cudaGetErrorString(e_)); \
			return 1;                                           \
		}                                                           \
	} while (0)

#define THREADS 128

__device__ float bias[4];
namespace {
__device__ int scale_by;
}

__global__ void
block_sums(const float *x, float *out, int n)
{
	typedef cub::BlockReduce<float, THREADS> Reduce;
	__shared__ typename Reduce::TempStorage tmp;
	int i = blockIdx.x * THREADS + threadIdx.x;
	float v = i < n ? x[i] * (float)scale_by + bias[blockIdx.x & 3] : 0.0f;
	float s = Reduce(tmp).Sum(v);

	if (threadIdx.x == 0)
		out[blockIdx.x] = s;
}

int
main()
{
	const int n = 1 << 16, blocks = n / THREADS, three = 3;
	const float b[4] = { 0.5f, 1.0f, 1.5f, 2.0f };
	float *x, *out, *h = new float[n], *got = new float[blocks];
	int bad = 0;

	for (int i = 0; i < n; i++)
		h[i] = (float)(i % 7);
	CK(cudaMalloc(&x, n * sizeof(float)));
	CK(cudaMalloc(&out, blocks * sizeof(float)));
	CK(cudaMemcpy(x, h, n * sizeof(float), cudaMemcpyHostToDevice));
	CK(cudaMemcpyToSymbol(bias, b, sizeof(b)));
	CK(cudaMemcpyToSymbol(scale_by, &three, sizeof(three)));
	block_sums<<<blocks, THREADS>>>(x, out, n);
	CK(cudaGetLastError());
	CK(cudaMemcpy(got, out, blocks * sizeof(float), cudaMemcpyDeviceToHost));
	for (int k = 0; k < blocks; k++) {
		double want = 0;

		for (int t = 0; t < THREADS; t++)
			want += h[k * THREADS + t] * 3.0 + b[k & 3];
		bad += got[k] != (float)want;
	}
	std::printf(bad ? "FAIL %d sums\n" : "PASS\n", bad);
	return bad != 0;
}
