/* ks-nvcc: verified variants replace stencil3d7_kernel (arch 900); see docs/REWRITE.md */
#line 1 "/work/main/bench/stencil3d7/main.cu"
// stencil3d7: the 3-D 7-point stencil (a weighted Laplacian smoother,
// c0 * centre + c1 * the six face neighbours) with a fixed boundary, on a
// 512^3 grid of floats in (512 MiB) and out. One thread per grid point,
// 8x8x8 threads per block; boundary points copy their input.
// Vendor: none (the toolkit's libraries have no stencils).
#include "bench.h"
#include "ref.h"

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 3 "/tmp/ks-bench/stencil3d7/ks/tasks/_Z17stencil3d7_kernelPKfPfiiiff/r6.variant.cu"
#ifndef KS_ST_HELPERS
#define KS_ST_HELPERS
/* q[i]: a select chain that folds to one register when i is a
   constant after unrolling, and stays correct when it is not. */
template <class T, int N> __device__ __forceinline__ static T
ks_st_q(const T (&q)[N], int i)
{
	T v = q[0];
#pragma unroll
	for (int j = 1; j < N; j++)
		if (j == i)
			v = q[j];
	return v;
}
/* p[f] where 0 <= f < n, else 0 (a cell no read of the kernel
   reaches). */
template <class T> __device__ __forceinline__ static T
ks_st_ld(const T *p, long long f, long long n)
{
	return f >= 0 && f < n ? __ldg(p + f) : T(0);
}
template <class T> __device__ __forceinline__ static T
ks_st_ld(T *p, long long f, long long n)
{
	return f >= 0 && f < n ? p[f] : T(0);
}
/* A hint: the line of p[f] into L1 where 0 <= f < n (nothing on
   the host, where the emulated kernel runs). */
template <class T> __device__ __forceinline__ static void
ks_st_pf(const T *p, long long f, long long n)
{
#ifdef __CUDA_ARCH__
	if (f >= 0 && f < n)
		asm volatile("prefetch.global.L1 [%0];" : : "l"(p + f));
#else
	(void)p;
	(void)f;
	(void)n;
#endif
}
#endif

/* The body of stencil3d7_kernel at thread ks_tid of block ks_bid, its reads of in along z
   from the column ks_q (ks_q[1] the output's own). */
__device__ __forceinline__ static void
ks_st_body_stencil3d7_kernel(const uint3 ks_tid, const uint3 ks_bid, const dim3 ks_bdim, const dim3 ks_gdim,
	const float (&ks_q)[3], const float *in, float *out, int nx, int ny, int nz, float c0, float c1)
{
	int x = ks_bid.x * ks_bdim.x + ks_tid.x;
	int y = ks_bid.y * ks_bdim.y + ks_tid.y;
	int z = ks_bid.z * ks_bdim.z + ks_tid.z;
	if (x >= nx || y >= ny || z >= nz)
		return;
	size_t i = ((size_t)z * ny + y) * nx + x;
	if (x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1) {
		out[i] = ((void)(i), ks_st_q(ks_q, 1 + (0)));
		return;
	}
	out[i] = c0 * ((void)(i), ks_st_q(ks_q, 1 + (0))) + c1 * (in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx] +
				    ((void)(i - (size_t)nx * ny), ks_st_q(ks_q, 1 + (-1))) + ((void)(i + (size_t)nx * ny), ks_st_q(ks_q, 1 + (1))));
}

/* 32x8 threads over the original grid's global indices (ks_og
   blocks of ks_ob threads), each walking 64 steps along z. */
