/*
 * gemm_register_blocking: a naive matrix product (one thread per output,
 * a k-loop over two operands, gemm_kloop.h) becomes a shared-memory
 * tiled, register-blocked kernel.
 *
 * Of the product's two operands, R is indexed by gy (and the loop) and S
 * by gx; output (gx, gy) is sum over L of R(gy, L) * S(gx, L), whatever
 * the strides (row- or column-major, either operand transposed, strides
 * as parameters) and with blockIdx.z moving both (a batch). A block of
 * the variant computes a BM x BN tile of outputs (BM values of gy, BN of
 * gx), each thread TM x TN of them in registers, from BK-deep slices of R
 * and S staged in two shared-memory buffers: the next slice is loaded
 * while the current one is multiplied. An operand contiguous along L is
 * read as float4 along L and stored transposed; one contiguous along its
 * thread index is read as float4 along it (on sm_80 and newer with
 * cp.async straight into shared memory); the float4 path is taken when
 * the operand's base and strides are 16-byte aligned (checked at run
 * time) and the four elements are in range, else elements are read one
 * by one with their bounds checks (the tails, any M, N, K). Reads outside
 * the kernel's own bounds checks give zeros.
 *
 * Each output then runs the kernel's own body at the original thread's
 * coordinates with the k-loop replaced by `acc += <the tile's sum>`, so
 * alpha/beta, bias, activations, the store and the kernel's bounds checks
 * are the kernel's. The launcher launches the original where the block
 * is not flat in z or the grid does not fit the tile grid.
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

/* How an operand's slice is read. */
enum mode {
	M_VK,		/* float4 along L, stored transposed */
	M_VT,		/* float4 along its thread index */
	M_SC,		/* one element at a time */
};

/* One operand as the template reads it. */
struct opnd {
	const struct ks_kl_operand *o;
	const char *p;		/* "r" / "s": prefix of its variables */
	const char *smem;	/* "ks_As" / "ks_Bs" */
	const char *mn;		/* "ks_BM" / "ks_BN" */
	const char *g0;		/* "ks_gy0" / "ks_gx0" */
	const char *lim;	/* "ks_limy" / "ks_limx" */
	const char *stride;	/* its thread-index coefficient */
	enum mode mode;
};

static const char helpers[] =
	"#ifndef KS_GEMM_HELPERS\n"
	"#define KS_GEMM_HELPERS\n"
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
	"/* 16 bytes global -> shared without registers (sm_80 and newer):\n"
	"   1 when issued, 0 when the caller must copy. */\n"
	"__device__ __forceinline__ static int\n"
	"ks_gemm_cp16(float *dst, const float *src)\n"
	"{\n"
	"#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800\n"
	"\tconst unsigned d = (unsigned)__cvta_generic_to_shared(dst);\n"
	"\n"
	"\tasm volatile(\"cp.async.cg.shared.global [%0], [%1], 16;\\n\" ::\n"
	"\t\t     \"r\"(d), \"l\"(src) : \"memory\");\n"
	"\treturn 1;\n"
	"#else\n"
	"\t(void)dst;\n"
	"\t(void)src;\n"
	"\treturn 0;\n"
	"#endif\n"
	"}\n"
	"__device__ __forceinline__ static void\n"
	"ks_gemm_cp_wait(void)\n"
	"{\n"
	"#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800\n"
	"\tasm volatile(\"cp.async.wait_all;\\n\" ::: \"memory\");\n"
	"#endif\n"
	"}\n"
	"#endif\n"
	"\n";

/* Slots of an operand's slice and their count per thread. */
static void
emit_consts(struct ks_buf *o, const struct opnd *d)
{
	ks_buf_addf(o,
		    "\tenum { ks_SL%s = %s, ks_NS%s = (ks_SL%s + ks_NT - 1) / ks_NT };\n",
		    d->p,
		    d->mode == M_SC ? (d->mn[4] == 'M' ? "ks_BM * ks_BK" : "ks_BN * ks_BK")
				    : (d->mn[4] == 'M' ? "ks_BM * ks_BK / 4" : "ks_BN * ks_BK / 4"),
		    d->p, d->p);
}

