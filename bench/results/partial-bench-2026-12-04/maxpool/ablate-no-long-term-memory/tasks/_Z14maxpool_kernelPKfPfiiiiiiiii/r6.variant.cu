// maxpool_kernel: restrict_readonly, 2 pointers made __restrict__, 1 read-only load (builtin transform, arch 900)
// ks-nvcc: helpers
/* The original, for launches whose pointers share memory. */
__global__ void
ks_ro_maxpool_kernel(const float *x, float *y, int n, int c, int h, int w, int ho, int wo,
	       int k, int s, int p)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= (size_t)n * c * ho * wo)
		return;
	int ow = (int)(i % wo);
	size_t t = i / wo;
	int oh = (int)(t % ho);
	size_t nc = t / ho;
	const float *xp = x + nc * h * w;
	float m = -INFINITY;
	for (int kh = 0; kh < k; kh++) {
		int ih = oh * s - p + kh;
		if (ih < 0 || ih >= h)
			continue;
		for (int kw = 0; kw < k; kw++) {
			int iw = ow * s - p + kw;
			if (iw < 0 || iw >= w)
				continue;
			m = fmaxf(m, xp[(size_t)ih * w + iw]);
		}
	}
	y[i] = m;
}

typedef int (*ks_ro_range_fn)(unsigned long long *, size_t *,
			       unsigned long long);

// ks-nvcc: definition
__global__ void
maxpool_kernel(const float *__restrict__ x, float *__restrict__ y, int n, int c, int h, int w, int ho, int wo,
	       int k, int s, int p)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= (size_t)n * c * ho * wo)
		return;
	int ow = (int)(i % wo);
	size_t t = i / wo;
	int oh = (int)(t % ho);
	size_t nc = t / ho;
	const float *xp = x + nc * h * w;
	float m = -INFINITY;
	for (int kh = 0; kh < k; kh++) {
		int ih = oh * s - p + kh;
		if (ih < 0 || ih >= h)
			continue;
		for (int kw = 0; kw < k; kw++) {
			int iw = ow * s - p + kw;
			if (iw < 0 || iw >= w)
				continue;
			m = fmaxf(m, __ldg(&(xp[(size_t)ih * w + iw])));
		}
	}
	y[i] = m;
}
// ks-nvcc: launcher
static void
ks_launch_maxpool_kernel(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
	const float *x, float *y, int n, int c, int h, int w, int ho, int wo,
	       int k, int s, int p)
{
	static ks_ro_range_fn ks_range;
	static int ks_looked;
	const void *const ks_p[2] = { (const void *)x, (const void *)y };
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
		maxpool_kernel<<<grid, block, shmem, stream>>>(x, y, n, c, h, w, ho, wo, k, s, p);
	else
		ks_ro_maxpool_kernel<<<grid, block, shmem, stream>>>(x, y, n, c, h, w, ho, wo, k, s, p);
}
