// test_ref.cpp: checks the mean-squared-error reference against values
// worked out by hand, its properties (zero for equal vectors, symmetric,
// invariant to a common shift, the mean and not the sum), and that it
// accumulates in double.
#include "ref.h"
#include "ref_test.h"

int
main()
{
	// pred - target = (1, -2, 3, 0): (1 + 4 + 9 + 0) / 4 = 3.5.
	const float p[4] = {2.0f, 0.0f, 4.5f, -1.0f};
	const float t[4] = {1.0f, 2.0f, 1.5f, -1.0f};
	REF_CHECK_NEAR(mse_ref(p, t, 4), 3.5, 0.0);
	REF_CHECK(mse_ref(p, t, 4) != 14.0); // the sum, not the mean
	REF_CHECK(mse_ref(p, t, 4) != 0.5);  // the mean difference, not squared
	// Symmetric; zero against itself; the first element alone gives 1.
	REF_CHECK_NEAR(mse_ref(t, p, 4), 3.5, 0.0);
	REF_CHECK_NEAR(mse_ref(p, p, 4), 0.0, 0.0);
	REF_CHECK_NEAR(mse_ref(p, t, 1), 1.0, 0.0);

	// A common shift of both vectors changes nothing.
	float ps[4], ts[4];
	for (int i = 0; i < 4; i++) {
		ps[i] = p[i] + 10.0f;
		ts[i] = t[i] + 10.0f;
	}
	REF_CHECK_NEAR(mse_ref(ps, ts, 4), 3.5, 0.0);

	// One difference of 1024 (term 2^20) then 4999 differences of 2^-12
	// (terms 2^-24): a float running sum would round every small term away
	// (2^20 + 2^-24 == 2^20 in float); in double the sum is exact.
	static float a[5000], b[5000];
	for (int i = 0; i < 5000; i++) {
		a[i] = 1.0f + (float)(i % 7);
		b[i] = a[i] + 0.000244140625f; // 2^-12
	}
	a[0] = 0.0f;
	b[0] = 1024.0f;
	const double want = (1048576.0 + 4999.0 * 5.9604644775390625e-08) / 5000.0;
	REF_CHECK_NEAR(mse_ref(a, b, 5000), want, 1e-13);
	REF_CHECK(!(mse_ref(a, b, 5000) - 1048576.0 / 5000.0 < 5e-8));
	REF_TEST_END();
}
