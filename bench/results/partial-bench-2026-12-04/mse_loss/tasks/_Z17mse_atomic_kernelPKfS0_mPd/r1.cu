/* ks-nvcc: verified variants replace mse_atomic_kernel (arch 900); see docs/REWRITE.md */
#line 1 "/work/main/bench/mse_loss/main.cu"
// mse_loss: mean squared error of a prediction vector against a target
// vector, reduced to one scalar (2 x 64M floats: 512 MiB in, 4 bytes out).
// One thread per element computes its squared difference and atomically
// adds it to a single global accumulator; a one-thread kernel then divides
// by n. The accumulator is zeroed before each launch (part of the timed job).
//
// Why the accumulator is a double: the terms here are at most ~0.25 (mean
// 1/12), and once a float running sum reaches 2^22 the spacing of floats
// there is 0.5, so every further term rounds away. Whatever the order of the
// atomics, a float accumulator stops near 2^22 and returns about 0.0625
// instead of 0.0833 for n = 2^26; no tolerance could accept that while
// rejecting a wrong kernel.
// atomicAdd on a double is native on sm_60 and later.
//
// Vendor: cub::DeviceReduce::TransformReduce over the indices, with the same
// per-element squared difference (float) accumulated in double, followed by
// the same divide: the same job.
#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <climits>

#include "bench.h"
#include "ref.h"

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 3 "/tmp/ks-bench/mse_loss/ks/tasks/_Z17mse_atomic_kernelPKfS0_mPd/r1.variant.cu"
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

/* The body of mse_atomic_kernel at the virtual block ks_bid of the grid ks_gdim. */
__device__ __forceinline__ static void
ks_red_body_mse_atomic_kernel(const uint3 ks_bid, const dim3 ks_gdim, ks_red_slot<double> &ks_s0, const float *pred, const float *target, size_t n, double *sum)
{
	size_t i = (size_t)ks_bid.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float d = pred[i] - target[i];
	ks_red_put<ks_op_add>(ks_s0, sum, (double)(d * d));
}

/* Each block walks blocks of the original grid ks_vgrid. */
#endif
#line 99 "/tmp/ks-bench/mse_loss/ks/tasks/_Z17mse_atomic_kernelPKfS0_mPd/r1.variant.cu"
__global__ void
ks_red_mse_atomic_kernel(const dim3 ks_vgrid, const float *pred, const float *target, size_t n, double *sum)
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 101 "/tmp/ks-bench/mse_loss/ks/tasks/_Z17mse_atomic_kernelPKfS0_mPd/r1.variant.cu"
{
	ks_red_slot<double> ks_s0 = { (double)0, 0, 0 };
	__shared__ double ks_sv0[32];
	__shared__ unsigned long long ks_sp0[32];
	__shared__ int ks_sh0[32];

	const unsigned long long ks_nvb = (unsigned long long)ks_vgrid.x *
					   ks_vgrid.y * ks_vgrid.z;

	if (ks_vgrid.y == 1 && ks_vgrid.z == 1) {
#pragma unroll 4
		for (unsigned long long ks_vb = blockIdx.x; ks_vb < ks_nvb;
		     ks_vb += gridDim.x) {
			ks_red_body_mse_atomic_kernel(make_uint3((unsigned)ks_vb, 0, 0), ks_vgrid, ks_s0,
				pred, target, n, sum);
		}
	} else {
		for (unsigned long long ks_vb = blockIdx.x; ks_vb < ks_nvb;
		     ks_vb += gridDim.x) {
			const unsigned long long ks_q = ks_vb / ks_vgrid.x;

			ks_red_body_mse_atomic_kernel(make_uint3((unsigned)(ks_vb % ks_vgrid.x),
						(unsigned)(ks_q % ks_vgrid.y),
						(unsigned)(ks_q / ks_vgrid.y)),
				ks_vgrid, ks_s0, pred, target, n, sum);
		}
	}
	if (ks_red_block<ks_op_add>(ks_s0, (double)0, ks_sv0, ks_sp0, ks_sh0))
		atomicAdd((double *)ks_s0.p, ks_s0.v);
}
#else
{}
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900
#line 132 "/tmp/ks-bench/mse_loss/ks/tasks/_Z17mse_atomic_kernelPKfS0_mPd/r1.variant.cu"
__global__ void
mse_atomic_kernel(const float *pred, const float *target, size_t n, double *sum)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float d = pred[i] - target[i];
	atomicAdd(sum, (double)(d * d));
}
#else
#line 26 "/work/main/bench/mse_loss/main.cu"
__global__ void
mse_atomic_kernel(const float *pred, const float *target, size_t n, double *sum)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float d = pred[i] - target[i];
	atomicAdd(sum, (double)(d * d));
}
#endif
#line 1 "<ks-nvcc>"
/* Never launched: cudaFuncGetAttributes on it tells which image
   of this file the device runs (__CUDA_ARCH__ is ptxVersion
   times 10). */
