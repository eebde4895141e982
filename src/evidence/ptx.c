/*
 * The PTX parser (evidence.h): counts per function, callees folded into
 * their callers.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "../core/buf.h"
#include "../core/grow.h"
#include "../core/strv.h"
#include "../core/util.h"
#include "evidence.h"
#include "parse.h"

/* ------------------------------------------------------------------ */
/* PTX                                                                 */

struct ptx_func {
	char *name;
	int entry;
	struct ks_evidence_counts c;
	struct ks_strv callees;
};

struct ptx_file {
	struct ptx_func *f;
	size_t n, alloc;
};

static void
ptx_file_release(struct ptx_file *pf)
{
	size_t i;

	for (i = 0; i < pf->n; i++) {
		free(pf->f[i].name);
		ks_strv_release(&pf->f[i].callees);
	}
	free(pf->f);
}

static int
ptx_word_char(int c)
{
	return isalnum(c) || c == '_' || c == '$' || c == '%' || c == '.';
}

/* After "call[.uni]": skip "(retval)," and take the callee's name. */
static void
ptx_callee(struct ptx_func *f, const char *p, const char *e)
{
	const char *s;

	p = ks_ev_skip_space(p);
	if (p < e && *p == '(') {
		int depth = 0;

		for (; p < e; p++) {
			if (*p == '(')
				depth++;
			else if (*p == ')' && --depth == 0) {
				p++;
				break;
			}
		}
		p = ks_ev_skip_space(p);
		if (p < e && *p == ',')
			p = ks_ev_skip_space(p + 1);
	}
	s = p;
	while (p < e && (isalnum((unsigned char)*p) || *p == '_' || *p == '$'))
		p++;
	/* An indirect call names a register (%rd5): nothing to fold. */
	if (p > s && !isdigit((unsigned char)*s))
		ks_strv_push_owned(&f->callees,
				   ks_xstrndup(s, (size_t)(p - s)));
}

/* One statement of a function body (text between ';', '{' or '}'). */
static void
ptx_statement(struct ptx_func *f, const char *p, const char *e)
{
	const char *op;

	for (;;) {
		const char *w;

		p = ks_ev_skip_space(p);
		if (p >= e)
			return;
		/* .loc ends at the newline, not at ';'; so do comments. */
		if (ks_starts_with(p, ".loc") || ks_starts_with(p, "//")) {
			while (p < e && *p != '\n')
				p++;
			continue;
		}
		if (ks_starts_with(p, "/*")) {
			const char *c = strstr(p + 2, "*/");

			p = c && c < e ? c + 2 : e;
			continue;
		}
		w = p;
		while (w < e &&
		       (isalnum((unsigned char)*w) || *w == '_' || *w == '$'))
			w++;
		if (w > p && w < e && *w == ':' &&
		    (w + 1 >= e || w[1] != ':')) {
			p = w + 1;	/* a label */
			continue;
		}
		break;
	}
	if (*p == '.')
		return;		/* .reg, .local, .shared, .pragma ... */
	if (*p == '@') {
		while (p < e && !isspace((unsigned char)*p))
			p++;
		p = ks_ev_skip_space(p);
	}
	op = p;
	while (p < e && !isspace((unsigned char)*p))
		p++;
	if (p == op)
		return;
	ks_ev_ptx_classify(&f->c, op, (size_t)(p - op));
	if ((size_t)(p - op) >= 4 && !strncmp(op, "call", 4) &&
	    (p - op == 4 || op[4] == '.'))
		ptx_callee(f, p, e);
}

/* Skip a comment or string at `p`; returns the next position, or p. */
static const char *
ptx_skip_comment(const char *p)
{
	if (p[0] == '/' && p[1] == '/') {
		while (*p && *p != '\n')
			p++;
		return p;
	}
	if (p[0] == '/' && p[1] == '*') {
		const char *e = strstr(p + 2, "*/");

		return e ? e + 2 : p + strlen(p);
	}
	if (p[0] == '"') {
		p++;
		while (*p && *p != '"' && *p != '\n')
			p++;
		return *p == '"' ? p + 1 : p;
	}
	return p;
}

/* Is [p, e) only blanks and comments? */
static int
blank(const char *p, const char *e)
{
	while (p < e) {
		const char *q = ptx_skip_comment(p);

		if (q != p) {
			p = q;
			continue;
		}
		if (!isspace((unsigned char)*p))
			return 0;
		p++;
	}
	return 1;
}

