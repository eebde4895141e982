// quot_check: run a vectorize_memory variant of one kernel of quot.cu (or
// the bench's batchnorm, with -DKS_ARGS) on the CPU (pool_emu.h on
// cuda_emu.h) against the original and print "ok N outputs (variant)",
// "ok N outputs (original)" when the launcher fell back, or the first
// mismatch; outputs must be bitwise equal (the packed body reads the
// group's quotient where the original divides per thread: equal only
// where the identity holds). Built by tests/suites/xf_stream.sh with
// -DKS_K=<kernel> and the variant file, its launches rewritten to
// ks_pl_emu_cfg, as variant.inc.
// Usage: quot_check N K H W [block [offset [trim]]]: n = N*K*H*W - trim
// elements, x and y `offset` elements after an aligned address.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "pool_emu.h"
#include "variant.inc"

#define KS_CAT2(a, b) a##b
#define KS_CAT(a, b) KS_CAT2(a, b)
#ifndef KS_ARGS
#define KS_ARGS x, mean, var, gamma, beta, y, n, H, W, K, eps
#endif

int
main(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr, "usage: quot_check N K H W [block [offset [trim]]]\n");
		return 2;
	}
	const int N = atoi(argv[1]), K = atoi(argv[2]);
	const int H = atoi(argv[3]), W = atoi(argv[4]);
	const unsigned bs = argc > 5 ? (unsigned)atoi(argv[5]) : 256u;
	const size_t off = argc > 6 ? (size_t)atoi(argv[6]) : 0;
	const int n = N * K * H * W - (argc > 7 ? atoi(argv[7]) : 0);
	const float eps = 1e-5f;
	/* exactly n elements after `off`: an access past the end is caught
	   by -fsanitize=address when the check is built with it */
	std::vector<float> xs(n + off), y0s(n + off), y1s(n + off);
	std::vector<float> ms(K), vs(K), gs(K), bs_(K);
	unsigned s = 12345;

	for (auto &v : xs) {
		s = s * 1664525u + 1013904223u;
		v = (float)((s >> 8) & 0xffff) / 8192.0f - 4.0f;
	}
	for (int c = 0; c < K; c++) {
		ms[c] = 0.01f * (float)c - 0.05f;
		vs[c] = 0.08f + 0.003f * (float)c;
		gs[c] = 1.0f + 0.125f * (float)c;
		bs_[c] = 0.5f - 0.0625f * (float)c;
	}
	for (size_t i = 0; i < n + off; i++)
		y0s[i] = y1s[i] = NAN;
	const float *mean = ms.data(), *var = vs.data(), *gamma = gs.data();
	const float *beta = bs_.data();
	const dim3 grid((unsigned)((n + bs - 1) / bs)), block(bs);
	(void)mean;
	(void)var;
	(void)beta;
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
