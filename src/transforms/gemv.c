/*
 * gemv_warp_per_row: a matrix-vector product with one thread per output
 * (a k-loop, gemm_kloop.h, over a matrix operand indexed by gx and the
 * loop and a vector operand indexed by the loop only) becomes a
 * cooperative one.
 *
 *   - The matrix read along the loop (row-major y = A x): a block of
 *     32*warps threads owns as many rows, one per thread; slices of
 *     128/warps columns of those rows are read coalesced (float4 where
 *     the rows are 16-byte aligned, checked at run time) into one of two
 *     shared buffers while the other is summed, each thread walking its
 *     own row in the kernel's order, so the sums are the original's bit
 *     for bit (`order=1`). 32*warps rows per block leave few blocks when
 *     rows are few (16,384 rows: 256 blocks of 64 threads, 6 % of the
 *     H200's warps), so this is not the first point.
 *   - Reassociated (`order=0`, the default, and always with fast math):
 *     a group of `lanes` threads per output (a warp; 8 for short rows,
 *     whose warp would idle lanes; 128 for few long rows, whose warps
 *     would be too few), lane j reading float4 j, j+lanes, ... of the row
 *     (`unroll` of them in flight) and of the vector where contiguous,
 *     combined by butterfly shuffles (and shared memory past a warp);
 *     and the matrix read along gx (y =
 *     A^T x, already coalesced across threads) as column blocks: 32
 *     outputs x 64/`warps` slices of the loop (32, 16, 8), combined in
 *     shared memory (`cols=8`: 8 outputs x 4 times the slices, a warp
 *     reading 4 rows of 32 bytes, for shapes with few outputs). A column block's parallelism is its slices: a warp
 *     reads 128 bytes of a row per load, so 4,096 outputs (128 blocks) at
 *     4 slices keep about 256 KB in flight where the H100's or H200's
 *     bandwidth needs megabytes (0.53 TB/s on an H100, measured; 16
 *     slices 1.4 TB/s), hence the most slices first.
 *     A reassociated dot product moves a cancelling output by ulps of its
 *     partial sums, which the Reviewer's f32 tolerance allows (its stol
 *     term, relative to the outputs' RMS); where it does not, order=1
 *     keeps the order, and the transposed case is declined.
 *
 * Then the kernel's own body runs once per output with the k-loop
 * replaced by the sum, so the epilogue and the store are the kernel's.
 * The launcher launches the original where the launch is not 1-D in x,
 * y aside when the kernel reads no y coordinate (facts.coords, from a
 * complete walk): its threads along y then repeat the work of those at
 * y = 0 (naive code launching a 1-D kernel with a 2-D block), which is
 * done once.
 *
 * Ownership: everything is local to one apply() call.
 * May include: libc, core/, analysis/ (structs only), transform.h,
 * xfkit.h, xfbody.h, gemm_kloop.h.
 */
#include <stdlib.h>
#include <string.h>

#include "../analysis/inventory.h"
#include "../core/buf.h"
#include "gemm_kloop.h"
#include "transform.h"
#include "xfbody.h"

static const char helpers[] =
	"#ifndef KS_GEMV_HELPERS\n"
	"#define KS_GEMV_HELPERS\n"
	"__host__ __device__ __forceinline__ static long long\n"
	"ks_min_ll(long long a, long long b)\n"
	"{\n"
	"\treturn a < b ? a : b;\n"
	"}\n"
	"/* Iterations of for (k = init; k < bound; k += step). */\n"
	"__host__ __device__ __forceinline__ static long long\n"
	"ks_trip(long long init, long long bound, long long step)\n"
	"{\n"
	"\treturn bound > init ? (bound - init + step - 1) / step : 0;\n"
	"}\n"
	"#endif\n"
	"\n";

