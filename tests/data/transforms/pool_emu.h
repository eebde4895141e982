/* pool_emu.h: what pool_window_rows variants use of CUDA beyond
 * cuda_emu.h (vector types of four and two ints, __umulhi), for running
 * them on the CPU. C++20, -pthread. */
#pragma once
#include <cstdint>
#include <cstring>

#include "cuda_emu.h"

struct uint4 {
	unsigned x, y, z, w;
};
struct int4 {
	int x, y, z, w;
};
struct int2 {
	int x, y;
};

static inline uint4
make_uint4(unsigned x, unsigned y, unsigned z, unsigned w)
{
	return uint4{ x, y, z, w };
}

static inline unsigned
__umulhi(unsigned a, unsigned b)
{
	return (unsigned)(((unsigned long long)a * b) >> 32);
}

/* The kernel the last launch through ks_pl_emu_cfg ran: the check tells
 * the variant's kernel from the original's fallback. */
static void *ks_pl_launched;

template <class... P>
static ks_emu_call<P...>
ks_pl_emu_cfg(void (*fn)(P...), dim3 g, dim3 b, size_t sh = 0, cudaStream_t st = 0)
{
	ks_pl_launched = (void *)fn;
	return ks_emu_cfg(fn, g, b, sh, st);
}
