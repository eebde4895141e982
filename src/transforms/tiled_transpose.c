/*
 * smem_tiled_transpose: a copy through a permutation of the thread
 * coordinates, staged through a padded 32x32 shared-memory tile so that
 * both the reads and the writes are coalesced.
 *
 * Recognized in the facts: the kernel's only thread-dependent global
 * load (of array L) and its only global store (of array S, which it does
 * not read) sit outside loops at offsets affine in the global indices
 * gx = blockIdx.x*blockDim.x + threadIdx.x and gy (likewise in y); one of
 * them moves by one element along gx and the other by one element along
 * gy, and each depends on both (a transpose: y[gx*rows + gy] =
 * x[gy*cols + gx], in either direction, with any strides). Other loads
 * must be the same for every thread. The template runs the kernel's own
 * body twice per element, at the coordinates of a 32 x `rows` thread
 * block moving 32/rows elements each: once where the load is coalesced,
 * its value going to the tile (the store does nothing), once where the
 * store is coalesced, the load reading the tile back. The body's own
 * bounds checks decide in both phases alike, so tails are the kernel's.
 */
#include <stdlib.h>
#include <string.h>

#include "../analysis/inventory.h"
#include "../core/buf.h"
#include "transform.h"
#include "xfbody.h"


static void
poly_clear(struct ks_poly *p)
{
	memset(p, 0, sizeof(*p));
}

static const struct ks_xfbody_rename renames[] = {
	{ "threadIdx", "ks_tid" },
	{ "blockIdx", "ks_bid" },
	{ "blockDim", "ks_bdim" },
	{ "gridDim", "ks_gdim" },
	{ NULL, NULL },
};

/* The access's coefficient of source s, in elements, when constant. */
static int
elem_coef(const struct ks_access *a, enum ks_src s, long long *k)
{
	if (!ks_form_coef_const(&a->offset, s, k))
		return 0;
	if (*k % (long long)a->bytes)
		return 0;
	*k /= (long long)a->bytes;
	return 1;
}

/* The x and y thread indices appear only as the global indices gx, gy
 * (z may appear in any way: the template keeps every thread's z). */
static int
global_xy(const struct ks_form *f)
{
	struct ks_form g = *f;

	poly_clear(&g.c[KS_SRC_TID_Z]);
	poly_clear(&g.c[KS_SRC_BID_Z]);
	return ks_form_global_index_only(&g);
}

/* Along which coordinate (0 x, 1 y) the access is contiguous, or -1;
 * sets *both when it depends on gx and gy. */
static int
contiguous_along(const struct ks_access *a, int *both)
{
	unsigned src = ks_form_sources(&a->offset);
	long long kx = 0, ky = 0;
	int cx = elem_coef(a, KS_SRC_TID_X, &kx);
	int cy = elem_coef(a, KS_SRC_TID_Y, &ky);

	*both = (src & KS_SRC_BIT(KS_SRC_TID_X)) && (src & KS_SRC_BIT(KS_SRC_TID_Y));
	if (cx && kx == 1)
		return 0;
	if (cy && ky == 1)
		return 1;
	return -1;
}

/* One phase of the tile kernel: the body at the coordinates where the
 * access of phase `along` is contiguous along threadIdx.x, over the tile
 * at (ks_x0, ks_y0). A thread handles tile/rows elements, in a fully
 * unrolled loop of constant trip count: in the load phase every load goes
 * to a register of its own (ks_v, declared by the caller) and the
 * registers go to the tile later (tile_fill), so all of a thread's loads
 * are in flight at once (a store to the tile between them would wait for
 * each), and while the previous tile's store phase runs. The moving
 * coordinate steps by `rows` threads of the original block: as a uniform
 * number of whole blocks and a remainder with at most one carry, so the
 * original coordinates need no division per element. */