static void
emit_common(struct ks_buf *o, const struct ks_kloop *kl,
	    const struct ks_kl_operand *m, const struct ks_kl_operand *v)
{
	ks_buf_addf(o,
		    "\tconst long long ks_nx = (long long)ks_og.x * ks_ob.x;\n"
		    "\tconst long long ks_limx = %s%s%s;\n"
		    "\tconst long long ks_T = %s%s%s%s;\n"
		    "\t/* %s (line %u): element L of row gx at %s[c0 + cz*z + "
		    "cx*gx + ck*L] */\n"
		    "\tconst long long ks_mx = %s, ks_mk = %s;\n"
		    "\t(void)ks_mk;\n"
		    "\tconst float *const ks_mP = (const float *)%s + (%s + %s * "
		    "(long long)blockIdx.z);\n"
		    "\tconst long long ks_vk = %s;\n"
		    "\tconst float *const ks_vp = (const float *)%s + (%s + %s * "
		    "(long long)blockIdx.z);\n",
		    kl->limx ? "ks_min_ll(ks_nx, " : "ks_nx",
		    kl->limx ? kl->limx : "", kl->limx ? ")" : "",
		    kl->limz ? "(long long)blockIdx.z >= " : "",
		    kl->limz ? kl->limz : "", kl->limz ? " ? 0LL : " : "", kl->trip,
		    m->name, m->line, m->name, m->cx, m->ck, m->name, m->c0, m->cz,
		    v->ck, v->name, v->c0, v->cz);
}

/* Registers ks_q / ks_xq <- the slice of the block's rows starting at
 * iteration `l0` (a C expression). */
static void
emit_ordered_load(struct ks_buf *o, const char *l0)
{
	ks_buf_addf(o,
		    "\t\t#pragma unroll\n"
		    "\t\tfor (int ks_i = 0; ks_i < ks_SL; ks_i++) {\n"
		    "\t\t\tconst int ks_s = (int)threadIdx.x + ks_i * ks_R;\n"
		    "\t\t\tconst int ks_r = ks_s / (ks_TK / 4), ks_kq = ks_s %% (ks_TK / 4) * 4;\n"
		    "\t\t\tconst long long ks_g = ks_gx0 + ks_r, ks_l = (%s) + ks_kq;\n"
		    "\t\t\tconst float *const ks_p = ks_mP + ks_mx * ks_g + ks_l;\n"
		    "\n"
		    "\t\t\tks_q[ks_i] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);\n"
		    "\t\t\tif (ks_g < ks_limx) {\n"
		    "\t\t\t\tif (ks_av && ks_l + 3 < ks_T) {\n"
		    "\t\t\t\t\tks_q[ks_i] = *(const float4 *)ks_p;\n"
		    "\t\t\t\t} else {\n"
		    "\t\t\t\t\tif (ks_l < ks_T) ks_q[ks_i].x = ks_p[0];\n"
		    "\t\t\t\t\tif (ks_l + 1 < ks_T) ks_q[ks_i].y = ks_p[1];\n"
		    "\t\t\t\t\tif (ks_l + 2 < ks_T) ks_q[ks_i].z = ks_p[2];\n"
		    "\t\t\t\t\tif (ks_l + 3 < ks_T) ks_q[ks_i].w = ks_p[3];\n"
		    "\t\t\t\t}\n"
		    "\t\t\t}\n"
		    "\t\t}\n"
		    "\t\tks_xq = 0.0f;\n"
		    "\t\tif ((int)threadIdx.x < ks_TK && (%s) + threadIdx.x < ks_T)\n"
		    "\t\t\tks_xq = ks_vp[ks_vk * ((%s) + threadIdx.x)];\n",
		    l0, l0, l0);
}

/* Registers -> buffer `b`. */
static void
emit_ordered_store(struct ks_buf *o, const char *b)
{
	ks_buf_addf(o,
		    "\t\t#pragma unroll\n"
		    "\t\tfor (int ks_i = 0; ks_i < ks_SL; ks_i++) {\n"
		    "\t\t\tconst int ks_s = (int)threadIdx.x + ks_i * ks_R;\n"
		    "\t\t\tconst int ks_r = ks_s / (ks_TK / 4), ks_kq = ks_s %% (ks_TK / 4) * 4;\n"
		    "\n"
		    "\t\t\tks_As[%s][ks_r][ks_kq] = ks_q[ks_i].x;\n"
		    "\t\t\tks_As[%s][ks_r][ks_kq + 1] = ks_q[ks_i].y;\n"
		    "\t\t\tks_As[%s][ks_r][ks_kq + 2] = ks_q[ks_i].z;\n"
		    "\t\t\tks_As[%s][ks_r][ks_kq + 3] = ks_q[ks_i].w;\n"
		    "\t\t}\n"
		    "\t\tif ((int)threadIdx.x < ks_TK)\n"
		    "\t\t\tks_xs[%s][threadIdx.x] = ks_xq;\n",
		    b, b, b, b, b);
}

