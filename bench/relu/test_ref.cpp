// test_ref.cpp: checks the relu reference against values worked out by hand.
#include "ref.h"
#include "ref_test.h"

int
main()
{
	const float x[6] = {-2.0f, -0.5f, 0.0f, 0.25f, 3.0f, -1e-30f};
	const float want[6] = {0.0f, 0.0f, 0.0f, 0.25f, 3.0f, 0.0f};
	float y[6] = {9, 9, 9, 9, 9, 9};
	relu_ref_array(x, y, 6);
	for (int i = 0; i < 6; i++)
		REF_CHECK_NEAR(y[i], want[i], 0.0);
	// Negative checks: positives pass through unchanged, negatives do not.
	REF_CHECK(relu_ref(3.0) != 0.0);
	REF_CHECK(relu_ref(-3.0) != -3.0);
	REF_CHECK(relu_ref(-3.0) >= 0.0);
	// Only the first n elements are written.
	float z[3] = {7.0f, 7.0f, 7.0f};
	relu_ref_array(x, z, 2);
	REF_CHECK(z[2] == 7.0f);
	REF_TEST_END();
}
