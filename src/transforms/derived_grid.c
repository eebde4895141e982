/*
 * derived_grid: a 1-D kernel that decomposes its flat thread index by
 * division and remainder (`ow = i % wo; t = i / wo; oh = t % ho; nc = t /
 * ho`) gets those coordinates from a 2-D or 3-D grid instead, so that no
 * thread divides.
 *
 * Recognized in the facts (facts.h, derived coordinates): the derived
 * quotients form a chain Q0 = g / r0, Q1 = Q0 / r1 (at most two) over
 * the flat global index g = blockIdx.x * blockDim.x + threadIdx.x, each
 * divisor a kernel parameter, a product of them or a constant; and the
 * divisions by a run-time value that compute them (the divmod facts with
 * their quotient and text range). The digits are D0 = g - r0 Q0 in
 * [0, r0), D1 = Q0 - r1 Q1 in [0, r1) and the top Q1 (Q0 for one level).
 *
 * The variant walks the digits directly: threadIdx.x and blockIdx.x give
 * D0, y gives D1, z (grid-stride) the top; each thread rebuilds g and the
 * quotients by multiplication, gives the body its original thread and
 * block coordinates exactly (a division by the block size the compiler
 * drops when the body only uses the global index), and the body, copied,
 * reads each replaced division as the digit, cast to the type of the
 * expression it replaces (`decltype`, so size_t arithmetic stays size_t).
 * The launcher checks what the decomposition assumes (a 1-D launch of
 * fewer than 2^31 threads, divisors between 1 and 2^31) and launches the
 * original otherwise.
 */
#include <stdlib.h>
#include <string.h>

#include "../analysis/inventory.h"
#include "../core/buf.h"
#include "transform.h"
#include "xfbody.h"
#include "xfkit.h"

static const struct ks_xfbody_rename renames[] = {
	{ "threadIdx", "ks_tid" },
	{ "blockIdx", "ks_bid" },
	{ "blockDim", "ks_bdim" },
	{ "gridDim", "ks_gdim" },
	{ NULL, NULL },
};

/* A copy through a permutation of the derived coordinates: the only
 * thread-dependent global load (of L) and the only global store (of S)
 * sit outside loops at offsets exact in the chain's coordinates, S moves
 * by one element along coordinate cs and L along another, cl; other loads
 * are the same for every thread; L and S are pointer parameters of one
 * element type, used only as L[...] and S[...]. */
struct tile {
	int L, S;		/* the accesses */
	int cs, cl;		/* the coordinates they are contiguous along */
	struct ks_xfbody_elem e;
};

static int
contiguous_coord(const struct ks_facts *f, int m, const struct ks_access *a)
{
	struct ks_xform v;
	long long step;

	if (!ks_form_exact(&a->offset, &v))
		return -1;
	for (int c = 0; c <= m; c++)
		if (ks_facts_derived_step(f, m, &v, c, &step) &&
		    step == (long long)a->bytes)
			return c;
	return -1;
}

static int
tile_copy(const struct ks_xf_input *in, int m, struct tile *t)
{
	const struct ks_kernel *k = in->kernel;
	const struct ks_facts *f = &k->facts;
	struct ks_xfbody_elem le;
	struct ks_buf r = KS_BUF_INIT;
	int ok = 0;

	t->L = t->S = -1;
	for (size_t i = 0; i < f->nacc; i++) {
		const struct ks_access *a = &f->acc[i];
		const struct ks_array *arr = &f->arrays[a->array];

		if (a->flags & KS_ACC_ATOMIC)
			return 0;
		if (arr->space != KS_SPACE_GLOBAL && arr->space != KS_SPACE_UNKNOWN)
			continue;
		if (a->flags & KS_ACC_STORE) {
			if (t->S >= 0)
				return 0;
			t->S = (int)i;
		} else if (ks_form_sources(&a->offset) & KS_SRC_THREAD_MASK) {
			if (t->L >= 0)
				return 0;
			t->L = (int)i;
		} else if (a->offset.data ||
			   (ks_form_sources(&a->offset) & KS_SRC_LOOP_MASK)) {
			return 0;
		}
	}
	if (t->L < 0 || t->S < 0)
		return 0;
	for (int s = 0; s < 2; s++) {
		const struct ks_access *a = &f->acc[s ? t->S : t->L];
		const struct ks_array *arr = &f->arrays[a->array];

		if (a->loop >= 0 || (a->flags & KS_ACC_VECTOR) ||
		    arr->space != KS_SPACE_GLOBAL || arr->param < 0)
			return 0;
	}
	if (f->acc[t->L].array == f->acc[t->S].array)
		return 0;
	for (size_t i = 0; i < f->nacc; i++)
		if ((f->acc[i].array == f->acc[t->L].array ||
		     f->acc[i].array == f->acc[t->S].array) &&
		    (int)i != t->L && (int)i != t->S)
			return 0;
	t->cs = contiguous_coord(f, m, &f->acc[t->S]);
	t->cl = contiguous_coord(f, m, &f->acc[t->L]);
	if (t->cs < 0 || t->cl < 0 || t->cs == t->cl)
		return 0;
	if (ks_xfbody_elem(k, f->arrays[f->acc[t->L].array].param, &le, &r) ||
	    ks_xfbody_elem(k, f->arrays[f->acc[t->S].array].param, &t->e, &r) ||
	    strcmp(le.ctype, t->e.ctype) || le.bytes != f->acc[t->L].bytes ||
	    t->e.bytes != f->acc[t->S].bytes)
		goto out;
	if (!ks_xfbody_only_subscripted(
		    in->text, in->len, k,
		    k->params[f->arrays[f->acc[t->L].array].param].name, &r) ||
	    !ks_xfbody_only_subscripted(
		    in->text, in->len, k,
		    k->params[f->arrays[f->acc[t->S].array].param].name, &r))
		goto out;
	ok = 1;
out:
	ks_buf_release(&r);
	return ok;
}

