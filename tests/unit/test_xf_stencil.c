/* Unit tests of stencil_smem_halo: the kernels of
 * tests/data/transforms/stencil.cu and the three stencils of bench/ are
 * parsed with libclang; the transform applies to the 2-D and 3-D shapes
 * and declines each look-alike with its reason; its output is
 * deterministic, holds the three parts of a variant and goes through the
 * rewriter; the tile and the column follow the radius the facts give;
 * the streaming form keeps a ring of column registers and the reads off
 * the column as they are. Whether a variant computes what the original
 * does (on the CPU) is tests/suites/xf_stencil.sh.
 * Also the form algebra it relies on: a 3-D plane stride (three symbols)
 * stays exact. Without a loadable libclang the parse tests say why and
 * pass. Compiling the variants with nvcc is tests/suites/xf_stencil.sh. */
#include <stdlib.h>
#include <string.h>

#include "../../src/analysis/facts.h"
#include "../../src/analysis/inventory.h"
#include "../../src/analysis/libclang.h"
#include "../../src/core/buf.h"
#include "../../src/core/fs.h"
#include "../../src/core/strv.h"
#include "../../src/core/util.h"
#include "../../src/transforms/transform.h"
#include "test.h"
#include "xf_fixture.h"

void ks_suite_xf_stencil(void);

#define DATA "tests/data/transforms"

static struct xf_file files[] = {
	{ DATA "/stencil.cu", { 0 }, KS_BUF_INIT, 0 },
	{ "bench/jacobi2d/main.cu", { 0 }, KS_BUF_INIT, 0 },
	{ "bench/stencil3d7/main.cu", { 0 }, KS_BUF_INIT, 0 },
	{ "bench/stencil3d25/main.cu", { 0 }, KS_BUF_INIT, 0 },
	{ DATA "/lanes.cu", { 0 }, KS_BUF_INIT, 0 },
};
static struct xf_fixture fx = {
	.what = "stencil",
	.probe = DATA "/stencil.cu",
	.include = "-Ibench/common",
	.files = files,
	.nfiles = KS_ARRAY_SIZE(files),
};

static enum ks_xf_result
run_xf(const char *file, const char *kernel, const struct ks_xf_point *pt,
       struct ks_buf *variant, struct ks_buf *reason,
       const struct ks_kernel **kout)
{
	return xf_run(&fx, "stencil_smem_halo", file, kernel, pt, variant, reason, kout);
}

#define ST DATA "/stencil.cu"

static size_t
param_index(const struct ks_transform *t, const char *name)
{
	for (size_t d = 0; d < t->nparams; d++)
		if (!strcmp(t->params[d].name, name))
			return d;
	return 0;
}

/* The default point with 8 rows of threads and 4 steps ahead stated
 * (not chosen by the radius), which the checks below are written for. */
static void
fixed_point(const struct ks_transform *t, struct ks_xf_point *pt)
{
	ks_xf_default_point(t, pt);
	pt->v[param_index(t, "by")] = 8;
	pt->v[param_index(t, "depth")] = 4;
}

/* The point of the shared-tile form (stream=0, depth=1), else fixed. */
static void
tile_point(const struct ks_transform *t, struct ks_xf_point *pt)
{
	fixed_point(t, pt);
	pt->v[param_index(t, "stream")] = 0;
	pt->v[param_index(t, "depth")] = 1;
}

/* The point of the streaming form (stream=1), else fixed. */
static void
stream_point(const struct ks_transform *t, struct ks_xf_point *pt)
{
	fixed_point(t, pt);
	pt->v[param_index(t, "stream")] = 1;
}

/* The point of the plane form (stream=2), else fixed. */
static void
plane_point(const struct ks_transform *t, struct ks_xf_point *pt)
{
	fixed_point(t, pt);
	pt->v[param_index(t, "stream")] = 2;
	pt->v[param_index(t, "pack")] = 1;
}

/* by=0 and depth=0 are chosen by the radius: radius 4 along z takes 16
 * rows and 2 steps ahead (4 spilled), radius 1 keeps 8 rows and 4 steps;
 * a 2-D tile streams nothing, so its depth is 1 without asking. */
