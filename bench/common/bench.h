// bench.h: what every benchmark program shares.
//
// Each program in bench/<name>/ is a small, correct-first CUDA application:
// it generates its data with a fixed seed, runs its kernels, checks them
// against the CPU reference in its ref.h, and prints, for each timed kernel,
// one machine-readable line:
//
//   KSBENCH {"program":"gemm","kernel":"gemm_naive","role":"naive",
//            "median_ms":1.234,"min_ms":1.2,"max_ms":1.3,"reps":20,
//            "bytes":1.2e9,"flops":3.4e10}
//
// role is "naive" for the program's own kernels and "vendor" for a library
// doing the same job (cuBLAS, CUB) timed in the same run. bytes and flops are
// the minimum the job must move and compute (each input read once, each output
// written once), so that bytes/bandwidth and flops/rate give the floor.
// The last line is "PASS <program>" or "FAIL <program>: <reason>", and the
// exit status is 0 only on PASS.
//
// Sizes: every program runs its full size by default; BENCH_SCALE=small (or
// the argument --small) selects a tiny size for smoke tests.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#define BENCH_CK(call)                                                        \
	do {                                                                  \
		cudaError_t e_ = (call);                                      \
		if (e_ != cudaSuccess) {                                      \
			std::printf("FAIL %s: %s at %s:%d: %s\n", bench_prog, \
				    #call, __FILE__, __LINE__,                \
				    cudaGetErrorString(e_));                  \
			std::exit(1);                                         \
		}                                                             \
	} while (0)

// Set once by bench_init(); used in messages.
static const char *bench_prog = "bench";
static bool bench_small_flag = false;

static inline void
bench_init(const char *prog, int argc, char **argv)
{
	bench_prog = prog;
	const char *s = std::getenv("BENCH_SCALE");
	bench_small_flag = s && !std::strcmp(s, "small");
	for (int i = 1; i < argc; i++)
		if (!std::strcmp(argv[i], "--small"))
			bench_small_flag = true;
}

static inline bool
bench_small(void)
{
	return bench_small_flag;
}

// Deterministic generator (splitmix64), identical on every machine.
struct bench_rng {
	uint64_t s;
	explicit bench_rng(uint64_t seed) : s(seed) {}
	uint64_t next()
	{
		uint64_t z = (s += 0x9e3779b97f4a7c15ull);
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
		return z ^ (z >> 31);
	}
	// Uniform in [lo, hi).
	float uniform(float lo, float hi)
	{
		return lo + (hi - lo) * (float)((next() >> 40) * (1.0 / 16777216.0));
	}
	// Uniform integer in [0, n).
	uint32_t below(uint32_t n) { return (uint32_t)(next() % n); }
};

// Runs fn(lo, hi) over [0, n) split into contiguous chunks, one per
// hardware thread: the CPU references and checks of the full sizes take
// seconds serially, longer than everything the GPU does. Each chunk's
// work is what the serial loop would do for it, so the results are the
// same bit for bit.
template <class F>
static inline void
bench_par(size_t n, F fn, size_t serial_below = (size_t)1 << 16)
{
	unsigned t = std::thread::hardware_concurrency();
	t = t < 1 ? 1 : t > 32 ? 32 : t;
	if (n < serial_below || t == 1) {
		fn((size_t)0, n);
		return;
	}
	std::vector<std::thread> ts;
	size_t step = (n + t - 1) / t;
	for (size_t lo = 0; lo < n; lo += step)
		ts.emplace_back(fn, lo, std::min(n, lo + step));
	for (auto &th : ts)
		th.join();
}

// Element i is the generator's (i + 1)-th value: splitmix64's state after
// k steps is seed + k * gamma, so chunks start where the serial loop would.
static inline void
bench_fill(std::vector<float> &v, uint64_t seed, float lo, float hi)
{
	bench_par(v.size(), [&](size_t a, size_t b) {
		bench_rng r(seed + (uint64_t)a * 0x9e3779b97f4a7c15ull);
		for (size_t i = a; i < b; i++)
			v[i] = r.uniform(lo, hi);
	});
}