#endif
#line 67 "/tmp/ks-bench/stencil3d7/ks/tasks/_Z17stencil3d7_kernelPKfPfiiiff/r6.variant.cu"
__global__ void __launch_bounds__(256, 6)
ks_st_stencil3d7_kernel(const dim3 ks_og, const dim3 ks_ob, const float *in, float *out, int nx, int ny, int nz, float c0, float c1)
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
#line 69 "/tmp/ks-bench/stencil3d7/ks/tasks/_Z17stencil3d7_kernelPKfPfiiiff/r6.variant.cu"
{
	const long long ks_sy = ((1LL * (long long)(nx))), ks_sz = ((1LL * (long long)(nx) * (long long)(ny)));
	/* the elements the bounds checks span; the output's fixed offset */
	const long long ks_n = (long long)(((1LL * (long long)(nz)))) * ks_sz;
	const long long ks_c0 = 0LL + 0LL * ks_sy + 0LL * ks_sz;
	const unsigned ks_cx = ks_og.x * ks_ob.x, ks_cy = ks_og.y * ks_ob.y;
	/* this thread's 1 columns: x = ks_gx0 + ks_v * 32 */
	const unsigned ks_gx0 = blockIdx.x * 32u + threadIdx.x;
	unsigned ks_tx[1], ks_bx[1];
	bool ks_mine[1];
	long long ks_f[1];
	const unsigned ks_gy = blockIdx.y * 8u + threadIdx.y;
	const unsigned ks_ty = ks_gy % ks_ob.y, ks_by = ks_gy / ks_ob.y;
	const long long ks_cs = (long long)ks_og.z * ks_ob.z;
	const long long ks_s0 = (long long)blockIdx.z * 64;
	const long long ks_ss = ks_sz;
	const unsigned ks_os = ks_ob.z;

#pragma unroll
	for (int ks_v = 0; ks_v < 1; ks_v++) {
		const unsigned ks_gx = ks_gx0 + ks_v * 32u;

		ks_tx[ks_v] = ks_gx % ks_ob.x;
		ks_bx[ks_v] = ks_gx / ks_ob.x;
		ks_mine[ks_v] = ks_gx < ks_cx && ks_gy < ks_cy;
		ks_f[ks_v] = ks_c0 + (long long)ks_gx + ks_sy * ks_gy;
	}
	if (ks_s0 >= ks_cs)
		return;
	const long long ks_send = ks_s0 + 64 < ks_cs ? ks_s0 + 64 : ks_cs;
	unsigned ks_ts = (unsigned)(ks_s0 % ks_os), ks_bs = (unsigned)(ks_s0 / ks_os);
	/* the ring: slot (p - ks_s0 + 1) % 7 holds the column at step p */
	float ks_q[1][7];

#pragma unroll
	for (int ks_v = 0; ks_v < 1; ks_v++) {
#pragma unroll
		for (int ks_j = 0; ks_j < 6; ks_j++)
			ks_q[ks_v][ks_j] = ks_st_ld(in, ks_f[ks_v] + ks_ss * (ks_s0 - 1 + ks_j), ks_n);
		ks_q[ks_v][6] = float(0);
	}
	for (long long ks_s = ks_s0; ks_s < ks_send; ks_s += 7) {
#pragma unroll
		for (int ks_u = 0; ks_u < 7; ks_u++) {
			const long long ks_p = ks_s + ks_u;

			if (ks_p >= ks_send)
				break;
			/* 4 steps ahead: in flight during the next bodies */
#pragma unroll
			for (int ks_v = 0; ks_v < 1; ks_v++)
				ks_q[ks_v][(ks_u + 6) % 7] = ks_st_ld(in, ks_f[ks_v] + ks_ss * (ks_p + 5), ks_n);
			ks_st_pf(in, ks_f[0] + ks_ss * (ks_p + 5) - 1, ks_n);
			ks_st_pf(in, ks_f[0] + ks_ss * (ks_p + 5) + 1, ks_n);
#pragma unroll
			for (int ks_v = 0; ks_v < 1; ks_v++) {
				if (threadIdx.y < 1u)
					ks_st_pf(in, ks_f[ks_v] + ks_ss * (ks_p + 5) - 1 * ks_sy, ks_n);
				if (threadIdx.y + 1u >= 8u)
					ks_st_pf(in, ks_f[ks_v] + ks_ss * (ks_p + 5) + 1 * ks_sy, ks_n);
			}
#pragma unroll
			for (int ks_v = 0; ks_v < 1; ks_v++) {
				float ks_w[3];

#pragma unroll
				for (int ks_j = 0; ks_j < 3; ks_j++)
					ks_w[ks_j] = ks_q[ks_v][(ks_u + ks_j) % 7];
				if (ks_mine[ks_v])
					ks_st_body_stencil3d7_kernel(make_uint3(ks_tx[ks_v], ks_ty, ks_ts),
						make_uint3(ks_bx[ks_v], ks_by, ks_bs), ks_ob, ks_og, ks_w, in, out, nx, ny, nz, c0, c1);
			}
			if (++ks_ts == ks_os) {
				ks_ts = 0;
				ks_bs++;
			}
		}
	}
}
#else
{}
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900
#line 149 "/tmp/ks-bench/stencil3d7/ks/tasks/_Z17stencil3d7_kernelPKfPfiiiff/r6.variant.cu"
__global__ void
stencil3d7_kernel(const float *in, float *out, int nx, int ny, int nz, float c0, float c1)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	int z = blockIdx.z * blockDim.z + threadIdx.z;
	if (x >= nx || y >= ny || z >= nz)
		return;
	size_t i = ((size_t)z * ny + y) * nx + x;
	if (x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1) {
		out[i] = in[i];
		return;
	}
	out[i] = c0 * in[i] + c1 * (in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx] +
				    in[i - (size_t)nx * ny] + in[i + (size_t)nx * ny]);
}
#else
#line 9 "/work/main/bench/stencil3d7/main.cu"
__global__ void
stencil3d7_kernel(const float *in, float *out, int nx, int ny, int nz, float c0, float c1)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	int z = blockIdx.z * blockDim.z + threadIdx.z;
	if (x >= nx || y >= ny || z >= nz)
		return;
	size_t i = ((size_t)z * ny + y) * nx + x;
	if (x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1) {
		out[i] = in[i];
		return;
	}
	out[i] = c0 * in[i] + c1 * (in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx] +
				    in[i - (size_t)nx * ny] + in[i + (size_t)nx * ny]);
}
#endif
#line 1 "<ks-nvcc>"
/* Never launched: cudaFuncGetAttributes on it tells which image
   of this file the device runs (__CUDA_ARCH__ is ptxVersion
   times 10). */