TEST(rows_and_depth_follow_the_radius)
{
	const struct ks_transform *t = ks_xf_find("stencil_smem_halo");
	struct ks_buf v = KS_BUF_INIT, r = KS_BUF_INIT;
	struct ks_xf_point pt;

	if (!xf_setup(&fx))
		SKIP("no libclang, or the suite's data is missing");
	ks_xf_default_point(t, &pt);
	CHECK_INT_EQ(0, pt.v[param_index(t, "by")]);
	CHECK_INT_EQ(0, pt.v[param_index(t, "depth")]);
	CHECK_INT_EQ(KS_XF_APPLIED, run_xf("bench/stencil3d25/main.cu",
					   "stencil3d25_kernel", &pt, &v, &r,
					   NULL));
	CHECK(strstr(v.buf, "8x16 threads of 4 consecutive outputs"));
	CHECK(strstr(v.buf, "with 2 steps of loads ahead"));
	ks_buf_reset(&v);
	CHECK_INT_EQ(KS_XF_APPLIED, run_xf(ST, "jacobi", &pt, &v, &r, NULL));
	CHECK(strstr(v.buf, "32x8 threads"));
	CHECK(strstr(v.buf, "with 4 steps of loads ahead"));
	/* stated values are kept */
	ks_buf_reset(&v);
	pt.v[param_index(t, "by")] = 8;
	pt.v[param_index(t, "depth")] = 4;
	CHECK_INT_EQ(KS_XF_APPLIED, run_xf("bench/stencil3d25/main.cu",
					   "stencil3d25_kernel", &pt, &v, &r,
					   NULL));
	CHECK(strstr(v.buf, "8x8 threads of 4 consecutive outputs"));
	CHECK(strstr(v.buf, "with 4 steps of loads ahead"));
	/* the block's size is judged with the rows chosen: 128 wide
	   takes 8 rows at radius 1 and is declined at 16 (radius 4) with
	   one output a thread; packed, 128 wide is 32 threads */
	ks_buf_reset(&v);
	ks_buf_reset(&r);
	ks_xf_default_point(t, &pt);
	pt.v[param_index(t, "bx")] = 128;
	CHECK_INT_EQ(KS_XF_APPLIED, run_xf(ST, "jacobi", &pt, &v, &r, NULL));
	ks_buf_reset(&v);
	CHECK_INT_EQ(KS_XF_APPLIED, run_xf("bench/stencil3d25/main.cu",
					   "stencil3d25_kernel", &pt, &v, &r,
					   NULL));
	CHECK(strstr(v.buf, "32x16 threads of 4 consecutive outputs"));
	ks_buf_reset(&v);
	pt.v[param_index(t, "pack")] = 1;
	CHECK_INT_EQ(KS_XF_DECLINED, run_xf("bench/stencil3d25/main.cu",
					    "stencil3d25_kernel", &pt, &v, &r,
					    NULL));
	CHECK(strstr(r.buf, "a 128x16 block has more than 1024 threads"));
	/* the 2-D tile form at the default depth */
	ks_buf_reset(&v);
	ks_xf_default_point(t, &pt);
	pt.v[param_index(t, "stream")] = 0;
	CHECK_INT_EQ(KS_XF_APPLIED, run_xf(ST, "jacobi", &pt, &v, &r, NULL));
	ks_buf_release(&v);
	ks_buf_release(&r);
}

/* The number of times `needle` occurs in `hay`. */
static int
occurrences(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *q = strstr(hay, needle); q; q = strstr(q + 1, needle))
		n++;
	return n;
}

static const struct xf_case cases[] = {
	{ ST, "jacobi", NULL, NULL },
	{ ST, "box9", NULL, NULL },
	{ ST, "star2d_r", NULL, NULL },
	{ ST, "heat3d", NULL, NULL },
	{ ST, "star3d_r", NULL, NULL },
	{ "bench/jacobi2d/main.cu", "jacobi2d_kernel", NULL, NULL },
	{ "bench/stencil3d7/main.cu", "stencil3d7_kernel", NULL, NULL },
	{ "bench/stencil3d25/main.cu", "stencil3d25_kernel", NULL, NULL },
	{ ST, "box27", NULL, NULL },
	{ ST, "smooth1d", NULL, "1-D stencils are not covered" },
	{ ST, "gathered", NULL, "not at a fixed offset from the output's position" },
	{ ST, "inplace", NULL, "at another element than its own: an in-place update" },
	{ ST, "no_exit", NULL, NULL },
	{ ST, "short_exit", NULL, NULL },
	{ ST, "fixed2d", NULL, NULL },
	{ ST, "guard3d", NULL, NULL },
	{ ST, "own_update", NULL, NULL },
	{ ST, "interior_r", NULL, "by no uniform limit, neither by an early exit" },
	{ ST, "transposed", NULL, "moves with the thread differently" },
	{ ST, "radius_param", NULL, "does not step by a constant from a constant" },
	{ ST, "colmajor", NULL, "x is not the fastest dimension" },
	{ ST, "ptr_alias", NULL, "in is used on line" },
};

TEST(applies_to_stencils_and_declines_look_alikes)
{
	if (!xf_setup(&fx))
		SKIP("no libclang, or the suite's data is missing");
	xf_check_cases(&fx, "stencil_smem_halo", cases, KS_ARRAY_SIZE(cases));
}

TEST(variants_are_deterministic_and_rewritable)
{
	if (!xf_setup(&fx))
		SKIP("no libclang, or the suite's data is missing");
	xf_check_rewritable(&fx, "stencil_smem_halo", cases, KS_ARRAY_SIZE(cases));
}

/* Every allowed point of each applied case, one parameter moved from the
 * streaming point, the tile point or the plane point (the default), gives a variant or a
 * reason; the streaming form takes every planes, depth, resident and vx
 * value, the 2-D tile form every rows value, the plane form every planes,
 * depth, vx, resident and by value. */
TEST(every_point_applies_or_says_why)
{
	const struct ks_transform *t = ks_xf_find("stencil_smem_halo");

	if (!xf_setup(&fx))
		SKIP("no libclang, or the suite's data is missing");
	CHECK(t);
	for (size_t i = 0; i < KS_ARRAY_SIZE(cases); i++) {
		struct ks_xf_point pt;

		if (cases[i].reason)
			continue;
		for (int tile = 0; tile < 3; tile++)
		for (size_t d = 0; d < t->nparams; d++)
			for (size_t j = 0; j < t->params[d].nvalues; j++) {
				struct ks_buf v = KS_BUF_INIT, r = KS_BUF_INIT;
				enum ks_xf_result res;
				const char *n = t->params[d].name;
				int is2d = strstr(cases[i].kernel, "3d") == NULL &&
					   strcmp(cases[i].kernel, "heat3d") &&
					   strcmp(cases[i].kernel, "box27");

				if (tile == 1)
					tile_point(t, &pt);
				else if (tile == 2)
					plane_point(t, &pt);
				else
					stream_point(t, &pt);
				pt.v[d] = t->params[d].values[j];
				res = run_xf(cases[i].file, cases[i].kernel, &pt,
					     &v, &r, NULL);
				CHECK(res == KS_XF_APPLIED ||
				      (res == KS_XF_DECLINED && r.len));
				if ((!tile && (!strcmp(n, "planes") ||
					       !strcmp(n, "depth") ||
					       !strcmp(n, "vx") ||
					       !strcmp(n, "resident"))) ||
				    (tile == 1 && is2d && !strcmp(n, "rows")) ||
				    (tile == 2 &&
				     (!strcmp(n, "planes") || !strcmp(n, "depth") ||
				      !strcmp(n, "vx") || !strcmp(n, "resident") ||
				      !strcmp(n, "by"))))
					CHECK_INT_EQ(KS_XF_APPLIED, res);
				ks_buf_release(&v);
				ks_buf_release(&r);
			}
	}
}

