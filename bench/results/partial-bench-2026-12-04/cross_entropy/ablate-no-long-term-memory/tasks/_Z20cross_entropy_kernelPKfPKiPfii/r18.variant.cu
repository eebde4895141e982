// cross_entropy_kernel: atomics folded per thread, then per warp and block, one atomic per resident block (atomic_hierarchical_reduce)
// ks-nvcc: helpers
#ifndef KS_XF_REDUCE_HELPERS
#define KS_XF_REDUCE_HELPERS
/* One thread's share of the atomics of one call site: the running
   value, the address, whether the thread reached the atomic. */
template <class T> struct ks_red_slot {
	T v;
	void *p;
	int hit;
};
struct ks_op_add { template <class T> __device__ static T f(T a, T b) { return a + b; } };
struct ks_op_min { template <class T> __device__ static T f(T a, T b) { return b < a ? b : a; } };
struct ks_op_max { template <class T> __device__ static T f(T a, T b) { return a < b ? b : a; } };
struct ks_op_and { template <class T> __device__ static T f(T a, T b) { return a & b; } };
struct ks_op_or { template <class T> __device__ static T f(T a, T b) { return a | b; } };
struct ks_op_xor { template <class T> __device__ static T f(T a, T b) { return a ^ b; } };

/* What the atomic would have done, folded into the thread's slot. */
template <class OP, class T, class U>
__device__ __forceinline__ static void
ks_red_put(ks_red_slot<T> &s, void *a, U x)
{
	s.v = OP::f(s.v, (T)x);
	s.p = a;
	s.hit = 1;
}

/* The block's slots combined into thread 0's: shuffles within each
   warp (partial warps too), then the warps' results through shared
   memory. Every thread of the block calls it. Returns 1 on the thread
   that holds the total when some thread reached the atomic. */
template <class OP, class T>
__device__ __forceinline__ static int
ks_red_block(ks_red_slot<T> &s, T id, T *sv, unsigned long long *sp, int *sh)
{
	const unsigned nt = blockDim.x * blockDim.y * blockDim.z;
	const unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
	const unsigned lane = t & 31u, w = t >> 5, nw = (nt + 31u) >> 5;
	unsigned width = nt - (w << 5) < 32u ? nt - (w << 5) : 32u;
	unsigned mask = width == 32u ? 0xffffffffu : (1u << width) - 1u;
	T v = s.v;
	unsigned long long p = (unsigned long long)s.p;
	int hit = s.hit;

	for (unsigned off = 16; off; off >>= 1) {
		T ov = __shfl_down_sync(mask, v, off);
		unsigned long long op = __shfl_down_sync(mask, p, off);
		int oh = __shfl_down_sync(mask, hit, off);

		if (lane + off < width) {
			v = OP::f(v, ov);
			if (!hit)	/* the address of a thread that reached it */
				p = op;
			hit |= oh;
		}
	}
	if (lane == 0) {
		sv[w] = v;
		sp[w] = p;
		sh[w] = hit;
	}
	__syncthreads();
	if (w != 0)
		return 0;
	v = lane < nw ? sv[lane] : id;
	p = lane < nw ? sp[lane] : 0;
	hit = lane < nw ? sh[lane] : 0;
	for (unsigned off = 16; off; off >>= 1) {
		T ov = __shfl_down_sync(mask, v, off);
		unsigned long long op = __shfl_down_sync(mask, p, off);
		int oh = __shfl_down_sync(mask, hit, off);

		if (lane + off < width) {
			v = OP::f(v, ov);
			if (!hit)	/* the address of a thread that reached it */
				p = op;
			hit |= oh;
		}
	}
	s.v = v;
	s.p = (void *)p;
	return lane == 0 && hit;
}
#endif

/* The body of cross_entropy_kernel at the virtual block ks_bid of the grid ks_gdim. */
__device__ __forceinline__ static void
ks_red_body_cross_entropy_kernel(const uint3 ks_bid, const dim3 ks_gdim, ks_red_slot<float> &ks_s0, const float *x, const int *target, float *loss, int rows, int cols)
{
	int row = ks_bid.x * blockDim.x + threadIdx.x;
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
	ks_red_put<ks_op_add>(ks_s0, loss, l / rows);
}

