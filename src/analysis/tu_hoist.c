/*
 * The system headers of a TU's include closure that its PCH may hold
 * (tu.h). The PCH of the main file's leading `#include <...>` lines
 * misses what the TU reaches through its own headers (`#include
 * "common.h"`, whose first lines include thrust) or after its own
 * declarations, which every parse then pays for with function bodies.
 *
 * The scan follows the TU's text and its user headers (those found in
 * the includer's directory or a -I directory) as the preprocessor would:
 * includes, include guards, `#pragma once`, pragmas that change only the
 * code after them, macro definitions, conditionals (both branches read)
 * and, when asked (`code`), code. It stops at anything it cannot follow
 * (an include inside a conditional, an include of a macro, `#pragma
 * pack`), and without `code` at the first code. Every system header met
 * before the stop is hoisted, in the order of first inclusion.
 *
 * A header hoisted past code is visible to it, which in the plain parse
 * it is not: the segments of the scan (how many headers come before each
 * stretch of user text) and the files of the PCH (which header brings
 * each in) tell, after the parse, whether any reference of that code
 * found a declaration only the PCH puts before it (ks_tu_late_check);
 * where one did, the TU is parsed with the headers before its code. The
 * one such declaration taken is a global operator among the candidates
 * of a template's unresolved operator (cuda_fp16.h's `operator!=`),
 * which the closure leaves out (ks_tu_late_is), so the closure and the
 * key stay the plain parse's. Directives meet the headers through
 * macros, which the scan and the PCH's build check:
 *
 * - a macro the user text defines (or undefines) before a header must
 *   not be a name in that header or any later one (checked when the PCH
 *   is built; the names are part of its key);
 * - a name of the user text must not be a macro that a header hoisted
 *   past it defines first, or undefines where a header before it or the
 *   command line defined it (checked per TU against the definitions and
 *   undefinitions the PCH's headers make, kept beside it);
 * - an include guard of a user header must not be a macro of the
 *   headers or the command line (else the guard would not be taken).
 *
 * Where a check fails the TU takes the PCH of the headers before its
 * code, or of its leading includes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/buf.h"
#include "../core/fs.h"
#include "../core/grow.h"
#include "../core/log.h"
#include "../core/strv.h"
#include "../core/util.h"
#include "tu.h"

/* What the scan reads at most: files, nesting, bytes. */
#define HOIST_MAX_FILES 512
#define HOIST_MAX_DEPTH 32
#define HOIST_MAX_BYTES (1u << 25)

struct hoist_scan {
	const struct ks_tu_opts *o;
	struct ks_tu_hoist *h;
	struct ks_strv visited;		/* user files entered */
	struct ks_strv macros;		/* names defined by the user text */
	size_t bytes;
	int nconds;			/* conditionals open (not guards) */
	int stop;
	int code;			/* read past code (ks_tu_hoist_scan) */
	int seen_code;
};

static int
id_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int
id_char(char c)
{
	return id_start(c) || (c >= '0' && c <= '9');
}

static void
add_ident(struct ks_tu_hoist *h, const char *s, size_t n, int c)
{
	struct ks_tu_hoist_ident *x;

	h->ids = KS_GROW(h->ids, h->nids, &h->ids_alloc);
	x = &h->ids[h->nids++];
	x->name = ks_xstrndup(s, n);
	x->at = c;
}

/* Skips a comment, string or character literal at p (returns past it),
 * or returns p. */
static size_t
skip_literal(const char *t, size_t n, size_t p)
{
	if (t[p] == '/' && p + 1 < n && t[p + 1] == '/') {
		while (p < n && t[p] != '\n') {
			if (t[p] == '\\' && p + 1 < n)
				p++;
			p++;
		}
		return p;
	}
	if (t[p] == '/' && p + 1 < n && t[p + 1] == '*') {
		const char *e = NULL;
		size_t q;

		for (q = p + 2; q + 1 < n && !e; q++)
			if (t[q] == '*' && t[q + 1] == '/')
				e = t + q;
		return e ? (size_t)(e - t) + 2 : n;
	}
	if (t[p] == 'R' && p + 1 < n && t[p + 1] == '"' &&
	    (p == 0 || !id_char(t[p - 1]) || t[p - 1] == '8' ||
	     t[p - 1] == 'L' || t[p - 1] == 'u' || t[p - 1] == 'U')) {
		/* R"delim( ... )delim" */
		size_t q = p + 2, dl;
		char delim[20];

		while (q < n && t[q] != '(' && q - p - 2 < 16)
			q++;
		if (q >= n || t[q] != '(')
			return p + 1;
		dl = q - p - 2;
		delim[0] = ')';
		memcpy(delim + 1, t + p + 2, dl);
		delim[dl + 1] = '"';
		for (q++; q + dl + 2 <= n; q++)
			if (!memcmp(t + q, delim, dl + 2))
				return q + dl + 2;
		return n;
	}
	if (t[p] == '"' || (t[p] == '\'' && !(p > 0 && id_char(t[p - 1])))) {
		char quote = t[p];

		for (p++; p < n && t[p] != quote && t[p] != '\n'; p++)
			if (t[p] == '\\' && p + 1 < n)
				p++;
		return p < n ? p + 1 : n;
	}
	return p;
}

