/*
 * xf_fixture: the files a transform test suite parses once with libclang
 * (tests/unit/test_xf_*.c), and a transform applied to one of their
 * kernels. Without a loadable libclang, or without the suite's data, the
 * suite's tests say why and are counted as skipped.
 *
 * Ownership: the suite owns the fixture and its files (a static array);
 * xf_teardown() releases what parsing made and removes the state folder.
 * May include: libc, analysis, cache (rewrite.h), core, transforms, test.h.
 */
#ifndef KS_TESTS_XF_FIXTURE_H
#define KS_TESTS_XF_FIXTURE_H

#include "../../src/analysis/inventory.h"
#include "../../src/core/buf.h"
#include "../../src/transforms/transform.h"

struct xf_file {
	const char *path;	/* relative to the repository */
	struct ks_inventory inv;
	struct ks_buf text;
	int done;		/* 0: not parsed, 1: parsed, -1: failed */
};

struct xf_fixture {
	const char *what;	/* "conv": the skip message's subject */
	const char *probe;	/* a data file the suite needs */
	const char *include;	/* "-Idir" for every parse, or NULL */
	struct xf_file *files;
	size_t nfiles;
	int ready;		/* 0: not set up, 1: ready, -1: skip */
	char state[256];	/* the analysis' state folder (PCHs) */
	const char *toolkit;	/* the CUDA toolkit, if installed */
	/* the captured launches xf_run passes on (none: NULL, 0) */
	const struct ks_xf_launch *launches;
	size_t nlaunches;
};

/* 1 when the suite can run, else 0 (the reason printed once). */
int xf_setup(struct xf_fixture *x);

/* `path` (one of the fixture's files) parsed, or NULL with the error
 * printed. */
struct xf_file *xf_parse(struct xf_fixture *x, const char *path);

/* `skill` at `pt` (NULL: its default point) applied to `kernel` of
 * `path`; -1 cast to the enum when the file, kernel or skill is missing.
 * `kout`, when not NULL, gets the kernel's facts. */
enum ks_xf_result xf_run(struct xf_fixture *x, const char *skill,
			 const char *path, const char *kernel,
			 const struct ks_xf_point *pt, struct ks_buf *variant,
			 struct ks_buf *reason, const struct ks_kernel **kout);

/* A kernel of a suite's table and what its skill does with it at the
 * default point. */
struct xf_case {
	const char *file, *kernel;
	const char *skill;	/* NULL: the suite's */
	const char *reason;	/* NULL: applies; else part of the reason it
				   declines with */
};

/* Each case applies (a variant, no reason) or declines with its reason
 * (no variant); `skill` for the cases that name none. */
void xf_check_cases(struct xf_fixture *x, const char *skill,
		    const struct xf_case *c, size_t n);

/* Each applied case: the same bytes twice, a launcher, the kernel's own
 * definition, and a variant the rewriter puts into the kernel's file. */
void xf_check_rewritable(struct xf_fixture *x, const char *skill,
			 const struct xf_case *c, size_t n);

void xf_teardown(struct xf_fixture *x);

#endif
