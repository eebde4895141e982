/*
 * rewrite: put verified variants into a translation unit's text.
 *
 * ks_rewrite() is a pure function over the TU's text, the extents of each
 * replaced kernel (its definition and its launch sites, byte offsets in the
 * main file, as the inventory finds them) and the variant (docs/REWRITE.md:
 * the replacement definition, optional helpers placed before it, an
 * optional launcher `static void ks_launch_<kernel>(dim3 grid, dim3 block,
 * size_t shmem, cudaStream_t stream, <kernel params>)`). The result:
 *   - the device pass whose __CUDA_ARCH__ equals the variant's arch sees
 *     the helpers and the variant's definition;
 *   - every other device pass and the host pass see the original
 *     definition (so host stubs and launches compile as before); the host
 *     pass also sees the helpers, for the launcher;
 *   - kernels among the helpers are declared in every pass (nvcc takes
 *     host stubs from its last device pass), with an empty body where the
 *     variant is not;
 *   - with a launcher, each host launch of the kernel becomes "the
 *     launcher when the image that runs was compiled for the variant's
 *     arch (cudaFuncAttributes.ptxVersion), else the original launch",
 *     decided at run time per device and cached;
 *   - #line directives map every line back: user text to the user's file
 *     and lines, variant text to the variant's file and lines.
 * The generated shape, with an example, is in docs/REWRITE.md.
 *
 * analysis/inventory.h (ks_rewrite_kernel_from_inventory) takes the
 * extents from the libclang inventory. ks_rewrite_scan() finds them lexically (no
 * macros, no templates, launches spelled `name<<<...>>>(...)`): a
 * stand-in for the inventory in tests and where libclang cannot parse.
 *
 * Ownership: ks_rewrite() borrows everything and appends to `out`. A
 * struct ks_rewrite_kernel filled by ks_rewrite_scan() owns its strings
 * and arrays; ks_rewrite_kernel_release() frees them (safe on a zeroed
 * struct).
 * libc only, so that ks-nvcc can link it for substitution; its lexer is
 * lex.h's. rewrite.c is longer than the project's 1,200 lines: the
 * lexical scan, the line table, the edit list and the guarded output, for
 * plain kernels and template instances alike, are one algorithm over the
 * same private structures, and each part is only read with the others.
 * May include: libc, core/.
 */
#ifndef KS_CACHE_REWRITE_H
#define KS_CACHE_REWRITE_H

#include <stddef.h>

struct ks_buf;

/* One launch site: `k<<<grid, block, shmem, stream>>>(args)`. */
struct ks_rewrite_launch {
	size_t begin, end; /* the whole call expression, qualifier included */
	char *grid, *block;
	char *shmem, *stream;	/* NULL when the launch does not say */
	char **args;
	size_t nargs;
	int device_side;	/* inside device code (dynamic parallelism) */
	/* produced by this macro's expansion (NULL: none): [begin, end) is
	 * the macro's use, which a launcher cannot rewrite */
	char *macro;
};

/* A kernel of the main file, as the inventory sees it. */
struct ks_rewrite_kernel {
	char *name;		/* as written, unqualified */
	size_t def_begin, def_end;	/* the definition, through its '}' */
	size_t line;		/* line of def_begin, 1-based */
	struct ks_rewrite_launch *launches;
	size_t nlaunches;
	/* Launches outside the main file (in headers), not in `launches`:
	 * they cannot be rewritten, so a launcher is refused. */
	size_t foreign_launches;
};

/* Free what ks_rewrite_scan() allocated and zero `k`. */
void ks_rewrite_kernel_release(struct ks_rewrite_kernel *k);

/* A piece of variant text and the line its first character has in the
 * variant's file (0 is taken as 1). */
struct ks_rewrite_part {
	const char *text;	/* NULL or "": absent */
	size_t line;
};

struct ks_rewrite_variant {
	const char *file;	/* the variant's file, named by #line */
	unsigned arch;		/* its verified __CUDA_ARCH__: 900 */
	struct ks_rewrite_part helpers;
	struct ks_rewrite_part definition;	/* required */
	struct ks_rewrite_part launcher;
};

struct ks_rewrite_job {
	const struct ks_rewrite_kernel *kernel;
	const struct ks_rewrite_variant *variant;
	/* NULL: a plain kernel. Else `kernel` is a template and the job
	 * replaces its instance with these template arguments, as the
	 * inventory displays them ("float", "float, 64"): see
	 * ks_rewrite_instances(). */
	const char *args;
};