/* The logical line of a directive from p (after `#`), continuations
 * joined and comments dropped, into `out`; returns past its newline. */
static size_t
directive_line(const char *t, size_t n, size_t p, struct ks_buf *out)
{
	while (p < n && t[p] != '\n') {
		size_t q;

		if (t[p] == '\\' && p + 1 < n &&
		    (t[p + 1] == '\n' ||
		     (t[p + 1] == '\r' && p + 2 < n && t[p + 2] == '\n'))) {
			p += t[p + 1] == '\n' ? 2 : 3;
			continue;
		}
		if (t[p] == '/' && p + 1 < n &&
		    (t[p + 1] == '*' || t[p + 1] == '/')) {
			q = skip_literal(t, n, p);
			ks_buf_addch(out, ' ');
			if (t[p + 1] == '/')
				return q;
			p = q;
			continue;
		}
		if (t[p] == '"' || t[p] == '\'') {
			q = skip_literal(t, n, p);
			ks_buf_add(out, t + p, q - p);
			p = q;
			continue;
		}
		ks_buf_addch(out, t[p] == '\r' ? ' ' : t[p]);
		p++;
	}
	return p < n ? p + 1 : n;
}

/* Every identifier of s (a directive's text), recorded at c. */
static void
idents_of(struct ks_tu_hoist *h, const char *s, int c)
{
	size_t i = 0, n = strlen(s);

	while (i < n) {
		if (s[i] == '"' || s[i] == '\'') {
			i = skip_literal(s, n, i);
		} else if (id_start(s[i])) {
			size_t b = i;

			while (i < n && id_char(s[i]))
				i++;
			add_ident(h, s + b, i - b, c);
		} else if (s[i] >= '0' && s[i] <= '9') {
			while (i < n && (id_char(s[i]) || s[i] == '.'))
				i++;
		} else {
			i++;
		}
	}
}