static __global__ void ks_probe_mse_atomic_kernel(void) {}
#ifndef __CUDA_ARCH__
/* 1 when the device code that runs is the variant's (arch 900):
   then its launcher must run. Cached per device. */
static int
ks_variant_active_mse_atomic_kernel(void)
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
	if (cudaFuncGetAttributes(&ks_attr, ks_probe_mse_atomic_kernel) != cudaSuccess)
		return 0;
	ks_on = ks_attr.ptxVersion == 90;
	if (ks_dev >= 0)
		__atomic_store_n(&ks_known[ks_dev], ks_on ? 1 : 2,
				 __ATOMIC_RELAXED);
	return ks_on;
}
#line 142 "/tmp/ks-bench/mse_loss/ks/tasks/_Z17mse_atomic_kernelPKfS0_mPd/r1.variant.cu"
static void
ks_launch_mse_atomic_kernel(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
		const float *pred, const float *target, size_t n, double *sum)
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
			   cudaOccupancyMaxActiveBlocksPerMultiprocessor(&ks_occ, ks_red_mse_atomic_kernel, (int)ks_threads, shmem) == cudaSuccess &&
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
		mse_atomic_kernel<<<grid, block, shmem, stream>>>(pred, target, n, sum);
		return;
	}
	if (ks_g > ks_nvb)
		ks_g = (unsigned)ks_nvb;
	ks_red_mse_atomic_kernel<<<ks_g, block, shmem, stream>>>(grid, pred, target, n, sum);
}
#endif
#line 34 "/work/main/bench/mse_loss/main.cu"
 

__global__ void
mse_finish_kernel(const double *sum, size_t n, float *out)
{
	*out = (float)(*sum / (double)n);
}

// The squared difference of element i, as the naive kernel computes it.
struct sq_diff_op {
	const float *pred, *target;
	__host__ __device__ double operator()(int i) const
	{
		float d = pred[i] - target[i];
		return (double)(d * d);
	}
};

