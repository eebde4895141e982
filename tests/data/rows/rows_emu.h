/* rows_emu.h: what coop_rows variants use of CUDA beyond
 * tests/data/transforms/cuda_emu.h (the warp's butterfly shuffle), for
 * running them on the CPU. A warp's 32 threads exchange through one slot
 * each and the warp's barrier. C++20, -pthread. */
#pragma once
#include <cstring>

#include "cuda_emu.h"

/* One slot a thread of the block (blocks run one after another). */
static unsigned char ks_rows_slot[1024][16];

/* The kernel the last launch through ks_rows_emu_cfg ran: the check tells
 * the variant's kernel from the original's fallback. */
static void *ks_rows_launched;

template <class T>
static inline T
__shfl_xor_sync(unsigned, T v, int o)
{
	static_assert(sizeof(T) <= sizeof(ks_rows_slot[0]), "a wider value");
	const unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
	const unsigned from = (t & ~31u) | ((t & 31u) ^ (unsigned)o);
	T r;

	memcpy(ks_rows_slot[t], &v, sizeof(T));
	__syncwarp();
	memcpy(&r, ks_rows_slot[from], sizeof(T));
	__syncwarp();
	return r;
}

template <class... P>
static ks_emu_call<P...>
ks_rows_emu_cfg(void (*fn)(P...), dim3 g, dim3 b, size_t sh = 0, cudaStream_t st = 0)
{
	ks_rows_launched = (void *)fn;
	return ks_emu_cfg(fn, g, b, sh, st);
}
