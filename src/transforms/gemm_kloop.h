/*
 * gemm_kloop: the recognition the GEMM and GEMV transforms share.
 *
 * A "k-loop" kernel computes, per thread, one accumulated product
 *
 *     acc = sum over L in [0, T) of  P[p(g, L)] * Q[q(g, L)]
 *
 * in one loop (the k-loop) whose body is that accumulation alone
 * (`acc += P[..] * Q[..]`, `acc = acc + ..`, `acc = fmaf(.., .., acc)`;
 * acc a local or an element of global memory at an index the loop does
 * not move, `C[i * n + j] += ..`; the product may carry factors free of
 * data and of the loop, `alpha * P[..] * Q[..]`, which then scale the
 * sum), then runs the rest of its body (the epilogue: alpha/beta, bias,
 * activation, the store) once with acc. Each operand's element index is
 * affine in the global thread indices gx = blockIdx.x*blockDim.x +
 * threadIdx.x and gy (likewise), blockIdx.z (a batch) and the loop's
 * iteration L, with coefficients that are expressions of the kernel's
 * scalar parameters and the launch's block and grid sizes. All of this is
 * read from the analysis facts (the product, its loop, the accesses'
 * forms, the bounds checks); the text is only tokenized to find where the
 * loop the facts point at starts and ends, to bind the accumulator's name
 * and to check that the statement is exactly the accumulation.
 *
 * The transforms copy the kernel's body into a __device__ function with
 * the k-loop replaced by `acc += ks_gemm_v;` and call it once per output
 * with the value their tiled loop computed, so everything the kernel does
 * around the loop is kept as written.
 *
 * Ownership: struct ks_kloop owns its strings; ks_kloop_release() frees
 * them (safe on a zeroed struct).
 * May include: libc, core/, analysis/ (structs only), transform.h,
 * xfkit.h.
 */
#ifndef KS_TRANSFORMS_GEMM_KLOOP_H
#define KS_TRANSFORMS_GEMM_KLOOP_H

#include <stddef.h>

#include "xfkit.h"

/* Which global thread indices an operand's index depends on. */
#define KS_KL_DEP_X 1
#define KS_KL_DEP_Y 2

/* One operand of the product: element index
 * c0 + cz*blockIdx.z + cx*gx + cy*gy + ck*L, each a C expression of type
 * long long over the kernel's parameters, `ks_ob` and `ks_og` (the
 * original block and grid sizes). */
struct ks_kl_operand {
	int access;		/* index into the facts' accesses */
	int param;		/* the pointer parameter */
	const char *name;	/* borrowed: the parameter's name */
	unsigned line;
	unsigned dep;		/* KS_KL_DEP_* */
	char *c0, *cz, *cx, *cy, *ck;
	/* A coefficient that is the constant 1 (contiguous along it). */
	int unit_x, unit_y, unit_k;
};

struct ks_kloop {
	struct ks_xfk x;	/* the definition's pieces */
	int loop;		/* the k-loop in the facts */
	struct ks_kl_operand op[2];
	char *trip;		/* T, a C expression (long long, >= 0) */
	/* Limits of the bounds checks before the loop (gx < limx, gy <
	 * limy, blockIdx.z < limz), C expressions; NULL: none. */
	char *limx, *limy, *limz;
	/* The accumulator: a local's name, or (mem_acc) an element of
	 * global memory at an index the loop does not move, `C[i * n + j]
	 * += ..`, whose text the body keeps. */
	char *acc;
	int mem_acc;
	int acc_st, acc_ld;	/* its store and load in the facts, or -1 */
	/* The loop statement's replacement, 1 or 2 edits of the file:
	 * "acc += ks_gemm_v;", or the text around a kept `C[..]` becoming
	 * "C[..] += ks_gemm_v;"; with the factors of a scaled product,
	 * "acc += alpha * ks_gemm_v;". */
	struct ks_kl_edit {
		size_t begin, end;
		char *with;
	} edits[2];
	int nedits;
	size_t loop_begin, loop_end;	/* the loop statement in the file */
};

/*
 * Recognize the k-loop of in->kernel. Returns 0, or -1 with a readable
 * reason appended (the kernel is not of that shape and why).
 */
int ks_kloop_init(struct ks_kloop *kl, const struct ks_xf_input *in,
		  struct ks_buf *reason);
void ks_kloop_release(struct ks_kloop *kl);

/*
 * The kernel's body as a __device__ function `<prefix>_body_<kernel>`
 * taking (const uint3 ks_tid, const uint3 ks_bid, const dim3 ks_bdim,
 * const dim3 ks_gdim, <the kernel's parameters>, const float ks_gemm_v),
 * the k-loop replaced. Appended to `out`; -1 with the reason.
 */
int ks_kloop_body(const struct ks_kloop *kl, const struct ks_xf_input *in,
		  const char *prefix, struct ks_buf *out, struct ks_buf *reason);

#endif