/* The chain's values from the coordinates ks_e0 .. ks_e<m>, then the body
 * at the original thread of g (tid and bid stepped, not divided). The
 * tile kernel runs only where the launcher proved every coordinate, g and
 * the quotients below 2^31: the digits are ints (so the body's own index
 * arithmetic on them is that of values that cannot wrap, which the
 * compiler may fold across the unrolled elements), g and the thread
 * coordinates 32-bit unsigned. */
static void
tile_call(struct ks_buf *o, int m, const char *kname, const char *targs,
	  const char *cell, int load, int replay, long long rows, const char *T)
{
	struct ks_buf pin = KS_BUF_INIT, pout = KS_BUF_INIT;

	if (replay) {
		ks_buf_addf(&pin, "ks_tile_ld<%s> ks_in = { ks_L };", T);
		ks_buf_addf(&pout,
			    "ks_tile_rec<%s> ks_out = { %s, &ks_pa[ks_j / %lld] };",
			    T, cell, rows);
	} else {
		ks_buf_addf(&pin, "ks_tile_in<%s> ks_in = { ks_L, %s, %d };", T,
			    cell, load);
		ks_buf_addf(&pout, "ks_tile_out<%s> ks_out = { ks_S, %d };", T,
			    !load);
	}
	if (m == 2)
		ks_buf_adds(o,
			"\t\t\t\t\tconst int ks_q1 = ks_e2, ks_d1 = ks_e1;\n"
			"\t\t\t\t\tconst int ks_q0 = (int)((unsigned)ks_e1 + ks_r1 * (unsigned)ks_q1);\n");
	else
		ks_buf_adds(o,
			"\t\t\t\t\tconst int ks_q0 = ks_e1;\n");
	ks_buf_addf(o,
		"\t\t\t\t\tconst int ks_d0 = ks_e0;\n"
		"\n"
		"\t\t\t\t\tif (ks_g < ks_n) {\n"
		"\t\t\t\t\t\t%s\n"
		"\t\t\t\t\t\t%s\n"
		"\n"
		"\t\t\t\t\t\tks_dg_body_%s(make_uint3(ks_tm, 0, 0), make_uint3(ks_bm, 0, 0),\n"
		"\t\t\t\t\t\t\tks_ob, ks_og, ks_d0, ks_q0, %s%s);\n"
		"\t\t\t\t\t}\n",
		pin.buf, pout.buf, kname, m == 2 ? "ks_d1, ks_q1, " : "",
		targs);
	ks_buf_release(&pin);
	ks_buf_release(&pout);
}

/* One phase over the tile at (ks_u0, ks_v0): threadIdx.x walks coordinate
 * `fx` (from tile origin ox), the rows coordinate `mv` (from om), `rows`
 * apart; ks_gs: g's step per row step. The load phase's registers (ks_v,
 * the caller's) go to the tile later (tile_fill), so the next tile's
 * loads are in flight while the current one is stored. */