static void
phase(struct ks_buf *o, int along, int load, int replay, const char *T,
      const char *kname, const char *args, long long tile, long long rows)
{
	/* fixed: the coordinate threadIdx.x walks; moving: threadIdx.y + j */
	const char *fx = along == 0 ? "x" : "y", *mv = along == 0 ? "y" : "x";
	const char *MV = along == 0 ? "Y" : "X";
	struct ks_buf c = KS_BUF_INIT, pin = KS_BUF_INIT, pout = KS_BUF_INIT;

	/* the tile is indexed [gy - y0][gx - x0] in both phases */
	if (load)
		ks_buf_addf(&c, "&ks_v[ks_j / %lldu]", rows);
	else
		ks_buf_adds(&c, along == 0 ? "&ks_t[threadIdx.y + ks_j][threadIdx.x]"
					   : "&ks_t[threadIdx.x][threadIdx.y + ks_j]");
	if (replay) {
		ks_buf_addf(&pin, "ks_tile_ld<%s> ks_in = { ks_L };", T);
		ks_buf_addf(&pout,
			    "ks_tile_rec<%s> ks_out = { &ks_v[ks_j / %lldu], "
			    "&ks_pa[ks_j / %lldu] };",
			    T, rows, rows);
	} else {
		ks_buf_addf(&pin, "ks_tile_in<%s> ks_in = { ks_L, %s, %d };", T,
			    c.buf, load);
		ks_buf_addf(&pout, "ks_tile_out<%s> ks_out = { ks_S, %d };", T,
			    !load);
	}
	ks_buf_addf(o,
		"			/* %s phase: threadIdx.x walks g%s */\n"
		"			const unsigned ks_gf = ks_%s0 + threadIdx.x;\n"
		"			const unsigned ks_tf = ks_gf %% ks_ob.%s, ks_bf = ks_gf / ks_ob.%s;\n"
		"			const unsigned ks_gm = ks_%s0 + threadIdx.y;\n"
		"			const unsigned ks_sq = %lldu / ks_ob.%s, ks_sr = %lldu %% ks_ob.%s;\n"
		"			unsigned ks_ts = ks_gm %% ks_ob.%s, ks_bs = ks_gm / ks_ob.%s;\n"
		"\n"
		"#pragma unroll\n"
		"			for (unsigned ks_j = 0; ks_j < %lldu; ks_j += %lldu) {\n"
		"				/* a block side known at compile time: its own\n"
		"				   division, which folds into the body's index */\n"
		"				const unsigned ks_tm = ks_O%s ? (ks_gm + ks_j) %% ks_ob.%s : ks_ts;\n"
		"				const unsigned ks_bm = ks_O%s ? (ks_gm + ks_j) / ks_ob.%s : ks_bs;\n"
		"\n"
		"				if (ks_gf < ks_n%s && ks_gm + ks_j < ks_n%s) {\n"
		"					%s\n"
		"					%s\n"
		"\n"
		"					ks_tile_body_%s(make_uint3(%s, %s, ks_tz),\n"
		"						make_uint3(%s, %s, ks_bz), ks_ob, ks_og, %s);\n"
		"				}\n"
		"				ks_ts += ks_sr;\n"
		"				ks_bs += ks_sq;\n"
		"				if (ks_ts >= ks_ob.%s) {\n"
		"					ks_ts -= ks_ob.%s;\n"
		"					ks_bs++;\n"
		"				}\n"
		"			}\n",
		load ? "load" : "store", fx, fx, fx, fx, mv, rows, mv, rows, mv,
		mv, mv, tile, rows, MV, mv, MV, mv, fx, mv, pin.buf, pout.buf, kname, along == 0 ? "ks_tf" : "ks_tm",
		along == 0 ? "ks_tm" : "ks_tf", along == 0 ? "ks_bf" : "ks_bm",
		along == 0 ? "ks_bm" : "ks_bf", args, mv, mv);
	ks_buf_release(&c);
	ks_buf_release(&pin);
	ks_buf_release(&pout);
}

/* The loaded registers to the tile, where the load phase's threads have
 * them (threadIdx.x along the load's contiguous coordinate); when the
 * store phase replays, the recorded values and addresses (an element the
 * body did not store has none: the address registers start empty). */
static void
tile_fill(struct ks_buf *o, int along, int replay, long long tile,
	  long long rows)
{
	const char *cell = along == 0 ? "[threadIdx.y + ks_j][threadIdx.x]"
				      : "[threadIdx.x][threadIdx.y + ks_j]";

	ks_buf_addf(o,
		"#pragma unroll\n"
		"\t\t\tfor (unsigned ks_j = 0; ks_j < %lldu; ks_j += %lldu) {\n"
		"\t\t\t\tks_t%s = ks_v[ks_j / %lldu];\n",
		tile, rows, cell, rows);
	if (replay)
		ks_buf_addf(o,
			"\t\t\t\tks_a%s = ks_pa[ks_j / %lldu];\n"
			"\t\t\t\tks_pa[ks_j / %lldu] = KS_TILE_NONE;\n",
			cell, rows, rows);
	ks_buf_adds(o, "\t\t\t}\n");
}

/* The replayed store phase: threadIdx.x along the store's contiguous
 * coordinate, each recorded value to its address (coalesced: the
 * addresses of a warp are consecutive where the body stored). */
static void
replay_store(struct ks_buf *o, int along, long long tile, long long rows)
{
	const char *cell = along == 0 ? "[threadIdx.y + ks_j][threadIdx.x]"
				      : "[threadIdx.x][threadIdx.y + ks_j]";

	ks_buf_addf(o,
		"#pragma unroll\n"
		"\t\t\tfor (unsigned ks_j = 0; ks_j < %lldu; ks_j += %lldu) {\n"
		"\t\t\t\tconst long long ks_i = ks_a%s;\n"
		"\n"
		"\t\t\t\tif (ks_i != KS_TILE_NONE)\n"
		"\t\t\t\t\tks_S[ks_i] = ks_t%s;\n"
		"\t\t\t}\n",
		tile, rows, cell, cell);
}

/* The V-wide phases' accessors and accesses (vec > 1). The body runs
 * once per element as in the scalar phases, but the load's accessor only
 * records the index the body asks for (the load phase) and the store's
 * records the index and the value (the store phase); the phase then
 * moves V elements in one access where their indices are consecutive and
 * the address is aligned, and one by one (where recorded) otherwise. */