/* The slot's place in the slice: ks_m (thread index within the tile),
 * ks_k (L within the slice). */
static void
emit_slot(struct ks_buf *o, const struct opnd *d)
{
	switch (d->mode) {
	case M_VK:
		ks_buf_adds(o, "\t\t\tconst int ks_m = ks_sl / (ks_BK / 4), "
			       "ks_k = ks_sl % (ks_BK / 4) * 4;\n");
		break;
	case M_VT:
		ks_buf_addf(o, "\t\t\tconst int ks_k = ks_sl / (%s / 4), "
			       "ks_m = ks_sl %% (%s / 4) * 4;\n",
			    d->mn, d->mn);
		break;
	case M_SC:
		ks_buf_addf(o, "\t\t\tconst int ks_m = ks_sl %% %s, ks_k = ks_sl / %s;\n",
			    d->mn, d->mn);
		break;
	}
}

/* Read the operand's slice starting at iteration ks_L0 into the
 * registers ks_<p>q (or straight into buffer ks_nb with cp.async). */
static void
emit_load(struct ks_buf *o, const struct opnd *d)
{
	const char *p = d->p;

	ks_buf_addf(o,
		    "\t\t#pragma unroll\n"
		    "\t\tfor (int ks_i = 0; ks_i < ks_NS%s; ks_i++) {\n"
		    "\t\t\tconst int ks_sl = (int)threadIdx.x + ks_i * ks_NT;\n"
		    "\n"
		    "%s%s%s"
		    "\t\t\tks_%sq[ks_i] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);\n"
		    "\t\t\tif (ks_SL%s %% ks_NT && ks_sl >= ks_SL%s)\n"
		    "\t\t\t\tcontinue;\n",
		    p, d->mode == M_VT ? "\t\t\tks_" : "",
		    d->mode == M_VT ? p : "", d->mode == M_VT ? "a[ks_i] = 0;\n" : "",
		    p, p, p);
	ks_buf_adds(o, "\t\t\t{\n");
	emit_slot(o, d);
	ks_buf_addf(o,
		    "\t\t\tconst long long ks_g = %s + ks_m, ks_l = ks_L0 + ks_k;\n"
		    "\t\t\tconst float *const ks_p = ks_%sP + ks_%st * ks_g + ks_%sk * ks_l;\n",
		    d->g0, p, p, p);
	switch (d->mode) {
	case M_VK:
		ks_buf_addf(o,
			    "\n"
			    "\t\t\tif (ks_g < %s) {\n"
			    "\t\t\t\tif (ks_%sv && ks_l + 3 < ks_T) {\n"
			    "\t\t\t\t\tks_%sq[ks_i] = *(const float4 *)ks_p;\n"
			    "\t\t\t\t} else {\n"
			    "\t\t\t\t\tif (ks_l < ks_T) ks_%sq[ks_i].x = ks_p[0];\n"
			    "\t\t\t\t\tif (ks_l + 1 < ks_T) ks_%sq[ks_i].y = ks_p[1];\n"
			    "\t\t\t\t\tif (ks_l + 2 < ks_T) ks_%sq[ks_i].z = ks_p[2];\n"
			    "\t\t\t\t\tif (ks_l + 3 < ks_T) ks_%sq[ks_i].w = ks_p[3];\n"
			    "\t\t\t\t}\n"
			    "\t\t\t}\n",
			    d->lim, p, p, p, p, p, p);
		break;
	case M_VT:
		ks_buf_addf(o,
			    "\n"
			    "\t\t\tif (ks_l < ks_T) {\n"
			    "\t\t\t\tif (ks_%sv && ks_g + 3 < %s) {\n"
			    "\t\t\t\t\tks_%sa[ks_i] = ks_gemm_cp16(&%s[ks_nb][ks_k][ks_m], ks_p);\n"
			    "\t\t\t\t\tif (!ks_%sa[ks_i])\n"
			    "\t\t\t\t\t\tks_%sq[ks_i] = *(const float4 *)ks_p;\n"
			    "\t\t\t\t} else {\n"
			    "\t\t\t\t\tif (ks_g < %s) ks_%sq[ks_i].x = ks_p[0];\n"
			    "\t\t\t\t\tif (ks_g + 1 < %s) ks_%sq[ks_i].y = ks_p[1];\n"
			    "\t\t\t\t\tif (ks_g + 2 < %s) ks_%sq[ks_i].z = ks_p[2];\n"
			    "\t\t\t\t\tif (ks_g + 3 < %s) ks_%sq[ks_i].w = ks_p[3];\n"
			    "\t\t\t\t}\n"
			    "\t\t\t}\n",
			    p, d->lim, p, d->smem, p, p, d->lim, p, d->lim, p,
			    d->lim, p, d->lim, p);
		break;
	case M_SC:
		ks_buf_addf(o,
			    "\n"
			    "\t\t\tif (ks_g < %s && ks_l < ks_T)\n"
			    "\t\t\t\tks_%sq[ks_i].x = *ks_p;\n",
			    d->lim, p);
		break;
	}
	ks_buf_adds(o, "\t\t\t}\n\t\t}\n");
}

