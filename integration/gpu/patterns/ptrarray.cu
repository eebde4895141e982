// ptrarray: device pointers stored inside buffers: an array of row
// pointers to allocations that no parameter names, and an array of
// structs holding a pointer and a length.
#include "common.h"

struct seg {
	const float *data;
	int n;
};

__global__ void
row_sums(const float *const *rows, float *out, int len)
{
	const float *r = rows[blockIdx.x];
	float s = 0;

	for (int i = threadIdx.x; i < len; i += blockDim.x)
		s += r[i];
	atomicAdd(&out[blockIdx.x], s);
}

__global__ void
seg_max(const seg *segs, float *out)
{
	seg s = segs[blockIdx.x];
	float m = -1e30f;

	for (int i = 0; i < s.n; i++)
		m = fmaxf(m, s.data[i]);
	if (threadIdx.x == 0)
		out[blockIdx.x] = m;
}

int
main()
{
	const int nrows = 8, len = 1 << 16;
	float *rows[nrows], **drows, *out, *out2, h[len], ho[nrows];
	seg hs[nrows], *dsegs;

	for (int r = 0; r < nrows; r++) {
		CK(cudaMalloc(&rows[r], len * sizeof(float)));
		for (int i = 0; i < len; i++)
			h[i] = (float)((i + r) % 5);
		CK(cudaMemcpy(rows[r], h, sizeof(h), cudaMemcpyHostToDevice));
		hs[r].data = rows[r];
		hs[r].n = len - r;
	}
	CK(cudaMalloc(&drows, sizeof(rows)));
	CK(cudaMalloc(&dsegs, sizeof(hs)));
	CK(cudaMalloc(&out, nrows * sizeof(float)));
	CK(cudaMalloc(&out2, nrows * sizeof(float)));
	CK(cudaMemcpy(drows, rows, sizeof(rows), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(dsegs, hs, sizeof(hs), cudaMemcpyHostToDevice));
	CK(cudaMemset(out, 0, nrows * sizeof(float)));
	row_sums<<<nrows, 256>>>(drows, out, len);
	seg_max<<<nrows, 32>>>(dsegs, out2);
	CK(cudaDeviceSynchronize());
	CK(cudaMemcpy(ho, out2, sizeof(ho), cudaMemcpyDeviceToHost));
	bool ok = true;
	for (int r = 0; r < nrows; r++)
		ok = ok && ho[r] == 4.0f;
	std::printf("%s\n", ok ? "PASS" : "FAIL");
	return ok ? 0 : 1;
}