static const char vec_helpers[] =
	"#ifndef KS_XF_TILE_VEC_HELPERS\n"
	"#define KS_XF_TILE_VEC_HELPERS\n"
	"/* The load: records its index (probe) or reads the tile cell. */\n"
	"template <class ks_T> struct ks_tile_vin {\n"
	"\tconst ks_T *cell;\n"
	"\tlong long *pi;\n"
	"\tint probe;\n"
	"\t__device__ __forceinline__ ks_T operator[](long long i) const\n"
	"\t{\n"
	"\t\tif (probe) {\n"
	"\t\t\t*pi = i;\n"
	"\t\t\treturn ks_T();\n"
	"\t\t}\n"
	"\t\treturn *cell;\n"
	"\t}\n"
	"};\n"
	"/* The store: records its value and index (rec) or does nothing. */\n"
	"template <class ks_T> struct ks_tile_vref {\n"
	"\tlong long i;\n"
	"\tks_T *v;\n"
	"\tlong long *pi;\n"
	"\tint rec;\n"
	"\t__device__ __forceinline__ void operator=(const ks_T &x) const\n"
	"\t{\n"
	"\t\tif (rec) {\n"
	"\t\t\t*v = x;\n"
	"\t\t\t*pi = i;\n"
	"\t\t}\n"
	"\t}\n"
	"};\n"
	"template <class ks_T> struct ks_tile_vout {\n"
	"\tks_T *v;\n"
	"\tlong long *pi;\n"
	"\tint rec;\n"
	"\t__device__ __forceinline__ ks_tile_vref<ks_T> operator[](long long i) const\n"
	"\t{\n"
	"\t\tks_tile_vref<ks_T> r;\n"
	"\n"
	"\t\tr.i = i;\n"
	"\t\tr.v = v;\n"
	"\t\tr.pi = pi;\n"
	"\t\tr.rec = rec;\n"
	"\t\treturn r;\n"
	"\t}\n"
	"};\n"
	"template <class ks_T, int ks_V> struct alignas(sizeof(ks_T) * ks_V) ks_tile_pack {\n"
	"\tks_T v[ks_V];\n"
	"};\n"
	"/* 1 when the ks_V recorded indices are consecutive and p + i[0] is\n"
	"   aligned for one ks_V-wide access. */\n"
	"template <class ks_T, int ks_V>\n"
	"__device__ __forceinline__ static int\n"
	"ks_tile_run(const ks_T *p, const long long *i)\n"
	"{\n"
	"\tint run = i[0] != KS_TILE_NONE &&\n"
	"\t\t  (unsigned long long)(p + i[0]) % sizeof(ks_tile_pack<ks_T, ks_V>) == 0;\n"
	"\n"
	"#pragma unroll\n"
	"\tfor (int k = 1; k < ks_V; k++)\n"
	"\t\trun = run && i[k] == i[0] + k;\n"
	"\treturn run;\n"
	"}\n"
	"template <class ks_T, int ks_V>\n"
	"__device__ __forceinline__ static void\n"
	"ks_tile_vload(const ks_T *p, const long long *i, ks_T *v)\n"
	"{\n"
	"\tif (ks_tile_run<ks_T, ks_V>(p, i)) {\n"
	"\t\tconst ks_tile_pack<ks_T, ks_V> w = *(const ks_tile_pack<ks_T, ks_V> *)(p + i[0]);\n"
	"\n"
	"#pragma unroll\n"
	"\t\tfor (int k = 0; k < ks_V; k++)\n"
	"\t\t\tv[k] = w.v[k];\n"
	"\t\treturn;\n"
	"\t}\n"
	"#pragma unroll\n"
	"\tfor (int k = 0; k < ks_V; k++)\n"
	"\t\tif (i[k] != KS_TILE_NONE)\n"
	"\t\t\tv[k] = p[i[k]];\n"
	"}\n"
	"template <class ks_T, int ks_V>\n"
	"__device__ __forceinline__ static void\n"
	"ks_tile_vstore(ks_T *p, const long long *i, const ks_T *v)\n"
	"{\n"
	"\tif (ks_tile_run<ks_T, ks_V>(p, i)) {\n"
	"\t\tks_tile_pack<ks_T, ks_V> w;\n"
	"\n"
	"#pragma unroll\n"
	"\t\tfor (int k = 0; k < ks_V; k++)\n"
	"\t\t\tw.v[k] = v[k];\n"
	"\t\t*(ks_tile_pack<ks_T, ks_V> *)(p + i[0]) = w;\n"
	"\t\treturn;\n"
	"\t}\n"
	"#pragma unroll\n"
	"\tfor (int k = 0; k < ks_V; k++)\n"
	"\t\tif (i[k] != KS_TILE_NONE)\n"
	"\t\t\tp[i[k]] = v[k];\n"
	"}\n"
	"#endif\n";

/* The cell of element k of pass j in a V-wide phase whose threads walk
 * coordinate `along` (0 x, 1 y): thread ks_l covers V consecutive
 * elements of tile row (or column) ks_l / (tile/V). */
static void
vcell(struct ks_buf *o, int along, long long tile, long long vec)
{
	if (along == 0)
		ks_buf_addf(o, "ks_t[ks_l / %lldu + ks_j][ks_l %% %lldu * %lldu + ks_k]",
			    tile / vec, tile / vec, vec);
	else
		ks_buf_addf(o, "ks_t[ks_l %% %lldu * %lldu + ks_k][ks_l / %lldu + ks_j]",
			    tile / vec, vec, tile / vec);
}

/* A V-wide phase (vec > 1): as phase(), but a thread runs the body for V
 * consecutive elements along the phase's contiguous coordinate (their
 * original coordinates by one division and V - 1 carries), and the block
 * covers rows*V tile rows per pass; then the V elements move in one
 * access where they can (ks_tile_vload, ks_tile_vstore). */