/* Registers -> buffer ks_nb. */
static void
emit_store(struct ks_buf *o, const struct opnd *d)
{
	const char *p = d->p, *s = d->smem;

	ks_buf_addf(o,
		    "\t\t#pragma unroll\n"
		    "\t\tfor (int ks_i = 0; ks_i < ks_NS%s; ks_i++) {\n"
		    "\t\t\tconst int ks_sl = (int)threadIdx.x + ks_i * ks_NT;\n"
		    "\n"
		    "\t\t\tif (ks_SL%s %% ks_NT && ks_sl >= ks_SL%s)\n"
		    "\t\t\t\tcontinue;\n"
		    "\t\t\t{\n",
		    p, p, p);
	emit_slot(o, d);
	switch (d->mode) {
	case M_VK:
		ks_buf_addf(o,
			    "\t\t\t%s[ks_nb][ks_k][ks_m] = ks_%sq[ks_i].x;\n"
			    "\t\t\t%s[ks_nb][ks_k + 1][ks_m] = ks_%sq[ks_i].y;\n"
			    "\t\t\t%s[ks_nb][ks_k + 2][ks_m] = ks_%sq[ks_i].z;\n"
			    "\t\t\t%s[ks_nb][ks_k + 3][ks_m] = ks_%sq[ks_i].w;\n",
			    s, p, s, p, s, p, s, p);
		break;
	case M_VT:
		ks_buf_addf(o,
			    "\t\t\tif (!ks_%sa[ks_i])\n"
			    "\t\t\t\t*(float4 *)&%s[ks_nb][ks_k][ks_m] = ks_%sq[ks_i];\n",
			    p, s, p);
		break;
	case M_SC:
		ks_buf_addf(o, "\t\t\t%s[ks_nb][ks_k][ks_m] = ks_%sq[ks_i].x;\n", s, p);
		break;
	}
	ks_buf_adds(o, "\t\t\t}\n\t\t}\n");
}

/* The run-time check that lets the float4 path run. */
static void
emit_operand_setup(struct ks_buf *o, const struct opnd *d)
{
	const struct ks_kl_operand *x = d->o;

	ks_buf_addf(o,
		    "\t/* %s (line %u): element (g, L) at %s[c0 + cz*z + t*g + k*L] */\n"
		    "\tconst long long ks_%st = %s, ks_%sk = %s;\n"
		    "\tconst float *const ks_%sP = (const float *)%s + (%s + %s * "
		    "(long long)blockIdx.z);\n",
		    x->name, x->line, x->name, d->p, d->stride, d->p, x->ck, d->p,
		    x->name, x->c0, x->cz);
	if (d->mode == M_VK)
		ks_buf_addf(o, "\tconst bool ks_%sv = ((unsigned long long)ks_%sP & 15) == 0 && "
			       "ks_%st %% 4 == 0;\n",
			    d->p, d->p, d->p);
	else if (d->mode == M_VT)
		ks_buf_addf(o, "\tconst bool ks_%sv = ((unsigned long long)ks_%sP & 15) == 0 && "
			       "ks_%sk %% 4 == 0;\n",
			    d->p, d->p, d->p);
	if (d->mode == M_VT)
		ks_buf_addf(o, "\tint ks_%sa[ks_NS%s];\n", d->p, d->p);
	ks_buf_addf(o, "\tfloat4 ks_%sq[ks_NS%s];\n", d->p, d->p);
}

