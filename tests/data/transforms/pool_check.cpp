// pool_check: run a pool_window_rows variant of one pooling kernel on the
// CPU (pool_emu.h) against the original at one shape and print "ok N
// outputs (variant)", "ok N outputs (original)" when the launcher fell
// back, or the first mismatch; outputs must be bitwise equal (the variant
// runs the kernel's own arithmetic). Built by tests/suites/xf_pool.sh
// with -DKS_K=<kernel> and the variant file, its launches rewritten to
// ks_pl_emu_cfg (pool_emu.h), as variant.inc. The kernel's parameters are
// (x, y, n, c, h, w, ho, wo, k, s, p) unless -DKS_ARGS says otherwise.
// Usage: pool_check N C H W K S P [block [offset]]: block is the
// original's launch block (256), offset the elements x and y start after
// an aligned address (a misaligned start takes the scalar paths).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "pool_emu.h"
#include "variant.inc"

#define KS_CAT2(a, b) a##b
#define KS_CAT(a, b) KS_CAT2(a, b)
#ifndef KS_ARGS
#define KS_ARGS x, y, N, C, H, W, Ho, Wo, K, S, P
#endif

static float
rnd(unsigned *s)
{
	*s = *s * 1664525u + 1013904223u;
	return (float)((*s >> 8) & 0xffff) / 32768.0f - 1.0f;
}

int
main(int argc, char **argv)
{
	if (argc < 8) {
		fprintf(stderr, "usage: pool_check N C H W K S P [block [offset]]\n");
		return 2;
	}
	const int N = atoi(argv[1]), C = atoi(argv[2]), H = atoi(argv[3]);
	const int W = atoi(argv[4]), K = atoi(argv[5]), S = atoi(argv[6]);
	const int P = atoi(argv[7]);
	const unsigned bs = argc > 8 ? (unsigned)atoi(argv[8]) : 256u;
	const size_t off = argc > 9 ? (size_t)atoi(argv[9]) : 0;
	const int Ho = (H + 2 * P - K) / S + 1, Wo = (W + 2 * P - K) / S + 1;
	const size_t nx = (size_t)N * C * H * W, ny = (size_t)N * C * Ho * Wo;
	/* exactly nx elements after `off`: a read past the end is caught by
	   -fsanitize=address when the check is built with it */
	std::vector<float> xs(nx + off), y0s(ny + off), y1s(ny + off);
	unsigned s = 12345;

	for (auto &v : xs)
		v = rnd(&s);
	for (size_t i = 0; i < ny + off; i++)
		y0s[i] = y1s[i] = NAN;
	const dim3 grid((unsigned)((ny + bs - 1) / bs)), block(bs);
	{
		const float *x = xs.data() + off;
		float *y = y0s.data() + off;

		ks_emu_cfg(KS_K, grid, block)(KS_ARGS);
	}
	{
		const float *x = xs.data() + off;
		float *y = y1s.data() + off;

		KS_CAT(ks_launch_, KS_K)(grid, block, 0, 0, KS_ARGS);
	}
	const bool variant = ks_pl_launched != (void *)KS_K;
	for (size_t i = 0; i < ny + off; i++) {
		const float a = y0s[i], v = y1s[i];

		if (std::isnan(a) && std::isnan(v))
			continue;
		if (memcmp(&a, &v, sizeof(a))) {
			printf("mismatch at %zu: original %.9g, variant %.9g\n", i,
			       (double)a, (double)v);
			return 1;
		}
	}
	printf("ok %zu outputs (%s)\n", ny, variant ? "variant" : "original");
	return 0;
}
