// cmake-app-rdc: evaluates a polynomial on the GPU and checks it on the CPU.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <vector>

#include "poly.h"

int
main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1 << 18;
	poly p = {5, {0.5f, -1.0f, 0.25f, 2.0f, -0.5f, 0.125f}};
	char dev[256];
	const char *msg;
	long bad = 0;

	if (n <= 0)
		n = 1 << 18;
	if ((msg = poly_device_name(dev, sizeof(dev))) != NULL) {
		printf("FAIL: no usable CUDA device: %s\n", msg);
		return 1;
	}
	printf("device: %s\n", dev);

	std::vector<float> x(n), y(n);
	for (int i = 0; i < n; i++)
		x[i] = -2.0f + 4.0f * (float)i / (float)n;
	if ((msg = poly_apply_gpu(p, n, x.data(), y.data())) != NULL) {
		printf("FAIL: poly_apply: %s\n", msg);
		return 1;
	}
	for (int i = 0; i < n; i++) {
		double want = 0.0, xi = x[i];
		for (int k = p.degree; k >= 0; k--)
			want = want * xi + p.c[k];
		if (!(fabs(y[i] - want) <= 1e-4 + 1e-5 * fabs(want))) {
			if (bad < 3)
				fprintf(stderr, "y[%d]: gpu %g, cpu %g\n", i,
					y[i], want);
			bad++;
		}
	}
	printf("poly      n=%d, degree %d: %s\n", n, p.degree,
	       bad ? "mismatch" : "ok");
	printf("%s\n", bad ? "FAIL" : "PASS");
	return bad ? 1 : 0;
}