static enum mode
mode_of(const struct ks_kl_operand *o, int unit_t)
{
	if (o->unit_k)
		return M_VK;
	if (unit_t)
		return M_VT;
	return M_SC;
}

static const char *const mode_name[] = {
	"float4 along k", "float4 along its thread index", "one element at a time",
};

static enum ks_xf_result
apply(const struct ks_xf_input *in, const struct ks_xf_point *pt,
      struct ks_buf *variant, struct ks_buf *reason)
{
	const struct ks_kernel *k = in->kernel;
	const long long bm = pt->v[0], bn = pt->v[1], bk = pt->v[2];
	const long long tm = pt->v[3], tn = pt->v[4];
	const long long nt = (bm / tm) * (bn / tn);
	struct ks_kloop kl;
	struct ks_buf params = KS_BUF_INIT, args = KS_BUF_INIT;
	enum ks_xf_result rc = KS_XF_DECLINED;
	const struct ks_kl_operand *r, *s;
	struct opnd R, S;

	if (nt < 64 || nt > 1024 || nt % 32 || bm % tm || bn % tn) {
		ks_buf_addf(reason, "the tile %lldx%lld with %lldx%lld per thread "
				    "needs %lld threads (64 to 1024, a multiple of 32)",
			    bm, bn, tm, tn, nt);
		return KS_XF_DECLINED;
	}
	if (2 * bk * (bm + 4 + bn + 4) * 4 > 48 * 1024) {
		ks_buf_addf(reason, "the tile %lldx%lldx%lld needs more than 48 KiB "
				    "of shared memory",
			    bm, bn, bk);
		return KS_XF_DECLINED;
	}
	if (ks_kloop_init(&kl, in, reason))
		goto out;
	for (int i = 0; i < 2; i++)
		if (!kl.op[i].dep) {
			ks_buf_addf(reason,
				    "%s (line %u) is the same for every thread: a "
				    "matrix-vector product (gemv_warp_per_row)",
				    kl.op[i].name, kl.op[i].line);
			goto out;
		} else if (kl.op[i].dep == (KS_KL_DEP_X | KS_KL_DEP_Y)) {
			ks_buf_addf(reason,
				    "the index of %s (line %u) depends on both gx "
				    "and gy: not an operand of a matrix product",
				    kl.op[i].name, kl.op[i].line);
			goto out;
		}
	if (kl.op[0].dep == kl.op[1].dep) {
		ks_buf_addf(reason,
			    "%s and %s (line %u) vary with the same thread "
			    "index: not a matrix product",
			    kl.op[0].name, kl.op[1].name, kl.op[0].line);
		goto out;
	}
	r = kl.op[0].dep == KS_KL_DEP_Y ? &kl.op[0] : &kl.op[1];
	s = r == &kl.op[0] ? &kl.op[1] : &kl.op[0];
	R = (struct opnd){ r, "r", "ks_As", "ks_BM", "ks_gy0", "ks_limy", r->cy,
			   mode_of(r, r->unit_y) };
	S = (struct opnd){ s, "s", "ks_Bs", "ks_BN", "ks_gx0", "ks_limx", s->cx,
			   mode_of(s, s->unit_x) };
	if (ks_xfbody_params(k, -1, NULL, -1, NULL, &params, reason))
		goto out;
	ks_xfbody_args(k, &args);