static const char *
word(const char *s, char *buf, size_t size)
{
	size_t k = 0;

	while (*s == ' ' || *s == '\t')
		s++;
	while (id_char(*s) && k + 1 < size)
		buf[k++] = *s++;
	buf[k] = '\0';
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* A user header: `name` in the includer's directory (quoted) or a -I
 * directory; NULL for a system header. */
static char *
user_header(const struct ks_tu_opts *o, const char *includer,
	    const char *name, int quoted)
{
	size_t k;

	if (name[0] == '/')
		return ks_fs_exists(name) ? ks_xstrdup(name) : NULL;
	if (quoted) {
		const char *slash = strrchr(includer, '/');
		char *dir = slash ? ks_xstrndup(includer,
						(size_t)(slash - includer))
				  : ks_xstrdup(".");
		char *p = ks_fs_join(dir, name);

		free(dir);
		if (ks_fs_exists(p))
			return p;
		free(p);
	}
	for (k = 0; o->includes && k < o->includes->n; k++) {
		const char *inc = o->includes->v[k];
		char *dir, *p;

		if (!ks_starts_with(inc, "-I") || !inc[2])
			continue;
		dir = inc[2] == '/' || !o->cwd ? ks_xstrdup(inc + 2)
					       : ks_fs_join(o->cwd, inc + 2);
		p = ks_fs_join(dir, name);
		free(dir);
		if (ks_fs_exists(p))
			return p;
		free(p);
	}
	return NULL;
}

static void scan_file(struct hoist_scan *s, const char *path, int level);

static void
add_seg(struct ks_tu_hoist *h, const char *file, unsigned long off)
{
	struct ks_tu_hoist_seg *x;

	h->segs = KS_GROW(h->segs, h->nsegs, &h->segs_alloc);
	x = &h->segs[h->nsegs++];
	x->file = ks_xstrdup(file);
	x->off = off;
	x->c = (int)h->headers.n;
}

/* A line of code from p (past blanks): its identifiers recorded at the
 * headers before it; returns at its newline. */
static size_t
code_line(struct hoist_scan *s, const char *t, size_t n, size_t p)
{
	int c = (int)s->h->headers.n;

	while (p < n && t[p] != '\n') {
		size_t q = skip_literal(t, n, p);

		if (q != p) {
			p = q;
		} else if (id_start(t[p])) {
			for (q = p; q < n && id_char(t[q]); q++)
				;
			add_ident(s->h, t + p, q - p, c);
			p = q;
		} else if (t[p] >= '0' && t[p] <= '9') {
			while (p < n && (id_char(t[p]) || t[p] == '.'))
				p++;
		} else {
			p++;
		}
	}
	return p;
}

/* One directive of a user file; `guard` is the file's guard state: 0
 * none yet (nothing seen), 1 `#ifndef G` seen, 2 inside the guard, 3
 * the guard closed or no guard. */
static void
directive(struct hoist_scan *s, const char *file, const char *line,
	  int *guard, char *gname, size_t gsize)
{
	char d[32], nm[256];
	const char *r = word(line, d, sizeof(d));
	int c = (int)s->h->headers.n;

	if (*guard == 1 && strcmp(d, "define")) {
		s->stop = 1;
		return;
	}
	if (!d[0])
		return;
	if (*guard == 0 && strcmp(d, "ifndef"))
		*guard = 3;
	if (!strcmp(d, "include")) {
		char close = *r == '<' ? '>' : *r == '"' ? '"' : 0;
		const char *e = close ? strchr(r + 1, close) : NULL;
		char *name, *user;

		if (!e || e == r + 1) {
			s->stop = 1;
			return;
		}
		if (s->nconds) {
			s->stop = 1;
			return;
		}
		name = ks_xstrndup(r + 1, (size_t)(e - r - 1));
		user = user_header(s->o, file, name, close == '"');
		if (user) {
			scan_file(s, user, 1);
			free(user);
		} else if (ks_strv_find(&s->h->headers, name) < 0) {
			ks_strv_push(&s->h->headers, name);
			s->h->crossed += s->seen_code;
		}
		free(name);
		return;
	}
	if (!strcmp(d, "define") || !strcmp(d, "undef")) {
		r = word(r, nm, sizeof(nm));
		if (!nm[0]) {
			s->stop = 1;
			return;
		}
		if (*guard == 1) {
			if (strcmp(nm, gname) || strcmp(d, "define")) {
				s->stop = 1;
				return;
			}
			*guard = 2;
		} else {
			/* (a guard is checked as a guard: kept out of the
			 * PCH's key, a header's guards do not part TUs) */
			ks_strv_push_owned(&s->h->macros,
					   ks_xasprintf("%d %s", c, nm));
		}
		ks_strv_push(&s->macros, nm);
		/* the body's names meet later headers where it is used,
		 * after here: recorded here, the stricter place */
		idents_of(s->h, r, c);
		return;
	}
	/* Conditionals (not a guard): both branches scanned, their names
	 * recorded (more names than the parse sees: a stricter check);
	 * they hold no include and no declaration (either ends the
	 * scan), so whichever branch is taken the text is the same. */
	if ((!strcmp(d, "if") || !strcmp(d, "ifdef") ||
	     (!strcmp(d, "ifndef") && *guard != 0))) {
		idents_of(s->h, r, c);
		s->nconds++;
		return;
	}
	if ((!strcmp(d, "elif") || !strcmp(d, "else") ||
	     !strcmp(d, "elifdef") || !strcmp(d, "elifndef") ||
	     !strcmp(d, "endif")) && s->nconds) {
		idents_of(s->h, r, c);
		if (!strcmp(d, "endif"))
			s->nconds--;
		return;
	}
	if (!strcmp(d, "ifndef") && *guard == 0) {
		r = word(r, nm, sizeof(nm));
		if (!nm[0] || *r || ks_strv_find(&s->macros, nm) >= 0 ||
		    strlen(nm) >= gsize) {
			s->stop = 1;
			return;
		}
		memcpy(gname, nm, strlen(nm) + 1);
		ks_strv_push_owned(&s->h->guards,
				   ks_xasprintf("%d %s", c, nm));
		*guard = 1;
		return;
	}
	if (!strcmp(d, "endif") && *guard == 2) {
		*guard = 3;
		return;
	}
	if (!strcmp(d, "pragma")) {
		/* those that change only the code they precede or warnings
		 * (the parse has none) */
		static const char *const code_only[] = {
			"unroll", "nounroll", "omp", "message",
			"nv_diag_suppress", "nv_diag_default",
			"diag_suppress", "diag_default", "nv_diagnostic",
		};
		size_t k;

		r = word(r, nm, sizeof(nm));
		if (!strcmp(nm, "once") && !*r)
			return;
		for (k = 0; k < KS_ARRAY_SIZE(code_only); k++)
			if (!strcmp(nm, code_only[k]))
				return;
	}
	s->stop = 1;
}

static void
scan_file(struct hoist_scan *s, const char *path, int level)
{
	struct ks_buf text = KS_BUF_INIT, line = KS_BUF_INIT;
	char *real = ks_fs_realpath(path);
	char gname[256] = "";
	int guard = 0, bol = 1, conds = s->nconds;
	size_t p = 0, n;
	const char *t;

	if (s->stop || !real)
		goto out;
	if (ks_strv_find(&s->visited, real) >= 0)
		goto out;
	if (s->visited.n >= HOIST_MAX_FILES || level > HOIST_MAX_DEPTH) {
		s->stop = 1;
		goto out;
	}
	ks_strv_push(&s->visited, real);
	add_seg(s->h, real, 0);
	text.max = HOIST_MAX_BYTES;
	if (ks_fs_read(real, &text, NULL) ||
	    (s->bytes += text.len) > HOIST_MAX_BYTES) {
		s->stop = 1;
		goto out;
	}
	t = text.buf;
	n = text.len;
	while (p < n && !s->stop) {
		size_t q;
		char ch = t[p];

		if (ch == '\n') {
			bol = 1;
			p++;
			continue;
		}
		if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' ||
		    ch == '\v') {
			p++;
			continue;
		}
		if (ch == '\\' && p + 1 < n && (t[p + 1] == '\n' || t[p + 1] == '\r')) {
			p += 2;
			continue;
		}
		q = skip_literal(t, n, p);
		if (q != p && (ch == '/')) {
			/* a comment: the line's start stays */
			p = q;
			continue;
		}
		if (ch == '#' && bol) {
			size_t before = s->h->headers.n;

			ks_buf_reset(&line);
			p = directive_line(t, n, p + 1, &line);
			directive(s, real, line.buf ? line.buf : "", &guard,
				  gname, sizeof(gname));
			if (s->h->headers.n != before)
				add_seg(s->h, real, p);
			bol = 1;
			continue;
		}
		bol = 0;
		if (s->code && guard != 1) {
			/* past code: its names are the user text's, at the
			 * headers before it (ks_tu_late_check follows what
			 * it declares and references) */
			if (guard == 0)
				guard = 3;
			s->seen_code = 1;
			p = code_line(s, t, n, p);
			continue;
		}
		/* Code ends the scan without `code`: a header hoisted past
		 * a declaration is visible to it, which only the check of
		 * the parse tells apart. */
		s->stop = 1;
	}
	/* a guard or a conditional never closed: not what the scan can
	 * follow */
	if (guard == 1 || guard == 2 || s->nconds > conds)
		s->stop = 1;
	if (s->stop && !s->h->stopped) {
		size_t k, ln = 1;

		for (k = 0; k < p && k < n; k++)
			ln += t[k] == '\n';
		s->h->stopped = ks_xasprintf("%s:%zu", real, ln);
	}
out:
	free(real);
	ks_buf_release(&text);
	ks_buf_release(&line);
}

