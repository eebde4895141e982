// rows_check: run a coop_rows variant of one multi-pass row kernel on the
// CPU (rows_emu.h) against the original at one shape and print "ok N rows
// (variant)", "ok N rows (original)" when the launcher fell back, or the
// first output outside the tolerance (sums are reassociated: 1e-4
// relative and absolute for float, as the benchmarks check, 1e-12
// relative for double; indices exact). The variant's
// outputs go to OUT as bytes, for tests/suites/coop_rows.sh to compare
// across the row cache's points. Built with -DKS_K=<kernel>
// -DKS_SIG=<n> (the kernel's parameters, below) and the variant file, its
// launches rewritten to ks_rows_emu_cfg, as variant.inc.
// Usage: rows_check ROWS COLS BLOCK OUT
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "rows_emu.h"
#include "variant.inc"

#define KS_CAT2(a, b) a##b
#define KS_CAT(a, b) KS_CAT2(a, b)

// 1: (const float *x, float *y, int rows, int cols): softmax, log_softmax
// 2: (x, gamma, beta, y, rows, cols, eps): layernorm
// 3: (x, w, y, rows, cols, eps): rmsnorm
// 4: (const double *x, const float *g, double *y, int rows, int n)
// 5: (const float *x, int *idx, float *y, int rows, int cols): arg-max
#if KS_SIG == 1
#define KS_ARGS x, yf, rows, cols
#elif KS_SIG == 2
#define KS_ARGS x, g, b, yf, rows, cols, 1e-5f
#elif KS_SIG == 3
#define KS_ARGS x, g, yf, rows, cols, 1e-6f
#elif KS_SIG == 4
#define KS_ARGS xd, g, yd, rows, cols
#elif KS_SIG == 5
#define KS_ARGS x, ii, yr, rows, cols
#endif

struct outs {
	std::vector<float> yf, yr;
	std::vector<double> yd;
	std::vector<int> ii;
};

static unsigned
rnd(unsigned *s)
{
	*s = *s * 1664525u + 1013904223u;
	return *s >> 8;
}

static int
far(double a, double v, double rtol, double atol)
{
	const double m = std::fabs(a) > std::fabs(v) ? std::fabs(a) : std::fabs(v);

	if (std::isnan(a) || std::isnan(v))
		return std::isnan(a) != std::isnan(v);
	return std::fabs(a - v) > atol + rtol * m;
}

int
main(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr, "usage: rows_check ROWS COLS BLOCK OUT\n");
		return 2;
	}
	const int rows = atoi(argv[1]), cols = atoi(argv[2]);
	const unsigned bs = (unsigned)atoi(argv[3]);
	const size_t n = (size_t)rows * cols;
	std::vector<float> xs(n), gs(cols), bs_(cols);
	std::vector<double> xds(n);
	unsigned s = 4321;

	// eighths in [-4, 4): many equal maxima in a row, for the arg-max
	for (size_t i = 0; i < n; i++) {
		xs[i] = (float)((int)(rnd(&s) % 64) - 32) / 8.0f;
		xds[i] = (double)xs[i] + (double)(rnd(&s) % 1000) * 1e-9;
	}
	for (int j = 0; j < cols; j++) {
		gs[j] = 0.5f + (float)(rnd(&s) % 100) / 100.0f;
		bs_[j] = (float)(rnd(&s) % 100) / 100.0f - 0.5f;
	}
	const float *x = xs.data(), *g = gs.data(), *b = bs_.data();
	const double *xd = xds.data();
	(void)x, (void)g, (void)b, (void)xd;
	const dim3 grid((unsigned)((rows + (int)bs - 1) / (int)bs)), block(bs);
	outs o[2];

	for (int k = 0; k < 2; k++) {
		o[k].yf.assign(n, NAN);
		o[k].yd.assign(n, NAN);
		o[k].yr.assign(rows, NAN);
		o[k].ii.assign(rows, -7);
		float *yf = o[k].yf.data(), *yr = o[k].yr.data();
		double *yd = o[k].yd.data();
		int *ii = o[k].ii.data();
		(void)yf, (void)yr, (void)yd, (void)ii;

		if (k == 0)
			ks_emu_cfg(KS_CAT(ks_rows_orig_, KS_K), grid, block)(KS_ARGS);
		else
			KS_CAT(ks_launch_, KS_K)(grid, block, 0, 0, KS_ARGS);
	}
	const bool variant = ks_rows_launched != (void *)KS_CAT(ks_rows_orig_, KS_K);
	for (size_t i = 0; i < n; i++)
		if (far(o[0].yf[i], o[1].yf[i], 1e-4, 1e-4) ||
		    far(o[0].yd[i], o[1].yd[i], 1e-12, 1e-14)) {
			printf("mismatch at row %zu, element %zu: original %.17g, "
			       "variant %.17g\n", i / cols, i % cols,
			       KS_SIG == 4 ? o[0].yd[i] : (double)o[0].yf[i],
			       KS_SIG == 4 ? o[1].yd[i] : (double)o[1].yf[i]);
			return 1;
		}
	for (int r = 0; r < rows; r++)
		if (o[0].ii[r] != o[1].ii[r] || far(o[0].yr[r], o[1].yr[r], 1e-4, 1e-4)) {
			printf("mismatch at row %d: original %d %.9g, variant %d %.9g\n",
			       r, o[0].ii[r], (double)o[0].yr[r], o[1].ii[r],
			       (double)o[1].yr[r]);
			return 1;
		}
	FILE *f = fopen(argv[4], "wb");
	if (!f || fwrite(o[1].yf.data(), sizeof(float), n, f) != n ||
	    fwrite(o[1].yd.data(), sizeof(double), n, f) != n ||
	    fwrite(o[1].yr.data(), sizeof(float), rows, f) != (size_t)rows ||
	    fwrite(o[1].ii.data(), sizeof(int), rows, f) != (size_t)rows ||
	    fclose(f)) {
		perror(argv[4]);
		return 2;
	}
	printf("ok %d rows (%s)\n", rows, variant ? "variant" : "original");
	return 0;
}