int
main(int argc, char **argv)
{
	bench_init("mse_loss", argc, argv);
	const size_t n = bench_small() ? 100003 : (size_t)1 << 26;
	if (n > (size_t)INT_MAX)
		return bench_finish(false, "size exceeds the int item count used for CUB");

	// Targets in [-1, 1); predictions off by up to 0.5 either way.
	std::vector<float> hp(n), ht(n), noise(n);
	bench_fill(ht, 191, -1.0f, 1.0f);
	bench_fill(noise, 192, -0.5f, 0.5f);
	for (size_t i = 0; i < n; i++)
		hp[i] = ht[i] + noise[i];
	const float want = (float)mse_ref(hp.data(), ht.data(), n);

	float *dp = bench_to_device(hp);
	float *dt = bench_to_device(ht);
	double *dsum = nullptr, *dsum_v = nullptr;
	float *dout = nullptr, *dout_v = nullptr;
	BENCH_CK(cudaMalloc(&dsum, sizeof(double)));
	BENCH_CK(cudaMalloc(&dsum_v, sizeof(double)));
	BENCH_CK(cudaMalloc(&dout, sizeof(float)));
	BENCH_CK(cudaMalloc(&dout_v, sizeof(float)));
	// All-ones bytes are a NaN: a result never written fails the check.
	BENCH_CK(cudaMemset(dout, 0xff, sizeof(float)));
	BENCH_CK(cudaMemset(dout_v, 0xff, sizeof(float)));

	const thrust::counting_iterator<int> idx(0);
	const sq_diff_op sq{dp, dt};
	size_t temp_bytes = 0;
	BENCH_CK(cub::DeviceReduce::TransformReduce(nullptr, temp_bytes, idx, dsum_v, (int)n,
						    cuda::std::plus<double>{}, sq, 0.0));
	void *dtemp = nullptr;
	BENCH_CK(cudaMalloc(&dtemp, temp_bytes ? temp_bytes : 1));

	const int threads = 256;
	const unsigned blocks = (unsigned)((n + threads - 1) / threads);
	auto launch = [&]() {
		BENCH_CK(cudaMemsetAsync(dsum, 0, sizeof(double)));
		
#ifdef __CUDA_ARCH__
#line 92 "/work/main/bench/mse_loss/main.cu"
		mse_atomic_kernel<<<blocks, threads>>>(dp, dt, n, dsum)
#else
#line 92 "/work/main/bench/mse_loss/main.cu"
		(ks_variant_active_mse_atomic_kernel() ? ks_launch_mse_atomic_kernel(blocks, threads, 0, cudaStream_t(), dp, dt, n, dsum) : (void)(
#line 92 "/work/main/bench/mse_loss/main.cu"
		mse_atomic_kernel<<<blocks, threads>>>(dp, dt, n, dsum)))
#endif
#line 92 "/work/main/bench/mse_loss/main.cu"
		                                                       ;
		mse_finish_kernel<<<1, 1>>>(dsum, n, dout);
	};
	auto launch_cub = [&]() {
		BENCH_CK(cub::DeviceReduce::TransformReduce(dtemp, temp_bytes, idx, dsum_v,
							    (int)n, cuda::std::plus<double>{},
							    sq, 0.0));
		mse_finish_kernel<<<1, 1>>>(dsum_v, n, dout_v);
	};

	// Tolerance: d = pred - target rounded to float is within 2^-24
	// relative, d * d within 3 * 2^-24; every term is >= 0, so the sum of
	// the computed terms is within 3 * 2^-24 relative of the exact sum. The
	// double accumulation, in whatever order the atomics land, adds at most
	// n * 2^-53 (7.5e-9 at n = 2^26) relative, and the final rounding to
	// float 2^-24: at most ~2.5e-7 relative in all. rtol 1e-6.
	const double atol = 0.0, rtol = 1e-6;
	launch();
	BENCH_CK(cudaGetLastError());
	launch_cub();
	BENCH_CK(cudaGetLastError());
	BENCH_CK(cudaDeviceSynchronize());
	float got = bench_to_host(dout, 1)[0];
	bool ok = bench_check("mse_atomic", &got, &want, 1, atol, rtol);
	got = bench_to_host(dout_v, 1)[0];
	ok = bench_check("cub_reduce", &got, &want, 1, atol, rtol) && ok;

	// Minimum: read both vectors once, write one float. Flops: 3 per
	// element (subtract, multiply, add) and the final divide.
	const double bytes = 2.0 * sizeof(float) * (double)n + sizeof(float);
	const double flops = 3.0 * (double)n + 1.0;
	bench_stats s = bench_time(launch);
	bench_report("mse_atomic", "naive", s, bytes, flops);
	s = bench_time(launch_cub);
	bench_report("cub_reduce", "vendor", s, bytes, flops);

	got = bench_to_host(dout, 1)[0];
	ok = bench_check("mse_atomic after timing", &got, &want, 1, atol, rtol) && ok;
	got = bench_to_host(dout_v, 1)[0];
	ok = bench_check("cub_reduce after timing", &got, &want, 1, atol, rtol) && ok;

	BENCH_CK(cudaFree(dtemp));
	BENCH_CK(cudaFree(dp));
	BENCH_CK(cudaFree(dt));
	BENCH_CK(cudaFree(dsum));
	BENCH_CK(cudaFree(dsum_v));
	BENCH_CK(cudaFree(dout));
	BENCH_CK(cudaFree(dout_v));
	return bench_finish(ok);
}