/* "c NAME" entries at c < n only. */
static void
keep_before(struct ks_strv *v, int n)
{
	size_t i = 0;

	while (i < v->n) {
		if (atoi(v->v[i]) >= n)
			ks_strv_remove(v, i);
		else
			i++;
	}
}

static int
ident_cmp(const void *a, const void *b)
{
	const struct ks_tu_hoist_ident *x = a, *y = b;
	int r = strcmp(x->name, y->name);

	return r ? r : (x->at > y->at) - (x->at < y->at);
}

void
ks_tu_hoist_scan(const struct ks_tu_opts *o, const char *source, int code,
		 struct ks_tu_hoist *h)
{
	struct hoist_scan s;
	size_t i, k;
	int n;

	memset(h, 0, sizeof(*h));
	ks_strv_init(&h->headers);
	ks_strv_init(&h->macros);
	ks_strv_init(&h->guards);
	memset(&s, 0, sizeof(s));
	s.o = o;
	s.h = h;
	s.code = code;
	ks_strv_init(&s.visited);
	ks_strv_init(&s.macros);
	scan_file(&s, source, 0);
	n = (int)h->headers.n;
	keep_before(&h->macros, n);
	keep_before(&h->guards, n);
	/* the identifiers before the last header, each at its first use */
	if (h->nids)	/* qsort's base may not be NULL, even for no elements */
		qsort(h->ids, h->nids, sizeof(*h->ids), ident_cmp);
	for (i = k = 0; i < h->nids; i++) {
		if (h->ids[i].at >= n ||
		    (k && !strcmp(h->ids[k - 1].name, h->ids[i].name))) {
			free(h->ids[i].name);
			continue;
		}
		h->ids[k++] = h->ids[i];
	}
	h->nids = k;
	ks_strv_release(&s.visited);
	ks_strv_release(&s.macros);
}

void
ks_tu_hoist_release(struct ks_tu_hoist *h)
{
	size_t i;

	ks_strv_release(&h->headers);
	ks_strv_release(&h->macros);
	ks_strv_release(&h->guards);
	free(h->stopped);
	for (i = 0; i < h->nids; i++)
		free(h->ids[i].name);
	free(h->ids);
	for (i = 0; i < h->nsegs; i++)
		free(h->segs[i].file);
	free(h->segs);
	memset(h, 0, sizeof(*h));
}

/* ---- the PCH's side ---------------------------------------------------- */

