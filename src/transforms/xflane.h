/*
 * xflane: may a kernel's body run once on P-wide values for P threads
 * that are consecutive along x?
 *
 * A transform that gives one thread P consecutive outputs along x (the
 * packed stencil) can run the body P times, or once with every value
 * that comes from the input a P-wide vector (one lane an output): the P
 * chains of arithmetic then interleave and the branches are taken once.
 * That is the same computation only where (1) every value that differs
 * between the P outputs is either an input read the transform replaces
 * (it hands the body P-wide values there) or an integer that only
 * indexes those reads and the output's store or is compared in a bounds
 * check the transform evaluates for each lane and requires to agree, and
 * (2) what the body does with the P-wide values is arithmetic the vector
 * type defines: + - * / on values and uniform scalars, and
 * declarations and assignments of the element type.
 *
 * This module decides that from the kernel's text and facts, token by
 * token, statement by statement: values that depend on the thread's x
 * coordinate (threadIdx.x, blockIdx.x and the integer locals computed
 * from them) are followed through declarations and assignments to a
 * fixed point, and every place they or the vector values appear is
 * checked. What it cannot follow (a call on a value, a comparison of
 * one, a loop whose bounds depend on x, a while loop, a local array of
 * the element type, a cast) makes it say no, with the reason and the
 * line: the transform then runs the P bodies one at a time, as before.
 * Identifiers the body does not declare (macros, globals, constants)
 * count as uniform; the transform's Reviewer still checks every variant
 * against the original's outputs.
 *
 * Ownership: pure functions; the caller owns every buffer.
 * May include: libc, core/, analysis/ (structs only), xfkit.h.
 */
#ifndef KS_TRANSFORMS_XFLANE_H
#define KS_TRANSFORMS_XFLANE_H

#include <stddef.h>

#include "../analysis/facts.h"
#include "../analysis/inventory.h"
#include "../core/buf.h"

/* A byte range [begin, end) of the file. */
struct ks_xflane_range {
	unsigned long begin, end;
};

struct ks_xflane {
	const char *text;		/* the file */
	const struct ks_kernel *k;	/* its body extent */
	const struct ks_facts *f;	/* its branches (the bounds checks) */
	const char *elem;		/* the element type, one token: "float" */
	/* The reads the transform replaces by P-wide values, and the stores
	 * of the output it takes as P-wide (written `name[index] = value`). */
	const struct ks_xflane_range *reads;
	size_t nreads;
	const struct ks_xflane_range *stores;
	size_t nstores;
};

/*
 * 1 when the body may run on lanes (the caller must still make the
 * lanes agree on every bounds check of the facts whose subject depends
 * on x); 0 with one reason appended to `why` when not.
 */
int ks_xflane_check(const struct ks_xflane *l, struct ks_buf *why);

#endif