/* The tile's halo is the radius the reads reach; corners are loaded only
 * for a stencil that reads diagonals; the radius loop's variable drives
 * the column index; reads of other arrays stay global. */
TEST(tile_and_column_follow_the_reads)
{
	const struct ks_transform *t = ks_xf_find("stencil_smem_halo");
	struct ks_buf v = KS_BUF_INIT, r = KS_BUF_INIT;
	struct ks_xf_point pt;

	if (!xf_setup(&fx))
		SKIP("no libclang, or the suite's data is missing");
	tile_point(t, &pt);
	CHECK_INT_EQ(KS_XF_APPLIED, run_xf("bench/stencil3d25/main.cu",
					   "stencil3d25_kernel", &pt, &v, &r,
					   NULL));
	/* 32x8 tile plus 4 on each side; 2 * 4 + 1 column registers */
	CHECK(strstr(v.buf, "__shared__ float ks_t[16][40];"));
	/* depth 1: a ring of 9 + 1 slots, one halo stage */
	CHECK(strstr(v.buf, "float ks_q[10], ks_h[1][3];"));
	CHECK(strstr(v.buf, "ks_st_q(ks_q, 4 + (1 + 1 * ((r) - (1))))"));
	/* a star: no corner cells */
	CHECK(strstr(v.buf, "!(ks_xin && ks_yin) && (ks_xin || ks_yin) ? ks_c : -1;"));
	/* the original's boundary copy reads the column's centre */
	CHECK(strstr(v.buf, "out[i] = ((void)(i), ks_st_q(ks_q, 4 + (0)));"));
	ks_buf_reset(&v);
	/* depth 4: 9 + 4 rounded up to a multiple of 4, four halo stages,
	   each plane's loads 4 planes ahead */
	pt.v[param_index(t, "depth")] = 4;
	CHECK_INT_EQ(KS_XF_APPLIED, run_xf("bench/stencil3d25/main.cu",
					   "stencil3d25_kernel", &pt, &v, &r,
					   NULL));
	CHECK(strstr(v.buf, "float ks_q[16], ks_h[4][3];"));
	CHECK(strstr(v.buf, "ks_q[(ks_u + 12) % 16] = ks_st_ld(in, ks_f + ks_sz * (ks_p + 8), ks_n);"));
	CHECK(strstr(v.buf, "ks_h[ks_u % 4][ks_s] = ks_hs[ks_s] >= 0 ? ks_st_ld(in, ks_ho[ks_s] + ks_sz * (ks_p + 4), ks_n)"));
	tile_point(t, &pt);
	ks_buf_reset(&v);
	CHECK_INT_EQ(KS_XF_APPLIED, run_xf(ST, "box9", &pt, &v, &r, NULL));
	CHECK(strstr(v.buf, "__shared__ double ks_t[34][34];"));
	CHECK(!strstr(v.buf, "if (!ks_xin && !ks_yin)"));
	CHECK(strstr(v.buf, "out[i] = k[i] * s;"));
	CHECK(strstr(v.buf, "ks_sy = ((1LL * (long long)(pitch)))"));
	ks_buf_reset(&v);
	CHECK_INT_EQ(KS_XF_APPLIED, run_xf(ST, "jacobi", &pt, &v, &r, NULL));
	CHECK(strstr(v.buf, "if (!ks_xin && !ks_yin)"));
	ks_buf_reset(&v);
	CHECK_INT_EQ(KS_XF_APPLIED, run_xf(ST, "star2d_r", &pt, &v, &r, NULL));
	CHECK(strstr(v.buf, "ks_t[ks_ly + (-2 + 1 * ((d) - (-2)))][ks_lx + (0)]"));
	/* a box along z: the tile form needs a star in z */
	ks_buf_reset(&v);
	ks_buf_reset(&r);
	CHECK_INT_EQ(KS_XF_DECLINED, run_xf(ST, "box27", &pt, &v, &r, NULL));
	CHECK(strstr(r.buf, "the tile form streams along z and needs a star in z"));
	ks_buf_release(&v);
	ks_buf_release(&r);
}

/* The streaming form: a ring of 2 r + 1 + depth column registers, the
 * loads depth steps ahead, the step loop unrolled by the ring's length;
 * the reads along the column from the ring, every other read the
 * kernel's own; the residency asked of the registers. */
