// cross_entropy_kernel: restrict_readonly, 3 pointers made __restrict__, 4 read-only loads (builtin transform, arch 900)
// ks-nvcc: helpers
/* The original, for launches whose pointers share memory. */
__global__ void
ks_ro_cross_entropy_kernel(const float *x, const int *target, float *loss, int rows, int cols)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= rows)
		return;
	const float *xr = x + (size_t)row * cols;
	float m = xr[0];
	for (int c = 1; c < cols; c++)
		m = fmaxf(m, xr[c]);
	float s = 0.0f;
	for (int c = 0; c < cols; c++)
		s += expf(xr[c] - m);
	float l = logf(s) + m - xr[target[row]];
	atomicAdd(loss, l / rows);
}

typedef int (*ks_ro_range_fn)(unsigned long long *, size_t *,
			       unsigned long long);

// ks-nvcc: definition
__global__ void
cross_entropy_kernel(const float *__restrict__ x, const int *__restrict__ target, float *__restrict__ loss, int rows, int cols)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= rows)
		return;
	const float *xr = x + (size_t)row * cols;
	float m = __ldg(&(xr[0]));
	for (int c = 1; c < cols; c++)
		m = fmaxf(m, __ldg(&(xr[c])));
	float s = 0.0f;
	for (int c = 0; c < cols; c++)
		s += expf(__ldg(&(xr[c])) - m);
	float l = logf(s) + m - xr[__ldg(&(target[row]))];
	atomicAdd(loss, l / rows);
}
// ks-nvcc: launcher
static void
ks_launch_cross_entropy_kernel(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
	const float *x, const int *target, float *loss, int rows, int cols)
{
	static ks_ro_range_fn ks_range;
	static int ks_looked;
	const void *const ks_p[3] = { (const void *)x, (const void *)target, (const void *)loss };
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
		cross_entropy_kernel<<<grid, block, shmem, stream>>>(x, target, loss, rows, cols);
	else
		ks_ro_cross_entropy_kernel<<<grid, block, shmem, stream>>>(x, target, loss, rows, cols);
}