/*
 * Pure: the TU `src` (len bytes, named `path` in #line directives) with
 * each job's kernel replaced (a job with `args`, one instance of a
 * template: below), appended to `out`. Refused, with one message naming
 * the kernel and the line: a template kernel without `args`; extents
 * that are not a definition or a launch of the kernel; with a launcher, a
 * launch before the definition, a launch in device code or in a
 * preprocessor directive, and any other use of the kernel's name (its
 * address would bypass the launcher); overlapping jobs. Nothing is
 * appended on failure.
 */
int ks_rewrite(const char *src, size_t len, const char *path,
	       const struct ks_rewrite_job *jobs, size_t njobs,
	       struct ks_buf *out, struct ks_buf *err);

/*
 * Pure: can variants of two instances of one template sit in one TU? Yes
 * unless one declares names at file scope (in its helpers or launcher
 * part) and the other declares names that cannot be read (a namespace or
 * a linkage block among them). Names the two share are renamed in the
 * later one by ks_rewrite (`ks_sb_k` -> `ks_sb_k_i1`).
 */
int ks_rewrite_variants_coexist(const struct ks_rewrite_variant *a,
				const struct ks_rewrite_variant *b);

/*
 * One instance of a template kernel replaced by an explicit
 * specialization: `kernel` holds the template's extents (its definition,
 * from `template`, and its launches), `args` the instance's template
 * arguments as the inventory displays them ("float", "float, 64"). The
 * variant's definition is either the explicit specialization itself
 * (`template <> __global__ void k<float>(float *p) {...}`) or a plain
 * definition (`__global__ void k(float *p) {...}`), which becomes one:
 * `template <> ` before it, `<args>` after the name.
 */
struct ks_rewrite_instance_job {
	const struct ks_rewrite_kernel *kernel;
	const char *args;
	const struct ks_rewrite_variant *variant;
};

/*
 * Pure: the TU with each job's explicit specialization placed right after
 * its template's definition, seen only by the device pass whose
 * __CUDA_ARCH__ is the variant's (helpers as for ks_rewrite), appended to
 * `out`: that pass compiles the variant for that instance and the
 * template for the others; every other pass, and the host pass, compile
 * the TU as written. The mangled name is the instance's, so host stubs
 * stay as they are. With a launcher, every host launch of the template
 * (of any instance, in template functions too) calls a launcher
 * template made from the kernel's own template header and parameters,
 * which launches the kernel as written; its explicit specialization for
 * the job's instance runs the variant's launcher when the variant's
 * image runs, as ks_rewrite does (docs/REWRITE.md). Refused, with one
 * message naming the kernel: a kernel that is not a template, extents
 * that are not its definition, a launch of it before the definition (the
 * instance would be instantiated before its specialization), a variant
 * that specializes another kernel, two jobs for the same instance, two
 * jobs with helpers for one template whose names cannot be read (see
 * ks_rewrite_variants_coexist; names they share are renamed); with a
 * launcher, what ks_rewrite refuses, a template parameter pack, and a
 * launcher whose parameters are not the kernel's after the four of the
 * configuration. Nothing is appended on failure. The same as ks_rewrite()
 * with each job's `args` set.
 */
int ks_rewrite_instances(const char *src, size_t len, const char *path,
			 const struct ks_rewrite_instance_job *jobs,
			 size_t njobs, struct ks_buf *out,
			 struct ks_buf *err);

/*
 * Pure: split a variant file in place into its parts. Each part starts
 * after a line that is exactly "// ks-nvcc: helpers", "// ks-nvcc:
 * definition" or "// ks-nvcc: launcher" and runs to the next such line;
 * text before the first is a header and ignored. The markers are
 * overwritten with NULs, so the parts point into `text` (still the
 * caller's). Sets the parts and their lines, not `file` or `arch`. Fails
 * without a definition or with a part given twice.
 */
int ks_rewrite_variant_split(char *text, struct ks_rewrite_variant *v,
			     struct ks_buf *err);

/*
 * Pure: `variant` (a variant file's text) rewritten with `first` at the
 * start of its helpers part (a part made where it has none) and the
 * header line "// ks-nvcc variant: <header>"; its other parts as they
 * were. Fails as ks_rewrite_variant_split() does, leaving it unchanged.
 */
int ks_rewrite_variant_helpers_first(const char *header, const char *first,
				     struct ks_buf *variant, struct ks_buf *err);

/*
 * Pure: find kernel `name`'s definition and launch sites in `src`
 * lexically. Fails when there is no definition (-2: it may be in a
 * header, cache/expand.h) or more than one, or the text cannot be read
 * (-1); then `k` holds nothing to release.
 */
int ks_rewrite_scan(const char *src, size_t len, const char *name,
		    struct ks_rewrite_kernel *k, struct ks_buf *err);

#endif