static void
vphase(struct ks_buf *o, int along, int load, const char *T,
       const char *kname, const char *args, long long tile, long long rows,
       long long vec)
{
	const char *fx = along == 0 ? "x" : "y", *mv = along == 0 ? "y" : "x";
	const char *MV = along == 0 ? "Y" : "X";
	const long long step = rows * vec, w = tile / vec;
	struct ks_buf cell = KS_BUF_INIT, pin = KS_BUF_INIT, pout = KS_BUF_INIT;

	vcell(&cell, along, tile, vec);
	if (load) {
		ks_buf_addf(&pin, "ks_tile_vin<%s> ks_in = { 0, &ks_i[ks_k], 1 };", T);
		ks_buf_addf(&pout, "ks_tile_vout<%s> ks_out = { 0, 0, 0 };", T);
	} else {
		ks_buf_addf(&pin, "ks_tile_vin<%s> ks_in = { &%s, 0, 0 };", T,
			    cell.buf);
		ks_buf_addf(&pout,
			    "ks_tile_vout<%s> ks_out = { &ks_w[ks_k], &ks_i[ks_k], 1 };",
			    T);
	}
	ks_buf_addf(o,
		"\t\t\t/* %s phase: %lld elements a thread along g%s */\n"
		"\t\t\tconst unsigned ks_l = threadIdx.y * %lldu + threadIdx.x;\n"
		"\t\t\tconst unsigned ks_gf = ks_%s0 + ks_l %% %lldu * %lldu;\n"
		"\t\t\tunsigned ks_tf[%lld], ks_bf[%lld];\n"
		"\n"
		"\t\t\tks_tf[0] = ks_gf %% ks_ob.%s;\n"
		"\t\t\tks_bf[0] = ks_gf / ks_ob.%s;\n"
		"#pragma unroll\n"
		"\t\t\tfor (unsigned ks_k = 1; ks_k < %lldu; ks_k++) {\n"
		"\t\t\t\tks_tf[ks_k] = ks_tf[ks_k - 1] + 1 == ks_ob.%s ? 0 : ks_tf[ks_k - 1] + 1;\n"
		"\t\t\t\tks_bf[ks_k] = ks_bf[ks_k - 1] + (ks_tf[ks_k] == 0);\n"
		"\t\t\t}\n",
		load ? "load" : "store", vec, fx, tile, fx, w, vec, vec, vec, fx,
		fx, vec, fx);
	ks_buf_addf(o,
		"\t\t\tconst unsigned ks_gm = ks_%s0 + ks_l / %lldu;\n"
		"\t\t\tconst unsigned ks_sq = %lldu / ks_ob.%s, ks_sr = %lldu %% ks_ob.%s;\n"
		"\t\t\tunsigned ks_ts = ks_gm %% ks_ob.%s, ks_bs = ks_gm / ks_ob.%s;\n"
		"\n"
		"#pragma unroll\n"
		"\t\t\tfor (unsigned ks_j = 0; ks_j < %lldu; ks_j += %lldu) {\n"
		"\t\t\t\tconst unsigned ks_tm = ks_O%s ? (ks_gm + ks_j) %% ks_ob.%s : ks_ts;\n"
		"\t\t\t\tconst unsigned ks_bm = ks_O%s ? (ks_gm + ks_j) / ks_ob.%s : ks_bs;\n"
		"\t\t\t\tlong long ks_i[%lld];\n",
		mv, w, step, mv, step, mv, mv, mv, tile, step, MV, mv, MV, mv, vec);
	if (!load)
		ks_buf_addf(o, "\t\t\t\t%s ks_w[%lld];\n", T, vec);
	ks_buf_addf(o,
		"\n"
		"#pragma unroll\n"
		"\t\t\t\tfor (unsigned ks_k = 0; ks_k < %lldu; ks_k++) {\n"
		"\t\t\t\t\tks_i[ks_k] = KS_TILE_NONE;\n"
		"\t\t\t\t\tif (ks_gf + ks_k < ks_n%s && ks_gm + ks_j < ks_n%s) {\n"
		"\t\t\t\t\t\t%s\n"
		"\t\t\t\t\t\t%s\n"
		"\n"
		"\t\t\t\t\t\tks_tile_body_%s(make_uint3(%s, %s, ks_tz),\n"
		"\t\t\t\t\t\t\tmake_uint3(%s, %s, ks_bz), ks_ob, ks_og, %s);\n"
		"\t\t\t\t\t}\n"
		"\t\t\t\t}\n",
		vec, fx, mv, pin.buf, pout.buf, kname,
		along == 0 ? "ks_tf[ks_k]" : "ks_tm",
		along == 0 ? "ks_tm" : "ks_tf[ks_k]",
		along == 0 ? "ks_bf[ks_k]" : "ks_bm",
		along == 0 ? "ks_bm" : "ks_bf[ks_k]", args);
	if (load)
		ks_buf_addf(o,
			"\t\t\t\tks_tile_vload<%s, %lld>(ks_L, ks_i, &ks_v[ks_j / %lldu * %lldu]);\n",
			T, vec, step, vec);
	else
		ks_buf_addf(o, "\t\t\t\tks_tile_vstore<%s, %lld>(ks_S, ks_i, ks_w);\n",
			    T, vec);
	ks_buf_addf(o,
		"\t\t\t\tks_ts += ks_sr;\n"
		"\t\t\t\tks_bs += ks_sq;\n"
		"\t\t\t\tif (ks_ts >= ks_ob.%s) {\n"
		"\t\t\t\t\tks_ts -= ks_ob.%s;\n"
		"\t\t\t\t\tks_bs++;\n"
		"\t\t\t\t}\n"
		"\t\t\t}\n",
		mv, mv);
	ks_buf_release(&cell);
	ks_buf_release(&pin);
	ks_buf_release(&pout);
}

/* The loaded registers to the tile, at the V-wide load phase's cells. */
static void
vtile_fill(struct ks_buf *o, int along, long long tile, long long rows,
	   long long vec)
{
	const long long step = rows * vec;

	ks_buf_addf(o,
		"\t\t\t{\n"
		"\t\t\t\tconst unsigned ks_l = threadIdx.y * %lldu + threadIdx.x;\n"
		"\n"
		"#pragma unroll\n"
		"\t\t\t\tfor (unsigned ks_j = 0; ks_j < %lldu; ks_j += %lldu)\n"
		"#pragma unroll\n"
		"\t\t\t\t\tfor (unsigned ks_k = 0; ks_k < %lldu; ks_k++)\n"
		"\t\t\t\t\t\t",
		tile, tile, step, vec);
	vcell(o, along, tile, vec);
	ks_buf_addf(o, " = ks_v[ks_j / %lldu * %lldu + ks_k];\n\t\t\t}\n", step,
		    vec);
}