struct build_ctx {
	CXTranslationUnit tu;
	const struct ks_tu_hoist *h;
	struct ks_buf *macros;		/* "i NAME" lines */
	struct ks_buf *files;		/* "i PATH" lines, or NULL */
	struct ks_strv seen;		/* "i PATH": files met, first at i */
	int bad;
};

/* A header's text: the names its `#define` and `#undef` lines change,
 * as "at NAME" lines, and whether a user macro before it is a name in
 * it. */
static void
header_names(struct build_ctx *b, const char *t, size_t n, int at, int uat)
{
	size_t p = 0;
	int bol = 1;

	while (p < n && !b->bad) {
		size_t q;
		char ch = t[p];

		if (ch == '\n') {
			bol = 1;
			p++;
			continue;
		}
		if (ch == ' ' || ch == '\t' || ch == '\r') {
			p++;
			continue;
		}
		q = skip_literal(t, n, p);
		if (q != p) {
			p = q;
			if (ch != '/')
				bol = 0;
			continue;
		}
		if (ch == '#' && bol) {
			char d[16];
			const char *r;
			size_t k = 0;

			p++;
			while (p < n && (t[p] == ' ' || t[p] == '\t'))
				p++;
			while (p < n && id_char(t[p]) && k + 1 < sizeof(d))
				d[k++] = t[p++];
			d[k] = '\0';
			/* a name defined or undefined: a macro the header
			 * changes */
			if (!strcmp(d, "define") || !strcmp(d, "undef")) {
				while (p < n && (t[p] == ' ' || t[p] == '\t'))
					p++;
				r = t + p;
				for (k = 0; p + k < n && id_char(r[k]); k++)
					;
				if (k)
					ks_buf_addf(b->macros, "%d %.*s\n", at,
						    (int)k, r);
				/* an undefinition also as "i !NAME": code
				 * before the header may read the macro */
				if (k && d[0] == 'u')
					ks_buf_addf(b->macros, "%d !%.*s\n",
						    uat, (int)k, r);
				else if (k)
					ks_buf_addf(b->macros, "%d +%.*s\n",
						    at, (int)k, r);
			}
			bol = 0;
			continue;
		}
		bol = 0;
		if (id_start(ch)) {
			size_t i;

			for (q = p; q < n && id_char(t[q]); q++)
				;
			/* a user macro defined before header `at` */
			for (i = 0; i < b->h->macros.n && !b->bad; i++) {
				const char *e = b->h->macros.v[i];
				const char *nm = strchr(e, ' ') + 1;

				if (atoi(e) <= at && strlen(nm) == q - p &&
				    !memcmp(nm, t + p, q - p))
					b->bad = 1;
			}
			p = q;
			continue;
		}
		p++;
	}
}

static void
build_inclusion(CXFile file, CXSourceLocation *stack, unsigned len,
		CXClientData data)
{
	struct build_ctx *b = data;
	size_t n = 0;
	const char *t;
	unsigned line = 0;
	int at = -1;

	if (!len)
		return;	/* the PCH's own source */
	if (ks_cx.Location_isFromMainFile(stack[len - 1])) {
		ks_cx.getSpellingLocation(stack[len - 1], NULL, &line, NULL,
					  NULL);
		at = (int)line - 1;
	}
	{
		char *name = ks_cx_str(ks_cx.getFileName(file));
		size_t i;
		int first = at;

		/* a file included again (assert.h) undefines what it
		 * defines again, as it did where first included: its
		 * undefinitions count there */
		for (i = 0; i < b->seen.n; i++) {
			const char *e = strchr(b->seen.v[i], ' ') + 1;

			if (!strcmp(e, name)) {
				first = atoi(b->seen.v[i]);
				break;
			}
		}
		if (i == b->seen.n)
			ks_strv_push_owned(&b->seen,
					   ks_xasprintf("%d %s", at, name));
		t = ks_cx.getFileContents(b->tu, file, &n);
		if (t)
			header_names(b, t, n, at, first);
		if (b->files)
			ks_buf_addf(b->files, "%d %s\n", at, name);
		free(name);
	}
}

int
ks_tu_hoist_build_check(CXTranslationUnit tu, const struct ks_tu_hoist *h,
			struct ks_buf *macros, struct ks_buf *files)
{
	struct build_ctx b;

	memset(&b, 0, sizeof(b));
	b.tu = tu;
	b.h = h;
	b.macros = macros;
	b.files = files;
	ks_strv_init(&b.seen);
	ks_cx.getInclusions(tu, build_inclusion, &b);
	ks_strv_release(&b.seen);
	return b.bad ? -1 : 0;
}

struct dmacro {
	const char *name;
	size_t len;
	int at;
};

static int
dmacro_cmp(const void *a, const void *b)
{
	const struct dmacro *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int r = memcmp(x->name, y->name, n);

	if (r)
		return r;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return (x->at > y->at) - (x->at < y->at);
}

/* The first header that defines `name` (-1: before them all), or
 * INT_MAX-like 1 << 30 when none does; with `last`, the last one. */
