/* ks-nvcc: verified variants replace cross_entropy_kernel (arch 900); see docs/REWRITE.md */
#line 1 "/work/main/bench/cross_entropy/main.cu"
// cross_entropy: mean cross-entropy loss of [batch x classes] logits
// (65536 x 4096 floats: 1 GiB) against integer class targets, reduced to one
// scalar. Single kernel, one thread per row: the thread finds the row max,
// sums exp(x - max), forms loss = log(sum) + max - x[target], and
// atomically adds loss / batch to a single float. The scalar is zeroed
// before each launch (part of the timed job).
// Vendor: none (the toolkit's CUB and cuBLAS have no cross-entropy).
#include "bench.h"
#include "ref.h"

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 3 "/tmp/ks-bench/cross_entropy/ks/tasks/_Z20cross_entropy_kernelPKfPKiPfii/r3.variant.cu"
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
#endif
#line 106 "/tmp/ks-bench/cross_entropy/ks/tasks/_Z20cross_entropy_kernelPKfPKiPfii/r3.variant.cu"
__global__ void
ks_red_cross_entropy_kernel(const dim3 ks_vgrid, const float *x, const int *target, float *loss, int rows, int cols)
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 108 "/tmp/ks-bench/cross_entropy/ks/tasks/_Z20cross_entropy_kernelPKfPKiPfii/r3.variant.cu"
{
	ks_red_slot<float> ks_s0 = { (float)0, 0, 0 };
	__shared__ float ks_sv0[32];
	__shared__ unsigned long long ks_sp0[32];
	__shared__ int ks_sh0[32];

	const unsigned long long ks_nvb = (unsigned long long)ks_vgrid.x *
					   ks_vgrid.y * ks_vgrid.z;

	if (ks_vgrid.y == 1 && ks_vgrid.z == 1) {
#pragma unroll 1
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
#else
{}
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900
#line 139 "/tmp/ks-bench/cross_entropy/ks/tasks/_Z20cross_entropy_kernelPKfPKiPfii/r3.variant.cu"
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
#else
#line 11 "/work/main/bench/cross_entropy/main.cu"
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
#endif
#line 1 "<ks-nvcc>"
/* Never launched: cudaFuncGetAttributes on it tells which image
   of this file the device runs (__CUDA_ARCH__ is ptxVersion
   times 10). */
static __global__ void ks_probe_cross_entropy_kernel(void) {}
#ifndef __CUDA_ARCH__
/* 1 when the device code that runs is the variant's (arch 900):
   then its launcher must run. Cached per device. */
static int
ks_variant_active_cross_entropy_kernel(void)
{
	static int ks_known[64];
	struct cudaFuncAttributes ks_attr;
	int ks_dev = -1, ks_k = 0, ks_on;

	if (cudaGetDevice(&ks_dev) != cudaSuccess || ks_dev >= 64)
		ks_dev = -1;
	if (ks_dev >= 0)
		ks_k = __atomic_load_n(&ks_known[ks_dev], __ATOMIC_RELAXED);
	if (ks_k)
		return ks_k == 1;
	if (cudaFuncGetAttributes(&ks_attr, ks_probe_cross_entropy_kernel) != cudaSuccess)
		return 0;
	ks_on = ks_attr.ptxVersion == 90;
	if (ks_dev >= 0)
		__atomic_store_n(&ks_known[ks_dev], ks_on ? 1 : 2,
				 __ATOMIC_RELAXED);
	return ks_on;
}
#line 156 "/tmp/ks-bench/cross_entropy/ks/tasks/_Z20cross_entropy_kernelPKfPKiPfii/r3.variant.cu"
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
			ks_g = (unsigned)ks_sms * (unsigned)ks_occ * 1u;
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
#endif
#line 26 "/work/main/bench/cross_entropy/main.cu"
 

int
main(int argc, char **argv)
{
	bench_init("cross_entropy", argc, argv);
	// Small: sizes that are not multiples of the block or of a warp.
	const int rows = bench_small() ? 37 : 65536;
	const int cols = bench_small() ? 100 : 4096;
	const size_t n = (size_t)rows * cols;

	// Logits uniform in [-4, 4), targets uniform over the classes, and the
	// target's logit raised by 3, as a model that has learned something
	// would score it.
	std::vector<float> hx(n);
	bench_fill(hx, 211, -4.0f, 4.0f);
	std::vector<int> ht(rows);
	bench_rng g(212);
	for (int r = 0; r < rows; r++) {
		ht[r] = (int)g.below(cols);
		hx[(size_t)r * cols + ht[r]] += 3.0f;
	}
	const float want = (float)cross_entropy_ref(hx.data(), ht.data(), rows, cols);

	float *dx = bench_to_device(hx);
	int *dt = bench_to_device(ht);
	float *dloss = nullptr;
	BENCH_CK(cudaMalloc(&dloss, sizeof(float)));

	const int threads = 256;
	const int blocks = (rows + threads - 1) / threads;
	auto launch = [&]() {
		BENCH_CK(cudaMemsetAsync(dloss, 0, sizeof(float)));
		
#ifdef __CUDA_ARCH__
#line 59 "/work/main/bench/cross_entropy/main.cu"
		cross_entropy_kernel<<<blocks, threads>>>(dx, dt, dloss, rows, cols)
#else
#line 59 "/work/main/bench/cross_entropy/main.cu"
		(ks_variant_active_cross_entropy_kernel() ? ks_launch_cross_entropy_kernel(blocks, threads, 0, cudaStream_t(), dx, dt, dloss, rows, cols) : (void)(
#line 59 "/work/main/bench/cross_entropy/main.cu"
		cross_entropy_kernel<<<blocks, threads>>>(dx, dt, dloss, rows, cols)))
#endif
#line 59 "/work/main/bench/cross_entropy/main.cu"
		                                                                    ;
	};

	// Tolerance: the per-row loss (~7) carries the rounding of x - max,
	// expf (2 ulp), a float sum of cols positive terms and logf: a few 1e-6
	// absolute in practice (the worst case, cols * 2^-24 ~ 2.4e-4, needs
	// every rounding in one direction). The batch mean adds rows float
	// additions of ~loss / rows in arbitrary order; their roundings are
	// independent, giving a relative spread of about
	// 2^-24 * sqrt(rows) / 3 (~5e-6 at rows = 65536). rtol 1e-4 is twenty
	// times that; reading any logit but the target's moves the mean by ~40%
	// (the target's is 3 higher). A single lost row (1 / rows ~ 1.5e-5
	// relative) is below what one float scalar can resolve.
	const double atol = 0.0, rtol = 1e-4;
	launch();
	BENCH_CK(cudaGetLastError());
	BENCH_CK(cudaDeviceSynchronize());
	float got = bench_to_host(dloss, 1)[0];
	bool ok = bench_check("cross_entropy", &got, &want, 1, atol, rtol);

	// Minimum: read the logits and targets once, write one float. Flops per
	// row: 4 * cols + 4 (cols - 1 max, cols subtracts, exps and adds; log,
	// add, subtract, divide), exp and log counted as 1.
	const double bytes = sizeof(float) * (double)n + sizeof(int) * (double)rows + sizeof(float);
	const double flops = (double)rows * (4.0 * cols + 4.0);
	bench_stats s = bench_time(launch);
	bench_report("cross_entropy", "naive", s, bytes, flops);

	got = bench_to_host(dloss, 1)[0];
	ok = bench_check("cross_entropy after timing", &got, &want, 1, atol, rtol) && ok;

	BENCH_CK(cudaFree(dx));
	BENCH_CK(cudaFree(dt));
	BENCH_CK(cudaFree(dloss));
	return bench_finish(ok);
}