static __global__ void ks_probe_stencil3d7_kernel(void) {}
#ifndef __CUDA_ARCH__
/* 1 when the device code that runs is the variant's (arch 900):
   then its launcher must run. Cached per device. */
static int
ks_variant_active_stencil3d7_kernel(void)
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
	if (cudaFuncGetAttributes(&ks_attr, ks_probe_stencil3d7_kernel) != cudaSuccess)
		return 0;
	ks_on = ks_attr.ptxVersion == 90;
	if (ks_dev >= 0)
		__atomic_store_n(&ks_known[ks_dev], ks_on ? 1 : 2,
				 __ATOMIC_RELAXED);
	return ks_on;
}
#line 166 "/tmp/ks-bench/stencil3d7/ks/tasks/_Z17stencil3d7_kernelPKfPfiiiff/r6.variant.cu"
static void
ks_launch_stencil3d7_kernel(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
		const float *in, float *out, int nx, int ny, int nz, float c0, float c1)
{
	const unsigned long long ks_nx = (unsigned long long)grid.x * block.x;
	const unsigned long long ks_ny = (unsigned long long)grid.y * block.y;
	const unsigned long long ks_nz = (unsigned long long)grid.z * block.z;

	/* a grid the threads cannot cover: the original */
	if (!ks_nx || !ks_ny || !ks_nz || ks_nx > 0xffffff00ull ||
	    ks_ny > 65535ull * 8 || ks_nz > 65535ull * 64) {
		stencil3d7_kernel<<<grid, block, shmem, stream>>>(in, out, nx, ny, nz, c0, c1);
		return;
	}
	ks_st_stencil3d7_kernel<<<dim3((unsigned)((ks_nx + 31) / 32), (unsigned)((ks_ny + 7) / 8),
			     (unsigned)((ks_nz + 63) / 64)),
		   dim3(32, 8), 0, stream>>>(grid, block, in, out, nx, ny, nz, c0, c1);
}
#endif
#line 24 "/work/main/bench/stencil3d7/main.cu"
 

