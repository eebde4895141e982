// avgpool_kernel: its flat index's derived coordinates from a 3D grid of 16x4 blocks, no division (derived_grid)
// ks-nvcc: helpers
/* The body of avgpool_kernel at thread ks_tid of block ks_bid, its divisions read from the digits. */
__device__ __forceinline__ static void
ks_dg_body_avgpool_kernel(const uint3 ks_tid, const uint3 ks_bid, const dim3 ks_bdim, const dim3 ks_gdim, const unsigned long long ks_d0, const unsigned long long ks_q0, const unsigned long long ks_d1, const unsigned long long ks_q1, const float *x, float *y, int n, int c, int h, int w, int ho, int wo, int k, int s, int p)
{
	size_t i = (size_t)ks_bid.x * ks_bdim.x + ks_tid.x;
	if (i >= (size_t)n * c * ho * wo)
		return;
	int ow = (int)(((decltype(i % wo))((void)(i % wo), ks_d0)));
	size_t t = ((decltype(i / wo))((void)(i / wo), ks_q0));
	int oh = (int)(((decltype(t % ho))((void)(t % ho), ks_d1)));
	size_t nc = ((decltype(t / ho))((void)(t / ho), ks_q1));
	const float *xp = x + nc * h * w;
	float sum = 0.0f;
	int cnt = 0;
	for (int kh = 0; kh < k; kh++) {
		int ih = oh * s - p + kh;
		if (ih < 0 || ih >= h)
			continue;
		for (int kw = 0; kw < k; kw++) {
			int iw = ow * s - p + kw;
			if (iw < 0 || iw >= w)
				continue;
			sum += xp[(size_t)ih * w + iw];
			cnt++;
		}
	}
	y[i] = sum / cnt;
}

/* D0 from x, D1 from y, the top from z; the original grid is ks_og blocks of ks_ob. */
__global__ void __launch_bounds__(64)
ks_dg_avgpool_kernel(const dim3 ks_og, const dim3 ks_ob, const unsigned long long ks_top, const unsigned ks_mg, const unsigned ks_s1,
	const unsigned ks_s2, const float *x, float *y, int n, int c, int h, int w, int ho, int wo, int k, int s, int p)
{
	const unsigned long long ks_n = (unsigned long long)ks_og.x * ks_ob.x;
	const unsigned long long ks_r0 = (unsigned long long)((1LL * (long long)(wo)));
	const unsigned long long ks_d0 = (unsigned long long)blockIdx.x * 16u + threadIdx.x;
	const unsigned long long ks_r1 = (unsigned long long)((1LL * (long long)(ho)));
	const unsigned long long ks_d1 = (unsigned long long)blockIdx.y * 4u + threadIdx.y;

	if (ks_d0 >= ks_r0 || ks_d1 >= ks_r1)
		return;
	for (unsigned long long ks_q1 = blockIdx.z; ks_q1 < ks_top; ks_q1 += gridDim.z) {
		const unsigned long long ks_q0 = ks_d1 + ks_r1 * ks_q1;
		const unsigned long long ks_g = ks_d0 + ks_r0 * ks_q0;
		/* ks_g / ks_ob.x by its multiplier (Granlund-Montgomery) */
		const unsigned ks_h = __umulhi((unsigned)ks_g, ks_mg);
		const unsigned ks_b = (ks_h + (((unsigned)ks_g - ks_h) >> ks_s1)) >> ks_s2;

		if (ks_g >= ks_n)
			return;
		ks_dg_body_avgpool_kernel(make_uint3((unsigned)ks_g - ks_b * ks_ob.x, 0, 0),
			make_uint3(ks_b, 0, 0), ks_ob, ks_og, ks_d0, ks_q0, ks_d1, ks_q1, x, y, n, c, h, w, ho, wo, k, s, p);
	}
}
// ks-nvcc: definition
__global__ void
avgpool_kernel(const float *x, float *y, int n, int c, int h, int w, int ho, int wo,
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
	float sum = 0.0f;
	int cnt = 0;
	for (int kh = 0; kh < k; kh++) {
		int ih = oh * s - p + kh;
		if (ih < 0 || ih >= h)
			continue;
		for (int kw = 0; kw < k; kw++) {
			int iw = ow * s - p + kw;
			if (iw < 0 || iw >= w)
				continue;
			sum += xp[(size_t)ih * w + iw];
			cnt++;
		}
	}
	y[i] = sum / cnt;
}
// ks-nvcc: launcher
static void
ks_launch_avgpool_kernel(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
		const float *x, float *y, int n, int c, int h, int w, int ho, int wo, int k, int s, int p)
{
	const dim3 ks_ob = block, ks_og = grid;
	const unsigned long long ks_n = (unsigned long long)grid.x * block.x;
	const long long ks_r0 = ((1LL * (long long)(wo)));
	const long long ks_r1 = ((1LL * (long long)(ho)));
	unsigned long long ks_top;
	unsigned ks_l = 0, ks_mg, ks_s1, ks_s2;

	(void)ks_ob;
	(void)ks_og;
	/* what the decomposition assumes, else the original */
	if (grid.y != 1 || grid.z != 1 || block.y != 1 || block.z != 1 ||
	    ks_n == 0 || ks_n > 0x7fffffffull || ks_r0 <= 0 || ks_r0 > 0x7fffffffLL ||
	    ks_r1 <= 0 || ks_r1 > 65535LL * 4) {
		avgpool_kernel<<<grid, block, shmem, stream>>>(x, y, n, c, h, w, ho, wo, k, s, p);
		return;
	}
	ks_top = (ks_n + (unsigned long long)(ks_r0 * ks_r1) - 1) /
		(unsigned long long)(ks_r0 * ks_r1);
	/* the multiplier that divides 32-bit values by block.x */
	while ((1ull << ks_l) < block.x)
		ks_l++;
	ks_mg = (unsigned)(((1ull << 32) * ((1ull << ks_l) - block.x)) / block.x + 1);
	ks_s1 = ks_l < 1 ? ks_l : 1;
	ks_s2 = ks_l > 1 ? ks_l - 1 : 0;
	ks_dg_avgpool_kernel<<<dim3((unsigned)((ks_r0 + 15) / 16),
			   (unsigned)((ks_r1 + 3) / 4),
			   (unsigned)(ks_top < 65535 ? ks_top : 65535)),
		   dim3(16, 4), shmem, stream>>>(grid, block, ks_top, ks_mg, ks_s1, ks_s2, x, y, n, c, h, w, ho, wo, k, s, p);
}
