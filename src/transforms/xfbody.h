/*
 * xfbody: the kernel's own body, re-used inside a template.
 *
 * Several transforms keep what a kernel computes and change how threads
 * and blocks are mapped onto it: the body is copied into a __device__
 * function whose block and thread coordinates are arguments (a persistent
 * block walks many "virtual" blocks of the original grid; a tile phase
 * runs the body at transposed coordinates), and a few calls the facts
 * pointed at (an atomic on a given line) are redirected to helpers of the
 * template. Recognition happens in the facts; this module only locates
 * what the facts found in the text (a call on a line) and copies text,
 * skipping comments, strings and character literals.
 *
 * Also here: the pieces of text every such template needs (the kernel's
 * parameter list and argument list, the element type a pointer parameter
 * points to, the launcher's cached occupancy-sized grid).
 *
 * Ownership: pure functions; callers own every buffer.
 * May include: libc, core/, analysis/ (inventory.h, facts.h: structs only).
 */
#ifndef KS_TRANSFORMS_XFBODY_H
#define KS_TRANSFORMS_XFBODY_H

#include <stddef.h>

struct ks_buf;
struct ks_kernel;

/* A replacement of the bytes [begin, end) of the file by `with`. */
struct ks_xfbody_edit {
	size_t begin, end;
	const char *with;
};

/* Identifier renames applied to every token of the body outside the
 * edits ("blockIdx" -> "ks_bid"); `to` NULL ends a table. */
struct ks_xfbody_rename {
	const char *from, *to;
};

/*
 * A call located in the kernel's body: `name` is [name_begin, name_end),
 * the argument list runs from `open` ('(') to `close` (')'), both
 * offsets into the file. `discarded`: the call is a whole expression
 * statement (its value is not used).
 */
struct ks_xfbody_call {
	size_t name_begin, name_end, open, close;
	int discarded;
};

/*
 * Find the one call of `name` that starts on `line` of the file inside
 * the kernel's body. Returns 0, or -1 with the reason in `reason` (none,
 * several on the line, unbalanced text).
 */
int ks_xfbody_find_call(const char *text, size_t len, const struct ks_kernel *k,
			unsigned line, const char *name,
			struct ks_xfbody_call *out, struct ks_buf *reason);

/*
 * Append the kernel's body (its braces included) with the edits applied
 * (sorted, not overlapping, inside the body) and the renames applied to
 * the identifiers elsewhere. Returns 0, or -1 with the reason.
 */
int ks_xfbody_copy(const char *text, size_t len, const struct ks_kernel *k,
		   const struct ks_xfbody_edit *edits, size_t nedits,
		   const struct ks_xfbody_rename *renames, struct ks_buf *out,
		   struct ks_buf *reason);

/*
 * Is every occurrence of identifier `name` in the body followed by '['
 * (a subscript)? 1 yes, 0 no (then `reason` says where).
 */
int ks_xfbody_only_subscripted(const char *text, size_t len,
			       const struct ks_kernel *k, const char *name,
			       struct ks_buf *reason);

/*
 * The parameter list "const float *x, float *y, int n" (with parameter
 * `retype` declared as `rtype name` instead, when retype >= 0; a second
 * one with retype2/rtype2) and the argument list "x, y, n". Fails, with
 * the reason, on an unnamed parameter or a type that cannot be re-spelled
 * before a name (arrays, function pointers).
 */
int ks_xfbody_params(const struct ks_kernel *k, int retype, const char *rtype,
		     int retype2, const char *rtype2, struct ks_buf *out,
		     struct ks_buf *reason);
void ks_xfbody_args(const struct ks_kernel *k, struct ks_buf *out);

/* What a pointer parameter points to, when it is a plain arithmetic type. */
struct ks_xfbody_elem {
	const char *ctype;	/* canonical spelling: "unsigned int" */
	unsigned bytes;
	int is_float;		/* float or double */
	int is_signed;		/* signed integer */
	const char *min, *max;	/* extreme values as literals (integers) */
};

/*
 * The element type of pointer parameter `param` (type "const float *",
 * "unsigned int *__restrict__"). Returns 0, or -1 with the reason (not a
 * pointer, a pointer to pointer, a type that is not a plain scalar).
 */
int ks_xfbody_elem(const struct ks_kernel *k, int param,
		   struct ks_xfbody_elem *out, struct ks_buf *reason);