static void
tile_phase(struct ks_buf *o, int m, int fx, const char *ox, int mv,
	   const char *om, int w, long long rows, int load, int replay,
	   const char *T, const char *kname, const char *targs)
{
	struct ks_buf cell = KS_BUF_INIT;

	if (load)
		ks_buf_addf(&cell, "&ks_v[ks_j / %lldu]", rows);
	else
		ks_buf_adds(&cell, "&ks_t[threadIdx.x][threadIdx.y + ks_j]");
	ks_buf_addf(o,
		"\t\t\t/* %s phase: threadIdx.x walks coordinate %d */\n"
		"\t\t\tconst int ks_f = (int)(%s + threadIdx.x);\n"
		"\t\t\tconst int ks_m = (int)(%s + threadIdx.y);\n"
		"\t\t\tconst unsigned ks_gs = %lldu * ks_gstep%d;\n"
		"\t\t\tconst unsigned ks_sq = ks_gs / ks_ob.x, ks_sr = ks_gs %% ks_ob.x;\n"
		"\t\t\tunsigned ks_g = (unsigned)ks_f * ks_gstep%d + (unsigned)ks_m * ks_gstep%d%s;\n"
		"\t\t\tunsigned ks_bm = ks_g / ks_ob.x;\n"
		"\t\t\tunsigned ks_tm = ks_g - ks_bm * ks_ob.x;\n",
		load ? "load" : "store", fx, ox, om, rows, mv, fx, mv,
		w >= 0 ? (w == 0 ? " + (unsigned)ks_w * ks_gstep0"
				 : w == 1 ? " + (unsigned)ks_w * ks_gstep1"
					  : " + (unsigned)ks_w * ks_gstep2")
		       : "");
	ks_buf_addf(o,
		"\n"
		"#pragma unroll\n"
		"\t\t\tfor (int ks_j = 0; ks_j < 32; ks_j += %lld) {\n"
		"\t\t\t\tconst int ks_e%d = ks_f, ks_e%d = ks_m + ks_j;\n",
		rows, fx, mv);
	if (w >= 0)
		ks_buf_addf(o, "\t\t\t\tconst int ks_e%d = ks_w;\n", w);
	ks_buf_addf(o,
		"\n"
		"\t\t\t\tif (ks_e%d < ks_R%d && ks_e%d < ks_R%d) {\n",
		fx, fx, mv, mv);
	tile_call(o, m, kname, targs, cell.buf, load, replay, rows, T);
	ks_buf_adds(o,
		"\t\t\t\t}\n"
		"\t\t\t\tks_g += ks_gs;\n"
		"\t\t\t\tks_tm += ks_sr;\n"
		"\t\t\t\tks_bm += ks_sq;\n"
		"\t\t\t\tif (ks_tm >= ks_ob.x) {\n"
		"\t\t\t\t\tks_tm -= ks_ob.x;\n"
		"\t\t\t\t\tks_bm++;\n"
		"\t\t\t\t}\n"
		"\t\t\t}\n");
	ks_buf_release(&cell);
}

/* The tiled variant: 32x32 tiles of coordinates (cs, cl), `tiles` of
 * them per block along cl, the third coordinate (if any) along z. */
static int
emit_tiled(const struct ks_xf_input *in, const struct tile *t, int m,
	   long long rows, long long tiles, int replay, const struct ks_buf *rc,
	   const char *body, const char *args, const char *params,
	   struct ks_buf *variant, struct ks_buf *reason)
{
	const struct ks_kernel *k = in->kernel;
	const struct ks_facts *f = &k->facts;
	const int lp = f->arrays[f->acc[t->L].array].param;
	const int sp = f->arrays[f->acc[t->S].array].param;
	const int w = m == 2 ? 3 - t->cs - t->cl : -1;
	const char *T = t->e.ctype;
	struct ks_buf intype = KS_BUF_INIT, outtype = KS_BUF_INIT;
	struct ks_buf bparams = KS_BUF_INIT, targs = KS_BUF_INIT;
	struct ks_buf dparams = KS_BUF_INIT;
	int rc_ = -1;

