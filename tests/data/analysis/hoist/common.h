// A user header (guarded) that declares, then includes system headers:
// the PCH holds them, hoisted ahead of this text.
#ifndef HOIST_COMMON_H
#define HOIST_COMMON_H
#include <cstdint>

struct pair_t {
	int32_t a, b;
};

#include <thrust/device_vector.h>
#include <thrust/sort.h>

#ifdef HOIST_TRACE
#define TRACE(x) printf("%d\n", (x))
#else
#define TRACE(x) ((void)0)
#endif
#endif
