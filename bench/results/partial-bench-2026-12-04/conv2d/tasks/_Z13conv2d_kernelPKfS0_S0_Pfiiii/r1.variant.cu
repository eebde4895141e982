// conv2d_kernel: an implicit GEMM of 128 pixels (32 wide) x 64 output channels per block of 256 threads, 8x4 outputs each, slices of 2 input channels' 9 taps double-buffered in shared memory (conv_tiling)
// ks-nvcc: helpers
#ifndef KS_CV_HELPERS
#define KS_CV_HELPERS
__host__ __device__ __forceinline__ static long long
ks_cv_min(long long a, long long b)
{
	return a < b ? a : b;
}
/* Iterations of for (k = init; k < bound; k += step). */
__host__ __device__ __forceinline__ static long long
ks_cv_trip(long long init, long long bound, long long step)
{
	return bound > init ? (bound - init + step - 1) / step : 0;
}
/* 4 bytes global -> shared, zeros where !on: asynchronous on sm_80
   and newer (cp.async with a source size of 0 fills zeros). */
__device__ __forceinline__ static void
ks_cv_cp4(float *dst, const float *src, bool on)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
	const unsigned d = (unsigned)__cvta_generic_to_shared(dst);

	asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::
		     "r"(d), "l"(src), "r"(on ? 4 : 0) : "memory");
#else
	*dst = on ? __ldg(src) : 0.0f;
