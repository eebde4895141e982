#include "expand.h"

#include <stdlib.h>
#include <string.h>

#include "lex.h"
#include "rewrite.h"
#include "../core/buf.h"
#include "../core/strv.h"
#include "../core/util.h"

void
ks_expand_release(struct ks_expand *x)
{
	free(x->header);
	free(x->name);
	memset(x, 0, sizeof(*x));
}

/* The quoted name of an `#include "name"` line at s[b..e), or NULL. */
static char *
quoted_include(const char *s, size_t b, size_t e)
{
	size_t i = b, q;

	while (i < e && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i >= e || s[i++] != '#')
		return NULL;
	while (i < e && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (e - i < 7 || strncmp(s + i, "include", 7))
		return NULL;
	i += 7;
	while (i < e && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i >= e || s[i] != '"')
		return NULL;
	for (q = i + 1; q < e && s[q] != '"'; q++)
		;
	if (q >= e || q == i + 1)
		return NULL;
	return ks_xstrndup(s + i + 1, q - i - 1);
}

int
ks_expand_find(const char *tu, size_t len, const char *srcdir, const char *name,
	       ks_expand_read_fn read, void *ctx, struct ks_expand *x,
	       struct ks_buf *htext, struct ks_buf *err)
{
	struct ks_buf text = KS_BUF_INIT, serr = KS_BUF_INIT;
	struct ks_lexer lx;
	struct ks_token t;
	size_t line = 1, at = 0, found = 0;
	char *first = NULL;
	int rc = -1;

	memset(x, 0, sizeof(*x));
	/* directives as the lexer reads them: none inside a comment */
	ks_lex_init(&lx, tu, len);
	while (ks_lex(&lx, &t) != KS_T_EOF) {
		size_t b = t.begin, e = t.end;
		char *inc;

		if (t.kind != KS_T_DIRECTIVE)
			continue;
		for (; at < b; at++)
			line += tu[at] == '\n';
		inc = quoted_include(tu, b, e);
		if (e < len && tu[e] == '\n')
			e++;
		if (inc) {
			char *path = inc[0] == '/' ? ks_xstrdup(inc)
						   : ks_xasprintf("%s/%s", srcdir, inc);
			struct ks_rewrite_kernel k;

			ks_buf_reset(&text);
			text.max = 64 << 20;
			memset(&k, 0, sizeof(k));
			if (x->header && !strcmp(path, x->header)) {
				found++;	/* the same header again */
			} else if (!read(path, &text, ctx) &&
				   !ks_rewrite_scan(text.buf ? text.buf : "", text.len, name,
						    &k, &serr)) {
				ks_rewrite_kernel_release(&k);
				if (!found++) {
					x->begin = b;
					x->end = e;
					x->line = line;
					x->header = path;
					x->name = inc;
					first = ks_xstrdup(inc);
					if (htext) {
						ks_buf_reset(htext);
						ks_buf_add(htext, text.buf, text.len);
					}
					path = inc = NULL;
				} else if (strcmp(first, inc)) {
					ks_error(err, "kernel %s is defined in two headers "
						      "the file includes, \"%s\" and \"%s\"",
						 name, first, inc);
					free(path);
					free(inc);
					goto out;
				}
			}
			ks_buf_reset(&serr);
			free(path);
		}
		free(inc);
	}
	if (!found) {
		ks_error(err, "kernel %s is defined in a header that the file does "
			      "not include itself with quotes (it comes through "
			      "another header, or an angle-bracket include)", name);
		goto out;
	}
	if (found > 1) {
		ks_error(err, "kernel %s's header \"%s\" is included %zu times", name,
			 x->name, found);
		goto out;
	}
	rc = 0;
out:
	if (rc)
		ks_expand_release(x);
	free(first);
	ks_buf_release(&text);
	ks_buf_release(&serr);
	return rc;
}

/* Is the line s[b..e) a `#pragma once`? */
static int
pragma_once(const char *s, size_t b, size_t e)
{
	size_t i = b;

	while (i < e && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i >= e || s[i++] != '#')
		return 0;
	while (i < e && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (e - i < 6 || strncmp(s + i, "pragma", 6))
		return 0;
	i += 6;
	while (i < e && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (e - i < 4 || strncmp(s + i, "once", 4))
		return 0;
	for (i += 4; i < e && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'); i++)
		;
	return i == e;
}

void
ks_expand_text(const char *tu, size_t len, const char *tu_path,
	       const struct ks_expand *x, const char *named, const char *htext,
	       size_t hlen, ks_expand_exists_fn exists, void *ctx,
	       struct ks_strv *from, struct ks_strv *to, struct ks_buf *out)
{
	char *hdir = ks_xstrdup(x->header), *slash = strrchr(hdir, '/');
	char *ndir = ks_xstrdup(named ? named : x->header), *nslash = strrchr(ndir, '/');
	size_t b = 0;

	if (slash)
		*slash = '\0';
	if (nslash)
		nslash[1] = '\0';
	else
		*ndir = '\0';
	ks_buf_add(out, tu, x->begin);
	ks_buf_addf(out, "#line 1 \"%s\"\n", named ? named : x->header);
	while (b < hlen) {
		const char *nl = memchr(htext + b, '\n', hlen - b);
		size_t e = nl ? (size_t)(nl - htext) + 1 : hlen;
		size_t le = nl ? e - 1 : e;
		char *inc = quoted_include(htext, b, le);
		char *abs = inc && inc[0] != '/' && slash ?
			ks_xasprintf("%s/%s", hdir, inc) : NULL;

		if (pragma_once(htext, b, le)) {
			/* the text is in the main file now, where it would warn */
			for (size_t i = b; i < le; i++)
				ks_buf_addch(out, ' ');
			if (nl)
				ks_buf_addch(out, '\n');
		} else if (abs && exists(abs, ctx)) {
			const char *q = memchr(htext + b, '"', le - b);

			ks_buf_add(out, htext + b, (size_t)(q - (htext + b)) + 1);
			ks_buf_adds(out, abs);
			ks_buf_add(out, q + 1 + strlen(inc), e - (size_t)(q + 1 + strlen(inc) - htext));
			if (from && to) {
				ks_strv_push(from, abs);
				ks_strv_push_owned(to, ks_xasprintf("%s%s", ndir, inc));
			}
		} else {
			ks_buf_add(out, htext + b, e - b);
		}
		free(inc);
		free(abs);
		b = e;
	}
	if (out->len && out->buf[out->len - 1] != '\n')
		ks_buf_addch(out, '\n');
	ks_buf_addf(out, "#line %zu \"%s\"\n", x->line + 1, tu_path);
	ks_buf_add(out, tu + x->end, len - x->end);
	free(hdir);
	free(ndir);
}
