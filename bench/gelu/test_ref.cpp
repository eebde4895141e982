// test_ref.cpp: checks the GELU (erf form) reference against known values,
// its symmetry, and that it is not the tanh approximation.
#include "ref.h"
#include "ref_test.h"

static double
gelu_tanh(double x)
{
	const double k = std::sqrt(2.0 / M_PI);
	return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
}

int
main()
{
	// x * Phi(x), Phi the standard normal CDF: Phi(1) = 0.841344746...
	REF_CHECK_NEAR(gelu_ref(0.0), 0.0, 0.0);
	REF_CHECK_NEAR(gelu_ref(1.0), 0.8413447460685429, 1e-12);
	REF_CHECK_NEAR(gelu_ref(-1.0), -0.15865525393145707, 1e-12);
	REF_CHECK_NEAR(gelu_ref(2.0), 1.9544997361036416, 1e-12);
	REF_CHECK_NEAR(gelu_ref(-3.0), -0.00404969409489031, 1e-12);
	REF_CHECK_NEAR(gelu_ref(0.5), 0.34573123063700656, 1e-12);
	// gelu(x) - gelu(-x) = x.
	for (double x = -5.0; x <= 5.0; x += 0.37)
		REF_CHECK_NEAR(gelu_ref(x) - gelu_ref(-x), x, 1e-12);
	// Large inputs: identity on the right, zero on the left.
	REF_CHECK_NEAR(gelu_ref(10.0), 10.0, 1e-12);
	REF_CHECK_NEAR(gelu_ref(-10.0), 0.0, 1e-12);
	// Negative check: the tanh approximation differs by ~1.5e-4 at x = 1,
	// far beyond the kernel's tolerance, so it would be caught.
	REF_CHECK(std::fabs(gelu_ref(1.0) - gelu_tanh(1.0)) > 1e-4);
	REF_CHECK(std::fabs(gelu_ref(1.0) - 1.0) > 0.1);

	const float x[4] = {-1.0f, 0.0f, 1.0f, 2.0f};
	float y[4];
	gelu_ref_array(x, y, 4);
	REF_CHECK_NEAR(y[0], -0.15865525393145707, 1e-7);
	REF_CHECK_NEAR(y[1], 0.0, 0.0);
	REF_CHECK_NEAR(y[2], 0.8413447460685429, 1e-7);
	REF_CHECK_NEAR(y[3], 1.9544997361036416, 1e-7);
	REF_TEST_END();
}
