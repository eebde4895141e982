/* cuda_emu.h: just enough of CUDA to run a variant file's kernels on the
 * CPU, for checking what a transform emits where there is no GPU. Blocks
 * run one after another, the threads of a block as host threads (a
 * barrier for __syncthreads), so __shared__ is a static. Launches are
 * written ks_emu_cfg(kernel, grid, block[, shmem, stream])(args) (the
 * test rewrites `k<<<...>>>(` into that). C++20, -pthread. */
#pragma once
#include <barrier>
#include <cmath>
#include <cstddef>
#include <thread>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static
#define __align__(n) __attribute__((aligned(n)))
#define __restrict__ __restrict
/* after the standard headers, whose attributes spell __noinline__ */
#define __noinline__ __attribute__((noinline))

struct uint3 {
	unsigned x, y, z;
};
struct dim3 {
	unsigned x, y, z;
	dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
	dim3(uint3 u) : x(u.x), y(u.y), z(u.z) {}
};
struct float2 {
	float x, y;
};
struct float4 {
	float x, y, z, w;
};
typedef void *cudaStream_t;

static inline uint3
make_uint3(unsigned x, unsigned y, unsigned z)
{
	return uint3{ x, y, z };
}

static inline float4
make_float4(float x, float y, float z, float w)
{
	return float4{ x, y, z, w };
}

static thread_local uint3 threadIdx, blockIdx;
static thread_local dim3 blockDim, gridDim;
static std::barrier<> *ks_emu_bar;

static inline void
__syncthreads()
{
	ks_emu_bar->arrive_and_wait();
}

/* A barrier of the thread's warp alone (32 threads in their linear
   order, the last warp of a block those left). */
static thread_local std::barrier<> *ks_emu_wbar;

static inline void
__syncwarp(unsigned = 0xffffffffu)
{
	ks_emu_wbar->arrive_and_wait();
}

template <class T>
static inline T
__ldg(const T *p)
{
	return *p;
}

template <class... P> struct ks_emu_call {
	void (*fn)(P...);
	dim3 g, b;
	template <class... A> void operator()(A... a) const
	{
		const unsigned nt = b.x * b.y * b.z;

		for (unsigned bz = 0; bz < g.z; bz++)
			for (unsigned by = 0; by < g.y; by++)
				for (unsigned bx = 0; bx < g.x; bx++) {
					std::barrier<> bar((std::ptrdiff_t)nt);
					std::vector<std::thread> ts;
					std::vector<std::barrier<> *> wb;

					ks_emu_bar = &bar;
					for (unsigned w = 0; w * 32 < nt; w++)
						wb.push_back(new std::barrier<>(
							(std::ptrdiff_t)(nt - w * 32 < 32 ? nt - w * 32 : 32)));
					for (unsigned t = 0; t < nt; t++)
						ts.emplace_back([&, t]() {
							threadIdx = uint3{ t % b.x, t / b.x % b.y,
									   t / (b.x * b.y) };
							blockIdx = uint3{ bx, by, bz };
							blockDim = b;
							gridDim = g;
							ks_emu_wbar = wb[t / 32];
							fn(a...);
						});
					for (auto &th : ts)
						th.join();
					for (auto *w : wb)
						delete w;
				}
	}
};

template <class... P>
static ks_emu_call<P...>
ks_emu_cfg(void (*fn)(P...), dim3 g, dim3 b, size_t = 0, cudaStream_t = 0)
{
	return ks_emu_call<P...>{ fn, g, b };
}
