// ref_test.h: checks for the CPU references of the benchmark programs.
//
// Each bench/<name>/test_ref.cpp includes its ref.h and this header, runs the
// reference at a small size against values worked out by hand or by an
// independent formulation, and ends with REF_TEST_END(). It is plain C++
// (no CUDA), built with the host compiler, so CI runs it without a GPU.
#pragma once

#include <cmath>
#include <cstdio>

static int ref_test_failures = 0;
static int ref_test_checks = 0;

#define REF_CHECK(cond)                                                        \
	do {                                                                   \
		ref_test_checks++;                                             \
		if (!(cond)) {                                                 \
			std::printf("FAIL %s:%d: %s\n", __FILE__, __LINE__,    \
				    #cond);                                    \
			ref_test_failures++;                                   \
		}                                                              \
	} while (0)

#define REF_CHECK_NEAR(got, want, tol)                                         \
	do {                                                                   \
		double g_ = (double)(got), w_ = (double)(want);                \
		ref_test_checks++;                                             \
		if (!(std::fabs(g_ - w_) <= (tol))) {                          \
			std::printf("FAIL %s:%d: %s = %.9g, want %.9g\n",      \
				    __FILE__, __LINE__, #got, g_, w_);         \
			ref_test_failures++;                                   \
		}                                                              \
	} while (0)

#define REF_TEST_END()                                                         \
	do {                                                                   \
		std::printf("%s: %d checks, %d failed\n", __FILE__,            \
			    ref_test_checks, ref_test_failures);               \
		return ref_test_failures ? 1 : 0;                              \
	} while (0)
