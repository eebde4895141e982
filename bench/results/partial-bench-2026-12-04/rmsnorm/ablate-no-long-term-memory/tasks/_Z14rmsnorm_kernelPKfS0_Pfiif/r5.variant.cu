// rmsnorm_kernel: restrict_readonly, 3 pointers made __restrict__, 4 read-only loads (builtin transform, arch 900)
// ks-nvcc: helpers
/* The original, for launches whose pointers share memory. */
__global__ void
ks_ro_rmsnorm_kernel(const float *x, const float *w, float *y, int rows, int cols, float eps)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= rows)
		return;
	const float *xr = x + (size_t)row * cols;
	float *yr = y + (size_t)row * cols;
	float ss = 0.0f;
	for (int j = 0; j < cols; j++)
		ss += xr[j] * xr[j];
	float rinv = 1.0f / sqrtf(ss / cols + eps);
	for (int j = 0; j < cols; j++)
		yr[j] = xr[j] * rinv * w[j];
}

typedef int (*ks_ro_range_fn)(unsigned long long *, size_t *,
			       unsigned long long);

// ks-nvcc: definition
__global__ void
rmsnorm_kernel(const float *__restrict__ x, const float *__restrict__ w, float *__restrict__ y, int rows, int cols, float eps)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= rows)
		return;
	const float *xr = x + (size_t)row * cols;
	float *yr = y + (size_t)row * cols;
	float ss = 0.0f;
	for (int j = 0; j < cols; j++)
		ss += __ldg(&(xr[j])) * __ldg(&(xr[j]));
	float rinv = 1.0f / sqrtf(ss / cols + eps);
	for (int j = 0; j < cols; j++)
		yr[j] = __ldg(&(xr[j])) * rinv * __ldg(&(w[j]));
}
// ks-nvcc: launcher
static void
ks_launch_rmsnorm_kernel(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
	const float *x, const float *w, float *y, int rows, int cols, float eps)
{
	static ks_ro_range_fn ks_range;
	static int ks_looked;
	const void *const ks_p[3] = { (const void *)x, (const void *)w, (const void *)y };
	const int ks_w[3] = { 0, 0, 1 };
	unsigned long long ks_base[3];
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
	for (int ks_i = 0; ks_i < 3 && ks_ok; ks_i++) {
		size_t ks_size = 0;

		ks_ok = ks_range && ks_range(&ks_base[ks_i], &ks_size,
					       (unsigned long long)ks_p[ks_i]) == 0;
	}
	for (int ks_i = 0; ks_i < 3 && ks_ok; ks_i++)
		for (int ks_j = ks_i + 1; ks_j < 3 && ks_ok; ks_j++)
			if ((ks_w[ks_i] || ks_w[ks_j]) && ks_base[ks_i] == ks_base[ks_j])
				ks_ok = 0;
	(void)ks_w;
	if (ks_ok)
		rmsnorm_kernel<<<grid, block, shmem, stream>>>(x, w, y, rows, cols, eps);
	else
		ks_ro_rmsnorm_kernel<<<grid, block, shmem, stream>>>(x, w, y, rows, cols, eps);
}
