// review_cases: kernels whose replay ks must bound or explain, one each.
//   spin        loops as many times as device memory says (a capture
//               whose count is raised must be stopped at its time bound)
//   stamp       writes the GPU's clock (two runs never agree)
//   read_ticks  reads a __device__ counter earlier launches raised (a
//               capture taken without globals cannot restore it)
//   gather      reads through an array of device pointers (the capture
//               follows them to their allocation; replay lays it out again)
//   take        reads through 32-bit indices (poisoned by the search for
//               output-only buffers, they send it 16 GB astray: replay
//               must still reproduce it)
// Prints PASS when every result is right.
#include <cstdio>
#include <cuda_runtime.h>

#define CK(call)                                                            \
	do {                                                                \
		cudaError_t e_ = (call);                                    \
		if (e_ != cudaSuccess) {                                    \
			std::printf("FAIL %s: %s\n", #call, cudaGetErrorString(e_)); \
			return 1;                                           \
		}                                                           \
	} while (0)

__device__ int ticks;

__global__ void
spin(const long long *iters, float *out)
{
	float acc = (float)threadIdx.x;
	long long n = *iters;

	for (long long i = 0; i < n; i++)
		acc = acc * 0.999999f + 1.0f;
	out[threadIdx.x] = acc;
}

__global__ void
stamp(unsigned long long *out)
{
	unsigned long long t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	out[threadIdx.x] = t + threadIdx.x;
}

__global__ void
bump()
{
	atomicAdd(&ticks, 1);
}

__global__ void
read_ticks(int *out)
{
	out[threadIdx.x] = ticks + (int)threadIdx.x;
}

__global__ void
gather(float *const *ptrs, float *out, int n)
{
	int i = threadIdx.x;

	if (i < n)
		out[i] = ptrs[i][0] * 2.0f;
}

__global__ void
take(const unsigned *idx, const float *src, float *dst, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		dst[i] = src[idx[i]];
}

int
main()
{
	const int n = 32, big = 16 << 20;
	const long long iters = 1000;
	long long *d_iters;
	float *out, *targets[n], **ptrs, h[n];
	unsigned long long *stamps, hs[n];
	int *d_ticks, ht[n], bad = 0;

	/* The targets first and large: on replay their addresses are not
	 * allocations of that process. */
	for (int i = 0; i < n; i++) {
		float v = (float)i;

		CK(cudaMalloc(&targets[i], big));
		CK(cudaMemcpy(targets[i], &v, sizeof(v), cudaMemcpyHostToDevice));
	}
	CK(cudaMalloc(&ptrs, sizeof(targets)));
	CK(cudaMalloc(&out, n * sizeof(float)));
	CK(cudaMalloc(&d_iters, sizeof(iters)));
	CK(cudaMalloc(&stamps, n * sizeof(*stamps)));
	CK(cudaMalloc(&d_ticks, n * sizeof(int)));
	CK(cudaMemcpy(ptrs, targets, sizeof(targets), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(d_iters, &iters, sizeof(iters), cudaMemcpyHostToDevice));

	spin<<<1, n>>>(d_iters, out);
	CK(cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost));
	for (int i = 0; i < n; i++) {
		float acc = (float)i;

		for (long long k = 0; k < iters; k++)
			acc = acc * 0.999999f + 1.0f;
		bad += h[i] != acc && (h[i] - acc > 1e-2f || acc - h[i] > 1e-2f);
	}
	stamp<<<1, n>>>(stamps);
	CK(cudaMemcpy(hs, stamps, sizeof(hs), cudaMemcpyDeviceToHost));
	bad += hs[1] != hs[0] + 1;
	for (int i = 0; i < 5; i++)
		bump<<<1, 1>>>();
	read_ticks<<<1, n>>>(d_ticks);
	CK(cudaMemcpy(ht, d_ticks, sizeof(ht), cudaMemcpyDeviceToHost));
	for (int i = 0; i < n; i++)
		bad += ht[i] != 5 + i;
	gather<<<1, n>>>(ptrs, out, n);
	CK(cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost));
	for (int i = 0; i < n; i++)
		bad += h[i] != 2.0f * i;
	{
		const int m = 1 << 12;
		unsigned hi[m], *d_idx;
		float hsrc[m], hdst[m], *d_src, *d_dst;

		for (int i = 0; i < m; i++) {
			hi[i] = (unsigned)((i * 37) % m);
			hsrc[i] = (float)i;
		}
		CK(cudaMalloc(&d_idx, sizeof(hi)));
		CK(cudaMalloc(&d_src, sizeof(hsrc)));
		CK(cudaMalloc(&d_dst, sizeof(hdst)));
		CK(cudaMemcpy(d_idx, hi, sizeof(hi), cudaMemcpyHostToDevice));
		CK(cudaMemcpy(d_src, hsrc, sizeof(hsrc), cudaMemcpyHostToDevice));
		take<<<m / 128, 128>>>(d_idx, d_src, d_dst, m);
		CK(cudaMemcpy(hdst, d_dst, sizeof(hdst), cudaMemcpyDeviceToHost));
		for (int i = 0; i < m; i++)
			bad += hdst[i] != hsrc[hi[i]];
	}
	CK(cudaGetLastError());
	std::printf(bad ? "FAIL %d results\n" : "PASS\n", bad);
	return bad != 0;
}
