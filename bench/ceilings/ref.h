// ref.h: accounting for the ceilings program (and the floors derived from
// it), plus the CPU reference for checking a sample of its SGEMM.
//
// The two ceilings are measured rates: the bandwidth of a large
// device-to-device copy (bytes = those read plus those written) and the
// FLOP rate of a large SGEMM (2 * M * N * K: a multiply-add counts 2). A
// kernel's floor is the longer of its minimum bytes at the copy bandwidth
// and its minimum FLOPs at the SGEMM rate.
#pragma once

#include <cstddef>
#include <vector>

// Bytes a copy of n_bytes moves: each byte read once and written once.
static inline double
copy_bytes(size_t n_bytes)
{
	return 2.0 * (double)n_bytes;
}

// FLOPs of an M x K by K x N product.
static inline double
gemm_flops(size_t M, size_t N, size_t K)
{
	return 2.0 * (double)M * (double)N * (double)K;
}

// Minimum bytes of that product: A and B read once, C written once.
static inline double
gemm_bytes(size_t M, size_t N, size_t K, size_t elem_size)
{
	return (double)elem_size * ((double)M * K + (double)K * N + (double)M * N);
}

// A rate (per second) from an amount done in ms milliseconds.
static inline double
rate_per_s(double amount, double ms)
{
	return amount / (ms * 1e-3);
}

// The floor in milliseconds at bandwidth bw (bytes/s) and rate (FLOP/s).
static inline double
floor_ms(double bytes, double flops, double bw, double rate)
{
	const double tb = bytes / bw, tf = flops / rate;
	return 1e3 * (tb > tf ? tb : tf);
}

// One element of C = A * B (row-major; A is M x K, B is K x N), in double.
static inline double
gemm_ref_elem(const float *A, const float *B, size_t N, size_t K, size_t i,
	      size_t j)
{
	double s = 0.0;
	for (size_t k = 0; k < K; k++)
		s += (double)A[i * K + k] * (double)B[k * N + j];
	return s;
}

// A deterministic sample of about `count` indices spread over [0, n): one in
// each of `count` equal stripes, at an offset that moves from stripe to
// stripe, plus the last index. Every index when n <= count. Increasing, no
// repeats.
static inline std::vector<size_t>
gemm_ref_sample(size_t n, size_t count)
{
	std::vector<size_t> idx;
	if (n <= count) {
		for (size_t i = 0; i < n; i++)
			idx.push_back(i);
		return idx;
	}
	const size_t stripe = n / count;
	for (size_t s = 0; s < count; s++)
		idx.push_back(s * stripe + (s * 2654435761u) % stripe);
	if (idx.back() != n - 1)
		idx.push_back(n - 1);
	return idx;
}
