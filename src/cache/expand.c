#include "expand.h"

#include <stdlib.h>
#include <string.h>

#include "lex.h"
#include "rewrite.h"
#include "../core/buf.h"
#include "../core/grow.h"
#include "../core/strv.h"
#include "../core/util.h"

void
ks_expand_release(struct ks_expand *x)
{
	free(x->header);
	free(x->name);
	free(x->in);
	free(x->def);
	memset(x, 0, sizeof(*x));
}

/* The quoted name of an `#include "name"` line at s[b..e), or NULL. */
static char *
quoted_include(const char *s, size_t b, size_t e)
{
	size_t i = ks_lex_directive_word(s, b, e, "include"), q;

	if (!i || i >= e || s[i] != '"')
		return NULL;
	for (q = i + 1; q < e && s[q] != '"'; q++)
		;
	if (q >= e || q == i + 1)
		return NULL;
	return ks_xstrndup(s + i + 1, q - i - 1);
}

/* A header read once per search: its text, whether it defines the
 * kernel, its quoted includes (as written, and resolved beside it: the
 * index of each one's file once searched), and how often the search has
 * reached it, with the includer that closed a cycle through it. */
struct file {
	char *path;
	struct ks_buf text;
	int ok, defines;
	struct ks_strv inc, path_of;
	size_t *child;
	size_t nseen;
	char *cycle;
	int on_stack;
};

/* One way the kernel's definition is reached: the text's directive
 * `top`, the headers from it to the one that defines it (file indices)
 * and their names as their includers write them. */
struct hit {
	size_t top;
	size_t *files;
	struct ks_strv names;
};

struct search {
	const char *kernel;
	ks_expand_read_fn read;
	void *ctx;
	struct file *f;
	size_t nf, falloc;
	struct hit *hits;
	size_t nhits, halloc;
	size_t stack[KS_EXPAND_DEPTH];
	const char *stack_names[KS_EXPAND_DEPTH];
	char *deep, *deep_through;	/* a definition past KS_EXPAND_DEPTH */
	size_t visits;
};

/* Visits past which the search gives up: headers that include each
 * other widely would make it exponential in the depth. */
#define VISITS_MAX 100000

/* The folder of `path` with its slash ("/p/src/"), or "" for none. */
static char *
folder_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? ks_xstrndup(path, (size_t)(slash - path) + 1) : ks_xstrdup("");
}

/* The quoted includes of `text`, as the lexer reads its directives. */
static void
includes_of(const char *text, size_t len, const char *dir, struct ks_strv *inc,
	    struct ks_strv *path_of)
{
	struct ks_lexer lx;
	struct ks_token t;

	ks_lex_init(&lx, text, len);
	while (ks_lex(&lx, &t) != KS_T_EOF) {
		char *name;

		if (t.kind != KS_T_DIRECTIVE || !(name = quoted_include(text, t.begin, t.end)))
			continue;
		ks_strv_push_owned(path_of, name[0] == '/' ? ks_xstrdup(name)
						: ks_xasprintf("%s%s", dir, name));
		ks_strv_push_owned(inc, name);
	}
}

/* The index of `path`'s file, read and scanned the first time. Indices
 * stay; pointers into s->f do not. */
static size_t
file_at(struct search *s, const char *path)
{
	struct ks_rewrite_kernel k;
	struct ks_buf serr = KS_BUF_INIT;
	struct file *f;
	char *dir;

	for (size_t i = 0; i < s->nf; i++)
		if (!strcmp(s->f[i].path, path))
			return i;
	s->f = KS_GROW(s->f, s->nf, &s->falloc);
	f = &s->f[s->nf];
	memset(f, 0, sizeof(*f));
	f->path = ks_xstrdup(path);
	ks_buf_init(&f->text, 64 << 20);
	ks_strv_init(&f->inc);
	ks_strv_init(&f->path_of);
	f->ok = !s->read(path, &f->text, s->ctx);
	memset(&k, 0, sizeof(k));
	if (f->ok && !ks_rewrite_scan(f->text.buf ? f->text.buf : "", f->text.len,
				      s->kernel, &k, &serr)) {
		ks_rewrite_kernel_release(&k);
		f->defines = 1;
	}
	ks_buf_release(&serr);
	if (f->ok && !f->defines) {
		dir = folder_of(path);
		includes_of(f->text.buf ? f->text.buf : "", f->text.len, dir, &f->inc,
			    &f->path_of);
		free(dir);
	}
	return s->nf++;
}

static void
add_hit(struct search *s, size_t top, size_t fi, const char *name, size_t depth)
{
	struct hit *h;

	s->hits = KS_GROW(s->hits, s->nhits, &s->halloc);
	h = &s->hits[s->nhits++];
	h->top = top;
	h->files = ks_xmalloc(depth * sizeof(*h->files));
	memcpy(h->files, s->stack, (depth - 1) * sizeof(*h->files));
	h->files[depth - 1] = fi;
	ks_strv_init(&h->names);
	ks_strv_pushv(&h->names, s->stack_names, depth - 1);
	ks_strv_push(&h->names, name);
}

