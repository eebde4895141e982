// packed: small cudaMallocs that the driver lays out 0x200 apart, reached
// through begin/end pointer pairs (an end pointer of one allocation is the
// start of the next) and through 64-bit index arrays.
#include "common.h"

// Sums [a, a_end) and [b, b_end) into out[0], out[1]: loops bounded by
// pointer differences, as iterator-style code has them.
__global__ void
range_sums(const float *a, const float *a_end, const float *b, const float *b_end,
	   float *out)
{
	float s = 0, t = 0;

	for (const float *p = a + threadIdx.x; p < a_end; p += blockDim.x)
		s += *p;
	for (const float *p = b + threadIdx.x; p < b_end; p += blockDim.x)
		t += *p;
	atomicAdd(&out[0], s);
	atomicAdd(&out[1], t);
}

// The same over allocations of 100 floats: the end pointers lie in the
// padding after each allocation, where the driver knows no allocation.
__global__ void
range_sums_odd(const float *a, const float *a_end, const float *b,
	       const float *b_end, float *out)
{
	float s = 0, t = 0;

	for (const float *p = a + threadIdx.x; p < a_end; p += blockDim.x)
		s += *p;
	for (const float *p = b + threadIdx.x; p < b_end; p += blockDim.x)
		t += *p;
	atomicAdd(&out[0], s);
	atomicAdd(&out[1], t);
}

// dst[i] = src[idx[i]] with 64-bit indices.
__global__ void
gather64(const float *src, const long long *idx, float *dst, long long n)
{
	long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;

	if (i < n)
		dst[i] = src[idx[i]];
}

int
main()
{
	const int n = 128;	// 512 bytes: one 0x200 slot each
	float *a, *b, *out, *src, *dst;
	long long *idx;
	float h[n], hs[2];
	long long hi[n];

	CK(cudaMalloc(&a, n * sizeof(float)));
	CK(cudaMalloc(&b, n * sizeof(float)));
	CK(cudaMalloc(&out, 2 * sizeof(float)));
	CK(cudaMalloc(&src, n * sizeof(float)));
	CK(cudaMalloc(&idx, n * sizeof(long long)));
	CK(cudaMalloc(&dst, n * sizeof(float)));
	std::printf("layout a=%p b=%p out=%p src=%p idx=%p dst=%p\n", (void *)a,
		    (void *)b, (void *)out, (void *)src, (void *)idx, (void *)dst);
	for (int i = 0; i < n; i++) {
		h[i] = (float)(i % 7);
		hi[i] = (i * 37) % n;
	}
	CK(cudaMemcpy(a, h, sizeof(h), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(b, h, sizeof(h), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(src, h, sizeof(h), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(idx, hi, sizeof(hi), cudaMemcpyHostToDevice));
	CK(cudaMemset(out, 0, 2 * sizeof(float)));
	range_sums<<<1, 64>>>(a, a + n, b, b + n, out);
	{
		const int m = 100;
		float *c, *d, *o;

		CK(cudaMalloc(&c, m * sizeof(float)));
		CK(cudaMalloc(&d, m * sizeof(float)));
		CK(cudaMalloc(&o, 2 * sizeof(float)));
		CK(cudaMemcpy(c, h, m * sizeof(float), cudaMemcpyHostToDevice));
		CK(cudaMemcpy(d, h, m * sizeof(float), cudaMemcpyHostToDevice));
		CK(cudaMemset(o, 0, 2 * sizeof(float)));
		range_sums_odd<<<1, 64>>>(c, c + m, d, d + m, o);
	}
	gather64<<<1, n>>>(src, idx, dst, n);
	CK(cudaDeviceSynchronize());
	CK(cudaMemcpy(hs, out, sizeof(hs), cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(h, dst, sizeof(h), cudaMemcpyDeviceToHost));
	float want = 0;
	for (int i = 0; i < n; i++)
		want += (float)(i % 7);
	bool ok = hs[0] == want && hs[1] == want;
	for (int i = 0; i < n; i++)
		ok = ok && h[i] == (float)(hi[i] % 7);
	std::printf("%s\n", ok ? "PASS" : "FAIL");
	return ok ? 0 : 1;
}