TEST(streaming_form_rings_the_column)
{
	const struct ks_transform *t = ks_xf_find("stencil_smem_halo");
	struct ks_buf v = KS_BUF_INIT, r = KS_BUF_INIT;
	struct ks_xf_point pt;

	if (!xf_setup(&fx))
		SKIP("no libclang, or the suite's data is missing");
	stream_point(t, &pt);
	CHECK_INT_EQ(KS_XF_APPLIED, run_xf("bench/stencil3d25/main.cu",
					   "stencil3d25_kernel", &pt, &v, &r,
					   NULL));
	/* radius 4, depth 4: 9 + 4 slots */
	CHECK(strstr(v.buf, "float ks_q[1][13];"));
	CHECK(strstr(v.buf, "for (int ks_u = 0; ks_u < 13; ks_u++)"));
	CHECK(strstr(v.buf, "ks_q[ks_v][(ks_u + 12) % 13] = ks_st_ld(in, ks_f[ks_v] + ks_ss * (ks_p + 8), ks_n);"));
	CHECK(strstr(v.buf, "ks_st_q(ks_q, 4 + (1 + 1 * ((r) - (1))))"));
	/* along x and y: the original's reads */
	CHECK(strstr(v.buf, "coef[r] * (in[i - r] + in[i + r] + in[i - r * nx] + in[i + r * nx] +"));
	CHECK(strstr(v.buf, "__launch_bounds__(256, 6)"));
	/* the halo lines into L1 as far ahead as the ring's loads: the x
	   edges, and the y edge rows from the threads at the block's edge */
	CHECK(strstr(v.buf, "ks_st_pf(in, ks_f[0] + ks_ss * (ks_p + 8) - 4, ks_n);"));
	CHECK(strstr(v.buf, "if (threadIdx.y + 4u >= 8u)"));
	CHECK(!strstr(v.buf, "__shared__"));
	ks_buf_reset(&v);
	stream_point(t, &pt);
	pt.v[param_index(t, "depth")] = 1;
	pt.v[param_index(t, "resident")] = 0;
	CHECK_INT_EQ(KS_XF_APPLIED, run_xf("bench/jacobi2d/main.cu",
					   "jacobi2d_kernel", &pt, &v, &r, NULL));
	CHECK(strstr(v.buf, "float ks_q[1][4];"));
	CHECK(strstr(v.buf, "ks_st_ld(in, ks_f[ks_v] + ks_ss * (ks_p + 2), ks_n);"));
	CHECK(strstr(v.buf, "in[i - 1] + in[i + 1] + ((void)(i - nx), ks_st_q(ks_q, 1 + (-1)))"));
	CHECK(strstr(v.buf, "__launch_bounds__(256, 1)"));
	/* 2-D: a thread row of the block is a strip of 64 rows */
	CHECK(strstr(v.buf, "((long long)blockIdx.y * 8 + threadIdx.y) * 64;"));
	ks_buf_reset(&v);
	/* vx=4: four columns 32 apart per thread, a ring each, a block
	   128 columns wide */
	pt.v[param_index(t, "vx")] = 4;
	CHECK_INT_EQ(KS_XF_APPLIED, run_xf("bench/jacobi2d/main.cu",
					   "jacobi2d_kernel", &pt, &v, &r, NULL));
	CHECK(strstr(v.buf, "float ks_q[4][4];"));
	CHECK(strstr(v.buf, "const unsigned ks_gx = ks_gx0 + ks_v * 32u;"));
	CHECK(strstr(v.buf, "const unsigned ks_gx0 = blockIdx.x * 128u + threadIdx.x;"));
	CHECK(strstr(v.buf, "dim3((unsigned)((ks_nx + 127) / 128)"));
	ks_buf_reset(&v);
	/* a box along z streams: the diagonal read stays global */
	stream_point(t, &pt);
	CHECK_INT_EQ(KS_XF_APPLIED, run_xf(ST, "box27", &pt, &v, &r, NULL));
	CHECK(strstr(v.buf, "in[i - p - nx - 1] + ((void)(i), ks_st_q(ks_q, 1 + (0))) + in[i + p + nx + 1]"));
	ks_buf_release(&v);
	ks_buf_release(&r);
}

/* The plane form: two shared buffers of the plane with its halo (the
 * radius per axis, 3-D bands and sides only for a star), one barrier a
 * step (a warp's where a 2-D row of threads is one warp), the column's
 * ring loaded depth steps ahead, reads in the plane from the buffer and
 * along the slowest axis from the ring; both offset types instantiated,
 * the launcher picking int where the offsets fit. */
/* pack=4, the default of a 3-D star stencil of floats: 4 consecutive
 * outputs a thread, the column and the plane as 16-byte vectors, the
 * plane's window in registers for the 4 bodies, one vector store where
 * the 4 were written; a 2-D stencil, a box in the plane, or 8-byte
 * elements keep one output a thread. */
