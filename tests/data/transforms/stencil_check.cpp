// stencil_check: run a stencil_smem_halo variant of one kernel of
// stencil.cu on the CPU (cuda_emu.h) against the original at one shape
// and print "ok N outputs" or the first output that differs in any bit.
// Built by tests/suites/xf_stencil.sh with -DKS_K=<kernel> and the
// variant file, its launches rewritten, as variant.inc. The original
// runs with the 16x16 (2-D) or 8x8x8 (3-D) blocks of a naive program.
// -DKS_KIND: 1 (in, out, nx, ny), 2 box9's (in, k, out, w, h, pitch
// = w + 3), 3 heat3d's (u, v, nx, ny, nz, a), 4 (in, out, nx, ny, nz),
// 5 as 1 with the output holding values first (an update of it).
// Usage: stencil_check NX NY [NZ]
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cuda_emu.h"
#define __constant__ static
#define R 2
#define FIXED_N 40
__constant__ float wts[R + 1] = { 0.5f, 0.25f, -0.125f };
#include "variant.inc"

#define KS_CAT2(a, b) a##b
#define KS_CAT(a, b) KS_CAT2(a, b)

static float
rnd(unsigned *s)
{
	*s = *s * 1664525u + 1013904223u;
	return (float)((*s >> 8) & 0xffff) / 32768.0f - 1.0f;
}

template <class T>
static int
same(const std::vector<T> &a, const std::vector<T> &b)
{
	for (size_t i = 0; i < a.size(); i++)
		if (memcmp(&a[i], &b[i], sizeof(T))) {
			printf("differs at %zu: original %.9g, variant %.9g\n", i,
			       (double)a[i], (double)b[i]);
			return 1;
		}
	printf("ok %zu outputs\n", a.size());
	return 0;
}

int
main(int argc, char **argv)
{
	const int nx = argc > 1 ? atoi(argv[1]) : 37, ny = argc > 2 ? atoi(argv[2]) : 23;
	const int nz = argc > 3 ? atoi(argv[3]) : 1;
	const size_t n = (size_t)nx * ny * nz;
	unsigned s = 12345;
#if KS_KIND >= 3
	const dim3 block(8, 8, 8), grid((nx + 7) / 8, (ny + 7) / 8, (nz + 7) / 8);
#else
	const dim3 block(16, 16), grid((nx + 15) / 16, (ny + 15) / 16);
#endif
#if KS_KIND == 2
	const int pitch = nx + 3;
	std::vector<double> in((size_t)pitch * ny), k(in.size()), y0(in.size()), y1(in.size());
	for (size_t i = 0; i < in.size(); i++) {
		in[i] = rnd(&s);
		k[i] = rnd(&s);
		y0[i] = y1[i] = NAN;
	}
	ks_emu_cfg(KS_K, grid, block)(in.data(), k.data(), y0.data(), nx, ny, pitch);
	KS_CAT(ks_launch_, KS_K)(grid, block, 0, 0, in.data(), k.data(), y1.data(), nx, ny, pitch);
#else
	std::vector<float> in(n), y0(n), y1(n);
	for (size_t i = 0; i < n; i++) {
		in[i] = rnd(&s);
		y0[i] = y1[i] = KS_KIND == 5 ? rnd(&s) : NAN;
	}
#if KS_KIND == 1 || KS_KIND == 5
	ks_emu_cfg(KS_K, grid, block)(in.data(), y0.data(), nx, ny);
	KS_CAT(ks_launch_, KS_K)(grid, block, 0, 0, in.data(), y1.data(), nx, ny);
#elif KS_KIND == 3
	ks_emu_cfg(KS_K, grid, block)(in.data(), y0.data(), nx, ny, nz, 0.125f);
	KS_CAT(ks_launch_, KS_K)(grid, block, 0, 0, in.data(), y1.data(), nx, ny, nz, 0.125f);
#else
	ks_emu_cfg(KS_K, grid, block)(in.data(), y0.data(), nx, ny, nz);
	KS_CAT(ks_launch_, KS_K)(grid, block, 0, 0, in.data(), y1.data(), nx, ny, nz);
#endif
#endif
	return same(y0, y1);
}
