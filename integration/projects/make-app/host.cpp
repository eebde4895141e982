// Host side: inputs, CPU references, and the GPU-versus-CPU check.
// Compiled by nvcc as ordinary C++ (no device code here).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "app.h"

static unsigned rng_state = 12345u;

static float
rng_uniform(void)
{
	rng_state = rng_state * 1664525u + 1013904223u;
	return (float)(rng_state >> 8) / (float)(1u << 24); // [0, 1)
}

static void
cpu_saxpy(int n, float a, const float *x, float *y)
{
	for (int i = 0; i < n; i++)
		y[i] = a * x[i] + y[i];
}

static double
cpu_sum(int n, const float *x)
{
	double s = 0.0;

	for (int i = 0; i < n; i++)
		s += x[i];
	return s;
}

static void
cpu_stencil(const grid2d &g, int steps, float *field)
{
	std::vector<float> tmp(field, field + (size_t)g.nx * g.ny);
	float *in = field, *out = tmp.data();

	for (int s = 0; s < steps; s++) {
		for (int y = 0; y < g.ny; y++) {
			for (int x = 0; x < g.nx; x++) {
				int i = y * g.nx + x;
				if (x == 0 || y == 0 || x == g.nx - 1 ||
				    y == g.ny - 1)
					out[i] = in[i];
				else
					out[i] = stencil_point(
						g, in[i], in[i - g.nx],
						in[i + g.nx], in[i - 1],
						in[i + 1]);
			}
		}
		float *t = in;
		in = out;
		out = t;
	}
	if (in != field)
		memcpy(field, in, (size_t)g.nx * g.ny * sizeof(float));
}

// Number of elements where |got - want| > atol + rtol * |want|.
static long
mismatches(const char *what, const float *got, const float *want, size_t n,
	   float atol, float rtol)
{
	long bad = 0;

	for (size_t i = 0; i < n; i++) {
		float tol = atol + rtol * fabsf(want[i]);
		if (!(fabsf(got[i] - want[i]) <= tol)) {
			if (bad < 3)
				fprintf(stderr, "%s[%zu]: gpu %g, cpu %g\n",
					what, i, got[i], want[i]);
			bad++;
		}
	}
	return bad;
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
	const float a = 2.5f;
	grid2d g = {512, 384, 0.5f, 0.125f};
	const int steps = 20;
	char dev[256];
	const char *msg;
	long bad = 0;

	if (n <= 0)
		n = 1 << 20;
	if ((msg = gpu_device_name(dev, sizeof(dev))) != NULL)
		return fail("no usable CUDA device", msg);
	printf("device: %s\n", dev);

	std::vector<float> x(n), y(n), y_ref;
	for (int i = 0; i < n; i++) {
		x[i] = rng_uniform() * 2.0f - 1.0f;
		y[i] = rng_uniform();
	}
	y_ref = y;

	// saxpy
	if ((msg = gpu_saxpy(n, a, x.data(), y.data())) != NULL)
		return fail("saxpy", msg);
	cpu_saxpy(n, a, x.data(), y_ref.data());
	long b = mismatches("saxpy", y.data(), y_ref.data(), n, 1e-6f, 1e-5f);
	printf("saxpy     n=%d: %s\n", n, b ? "mismatch" : "ok");
	bad += b;

	// sum of the saxpy result
	double s_gpu, s_cpu = cpu_sum(n, y_ref.data());
	if ((msg = gpu_sum(n, y_ref.data(), &s_gpu)) != NULL)
		return fail("sum", msg);
	b = fabs(s_gpu - s_cpu) > 1e-4 * fabs(s_cpu) + 1e-3;
	printf("sum       n=%d: gpu %.6f cpu %.6f: %s\n", n, s_gpu, s_cpu,
	       b ? "mismatch" : "ok");
	bad += b;

	// stencil
	size_t cells = (size_t)g.nx * g.ny;
	std::vector<float> f(cells), f_ref;
	for (size_t i = 0; i < cells; i++)
		f[i] = rng_uniform() * 100.0f;
	f_ref = f;
	if ((msg = gpu_stencil(g, steps, f.data())) != NULL)
		return fail("stencil", msg);
	cpu_stencil(g, steps, f_ref.data());
	b = mismatches("stencil", f.data(), f_ref.data(), cells, 1e-4f, 1e-5f);
	printf("stencil   %dx%d, %d steps: %s\n", g.nx, g.ny, steps,
	       b ? "mismatch" : "ok");
	bad += b;

	printf("%s\n", bad ? "FAIL" : "PASS");
	return bad ? 1 : 0;
}