/* The kernel's own body for output ks_gx with the sum ks_acc, where
 * `cond` holds, closing the kernel. */
static void
emit_output(struct ks_buf *o, const char *cond, const char *kname, const char *args)
{
	ks_buf_addf(o,
		    "\tif (%s) {\n"
		    "\t\tconst unsigned ks_ux = (unsigned)ks_gx;\n"
		    "\n"
		    "\t\tks_gemv_body_%s(make_uint3(ks_ux %% ks_ob.x, 0u, 0u),\n"
		    "\t\t\tmake_uint3(ks_ux / ks_ob.x, 0u, blockIdx.z), ks_ob, ks_og,\n"
		    "\t\t\t%s, ks_acc);\n"
		    "\t}\n"
		    "}\n",
		    cond, kname, args);
}

/*
 * The row-major case with the sum in the kernel's order: a block of R =
 * 32*warps threads owns R rows (one each); slices of TK = 128/warps
 * columns of those rows are read coalesced (float4 where aligned) into
 * one of two shared buffers while the other is summed, each thread
 * walking its own row in order, so every output is the original's sum
 * bit for bit.
 */
static void
emit_ordered(struct ks_buf *o, long long warps, const char *kname,
	     const char *args)
{
	ks_buf_addf(o,
		    "\tenum { ks_R = %lld, ks_TK = %lld, ks_SL = ks_TK / 4 };\n"
		    "\t__shared__ float ks_As[2][ks_R][ks_TK + 1];\n"
		    "\t__shared__ float ks_xs[2][ks_TK];\n"
		    "\tconst long long ks_gx0 = (long long)blockIdx.x * ks_R;\n"
		    "\tconst long long ks_gx = ks_gx0 + threadIdx.x;\n"
		    "\tconst bool ks_av = ((unsigned long long)ks_mP & 15) == 0 && ks_mx %% 4 == 0;\n"
		    "\tconst long long ks_nk = (ks_T + ks_TK - 1) / ks_TK;\n"
		    "\tfloat4 ks_q[ks_SL];\n"
		    "\tfloat ks_xq, ks_acc = 0.0f;\n"
		    "\n"
		    "\tif (ks_nk > 0) {\n",
		    32 * warps, 128 / warps);
	emit_ordered_load(o, "0LL");
	emit_ordered_store(o, "0");
	ks_buf_adds(o,
		    "\t}\n"
		    "\t__syncthreads();\n"
		    "\tfor (long long ks_t = 0; ks_t < ks_nk; ks_t++) {\n"
		    "\t\tconst int ks_cb = (int)(ks_t & 1);\n"
		    "\t\tconst bool ks_more = ks_t + 1 < ks_nk;\n"
		    "\t\tconst long long ks_kn = ks_min_ll(ks_TK, ks_T - ks_t * ks_TK);\n"
		    "\n"
		    "\t\tif (ks_more) {\n");
	emit_ordered_load(o, "(ks_t + 1) * ks_TK");
	ks_buf_adds(o,
		    "\t\t}\n"
		    "\t\t/* the thread's own row, in the kernel's order */\n"
		    "\t\tif (ks_kn == ks_TK) {\n"
		    "\t\t\t#pragma unroll\n"
		    "\t\t\tfor (int ks_k = 0; ks_k < ks_TK; ks_k++)\n"
		    "\t\t\t\tks_acc += ks_As[ks_cb][threadIdx.x][ks_k] * ks_xs[ks_cb][ks_k];\n"
		    "\t\t} else {\n"
		    "\t\t\tfor (int ks_k = 0; ks_k < (int)ks_kn; ks_k++)\n"
		    "\t\t\t\tks_acc += ks_As[ks_cb][threadIdx.x][ks_k] * ks_xs[ks_cb][ks_k];\n"
		    "\t\t}\n"
		    "\t\tif (ks_more) {\n");
	emit_ordered_store(o, "ks_cb ^ 1");
	ks_buf_addf(o,
		    "\t\t}\n"
		    "\t\t__syncthreads();\n"
		    "\t}\n");
	emit_output(o, "ks_gx < ks_nx", kname, args);
}

