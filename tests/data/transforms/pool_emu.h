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