/*
 * File `fi` (named `name` by its includer), reached from the text's
 * directive `top` through the headers on the stack, `depth` headers
 * deep: a hit when it defines the kernel, else its own quoted includes
 * that exist searched. A header already on the stack (headers that
 * include each other) is counted, never entered again.
 */
static void
visit(struct search *s, size_t top, size_t fi, const char *name, size_t depth)
{
	s->f[fi].nseen++;
	if (++s->visits > VISITS_MAX)
		return;
	if (s->f[fi].on_stack) {
		if (!s->f[fi].cycle)
			s->f[fi].cycle = ks_xstrdup(s->stack_names[depth - 2]);
		return;
	}
	if (s->f[fi].defines) {
		add_hit(s, top, fi, name, depth);
		return;
	}
	if (!s->f[fi].child) {
		size_t n = s->f[fi].inc.n, *child = ks_xmalloc((n ? n : 1) * sizeof(*child));

		for (size_t i = 0; i < n; i++)
			child[i] = file_at(s, s->f[fi].path_of.v[i]);
		s->f[fi].child = child;
	}
	s->stack[depth - 1] = fi;
	s->stack_names[depth - 1] = name;
	s->f[fi].on_stack = 1;
	for (size_t i = 0; i < s->f[fi].inc.n; i++) {
		size_t ci = s->f[fi].child[i];

		if (!s->f[ci].ok) {
			/* not beside its includer: found on the include path,
			 * if at all, where this search does not look */
		} else if (depth < KS_EXPAND_DEPTH) {
			visit(s, top, ci, s->f[fi].inc.v[i], depth + 1);
		} else if (s->f[ci].defines && !s->deep) {
			s->deep = ks_xstrdup(s->f[fi].inc.v[i]);
			s->deep_through = ks_xstrdup(s->stack_names[0]);
		}
	}
	s->f[fi].on_stack = 0;
}

static void
search_release(struct search *s)
{
	for (size_t i = 0; i < s->nf; i++) {
		free(s->f[i].path);
		ks_buf_release(&s->f[i].text);
		ks_strv_release(&s->f[i].inc);
		ks_strv_release(&s->f[i].path_of);
		free(s->f[i].child);
		free(s->f[i].cycle);
	}
	for (size_t i = 0; i < s->nhits; i++) {
		free(s->hits[i].files);
		ks_strv_release(&s->hits[i].names);
	}
	free(s->f);
	free(s->hits);
	free(s->deep);
	free(s->deep_through);
}

/* The header a hit ends in, as its includer names it, and the headers
 * it comes through: "k.cuh" (through "a.h", "b.h"). */
static void
describe(struct ks_buf *out, const struct hit *h)
{
	ks_buf_addf(out, "\"%s\"", h->names.v[h->names.n - 1]);
	for (size_t i = 0; i + 1 < h->names.n; i++)
		ks_buf_addf(out, "%s\"%s\"%s", i ? ", " : " (through ",
			    h->names.v[i], i + 2 == h->names.n ? ")" : "");
}

/* A quoted #include of the text, where it lies. */
struct directive {
	size_t begin, end, line;
	char *in, *name, *path;
};

int
ks_expand_find(const char *tu, size_t len, const char *tu_path, const char *srcdir,
	       const char *name, ks_expand_read_fn read, void *ctx, struct ks_expand *x,
	       struct ks_buf *htext, struct ks_buf *err)
{
	struct search s;
	struct directive *d = NULL;
	struct ks_buf what = KS_BUF_INIT, what2 = KS_BUF_INIT;
	struct ks_lexer lx;
	struct ks_token t;
	size_t nd = 0, dalloc = 0, line = 1, at = 0, base_line = 1, base_num = 1, i;
	char *cur = NULL;	/* the file the text is in now; NULL: the TU */
	const struct hit *h;
	int rc = -1;

