/*
 * expand: a kernel defined in a header, brought into its translation
 * unit's text. The rewriter (rewrite.h) edits one text, the main file's;
 * a kernel defined in a header the main file includes (a `.cuh` of
 * kernels, a `_kernel.cu` included by the program's `.cu`) is edited in
 * the TU's text with that #include replaced by the header's own text:
 * `#line 1 "HEADER"`, the header's lines (`#pragma once` blanked, its
 * quoted includes that exist beside it made absolute), then
 * `#line N+1 "FILE"` for the file the include lay in, so every line still
 * maps back to its file and line. A header reached through other headers
 * (the TU includes "a.h", which includes "k.cuh") is brought in one level
 * at a time: "a.h" first, then "k.cuh" at its include, now in the TU's
 * text, until the definition is in it. Each header on the way must be
 * included with quotes, found beside the file that includes it, once,
 * at most KS_EXPAND_DEPTH headers deep; anything else is declined with
 * the reason (a second inclusion of an original file would define the
 * kernel twice).
 *
 * Ownership: pure functions over borrowed text; file reads through the
 * caller's callbacks. struct ks_expand owns its strings
 * (ks_expand_release).
 * May include: libc, core/.
 */
#ifndef KS_CACHE_EXPAND_H
#define KS_CACHE_EXPAND_H

#include <stddef.h>

struct ks_buf;
struct ks_strv;

/* The most headers from the TU to the kernel's definition, the TU's own
 * include counted: deeper chains are rare and each level is a search. */
#define KS_EXPAND_DEPTH 4

struct ks_expand {
	size_t begin, end;	/* the #include line in the text, its newline included */
	size_t line;		/* its line in the file it lies in (the text's #line followed) */
	char *in;		/* that file as the text's #line names it; NULL: the TU */
	char *header;		/* the header's path: srcdir/NAME, or as written when absolute */
	char *name;		/* as the directive names it: "k.cuh" */
	char *def;		/* the header that defines the kernel: `header`, or one it reaches */
	size_t depth;		/* headers from `header` to `def`, both counted */
};

/* Reads `path` into `out` (its max set by the caller); 0 or -1. */
typedef int (*ks_expand_read_fn)(const char *path, struct ks_buf *out, void *ctx);

/*
 * Which quoted #include of the text `tu` brings in kernel `name`'s
 * definition. `tu` is the TU (named `tu_path` in #line directives, in
 * folder `srcdir`) with any headers brought in before: its own quoted
 * includes are found under `srcdir`, those in a header's text brought in
 * are absolute. Each include whose file exists is read and scanned
 * lexically for a definition of `name` (ks_rewrite_scan); one that does
 * not define it is searched through its own quoted includes that exist
 * beside it, to KS_EXPAND_DEPTH headers. 0 with `x` filled (and that
 * include's header text in `htext` when not NULL); -1 with the reason:
 * none defines it (an angle include, a header found on the include path,
 * too deep), two headers define it, or the defining header or one on the
 * way to it is included twice (headers that include each other too).
 */
int ks_expand_find(const char *tu, size_t len, const char *tu_path, const char *srcdir,
		   const char *name, ks_expand_read_fn read, void *ctx,
		   struct ks_expand *x, struct ks_buf *htext, struct ks_buf *err);

/*
 * How the compile names x's header, for ks_expand_text's `named`: an
 * include of the TU's own by the TU's folder as the compile names it
 * (`given_dir`, "" or NULL for none) and its name; one in a header
 * brought in before by the name recorded for its absolute path in
 * `from`/`to` (ks_expand_text), else that path. Allocated.
 */
char *ks_expand_named(const struct ks_expand *x, const char *given_dir,
		      const struct ks_strv *from, const struct ks_strv *to);

/* Does `path` exist (a file)? For ks_expand_text. */
typedef int (*ks_expand_exists_fn)(const char *path, void *ctx);

/*
 * Append to `out` the text `tu` (the TU named `tu_path` in #line
 * directives, as for ks_expand_find) with x's #include replaced by the
 * header text `htext` (see above), then a #line back to the TU or to the
 * header brought in before that the include lay in; the header named
 * `named` in its #line (as the compile of the TU names the header:
 * "src/k.cuh"; NULL: x->header). The header's quoted includes whose file
 * exists in the header's folder (`exists`) are made absolute; each such
 * path is pushed to `from` and the name the compile would give it
 * (`named`'s folder and the include's name) to `to`, for its depfile
 * (both may be NULL). The rest stay as written.
 */
void ks_expand_text(const char *tu, size_t len, const char *tu_path,
		    const struct ks_expand *x, const char *named, const char *htext,
		    size_t hlen, ks_expand_exists_fn exists, void *ctx,
		    struct ks_strv *from, struct ks_strv *to, struct ks_buf *out);

void ks_expand_release(struct ks_expand *x);

#endif
