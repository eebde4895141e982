/*
 * subst: ks-nvcc compiles verified variants in place of the original
 * kernels (DESIGN.md section 4, docs/MANUAL.md "Substitution").
 *
 * For a compile the driver classified and recorded (a -c compile, or a
 * one-command build each of whose CUDA sources was recorded: then every
 * step up to the rewritten TU is done for each source):
 *   empty caches -> nothing (no file read, `ks` never started)
 *   -> the TU's direct-mode manifest (nvcc/manifest.h; on a miss, `ks
 *      analyze --manifest` once, bounded by subst_timeout)
 *   -> for each kernel of the TU and each arch of the build, its key in
 *      the caches (cache/store.h; primary, then cache_secondary)
 *   -> the kernel's extents by ks_rewrite_scan() (the manifest is keyed
 *      by the TU's bytes, so a scan of the same bytes is what the
 *      manifest describes) -> ks_rewrite() -> the rewritten TU, under the
 *      source's basename in a private temporary directory, its quoted
 *      includes made absolute so that they resolve as they did
 *   -> the real nvcc with the same words, the source replaced, -o given
 *      (a one-command build: the whole command, each source with variants
 *      replaced in its place, nvcc/onecmd.h)
 *   -> depfile entries mapped back to the user's files.
 * Any failure on the way compiles the original (the driver's exec), with a
 * counter "subst-fallback-<reason>"; KS_STRICT=1 makes it an error. In a
 * one-command build a failure for any source runs the whole original
 * command.
 * The variant compile's stdout and stderr are held back until it
 * succeeds, so a failed attempt is invisible and the original compile
 * speaks for itself.
 *
 * Ownership: struct ks_subst owns what it holds; ks_subst_release() frees
 * it (safe after ks_subst_init()).
 * May include: libc, core/, nvcc/, cache/.
 */
#ifndef KS_WRAPPER_SUBST_H
#define KS_WRAPPER_SUBST_H

#include <stddef.h>

#include "../src/core/strv.h"
#include "../src/nvcc/args.h"

struct ks_buf;
struct ks_conf;

/* One CUDA source of a one-command build, as its record has it. */
struct ks_subst_source {
	size_t word;		/* its word in ks_subst.argv */
	struct ks_args a;	/* its compile alone, classified */
	struct ks_strv argv;	/* its compile alone (the record's argv) */
	char *record;		/* its build record's path */
};

/* What the driver hands over for a compile it classified. */
struct ks_subst {
	int ready;		/* set once the fields below are filled */
	struct ks_args a;	/* the classification (taken over) */
	struct ks_strv argv;	/* nvcc's words, options files expanded */
	char *cwd;
	char *nvcc_version;
	char *record;		/* the build record's path, or NULL */
	/* A one-command build's CUDA sources (none for a -c compile). */
	struct ks_subst_source *sources;
	size_t nsources;
};

void ks_subst_init(struct ks_subst *s);
void ks_subst_release(struct ks_subst *s);

/* A new, empty source of `s` (owned by it). */
struct ks_subst_source *ks_subst_add_source(struct ks_subst *s);

/*
 * Substitute, when a verified variant applies: compile the rewritten TU.
 * Returns ks-nvcc's exit status once it compiled it (nvcc's, 0), -1 when
 * the original is to be compiled (nothing applies, or something failed),
 * or KS_EXIT_SUBST with the error printed when something failed under
 * strict.
 */
int ks_subst_run(const struct ks_conf *conf, const char *real,
		 struct ks_subst *s);

/* Pure: the unqualified name of a kernel from its mangled name
 * ("_Z5scalePffi" -> "scale", "_ZN2ns4stepEPf" -> "step"; an extern "C"
 * name is itself; an instance of a template its template's name, with
 * *instance set: "_Z4fillIfEvPT_i" -> "fill"). Returns 0, or -1 for a
 * name it does not read (operators). */
int ks_subst_kernel_name(const char *mangled, struct ks_buf *out, int *instance);

/* Pure: __CUDA_ARCH__ of a real arch: "sm_90" and "sm_90a" -> 900; 0
 * when it is not one. */
unsigned ks_subst_arch_number(const char *arch);

/* Pure: is `dir` one of the caches that hold something (a 2-hex folder)? */
int ks_subst_cache_nonempty(const char *dir);

/*
 * Pure given `exists`: `text` with each `#include "rel"` whose
 * `srcdir/rel` exists made `#include "<srcdir>/rel"` (the file now
 * compiles from another directory; nothing else of a line changes, so
 * #line mappings hold). Each rewritten path and its spelling as the
 * original compile would write it in a depfile (`given_dir`/rel, or rel
 * when the source had no directory) are pushed to `from` and `to`.
 * Returns 0, or -1 with a reason when an include cannot be made to
 * resolve as before (#include_next, a computed #include, __has_include
 * of a quoted name).
 */
int ks_subst_fix_includes(const char *text, const char *srcdir,
			  const char *given_dir,
			  int (*exists)(const char *path, void *ctx), void *ctx,
			  struct ks_buf *out, struct ks_strv *from,
			  struct ks_strv *to, struct ks_buf *why);

/*
 * Pure: a make-format depfile `text` with each path of `from` replaced by
 * the same index of `to` (whole words, with "\ " escapes as make reads
 * them), appended to `out`.
 */
void ks_subst_fix_depfile(const char *text, const struct ks_strv *from,
			  const struct ks_strv *to, struct ks_buf *out);

/*
 * Pure: `paths` (headers brought into the TU's text, which the compile
 * of the rewritten TU no longer reads as files) added to the
 * prerequisites of the depfile's first rule, one per continued line; one
 * rule still, as make and ninja both read it. A depfile without a rule
 * is left as it is.
 */
void ks_subst_depfile_add(struct ks_buf *dep, const struct ks_strv *paths);

/*
 * Pure: the depfile's first rule without a prerequisite line that repeats
 * an earlier prerequisite (a line of one word, as nvcc writes them). The
 * rewritten TU's #line directives name the TU, which the compile then
 * lists a second time; plain nvcc lists it once.
 */
void ks_subst_depfile_dedupe(struct ks_buf *dep);

#endif