	ks_buf_addf(&intype, replay ? "ks_tile_ld<%s>" : "ks_tile_in<%s>", T);
	ks_buf_addf(&outtype, replay ? "ks_tile_rec<%s>" : "ks_tile_out<%s>",
		    T);
	if (ks_xfbody_params(k, lp, intype.buf, sp, outtype.buf, &bparams,
			     reason))
		goto out;
	for (size_t i = 0; i < k->nparams; i++)
		ks_buf_addf(&targs, "%s%s", i ? ", " : "",
			    (int)i == lp ? "ks_in"
			    : (int)i == sp ? "ks_out" : k->params[i].name);
	for (int q = 0; q < m; q++)
		ks_buf_addf(&dparams, "const int ks_d%d, const int ks_q%d, ", q,
			    q);
	ks_buf_addf(variant,
		    "// %s: a copy through a permutation of its flat index's "
		    "derived coordinates, staged through a padded 32x32 "
		    "shared tile, 32x%lld threads, %lld tile%s per block "
		    "(derived_grid)\n",
		    k->name, rows, tiles, tiles > 1 ? "s" : "");
	ks_buf_adds(variant, "// ks-nvcc: helpers\n");
	ks_buf_adds(variant, ks_xfbody_tile_helpers);
	ks_buf_addf(variant,
		    "/* The body of %s at thread ks_tid of block ks_bid, its "
		    "divisions read from the digits. */\n"
		    "__device__ __forceinline__ static void\n"
		    "ks_dg_body_%s(const uint3 ks_tid, const uint3 ks_bid, "
		    "const dim3 ks_bdim, const dim3 ks_gdim, %s%s)\n",
		    k->name, k->name, dparams.buf, bparams.buf);
	ks_buf_adds(variant, body);
	ks_buf_adds(variant, "\n\n");
	ks_buf_addf(variant,
		"/* Coordinate %d (the store's) from x, %d (the load's) from y, %lld\n"
		"   tile%s per block%s; the original grid is ks_og blocks of ks_ob.\n"
		"   Every coordinate, g and quotient is below 2^31 (the launcher). */\n"
		"__global__ void __launch_bounds__(%lld, %lld)\n"
		"ks_dg_%s(const dim3 ks_og, const dim3 ks_ob, "
		"const unsigned long long ks_top, %s)\n"
		"{\n"
		"\t__shared__ %s ks_t[32][33];\n"
		"%s"
		"\tconst %s *const ks_L = %s;\n"
		"\t%s *const ks_S = %s;\n"
		"\tconst unsigned ks_n = ks_og.x * ks_ob.x;\n"
		"\tconst unsigned ks_r0 = (unsigned)%s;\n",
		t->cs, t->cl, tiles, tiles > 1 ? "s" : "",
		w >= 0 ? ", the third from z" : "", 32 * rows,
		ks_xfbody_tile_min_blocks(32, rows), k->name, params, T,
		replay ? "\t__shared__ long long ks_a[32][33];\n" : "", T,
		k->params[lp].name, T, k->params[sp].name, rc[0].buf);
	if (m == 2)
		ks_buf_addf(variant,
			"\tconst unsigned ks_r1 = (unsigned)%s;\n"
			"\tconst int ks_R0 = (int)ks_r0, ks_R1 = (int)ks_r1, ks_R2 = (int)ks_top;\n"
			"\tconst unsigned ks_gstep0 = 1, ks_gstep1 = ks_r0, "
			"ks_gstep2 = ks_r0 * ks_r1;\n",
			rc[1].buf);
	else
		ks_buf_adds(variant,
			"\tconst int ks_R0 = (int)ks_r0, ks_R1 = (int)ks_top;\n"
			"\tconst unsigned ks_gstep0 = 1, ks_gstep1 = ks_r0;\n");
	ks_buf_addf(variant,
		"\tconst unsigned ks_u0 = blockIdx.x * 32u;\n"
		"\tconst unsigned ks_ta = blockIdx.y * %lldu;\n"
		"\tconst unsigned ks_tn = ((unsigned)ks_R%d + 31u) / 32u;\n"
		"\tconst unsigned ks_te = ks_ta + %lldu < ks_tn ? ks_ta + %lldu : ks_tn;\n"
		"\n"
		"\tfor (int ks_w = (int)blockIdx.z; ks_w < %s; ks_w += (int)gridDim.z) {\n"
		"\t\t%s ks_v[%lld] = {};\n",
		tiles, t->cl, tiles, tiles,
		w == 0 ? "ks_R0" : w == 1 ? "ks_R1" : w == 2 ? "ks_R2" : "1", T,
		32 / rows);
	if (replay) {
		ks_buf_adds(variant, "\t\tlong long ks_pa[] = {");
		for (long long j = 0; j < 32 / rows; j++)
			ks_buf_addf(variant, "%s KS_TILE_NONE", j ? "," : "");
		ks_buf_adds(variant, " };\n");
	}
	ks_buf_adds(variant, "\n");
	if (w < 0)
		ks_buf_adds(variant, "\t\t(void)ks_w;\n");
	ks_buf_adds(variant,
		"\t\t{\n"
		"\t\t\tconst unsigned ks_v0 = ks_ta * 32u;\n"
		"\n");
	tile_phase(variant, m, t->cl, "ks_v0", t->cs, "ks_u0", w, rows, 1,
		   replay, T, k->name, targs.buf);
	ks_buf_addf(variant,
		"\t\t}\n"
		"\t\tfor (unsigned ks_tv = ks_ta; ks_tv < ks_te; ks_tv++) {\n"
		"#pragma unroll\n"
		"\t\t\tfor (int ks_j = 0; ks_j < 32; ks_j += %lld) {\n"
		"\t\t\t\tks_t[threadIdx.y + ks_j][threadIdx.x] = ks_v[ks_j / %lld];\n",
		rows, rows);
	if (replay)
		ks_buf_addf(variant,
			"\t\t\t\tks_a[threadIdx.y + ks_j][threadIdx.x] = ks_pa[ks_j / %lld];\n"
			"\t\t\t\tks_pa[ks_j / %lld] = KS_TILE_NONE;\n",
			rows, rows);
	ks_buf_adds(variant,
		"\t\t\t}\n"
		"\t\t\t__syncthreads();\n"
		"\t\t\tif (ks_tv + 1 < ks_te) {\n"
		"\t\t\t\tconst unsigned ks_v0 = (ks_tv + 1) * 32u;\n"
		"\n");
	tile_phase(variant, m, t->cl, "ks_v0", t->cs, "ks_u0", w, rows, 1,
		   replay, T, k->name, targs.buf);
	if (replay)
		/* the recorded stores, threadIdx.x along the store's
		 * coordinate: a warp's indices are consecutive */
		ks_buf_addf(variant,
			"\t\t\t}\n"
			"#pragma unroll\n"
			"\t\t\tfor (int ks_j = 0; ks_j < 32; ks_j += %lld) {\n"
			"\t\t\t\tconst long long ks_i = ks_a[threadIdx.x][threadIdx.y + ks_j];\n"
			"\n"
			"\t\t\t\tif (ks_i != KS_TILE_NONE)\n"
			"\t\t\t\t\tks_S[ks_i] = ks_t[threadIdx.x][threadIdx.y + ks_j];\n"
			"\t\t\t}\n"
			"\t\t\t{\n",
			rows);
	else {
		ks_buf_adds(variant,
			"\t\t\t}\n"
			"\t\t\t{\n"
			"\t\t\t\tconst unsigned ks_v0 = ks_tv * 32u;\n"
			"\n");
		tile_phase(variant, m, t->cs, "ks_u0", t->cl, "ks_v0", w, rows,
			   0, 0, T, k->name, targs.buf);
	}
	ks_buf_adds(variant,
		"\t\t\t}\n"
		"\t\t\t__syncthreads();\n"
		"\t\t}\n"
		"\t}\n"
		"}\n");
	ks_buf_adds(variant, "// ks-nvcc: definition\n");
	if (ks_xfbody_definition(in->text, in->len, k, variant, reason))
		goto out;
	ks_xfbody_launcher_open(variant, k->name, params, 0);
	ks_buf_addf(variant,
		"\tconst dim3 ks_ob = block, ks_og = grid;\n"
		"\tconst unsigned long long ks_n = (unsigned long long)grid.x * block.x;\n"
		"\tconst long long ks_r0 = %s;\n"
		"\tconst long long ks_r1 = %s;\n"
		"\tunsigned long long ks_top, ks_R[3], ks_ty;\n"
		"\n"
		"\t(void)ks_ob;\n"
		"\t(void)ks_og;\n"
		"\t/* what the decomposition assumes and the tile kernel's 32-bit\n"
		"\t   coordinates need (g, every coordinate and r0 * r1 below\n"
		"\t   2^31 - 256), else the original */\n"
		"\tif (grid.y != 1 || grid.z != 1 || block.y != 1 || block.z != 1 || shmem ||\n"
		"\t    ks_n == 0 || ks_n > 0x7fffff00ull || ks_r0 <= 0 || ks_r0 > 0x7fffff00LL ||\n"
		"\t    ks_r1 <= 0 || ks_r1 > 0x7fffff00LL || ks_r0 * ks_r1 > 0x7fffff00LL) {\n"
		"\t\t%s<<<grid, block, shmem, stream>>>(%s);\n"
		"\t\treturn;\n"
		"\t}\n"
		"\tks_top = (ks_n + (unsigned long long)(ks_r0 * ks_r1) - 1) /\n"
		"\t\t(unsigned long long)(ks_r0 * ks_r1);\n"
		"\tks_R[0] = (unsigned long long)ks_r0;\n"
		"\tks_R[1] = %s;\n"
		"\tks_R[2] = ks_top;\n"
		"\tks_ty = ((ks_R[%d] + 31) / 32 + %lld) / %lld;\n"
		"\tif (ks_ty > 65535 || (ks_R[%d] + 31) / 32 > 0x7fffffffull) {\n"
		"\t\t%s<<<grid, block, shmem, stream>>>(%s);\n"
		"\t\treturn;\n"
		"\t}\n"
		"\tks_dg_%s<<<dim3((unsigned)((ks_R[%d] + 31) / 32), (unsigned)ks_ty,\n"
		"\t\t\t   (unsigned)%s),\n"
		"\t\t   dim3(32, %lld), 0, stream>>>(grid, block, ks_top, %s);\n"
		"}\n",
		rc[0].buf, m == 2 ? rc[1].buf : "1LL", k->name,
		args, m == 2 ? "(unsigned long long)ks_r1" : "ks_top", t->cl,
		tiles - 1, tiles, t->cs, k->name, args, k->name, t->cs,
		w >= 0 ? (w == 0 ? "(ks_R[0] < 65535 ? ks_R[0] : 65535)"
			 : w == 1 ? "(ks_R[1] < 65535 ? ks_R[1] : 65535)"
				  : "(ks_R[2] < 65535 ? ks_R[2] : 65535)")
		       : "1",
		rows, args);
	rc_ = 0;
out:
	ks_buf_release(&intype);
	ks_buf_release(&outtype);
	ks_buf_release(&bparams);
	ks_buf_release(&targs);
	ks_buf_release(&dparams);
	return rc_;
}