/*
 * The row-major case, reassociated: a group of G = `lanes` threads per
 * output (G of 8 for short rows, 32 a warp, 128 four warps for few long
 * rows), `threads` per block; lane j reads float4 j, j+G, ... of the row
 * (`unroll` of them in flight) and of the vector where contiguous; the
 * group's sums are combined by butterfly shuffles within each warp's
 * aligned G lanes, then, past a warp, in shared memory. No thread leaves
 * before the shuffles and the barrier: a group past the outputs sums
 * nothing and skips the body.
 */
static void
emit_rows(struct ks_buf *o, long long threads, long long unroll, long long lanes,
	  int vec_unit, const char *kname, const char *args)
{
	const long long step = lanes * 4 * unroll, sh = lanes < 32 ? lanes : 32;

	ks_buf_addf(o,
		    "\tconst unsigned ks_lane = threadIdx.x %% %lldu;\n"
		    "\tconst long long ks_gx = (long long)blockIdx.x * %lld + threadIdx.x / %lldu;\n"
		    "\tconst bool ks_in = ks_gx < ks_nx;\n"
		    "\tfloat ks_acc = 0.0f;\n"
		    "\n"
		    "\tif (ks_in && ks_gx < ks_limx) {\n"
		    "\t\tconst float *const ks_mp = ks_mP + ks_mx * ks_gx;\n"
		    "\t\tlong long ks_L = 0;\n"
		    "\n"
		    "\t\tif (((unsigned long long)ks_mp & 15) == 0%s) {\n"
		    "\t\t\tfor (; ks_L + %lld <= ks_T; ks_L += %lld) {\n"
		    "\t\t\t\tfloat4 ks_a[%lld], ks_x[%lld];\n"
		    "\n"
		    "\t\t\t\t#pragma unroll\n"
		    "\t\t\t\tfor (int ks_u = 0; ks_u < %lld; ks_u++) {\n"
		    "\t\t\t\t\tconst long long ks_l = ks_L + ks_u * %lld + ks_lane * 4;\n"
		    "\n"
		    "\t\t\t\t\tks_a[ks_u] = *(const float4 *)(ks_mp + ks_l);\n",
		    lanes, threads / lanes, lanes,
		    vec_unit ? " &&\n\t\t    ((unsigned long long)ks_vp & 15) == 0" : "",
		    step, step, unroll, unroll, unroll, lanes * 4);
	if (vec_unit)
		ks_buf_adds(o, "\t\t\t\t\tks_x[ks_u] = *(const float4 *)(ks_vp + ks_l);\n");
	else
		ks_buf_adds(o,
			    "\t\t\t\t\tks_x[ks_u] = make_float4(ks_vp[ks_vk * ks_l], "
			    "ks_vp[ks_vk * (ks_l + 1)],\n"
			    "\t\t\t\t\t\tks_vp[ks_vk * (ks_l + 2)], ks_vp[ks_vk * (ks_l + 3)]);\n");
	ks_buf_addf(o,
		    "\t\t\t\t}\n"
		    "\t\t\t\t#pragma unroll\n"
		    "\t\t\t\tfor (int ks_u = 0; ks_u < %lld; ks_u++) {\n"
		    "\t\t\t\t\tks_acc += ks_a[ks_u].x * ks_x[ks_u].x;\n"
		    "\t\t\t\t\tks_acc += ks_a[ks_u].y * ks_x[ks_u].y;\n"
		    "\t\t\t\t\tks_acc += ks_a[ks_u].z * ks_x[ks_u].z;\n"
		    "\t\t\t\t\tks_acc += ks_a[ks_u].w * ks_x[ks_u].w;\n"
		    "\t\t\t\t}\n"
		    "\t\t\t}\n"
		    "\t\t}\n"
		    "\t\tfor (long long ks_l = ks_L + ks_lane; ks_l < ks_T; ks_l += %lld)\n"
		    "\t\t\tks_acc += ks_mp[ks_l] * ks_vp[ks_vk * ks_l];\n"
		    "\t}\n"
		    "\tfor (int ks_o = %lld; ks_o > 0; ks_o /= 2)\n"
		    "\t\tks_acc += __shfl_xor_sync(0xffffffffu, ks_acc, ks_o);\n",
		    unroll, lanes, sh / 2);
	if (lanes > 32)
		ks_buf_addf(o,
			    "\t{\n"
			    "\t\t__shared__ float ks_red[%lld];\n"
			    "\n"
			    "\t\tif ((threadIdx.x & 31u) == 0)\n"
			    "\t\t\tks_red[threadIdx.x / 32u] = ks_acc;\n"
			    "\t\t__syncthreads();\n"
			    "\t\tif (ks_lane == 0)\n"
			    "\t\t\tfor (unsigned ks_w = 1; ks_w < %lldu; ks_w++)\n"
			    "\t\t\t\tks_acc += ks_red[threadIdx.x / 32u + ks_w];\n"
			    "\t}\n",
			    threads / 32, lanes / 32);
	emit_output(o, "ks_in && ks_lane == 0", kname, args);
}