TEST(packed_plane_form_takes_four_outputs_a_thread)
{
	const struct ks_transform *t = ks_xf_find("stencil_smem_halo");
	struct ks_buf v = KS_BUF_INIT, r = KS_BUF_INIT;
	struct ks_xf_point pt;

	if (!xf_setup(&fx))
		SKIP("no libclang, or the suite's data is missing");
	ks_xf_default_point(t, &pt);
	CHECK_INT_EQ(4, pt.v[param_index(t, "pack")]);
	CHECK_INT_EQ(KS_XF_APPLIED, run_xf("bench/stencil3d25/main.cu",
					   "stencil3d25_kernel", &pt, &v, &r,
					   NULL));
	/* a 32-wide tile plus 4 each side, 16 rows plus 4 above and below;
	   at radius 4 the pass unrolls 4 steps (a window of 4 + 10) */
	CHECK(strstr(v.buf, "__shared__ __align__(16) float ks_t[2][24][40];"));
	CHECK(strstr(v.buf, "ks_st_v4<float> ks_q[14];"));
	CHECK(strstr(v.buf, "float ks_tw[9][12];"));
	CHECK(strstr(v.buf, "ks_om |= ks_st_mask<ks_L>(ks_j), ks_st_out<ks_L>(ks_ov, ks_j)"));
	CHECK(strstr(v.buf, "if (ks_om == 15u && ks_al && (ks_fo & 3) == 0)"));
	/* 512 threads an SM at most: 4 blocks of 128 */
	CHECK(strstr(v.buf, "__launch_bounds__(128, 4)"));
	ks_buf_reset(&v);
	CHECK_INT_EQ(KS_XF_APPLIED, run_xf(ST, "jacobi", &pt, &v, &r, NULL));
	CHECK(!strstr(v.buf, "ks_st_ld4"));
	ks_buf_reset(&v);
	CHECK_INT_EQ(KS_XF_APPLIED, run_xf(ST, "star3d_r", &pt, &v, &r, NULL));
	CHECK(strstr(v.buf, "ks_st_ld4"));
	ks_buf_reset(&v);
	pt.v[param_index(t, "pack")] = 1;
	CHECK_INT_EQ(KS_XF_APPLIED, run_xf(ST, "star3d_r", &pt, &v, &r, NULL));
	CHECK(!strstr(v.buf, "ks_st_ld4"));
	ks_buf_release(&v);
	ks_buf_release(&r);
}

/* unroll=4: the packed pass unrolls 4 steps, not the ring's 12, its
 * column a window of 4 + 10 vectors moved 4 slots on after them (the
 * code a third as long); a point it cannot take says why. */
TEST(packed_plane_form_unrolls_fewer_steps_with_a_moving_window)
{
	const struct ks_transform *t = ks_xf_find("stencil_smem_halo");
	struct ks_buf v = KS_BUF_INIT, r = KS_BUF_INIT;
	struct ks_xf_point pt;

	if (!xf_setup(&fx))
		SKIP("no libclang, or the suite's data is missing");
	ks_xf_default_point(t, &pt);
	CHECK_INT_EQ(0, pt.v[param_index(t, "unroll")]);
	/* -1: the ring's length, as at a z radius below 3 by default */
	pt.v[param_index(t, "unroll")] = -1;
	CHECK_INT_EQ(KS_XF_APPLIED, run_xf("bench/stencil3d25/main.cu",
					   "stencil3d25_kernel", &pt, &v, &r,
					   NULL));
	CHECK(strstr(v.buf, "ks_st_v4<float> ks_q[12];"));
	ks_buf_reset(&v);
	pt.v[param_index(t, "unroll")] = 0;
	CHECK_INT_EQ(KS_XF_APPLIED, run_xf("bench/stencil3d7/main.cu",
					   "stencil3d7_kernel", &pt, &v, &r,
					   NULL));
	CHECK(!strstr(v.buf, "ks_q[ks_j] = ks_q[ks_j + 4];"));
	ks_buf_reset(&v);
	pt.v[param_index(t, "unroll")] = 4;
	CHECK_INT_EQ(KS_XF_APPLIED, run_xf("bench/stencil3d25/main.cu",
					   "stencil3d25_kernel", &pt, &v, &r,
					   NULL));
	CHECK(strstr(v.buf, "ks_st_v4<float> ks_q[14];"));
	CHECK(strstr(v.buf, "for (int ks_k0 = 0; ks_k0 < ks_nst; ks_k0 += 4) {"));
	CHECK(strstr(v.buf, "for (int ks_u = 0; ks_u < 4; ks_u++) {"));
	CHECK(strstr(v.buf, "ks_q[(ks_u + 10)] = ks_st_ld4(in, ks_fc + ks_sz * (ks_I)(ks_k + 6), ks_n, ks_al);"));
	CHECK(strstr(v.buf, "ks_w[ks_j] = ks_q[(ks_u + ks_j)].v[ks_v];"));
	CHECK(strstr(v.buf, "for (int ks_j = 0; ks_j < 10; ks_j++)\n\t\t\tks_q[ks_j] = ks_q[ks_j + 4];"));
	CHECK(!strstr(v.buf, "% 12]"));
	ks_buf_reset(&v);
	/* depth=4 repeats the halo's stages every 4 steps: 4 is a multiple;
	   depth=8's 8 is not */
	pt.v[param_index(t, "depth")] = 8;
	CHECK_INT_EQ(KS_XF_DECLINED, run_xf("bench/stencil3d25/main.cu",
					    "stencil3d25_kernel", &pt, &v, &r,
					    NULL));
	CHECK(strstr(r.buf, "unroll=4 is not a multiple of 8 below the ring's 24 steps"));
	ks_buf_reset(&r);
	pt.v[param_index(t, "depth")] = 0;
	pt.v[param_index(t, "pack")] = 1;
	CHECK_INT_EQ(KS_XF_DECLINED, run_xf("bench/stencil3d25/main.cu",
					    "stencil3d25_kernel", &pt, &v, &r,
					    NULL));
	CHECK(strstr(r.buf, "unroll applies to the packed plane form only"));
	ks_buf_release(&v);
	ks_buf_release(&r);
}

/* Occurrences of `s` in `text`. */
static size_t
count_of(const char *text, const char *s)
{
	size_t n = 0;

	for (const char *p = strstr(text, s); p; p = strstr(p + 1, s))
		n++;
	return n;
}

/* lanes=1 (the default): where the body's values of x only index reads
 * and the store and meet bounds checks, the 4 outputs of a thread run
 * it once on 4-wide values when they take each bounds check on x alike
 * (evaluated for each), else the 4 bodies read the window from shared
 * memory; each body that cannot says why in the variant, and lanes=0
 * keeps the 4 bodies. */