static void
any_phase(struct ks_buf *o, int along, int load, int replay, const char *T,
	  const char *kname, const char *args, long long tile, long long rows,
	  long long vec)
{
	if (vec > 1)
		vphase(o, along, load, T, kname, args, tile, rows, vec);
	else
		phase(o, along, load, replay, T, kname, args, tile, rows);
}

/* The original block shapes (x, y; z = 1) the launcher runs an instance
 * of its own for, the sides then compile-time constants: every power of
 * two from 8 to 32 wide and from 4 to 32 high. Any other shape runs the
 * instance that reads the sides at run time. */
static const unsigned common_blocks[][2] = {
	{ 32, 8 }, { 16, 16 }, { 32, 32 }, { 32, 4 }, { 32, 16 }, { 16, 8 },
	{ 16, 4 }, { 16, 32 }, { 8, 8 }, { 8, 4 }, { 8, 16 }, { 8, 32 },
};

/* The explicit instantiation of the tile kernel for block sides x, y, z
 * (0: read at run time). */
static void
instance_decl(struct ks_buf *o, const char *kname, unsigned x, unsigned y,
	      unsigned z, const char *params)
{
	ks_buf_addf(o, "template __global__ void ks_tile_%s<%uu, %uu, %uu>"
		       "(const dim3, const dim3, %s);\n",
		    kname, x, y, z, params);
}

/* The parameters, in descriptor order. */
enum { P_TILE, P_TILES, P_REPLAY, P_VEC, P_SWZ, P_ROWS, P_N };

static enum ks_xf_result
apply(const struct ks_xf_input *in, const struct ks_xf_point *p,
      struct ks_buf *variant, struct ks_buf *reason)
{
	const struct ks_kernel *k = in->kernel;
	const struct ks_facts *f = &k->facts;
	const long long tile = p->v[P_TILE], tiles = p->v[P_TILES];
	const int replay = p->v[P_REPLAY] != 0;
	const long long swz = p->v[P_SWZ], rows = p->v[P_ROWS];
	long long vec = p->v[P_VEC];
	int L = -1, S = -1, lalong, salong, lboth, sboth;
	struct ks_xfbody_elem le, se;
	struct ks_buf intype = KS_BUF_INIT, outtype = KS_BUF_INIT;
	struct ks_buf bparams = KS_BUF_INIT, params = KS_BUF_INIT;
	struct ks_buf args = KS_BUF_INIT, targs = KS_BUF_INIT, body = KS_BUF_INIT;
	struct ks_buf sh = KS_BUF_INIT, pa = KS_BUF_INIT, sw = KS_BUF_INIT;
	struct ks_buf gguard = KS_BUF_INIT;
	enum ks_xf_result rc = KS_XF_DECLINED;
	const char *lname, *sname;