/* Fold the counts of every function reachable from `root` into `out`. */
static void
ptx_fold(const struct ptx_file *pf, size_t root, struct ks_evidence_counts *out)
{
	unsigned char *seen = ks_xcalloc(pf->n ? pf->n : 1, 1);
	size_t *stack = ks_xmalloc((pf->n + 1) * sizeof(*stack));
	size_t top = 0, j, k;

	stack[top++] = root;
	seen[root] = 1;
	while (top) {
		const struct ptx_func *f = &pf->f[stack[--top]];

		ks_ev_counts_add(out, &f->c);
		for (j = 0; j < f->callees.n; j++) {
			for (k = 0; k < pf->n; k++) {
				if (seen[k] ||
				    strcmp(pf->f[k].name, f->callees.v[j]))
					continue;
				seen[k] = 1;
				stack[top++] = k;
			}
		}
	}
	free(stack);
	free(seen);
}

/* A new function record named `name` (taken over). */
static struct ptx_func *
ptx_add(struct ptx_file *pf, char *name, int entry)
{
	struct ptx_func *f;

	pf->f = KS_GROW(pf->f, pf->n, &pf->alloc);
	f = &pf->f[pf->n++];
	memset(f, 0, sizeof(*f));
	ks_strv_init(&f->callees);
	f->name = name;
	f->entry = entry;
	return f;
}

/*
 * The block after a '{' at p: a function's body (its statements go to
 * `f`), or an initializer's braces when `f` is NULL. A brace inside an
 * instruction groups a vector operand ({%f1, %f2}); one that opens a
 * statement opens a scope block ({ // callseq). Returns what follows the
 * closing '}'.
 */
static const char *
ptx_block(const char *p, struct ptx_func *f)
{
	const char *stmt = p;
	int depth = 1, operand = 0;

	while (*p && depth) {
		const char *q = ptx_skip_comment(p);

		if (q != p) {
			p = q;
			continue;
		}
		if (*p == '{' && !blank(stmt, p)) {
			operand++;
		} else if (*p == '}' && operand) {
			operand--;
		} else if (*p == ';' || *p == '{' || *p == '}') {
			if (f)
				ptx_statement(f, stmt, p);
			if (*p == '{')
				depth++;
			else if (*p == '}')
				depth--;
			stmt = p + 1;
		}
		p++;
	}
	return p;
}

/* Is the word [w, e) `name`? */
static int
word_is(const char *w, const char *e, const char *name)
{
	size_t n = (size_t)(e - w);

	return n == strlen(name) && !strncmp(w, name, n);
}

int
ks_evidence_parse_ptx(struct ks_evidence *ev, const char *text,
		      struct ks_buf *err)
{
	struct ptx_file pf = { NULL, 0, 0 };
	char arch[32] = "";
	char *pending = NULL;	/* the .entry or .func before its body */
	int pending_entry = 0, want_name = 0, parens = 0, rc = -1;
	const char *p = text;
	size_t i;

	while (*p) {
		const char *q = ptx_skip_comment(p), *w;

		if (q != p) {
			p = q;
		} else if (*p == '(' || *p == ')') {
			parens += *p++ == '(' ? 1 : -1;
		} else if (*p == ';') {
			free(pending);
			pending = NULL;
			want_name = 0;
			p++;
		} else if (*p == '{') {
			struct ptx_func *f = NULL;

			if (pending)
				f = ptx_add(&pf, pending, pending_entry);
			pending = NULL;
			p = ptx_block(p + 1, f);
			want_name = parens = 0;
		} else if (ptx_word_char((unsigned char)*p)) {
			for (w = p; ptx_word_char((unsigned char)*p); p++)
				;
			if (word_is(w, p, ".target")) {
				const char *a = ks_ev_skip_space(p);

				p = a;
				while (isalnum((unsigned char)*p) || *p == '_')
					p++;
				if ((size_t)(p - a) < sizeof(arch)) {
					memcpy(arch, a, (size_t)(p - a));
					arch[p - a] = '\0';
				}
			} else if (word_is(w, p, ".entry") ||
				   word_is(w, p, ".func")) {
				pending_entry = w[1] == 'e';
				want_name = 1;
				free(pending);
				pending = NULL;
			} else if (want_name && !parens && *w != '.') {
				/* .func (.param .b64 retval) name( ... */
				pending = ks_xstrndup(w, (size_t)(p - w));
				want_name = 0;
			}
		} else {
			p++;
		}
	}
	if (!arch[0]) {
		ks_error(err, "ptx without a .target directive");
		goto out;
	}
	for (i = 0; i < pf.n; i++) {
		struct ks_evidence_kernel *k;

		if (!pf.f[i].entry)
			continue;
		k = ks_ev_record(ev, pf.f[i].name, strlen(pf.f[i].name), arch);
		memset(&k->ptx, 0, sizeof(k->ptx));
		ptx_fold(&pf, i, &k->ptx);
		k->sources |= KS_EVIDENCE_PTX;
	}
	rc = 0;
out:
	free(pending);
	ptx_file_release(&pf);
	return rc;
}