TEST(packed_form_runs_one_body_on_lanes_where_the_body_allows)
{
	static const struct {
		const char *kernel, *why;
	} lanes[] = {
		{ "lane_ok", NULL },
		{ "lane_xvalue", "the body runs once an output: w (it depends on x) "
				 "in a value on line 44" },
		{ "lane_call", "the body runs once an output: a call of fabsf on "
			       "line 58" },
		{ "lane_datacond", "the body runs once an output: a condition on a "
				   "value the outputs differ in on line 73" },
		{ "lane_equal", "the body runs once an output: a condition on x "
				"other than a bounds check on line 88" },
		{ "lane_double", "the body runs once an output: the double literal "
				 "0.2 on line 106" },
		{ "lane_dparam", "the body runs once an output: the kernel declares "
				 "a double" },
		{ "lane_castcond", "the body runs once an output: float in a "
				   "condition on line 136" },
	};
	const struct ks_transform *t = ks_xf_find("stencil_smem_halo");
	struct ks_buf v = KS_BUF_INIT, r = KS_BUF_INIT;
	struct ks_xf_point pt;

	if (!xf_setup(&fx))
		SKIP("no libclang, or the suite's data is missing");
	ks_xf_default_point(t, &pt);
	CHECK_INT_EQ(1, pt.v[param_index(t, "lanes")]);
	for (size_t i = 0; i < KS_ARRAY_SIZE(lanes); i++) {
		ks_buf_reset(&v);
		CHECK_INT_EQ(KS_XF_APPLIED, run_xf(DATA "/lanes.cu", lanes[i].kernel,
						   &pt, &v, &r, NULL));
		if (lanes[i].why) {
			CHECK(strstr(v.buf, lanes[i].why));
			CHECK(!strstr(v.buf, "ks_uni"));
			CHECK(strstr(v.buf, "ks_om |= 1u << ks_j, ks_ov[ks_j]"));
			continue;
		}
		CHECK(strstr(v.buf, "the body runs once on 4-wide values"));
		/* the declarations of the element type become ks_L */
		CHECK(strstr(v.buf, "ks_L acc = wts[0] *"));
		CHECK(strstr(v.buf, "ks_L s = "));
		CHECK(strstr(v.buf, "template <class ks_L, class ks_W, class ks_Q, class ks_OV>"));
		CHECK(strstr(v.buf, "ks_st_rd<ks_L>(ks_tw, 2 + (0), 4 + ks_j + "));
		/* the three bounds checks on x, each for outputs 1..3 */
		CHECK(strstr(v.buf, "const bool ks_uni = ks_mine && ks_mx[3] && ks_tx[0] + 3u < ks_ob.x &&"));
		CHECK_INT_EQ(9, (long long)count_of(v.buf, ") == (("));
		CHECK(strstr(v.buf, "ks_st_body_lane_ok<ks_st_l<float, 4> >("));
		CHECK(strstr(v.buf, "ks_st_body_lane_ok<float>("));
		CHECK(strstr(v.buf, "const ks_st_sw<float, 40> ks_sw = { &ks_t[ks_u % 2][ks_ly - 2][ks_lx - 4] };"));
	}
	/* lanes=0: the 4 bodies, and where the packed form does not apply
	   (pack=1) it says so */
	pt.v[param_index(t, "lanes")] = 0;
	ks_buf_reset(&v);
	CHECK_INT_EQ(KS_XF_APPLIED, run_xf(DATA "/lanes.cu", "lane_ok", &pt, &v, &r, NULL));
	CHECK(!strstr(v.buf, "ks_uni"));
	CHECK(!strstr(v.buf, "the body runs once"));
	pt.v[param_index(t, "pack")] = 1;
	ks_buf_reset(&v);
	CHECK_INT_EQ(KS_XF_DECLINED, run_xf(DATA "/lanes.cu", "lane_ok", &pt, &v, &r, NULL));
	CHECK(strstr(r.buf, "lanes applies to the packed plane form only"));
	/* the bench's radius-4 stencil runs on lanes, its 7-point one (x == 0
	   borders) does not */
	ks_xf_default_point(t, &pt);
	ks_buf_reset(&v);
	CHECK_INT_EQ(KS_XF_APPLIED, run_xf("bench/stencil3d25/main.cu",
					   "stencil3d25_kernel", &pt, &v, &r, NULL));
	CHECK(strstr(v.buf, "ks_uni"));
	ks_buf_reset(&v);
	CHECK_INT_EQ(KS_XF_APPLIED, run_xf("bench/stencil3d7/main.cu",
					   "stencil3d7_kernel", &pt, &v, &r, NULL));
	CHECK(strstr(v.buf, "a condition on x other than a bounds check on line 18"));
	ks_buf_release(&v);
	ks_buf_release(&r);
}

