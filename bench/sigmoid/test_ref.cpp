// test_ref.cpp: checks the sigmoid reference against known values and its
// symmetry sigmoid(x) + sigmoid(-x) = 1.
#include "ref.h"
#include "ref_test.h"

int
main()
{
	REF_CHECK_NEAR(sigmoid_ref(0.0), 0.5, 0.0);
	REF_CHECK_NEAR(sigmoid_ref(2.0), 0.8807970779778823, 1e-14);
	REF_CHECK_NEAR(sigmoid_ref(-2.0), 0.11920292202211755, 1e-14);
	REF_CHECK_NEAR(sigmoid_ref(5.0), 0.9933071490757153, 1e-14);
	REF_CHECK_NEAR(sigmoid_ref(-10.0), 4.5397868702434395e-05, 1e-17);
	// ln 3: 1 / (1 + 1/3) = 3/4 exactly.
	REF_CHECK_NEAR(sigmoid_ref(std::log(3.0)), 0.75, 1e-15);
	for (double x = -12.0; x <= 12.0; x += 0.71)
		REF_CHECK_NEAR(sigmoid_ref(x) + sigmoid_ref(-x), 1.0, 1e-14);
	// Negative checks: strictly inside (0, 1), increasing, not tanh.
	REF_CHECK(sigmoid_ref(-30.0) > 0.0);
	REF_CHECK(sigmoid_ref(1.0) < sigmoid_ref(1.1));
	REF_CHECK(std::fabs(sigmoid_ref(1.0) - std::tanh(1.0)) > 0.01);

	const float x[3] = {-2.0f, 0.0f, 2.0f};
	float y[3];
	sigmoid_ref_array(x, y, 3);
	REF_CHECK_NEAR(y[0], 0.11920292202211755, 1e-8);
	REF_CHECK_NEAR(y[1], 0.5, 0.0);
	REF_CHECK_NEAR(y[2], 0.8807970779778823, 1e-7);
	REF_TEST_END();
}
