/*
 * build: compile a kernel's translation unit (the original, or a candidate
 * that replaces the kernel) with an entry shim into a shared object that
 * ks-replay loads.
 *
 * The TU's own flags come from its build record (nvcc/record.h): the
 * recorded nvcc arguments lose the source, the output, the compile mode,
 * dependency generation and -cudart, and gain -shared -Xcompiler -fPIC
 * -cudart shared (one cudart for ks-replay and both objects it loads), the
 * original source's directory as an include path (a candidate elsewhere
 * still finds the TU's own headers), and the shim, which #includes the TU.
 * -dc becomes -rdc=true. nvcc runs in the build's directory, so relative
 * paths mean what they meant.
 *
 * Which record compiled a kernel: the newest whose object file holds the
 * kernel's mangled name as a string (every nvcc object registers its
 * kernels by name), where that object is the source's own: a -c build's,
 * or a one-command build's with one CUDA source. The records of a
 * one-command build with several CUDA sources (`nvcc a.cu b.cu -o app`)
 * all name the executable, which holds every source's kernels; such a
 * record is chosen only when its source's compile alone (the record's
 * argv, run once with the record's nvcc and NVCC_*_FLAGS, its object kept
 * in <dir>/builds/objects/<record id>-<digest of the record>.o until the
 * record changes) holds the name.
 *
 * Build records are read by nvcc/record.h (struct ks_build_rec).
 * Ownership: returned paths belong to the caller.
 * May include: libc, core/, nvcc/ (args.h, derive.h, record.h).
 */
#ifndef KS_REVIEW_BUILD_H
#define KS_REVIEW_BUILD_H

#include <stddef.h>

#include "../core/strv.h"
#include "../nvcc/record.h"

struct ks_buf;

/*
 * The newest record under <dir>/builds whose object holds `mangled`.
 * Returns 0, or -1 with a message (none found).
 */
int ks_build_rec_find(const char *dir, const char *mangled,
		      struct ks_build_rec *r, struct ks_buf *err);

/*
 * Pure: is the record's object its source's alone (a -c build, a format 1
 * record, or a one-command build with one CUDA source, NVCC_*_FLAGS
 * counted)? 0 when the command does not classify.
 */
int ks_build_rec_object_is_own(const struct ks_build_rec *r);

/*
 * Pure: where the compile alone of a one-command record's source is kept:
 * <dir>/builds/objects/<record id>-<16 hex of the record's text>.o.
 */
char *ks_build_rec_own_object_path(const char *dir, const struct ks_build_rec *r);

/* Pure: does `data` hold `mangled` as a NUL-delimited string? */
int ks_build_object_has(const void *data, size_t len, const char *mangled);

/*
 * Pure: the nvcc arguments that build `shim` into the shared object `so`,
 * from the TU's recorded arguments (above). Appends to `out`.
 */
int ks_build_shared_argv(const struct ks_strv *argv, const char *include_dir,
			 const char *shim, const char *so, struct ks_strv *out,
			 struct ks_buf *err);

struct ks_build_so {
	const struct ks_build_rec *rec;
	const char *nvcc;	/* or NULL: the record's */
	const char *shim;	/* the shim's source text */
	const char *workdir;	/* <name>.cu and <name>.so go here */
	const char *name;
	int timeout_ms;
	int keep_ptx;		/* also leave the module's PTX (every arch's,
				 * concatenated) in <workdir>/<name>.ptx: it
				 * says which globals the kernel reaches */	/* The GPU's arch (90), or 0. Where the record's targets reach it only
	 * through PTX or an older SASS, its target is added (nvcc/args.h,
	 * ks_args_reach_words), as ks-nvcc adds it to compile a variant in:
	 * what is verified is what the substituted build runs. */
	unsigned gpu_arch;
};

/*
 * Write the shim and compile it (with keep_ptx, under -keep in a private
 * directory, removed after). Returns 0 with the object's path in *so,
 * or -1 with a message; nvcc's output (both streams) is appended to `log`
 * either way.
 */
int ks_build_so(const struct ks_build_so *b, char **so, struct ks_buf *log,
		struct ks_buf *err);

#endif