TEST(plane_form_walks_planes_through_two_buffers)
{
	const struct ks_transform *t = ks_xf_find("stencil_smem_halo");
	struct ks_buf v = KS_BUF_INIT, r = KS_BUF_INIT;
	struct ks_xf_point pt;

	if (!xf_setup(&fx))
		SKIP("no libclang, or the suite's data is missing");
	plane_point(t, &pt);
	pt.v[param_index(t, "by")] = 16;
	pt.v[param_index(t, "depth")] = 2;
	CHECK_INT_EQ(KS_XF_APPLIED, run_xf("bench/stencil3d25/main.cu",
					   "stencil3d25_kernel", &pt, &v, &r,
					   NULL));
	/* 32x16 plus 4 on each side, twice */
	CHECK(strstr(v.buf, "__shared__ float ks_t[2][24][40];"));
	/* 9 + 2 rounded up to a multiple of 2 */
	CHECK(strstr(v.buf, "float ks_q[1][12];"));
	CHECK(strstr(v.buf, "ks_q[ks_v][(ks_u + 10) % 12] = ks_st_ld(in, ks_fc + (ks_I)(ks_v * 32) + ks_ss * (ks_I)(ks_k + 6), ks_n);"));
	/* bands of 4 x 32 above and below, sides of 16 x 8: 384 cells, one
	   per thread at most */
	CHECK(strstr(v.buf, "int ks_hs[1];"));
	CHECK(strstr(v.buf, "ks_hs[ks_s] = ks_c < 384 ? ks_cy_ * 40 + ks_cx_ : -1;"));
	CHECK_INT_EQ(1, occurrences(v.buf, "__syncthreads();"));
	CHECK(strstr(v.buf, "ks_t[ks_ly + (0)][ks_lx + (-1 + -1 * ((r) - (1)))]"));
	CHECK(strstr(v.buf, "ks_t[ks_ly + (1 + 1 * ((r) - (1)))][ks_lx + (0)]"));
	CHECK(strstr(v.buf, "ks_st_q(ks_q, 4 + (-1 + -1 * ((r) - (1))))"));
	CHECK(strstr(v.buf, "template __global__ void ks_st_stencil3d25_kernel<int>("));
	CHECK(strstr(v.buf, "template __global__ void ks_st_stencil3d25_kernel<long long>("));
	CHECK(strstr(v.buf, "if (ks_hi < 0x7fffffffLL && ks_n >= 0 && ks_n < 0x7fffffffLL)"));
	CHECK(strstr(v.buf, "ks_st_stencil3d25_kernel<int><<<ks_g, dim3(32, 16), 0, stream>>>"));
	CHECK(strstr(v.buf, "__launch_bounds__(512, 3)"));
	/* the original's own read only in its definition */
	CHECK_INT_EQ(1, occurrences(v.buf, "in[i - r]"));
	ks_buf_reset(&v);
	/* 2-D, a row of threads is a warp: its own rows, its own halo (the
	   row's first 2 threads), a warp barrier; vx=2: 64 columns */
	plane_point(t, &pt);
	pt.v[param_index(t, "vx")] = 2;
	CHECK_INT_EQ(KS_XF_APPLIED, run_xf("bench/jacobi2d/main.cu",
					   "jacobi2d_kernel", &pt, &v, &r, NULL));
	CHECK(strstr(v.buf, "__shared__ float ks_t[2][8][66];"));
	CHECK(strstr(v.buf, "float ks_q[2][8];"));
	CHECK(strstr(v.buf, "__syncwarp();"));
	CHECK(!strstr(v.buf, "__syncthreads();"));
	CHECK(strstr(v.buf, "ks_hs[0] = (int)threadIdx.x < 2 ? ks_ly * 66 + ((int)threadIdx.x < 1 ? (int)threadIdx.x : 64 + (int)threadIdx.x) : -1;"));
	CHECK(strstr(v.buf, "((void)(i - nx), ks_st_q(ks_q, 1 + (-1)))"));
	CHECK(strstr(v.buf, "((void)(i - 1), ks_t[ks_ly + (0)][ks_lx + (-1)])"));
	CHECK(strstr(v.buf, "ks_g((unsigned)((ks_nx + 63) / 64), (unsigned)((ks_ny + 511) / 512));"));
	ks_buf_reset(&v);
	/* rows of two warps: the block's barrier */
	plane_point(t, &pt);
	pt.v[param_index(t, "bx")] = 64;
	CHECK_INT_EQ(KS_XF_APPLIED, run_xf("bench/jacobi2d/main.cu",
					   "jacobi2d_kernel", &pt, &v, &r, NULL));
	CHECK_INT_EQ(1, occurrences(v.buf, "__syncthreads();"));
	CHECK(!strstr(v.buf, "__syncwarp();"));
	ks_buf_reset(&v);
	/* 3-D 64x8: bands of 64 above and below, sides of 8, no corners */
	CHECK_INT_EQ(KS_XF_APPLIED, run_xf("bench/stencil3d7/main.cu",
					   "stencil3d7_kernel", &pt, &v, &r,
					   NULL));
	CHECK(strstr(v.buf, "__shared__ float ks_t[2][10][66];"));
	CHECK(strstr(v.buf, "ks_hs[ks_s] = ks_c < 144 ? ks_cy_ * 66 + ks_cx_ : -1;"));
	ks_buf_reset(&v);
	/* reads off the column and off the plane at once stay the kernel's
	   own (box27's two, box9's corners) */
	plane_point(t, &pt);
	CHECK_INT_EQ(KS_XF_APPLIED, run_xf(ST, "box27", &pt, &v, &r, NULL));
	CHECK(strstr(v.buf, "in[i - p - nx - 1] + ((void)(i), ks_st_q(ks_q, 1 + (0))) + in[i + p + nx + 1]"));
	/* bands of 34 (the corners: a read off x and y at once), sides of 8 */
	CHECK(strstr(v.buf, "ks_hs[ks_s] = ks_c < 84 ? ks_cy_ * 34 + ks_cx_ : -1;"));
	ks_buf_reset(&v);
	CHECK_INT_EQ(KS_XF_APPLIED, run_xf(ST, "box9", &pt, &v, &r, NULL));
	CHECK(strstr(v.buf, "in[i - pitch - 1]"));
	CHECK(strstr(v.buf, "((void)(i - 1), ks_t[ks_ly + (0)][ks_lx + (-1)])"));
	CHECK(strstr(v.buf, "((void)(i - pitch), ks_st_q(ks_q, 1 + (-1)))"));
	ks_buf_release(&v);
	ks_buf_release(&r);
}