/*
 * The matrix read along gx, reassociated: column blocks of `cols`
 * outputs x `slices` slices of the loop (thread (x, y) sums output x over
 * the iterations y, y + slices, ..., `unroll` loads in flight), the
 * slices combined in shared memory.
 */
static void
emit_cols(struct ks_buf *o, long long cols, long long slices, long long unroll,
	  const char *kname, const char *args)
{
	ks_buf_addf(o,
		    "\t__shared__ float ks_red[%lld][%lld];\n"
		    "\tconst long long ks_gx = (long long)blockIdx.x * %lld + threadIdx.x;\n"
		    "\tfloat ks_acc = 0.0f;\n"
		    "\n"
		    "\tif (ks_gx < ks_limx) {\n"
		    "\t\tconst float *const ks_mp = ks_mP + ks_mx * ks_gx;\n"
		    "\t\tlong long ks_l = threadIdx.y;\n"
		    "\n"
		    "\t\tfor (; ks_l + %lld < ks_T; ks_l += %lld) {\n"
		    "\t\t\tfloat ks_a[%lld], ks_x[%lld];\n"
		    "\n"
		    "\t\t\t#pragma unroll\n"
		    "\t\t\tfor (int ks_u = 0; ks_u < %lld; ks_u++) {\n"
		    "\t\t\t\tks_a[ks_u] = ks_mp[ks_mk * (ks_l + ks_u * %lld)];\n"
		    "\t\t\t\tks_x[ks_u] = ks_vp[ks_vk * (ks_l + ks_u * %lld)];\n"
		    "\t\t\t}\n"
		    "\t\t\t#pragma unroll\n"
		    "\t\t\tfor (int ks_u = 0; ks_u < %lld; ks_u++)\n"
		    "\t\t\t\tks_acc += ks_a[ks_u] * ks_x[ks_u];\n"
		    "\t\t}\n"
		    "\t\tfor (; ks_l < ks_T; ks_l += %lld)\n"
		    "\t\t\tks_acc += ks_mp[ks_mk * ks_l] * ks_vp[ks_vk * ks_l];\n"
		    "\t}\n"
		    "\tks_red[threadIdx.y][threadIdx.x] = ks_acc;\n"
		    "\t__syncthreads();\n"
		    "\tif (threadIdx.y == 0 && ks_gx < ks_nx) {\n"
		    "\t\tconst unsigned ks_ux = (unsigned)ks_gx;\n"
		    "\n"
		    "\t\tfor (int ks_s = 1; ks_s < %lld; ks_s++)\n"
		    "\t\t\tks_acc += ks_red[ks_s][threadIdx.x];\n"
		    "\t\tks_gemv_body_%s(make_uint3(ks_ux %% ks_ob.x, 0u, 0u),\n"
		    "\t\t\tmake_uint3(ks_ux / ks_ob.x, 0u, blockIdx.z), ks_ob, ks_og,\n"
		    "\t\t\t%s, ks_acc);\n"
		    "\t}\n"
		    "}\n",
		    slices, cols, cols, slices * (unroll - 1), slices * unroll, unroll,
		    unroll, unroll, slices, slices, unroll, slices, slices, kname, args);
}

static enum ks_xf_result
apply(const struct ks_xf_input *in, const struct ks_xf_point *pt,
      struct ks_buf *variant, struct ks_buf *reason)
{
	const struct ks_kernel *k = in->kernel;
	const long long warps = pt->v[0], unroll = pt->v[1], order = pt->v[2],
			lanes = pt->v[3], cols = pt->v[4];
	struct ks_kloop kl;
	struct ks_buf params = KS_BUF_INIT, args = KS_BUF_INIT;
	enum ks_xf_result rc = KS_XF_DECLINED;
	const struct ks_kl_operand *m, *v;
	long long threads, per_block = 0;	/* rows: outputs per block */
	int rows, y_free;