/*
 * Append host code that sets `var` (an unsigned int declared by the
 * caller) to the number of blocks of `kernel` (a __global__ function)
 * that are resident on the current device at once with `block` threads
 * and `shmem` bytes, times `waves`; cached per device, block size and
 * shared bytes; 0 when the CUDA calls fail (the caller then launches the
 * original).
 */
void ks_xfbody_resident_grid(struct ks_buf *out, const char *var,
			     const char *kernel, const char *block,
			     const char *shmem, long long waves);

/*
 * A persistent-block variant of kernel `k`: the body becomes the helper
 * `<prefix>_body_<kernel>` (blockIdx and gridDim renamed to virtual
 * coordinates, `edits` applied), a helper kernel `<prefix>_<kernel>`
 * walks the original grid's blocks with a grid-stride loop over as many
 * blocks as are resident at once (times `waves`), `unroll` virtual blocks
 * per step, between `prologue` and `epilogue` (its own state, e.g. a
 * running sum and its flush), with `inner` after each original block (it
 * runs in every thread of the block: barriers are allowed); the launcher launches it, and the original
 * where the grid is empty or the device cannot be asked. The definition
 * part is the original's. `state_params` / `state_args` are the extra
 * leading parameters of the body helper (", T &ks_s0") and the
 * arguments passing them. Appends the whole variant file, or fails with
 * the reason.
 */
struct ks_xfbody_persist {
	const char *prefix;
	const char *what;		/* header line: what the variant does */
	const char *common;		/* shared helpers, emitted first */
	const char *state_params, *state_args;
	const char *prologue, *epilogue;
	const char *inner;		/* after each original block, or NULL */
	const struct ks_xfbody_edit *edits;
	size_t nedits;
	long long unroll, waves;
};

int ks_xfbody_persistent(const char *text, size_t len,
			 const struct ks_kernel *k,
			 const struct ks_xfbody_persist *p,
			 struct ks_buf *variant, struct ks_buf *reason);

/* The definition of `k` as written (its extent), appended to `out`. */
int ks_xfbody_definition(const char *text, size_t len,
			 const struct ks_kernel *k, struct ks_buf *out,
			 struct ks_buf *reason);

/*
 * Facts shared by the transforms that run the body at other coordinates:
 * a readable reason (appended, returns -1) when the kernel is a template
 * or in a namespace or class, was not fully understood, calls a __device__ function of the TU (whose
 * coordinates could not be renamed) or uses inline assembly; also when it
 * synchronizes, uses warp intrinsics or declares shared memory unless
 * `allow_coop`.
 */
int ks_xfbody_plain_kernel(const struct ks_kernel *k, int allow_coop,
			   struct ks_buf *reason);

/*
 * The proxies of a copy staged through a shared tile (device code,
 * guarded against a second definition): ks_tile_in<T> { p, cell, load }
 * reads p[i] into *cell when `load`, else returns *cell; ks_tile_out<T>
 * { p, store } assigns p[i] only when `store`. A body whose load and
 * store arrays are replaced by them runs once per phase of the tile.
 * For a body that runs once, in the load phase: ks_tile_ld<T> { p } reads
 * p[i]; ks_tile_rec<T> { v, pi } records the value assigned to [i] in
 * *v and i in *pi instead of storing (the store phase then stores each
 * recorded value at its index; KS_TILE_NONE: the body stored nothing).
 */
extern const char ks_xfbody_tile_helpers[];

/*
 * The tile kernels' minimum resident blocks per SM (__launch_bounds__'s
 * second argument) for a tile x rows block: registers capped so that
 * 1536 threads fit (1024 with 8 or more elements per thread, whose
 * registers would spill), each with its loads in flight; at least 1.
 */
long long ks_xfbody_tile_min_blocks(long long tile, long long rows);

/* Whether the text [b, e) changes nothing when evaluated (no ++, --
 * or assignment): such an expression can stay, unevaluated, inside
 * decltype or a discarded operand. */
int ks_xfbody_pure_text(const char *t, size_t b, size_t e);

/* Edits in text order; of two at one place, the longer first. */
void ks_xfbody_sort_edits(struct ks_xfbody_edit *edits, size_t n);

/*
 * The launcher part's opening, which every launcher shares: the part's
 * marker, the signature (the launch configuration, then `params`, the
 * kernel's parameter list without parentheses), the opening brace and
 * the original grid's extent in threads along the first `axes` axes (0
 * to 3) as the unsigned long longs ks_nx, ks_ny and ks_nz.
 */
void ks_xfbody_launcher_open(struct ks_buf *o, const char *kname,
			     const char *params, int axes);

#endif