	ks_buf_addf(variant,
		    "// %s: %lldx%lld output tiles of %lld threads, %lldx%lld "
		    "outputs each, k-slices of %lld double-buffered in shared "
		    "memory; %s read %s, %s %s (gemm_register_blocking)\n",
		    k->name, bm, bn, nt, tm, tn, bk, r->name, mode_name[R.mode],
		    s->name, mode_name[S.mode]);
	ks_buf_adds(variant, "// ks-nvcc: helpers\n");
	ks_buf_adds(variant, helpers);
	if (ks_kloop_body(&kl, in, "ks_gemm", variant, reason))
		goto out;
	ks_buf_addf(variant,
		    "/* Block (x, y, z): outputs gx in [x*%lld, +%lld), gy in "
		    "[y*%lld, +%lld) of batch z, of\n"
		    "   the original grid of ks_og blocks of ks_ob threads. */\n"
		    "__global__ void __launch_bounds__(%lld)\n"
		    "ks_gemm_%s(const dim3 ks_og, const dim3 ks_ob, %s)\n"
		    "{\n"
		    "\tenum { ks_BM = %lld, ks_BN = %lld, ks_BK = %lld, ks_TM = %lld, "
		    "ks_TN = %lld, ks_NT = %lld,\n"
		    "\t       ks_NTX = ks_BN / ks_TN };\n"
		    "\t__shared__ __align__(16) float ks_As[2][ks_BK][ks_BM + 4];\n"
		    "\t__shared__ __align__(16) float ks_Bs[2][ks_BK][ks_BN + 4];\n"
		    "\tconst int ks_tx = (int)threadIdx.x %% ks_NTX, ks_ty = "
		    "(int)threadIdx.x / ks_NTX;\n"
		    "\tconst long long ks_nx = (long long)ks_og.x * ks_ob.x;\n"
		    "\tconst long long ks_ny = (long long)ks_og.y * ks_ob.y;\n"
		    "\tconst long long ks_gx0 = (long long)blockIdx.x * ks_BN;\n"
		    "\tconst long long ks_gy0 = (long long)blockIdx.y * ks_BM;\n",
		    bn, bn, bm, bm, nt, k->name, params.buf, bm, bn, bk, tm, tn, nt);
	ks_buf_addf(variant,
		    "\t/* reads stay inside the kernel's own bounds checks */\n"
		    "\tconst long long ks_limx = %s%s%s;\n"
		    "\tconst long long ks_limy = %s%s%s;\n"
		    "\tconst long long ks_T = %s%s%s%s;\n",
		    kl.limx ? "ks_min_ll(ks_nx, " : "ks_nx", kl.limx ? kl.limx : "",
		    kl.limx ? ")" : "", kl.limy ? "ks_min_ll(ks_ny, " : "ks_ny",
		    kl.limy ? kl.limy : "", kl.limy ? ")" : "",
		    kl.limz ? "(long long)blockIdx.z >= " : "", kl.limz ? kl.limz : "",
		    kl.limz ? " ? 0LL : " : "", kl.trip);
	emit_consts(variant, &R);
	emit_consts(variant, &S);
	emit_operand_setup(variant, &R);
	emit_operand_setup(variant, &S);
	ks_buf_adds(variant,
		    "\tconst long long ks_nk = (ks_T + ks_BK - 1) / ks_BK;\n"
		    "\tfloat ks_c[ks_TM][ks_TN];\n"
		    "\n"
		    "\t#pragma unroll\n"
		    "\tfor (int ks_i = 0; ks_i < ks_TM; ks_i++)\n"
		    "\t\t#pragma unroll\n"
		    "\t\tfor (int ks_j = 0; ks_j < ks_TN; ks_j++)\n"
		    "\t\t\tks_c[ks_i][ks_j] = 0.0f;\n"
		    "\tif (ks_nk > 0) {\n"
		    "\t\tconst long long ks_L0 = 0;\n"
		    "\t\tconst int ks_nb = 0;\n"
		    "\n");
	emit_load(variant, &R);
	emit_load(variant, &S);
	emit_store(variant, &R);
	emit_store(variant, &S);
	ks_buf_adds(variant,
		    "\t\tks_gemm_cp_wait();\n"
		    "\t}\n"
		    "\t__syncthreads();\n"
		    "\tfor (long long ks_t = 0; ks_t < ks_nk; ks_t++) {\n"
		    "\t\tconst int ks_cb = (int)(ks_t & 1), ks_nb = ks_cb ^ 1;\n"
		    "\t\tconst bool ks_more = ks_t + 1 < ks_nk;\n"
		    "\t\tconst long long ks_L0 = (ks_t + 1) * ks_BK;\n"
		    "\n"
		    "\t\tif (ks_more) {\n");
	emit_load(variant, &R);
	emit_load(variant, &S);
	ks_buf_adds(variant,
		    "\t\t}\n"
		    "\t\t#pragma unroll\n"
		    "\t\tfor (int ks_kk = 0; ks_kk < ks_BK; ks_kk++) {\n"
		    "\t\t\tfloat ks_a[ks_TM], ks_b[ks_TN];\n"
		    "\n"
		    "\t\t\t#pragma unroll\n"
		    "\t\t\tfor (int ks_u = 0; ks_u < ks_TM / 4; ks_u++) {\n"
		    "\t\t\t\tconst float4 ks_v = *(const float4 *)&ks_As[ks_cb][ks_kk]"
		    "[ks_u * (ks_BM / (ks_TM / 4)) + ks_ty * 4];\n"
		    "\n"
		    "\t\t\t\tks_a[4 * ks_u] = ks_v.x;\n"
		    "\t\t\t\tks_a[4 * ks_u + 1] = ks_v.y;\n"
		    "\t\t\t\tks_a[4 * ks_u + 2] = ks_v.z;\n"
		    "\t\t\t\tks_a[4 * ks_u + 3] = ks_v.w;\n"
		    "\t\t\t}\n"
		    "\t\t\t#pragma unroll\n"
		    "\t\t\tfor (int ks_u = 0; ks_u < ks_TN / 4; ks_u++) {\n"
		    "\t\t\t\tconst float4 ks_v = *(const float4 *)&ks_Bs[ks_cb][ks_kk]"
		    "[ks_u * (ks_BN / (ks_TN / 4)) + ks_tx * 4];\n"
		    "\n"
		    "\t\t\t\tks_b[4 * ks_u] = ks_v.x;\n"
		    "\t\t\t\tks_b[4 * ks_u + 1] = ks_v.y;\n"
		    "\t\t\t\tks_b[4 * ks_u + 2] = ks_v.z;\n"
		    "\t\t\t\tks_b[4 * ks_u + 3] = ks_v.w;\n"
		    "\t\t\t}\n"
		    "\t\t\t#pragma unroll\n"
		    "\t\t\tfor (int ks_i = 0; ks_i < ks_TM; ks_i++)\n"
		    "\t\t\t\t#pragma unroll\n"
		    "\t\t\t\tfor (int ks_j = 0; ks_j < ks_TN; ks_j++)\n"
		    "\t\t\t\t\tks_c[ks_i][ks_j] += ks_a[ks_i] * ks_b[ks_j];\n"
		    "\t\t}\n"
		    "\t\tif (ks_more) {\n");
	emit_store(variant, &R);
	emit_store(variant, &S);
	ks_buf_addf(variant,
		    "\t\t}\n"
		    "\t\tks_gemm_cp_wait();\n"
		    "\t\t__syncthreads();\n"
		    "\t}\n"
		    "\t/* each output: the kernel's own body, at its thread */\n"
		    "\t#pragma unroll\n"
		    "\tfor (int ks_i = 0; ks_i < ks_TM; ks_i++) {\n"
		    "\t\tconst long long ks_gy = ks_gy0 + ks_i / 4 * (ks_BM / (ks_TM / 4)) + "
		    "ks_ty * 4 + ks_i %% 4;\n"
		    "\n"
		    "\t\tif (ks_gy >= ks_ny)\n"
		    "\t\t\tcontinue;\n"
		    "\t\t#pragma unroll\n"
		    "\t\tfor (int ks_j = 0; ks_j < ks_TN; ks_j++) {\n"
		    "\t\t\tconst long long ks_gx = ks_gx0 + ks_j / 4 * (ks_BN / (ks_TN / 4)) + "
		    "ks_tx * 4 + ks_j %% 4;\n"
		    "\t\t\tconst unsigned ks_ux = (unsigned)ks_gx, ks_uy = (unsigned)ks_gy;\n"
		    "\n"
		    "\t\t\tif (ks_gx >= ks_nx)\n"
		    "\t\t\t\tcontinue;\n"
		    "\t\t\tks_gemm_body_%s(make_uint3(ks_ux %% ks_ob.x, ks_uy %% ks_ob.y, 0u),\n"
		    "\t\t\t\tmake_uint3(ks_ux / ks_ob.x, ks_uy / ks_ob.y, blockIdx.z),\n"
		    "\t\t\t\tks_ob, ks_og, %s, ks_c[ks_i][ks_j]);\n"
		    "\t\t}\n"
		    "\t}\n"
		    "}\n",
		    k->name, args.buf);
	ks_buf_adds(variant, "// ks-nvcc: definition\n");
	if (ks_xfbody_definition(in->text, in->len, k, variant, reason))
		goto out;
	ks_xfbody_launcher_open(variant, k->name, params.buf, 2);
	ks_buf_addf(variant,
		    "\n"
		    "\t/* launches the tile grid cannot cover: the original */\n"
		    "\tif (block.z != 1 || !ks_nx || !ks_ny || !grid.z || ks_nx > 0xffffffffull ||\n"
		    "\t    ks_ny > 0xffffffffull || (ks_ny + %lld) / %lld > 65535ull) {\n"
		    "\t\t%s<<<grid, block, shmem, stream>>>(%s);\n"
		    "\t\treturn;\n"
		    "\t}\n"
		    "\tks_gemm_%s<<<dim3((unsigned)((ks_nx + %lld) / %lld), "
		    "(unsigned)((ks_ny + %lld) / %lld), grid.z),\n"
		    "\t\t   dim3(%lld), 0, stream>>>(grid, block, %s);\n"
		    "}\n",
		    bm - 1, bm, k->name, args.buf, k->name,
		    bn - 1, bn, bm - 1, bm, nt, args.buf);
	rc = KS_XF_APPLIED;
out:
	ks_kloop_release(&kl);
	ks_buf_release(&params);
	ks_buf_release(&args);
	return rc;
}