static enum ks_xf_result
apply(const struct ks_xf_input *in, const struct ks_xf_point *p,
      struct ks_buf *variant, struct ks_buf *reason)
{
	const struct ks_kernel *k = in->kernel;
	const struct ks_facts *f = &k->facts;
	const long long bx = p->v[0], by = p->v[1];
	struct ks_xfk x;
	struct ks_buf rc[2] = { KS_BUF_INIT, KS_BUF_INIT };
	struct ks_buf params = KS_BUF_INIT, args = KS_BUF_INIT;
	struct ks_buf body = KS_BUF_INIT, dparams = KS_BUF_INIT;
	struct ks_xfbody_edit *edits = NULL;
	char **withs = NULL;
	size_t nedits = 0, nwith = 0, m = f->ndquots;
	struct tile t;
	enum ks_xf_result res = KS_XF_DECLINED;

	memset(&x, 0, sizeof(x));
	if (bx * by > 1024) {
		ks_buf_addf(reason, "a %lldx%lld block has more than 1024 threads",
			    bx, by);
		return KS_XF_DECLINED;
	}
	if (ks_xfbody_plain_kernel(k, 0, reason) || ks_xfk_init(&x, in, reason))
		goto out;
	/* both launchers take 1-D launches only */
	if (!ks_xf_launches_flat(&in->opts, 0, 0, reason))
		goto out;
	if (m == 0) {
		ks_buf_addf(reason,
			    "%s does not divide its flat thread index by a "
			    "uniform value (no derived coordinates)",
			    k->name);
		goto out;
	}
	if (m > 2) {
		ks_buf_addf(reason,
			    "%s derives more than three coordinates from its "
			    "thread index (%zu quotients; at most two)",
			    k->name, m);
		goto out;
	}
	if (ks_facts_derived_chain(f) != (int)m) {
		ks_buf_addf(reason,
			    "%s's divisions do not decompose the flat index "
			    "blockIdx.x * blockDim.x + threadIdx.x step by step "
			    "(each quotient divided again, by a uniform value)",
			    k->name);
		goto out;
	}
	for (size_t q = 0; q < m; q++) {
		const struct ks_dquot *d = &f->dquots[q];
		struct ks_form den;

		ks_form_zero(&den);
		den.c[KS_SRC_ONE] = d->den;
		if (ks_xfk_form_c(&x, &den, NULL, NULL, "ks_o", &rc[q])) {
			ks_buf_addf(reason,
				    "the divisor of quotient %zu is not a product "
				    "of kernel parameters and constants",
				    q);
			goto out;
		}
	}
	/* the divisions to replace: those computing a quotient or digit */
	edits = calloc(f->ndivmods + 1, sizeof(*edits));
	withs = calloc(f->ndivmods + 1, sizeof(*withs));
	if (!edits || !withs)
		goto out;
	for (size_t i = 0; i < f->ndivmods; i++) {
		const struct ks_divmod *d = &f->divmods[i];
		struct ks_buf w = KS_BUF_INIT;
		int q = d->dquot;

		if (q < 0 || !d->in_main || d->begin < k->body.begin ||
		    d->end > k->body.end || d->end <= d->begin ||
		    d->end > in->len || !ks_xfbody_pure_text(in->text, d->begin, d->end))
			continue;
		/* a remainder is the digit, a division the quotient; the
		 * expression's value is discarded (the compiler drops it) so
		 * that its operands stay used */
		ks_buf_adds(&w, "((decltype(");
		ks_buf_add(&w, in->text + d->begin, d->end - d->begin);
		ks_buf_adds(&w, "))((void)(");
		ks_buf_add(&w, in->text + d->begin, d->end - d->begin);
		ks_buf_addf(&w, "), ks_%c%d))", d->rem ? 'd' : 'q', q);
		edits[nedits].begin = d->begin;
		edits[nedits].end = d->end;
		withs[nwith] = ks_buf_detach(&w, NULL);
		edits[nedits].with = withs[nwith++];
		nedits++;
	}
	ks_xfbody_sort_edits(edits, nedits);
	{
		/* a division inside a replaced one goes with it */
		size_t o = 0;

		for (size_t i = 0; i < nedits; i++)
			if (!o || edits[i].begin >= edits[o - 1].end)
				edits[o++] = edits[i];
		nedits = o;
	}
	if (!nedits) {
		ks_buf_addf(reason,
			    "%s has no division by a run-time value that "
			    "computes a derived coordinate (nothing to save)",
			    k->name);
		goto out;
	}
	if (ks_xfbody_params(k, -1, NULL, -1, NULL, &params, reason) ||
	    ks_xfbody_copy(in->text, in->len, k, edits, nedits, renames, &body,
			   reason))
		goto out;
	ks_xfbody_args(k, &args);
	for (size_t q = 0; q < m; q++)
		ks_buf_addf(&dparams,
			    "const unsigned long long ks_d%zu, "
			    "const unsigned long long ks_q%zu, ",
			    q, q);
	if (tile_copy(in, (int)m, &t)) {
		if (bx != 32) {
			ks_buf_addf(reason,
				    "the permuted copy is staged through a tile "
				    "32 wide (bx=32 only)");
			goto out;
		}
		/* the tile's thread rows: trows, or by where trows=0 */
		if (emit_tiled(in, &t, (int)m, p->v[4] ? p->v[4] : by, p->v[2],
			       p->v[3] != 0, rc,
			       body.buf,
			       args.buf, params.buf, variant, reason))
			goto out;
		res = KS_XF_APPLIED;
		goto out;
	}

