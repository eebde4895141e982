/* cuda_emu.h: just enough of CUDA to run a variant file's kernels on the
 * CPU, for checking what a transform emits where there is no GPU. Blocks
 * run one after another; the threads of a block are fibers (ucontext) on
 * the one host thread, switched only at __syncthreads and __syncwarp, so a
 * launch starts no host thread and a barrier costs a context switch, not a
 * wake-up of every thread. __shared__ is a static. Fibers run in thread
 * order and then in reverse order, turn by turn, so a read of shared data
 * that a missing barrier leaves unordered sees the wrong value one way or
 * the other. Threads that wait at different barriers, or a barrier some
 * thread of the block (or warp) has left the kernel before, end the program
 * with a message (on a GPU: a hang or undefined behaviour). Launches are
 * written ks_emu_cfg(kernel, grid, block[, shmem, stream])(args) (the test
 * rewrites `k<<<...>>>(` into that). C++20 (-pthread is harmless). */
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <ucontext.h>
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

/* One thread of the block being run. */
struct ks_emu_fiber {
	ucontext_t ctx;
	uint3 tid;
	int state;	/* KS_EMU_RUN, _BLOCK, _WARP (waiting there) or _DONE */
};
enum { KS_EMU_RUN, KS_EMU_BLOCK, KS_EMU_WARP, KS_EMU_DONE };

/* The fiber running now, and its threadIdx, set by the scheduler before
 * each switch into it. External linkage: the compiler reads them again
 * after a switch, which it cannot see into. */
inline ks_emu_fiber *ks_emu_cur;
inline uint3 threadIdx, blockIdx;
inline dim3 blockDim, gridDim;
inline ucontext_t ks_emu_sched;
inline void (*ks_emu_body)(void *);
inline void *ks_emu_body_arg;

static inline void
ks_emu_wait(int why)
{
	ks_emu_cur->state = why;
	swapcontext(&ks_emu_cur->ctx, &ks_emu_sched);
}

static inline void
__syncthreads()
{
	ks_emu_wait(KS_EMU_BLOCK);
}

/* A barrier of the thread's warp alone (32 threads in their linear
   order, the last warp of a block those left). */
static inline void
__syncwarp(unsigned = 0xffffffffu)
{
	ks_emu_wait(KS_EMU_WARP);
}

static void
ks_emu_start()
{
	ks_emu_body(ks_emu_body_arg);
	ks_emu_cur->state = KS_EMU_DONE;
	/* returning resumes uc_link, the scheduler */
}

/* Runs one block's nt fibers (their stacks given) until all are done. */
static void
ks_emu_block(std::vector<ks_emu_fiber> &f, char *stacks, size_t ssize, dim3 b)
{
	const unsigned nt = (unsigned)f.size();
	bool back = false;

	for (unsigned t = 0; t < nt; t++) {
		getcontext(&f[t].ctx);
		f[t].ctx.uc_stack.ss_sp = stacks + (size_t)t * ssize;
		f[t].ctx.uc_stack.ss_size = ssize;
		f[t].ctx.uc_link = &ks_emu_sched;
		makecontext(&f[t].ctx, ks_emu_start, 0);
		f[t].tid = uint3{ t % b.x, t / b.x % b.y, t / (b.x * b.y) };
		f[t].state = KS_EMU_RUN;
	}
	for (;;) {
		for (unsigned i = 0; i < nt; i++) {
			const unsigned t = back ? nt - 1 - i : i;

			if (f[t].state != KS_EMU_RUN)
				continue;
			ks_emu_cur = &f[t];
			threadIdx = f[t].tid;
			swapcontext(&ks_emu_sched, &f[t].ctx);
		}
		back = !back;
		unsigned done = 0, at_block = 0, released = 0;
		for (unsigned t = 0; t < nt; t++) {
			done += f[t].state == KS_EMU_DONE;
			at_block += f[t].state == KS_EMU_BLOCK;
		}
		if (done == nt)
			return;
		if (at_block == nt) {
			for (auto &x : f)
				x.state = KS_EMU_RUN;
			continue;
		}
		for (unsigned w = 0; w * 32 < nt; w++) {
			const unsigned end = w * 32 + 32 < nt ? w * 32 + 32 : nt;
			unsigned t = w * 32;

			while (t < end && f[t].state == KS_EMU_WARP)
				t++;
			if (t < end)
				continue;
			for (t = w * 32; t < end; t++)
				f[t].state = KS_EMU_RUN;
			released++;
		}
		if (!released) {
			fprintf(stderr, "cuda_emu: block (%u,%u,%u) of %u threads: %u have "
				"left the kernel, %u wait at __syncthreads, %u at "
				"__syncwarp; no barrier can complete\n",
				blockIdx.x, blockIdx.y, blockIdx.z, nt, done, at_block,
				nt - done - at_block);
			abort();
		}
	}
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
		const size_t ssize = 64 << 10;
		std::vector<ks_emu_fiber> f(nt);
		std::unique_ptr<char[]> stacks(new char[ssize * nt]);
		auto body = [&]() { fn(a...); };

		ks_emu_body = [](void *p) { (*(decltype(body) *)p)(); };
		ks_emu_body_arg = &body;
		blockDim = b;
		gridDim = g;
		for (unsigned bz = 0; bz < g.z; bz++)
			for (unsigned by = 0; by < g.y; by++)
				for (unsigned bx = 0; bx < g.x; bx++) {
					blockIdx = uint3{ bx, by, bz };
					ks_emu_block(f, stacks.get(), ssize, b);
				}
	}
};

template <class... P>
static ks_emu_call<P...>
ks_emu_cfg(void (*fn)(P...), dim3 g, dim3 b, size_t = 0, cudaStream_t = 0)
{
	return ks_emu_call<P...>{ fn, g, b };
}