	memset(x, 0, sizeof(*x));
	memset(&s, 0, sizeof(s));
	s.kernel = name;
	s.read = read;
	s.ctx = ctx;
	/* directives as the lexer reads them: none inside a comment */
	ks_lex_init(&lx, tu, len);
	while (ks_lex(&lx, &t) != KS_T_EOF) {
		size_t b = t.begin, e = t.end, num;
		char *inc, *file;

		if (t.kind != KS_T_DIRECTIVE)
			continue;
		for (; at < b; at++)
			line += tu[at] == '\n';
		if (ks_lex_line_directive(tu, b, e, &num, &file)) {
			/* a header brought in before: its lines are its own */
			base_line = line + 1;
			base_num = num;
			if (file) {
				free(cur);
				cur = strcmp(file, tu_path) ? file : NULL;
				if (!cur)
					free(file);
			}
			continue;
		}
		if (!(inc = quoted_include(tu, b, e)))
			continue;
		if (cur && inc[0] != '/') {
			/* in a header brought in, an include found beside it
			 * was made absolute; this one is found elsewhere */
			free(inc);
			continue;
		}
		if (e < len && tu[e] == '\n')
			e++;
		d = KS_GROW(d, nd, &dalloc);
		d[nd].begin = b;
		d[nd].end = e;
		d[nd].line = base_num + (line - base_line);
		d[nd].in = cur ? ks_xstrdup(cur) : NULL;
		d[nd].path = inc[0] == '/' ? ks_xstrdup(inc)
					   : ks_xasprintf("%s/%s", srcdir, inc);
		d[nd++].name = inc;
	}
	for (i = 0; i < nd; i++) {
		size_t fi = file_at(&s, d[i].path);	/* before s.f may move */

		if (s.f[fi].ok)
			visit(&s, i, fi, d[i].name, 1);
	}
	if (s.visits > VISITS_MAX) {
		ks_error(err, "kernel %s: the file's headers include each other too "
			      "widely to search", name);
		goto out;
	}
	if (!s.nhits) {
		if (s.deep)
			ks_error(err, "kernel %s is defined in \"%s\", more than %d headers "
				      "deep (through \"%s\")", name, s.deep, KS_EXPAND_DEPTH,
				 s.deep_through);
		else
			ks_error(err, "kernel %s is defined in a header that the file does "
				      "not reach through quoted includes, each found beside "
				      "the file that includes it (an angle-bracket include, "
				      "or a header found on the include path)", name);
		goto out;
	}
	h = &s.hits[0];
	describe(&what, h);
	for (i = 1; i < s.nhits; i++) {
		const struct hit *o = &s.hits[i];

		if (o->files[o->names.n - 1] != h->files[h->names.n - 1]) {
			describe(&what2, o);
			ks_error(err, "kernel %s is defined in two headers the file "
				      "includes, %s and %s", name, what.buf, what2.buf);
			goto out;
		}
	}
	if (s.nhits > 1) {
		ks_error(err, "kernel %s's header %s is included %zu times", name, what.buf,
			 s.nhits);
		goto out;
	}
	/* a header on the way included again would bring the kernel's
	 * header in again, as a file, after its text */
	for (i = 0; i + 1 < h->names.n; i++) {
		const struct file *f = &s.f[h->files[i]];
		const char *def = h->names.v[h->names.n - 1];

		if (f->cycle) {
			ks_error(err, "kernel %s's header \"%s\" comes through \"%s\", "
				      "which \"%s\" includes again (headers that include "
				      "each other)", name, def, h->names.v[i], f->cycle);
			goto out;
		}
		if (f->nseen > 1) {
			ks_error(err, "kernel %s's header \"%s\" comes through \"%s\", "
				      "which is included %zu times", name, def, h->names.v[i],
				 f->nseen);
			goto out;
		}
	}
	x->begin = d[h->top].begin;
	x->end = d[h->top].end;
	x->line = d[h->top].line;
	x->in = d[h->top].in;
	d[h->top].in = NULL;
	x->header = d[h->top].path;
	d[h->top].path = NULL;
	x->name = d[h->top].name;
	d[h->top].name = NULL;
	x->def = ks_xstrdup(s.f[h->files[h->names.n - 1]].path);
	x->depth = h->names.n;
	if (htext) {
		size_t fi = file_at(&s, x->header);

		ks_buf_reset(htext);
		ks_buf_add(htext, s.f[fi].text.buf, s.f[fi].text.len);
	}
	rc = 0;
out:
	for (i = 0; i < nd; i++) {
		free(d[i].in);
		free(d[i].name);
		free(d[i].path);
	}
	free(d);
	free(cur);
	search_release(&s);
	ks_buf_release(&what);
	ks_buf_release(&what2);
	return rc;
}

char *
ks_expand_named(const struct ks_expand *x, const char *given_dir,
		const struct ks_strv *from, const struct ks_strv *to)
{
	long i;

	if (!x->in && x->name[0] != '/')
		return given_dir && *given_dir ? ks_xasprintf("%s/%s", given_dir, x->name)
					       : ks_xstrdup(x->name);
	i = from && to ? ks_strv_find(from, x->header) : -1;
	return ks_xstrdup(i >= 0 && (size_t)i < to->n ? to->v[i] : x->header);
}

/* Is the line s[b..e) a `#pragma once`? */
static int
pragma_once(const char *s, size_t b, size_t e)
{
	size_t i = ks_lex_directive_word(s, b, e, "pragma");

	if (!i || e - i < 4 || strncmp(s + i, "once", 4))
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
	/* the text resumes in the file the include lies in: the TU, or a
	 * header brought in before */
	ks_buf_addf(out, "#line %zu \"%s\"\n", x->line + 1, x->in ? x->in : tu_path);
	ks_buf_add(out, tu + x->end, len - x->end);
	free(hdir);
	free(ndir);
}
