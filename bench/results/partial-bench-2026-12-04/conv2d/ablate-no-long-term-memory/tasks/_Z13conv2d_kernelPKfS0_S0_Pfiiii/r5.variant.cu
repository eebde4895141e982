// conv2d_kernel: restrict_readonly, 4 pointers made __restrict__, 3 read-only loads (builtin transform, arch 900)
// ks-nvcc: helpers
/* The original, for launches whose pointers share memory. */
__global__ void
ks_ro_conv2d_kernel(const float *x, const float *w, const float *b, float *y,
	      int C, int H, int W, int K)
{
	int ox = blockIdx.x * blockDim.x + threadIdx.x;
	int oy = blockIdx.y * blockDim.y + threadIdx.y;
	int n = blockIdx.z / K;
	int k = blockIdx.z % K;
	if (ox >= W || oy >= H)
		return;
	float acc = b[k];
	for (int c = 0; c < C; c++)
		for (int r = 0; r < 3; r++) {
			int iy = oy + r - 1;
			if (iy < 0 || iy >= H)
				continue;
			for (int q = 0; q < 3; q++) {
				int ix = ox + q - 1;
				if (ix < 0 || ix >= W)
					continue;
				acc += x[(((size_t)n * C + c) * H + iy) * W + ix] *
				       w[((k * C + c) * 3 + r) * 3 + q];
			}
		}
	y[(((size_t)n * K + k) * H + oy) * W + ox] = acc;
}

typedef int (*ks_ro_range_fn)(unsigned long long *, size_t *,
			       unsigned long long);

// ks-nvcc: definition
__global__ void
conv2d_kernel(const float *__restrict__ x, const float *__restrict__ w, const float *__restrict__ b, float *__restrict__ y,
	      int C, int H, int W, int K)
{
	int ox = blockIdx.x * blockDim.x + threadIdx.x;
	int oy = blockIdx.y * blockDim.y + threadIdx.y;
	int n = blockIdx.z / K;
	int k = blockIdx.z % K;
	if (ox >= W || oy >= H)
		return;
	float acc = __ldg(&(b[k]));
	for (int c = 0; c < C; c++)
		for (int r = 0; r < 3; r++) {
			int iy = oy + r - 1;
			if (iy < 0 || iy >= H)
				continue;
			for (int q = 0; q < 3; q++) {
				int ix = ox + q - 1;
				if (ix < 0 || ix >= W)
					continue;
				acc += __ldg(&(x[(((size_t)n * C + c) * H + iy) * W + ix])) *
				       __ldg(&(w[((k * C + c) * 3 + r) * 3 + q]));
			}
		}
	y[(((size_t)n * K + k) * H + oy) * W + ox] = acc;
}
// ks-nvcc: launcher
static void
ks_launch_conv2d_kernel(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
	const float *x, const float *w, const float *b, float *y,
	      int C, int H, int W, int K)
{
	static ks_ro_range_fn ks_range;
	static int ks_looked;
	const void *const ks_p[4] = { (const void *)x, (const void *)w, (const void *)b, (const void *)y };
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
		conv2d_kernel<<<grid, block, shmem, stream>>>(x, w, b, y, C, H, W, K);
	else
		ks_ro_conv2d_kernel<<<grid, block, shmem, stream>>>(x, w, b, y, C, H, W, K);
}
