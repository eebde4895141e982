// layernorm_kernel: restrict_readonly, 4 pointers made __restrict__, 5 read-only loads (builtin transform, arch 900)
// ks-nvcc: helpers
/* The original, for launches whose pointers share memory. */
__global__ void
ks_ro_layernorm_kernel(const float *x, const float *gamma, const float *beta, float *y,
		 int rows, int cols, float eps)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= rows)
		return;
	const float *xr = x + (size_t)row * cols;
	float *yr = y + (size_t)row * cols;
	float mean = 0.0f;
	for (int j = 0; j < cols; j++)
		mean += xr[j];
	mean /= cols;
	float var = 0.0f;
	for (int j = 0; j < cols; j++) {
		float d = xr[j] - mean;
		var += d * d;
	}
	var /= cols;
	float rstd = 1.0f / sqrtf(var + eps);
	for (int j = 0; j < cols; j++)
		yr[j] = (xr[j] - mean) * rstd * gamma[j] + beta[j];
}

typedef int (*ks_ro_range_fn)(unsigned long long *, size_t *,
			       unsigned long long);

// ks-nvcc: definition
__global__ void
layernorm_kernel(const float *__restrict__ x, const float *__restrict__ gamma, const float *__restrict__ beta, float *__restrict__ y,
		 int rows, int cols, float eps)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= rows)
		return;
	const float *xr = x + (size_t)row * cols;
	float *yr = y + (size_t)row * cols;
	float mean = 0.0f;
	for (int j = 0; j < cols; j++)
		mean += __ldg(&(xr[j]));
	mean /= cols;
	float var = 0.0f;
	for (int j = 0; j < cols; j++) {
		float d = __ldg(&(xr[j])) - mean;
		var += d * d;
	}
	var /= cols;
	float rstd = 1.0f / sqrtf(var + eps);
	for (int j = 0; j < cols; j++)
		yr[j] = (__ldg(&(xr[j])) - mean) * rstd * __ldg(&(gamma[j])) + __ldg(&(beta[j]));
}
// ks-nvcc: launcher
static void
ks_launch_layernorm_kernel(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
	const float *x, const float *gamma, const float *beta, float *y,
		 int rows, int cols, float eps)
{
	static ks_ro_range_fn ks_range;
	static int ks_looked;
	const void *const ks_p[4] = { (const void *)x, (const void *)gamma, (const void *)beta, (const void *)y };
	const int ks_w[4] = { 0, 0, 0, 1 };
	unsigned long long ks_base[4];
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
	for (int ks_i = 0; ks_i < 4 && ks_ok; ks_i++) {
		size_t ks_size = 0;

		ks_ok = ks_range && ks_range(&ks_base[ks_i], &ks_size,
					       (unsigned long long)ks_p[ks_i]) == 0;
	}
	for (int ks_i = 0; ks_i < 4 && ks_ok; ks_i++)
		for (int ks_j = ks_i + 1; ks_j < 4 && ks_ok; ks_j++)
			if ((ks_w[ks_i] || ks_w[ks_j]) && ks_base[ks_i] == ks_base[ks_j])
				ks_ok = 0;
	(void)ks_w;
	if (ks_ok)
		layernorm_kernel<<<grid, block, shmem, stream>>>(x, gamma, beta, y, rows, cols, eps);
	else
		ks_ro_layernorm_kernel<<<grid, block, shmem, stream>>>(x, gamma, beta, y, rows, cols, eps);
}