	if (tile * rows > 1024) {
		ks_buf_addf(reason, "a %lldx%lld block has more than 1024 threads",
			    tile, rows);
		return KS_XF_DECLINED;
	}
	if (replay && tile > 32) {
		ks_buf_addf(reason,
			    "a %lldx%lld tile with its recorded addresses needs "
			    "more than 48 KiB of shared memory (replay=0)",
			    tile, tile);
		return KS_XF_DECLINED;
	}
	if (vec > 1 && replay) {
		ks_buf_adds(reason, "vec > 1 moves the elements of the replay=0 "
				    "phases (replay=1 stores by recorded index)");
		return KS_XF_DECLINED;
	}
	if (ks_xfbody_plain_kernel(k, 0, reason))
		return KS_XF_DECLINED;
	for (size_t i = 0; i < f->nacc; i++)
		if (f->acc[i].flags & KS_ACC_ATOMIC) {
			ks_buf_addf(reason, "%s has atomics (line %u)", k->name,
				    f->acc[i].line);
			goto out;
		}
	for (size_t i = 0; i < f->nacc; i++) {
		const struct ks_access *a = &f->acc[i];
		const struct ks_array *arr = &f->arrays[a->array];
		int global = arr->space == KS_SPACE_GLOBAL ||
			     arr->space == KS_SPACE_UNKNOWN;

		if (!global)
			continue;
		if (a->flags & KS_ACC_STORE) {
			if (S >= 0) {
				ks_buf_addf(reason,
					    "%s stores to global memory more "
					    "than once (lines %u, %u)",
					    k->name, f->acc[S].line, a->line);
				goto out;
			}
			S = (int)i;
		} else if (ks_form_sources(&a->offset) & KS_SRC_THREAD_MASK) {
			if (L >= 0) {
				ks_buf_addf(reason,
					    "%s has more than one load that "
					    "depends on the thread (lines %u, "
					    "%u)",
					    k->name, f->acc[L].line, a->line);
				goto out;
			}
			L = (int)i;
		} else if (a->offset.data || (ks_form_sources(&a->offset) &
					      KS_SRC_LOOP_MASK)) {
			ks_buf_addf(reason,
				    "the load on line %u is neither the "
				    "permuted one nor the same for every thread",
				    a->line);
			goto out;
		}
	}
	if (S < 0 || L < 0) {
		ks_buf_addf(reason, "%s is not a copy: it needs one store and "
				    "one thread-dependent load",
			    k->name);
		goto out;
	}
	for (int r = 0; r < 2; r++) {
		const struct ks_access *a = &f->acc[r ? S : L];
		const struct ks_array *arr = &f->arrays[a->array];

		if (a->loop >= 0) {
			ks_buf_addf(reason, "the %s on line %u is inside a loop",
				    r ? "store" : "load", a->line);
			goto out;
		}
		if (a->offset.data || a->offset.nonlinear ||
		    (a->flags & KS_ACC_VECTOR) || !global_xy(&a->offset)) {
			ks_buf_addf(reason,
				    "the %s on line %u is not at an offset affine "
				    "in the global thread indices (a division, "
				    "remainder or data in its index)",
				    r ? "store" : "load", a->line);
			goto out;
		}
		if (arr->space != KS_SPACE_GLOBAL || arr->param < 0) {
			ks_buf_addf(reason,
				    "the %s on line %u is not through a pointer "
				    "parameter",
				    r ? "store" : "load", a->line);
			goto out;
		}
	}
	if (f->acc[L].array == f->acc[S].array) {
		ks_buf_addf(reason, "%s loads and stores the same array",
			    k->name);
		goto out;
	}
	for (size_t i = 0; i < f->nacc; i++)
		if ((f->acc[i].array == f->acc[L].array ||
		     f->acc[i].array == f->acc[S].array) &&
		    (int)i != L && (int)i != S) {
			ks_buf_addf(reason,
				    "%s is accessed again on line %u",
				    f->arrays[f->acc[i].array].name,
				    f->acc[i].line);
			goto out;
		}
	lalong = contiguous_along(&f->acc[L], &lboth);
	salong = contiguous_along(&f->acc[S], &sboth);
	if (!lboth || !sboth) {
		ks_buf_addf(reason,
			    "not a permutation of the thread coordinates: the "
			    "%s (line %u) does not depend on both gx and gy",
			    lboth ? "store" : "load",
			    f->acc[lboth ? S : L].line);
		goto out;
	}
	if (lalong < 0 || salong < 0 || lalong == salong) {
		ks_buf_addf(reason,
			    "not a permutation of the thread coordinates: the "
			    "load (line %u) is %s, the store (line %u) %s",
			    f->acc[L].line,
			    lalong < 0 ? "contiguous along neither gx nor gy"
				       : lalong ? "contiguous along gy"
						: "contiguous along gx",
			    f->acc[S].line,
			    salong < 0 ? "along neither"
				       : salong ? "along gy" : "along gx");
		if (lalong >= 0 && lalong == salong)
			ks_buf_adds(reason, " (already coalesced)");
		goto out;
	}
	lname = k->params[f->arrays[f->acc[L].array].param].name;
	sname = k->params[f->arrays[f->acc[S].array].param].name;
	if (ks_xfbody_elem(k, f->arrays[f->acc[L].array].param, &le, reason) ||
	    ks_xfbody_elem(k, f->arrays[f->acc[S].array].param, &se, reason))
		goto out;
	if (le.bytes != f->acc[L].bytes || se.bytes != f->acc[S].bytes ||
	    strcmp(le.ctype, se.ctype)) {
		ks_buf_addf(reason,
			    "the load and the store are not of one element "
			    "type (%s, %s)",
			    le.ctype, se.ctype);
		goto out;
	}
	/* at most 16 bytes an access: 4 floats, 2 doubles */
	while (vec > 1 && le.bytes * vec > 16)
		vec /= 2;
	if (vec > 1 && (le.bytes & (le.bytes - 1))) {
		ks_buf_addf(reason,
			    "elements of %u bytes cannot be moved %lld at a "
			    "time in one aligned access",
			    (unsigned)le.bytes, vec);
		goto out;
	}
	if (vec > 1 && tile % (rows * vec)) {
		ks_buf_addf(reason,
			    "a block of %lld rows moving %lld elements a thread "
			    "covers more than the %lld rows of the tile",
			    rows, vec, tile);
		goto out;
	}
	if (!ks_xfbody_only_subscripted(in->text, in->len, k, lname, reason) ||
	    !ks_xfbody_only_subscripted(in->text, in->len, k, sname, reason))
		goto out;
	ks_buf_addf(&intype,
		    vec > 1 ? "ks_tile_vin<%s>"
			    : replay ? "ks_tile_ld<%s>" : "ks_tile_in<%s>",
		    le.ctype);
	ks_buf_addf(&outtype,
		    vec > 1 ? "ks_tile_vout<%s>"
			    : replay ? "ks_tile_rec<%s>" : "ks_tile_out<%s>",
		    le.ctype);
	if (ks_xfbody_params(k, f->arrays[f->acc[L].array].param, intype.buf,
			     f->arrays[f->acc[S].array].param, outtype.buf,
			     &bparams, reason) ||
	    ks_xfbody_params(k, -1, NULL, -1, NULL, &params, reason) ||
	    ks_xfbody_copy(in->text, in->len, k, NULL, 0, renames, &body,
			   reason))
		goto out;
	ks_xfbody_args(k, &args);
	for (size_t i = 0; i < k->nparams; i++) {
		const char *nm = k->params[i].name;

		if ((int)i == f->arrays[f->acc[L].array].param)
			nm = "ks_in";
		else if ((int)i == f->arrays[f->acc[S].array].param)
			nm = "ks_out";
		ks_buf_addf(&targs, "%s%s", i ? ", " : "", nm);
	}