#endif
}
/* Close the group of copies issued since the last commit. */
__device__ __forceinline__ static void
ks_cv_commit(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
	asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
/* Wait until at most ks_N committed groups are still in flight. */
template <int ks_N>
__device__ __forceinline__ static void
ks_cv_wait_n(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
	asm volatile("cp.async.wait_group %0;\n" :: "n"(ks_N) : "memory");
#endif
}
__device__ __forceinline__ static void
ks_cv_wait(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
	asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}
#endif

#pragma nv_diagnostic push
#pragma nv_diag_suppress 177
#pragma nv_diag_suppress 550
/* The body of conv2d_kernel at thread ks_tid of block ks_bid, its k-loop's sum given
   as ks_gemm_v. */
__device__ __forceinline__ static void
ks_conv_body_conv2d_kernel(const uint3 ks_tid, const uint3 ks_bid, const dim3 ks_bdim,
	const dim3 ks_gdim, const float *x, const float *w, const float *b, float *y, int C, int H, int W, int K, const float ks_gemm_v)
{
	int ox = ks_bid.x * ks_bdim.x + ks_tid.x;
	int oy = ks_bid.y * ks_bdim.y + ks_tid.y;
	int n = ks_bid.z / K;
	int k = ks_bid.z % K;
	if (ox >= W || oy >= H)
		return;
	float acc = b[k];
	acc += ks_gemm_v;
	y[(((size_t)n * K + k) * H + oy) * W + ox] = acc;
}
#pragma nv_diagnostic pop

/* Block (x, y, z): pixels gx in [x*32, +32), gy in [y*4, +4) of image
   z / ks_nkt, output channels [z % ks_nkt * 64, +64), of the original grid of
   ks_og blocks of ks_ob threads, blockIdx.z = image * ks_den + channel. */
__global__ void __launch_bounds__(256)
ks_conv_conv2d_kernel(const dim3 ks_og, const dim3 ks_ob, const long long ks_den,
	const long long ks_nkt, const float *x, const float *w, const float *b, float *y, int C, int H, int W, int K)
{
	enum { ks_BM = 128, ks_BN = 64, ks_TM = 8, ks_TN = 4, ks_PX = 32, ks_CB = 2, ks_ST = 2,
	       ks_BK = 18, ks_NT = 256, ks_NTX = ks_BN / ks_TN, ks_EG = 64,
	       ks_NA = (ks_BK * ks_BM + ks_NT - 1) / ks_NT,
	       ks_NB = (ks_BK * ks_BN + ks_NT - 1) / ks_NT,
	       ks_AS = ks_BK * (ks_BM + 4), ks_BS = ks_BK * (ks_BN + 4) };
	__shared__ __align__(16) float ks_sm[8256];
	float *const ks_As = ks_sm, *const ks_Bs = ks_sm + ks_ST * ks_AS;
	const int ks_t = (int)threadIdx.x;
	const int ks_tx = ks_t % ks_NTX, ks_ty = ks_t / ks_NTX;
	const long long ks_nx = (long long)ks_og.x * ks_ob.x;
	const long long ks_ny = (long long)ks_og.y * ks_ob.y;
	const long long ks_gx0 = (long long)blockIdx.x * ks_PX;
	const long long ks_gy0 = (long long)blockIdx.y * (ks_BM / ks_PX);
	const long long ks_img = blockIdx.z / ks_nkt;
	const long long ks_ch0 = blockIdx.z % ks_nkt * ks_BN;
	/* reads stay inside the kernel's own bounds checks */
	const long long ks_limx = ks_cv_min(ks_nx, ((long long)(((1LL * (long long)(W))))));
	const long long ks_limy = ks_cv_min(ks_ny, ((long long)(((1LL * (long long)(H))))));
	const long long ks_limz = (long long)ks_og.z;
	const long long ks_T = ks_cv_trip(((0LL)), ((1LL * (long long)(C))), 1LL);
	const long long ks_ns = (ks_T + ks_CB - 1) / ks_CB;
	const bool ks_img_ok = ks_img * ks_den < ks_limz;
	/* x (line 28): the element of tap (ks_ci, ...) of pixel (gx, gy);
	   slice s adds s * ks_CB to ks_ci. */
	long long ks_ao[ks_NA];
	unsigned long long ks_am = 0, ks_aml = 0;
	const long long ks_ad = (long long)ks_CB * (((1LL * (long long)(H) * (long long)(W))));
	#pragma unroll
	for (int ks_i = 0; ks_i < ks_NA; ks_i++) {
		const int ks_e = ks_t + ks_i * ks_NT;
		const int ks_m = ks_e % ks_BM, ks_k = ks_e / ks_BM;
		const long long ks_gx = ks_gx0 + ks_m % ks_PX;
		const long long ks_gy = ks_gy0 + ks_m / ks_PX;
		const int ks_ci = ks_k / 9;
		int ks_r = ks_k % 9;
		const int ks_l2 = ks_r % 3;
		ks_r /= 3;
		const int ks_l1 = ks_r % 3;
		ks_r /= 3;
		(void)ks_r;
		bool ks_ok = ks_e < ks_BK * ks_BM && ks_img_ok &&
			     ks_gx < ks_limx && ks_gy < ks_limy;
		/* line 22 */
		ks_ok = ks_ok && !(((((-1LL))) + (((1LL))) * (long long)(ks_gy) + (((1LL))) * (long long)(ks_l1)) < (long long)(((0LL))));
		/* line 22 */
		ks_ok = ks_ok && !(((((-1LL))) + (((1LL))) * (long long)(ks_gy) + (((1LL))) * (long long)(ks_l1)) >= (long long)(((1LL * (long long)(H)))));
		/* line 26 */
		ks_ok = ks_ok && !(((((-1LL))) + (((1LL))) * (long long)(ks_gx) + (((1LL))) * (long long)(ks_l2)) < (long long)(((0LL))));
		/* line 26 */
		ks_ok = ks_ok && !(((((-1LL))) + (((1LL))) * (long long)(ks_gx) + (((1LL))) * (long long)(ks_l2)) >= (long long)(((1LL * (long long)(W)))));
		ks_ao[ks_i] = ((((-1LL + -1LL * (long long)(W)))) + (((1LL))) * (long long)(ks_gx) + (((1LL * (long long)(W)))) * (long long)(ks_gy) + (((1LL * (long long)(C) * (long long)(H) * (long long)(W)))) * (long long)(ks_img) + (((1LL * (long long)(H) * (long long)(W)))) * (long long)(ks_ci) + (((1LL * (long long)(W)))) * (long long)(ks_l1) + (((1LL))) * (long long)(ks_l2));
		ks_am |= ks_ok ? 1ull << ks_i : 0ull;
		ks_aml |= ks_ok && (ks_ns - 1) * ks_CB + ks_ci < ks_T ? 1ull << ks_i : 0ull;
	}
	/* w (line 29): tap-major, consecutive threads on consecutive taps */
	long long ks_bo[ks_NB];
	unsigned long long ks_bmk = 0, ks_bml = 0;
	const long long ks_bd = (long long)ks_CB * (((9LL)));
	#pragma unroll
	for (int ks_i = 0; ks_i < ks_NB; ks_i++) {
		const int ks_e = ks_t + ks_i * ks_NT;
		const int ks_k = ks_e % ks_BK, ks_n = ks_e / ks_BK;
		const long long ks_ch = ks_ch0 + ks_n;
		const int ks_ci = ks_k / 9;
		int ks_r = ks_k % 9;
		const int ks_l2 = ks_r % 3;
		ks_r /= 3;
		const int ks_l1 = ks_r % 3;
		ks_r /= 3;
		(void)ks_r;
		const bool ks_ok = ks_e < ks_BK * ks_BN && ks_ch < ks_den &&
				   ks_ch < ks_limz;
		ks_bo[ks_i] = ((((9LL * (long long)(C)))) * (long long)(ks_ch) + (((9LL))) * (long long)(ks_ci) + (((3LL))) * (long long)(ks_l1) + (((1LL))) * (long long)(ks_l2));
		ks_bmk |= ks_ok ? 1ull << ks_i : 0ull;
		ks_bml |= ks_ok && (ks_ns - 1) * ks_CB + ks_ci < ks_T ? 1ull << ks_i : 0ull;
	}
	float ks_c[ks_TM][ks_TN];


	#pragma unroll
	for (int ks_i = 0; ks_i < ks_TM; ks_i++)
		#pragma unroll
		for (int ks_j = 0; ks_j < ks_TN; ks_j++)
			ks_c[ks_i][ks_j] = 0.0f;
	/* slices 0 .. ks_ST - 2 in flight, one commit group each */
	for (int ks_q = 0; ks_q < ks_ST - 1; ks_q++) {
		if (ks_q < ks_ns) {
			{
				const float *const ks_xs = x + (long long)(ks_q) * ks_ad;
				const float *const ks_ws = w + (long long)(ks_q) * ks_bd;
				const unsigned long long ks_ma = (ks_q) + 1 < ks_ns ? ks_am : ks_aml;
				const unsigned long long ks_mb = (ks_q) + 1 < ks_ns ? ks_bmk : ks_bml;
				float *const ks_da = ks_As + (ks_q) * ks_AS;
				float *const ks_db = ks_Bs + (ks_q) * ks_BS;

				#pragma unroll
				for (int ks_i = 0; ks_i < ks_NA; ks_i++) {
					const int ks_e = ks_t + ks_i * ks_NT;
					const bool ks_on = ks_ma >> ks_i & 1u;

					if ((ks_i + 1) * ks_NT <= ks_BK * ks_BM || ks_e < ks_BK * ks_BM)
						ks_cv_cp4(&ks_da[ks_e / ks_BM * (ks_BM + 4) + ks_e % ks_BM],
							  ks_xs + ks_ao[ks_i], ks_on);
				}
				#pragma unroll
				for (int ks_i = 0; ks_i < ks_NB; ks_i++) {
					const int ks_e = ks_t + ks_i * ks_NT;
					const bool ks_on = ks_mb >> ks_i & 1u;

					if ((ks_i + 1) * ks_NT <= ks_BK * ks_BN || ks_e < ks_BK * ks_BN)
						ks_cv_cp4(&ks_db[ks_e % ks_BK * (ks_BN + 4) + ks_e / ks_BK],
							  ks_ws + ks_bo[ks_i], ks_on);
				}
			}
		}
		ks_cv_commit();
	}
	for (long long ks_s = 0; ks_s < ks_ns; ks_s++) {
		const int ks_cb = (int)(ks_s % ks_ST);
		const int ks_nb = (int)((ks_s + ks_ST - 1) % ks_ST);
		const float *const ks_a = ks_As + ks_cb * ks_AS;
		const float *const ks_b = ks_Bs + ks_cb * ks_BS;

		/* slice s has landed; every thread is done with slice
		   s - 1, whose buffer slice s + ks_ST - 1 now fills */
		ks_cv_wait_n<ks_ST - 2>();
		__syncthreads();
		if (ks_s + ks_ST - 1 < ks_ns) {
			{
				const float *const ks_xs = x + (long long)(ks_s + ks_ST - 1) * ks_ad;
				const float *const ks_ws = w + (long long)(ks_s + ks_ST - 1) * ks_bd;
				const unsigned long long ks_ma = (ks_s + ks_ST - 1) + 1 < ks_ns ? ks_am : ks_aml;
				const unsigned long long ks_mb = (ks_s + ks_ST - 1) + 1 < ks_ns ? ks_bmk : ks_bml;
				float *const ks_da = ks_As + (ks_nb) * ks_AS;
				float *const ks_db = ks_Bs + (ks_nb) * ks_BS;

				#pragma unroll
				for (int ks_i = 0; ks_i < ks_NA; ks_i++) {
					const int ks_e = ks_t + ks_i * ks_NT;
					const bool ks_on = ks_ma >> ks_i & 1u;

					if ((ks_i + 1) * ks_NT <= ks_BK * ks_BM || ks_e < ks_BK * ks_BM)
						ks_cv_cp4(&ks_da[ks_e / ks_BM * (ks_BM + 4) + ks_e % ks_BM],
							  ks_xs + ks_ao[ks_i], ks_on);
				}
				#pragma unroll
				for (int ks_i = 0; ks_i < ks_NB; ks_i++) {
					const int ks_e = ks_t + ks_i * ks_NT;
					const bool ks_on = ks_mb >> ks_i & 1u;

					if ((ks_i + 1) * ks_NT <= ks_BK * ks_BN || ks_e < ks_BK * ks_BN)
						ks_cv_cp4(&ks_db[ks_e % ks_BK * (ks_BN + 4) + ks_e / ks_BK],
							  ks_ws + ks_bo[ks_i], ks_on);
				}
			}
		}
		ks_cv_commit();
		#pragma unroll
		for (int ks_kk = 0; ks_kk < ks_BK; ks_kk++) {
			float ks_fa[ks_TM], ks_fb[ks_TN];

			#pragma unroll
			for (int ks_u = 0; ks_u < ks_TM / 4; ks_u++) {
				const float4 ks_v = *(const float4 *)&ks_a[ks_kk * (ks_BM + 4) +
					ks_u * (ks_BM / (ks_TM / 4)) + ks_ty * 4];

				ks_fa[4 * ks_u] = ks_v.x;
				ks_fa[4 * ks_u + 1] = ks_v.y;
				ks_fa[4 * ks_u + 2] = ks_v.z;
				ks_fa[4 * ks_u + 3] = ks_v.w;
			}
			#pragma unroll
			for (int ks_u = 0; ks_u < ks_TN / 4; ks_u++) {
				const float4 ks_v = *(const float4 *)&ks_b[ks_kk * (ks_BN + 4) +
					ks_u * (ks_BN / (ks_TN / 4)) + ks_tx * 4];

				ks_fb[4 * ks_u] = ks_v.x;
				ks_fb[4 * ks_u + 1] = ks_v.y;
				ks_fb[4 * ks_u + 2] = ks_v.z;
				ks_fb[4 * ks_u + 3] = ks_v.w;
			}
			#pragma unroll
			for (int ks_i = 0; ks_i < ks_TM; ks_i++)
				#pragma unroll
				for (int ks_j = 0; ks_j < ks_TN; ks_j++)
					ks_c[ks_i][ks_j] = fmaf(ks_fa[ks_i], ks_fb[ks_j], ks_c[ks_i][ks_j]);
		}
	}
	ks_cv_wait();
	__syncthreads();
	/* the sums through shared memory, ks_EG channels at a time, so
	   that consecutive threads run the body (and its store) at
	   consecutive pixels */
	for (int ks_p = 0; ks_p < ks_BN; ks_p += ks_EG) {
		if (ks_p)
			__syncthreads();
		#pragma unroll
		for (int ks_i = 0; ks_i < ks_TM; ks_i++)
			#pragma unroll
			for (int ks_j = 0; ks_j < ks_TN; ks_j++) {
				const int ks_n = ks_j / 4 * (ks_BN / (ks_TN / 4)) + ks_tx * 4 +
						 ks_j % 4 - ks_p;

				if (ks_n >= 0 && ks_n < ks_EG)
					ks_sm[ks_n * (ks_BM + 1) + ks_i / 4 * (ks_BM / (ks_TM / 4)) +
					      ks_ty * 4 + ks_i % 4] = ks_c[ks_i][ks_j];
			}
		__syncthreads();
		for (int ks_e = ks_t; ks_e < ks_BM * ks_EG; ks_e += ks_NT) {
			const int ks_m = ks_e % ks_BM, ks_n = ks_e / ks_BM;
			const long long ks_gx = ks_gx0 + ks_m % ks_PX;
			const long long ks_gy = ks_gy0 + ks_m / ks_PX;
			const long long ks_ch = ks_ch0 + ks_p + ks_n;
			const long long ks_z = ks_img * ks_den + ks_ch;
			const unsigned ks_ux = (unsigned)ks_gx, ks_uy = (unsigned)ks_gy;

			if (ks_gx >= ks_nx || ks_gy >= ks_ny || ks_ch >= ks_den ||
			    ks_z >= (long long)ks_og.z)
				continue;
			ks_conv_body_conv2d_kernel(make_uint3(ks_ux % ks_ob.x, ks_uy % ks_ob.y, 0u),
				make_uint3(ks_ux / ks_ob.x, ks_uy / ks_ob.y, (unsigned)ks_z),
				ks_ob, ks_og, x, w, b, y, C, H, W, K, ks_sm[ks_n * (ks_BM + 1) + ks_m]);
		}
	}
}
// ks-nvcc: definition
__global__ void
conv2d_kernel(const float *x, const float *w, const float *b, float *y,
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
// ks-nvcc: launcher
static void
ks_launch_conv2d_kernel(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
		const float *x, const float *w, const float *b, float *y, int C, int H, int W, int K)
{
	const dim3 ks_og = grid, ks_ob = block;
	const unsigned long long ks_nx = (unsigned long long)grid.x * block.x;
	const unsigned long long ks_ny = (unsigned long long)grid.y * block.y;
	const long long ks_den = ((1LL * (long long)(K)));
	const long long ks_nkt = ks_den > 0 ? (ks_den + 63) / 64 : 0;
	const long long ks_nimg = ks_den > 0 ? ((long long)grid.z + ks_den - 1) / ks_den : 0;

	(void)ks_og;
	(void)ks_ob;
	/* launches the tile grid cannot cover: the original */
	if (block.z != 1 || !ks_nx || !ks_ny || !grid.z || ks_den <= 0 ||
	    ks_den > 0x7fffffffLL || ks_nx > 0xffffffffull || ks_ny > 0xffffffffull ||
	    (ks_ny + 3) / 4 > 65535ull || ks_nimg * ks_nkt > 65535LL) {
		conv2d_kernel<<<grid, block, shmem, stream>>>(x, w, b, y, C, H, W, K);
		return;
	}
	ks_conv_conv2d_kernel<<<dim3((unsigned)((ks_nx + 31) / 32), (unsigned)((ks_ny + 3) / 4),
			   (unsigned)(ks_nimg * ks_nkt)), dim3(256), 0, stream>>>(grid, block,
			   ks_den, ks_nkt, x, w, b, y, C, H, W, K);
}
