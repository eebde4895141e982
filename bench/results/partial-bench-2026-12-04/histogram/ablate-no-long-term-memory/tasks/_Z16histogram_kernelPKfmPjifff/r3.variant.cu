// histogram_kernel: restrict_readonly, 2 pointers made __restrict__, 1 read-only load (builtin transform, arch 900)
// ks-nvcc: helpers
/* The original, for launches whose pointers share memory. */
__global__ void
ks_ro_histogram_kernel(const float *x, size_t n, unsigned *hist, int nbins, float lo, float hi,
		 float scale)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v = x[i];
	if (v >= lo && v < hi) {
		int b = (int)((v - lo) * scale);
		if (b > nbins - 1)
			b = nbins - 1;
		atomicAdd(&hist[b], 1u);
	}
}

typedef int (*ks_ro_range_fn)(unsigned long long *, size_t *,
			       unsigned long long);

// ks-nvcc: definition
__global__ void
histogram_kernel(const float *__restrict__ x, size_t n, unsigned *__restrict__ hist, int nbins, float lo, float hi,
		 float scale)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v = __ldg(&(x[i]));
	if (v >= lo && v < hi) {
		int b = (int)((v - lo) * scale);
		if (b > nbins - 1)
			b = nbins - 1;
		atomicAdd(&hist[b], 1u);
	}
}
// ks-nvcc: launcher
static void
ks_launch_histogram_kernel(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
	const float *x, size_t n, unsigned *hist, int nbins, float lo, float hi,
		 float scale)
{
	static ks_ro_range_fn ks_range;
	static int ks_looked;
	const void *const ks_p[2] = { (const void *)x, (const void *)hist };
	const int ks_w[2] = { 0, 1 };
	unsigned long long ks_base[2];
	int ks_ok = 1;

	if (!ks_looked) {
		void *ks_fn = NULL;
		cudaDriverEntryPointQueryResult ks_q;

		if (cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", &ks_fn,
						      12000, cudaEnableDefault, &ks_q) == cudaSuccess &&
		    ks_q == cudaDriverEntryPointSuccess)
			ks_range = (ks_ro_range_fn)ks_fn;
		ks_looked = 1;
	}
	for (int ks_i = 0; ks_i < 2 && ks_ok; ks_i++) {
		size_t ks_size = 0;

		ks_ok = ks_range && ks_range(&ks_base[ks_i], &ks_size,
					       (unsigned long long)ks_p[ks_i]) == 0;
	}
	for (int ks_i = 0; ks_i < 2 && ks_ok; ks_i++)
		for (int ks_j = ks_i + 1; ks_j < 2 && ks_ok; ks_j++)
			if ((ks_w[ks_i] || ks_w[ks_j]) && ks_base[ks_i] == ks_base[ks_j])
				ks_ok = 0;
	(void)ks_w;
	if (ks_ok)
		histogram_kernel<<<grid, block, shmem, stream>>>(x, n, hist, nbins, lo, hi, scale);
	else
		ks_ro_histogram_kernel<<<grid, block, shmem, stream>>>(x, n, hist, nbins, lo, hi, scale);
}