	ks_buf_addf(variant,
		    "// %s: its flat index's derived coordinates from a %dD "
		    "grid of %lldx%lld blocks, no division (derived_grid)\n",
		    k->name, (int)m + 1, bx, by);
	ks_buf_adds(variant, "// ks-nvcc: helpers\n");
	ks_buf_addf(variant,
		    "/* The body of %s at thread ks_tid of block ks_bid, its "
		    "divisions read from the digits. */\n"
		    "__device__ __forceinline__ static void\n"
		    "ks_dg_body_%s(const uint3 ks_tid, const uint3 ks_bid, "
		    "const dim3 ks_bdim, const dim3 ks_gdim, %s%s)\n",
		    k->name, k->name, dparams.buf, params.buf);
	ks_buf_add(variant, body.buf, body.len);
	ks_buf_adds(variant, "\n\n");
	ks_buf_addf(variant,
		"/* D0 from x, %s; the original grid is ks_og blocks of ks_ob. */\n"
		"__global__ void __launch_bounds__(%lld)\n"
		"ks_dg_%s(const dim3 ks_og, const dim3 ks_ob, "
		"const unsigned long long ks_top, const unsigned ks_mg, const unsigned ks_s1,\n"
		"\tconst unsigned ks_s2, %s)\n"
		"{\n"
		"\tconst unsigned long long ks_n = (unsigned long long)ks_og.x * ks_ob.x;\n"
		"\tconst unsigned long long ks_r0 = (unsigned long long)%s;\n"
		"\tconst unsigned long long ks_d0 = (unsigned long long)blockIdx.x * %lldu + threadIdx.x;\n",
		m == 2 ? "D1 from y, the top from z" : "the top from y",
		bx * by, k->name, params.buf, rc[0].buf, bx);
	if (m == 2)
		ks_buf_addf(variant,
			"\tconst unsigned long long ks_r1 = (unsigned long long)%s;\n"
			"\tconst unsigned long long ks_d1 = (unsigned long long)blockIdx.y * %lldu + threadIdx.y;\n"
			"\n"
			"\tif (ks_d0 >= ks_r0 || ks_d1 >= ks_r1)\n"
			"\t\treturn;\n"
			"\tfor (unsigned long long ks_q1 = blockIdx.z; ks_q1 < ks_top; ks_q1 += gridDim.z) {\n"
			"\t\tconst unsigned long long ks_q0 = ks_d1 + ks_r1 * ks_q1;\n",
			rc[1].buf, by);
	else
		ks_buf_addf(variant,
			"\n"
			"\tif (ks_d0 >= ks_r0)\n"
			"\t\treturn;\n"
			"\tfor (unsigned long long ks_q0 = (unsigned long long)blockIdx.y * %lldu + threadIdx.y;\n"
			"\t     ks_q0 < ks_top; ks_q0 += (unsigned long long)gridDim.y * %lldu) {\n",
			by, by);
	ks_buf_addf(variant,
		"\t\tconst unsigned long long ks_g = ks_d0 + ks_r0 * ks_q0;\n"
		"\t\t/* ks_g / ks_ob.x by its multiplier (Granlund-Montgomery) */\n"
		"\t\tconst unsigned ks_h = __umulhi((unsigned)ks_g, ks_mg);\n"
		"\t\tconst unsigned ks_b = (ks_h + (((unsigned)ks_g - ks_h) >> ks_s1)) >> ks_s2;\n"
		"\n"
		"\t\tif (ks_g >= ks_n)\n"
		"\t\t\treturn;\n"
		"\t\tks_dg_body_%s(make_uint3((unsigned)ks_g - ks_b * ks_ob.x, 0, 0),\n"
		"\t\t\tmake_uint3(ks_b, 0, 0), ks_ob, ks_og, ks_d0, ks_q0, %s%s);\n"
		"\t}\n"
		"}\n",
		k->name, m == 2 ? "ks_d1, ks_q1, " : "", args.buf);
	ks_buf_adds(variant, "// ks-nvcc: definition\n");
	if (ks_xfbody_definition(in->text, in->len, k, variant, reason))
		goto out;
	ks_xfbody_launcher_open(variant, k->name, params.buf, 0);
	ks_buf_addf(variant,
		"\tconst dim3 ks_ob = block, ks_og = grid;\n"
		"\tconst unsigned long long ks_n = (unsigned long long)grid.x * block.x;\n"
		"\tconst long long ks_r0 = %s;\n"
		"\tconst long long ks_r1 = %s;\n"
		"\tunsigned long long ks_top;\n"
		"\tunsigned ks_l = 0, ks_mg, ks_s1, ks_s2;\n"
		"\n"
		"\t(void)ks_ob;\n"
		"\t(void)ks_og;\n"
		"\t/* what the decomposition assumes, else the original */\n"
		"\tif (grid.y != 1 || grid.z != 1 || block.y != 1 || block.z != 1 ||\n"
		"\t    ks_n == 0 || ks_n > 0x7fffffffull || ks_r0 <= 0 || ks_r0 > 0x7fffffffLL ||\n"
		"\t    ks_r1 <= 0 || ks_r1 > 65535LL * %lld) {\n"
		"\t\t%s<<<grid, block, shmem, stream>>>(%s);\n"
		"\t\treturn;\n"
		"\t}\n"
		"\tks_top = (ks_n + (unsigned long long)(ks_r0 * ks_r1) - 1) /\n"
		"\t\t(unsigned long long)(ks_r0 * ks_r1);\n"
		"\t/* the multiplier that divides 32-bit values by block.x */\n"
		"\twhile ((1ull << ks_l) < block.x)\n"
		"\t\tks_l++;\n"
		"\tks_mg = (unsigned)(((1ull << 32) * ((1ull << ks_l) - block.x)) / block.x + 1);\n"
		"\tks_s1 = ks_l < 1 ? ks_l : 1;\n"
		"\tks_s2 = ks_l > 1 ? ks_l - 1 : 0;\n",
		rc[0].buf, m == 2 ? rc[1].buf : "1LL",
		m == 2 ? by : 1, k->name, args.buf);
	if (m == 2)
		ks_buf_addf(variant,
			"\tks_dg_%s<<<dim3((unsigned)((ks_r0 + %lld) / %lld),\n"
			"\t\t\t   (unsigned)((ks_r1 + %lld) / %lld),\n"
			"\t\t\t   (unsigned)(ks_top < 65535 ? ks_top : 65535)),\n"
			"\t\t   dim3(%lld, %lld), shmem, stream>>>(grid, block, ks_top, ks_mg, ks_s1, ks_s2, %s);\n"
			"}\n",
			k->name, bx - 1, bx, by - 1, by, bx, by, args.buf);
	else
		ks_buf_addf(variant,
			"\tks_dg_%s<<<dim3((unsigned)((ks_r0 + %lld) / %lld),\n"
			"\t\t\t   (unsigned)((ks_top + %lld) / %lld < 65535 ? (ks_top + %lld) / %lld : 65535)),\n"
			"\t\t   dim3(%lld, %lld), shmem, stream>>>(grid, block, ks_top, ks_mg, ks_s1, ks_s2, %s);\n"
			"}\n",
			k->name, bx - 1, bx, by - 1, by, by - 1, by, bx, by,
			args.buf);
	res = KS_XF_APPLIED;
out:
	for (size_t i = 0; withs && i < nwith; i++)
		free(withs[i]);
	free(withs);
	free(edits);
	ks_buf_release(&rc[0]);
	ks_buf_release(&rc[1]);
	ks_buf_release(&params);
	ks_buf_release(&args);
	ks_buf_release(&body);
	ks_buf_release(&dparams);
	ks_xfk_release(&x);
	return res;
}

