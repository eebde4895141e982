// stream_check: run a vectorize_memory variant of one kernel on the CPU
// (pool_emu.h on cuda_emu.h) against the original at one size and print
// "ok N outputs (variant)", "ok N outputs (original)" when the launcher
// fell back, or the first mismatch; outputs must be bitwise equal (the
// variant runs the kernel's own arithmetic). Built by
// tests/suites/xf_stream.sh with -DKS_K=<kernel> and the variant file, its
// launches rewritten to ks_pl_emu_cfg, as variant.inc. The kernel's
// parameters are (x, y, n, m) unless -DKS_ARGS says otherwise.
// Usage: stream_check N M [block [offset]]: block is the original's launch
// block (256), offset the elements x and y start after an aligned address
// (a misaligned start runs the original).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "pool_emu.h"
#include "variant.inc"

#define KS_CAT2(a, b) a##b
#define KS_CAT(a, b) KS_CAT2(a, b)
#ifndef KS_ARGS
#define KS_ARGS x, y, n, m
#endif

int
main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: stream_check N M [block [offset]]\n");
		return 2;
	}
	const int n = atoi(argv[1]), m = atoi(argv[2]);
	const unsigned bs = argc > 3 ? (unsigned)atoi(argv[3]) : 256u;
	const size_t off = argc > 4 ? (size_t)atoi(argv[4]) : 0;
	/* exactly n elements after `off`: an access past the end is caught
	   by -fsanitize=address when the check is built with it */
	std::vector<float> xs(n + off), y0s(n + off), y1s(n + off);
	unsigned s = 12345;

	(void)m;
	for (auto &v : xs) {
		s = s * 1664525u + 1013904223u;
		v = (float)((s >> 8) & 0xffff) / 8192.0f - 4.0f;
	}
	for (size_t i = 0; i < n + off; i++)
		y0s[i] = y1s[i] = NAN;
	const dim3 grid((unsigned)((n + bs - 1) / bs)), block(bs);
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
	for (size_t i = 0; i < n + off; i++) {
		const float a = y0s[i], v = y1s[i];

		if (std::isnan(a) && std::isnan(v))
			continue;
		if (memcmp(&a, &v, sizeof(a))) {
			printf("mismatch at %zu: original %.9g, variant %.9g\n", i,
			       (double)a, (double)v);
			return 1;
		}
	}
	printf("ok %d outputs (%s)\n", n, variant ? "variant" : "original");
	return 0;
}
