// perm_check: run a smem_tiled_transpose or derived_grid variant of one
// permuted copy on the CPU (cuda_emu.h) against the original and print
// "ok N outputs" or the first mismatch. Built by the derived_grid and
// xf_atomics suites with -DKS_K=<kernel> and the variant file, its
// launches rewritten, as variant.inc. The kernels are those of
// tests/data/transforms/permute.cu and derived.cu and the transpose and
// permute3d benchmarks; each case launches its kernel as its callers do,
// at the sizes given. Usage: perm_check A B [C]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cuda_emu.h"
#include "variant.inc"

#define KS_CAT2(a, b) a##b
#define KS_CAT(a, b) KS_CAT2(a, b)

// Outputs start as a pattern no copy produces; the slack past the end
// catches a store out of range.
template <class T>
static int
compare(const std::vector<T> &a, const std::vector<T> &b)
{
	for (size_t i = 0; i < a.size(); i++)
		if (std::memcmp(&a[i], &b[i], sizeof(T))) {
			printf("mismatch at %zu: original %.17g, variant %.17g\n", i,
			       (double)a[i], (double)b[i]);
			return 1;
		}
	printf("ok %zu outputs\n", a.size());
	return 0;
}

template <class T>
static void
fill(std::vector<T> &x, std::vector<T> &y0, std::vector<T> &y1)
{
	for (size_t i = 0; i < x.size(); i++)
		x[i] = (T)(i % 1000) + (T)1;
	for (size_t i = 0; i < y0.size(); i++)
		y0[i] = y1[i] = (T)-7;
}

int
main(int argc, char **argv)
{
	const int A = argc > 1 ? atoi(argv[1]) : 0, B = argc > 2 ? atoi(argv[2]) : 0;
	const int C = argc > 3 ? atoi(argv[3]) : 1;
	const size_t n = (size_t)A * B * C;

	if (A <= 0 || B <= 0 || C <= 0) {
		fprintf(stderr, "usage: perm_check A B [C]\n");
		return 2;
	}
#if defined(KS_TRANSPOSE2D) /* (x, y, rows=A, cols=B), 16x16 blocks */
	std::vector<float> x(n), y0(n + 64), y1(n + 64);
	const dim3 g((B + 15) / 16, (A + 15) / 16), b(16, 16);
	fill(x, y0, y1);
	ks_emu_cfg(KS_K, g, b)(x.data(), y0.data(), A, B);
	KS_CAT(ks_launch_, KS_K)(g, b, 0, 0, x.data(), y1.data(), A, B);
#elif defined(KS_TRANSPOSE2D_ODDB) /* the same with 24x6 blocks: a shape the
					  variant has no instance of its own for */
	std::vector<float> x(n), y0(n + 64), y1(n + 64);
	const dim3 g((B + 23) / 24, (A + 5) / 6), b(24, 6);
	fill(x, y0, y1);
	ks_emu_cfg(KS_K, g, b)(x.data(), y0.data(), A, B);
	KS_CAT(ks_launch_, KS_K)(g, b, 0, 0, x.data(), y1.data(), A, B);
#elif defined(KS_BATCHED) /* (x, y, rows=A, cols=B), C along z */
	std::vector<float> x(n), y0(n + 64), y1(n + 64);
	const dim3 g((B + 15) / 16, (A + 15) / 16, C), b(16, 16);
	fill(x, y0, y1);
	ks_emu_cfg(KS_K, g, b)(x.data(), y0.data(), A, B);
	KS_CAT(ks_launch_, KS_K)(g, b, 0, 0, x.data(), y1.data(), A, B);
#elif defined(KS_LD) /* (in, ldi = B + 3, out, ldo = A + 5, m=A, n=B) */
	const int ldi = B + 3, ldo = A + 5;
	std::vector<double> x((size_t)A * ldi), y0((size_t)B * ldo + 64), y1(y0.size());
	const dim3 g((B + 15) / 16, (A + 15) / 16), b(16, 16);
	fill(x, y0, y1);
	ks_emu_cfg(KS_K, g, b)(x.data(), ldi, y0.data(), ldo, A, B);
	KS_CAT(ks_launch_, KS_K)(g, b, 0, 0, x.data(), ldi, y1.data(), ldo, A, B);
#elif defined(KS_GATHER) /* (src, dst, rows=A, cols=B, k=3), 32x4 blocks */
	std::vector<int> x(n), y0(n + 64), y1(n + 64);
	const dim3 g((B + 31) / 32, (A + 3) / 4), b(32, 4);
	fill(x, y0, y1);
	ks_emu_cfg(KS_K, g, b)(x.data(), y0.data(), A, B, 3);
	KS_CAT(ks_launch_, KS_K)(g, b, 0, 0, x.data(), y1.data(), A, B, 3);
#elif defined(KS_FLAT2) /* (x, y, A, B) over A*B outputs, 128 threads */
	std::vector<int> x(n), y0(n + 64), y1(n + 64);
	const dim3 g((unsigned)((n + 127) / 128)), b(128);
	fill(x, y0, y1);
	ks_emu_cfg(KS_K, g, b)(x.data(), y0.data(), A, B);
	KS_CAT(ks_launch_, KS_K)(g, b, 0, 0, x.data(), y1.data(), A, B);
#elif defined(KS_FLAT3D) /* (x, y, A, B, C) over A*B*C doubles, 64 threads */
	std::vector<double> x(n), y0(n + 64), y1(n + 64);
	const dim3 g((unsigned)((n + 63) / 64)), b(64);
	fill(x, y0, y1);
	ks_emu_cfg(KS_K, g, b)(x.data(), y0.data(), A, B, C);
	KS_CAT(ks_launch_, KS_K)(g, b, 0, 0, x.data(), y1.data(), A, B, C);
#elif defined(KS_FLAT3F) /* (x, y, A, B, C) over A*B*C floats, 256 threads */
	std::vector<float> x(n), y0(n + 64), y1(n + 64);
	const dim3 g((unsigned)((n + 255) / 256)), b(256);
	fill(x, y0, y1);
	ks_emu_cfg(KS_K, g, b)(x.data(), y0.data(), A, B, C);
	KS_CAT(ks_launch_, KS_K)(g, b, 0, 0, x.data(), y1.data(), A, B, C);
#else
#error "no case: -DKS_TRANSPOSE2D, KS_TRANSPOSE2D_ODDB, KS_BATCHED, KS_LD, KS_GATHER, KS_FLAT2, KS_FLAT3D or KS_FLAT3F"
#endif
	return compare(y0, y1);
}
