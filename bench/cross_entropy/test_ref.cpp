// test_ref.cpp: checks the cross-entropy reference against losses worked
// out by hand (uniform logits give log(cols)), an independent formulation
// (-log of the softmax probability of the target), and its properties:
// large logits do not overflow, the loss is lowest for the most likely
// class, and the batch loss is the mean, not the sum.
#include "ref.h"
#include "ref_test.h"

int
main()
{
	// Row 0: uniform logits, any target: log 3. Row 1: logits 1, 2, 3,
	// target 2: log(e^1 + e^2 + e^3) - 3 = log(1 + e^-1 + e^-2).
	const float x[6] = {0.0f, 0.0f, 0.0f, 1.0f, 2.0f, 3.0f};
	const int tgt[2] = {1, 2};
	const double l0 = 1.0986122886681098, l1 = 0.40760596444438013;
	REF_CHECK_NEAR(cross_entropy_row_ref(x, 1, 3), l0, 1e-12);
	REF_CHECK_NEAR(cross_entropy_row_ref(x + 3, 2, 3), l1, 1e-12);
	REF_CHECK_NEAR(cross_entropy_ref(x, tgt, 2, 3), (l0 + l1) / 2, 1e-12);
	REF_CHECK(std::fabs(cross_entropy_ref(x, tgt, 2, 3) - (l0 + l1)) > 0.1);

	// Independent formulation: -log(softmax(x)[t]) for every target of
	// row 1; target 2 (the largest logit) has the smallest loss.
	double e[3], z = 0.0;
	for (int c = 0; c < 3; c++) {
		e[c] = std::exp((double)x[3 + c]);
		z += e[c];
	}
	for (int t = 0; t < 3; t++)
		REF_CHECK_NEAR(cross_entropy_row_ref(x + 3, t, 3), -std::log(e[t] / z), 1e-12);
	REF_CHECK(cross_entropy_row_ref(x + 3, 2, 3) < cross_entropy_row_ref(x + 3, 1, 3));
	REF_CHECK(cross_entropy_row_ref(x + 3, 1, 3) < cross_entropy_row_ref(x + 3, 0, 3));

	// Shifted by 1000: exp(1003) overflows a double unless the max is
	// subtracted; the loss is unchanged.
	const float xs[3] = {1001.0f, 1002.0f, 1003.0f};
	REF_CHECK_NEAR(cross_entropy_row_ref(xs, 2, 3), l1, 1e-12);

	// One class: loss 0 whatever the logit.
	const float x1[1] = {-7.5f};
	REF_CHECK_NEAR(cross_entropy_row_ref(x1, 0, 1), 0.0, 0.0);
	REF_TEST_END();
}