const struct ks_transform ks_xf_gemm_register_blocking = {
	.id = "gemm_register_blocking",
	.summary = "a naive matrix product as a shared-memory tiled, "
		   "register-blocked kernel: 2-D block and thread tiles, float4 "
		   "loads where aligned, double-buffered k-slices (cp.async on "
		   "sm_80+), the kernel's epilogue per output",
	.precondition = "one loop accumulating the product of two float "
			"operands, one indexed affinely by gy and the loop, the "
			"other by gx and the loop (any strides, blockIdx.z for "
			"a batch), under bounds checks of gx and gy only",
	/*
	 * ks try visits points by the sum of their values' positions: the
	 * 128x128x8 tile with 8x8 outputs per thread (256 threads) first,
	 * then one change at a time (a 64-row or 64-column tile for
	 * smaller grids, a deeper k-slice, 4-wide thread tiles).
	 */
	.nparams = 5,
	.params = {
		{ "bm", "rows (gy) of the output tile", 128, 2, { 128, 64 } },
		{ "bn", "columns (gx) of the output tile", 128, 2, { 128, 64 } },
		{ "bk", "depth of a k-slice", 8, 2, { 8, 16 } },
		{ "tm", "rows of outputs per thread", 8, 2, { 8, 4 } },
		{ "tn", "columns of outputs per thread", 8, 2, { 8, 4 } },
	},
	.apply = apply,
};
