// gemm_check: run a gemm_register_blocking or gemv_warp_per_row variant of
// one kernel of gemm_mem.cu on the CPU (cuda_emu.h, rows_emu.h for the
// shuffles) against the original at one shape and print "ok N outputs"
// or the first mismatch. Built by tests/suites/xf_gemm.sh with
// -DKS_K=<kernel> and the variant file, its launches rewritten, as
// variant.inc (-DKS_ROW=n where the kernel's matrices are arrays of rows
// of n). Usage: gemm_check M N K 2d|1d|1dy
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "rows_emu.h"
#include "variant.inc"

// -DKS_ROW=n: the kernel takes its matrices as arrays of rows of n
#ifdef KS_ROW
#define KS_PTR(v) reinterpret_cast<float(*)[KS_ROW]>(v)
#else
#define KS_PTR(v) (v)
#endif

#define KS_CAT2(a, b) a##b
#define KS_CAT(a, b) KS_CAT2(a, b)
#define KS_STR2(a) #a
#define KS_STR(a) KS_STR2(a)

static float
rnd(unsigned *s)
{
	*s = *s * 1664525u + 1013904223u;
	return (float)((*s >> 8) & 0xffff) / 32768.0f - 1.0f;
}

int
main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: gemm_check M N K 2d|1d|1dy\n");
		return 2;
	}
	const int M = atoi(argv[1]), N = atoi(argv[2]), K = atoi(argv[3]);
	const bool two = !strcmp(argv[4], "2d");
	// 1dy: a 1-D kernel launched with blocks of 32 x 4 threads, as naive
	// code launching a 1-D kernel with a 2-D block does
	const bool y4 = !strcmp(argv[4], "1dy");
	// room for every operand's largest index (B is K x N, or K + M long)
	const size_t na = (size_t)M * K, nb = (size_t)K * N + M, nc = (size_t)M * N;
	std::vector<float> a(na), b(nb), c0(nc), c1(nc);
	unsigned s = 12345;

	for (auto &v : a)
		v = rnd(&s);
	for (auto &v : b)
		v = rnd(&s);
	for (size_t i = 0; i < nc; i++)
		c0[i] = c1[i] = rnd(&s);
	const dim3 grid = two ? dim3((N + 15) / 16, (M + 15) / 16)
			      : y4 ? dim3((M + 31) / 32) : dim3((M + 127) / 128);
	const dim3 block = two ? dim3(16, 16) : y4 ? dim3(32, 4) : dim3(128);
	const float alpha = 1.5f, beta = -0.75f;
	ks_emu_cfg(KS_K, grid, block)(M, N, K, alpha, beta, KS_PTR(a.data()),
				      KS_PTR(b.data()), KS_PTR(c0.data()));
	ks_rows_launched = nullptr;
	KS_CAT(ks_launch_, KS_K)(grid, block, 0, 0, M, N, K, alpha, beta,
				 KS_PTR(a.data()), KS_PTR(b.data()), KS_PTR(c1.data()));
	if (ks_rows_launched == (void *)KS_K) {
		printf("the launcher ran the original %s\n", KS_STR(KS_K));
		return 1;
	}
	for (size_t i = 0; i < nc; i++) {
		const float o = c0[i], v = c1[i];

		if (!(std::fabs(o - v) <= 1e-4f * (1.0f + std::fabs(o)))) {
			printf("mismatch at %zu: original %.7g, variant %.7g\n", i,
			       (double)o, (double)v);
			return 1;
		}
	}
	printf("ok %zu outputs\n", nc);
	return 0;
}