	if (replay) {
		ks_buf_addf(&sh, "\t__shared__ long long ks_a[%lld][%lld];\n",
			    tile, tile + 1);
		ks_buf_adds(&pa, "\t\tlong long ks_pa[] = {");
		for (long long j = 0; j < tile / rows; j++)
			ks_buf_addf(&pa, "%s KS_TILE_NONE", j ? "," : "");
		ks_buf_adds(&pa, " };\n");
	}
	if (swz)
		ks_buf_addf(&gguard,
			    " ||\n\t    (ks_nx + %lld) / %lld * ((ks_ny + %lld) / %lld) > 0xffffffffull",
			    tile - 1, tile, tile * tiles - 1, tile * tiles);
	if (swz)
		ks_buf_addf(&sw,
			"\t/* blocks in groups of %lld columns, one column of the group after\n"
			"\t   the other: the blocks in flight read and write regions longer\n"
			"\t   than one tile in both arrays (a permutation of the blocks) */\n"
			"\tconst unsigned ks_bl = blockIdx.y * gridDim.x + blockIdx.x;\n"
			"\tconst unsigned ks_gw = %lldu * gridDim.y, ks_gi = ks_bl / ks_gw;\n"
			"\tconst unsigned ks_g0 = ks_gi * %lldu;\n"
			"\tconst unsigned ks_gn = gridDim.x - ks_g0 < %lldu ? gridDim.x - ks_g0 : %lldu;\n"
			"\tconst unsigned ks_gl = ks_bl - ks_gi * ks_gw;\n"
			"\tconst unsigned ks_bx = ks_g0 + ks_gl %% ks_gn, ks_by = ks_gl / ks_gn;\n",
			swz, swz, swz, swz, swz);
	ks_buf_addf(variant,
		    "// %s: the permuted copy staged through a padded %lldx%lld "
		    "shared tile, %lldx%lld threads, %lld tile%s per block",
		    k->name, tile, tile, tile, rows, tiles, tiles > 1 ? "s" : "");
	if (vec > 1)
		ks_buf_addf(variant, ", %lld elements an access", vec);
	if (swz)
		ks_buf_addf(variant, ", blocks in groups of %lld columns", swz);
	ks_buf_adds(variant, " (smem_tiled_transpose)\n");
	ks_buf_adds(variant, "// ks-nvcc: helpers\n");
	ks_buf_adds(variant, ks_xfbody_tile_helpers);
	if (vec > 1)
		ks_buf_adds(variant, vec_helpers);
	ks_buf_addf(variant,
		    "/* The body of %s at thread ks_tid of block ks_bid. */\n"
		    "__device__ __forceinline__ static void\n"
		    "ks_tile_body_%s(const uint3 ks_tid, const uint3 ks_bid, "
		    "const dim3 ks_bdim, const dim3 ks_gdim, %s)\n",
		    k->name, k->name, bparams.buf);
	ks_buf_add(variant, body.buf, body.len);
	ks_buf_adds(variant, "\n\n");
	ks_buf_addf(variant,
		"/* Each block moves %lld %lldx%lld tile%s of the original grid's global\n"
		"   indices (ks_og blocks of ks_ob threads), one above the other; the\n"
		"   next tile's loads are in flight while the current one is stored. */\n"
		"template <unsigned ks_OX, unsigned ks_OY, unsigned ks_OZ>\n"
		"__global__ void __launch_bounds__(%lld, %lld)\n"
		"ks_tile_%s(const dim3 ks_og, const dim3 ks_obr, %s)\n"
		"{\n"
		"\t/* the original block's sides: constants in the instances the\n"
		"\t   launcher picks for the common shapes, so the coordinates the\n"
		"\t   body gets fold into its own index arithmetic */\n"
		"\tconst dim3 ks_ob(ks_OX ? ks_OX : ks_obr.x, ks_OY ? ks_OY : ks_obr.y,\n"
		"\t\t\t ks_OZ ? ks_OZ : ks_obr.z);\n"
		"\t__shared__ %s ks_t[%lld][%lld];\n"
		"%s"
		"\tconst %s *const ks_L = %s;\n"
		"\t%s *const ks_S = %s;\n"
		"\tconst unsigned ks_nx = ks_og.x * ks_ob.x, ks_ny = ks_og.y * ks_ob.y;\n"
		"\tconst unsigned ks_nz = ks_og.z * ks_ob.z;\n"
		"%s"
		"\tconst unsigned ks_xb = %s * %lldu;\n"
		"\tconst unsigned ks_ta = %s * %lldu;\n"
		"\tconst unsigned ks_tn = (ks_ny + %lldu) / %lldu;\n"
		"\tconst unsigned ks_te = ks_ta + %lldu < ks_tn ? ks_ta + %lldu : ks_tn;\n"
		"\n"
		"\tfor (unsigned ks_z = blockIdx.z; ks_z < ks_nz; ks_z += gridDim.z) {\n"
		"\t\tconst unsigned ks_tz = ks_z %% ks_ob.z, ks_bz = ks_z / ks_ob.z;\n"
		"\t\t%s ks_v[%lld] = {};\n"
		"%s"
		"\n"
		"\t\t{\n"
		"\t\t\tconst unsigned ks_x0 = ks_xb, ks_y0 = ks_ta * %lldu;\n"
		"\n",
		tiles, tile, tile, tiles > 1 ? "s" : "", tile * rows,
		ks_xfbody_tile_min_blocks(tile, rows), k->name,
		params.buf, le.ctype, tile, tile + 1, sh.buf, le.ctype, lname,
		le.ctype, sname, sw.buf, swz ? "ks_bx" : "blockIdx.x", tile,
		swz ? "ks_by" : "blockIdx.y", tiles, tile - 1, tile, tiles, tiles,
		le.ctype, tile / rows, pa.buf, tile);
	any_phase(variant, lalong, 1, replay, le.ctype, k->name, targs.buf,
		  tile, rows, vec);
	ks_buf_addf(variant,
		"\t\t}\n"
		"\t\tfor (unsigned ks_ty = ks_ta; ks_ty < ks_te; ks_ty++) {\n");
	if (vec > 1)
		vtile_fill(variant, lalong, tile, rows, vec);
	else
		tile_fill(variant, lalong, replay, tile, rows);
	ks_buf_addf(variant,
		"\t\t\t__syncthreads();\n"
		"\t\t\tif (ks_ty + 1 < ks_te) {\n"
		"\t\t\t\tconst unsigned ks_x0 = ks_xb, ks_y0 = (ks_ty + 1) * %lldu;\n"
		"\n",
		tile);
	any_phase(variant, lalong, 1, replay, le.ctype, k->name, targs.buf,
		  tile, rows, vec);
	ks_buf_adds(variant, "\t\t\t}\n\t\t\t{\n");
	if (!replay)
		ks_buf_addf(variant,
			"\t\t\t\tconst unsigned ks_x0 = ks_xb, ks_y0 = ks_ty * %lldu;\n"
			"\n",
			tile);
	if (replay)
		replay_store(variant, salong, tile, rows);
	else
		any_phase(variant, salong, 0, 0, le.ctype, k->name, targs.buf,
			  tile, rows, vec);
	ks_buf_adds(variant,
		"\t\t\t}\n"
		"\t\t\t__syncthreads();\n"
		"\t\t}\n"
		"\t}\n"
		"}\n");
	ks_buf_adds(variant,
		"/* the instances in the device code (the launcher that names them\n"
		"   is host code only) */\n");
	for (size_t i = 0; i < sizeof(common_blocks) / sizeof(common_blocks[0]); i++)
		instance_decl(variant, k->name, common_blocks[i][0],
			      common_blocks[i][1], 1, params.buf);
	instance_decl(variant, k->name, 0, 0, 0, params.buf);
	ks_buf_adds(variant, "// ks-nvcc: definition\n");
	if (ks_xfbody_definition(in->text, in->len, k, variant, reason))
		goto out;
	ks_xfbody_launcher_open(variant, k->name, params.buf, 3);
	ks_buf_addf(variant,
		"\n"
		"\t/* sizes the tile grid cannot cover: the original */\n"
		"\tif (!ks_nx || !ks_ny || !ks_nz || ks_nx > 0xffffff00ull ||\n"
		"\t    ks_ny > 65535ull * %lld || ks_nz > 0xffffffffull%s) {\n"
		"\t\t%s<<<grid, block, shmem, stream>>>(%s);\n"
		"\t\treturn;\n"
		"\t}\n"
		"\tconst dim3 ks_g((unsigned)((ks_nx + %lld) / %lld), (unsigned)((ks_ny + %lld) / %lld),\n"
		"\t\t\t (unsigned)(ks_nz < 65535 ? ks_nz : 65535));\n"
		"\tconst dim3 ks_b(%lld, %lld);\n"
		"\n",
		tile, gguard.buf,
		k->name, args.buf, tile - 1,
		tile, tile * tiles - 1, tile * tiles, tile, rows);
	for (size_t i = 0; i < sizeof(common_blocks) / sizeof(common_blocks[0]); i++)
		ks_buf_addf(variant,
			"\t%sif (block.x == %uu && block.y == %uu && block.z == 1u)\n"
			"\t\tks_tile_%s<%uu, %uu, 1u><<<ks_g, ks_b, 0, stream>>>(grid, block, %s);\n",
			i ? "else " : "", common_blocks[i][0], common_blocks[i][1],
			k->name, common_blocks[i][0], common_blocks[i][1], args.buf);
	ks_buf_addf(variant,
		"\telse\n"
		"\t\tks_tile_%s<0u, 0u, 0u><<<ks_g, ks_b, 0, stream>>>(grid, block, %s);\n"
		"}\n",
		k->name, args.buf);
	rc = KS_XF_APPLIED;
out:
	ks_buf_release(&intype);
	ks_buf_release(&outtype);
	ks_buf_release(&sh);
	ks_buf_release(&pa);
	ks_buf_release(&sw);
	ks_buf_release(&gguard);
	ks_buf_release(&bparams);
	ks_buf_release(&params);
	ks_buf_release(&args);
	ks_buf_release(&targs);
	ks_buf_release(&body);
	return rc;
}