	if (ks_kloop_init(&kl, in, reason))
		goto out;
	if (kl.op[0].dep && kl.op[1].dep) {
		ks_buf_addf(reason,
			    "both %s and %s (line %u) vary with the thread: a "
			    "matrix product (gemm_register_blocking), not a "
			    "matrix-vector one",
			    kl.op[0].name, kl.op[1].name, kl.op[0].line);
		goto out;
	}
	if (!kl.op[0].dep && !kl.op[1].dep) {
		ks_buf_addf(reason, "neither %s nor %s (line %u) varies with the "
				    "thread",
			    kl.op[0].name, kl.op[1].name, kl.op[0].line);
		goto out;
	}
	m = kl.op[0].dep ? &kl.op[0] : &kl.op[1];
	v = m == &kl.op[0] ? &kl.op[1] : &kl.op[0];
	y_free = !(k->facts.coords & KS_COORD_Y_MASK) && !k->facts.incomplete;
	if (!ks_xf_launches_flat(&in->opts, y_free, 1, reason))
		goto out;
	if (m->dep != KS_KL_DEP_X) {
		ks_buf_addf(reason, "the row of %s (line %u) follows gy: only "
				    "outputs along gx are handled",
			    m->name, m->line);
		goto out;
	}
	if (m->unit_k)
		rows = 1;
	else if (m->unit_x)
		rows = 0;
	else {
		ks_buf_addf(reason, "%s (line %u) is contiguous neither along the "
				    "loop nor along gx",
			    m->name, m->line);
		goto out;
	}
	/* splitting a row among lanes or slices reassociates its sum:
	 * order=1 keeps the kernel's order (fast math needs none) */
	if (rows && order && !in->opts.fast_math)
		rows = 2;
	if (!rows && order && !in->opts.fast_math) {
		ks_buf_addf(reason,
			    "%s (line %u) is read along gx, already coalesced "
			    "across threads; splitting the loop into slices "
			    "reassociates each sum (order=0, or the fast-math "
			    "precision setting)",
			    m->name, m->line);
		goto out;
	}
	if (rows && cols != 32) {
		ks_buf_addf(reason, "cols=%lld: narrower column blocks are for the "
				    "matrix read along gx", cols);
		goto out;
	}
	if (rows != 1 && lanes != 32) {
		ks_buf_addf(reason, "lanes=%lld: groups of lanes per output are "
				    "for rows read along the loop, reassociated "
				    "(order=0)", lanes);
		goto out;
	}
	/* column blocks: 64/warps warps, the most first, their threads
	 * slicing the loop (see the comment above); rows: a group of lanes
	 * per output (in order: one thread), a block holding one group at
	 * least */
	if (!rows) {
		threads = 64 / warps * 32;
	} else {
		const long long group = rows == 1 ? lanes : 1;

		threads = group > warps * 32 ? group : warps * 32;
		per_block = threads / group;
	}
	if (ks_xfbody_params(k, -1, NULL, -1, NULL, &params, reason))
		goto out;
	ks_xfbody_args(k, &args);
	if (rows == 2)
		ks_buf_addf(variant,
			    "// %s: %lld rows per block, one per thread, slices of "
			    "%lld columns read coalesced into double-buffered "
			    "shared memory, each row summed in order "
			    "(gemv_warp_per_row)\n",
			    k->name, 32 * warps, 128 / warps);
	else if (rows)
		ks_buf_addf(variant,
			    "// %s: %lld lanes per output, %lld per block, %lld float4 "
			    "of the row in flight per lane (gemv_warp_per_row)\n",
			    k->name, lanes, per_block, unroll);
	else
		ks_buf_addf(variant,
			    "// %s: column blocks of %lld outputs x %lld slices of the "
			    "loop, combined in shared memory (gemv_warp_per_row)\n",
			    k->name, cols, threads / cols);
	ks_buf_adds(variant, "// ks-nvcc: helpers\n");
	ks_buf_adds(variant, helpers);
	if (ks_kloop_body(&kl, in, "ks_gemv", variant, reason))
		goto out;
	ks_buf_addf(variant,
		    "__global__ void __launch_bounds__(%lld)\n"
		    "ks_gemv_%s(const dim3 ks_og, const dim3 ks_ob, %s)\n"
		    "{\n",
		    threads, k->name, params.buf);
	emit_common(variant, &kl, m, v);
	if (rows == 2) {
		emit_ordered(variant, warps, k->name, args.buf);
	} else if (rows) {
		emit_rows(variant, threads, unroll, lanes, v->unit_k, k->name, args.buf);
	} else {
		emit_cols(variant, cols, threads / cols, unroll, k->name, args.buf);
	}
	ks_buf_adds(variant, "// ks-nvcc: definition\n");
	if (ks_xfbody_definition(in->text, in->len, k, variant, reason))
		goto out;
	ks_xfbody_launcher_open(variant, k->name, params.buf, 1);
	/* (facts the walk did not complete may miss a read of y) */
	ks_buf_addf(variant, "\n\t/* %s */\n\tif (%s || !ks_nx || ks_nx > 0xffffffffull) {\n"
			     "\t\t%s<<<grid, block, shmem, stream>>>(%s);\n\t\treturn;\n\t}\n",
		    y_free ? "The kernel reads no y coordinate: its threads along y\n"
			     "\t   (block.y, grid.y) repeat the work of the thread at y = 0,\n"
			     "\t   done here once per output. Blocks not flat in z: the\n"
			     "\t   original."
			   : "launches that are not 1-D in x: the original",
		    y_free ? "block.z != 1 || !grid.z"
			   : "block.y != 1 || block.z != 1 || grid.y != 1 || !grid.z",
		    k->name, args.buf);
	if (rows)
		ks_buf_addf(variant,
			    "\tks_gemv_%s<<<dim3((unsigned)((ks_nx + %lld) / %lld), 1, "
			    "grid.z), dim3(%lld), 0, stream>>>(grid, block, %s);\n"
			    "}\n",
			    k->name, per_block - 1, per_block, threads, args.buf);
	else
		ks_buf_addf(variant,
			    "\tks_gemv_%s<<<dim3((unsigned)((ks_nx + %lld) / %lld), 1, "
			    "grid.z), dim3(%lld, %lld), 0, stream>>>(grid, block, %s);\n"
			    "}\n",
			    k->name, cols - 1, cols, cols, threads / cols, args.buf);
	rc = KS_XF_APPLIED;
out:
	ks_kloop_release(&kl);
	ks_buf_release(&params);
	ks_buf_release(&args);
	return rc;
}