static int
changed_at(const struct dmacro *d, size_t n, const char *name, size_t len,
	   int last)
{
	size_t lo = 0, hi = n;
	struct dmacro key = {name, len, -2};
	int at;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (dmacro_cmp(&d[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!(lo < n && d[lo].len == len && !memcmp(d[lo].name, name, len)))
		return 1 << 30;
	at = d[lo].at;
	while (last && lo + 1 < n && d[lo + 1].len == len &&
	       !memcmp(d[lo + 1].name, name, len))
		at = d[++lo].at;
	return at;
}

static int
defined_at(const struct dmacro *d, size_t n, const char *name)
{
	return changed_at(d, n, name, strlen(name), 0);
}

/* The text at header `at` reads `name` otherwise once the headers are
 * hoisted ("i +NAME" lines are definitions, "i !NAME" undefinitions):
 * a header at or after `at` defines it first, or undefines it where a
 * header before (or the command line) defined it. */
static int
changed_after(const struct dmacro *d, size_t n, const char *name, int at,
	      const struct ks_strv *args)
{
	char *u = ks_xasprintf("!%s", name), *p = ks_xasprintf("+%s", name);
	int last = changed_at(d, n, u, strlen(u), 1);
	int first = changed_at(d, n, p, strlen(p), 0);
	size_t k, len = strlen(name);
	int before = first < at, r;

	for (k = 0; args && k < args->n && !before; k++)
		before = ks_starts_with(args->v[k], "-D") &&
			 !strncmp(args->v[k] + 2, name, len) &&
			 (!args->v[k][2 + len] || args->v[k][2 + len] == '=');
	r = (first != 1 << 30 && first >= at) ||
	    (last != 1 << 30 && last >= at && before);
	free(u);
	free(p);
	return r;
}

int
ks_tu_hoist_check(const struct ks_tu_hoist *h, const char *macros,
		  const struct ks_strv *args)
{
	struct dmacro *d = NULL;
	size_t n = 0, alloc = 0, i, k;
	const char *s = macros;
	int bad = 0;

	while (s && *s) {
		const char *sp = strchr(s, ' '), *nl;

		if (!sp)
			break;
		nl = strchr(sp, '\n');
		if (!nl)
			nl = sp + strlen(sp);
		d = KS_GROW(d, n, &alloc);
		d[n].at = atoi(s);
		d[n].name = sp + 1;
		d[n].len = (size_t)(nl - sp - 1);
		n++;
		s = *nl ? nl + 1 : nl;
	}
	if (n)
		qsort(d, n, sizeof(*d), dmacro_cmp);
	/* names of the user text that a header hoisted past them defines */
	for (i = 0; i < h->nids && !bad; i++)
		if (changed_after(d, n, h->ids[i].name, h->ids[i].at, args)) {
			ks_log("analysis: '%s' before header %d is a macro "
			       "a header changes at or after it",
			       h->ids[i].name, h->ids[i].at);
			bad = 1;
		}
	/* guards that a header or the command line defines */
	for (i = 0; i < h->guards.n && !bad; i++) {
		const char *g = strchr(h->guards.v[i], ' ') + 1;
		size_t gl = strlen(g);

		if (defined_at(d, n, g) != 1 << 30)
			bad = 1;
		for (k = 0; args && k < args->n && !bad; k++)
			if (ks_starts_with(args->v[k], "-D") &&
			    !strncmp(args->v[k] + 2, g, gl) &&
			    (!args->v[k][2 + gl] || args->v[k][2 + gl] == '='))
				bad = 1;
	}
	free(d);
	return bad ? -1 : 0;
}

/* ---- declarations seen early: headers hoisted past code --------------- */

struct late_file {
	const char *path;	/* as clang names it (PCH) or real (user) */
	int at;			/* the header that brings it in first */
};

struct late_slot {
	CXFile file;
	int user;		/* a user file of the scan */
	size_t lo, hi;		/* its segments, [lo, hi) */
	int at;			/* a header's file: its header; else -1 */
};

#define LATE_SLOTS 8192

struct ks_tu_late {
	int n;				/* headers hoisted */
	struct late_slot spare;		/* for a file past the table */
	struct late_file *files;	/* sorted by path */
	size_t nfiles;
	struct ks_tu_hoist_seg *segs;	/* sorted by file, then offset */
	size_t nsegs;
	char *text;			/* the files' lines, which they point into */
	struct late_slot slots[LATE_SLOTS];
	int nslots;
};

static int
late_file_cmp(const void *a, const void *b)
{
	const struct late_file *x = a, *y = b;
	int r = strcmp(x->path, y->path);

	return r ? r : (x->at > y->at) - (x->at < y->at);
}

static int
seg_cmp(const void *a, const void *b)
{
	const struct ks_tu_hoist_seg *x = a, *y = b;
	int r = strcmp(x->file, y->file);

	if (r)
		return r;
	return (x->off > y->off) - (x->off < y->off);
}

struct ks_tu_late *
ks_tu_late_new(const struct ks_tu_hoist *h, const char *files)
{
	struct ks_tu_late *l = ks_xcalloc(1, sizeof(*l));
	size_t alloc = 0, i, k;
	char *s;

	l->n = (int)h->headers.n;
	l->text = ks_xstrdup(files ? files : "");
	for (s = l->text; *s;) {
		char *sp = strchr(s, ' '), *nl = strchr(s, '\n');

		if (!nl)
			nl = s + strlen(s);
		if (sp && sp < nl) {
			l->files = KS_GROW(l->files, l->nfiles, &alloc);
			l->files[l->nfiles].at = atoi(s);
			l->files[l->nfiles].path = sp + 1;
			l->nfiles++;
		}
		if (!*nl)
			break;
		*nl = '\0';
		s = nl + 1;
	}
	if (l->nfiles)
		qsort(l->files, l->nfiles, sizeof(*l->files), late_file_cmp);
	/* each file once, at its first header */
	for (i = k = 0; i < l->nfiles; i++)
		if (!k || strcmp(l->files[k - 1].path, l->files[i].path))
			l->files[k++] = l->files[i];
	l->nfiles = k;
	l->nsegs = h->nsegs;
	l->segs = ks_xcalloc(h->nsegs ? h->nsegs : 1, sizeof(*l->segs));
	for (i = 0; i < h->nsegs; i++) {
		l->segs[i] = h->segs[i];
		l->segs[i].file = ks_xstrdup(h->segs[i].file);
	}
	if (l->nsegs)
		qsort(l->segs, l->nsegs, sizeof(*l->segs), seg_cmp);
	return l;
}

void
ks_tu_late_free(struct ks_tu_late *l)
{
	size_t i;

	if (!l)
		return;
	for (i = 0; i < l->nsegs; i++)
		free(l->segs[i].file);
	free(l->segs);
	free(l->files);
	free(l->text);
	free(l);
}

/* What the late map knows of `f`: a user file's segments, or the
 * header a PCH file came with. */
static const struct late_slot *
late_slot(struct ks_tu_late *l, CXFile f)
{
	size_t hsh = ((size_t)(uintptr_t)f >> 4) % LATE_SLOTS, i;
	struct late_slot *x;
	char *name, *real;

	for (i = 0; i < LATE_SLOTS; i++) {
		x = &l->slots[(hsh + i) % LATE_SLOTS];
		if (x->file == f)
			return x;
		if (!x->file)
			break;
	}
	/* past the table (more files than it holds): looked up each
	 * time */
	if (i == LATE_SLOTS || l->nslots + 1 >= LATE_SLOTS)
		x = &l->spare;
	else
		l->nslots++;
	x->file = f;
	x->user = 0;
	x->lo = x->hi = 0;
	x->at = -1;
	name = ks_cx_str(ks_cx.getFileName(f));
	{
		struct late_file key = {name, -2};
		size_t lo = 0, hi = l->nfiles;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (late_file_cmp(&l->files[mid], &key) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < l->nfiles && !strcmp(l->files[lo].path, name))
			x->at = l->files[lo].at;
	}
	real = x->at < 0 ? ks_fs_realpath(name) : NULL;
	if (real) {
		size_t lo = 0, hi = l->nsegs;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (strcmp(l->segs[mid].file, real) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		x->lo = lo;
		while (lo < l->nsegs && !strcmp(l->segs[lo].file, real))
			lo++;
		x->hi = lo;
		x->user = x->hi > x->lo;
	}
	free(real);
	free(name);
	return x;
}

/* The headers a plain parse has read before the code at `c` (l->n for
 * anything but the scanned user text). */
static int
late_c(struct ks_tu_late *l, CXCursor c)
{
	CXFile f = NULL;
	unsigned off = 0;
	const struct late_slot *x;
	size_t i;
	int r;

	ks_cx.getExpansionLocation(ks_cx.getCursorLocation(c), &f, NULL, NULL,
				   &off);
	if (!f || !(x = late_slot(l, f)) || !x->user)
		return l->n;
	r = l->segs[x->lo].c;
	for (i = x->lo; i < x->hi && l->segs[i].off <= off; i++)
		r = l->segs[i].c;
	return r;
}

/* The header that brings `decl` in first, -1 for none of them. */
static int
late_at(struct ks_tu_late *l, CXCursor decl)
{
	CXFile f = NULL;
	const struct late_slot *x;

	ks_cx.getExpansionLocation(ks_cx.getCursorLocation(decl), &f, NULL,
				   NULL, NULL);
	if (!f || !(x = late_slot(l, f)))
		return -1;
	return x->at;
}

static int
late_decl(struct ks_tu_late *l, int c, CXCursor decl)
{
	int h = late_at(l, decl);

	return h >= 0 && h >= c;
}

int
ks_tu_late_is(struct ks_tu_late *l, CXCursor at, CXCursor decl)
{
	enum CXCursorKind k;
	CXCursor d;
	int c;

	if (!l)
		return 0;
	k = ks_cx.getCursorKind(decl);
	/* a namespace is the same early (what code names in it is
	 * checked as itself) */
	if (k == CXCursor_Namespace)
		return 0;
	c = late_c(l, at);
	/* the entity, not the redeclaration a lookup gives (the newest:
	 * a late header's redeclaration of an early function is no other
	 * function) */
	if (late_decl(l, c, ks_cx.getCanonicalCursor(decl)))
		return 1;
	/* a type declared early but defined late is incomplete early */
	if (k == CXCursor_StructDecl || k == CXCursor_ClassDecl ||
	    k == CXCursor_UnionDecl || k == CXCursor_EnumDecl ||
	    k == CXCursor_ClassTemplate) {
		d = ks_cx.getCursorDefinition(decl);
		if (!ks_cx.Cursor_isNull(d) &&
		    !ks_cx.isInvalid(ks_cx.getCursorKind(d)) &&
		    late_decl(l, c, d))
			return 1;
	}
	return 0;
}

struct late_walk {
	struct ks_tu_late *l;
	struct ks_buf *why;
	int bad;
};

/* A global operator (`operator!=` of cuda_fp16.h): among an unresolved
 * operator's candidates, which an instantiation picks only where an
 * argument's type is of the global namespace, whose operators its
 * lookup then finds in both parses. */
static int
global_operator(CXCursor d)
{
	enum CXCursorKind k = ks_cx.getCursorKind(d);
	char *nm;
	int r;

	if (k != CXCursor_FunctionDecl && k != CXCursor_FunctionTemplate)
		return 0;
	if (ks_cx.getCursorKind(ks_cx.getCursorSemanticParent(d)) !=
	    CXCursor_TranslationUnit)
		return 0;
	nm = ks_cx_str(ks_cx.getCursorSpelling(d));
	r = ks_starts_with(nm, "operator") && !id_char(nm[8]);
	free(nm);
	return r;
}

static void
late_bad(struct late_walk *w, CXCursor at, CXCursor decl)
{
	CXFile f = NULL;
	unsigned line = 0;
	char *file, *nm;

	w->bad = 1;
	ks_cx.getExpansionLocation(ks_cx.getCursorLocation(at), &f, &line,
				   NULL, NULL);
	file = f ? ks_cx_str(ks_cx.getFileName(f)) : ks_xstrdup("?");
	nm = ks_cx_str(ks_cx.getCursorSpelling(decl));
	ks_buf_addf(w->why, "%s:%u: %s of a header included after it", file,
		    line, nm);
	free(file);
	free(nm);
}

static enum CXChildVisitResult
late_visit(CXCursor c, CXCursor parent, CXClientData data)
{
	struct late_walk *w = data;
	enum CXCursorKind k = ks_cx.getCursorKind(c);
	CXCursor r;

	if (w->bad)
		return CXChildVisit_Break;
	/* the text after every hoisted header (and system code) sees
	 * what the plain parse sees */
	if (late_c(w->l, c) >= w->l->n)
		return CXChildVisit_Continue;
	if (k == CXCursor_OverloadedDeclRef) {
		unsigned i, n = ks_cx.getNumOverloadedDecls(c);

		for (i = 0; i < n && !w->bad; i++) {
			CXCursor d = ks_cx.getOverloadedDecl(c, i);

			if (!ks_tu_late_is(w->l, c, d))
				continue;
			if (!global_operator(d) ||
			    ks_cx.getCursorKind(parent) ==
				    CXCursor_UsingDeclaration)
				late_bad(w, c, d);
		}
		return CXChildVisit_Recurse;
	}
	if ((k >= CXCursor_FirstRef && k <= CXCursor_LastRef) ||
	    (k >= CXCursor_FirstExpr && k <= CXCursor_LastExpr) ||
	    k == CXCursor_MacroExpansion) {
		r = ks_cx.getCursorReferenced(c);
		if (!ks_cx.Cursor_isNull(r) &&
		    !ks_cx.isInvalid(ks_cx.getCursorKind(r)) &&
		    ks_tu_late_is(w->l, c, r))
			late_bad(w, c, r);
	}
	return k == CXCursor_MacroExpansion ? CXChildVisit_Continue
					    : CXChildVisit_Recurse;
}

int
ks_tu_late_check(CXTranslationUnit tu, struct ks_tu_late *l,
		 struct ks_buf *why)
{
	struct late_walk w;

	memset(&w, 0, sizeof(w));
	w.l = l;
	w.why = why;
	ks_cx.visitChildren(ks_cx.getTranslationUnitCursor(tu), late_visit,
			    &w);
	return w.bad ? -1 : 0;
}
