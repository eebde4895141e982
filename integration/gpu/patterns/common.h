// common.h: the check macro of the pattern programs.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CK(call)                                                            \
	do {                                                                \
		cudaError_t e_ = (call);                                    \
		if (e_ != cudaSuccess) {                                    \
			std::printf("FAIL %s: %s\n", #call, cudaGetErrorString(e_)); \
			std::exit(1);                                       \
		}                                                           \
	} while (0)
