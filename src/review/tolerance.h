/*
 * tolerance: does a buffer a run produced match the reference? The
 * Reviewer's correctness rules as pure functions over bytes.
 *
 * Floats match when |got - ref| <= atol + rtol * |ref| + stol * rms(ref)
 * for every element, where rms(ref) is the root mean square of the
 * reference buffer's finite values: a reordered sum moves a result by ulps
 * of its partial sums, which are of the buffer's scale, so a result near
 * zero (a cancellation) may move by that much, but no more. NaN where the
 * reference has NaN and only there, and the same infinities in the same
 * places. Integers, bytes and unknown dtypes match exactly.
 * Defaults per dtype are in ks_tol_defaults() and docs/CAPTURE.md; the
 * KS_TOL_* settings override them.
 *
 * The buffer rules (ks_check_buffer): a buffer the reference run did not
 * write must come back byte-identical to what the run was given; a written
 * one must match the reference within tolerance, and must not be constant
 * where the reference is not (a candidate that writes one value everywhere
 * cannot hide behind a loose tolerance).
 *
 * Everything here is pure: no I/O, no allocation beyond the caller's
 * buffers.
 * May include: libc, core/buf.h, capture/dtype.h.
 */
#ifndef KS_REVIEW_TOLERANCE_H
#define KS_REVIEW_TOLERANCE_H

#include <stddef.h>

#include "../capture/dtype.h"

struct ks_buf;

struct ks_tol {
	double atol;
	double rtol;
	double stol;	/* relative to the RMS of the reference buffer */
};

/* Fill tol[KS_DTYPE_N] with the defaults (exact for bytes and int). */
void ks_tol_defaults(struct ks_tol *tol);

/* Parse "ATOL,RTOL[,STOL]" (non-negative numbers) into `t`; without STOL,
 * t->stol is left as it was (the default). */
int ks_tol_parse(const char *text, struct ks_tol *t, struct ks_buf *err);

/* What a comparison found. */
struct ks_cmp {
	size_t elems;		/* elements compared */
	size_t bad;		/* elements that do not match */
	size_t first_bad;	/* index of the first one (valid when bad) */
	double got_first, want_first;	/* its values (floats) */
	size_t nan_mismatch;	/* NaN in one and not in the other */
	size_t inf_mismatch;	/* an infinity not matched by the same one */
	double max_abs;		/* largest |got - ref| over finite pairs */
	double ref_rms;		/* rms(ref), when a mismatch needed it; else 0 */
	int got_constant, ref_constant;	/* every element equal */
};

/* Pure: decode element `i` of a float buffer of dtype `d` as a double. */
double ks_tol_load(enum ks_dtype d, const void *data, size_t i);

/* Pure: store `v` as element `i` of a float buffer of dtype `d`, rounded to
 * nearest even (fp16 and bf16 included). */
void ks_tol_store(enum ks_dtype d, void *data, size_t i, double v);

/*
 * Pure: compare `size` bytes of `got` with `ref` as elements of `d` (a
 * trailing part shorter than an element is compared bytewise). Returns 1
 * when they match, 0 otherwise; `r` says what was found.
 */
int ks_tol_compare(enum ks_dtype d, const void *got, const void *ref,
		   size_t size, const struct ks_tol *tol, struct ks_cmp *r);

/* One buffer of a run, for ks_check_buffer. */
struct ks_check {
	enum ks_dtype dtype;
	size_t size;
	const void *before;	/* what the run was given */
	const void *ref;	/* the reference after-state */
	const void *got;	/* what the run left */
	int written;		/* the reference run wrote it */
};

/*
 * Pure: apply the buffer rules (above) with tol[KS_DTYPE_N]. Returns 1 when
 * the buffer passes; otherwise 0 and one lowercase sentence in `why`.
 */
int ks_check_buffer(const struct ks_check *b, const struct ks_tol *tol,
		    struct ks_buf *why);

/* Pure: the same verdict as ks_check_buffer(), without the sentence,
 * stopping at the first element that fails (a yes-or-no question). */
int ks_check_buffer_passes(const struct ks_check *b, const struct ks_tol *tol);

#endif