/* The default point is the plane form (the measured winner). */
TEST(default_point_is_the_plane_form)
{
	const struct ks_transform *t = ks_xf_find("stencil_smem_halo");
	struct ks_xf_point pt;

	CHECK(t);
	ks_xf_default_point(t, &pt);
	CHECK_INT_EQ(2, (int)pt.v[param_index(t, "stream")]);
	CHECK_INT_EQ(2, (int)t->params[param_index(t, "stream")].values[0]);
}

/* The plane form declines a 2-D tile rows value and planes too large
 * for shared memory. */
TEST(plane_form_declines_with_reasons)
{
	const struct ks_transform *t = ks_xf_find("stencil_smem_halo");
	struct ks_buf v = KS_BUF_INIT, r = KS_BUF_INIT;
	struct ks_xf_point pt;

	if (!xf_setup(&fx))
		SKIP("no libclang, or the suite's data is missing");
	plane_point(t, &pt);
	pt.v[param_index(t, "rows")] = 8;
	CHECK_INT_EQ(KS_XF_DECLINED, run_xf(ST, "jacobi", &pt, &v, &r, NULL));
	CHECK(strstr(r.buf, "rows applies to the 2-D tile form only"));
	ks_buf_reset(&r);
	plane_point(t, &pt);
	pt.v[param_index(t, "bx")] = 128;
	pt.v[param_index(t, "vx")] = 4;
	CHECK_INT_EQ(KS_XF_DECLINED, run_xf("bench/stencil3d25/main.cu",
					    "stencil3d25_kernel", &pt, &v, &r,
					    NULL));
	CHECK(strstr(r.buf, "two 520x16 planes of float need more than 49152 bytes"));
	CHECK(v.len == 0);
	ks_buf_release(&v);
	ks_buf_release(&r);
}

TEST(tile_too_large_for_shared_memory_declines)
{
	const struct ks_transform *t = ks_xf_find("stencil_smem_halo");
	struct ks_buf v = KS_BUF_INIT, r = KS_BUF_INIT;
	struct ks_xf_point pt;

	if (!xf_setup(&fx))
		SKIP("no libclang, or the suite's data is missing");
	tile_point(t, &pt);
	pt.v[0] = 64;	/* bx */
	pt.v[1] = 16;	/* by */
	pt.v[2] = 8;	/* rows: 66 x 130 doubles */
	CHECK_INT_EQ(KS_XF_DECLINED, run_xf(ST, "box9", &pt, &v, &r, NULL));
	CHECK(strstr(r.buf, "needs more than 49152 bytes"));
	ks_buf_reset(&r);
	pt.v[1] = 32;	/* by: 64 x 32 threads */
	CHECK_INT_EQ(KS_XF_DECLINED, run_xf(ST, "box9", &pt, &v, &r, NULL));
	ks_buf_release(&v);
	ks_buf_release(&r);
}

/* blockIdx.z * blockDim.z * nx * ny: three symbols in one monomial stay
 * exact (a 3-D grid's plane stride); a fourth makes it opaque. */
TEST(plane_stride_of_three_symbols_stays_exact)
{
	struct ks_form z, bd, nx, ny, w, t, u;
	long long k;

	ks_form_src(&z, KS_SRC_BID_Z);
	ks_form_sym(&bd, KS_SYM_BDIM_Z);
	ks_form_sym(&nx, KS_SYM_USER);
	ks_form_sym(&ny, KS_SYM_USER + 1);
	ks_form_sym(&w, KS_SYM_USER + 2);
	ks_form_mul(&t, &z, &bd);
	ks_form_mul(&t, &t, &nx);
	ks_form_mul(&t, &t, &ny);
	CHECK(!t.c[KS_SRC_BID_Z].opaque);
	CHECK_INT_EQ(1, t.c[KS_SRC_BID_Z].n);
	/* the same product in another order is the same form */
	ks_form_mul(&u, &ny, &nx);
	ks_form_mul(&u, &u, &z);
	ks_form_mul(&u, &u, &bd);
	CHECK(ks_form_equal(&t, &u));
	/* minus itself is zero */
	ks_form_sub(&u, &t, &u);
	CHECK(ks_form_is_const(&u, &k) && k == 0);
	ks_form_mul(&t, &t, &w);
	CHECK(t.c[KS_SRC_BID_Z].opaque);
}

void
ks_suite_xf_stencil(void)
{
	RUN(applies_to_stencils_and_declines_look_alikes);
	RUN(variants_are_deterministic_and_rewritable);
	RUN(every_point_applies_or_says_why);
	RUN(tile_and_column_follow_the_reads);
	RUN(streaming_form_rings_the_column);
	RUN(packed_plane_form_takes_four_outputs_a_thread);
	RUN(packed_plane_form_unrolls_fewer_steps_with_a_moving_window);
	RUN(packed_form_runs_one_body_on_lanes_where_the_body_allows);
	RUN(plane_form_walks_planes_through_two_buffers);
	RUN(plane_form_declines_with_reasons);
	RUN(default_point_is_the_plane_form);
	RUN(rows_and_depth_follow_the_radius);
	RUN(tile_too_large_for_shared_memory_declines);
	RUN(plane_stride_of_three_symbols_stays_exact);
	xf_teardown(&fx);
}