// Checks got against ref: |g - r| <= atol + rtol * |r| for every element,
// NaN never passes. Prints the first mismatch; returns true when all match.
static inline bool
bench_check(const char *what, const float *got, const float *ref, size_t n,
	    double atol, double rtol)
{
	const unsigned nt = 64;
	size_t bad_of[nt] = {}, first_of[nt];
	size_t step = (n + nt - 1) / nt;
	for (unsigned c = 0; c < nt; c++)
		first_of[c] = n;
	// Fixed chunks (not one per thread), so the count and the first
	// mismatch do not depend on the machine.
	bench_par(
		nt, [&](size_t c0, size_t c1) {
		for (size_t c = c0; c < c1; c++)
			for (size_t i = c * step; i < n && i < (c + 1) * step; i++) {
				double g = got[i], r = ref[i];
				bool ok = std::isfinite(g) == std::isfinite(r) &&
					  (!std::isfinite(r) ? g == r
							     : std::fabs(g - r) <= atol + rtol * std::fabs(r));
				if (!ok && !bad_of[c]++)
					first_of[c] = i;
			}
		},
		n < ((size_t)1 << 16) ? nt + 1 : 2);
	size_t bad = 0, first = n;
	for (unsigned c = 0; c < nt; c++) {
		bad += bad_of[c];
		first = std::min(first, first_of[c]);
	}
	if (bad)
		std::printf("check %s: %zu of %zu differ; first at %zu: got %.9g, want %.9g\n",
			    what, bad, n, first, (double)got[first], (double)ref[first]);
	return bad == 0;
}

// An L2 flush: writing a buffer larger than the L2 evicts what the timed
// kernel would otherwise find cached from the previous repetition.
struct bench_l2_flush {
	void *p = nullptr;
	size_t n = 0;
	bench_l2_flush()
	{
		int dev = 0, l2 = 0;
		BENCH_CK(cudaGetDevice(&dev));
		BENCH_CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
		n = (size_t)l2 * 2 + (1 << 20);
		BENCH_CK(cudaMalloc(&p, n));
	}
	~bench_l2_flush() { cudaFree(p); }
	void operator()() { BENCH_CK(cudaMemsetAsync(p, 0, n)); }
};

struct bench_stats {
	double median_ms, min_ms, max_ms;
	int reps;
};

// Times `launch` (a callable that enqueues the kernel(s) on stream 0):
// 3 warm-up runs, then repetitions until both at least `min_reps` runs and
// `min_total_ms` of kernel time, each run bracketed by events with the L2
// flushed before it. Checks the launch error after every run.
template <class F>
static bench_stats
bench_time(F launch, int min_reps = 20, double min_total_ms = 200.0)
{
	bench_l2_flush flush;
	cudaEvent_t a, b;
	BENCH_CK(cudaEventCreate(&a));
	BENCH_CK(cudaEventCreate(&b));
	for (int i = 0; i < 3; i++) {
		launch();
		BENCH_CK(cudaGetLastError());
	}
	BENCH_CK(cudaDeviceSynchronize());
	std::vector<double> t;
	double total = 0;
	while ((int)t.size() < min_reps || total < min_total_ms) {
		flush();
		BENCH_CK(cudaEventRecord(a));
		launch();
		BENCH_CK(cudaEventRecord(b));
		BENCH_CK(cudaEventSynchronize(b));
		BENCH_CK(cudaGetLastError());
		float ms = 0;
		BENCH_CK(cudaEventElapsedTime(&ms, a, b));
		t.push_back(ms);
		total += ms;
		if (t.size() >= 10000)
			break;
	}
	cudaEventDestroy(a);
	cudaEventDestroy(b);
	std::sort(t.begin(), t.end());
	bench_stats s;
	s.reps = (int)t.size();
	s.min_ms = t.front();
	s.max_ms = t.back();
	s.median_ms = t.size() % 2 ? t[t.size() / 2]
				   : 0.5 * (t[t.size() / 2 - 1] + t[t.size() / 2]);
	return s;
}

static inline void
bench_report(const char *kernel, const char *role, const bench_stats &s,
	     double bytes, double flops)
{
	std::printf("KSBENCH {\"program\":\"%s\",\"kernel\":\"%s\",\"role\":\"%s\","
		    "\"median_ms\":%.6f,\"min_ms\":%.6f,\"max_ms\":%.6f,\"reps\":%d,"
		    "\"bytes\":%.6g,\"flops\":%.6g}\n",
		    bench_prog, kernel, role, s.median_ms, s.min_ms, s.max_ms, s.reps,
		    bytes, flops);
	std::fflush(stdout);
}

// Prints the closing line; returns the exit status.
static inline int
bench_finish(bool ok, const char *why = "output differs from the CPU reference")
{
	if (ok)
		std::printf("PASS %s\n", bench_prog);
	else
		std::printf("FAIL %s: %s\n", bench_prog, why);
	return ok ? 0 : 1;
}

// Device buffer holding a copy of a host vector.
template <class T>
static T *
bench_to_device(const std::vector<T> &h)
{
	T *d = nullptr;
	BENCH_CK(cudaMalloc(&d, h.size() ? h.size() * sizeof(T) : 1));
	BENCH_CK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
	return d;
}

template <class T>
static std::vector<T>
bench_to_host(const T *d, size_t n)
{
	std::vector<T> h(n);
	BENCH_CK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
	return h;
}