int
main(int argc, char **argv)
{
	bench_init("stencil3d7", argc, argv);
	// Small: sides that are not multiples of the 8x8x8 block.
	const int nx = bench_small() ? 19 : 512;
	const int ny = bench_small() ? 13 : 512;
	const int nz = bench_small() ? 11 : 512;
	const float c0 = 0.4f, c1 = 0.1f;
	const size_t n = (size_t)nx * ny * nz;

	std::vector<float> hin(n);
	bench_fill(hin, 711, -1.0f, 1.0f);

	// Points checked: all of them at the small size. At full size, 262144
	// pseudo-random points plus the first two, the middle and the last two
	// z planes, which hold every kind of boundary point and their inner
	// neighbours.
	std::vector<size_t> idx;
	const size_t plane = (size_t)nx * ny;
	if (bench_small()) {
		for (size_t i = 0; i < n; i++)
			idx.push_back(i);
	} else {
		bench_rng pick(712);
		for (int i = 0; i < 262144; i++)
			idx.push_back((size_t)(pick.next() % n));
		const int zs[5] = {0, 1, nz / 2, nz - 2, nz - 1};
		for (int z : zs)
			for (size_t p = 0; p < plane; p++)
				idx.push_back((size_t)z * plane + p);
	}
	std::vector<float> want(idx.size()), got(idx.size());
	for (size_t j = 0; j < idx.size(); j++) {
		const size_t i = idx[j];
		want[j] = (float)stencil3d7_ref_at(hin.data(), nx, ny, nz, c0, c1,
						   (int)(i % nx), (int)(i / nx % ny),
						   (int)(i / plane));
	}

	float *din = bench_to_device(hin);
	float *dout = nullptr;
	BENCH_CK(cudaMalloc(&dout, n * sizeof(float)));
	// All-ones bytes are a NaN: a point the kernel misses fails the check.
	BENCH_CK(cudaMemset(dout, 0xff, n * sizeof(float)));

	const dim3 block(8, 8, 8);
	const dim3 grid((nx + 7) / 8, (ny + 7) / 8, (nz + 7) / 8);
	auto launch = [&]() {
		
#ifdef __CUDA_ARCH__
#line 75 "/work/main/bench/stencil3d7/main.cu"
		stencil3d7_kernel<<<grid, block>>>(din, dout, nx, ny, nz, c0, c1)
#else
#line 75 "/work/main/bench/stencil3d7/main.cu"
		(ks_variant_active_stencil3d7_kernel() ? ks_launch_stencil3d7_kernel(grid, block, 0, cudaStream_t(), din, dout, nx, ny, nz, c0, c1) : (void)(
#line 75 "/work/main/bench/stencil3d7/main.cu"
		stencil3d7_kernel<<<grid, block>>>(din, dout, nx, ny, nz, c0, c1)))
#endif
#line 75 "/work/main/bench/stencil3d7/main.cu"
		                                                                 ;
	};

	// Tolerance: |out| <= 1, a float sum of seven terms rounded a few
	// times (and contracted into FMAs by the compiler): atol 1e-6, rtol
	// 1e-6. A missing or shifted neighbour is off by ~1e-2 or more.
	const double atol = 1e-6, rtol = 1e-6;
	auto check = [&](const char *what) {
		std::vector<float> all = bench_to_host(dout, n);
		for (size_t j = 0; j < idx.size(); j++)
			got[j] = all[idx[j]];
		return bench_check(what, got.data(), want.data(), idx.size(), atol, rtol);
	};

	launch();
	BENCH_CK(cudaGetLastError());
	BENCH_CK(cudaDeviceSynchronize());
	bool ok = check("stencil3d7");

	// Minimum: read in once, write out once. Flops per interior point: 5
	// adds of the neighbours, 2 multiplies, 1 add (boundary points are
	// copies).
	bench_stats st = bench_time(launch);
	const double interior = (double)(nx - 2) * (ny - 2) * (nz - 2);
	bench_report("stencil3d7", "naive", st, 2.0 * sizeof(float) * (double)n, 8.0 * interior);

	ok = check("stencil3d7 after timing") && ok;

	BENCH_CK(cudaFree(din));
	BENCH_CK(cudaFree(dout));
	return bench_finish(ok);
}
