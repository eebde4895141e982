// A user header (guarded) whose first lines include system headers:
// the PCH holds them, as it holds the main file's leading includes.
#ifndef HOIST_COMMON_H
#define HOIST_COMMON_H
#include <cstdint>
#pragma once
#include <thrust/device_vector.h>
#include <thrust/sort.h>

#ifdef HOIST_TRACE
#define TRACE(x) printf("%d\n", (x))
#else
#define TRACE(x) ((void)0)
#endif

struct pair_t {
	int32_t a, b;
};
#endif
