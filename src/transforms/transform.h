/*
 * transform: the interface every builtin skill transform implements.
 *
 * A transform is recognize -> instantiate. It reads one kernel as the
 * analysis found it (its facts: accesses as forms over thread indices,
 * loop variables and parameters; loops and trip counts; atomics; branches;
 * its parameters and extents), the text of the file that defines it, and a
 * point of its parameter space. It either returns a variant in the cache's
 * file format (docs/REWRITE.md: a header, then "// ks-nvcc: helpers",
 * "// ks-nvcc: definition" and optionally "// ks-nvcc: launcher" parts),
 * or declines with a reason a user can read ("the row loop's bound is not
 * uniform across the block"). Patterns are recognized in the facts, never
 * in the program's names or text; the text is only copied from.
 *
 * Transforms are pure: no file, no process, no clock; the same input gives
 * the same bytes. Each declares its parameter space (names, allowed
 * values, default, most promising first) and a one-line precondition that
 * the skill files cite.
 *
 * Ownership: the descriptors are static tables; ks_xf_apply() borrows its
 * input and appends to the caller's buffers.
 * May include: libc, core/, analysis/ (inventory.h, facts.h: structs only).
 */
#ifndef KS_TRANSFORMS_TRANSFORM_H
#define KS_TRANSFORMS_TRANSFORM_H

#include <stddef.h>

struct ks_buf;
struct ks_kernel;

#define KS_XF_MAX_PARAMS 12
#define KS_XF_MAX_VALUES 16

/* One dimension of a transform's parameter space. `values` lists the
 * allowed values in the order a search should try them (most promising
 * first); `def` is one of them. */
struct ks_xf_param {
	const char *name;		/* "block", "vec", "rows_per_warp" */
	const char *doc;		/* one line */
	long long def;
	size_t nvalues;
	long long values[KS_XF_MAX_VALUES];
};

/* A point of the space: one value per parameter, in descriptor order. */
struct ks_xf_point {
	size_t n;
	long long v[KS_XF_MAX_PARAMS];
};

/* One captured launch's shape. */
struct ks_xf_launch {
	unsigned grid[3], block[3];
};

/* Settings that change what a transform may emit (never its pattern). */
struct ks_xf_opts {
	int fast_math;		/* precision setting allows fast intrinsics */
	int arch;		/* the variant's arch as __CUDA_ARCH__: 900 */
	/* The kernel's captured launches (none where only its source is
	 * known): a transform whose launcher would run the original for
	 * every one of them declines, instead of a review that cannot gain. */
	const struct ks_xf_launch *launches;
	size_t nlaunches;
};

/* What a transform sees. */
struct ks_xf_input {
	const struct ks_kernel *kernel;	/* facts, params, extents */
	const char *text;		/* the file that defines the kernel */
	size_t len;
	struct ks_xf_opts opts;
};

enum ks_xf_result {
	KS_XF_APPLIED = 0,		/* `variant` holds the variant file */
	KS_XF_DECLINED = 1,		/* `reason` says why */
};

struct ks_transform {
	const char *id;			/* the skill id: "vectorize" */
	const char *summary;		/* one line: what it emits */
	const char *precondition;	/* one line: what it recognizes */
	size_t nparams;
	struct ks_xf_param params[KS_XF_MAX_PARAMS];
	/*
	 * Recognize and instantiate at point `p` (p->n == nparams, each
	 * value one of the allowed ones). Appends the variant file to
	 * `variant` and returns KS_XF_APPLIED, or appends one lowercase
	 * reason to `reason` and returns KS_XF_DECLINED.
	 */
	enum ks_xf_result (*apply)(const struct ks_xf_input *in,
				   const struct ks_xf_point *p,
				   struct ks_buf *variant,
				   struct ks_buf *reason);
};

/* Every builtin transform, in a fixed order. */
const struct ks_transform *const *ks_xf_all(size_t *n);

/* The transform with this id, or NULL. */
const struct ks_transform *ks_xf_find(const char *id);

/* The default point of `t`. */
void ks_xf_default_point(const struct ks_transform *t, struct ks_xf_point *p);

/*
 * Set parameter `name` of `p` to `value` ("name=value" parsing is the
 * CLI's). Returns 0, or -1 with the reason in `err` (unknown name, a value
 * outside the allowed ones).
 */
int ks_xf_point_set(const struct ks_transform *t, struct ks_xf_point *p,
		    const char *name, long long value, struct ks_buf *err);

/* "block=256 vec=4" */
void ks_xf_point_format(const struct ks_transform *t,
			const struct ks_xf_point *p, struct ks_buf *out);

/*
 * Pure: does a launcher that runs its variant only for launches flat in y
 * and z (block.y, block.z, grid.y 1; grid.z too unless `z_batch`: a
 * batch) cover one of the captured launches? `y_free`: the kernel reads
 * no y coordinate, so block.y and grid.y only repeat its threads and any
 * is covered. 1 when no launch is known; else 0 with the reason, naming
 * the first launch's shape.
 */
int ks_xf_launches_flat(const struct ks_xf_opts *o, int y_free, int z_batch,
			struct ks_buf *reason);

/*
 * Check the point and run the transform. A point outside the space is
 * declined with the reason, never passed to the transform.
 */
enum ks_xf_result ks_xf_apply(const struct ks_transform *t,
			      const struct ks_xf_input *in,
			      const struct ks_xf_point *p,
			      struct ks_buf *variant, struct ks_buf *reason);

#endif
