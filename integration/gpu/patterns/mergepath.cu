// mergepath: a merge of two sorted arrays by merge path: each thread finds
// its diagonal's split by a data-dependent binary search, then merges a
// run whose length depends on the data.
#include "common.h"

__global__ void
merge_path(const int *a, int na, const int *b, int nb, int *out, int per)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	int diag = t * per;

	if (diag >= na + nb)
		return;
	int lo = max(0, diag - nb), hi = min(diag, na);
	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (a[mid] <= b[diag - mid - 1])
			lo = mid + 1;
		else
			hi = mid;
	}
	int i = lo, j = diag - lo;
	for (int k = diag; k < min(diag + per, na + nb); k++) {
		if (j >= nb || (i < na && a[i] <= b[j]))
			out[k] = a[i++];
		else
			out[k] = b[j++];
	}
}

int
main()
{
	const int na = 1 << 20, nb = 3 << 19, per = 16;
	int *a, *b, *out;
	int *ha = new int[na], *hb = new int[nb], *ho = new int[na + nb];

	for (int i = 0; i < na; i++)
		ha[i] = 3 * i;
	for (int i = 0; i < nb; i++)
		hb[i] = 2 * i + 1;
	CK(cudaMalloc(&a, na * sizeof(int)));
	CK(cudaMalloc(&b, nb * sizeof(int)));
	CK(cudaMalloc(&out, (na + nb) * sizeof(int)));
	CK(cudaMemcpy(a, ha, na * sizeof(int), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(b, hb, nb * sizeof(int), cudaMemcpyHostToDevice));
	int threads = (na + nb + per - 1) / per;
	merge_path<<<(threads + 255) / 256, 256>>>(a, na, b, nb, out, per);
	CK(cudaDeviceSynchronize());
	CK(cudaMemcpy(ho, out, (na + nb) * sizeof(int), cudaMemcpyDeviceToHost));
	bool ok = true;
	for (int k = 1; k < na + nb; k++)
		ok = ok && ho[k - 1] <= ho[k];
	std::printf("%s\n", ok ? "PASS" : "FAIL");
	return ok ? 0 : 1;
}
