// test_ref.cpp: checks the softplus reference against known values, the
// identity softplus(x) - softplus(-x) = x, and the threshold.
#include "ref.h"
#include "ref_test.h"

int
main()
{
	REF_CHECK_NEAR(softplus_ref(0.0), 0.6931471805599453, 1e-15); // ln 2
	REF_CHECK_NEAR(softplus_ref(1.0), 1.3132616875182228, 1e-14);
	REF_CHECK_NEAR(softplus_ref(-1.0), 0.31326168751822286, 1e-14);
	REF_CHECK_NEAR(softplus_ref(5.0), 5.006715348489118, 1e-13);
	// ln 3: log(1 + 2) when exp(x) = 2.
	REF_CHECK_NEAR(softplus_ref(std::log(2.0)), std::log(3.0), 1e-15);
	// Tiny for very negative x, but positive (log1p keeps it accurate).
	REF_CHECK_NEAR(softplus_ref(-30.0), 9.357622968839737e-14, 1e-26);
	REF_CHECK(softplus_ref(-30.0) > 0.0);
	for (double x = -15.0; x <= 15.0; x += 0.53)
		REF_CHECK_NEAR(softplus_ref(x) - softplus_ref(-x), x, 1e-12);
	// Threshold: above 20 the input passes through exactly; at 20 the
	// formula is still used (PyTorch's test is x > threshold).
	REF_CHECK(softplus_ref(20.5) == 20.5);
	REF_CHECK(softplus_ref(25.0) == 25.0);
	REF_CHECK(softplus_ref(20.0) != 20.0);
	REF_CHECK_NEAR(softplus_ref(20.0), 20.000000002061153, 1e-12);
	// Negative check: not the identity below the threshold.
	REF_CHECK(std::fabs(softplus_ref(1.0) - 1.0) > 0.3);

	const float x[3] = {-1.0f, 0.0f, 21.0f};
	float y[3];
	softplus_ref_array(x, y, 3);
	REF_CHECK_NEAR(y[0], 0.31326168751822286, 1e-7);
	REF_CHECK_NEAR(y[1], 0.6931471805599453, 1e-7);
	REF_CHECK_NEAR(y[2], 21.0, 0.0);
	REF_TEST_END();
}