const struct ks_transform ks_xf_gemv_warp_per_row = {
	.id = "gemv_warp_per_row",
	.summary = "a matrix-vector product with a warp per row (float4 "
		   "reads, shuffles) or column blocks whose slices are "
		   "combined in shared memory (transposed); or, keeping each "
		   "row's order, coalesced row reads staged in shared memory",
	.precondition = "one loop accumulating the product of a float matrix "
			"indexed by gx and the loop, contiguous along one of "
			"them, and a vector indexed by the loop only, under "
			"bounds checks of gx",
	.nparams = 5,
	.params = {
		{ "warps", "warps per block (rows: 32*warps/lanes outputs, "
			   "one group of lanes at least; order=1: 32*warps rows "
			   "of 128/warps-column slices); transposed, 64/warps "
			   "slices of the loop per 32 outputs", 2, 3,
		  { 2, 4, 8 } },
		{ "unroll", "float4 per lane in flight (elements per slice step "
			    "when transposed; unused with order=1)", 4, 3,
		  { 4, 2, 8 } },
		{ "order", "0: sums reassociated (a warp per row, column "
			   "blocks); 1: each row summed in the kernel's order",
		  0, 2, { 0, 1 } },
		{ "lanes", "threads per output for rows read along the loop "
			   "(order=0): 32 a warp, 8 for short rows, 128 for few "
			   "long rows", 32, 3, { 32, 8, 128 } },
		{ "cols", "outputs per column block when transposed: 32 (a "
			  "warp reads 128 bytes of a row), 8 (4 rows of 32 bytes: "
			  "4 times the blocks for few outputs)", 32, 2, { 32, 8 } },
	},
	.apply = apply,
};