const struct ks_transform ks_xf_derived_grid = {
	.id = "derived_grid",
	.summary = "a 1-D kernel's coordinates derived by division and "
		   "remainder come from a 2-D or 3-D grid instead",
	.precondition = "a 1-D kernel that divides its flat thread index by "
			"uniform values step by step (at most two quotients), "
			"with threads independent of each other",
	.nparams = 5,
	.params = {
		{ "bx", "threads per block along the fastest coordinate", 32, 4,
		  { 32, 16, 64, 128 } },
		{ "by", "threads per block along the second coordinate (one "
			"level: along the top)", 8, 4, { 8, 4, 16, 1 } },
		{ "tiles", "a permuted copy: tiles per block along the load's "
			   "coordinate (the next one's loads in flight while "
			   "one is stored)", 4, 4, { 4, 1, 2, 8 } },
		{ "replay", "a permuted copy: 1, the body runs once per "
			    "element, in the load phase, and the store phase "
			    "stores what it recorded; 0, the body runs in both "
			    "phases", 1, 2, { 1, 0 } },
		{ "trows", "a permuted copy: thread rows of the 32-wide tile "
			   "block (32/trows elements per thread); 0: by", 4, 4,
		  { 4, 8, 16, 0 } },
	},
	.apply = apply,
};