const struct ks_transform ks_xf_smem_tiled_transpose = {
	.id = "smem_tiled_transpose",
	.summary = "a copy through a permutation of the thread coordinates, "
		   "staged through a padded 32x32 or 64x64 shared tile",
	.precondition = "one thread-dependent load and one store, outside "
			"loops, affine in the global x and y indices, one "
			"contiguous along x and the other along y",
	.nparams = P_N,
	/* ks try visits the points one parameter away from the default
	 * last parameter first: rows=8 (half the elements a thread), then
	 * the block groups' width. The default is the shape a hand-written
	 * transpose on an H200 did best with (a 64x64 tile, 64x4 threads,
	 * 16 loads in flight each, groups of 8), with two tiles a block,
	 * which measured best of the points around it (docs/TRANSFORMS.md) */
	.params = {
		[P_TILE] = { "tile", "the square tile's side: threads per block row",
			     64, 2, { 64, 32 } },
		[P_TILES] = { "tiles", "tiles per block, one above the other (the "
				       "next one's loads in flight while one is stored)",
			      2, 4, { 2, 1, 4, 8 } },
		[P_REPLAY] = { "replay", "1: the body runs once per element, in the "
					 "load phase, and the store phase stores what it "
					 "recorded; 0: the body runs in both phases",
			       0, 2, { 0, 1 } },
		[P_VEC] = { "vec", "elements a thread moves in one access along the "
				   "contiguous coordinate of each phase, at most 16 "
				   "bytes (consecutive and aligned ones; else one by "
				   "one)",
			    1, 2, { 1, 4 } },
		[P_SWZ] = { "swz", "block columns per group in the block order (the "
				   "blocks in flight cover a region of both arrays); "
				   "0: row after row",
			    8, 4, { 8, 16, 32, 0 } },
		[P_ROWS] = { "rows", "thread rows of the block (tile/rows elements "
				     "per thread)",
			     4, 4, { 4, 8, 2, 16 } },
	},
	.apply = apply,
};
