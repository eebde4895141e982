// cmake-app: runs the vecops routines and checks them against the CPU.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <vector>

#include "vecops.h"

static unsigned rng_state = 2024u;

static float
rng_uniform(void)
{
	rng_state = rng_state * 1664525u + 1013904223u;
	return (float)(rng_state >> 8) / (float)(1u << 24); // [0, 1)
}

static int
fail(const char *what, const char *msg)
{
	printf("FAIL: %s: %s\n", what, msg);
	return 1;
}

int
main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1 << 20;
	const float a = 1.5f, b = -0.75f;
	mat_desc d = {300, 517}; // not multiples of the tile size
	char dev[256];
	const char *msg;
	long bad = 0, b_axpby = 0, b_transpose = 0;

	if (n <= 0)
		n = 1 << 20;
	if ((msg = vecops_device_name(dev, sizeof(dev))) != NULL)
		return fail("no usable CUDA device", msg);
	printf("device: %s\n", dev);

	std::vector<float> x(n), y(n), y_ref(n);
	for (int i = 0; i < n; i++) {
		x[i] = rng_uniform() * 2.0f - 1.0f;
		y[i] = rng_uniform();
	}
	for (int i = 0; i < n; i++)
		y_ref[i] = a * x[i] + b * y[i];
	if ((msg = vecops_axpby(n, a, b, x.data(), y.data())) != NULL)
		return fail("axpby", msg);
	for (int i = 0; i < n; i++)
		if (!(fabsf(y[i] - y_ref[i]) <= 1e-6f + 1e-5f * fabsf(y_ref[i])))
			b_axpby++;
	printf("axpby     n=%d: %s\n", n, b_axpby ? "mismatch" : "ok");

	size_t cells = (size_t)d.rows * d.cols;
	std::vector<float> m(cells), t(cells, 0.0f);
	for (size_t i = 0; i < cells; i++)
		m[i] = rng_uniform();
	if ((msg = vecops_transpose(d, m.data(), t.data())) != NULL)
		return fail("transpose", msg);
	for (int r = 0; r < d.rows; r++)
		for (int c = 0; c < d.cols; c++)
			if (t[(size_t)c * d.rows + r] != m[(size_t)r * d.cols + c])
				b_transpose++;
	printf("transpose %dx%d: %s\n", d.rows, d.cols,
	       b_transpose ? "mismatch" : "ok");

	bad = b_axpby + b_transpose;
	printf("%s\n", bad ? "FAIL" : "PASS");
	return bad ? 1 : 0;
}
