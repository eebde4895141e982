/*
 * expand: a kernel defined in a header, brought into its translation
 * unit's text. The rewriter (rewrite.h) edits one text, the main file's;
 * a kernel defined in a header the main file includes (a `.cuh` of
 * kernels, a `_kernel.cu` included by the program's `.cu`) is edited in
 * the TU's text with that #include replaced by the header's own text:
 * `#line 1 "HEADER"`, the header's lines (`#pragma once` blanked, its
 * quoted includes that exist beside it made absolute), then
 * `#line N+1 "TU"`, so every line still maps back to its file and line.
 * The header must be included by the main file itself, once, with
 * quotes; a header included through another header, or twice, is
 * declined with the reason (a second inclusion of the original file
 * would define the kernel twice).
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

struct ks_expand {
	size_t begin, end;	/* the #include line in the TU, its newline included */
	size_t line;		/* that line's number, 1-based */
	char *header;		/* the header's path: srcdir/NAME */
	char *name;		/* as the directive names it: "k.cuh" */
};

/* Reads `path` into `out` (its max set by the caller); 0 or -1. */
typedef int (*ks_expand_read_fn)(const char *path, struct ks_buf *out, void *ctx);

/*
 * Which quoted #include of `tu` (a file in folder `srcdir`) brings in
 * kernel `name`'s definition: each quoted include whose file exists under
 * `srcdir` is read and scanned lexically for a definition of `name`
 * (ks_rewrite_scan). 0 with `x` filled (and the header's text in `htext`
 * when not NULL); -1 with the reason: none defines it (a header reached
 * through another header, or by an angle include), or two directives
 * name headers that define it, or the defining header is included twice.
 */
int ks_expand_find(const char *tu, size_t len, const char *srcdir, const char *name,
		   ks_expand_read_fn read, void *ctx, struct ks_expand *x,
		   struct ks_buf *htext, struct ks_buf *err);

/* Does `path` exist (a file)? For ks_expand_text. */
typedef int (*ks_expand_exists_fn)(const char *path, void *ctx);

/*
 * Append to `out` the TU `tu` (named `tu_path` in #line directives) with
 * x's #include replaced by the header text `htext` (see above), named
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