/* Each block walks blocks of the original grid ks_vgrid. */
__global__ void
ks_red_cross_entropy_kernel(const dim3 ks_vgrid, const float *x, const int *target, float *loss, int rows, int cols)
{
	ks_red_slot<float> ks_s0 = { (float)0, 0, 0 };
	__shared__ float ks_sv0[32];
	__shared__ unsigned long long ks_sp0[32];
	__shared__ int ks_sh0[32];

	const unsigned long long ks_nvb = (unsigned long long)ks_vgrid.x *
					   ks_vgrid.y * ks_vgrid.z;

	if (ks_vgrid.y == 1 && ks_vgrid.z == 1) {
#pragma unroll 4
		for (unsigned long long ks_vb = blockIdx.x; ks_vb < ks_nvb;
		     ks_vb += gridDim.x) {
			ks_red_body_cross_entropy_kernel(make_uint3((unsigned)ks_vb, 0, 0), ks_vgrid, ks_s0,
				x, target, loss, rows, cols);
		}
	} else {
		for (unsigned long long ks_vb = blockIdx.x; ks_vb < ks_nvb;
		     ks_vb += gridDim.x) {
			const unsigned long long ks_q = ks_vb / ks_vgrid.x;

			ks_red_body_cross_entropy_kernel(make_uint3((unsigned)(ks_vb % ks_vgrid.x),
						(unsigned)(ks_q % ks_vgrid.y),
						(unsigned)(ks_q / ks_vgrid.y)),
				ks_vgrid, ks_s0, x, target, loss, rows, cols);
		}
	}
	if (ks_red_block<ks_op_add>(ks_s0, (float)0, ks_sv0, ks_sp0, ks_sh0))
		atomicAdd((float *)ks_s0.p, ks_s0.v);
}
// ks-nvcc: definition
__global__ void
cross_entropy_kernel(const float *x, const int *target, float *loss, int rows, int cols)
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
// ks-nvcc: launcher
static void
ks_launch_cross_entropy_kernel(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
		const float *x, const int *target, float *loss, int rows, int cols)
{
	const unsigned long long ks_nvb = (unsigned long long)grid.x * grid.y * grid.z;
	unsigned ks_g;

	{
		/* blocks resident at once, per device and launch shape */
		static struct { unsigned threads; size_t shmem; unsigned blocks; } ks_seen[64];
		unsigned ks_threads = block.x * block.y * block.z;
		int ks_dev = -1, ks_sms = 0, ks_occ = 0;

		ks_g = 0;
		if (cudaGetDevice(&ks_dev) == cudaSuccess && ks_dev >= 0 && ks_dev < 64 &&
		    ks_seen[ks_dev].blocks && ks_seen[ks_dev].threads == ks_threads &&
		    ks_seen[ks_dev].shmem == shmem) {
			ks_g = ks_seen[ks_dev].blocks;
		} else if (ks_dev >= 0 &&
			   cudaDeviceGetAttribute(&ks_sms, cudaDevAttrMultiProcessorCount, ks_dev) == cudaSuccess &&
			   cudaOccupancyMaxActiveBlocksPerMultiprocessor(&ks_occ, ks_red_cross_entropy_kernel, (int)ks_threads, shmem) == cudaSuccess &&
			   ks_sms > 0 && ks_occ > 0) {
			ks_g = (unsigned)ks_sms * (unsigned)ks_occ * 2u;
			if (ks_dev < 64) {
				ks_seen[ks_dev].threads = ks_threads;
				ks_seen[ks_dev].shmem = shmem;
				ks_seen[ks_dev].blocks = ks_g;
			}
		} else {
			(void)cudaGetLastError();	/* the query's, not the program's */
		}
	}
	if (ks_g == 0 || ks_nvb == 0) {
		cross_entropy_kernel<<<grid, block, shmem, stream>>>(x, target, loss, rows, cols);
		return;
	}
	if (ks_g > ks_nvb)
		ks_g = (unsigned)ks_nvb;
	ks_red_cross_entropy_kernel<<<ks_g, block, shmem, stream>>>(grid, x, target, loss, rows, cols);
}
