// test_ref.cpp: checks the byte, FLOP, rate and floor accounting of the
// ceilings program, and its SGEMM sample reference, against values worked
// out by hand.
#include "ref.h"
#include "ref_test.h"

int
main()
{
	// A 2 GiB copy moves 4 GiB.
	REF_CHECK_NEAR(copy_bytes((size_t)1 << 31), 4294967296.0, 0.0);
	REF_CHECK(copy_bytes(100) != 100.0);
	// 8192^3: 2 * 2^39 = 1.099511627776e12 FLOPs; 3 * 2^26 floats.
	REF_CHECK_NEAR(gemm_flops(8192, 8192, 8192), 1099511627776.0, 0.0);
	REF_CHECK_NEAR(gemm_bytes(8192, 8192, 8192, 4), 805306368.0, 0.0);
	// 2x3 by 3x4: 2 * 24 = 48 FLOPs; (6 + 12 + 8) * 4 = 104 bytes, twice
	// that in doubles; 1x1 by 1x5: (1 + 5 + 5) * 4 = 44 bytes.
	REF_CHECK_NEAR(gemm_flops(2, 4, 3), 48.0, 0.0);
	REF_CHECK_NEAR(gemm_bytes(2, 4, 3, 4), 104.0, 0.0);
	REF_CHECK_NEAR(gemm_bytes(2, 4, 3, 8), 208.0, 0.0);
	REF_CHECK_NEAR(gemm_bytes(1, 5, 1, 4), 44.0, 0.0);
	REF_CHECK(gemm_flops(2, 4, 3) != 24.0);
	// 4e9 bytes in 1 ms is 4e12 B/s; 1.1e12 FLOPs in 22 ms is 5e13 FLOP/s.
	REF_CHECK_NEAR(rate_per_s(4e9, 1.0), 4e12, 1.0);
	REF_CHECK_NEAR(rate_per_s(1.1e12, 22.0), 5e13, 1e3);
	// Floors at 4e12 B/s and 5e13 FLOP/s: 4e9 bytes take 1 ms; 1e11 FLOPs
	// 2 ms; the floor is the longer of the two, not their sum.
	REF_CHECK_NEAR(floor_ms(4e9, 0.0, 4e12, 5e13), 1.0, 1e-12);
	REF_CHECK_NEAR(floor_ms(0.0, 1e11, 4e12, 5e13), 2.0, 1e-12);
	REF_CHECK_NEAR(floor_ms(4e9, 1e11, 4e12, 5e13), 2.0, 1e-12);
	REF_CHECK_NEAR(floor_ms(8e9, 1e11, 4e12, 5e13), 2.0, 1e-12);
	REF_CHECK_NEAR(floor_ms(1.2e10, 1e11, 4e12, 5e13), 3.0, 1e-12);
	// The square GEMM of the suite: 4096^3 is compute-bound at 2.749 ms.
	REF_CHECK_NEAR(floor_ms(gemm_bytes(4096, 4096, 4096, 4),
				gemm_flops(4096, 4096, 4096), 4e12, 5e13),
		       2.74877906944, 1e-9);

	// [1 2 3; 4 5 6] * [7 8; 9 10; 11 12] = [58 64; 139 154].
	const float A[6] = {1, 2, 3, 4, 5, 6};
	const float B[6] = {7, 8, 9, 10, 11, 12};
	REF_CHECK_NEAR(gemm_ref_elem(A, B, 2, 3, 0, 0), 58.0, 0.0);
	REF_CHECK_NEAR(gemm_ref_elem(A, B, 2, 3, 0, 1), 64.0, 0.0);
	REF_CHECK_NEAR(gemm_ref_elem(A, B, 2, 3, 1, 0), 139.0, 0.0);
	REF_CHECK_NEAR(gemm_ref_elem(A, B, 2, 3, 1, 1), 154.0, 0.0);

	// The sample: all indices when small, else spread and in range.
	std::vector<size_t> all = gemm_ref_sample(5, 8);
	REF_CHECK(all.size() == 5 && all.back() == 4);
	const size_t n = (size_t)8192 * 8192;
	std::vector<size_t> s = gemm_ref_sample(n, 4096);
	REF_CHECK(s.front() == 0 && s.back() == n - 1);
	bool increasing = true;
	for (size_t q = 1; q < s.size(); q++)
		increasing = increasing && s[q] > s[q - 1] && s[q] < n;
	REF_CHECK(increasing);
	REF_TEST_END();
}
