// conv_check: run a conv_tiling variant of one kernel of conv.cu on the CPU
// (cuda_emu.h) against the original at one shape and print
// "ok N outputs" or the first mismatch. Built by tests/suites/xf_conv.sh
// with -DKS_K=<kernel> and the variant file, its launches rewritten, as
// variant.inc. Usage: conv_check N C H W K Ho Wo
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cuda_emu.h"
#include "variant.inc"

#define KS_CAT2(a, b) a##b
#define KS_CAT(a, b) KS_CAT2(a, b)

static float
rnd(unsigned *s)
{
	*s = *s * 1664525u + 1013904223u;
	return (float)((*s >> 8) & 0xffff) / 32768.0f - 1.0f;
}

int
main(int argc, char **argv)
{
	if (argc != 8) {
		fprintf(stderr, "usage: conv_check N C H W K Ho Wo\n");
		return 2;
	}
	const int N = atoi(argv[1]), C = atoi(argv[2]), H = atoi(argv[3]);
	const int W = atoi(argv[4]), K = atoi(argv[5]), Ho = atoi(argv[6]);
	const int Wo = atoi(argv[7]);
	const size_t nx = (size_t)N * C * H * W, nw = (size_t)K * C * 25;
	const size_t ny = (size_t)N * K * Ho * Wo;
	std::vector<float> x(nx), w(nw), b(K), y0(ny), y1(ny);
	unsigned s = 12345;

	for (auto &v : x)
		v = rnd(&s);
	for (auto &v : w)
		v = rnd(&s) / 8.0f;
	for (auto &v : b)
		v = rnd(&s);
	for (size_t i = 0; i < ny; i++)
		y0[i] = y1[i] = NAN;
	const dim3 grid((Wo + 15) / 16, (Ho + 15) / 16, N * K), block(16, 16);
	ks_emu_cfg(KS_K, grid, block)(x.data(), w.data(), b.data(), y0.data(), C,
				      H, W, K, Ho, Wo);
	KS_CAT(ks_launch_, KS_K)(grid, block, 0, 0, x.data(), w.data(), b.data(),
				 y1.data(), C, H, W, K, Ho, Wo);
	for (size_t i = 0; i < ny; i++) {
		const float a = y0[i], v = y1[i];

		if (std::isnan(a) && std::isnan(v))
			continue;
		if (!(std::fabs(a - v) <= 1e-4f * (1.0f + std::fabs(a)))) {
			printf("mismatch at %zu: original %.7g, variant %.7g\n", i,
			       (double)a, (double)v);
			return 1;
		}
	}
	printf("ok %zu outputs\n", ny);
	return 0;
}
