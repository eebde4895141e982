/*
 * xfkit: shared pieces of the streaming and pointwise transforms
 * (xfkit.h).
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/inventory.h"
#include "../core/buf.h"
#include "../core/util.h"
#include "xfkit.h"

void
ks_xfk_release(struct ks_xfk *x)
{
	free(x->head);
	free(x->params);
	free(x->body);
	free(x->args);
	memset(x, 0, sizeof(*x));
}

int
ks_xfk_init(struct ks_xfk *x, const struct ks_xf_input *in, struct ks_buf *reason)
{
	const struct ks_kernel *k = in->kernel;
	const char *t = in->text;
	unsigned long p, q;
	struct ks_buf args = KS_BUF_INIT;
	int depth = 0;

	memset(x, 0, sizeof(*x));
	x->k = k;
	x->f = &k->facts;
	if (k->is_template)
		return ks_xfk_decline(reason, "the kernel is a template: the transforms "
					      "read one instance's plain copy (its instance view)");
	if (strcmp(k->name, k->qualified) != 0)
		return ks_xfk_decline(reason, "the kernel is inside a namespace or class, "
					      "where helper kernels cannot be declared");
	if (k->extent.end > in->len || k->body.end > k->extent.end ||
	    k->name_ext.end > k->body.begin || k->extent.begin > k->name_ext.begin ||
	    k->body.begin >= k->body.end || t[k->body.begin] != '{' ||
	    t[k->body.end - 1] != '}')
		return ks_xfk_decline(reason, "the kernel's extents do not match its file");
	/* the parameter list: the balanced parentheses after the name */
	for (p = k->name_ext.end; p < k->body.begin && t[p] != '('; p++)
		;
	for (q = p; q < k->body.begin; q++) {
		depth += (t[q] == '(') - (t[q] == ')');
		if (depth == 0)
			break;
	}
	if (p >= k->body.begin || q >= k->body.begin)
		return ks_xfk_decline(reason, "the kernel's parameter list was not found");
	for (size_t i = 0; i < k->nparams; i++) {
		if (!k->params[i].name[0])
			return ks_xfk_decline(reason, "a kernel parameter has no name");
		ks_buf_addf(&args, "%s%s", i ? ", " : "", k->params[i].name);
	}
	x->def_begin = k->extent.begin;
	x->params_begin = p;
	x->head = ks_xstrndup(t + k->extent.begin, k->name_ext.begin - k->extent.begin);
	x->params = ks_xstrndup(t + p, q + 1 - p);
	x->body = ks_xstrndup(t + k->body.begin, k->body.end - k->body.begin);
	x->body_begin = k->body.begin;
	x->body_end = k->body.end;
	x->args = ks_buf_detach(&args, NULL);
	return 0;
}

int
ks_xfk_independent(const struct ks_xfk *x, struct ks_buf *reason)
{
	const struct ks_facts *f = x->f;
	size_t i;

	if (f->incomplete) {
		ks_buf_adds(reason, "the analysis did not understand every construct "
				    "of the kernel");
		return 0;
	}
	if (f->shared_decls) {
		ks_buf_adds(reason, "the kernel uses shared memory (its threads "
				    "cooperate)");
		return 0;
	}
	if (f->inline_asm) {
		ks_buf_adds(reason, "the kernel has inline assembly");
		return 0;
	}
	for (i = 0; i < f->ncalls; i++) {
		if (f->calls[i].kind == KS_CALL_SYNC || f->calls[i].kind == KS_CALL_WARP ||
		    f->calls[i].kind == KS_CALL_TENSOR) {
			ks_buf_addf(reason, "the kernel calls %s (line %u): its threads "
					    "cooperate", f->calls[i].name, f->calls[i].line);
			return 0;
		}
	}
	for (i = 0; i < f->nacc; i++)
		if (f->acc[i].flags & KS_ACC_ATOMIC) {
			ks_buf_addf(reason, "the kernel has an atomic (line %u)",
				    f->acc[i].line);
			return 0;
		}
	return 1;
}

/* Is `name` a parameter, or a member path of one ("p.n")? */
static int
param_symbol(const struct ks_xfk *x, const char *name)
{
	size_t n = strcspn(name, ".");

	for (const char *c = name; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '_' && *c != '.')
			return 0;
	for (size_t i = 0; i < x->k->nparams; i++) {
		const char *p = x->k->params[i].name;

		if (strlen(p) == n && !strncmp(p, name, n) &&
		    (name[n] == 0 || (!x->k->params[i].is_pointer && name[n] == '.')))
			return 1;
	}
	return 0;
}

static int
sym_c(const struct ks_xfk *x, unsigned sym, const char *dims, struct ks_buf *out)
{
	static const char *const dim[] = { "b.x", "b.y", "b.z", "g.x", "g.y", "g.z" };

	if (sym >= KS_SYM_BDIM_X && sym <= KS_SYM_GDIM_Z) {
		ks_buf_addf(out, "(long long)%s%s", dims, dim[sym - KS_SYM_BDIM_X]);
		return 0;
	}
	if (sym < KS_SYM_USER || sym - KS_SYM_USER >= x->f->nsyms ||
	    !param_symbol(x, x->f->syms[sym - KS_SYM_USER]))
		return -1;
	ks_buf_addf(out, "(long long)(%s)", x->f->syms[sym - KS_SYM_USER]);
	return 0;
}

static int
poly_c(const struct ks_xfk *x, const struct ks_poly *p, const char *dims,
       struct ks_buf *out)
{
	if (p->opaque)
		return -1;
	ks_buf_addch(out, '(');
	if (!p->n)
		ks_buf_adds(out, "0LL");
	for (unsigned i = 0; i < p->n; i++) {
		ks_buf_addf(out, "%s%lldLL", i ? " + " : "", p->m[i].k);
		for (int s = 0; s < KS_MONO_SYMS; s++) {
			if (!p->m[i].sym[s])
				continue;
			ks_buf_adds(out, " * ");
			if (sym_c(x, p->m[i].sym[s], dims, out))
				return -1;
		}
	}
	ks_buf_addch(out, ')');
	return 0;
}

int
ks_xfk_form_c(const struct ks_xfk *x, const struct ks_form *f, const char *tx,
	      const char *bx, const char *dims, struct ks_buf *out)
{
	unsigned src = ks_form_sources(f);
	unsigned allowed = KS_SRC_BIT(KS_SRC_ONE);

	if (tx)
		allowed |= KS_SRC_BIT(KS_SRC_TID_X);
	if (bx)
		allowed |= KS_SRC_BIT(KS_SRC_BID_X);
	if (f->data || f->nonlinear || (src & ~allowed))
		return -1;
	ks_buf_addch(out, '(');
	if (poly_c(x, &f->c[KS_SRC_ONE], dims, out))
		return -1;
	if (src & KS_SRC_BIT(KS_SRC_TID_X)) {
		ks_buf_adds(out, " + ");
		if (poly_c(x, &f->c[KS_SRC_TID_X], dims, out))
			return -1;
		ks_buf_addf(out, " * (long long)%s", tx);
	}
	if (src & KS_SRC_BIT(KS_SRC_BID_X)) {
		ks_buf_adds(out, " + ");
		if (poly_c(x, &f->c[KS_SRC_BID_X], dims, out))
			return -1;
		ks_buf_addf(out, " * (long long)%s", bx);
	}
	ks_buf_addch(out, ')');
	return 0;
}

/* Remove the words `w` from `s` in place. */
static void
drop_word(char *s, const char *w)
{
	size_t n = strlen(w);
	char *p = s;

	while ((p = strstr(p, w))) {
		int left = p == s || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
		int right = !(isalnum((unsigned char)p[n]) || p[n] == '_');

		if (left && right)
			memmove(p, p + n, strlen(p + n) + 1);
		else
			p += n;
	}
}

int
ks_xfk_decline(struct ks_buf *reason, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ks_buf_vaddf(reason, fmt, ap);
	va_end(ap);
	return -1;
}

char *
ks_xfk_poly_c(const struct ks_xfk *x, const struct ks_poly *p, long long div)
{
	struct ks_form g;
	struct ks_buf b = KS_BUF_INIT;

	ks_form_zero(&g);
	g.c[KS_SRC_ONE] = *p;
	for (unsigned i = 0; i < g.c[KS_SRC_ONE].n; i++) {
		if (g.c[KS_SRC_ONE].m[i].k % div)
			return NULL;
		g.c[KS_SRC_ONE].m[i].k /= div;
	}
	if (ks_xfk_form_c(x, &g, NULL, NULL, "ks_o", &b)) {
		ks_buf_release(&b);
		return NULL;
	}
	return ks_buf_detach(&b, NULL);
}

char *
ks_xfk_uniform_c(const struct ks_xfk *x, const struct ks_form *f)
{
	if (!ks_form_is_uniform(f) || f->rem)
		return NULL;
	return ks_xfk_poly_c(x, &f->c[KS_SRC_ONE], 1);
}

char *
ks_xfk_pointee(const struct ks_xfk *x, size_t i)
{
	const struct ks_param *pa = &x->k->params[i];
	char *s, *star;
	size_t a, b;

	if (!pa->is_pointer || strchr(pa->type, '(') || strchr(pa->type, '[') ||
	    strchr(pa->type, '&'))
		return NULL;
	s = ks_xstrdup(pa->type);
	star = strchr(s, '*');
	if (!star || strchr(star + 1, '*')) {
		free(s);
		return NULL;
	}
	*star = ' ';
	for (const char *const *w = (const char *const[]){ "__restrict__",
			"__restrict", "restrict", "const", "volatile", NULL };
	     *w; w++)
		drop_word(s, *w);
	for (a = 0; s[a] == ' '; a++)
		;
	for (b = strlen(s); b > a && s[b - 1] == ' '; b--)
		;
	memmove(s, s + a, b - a);
	s[b - a] = 0;
	if (!*s) {
		free(s);
		return NULL;
	}
	return s;
}

int
ks_xfk_is_global_index(const struct ks_access *a)
{
	struct ks_form tid, bid, dim, want;

	ks_form_src(&tid, KS_SRC_TID_X);
	ks_form_src(&bid, KS_SRC_BID_X);
	ks_form_sym(&dim, KS_SYM_BDIM_X);
	ks_form_mul(&bid, &bid, &dim);
	ks_form_add(&want, &tid, &bid);
	ks_form_scale(&want, &want, a->bytes);
	return ks_form_equal(&want, &a->offset);
}

void
ks_xfk_emit(struct ks_buf *b, const struct ks_xfk *x, const char *text)
{
	const char *p = text, *m;

	while ((m = strstr(p, "@K@"))) {
		ks_buf_add(b, p, (size_t)(m - p));
		ks_buf_adds(b, x->k->name);
		p = m + 3;
	}
	ks_buf_adds(b, p);
}

int
ks_xfk_scan(const char *t, unsigned long from, unsigned long to,
	    unsigned first_line,
	    int (*fn)(const char *text, const struct ks_xfk_tok *tok, void *ctx),
	    void *ctx)
{
	unsigned long i = from;
	unsigned line = first_line;
	int bol = 1, rc;

	while (i < to) {
		char c = t[i];
		struct ks_xfk_tok tok;

		if (c == '\n') {
			line++;
			bol = 1;
			i++;
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
			i++;
			continue;
		}
		if (c == '#' && bol) {	/* a directive, with continuations */
			while (i < to && t[i] != '\n') {
				if (t[i] == '\\' && i + 1 < to && t[i + 1] == '\n')
					i++, line++;
				i++;
			}
			continue;
		}
		bol = 0;
		if (c == '/' && i + 1 < to && t[i + 1] == '/') {
			while (i < to && t[i] != '\n')
				i++;
			continue;
		}
		if (c == '/' && i + 1 < to && t[i + 1] == '*') {
			for (i += 2; i + 1 < to && !(t[i] == '*' && t[i + 1] == '/'); i++)
				line += t[i] == '\n';
			i += 2;
			continue;
		}
		if (c == '"' || c == '\'') {
			for (i++; i < to && t[i] != c && t[i] != '\n'; i++)
				if (t[i] == '\\')
					i++;
			i++;
			continue;
		}
		tok.begin = i;
		tok.line = line;
		if (isalpha((unsigned char)c) || c == '_') {
			while (i < to && (isalnum((unsigned char)t[i]) || t[i] == '_'))
				i++;
			tok.kind = 'i';
		} else if (isdigit((unsigned char)c) ||
			   (c == '.' && i + 1 < to && isdigit((unsigned char)t[i + 1]))) {
			while (i < to && (isalnum((unsigned char)t[i]) || t[i] == '.' ||
					  t[i] == '\'' ||
					  ((t[i] == '+' || t[i] == '-') &&
					   (t[i - 1] == 'e' || t[i - 1] == 'E' ||
					    t[i - 1] == 'p' || t[i - 1] == 'P'))))
				i++;
			tok.kind = 'n';
		} else {
			i++;
			tok.kind = 'p';
		}
		tok.end = i;
		rc = fn(t, &tok, ctx);
		if (rc)
			return rc;
	}
	return 0;
}

static int
cmp_xedit(const void *a, const void *b)
{
	const struct ks_xfk_edit *x = a, *y = b;

	return x->begin < y->begin ? -1 : x->begin > y->begin;
}

int
ks_xfk_definition(const struct ks_xfk *x, const char *text,
		  struct ks_xfk_edit *edits, size_t n, struct ks_buf *out)
{
	unsigned long at = x->def_begin, end = x->k->extent.end;

	qsort(edits, n, sizeof(*edits), cmp_xedit);
	for (size_t i = 0; i < n; i++)
		if (edits[i].begin < at || edits[i].end > end ||
		    (i && edits[i].begin < edits[i - 1].end))
			return -1;
	for (size_t i = 0; i < n; i++) {
		ks_buf_add(out, text + at, edits[i].begin - at);
		ks_buf_adds(out, edits[i].with);
		at = edits[i].end;
	}
	ks_buf_add(out, text + at, end - at);
	return 0;
}

static int
collect(const char *text, const struct ks_xfk_tok *t, void *ctx)
{
	struct ks_xfk_toks *ts = ctx;

	(void)text;
	if (ts->n == ts->cap) {
		ts->cap = ts->cap ? 2 * ts->cap : 256;
		ts->t = ks_xrealloc(ts->t, ts->cap * sizeof(*ts->t));
	}
	ts->t[ts->n++] = *t;
	return 0;
}

void
ks_xfk_tokens(const char *text, unsigned long from, unsigned long to,
	      unsigned first_line, struct ks_xfk_toks *out)
{
	ks_xfk_scan(text, from, to, first_line, collect, out);
}

int
ks_xfk_tok_is(const char *text, const struct ks_xfk_tok *t, const char *s)
{
	size_t n = strlen(s);

	return t->end - t->begin == n && !memcmp(text + t->begin, s, n);
}

size_t
ks_xfk_match(const char *text, const struct ks_xfk_toks *ts, size_t i)
{
	const char open = text[ts->t[i].begin];
	const char close = open == '(' ? ')' : open == '{' ? '}' : ']';
	int depth = 0;

	for (size_t j = i; j < ts->n; j++) {
		if (ts->t[j].kind != 'p')
			continue;
		if (text[ts->t[j].begin] == open)
			depth++;
		else if (text[ts->t[j].begin] == close && --depth == 0)
			return j;
	}
	return ts->n;
}

size_t
ks_xfk_past_access(const struct ks_xfk_toks *ts, size_t i, size_t to,
		   const struct ks_access *a)
{
	size_t j;

	if (!a->in_main || i >= to || ts->t[i].begin != a->begin)
		return 0;
	for (j = i; j < to && ts->t[j].end <= a->end; j++)
		;
	return j > i && ts->t[j - 1].end == a->end && j < to ? j : 0;
}

int
ks_xfk_tok_same(const char *text, const struct ks_xfk_tok *a,
		const struct ks_xfk_tok *b)
{
	return a->kind == b->kind && a->end - a->begin == b->end - b->begin &&
	       !memcmp(text + a->begin, text + b->begin, a->end - a->begin);
}

size_t
ks_xfk_spell_access(const char *text, const struct ks_xfk_toks *ts, size_t i,
		    size_t to, const struct ks_access *a, const char *sep)
{
	size_t j = ks_xfk_past_access(ts, i, to, a);

	return j && ks_xfk_tok_is(text, &ts->t[j], sep) ? j + 1 : 0;
}

size_t
ks_xfk_spell_two(const char *text, const struct ks_xfk_toks *ts, size_t i,
		 size_t to, const struct ks_access *p, const struct ks_access *q,
		 const char *mid, const char *sep)
{
	for (int r = 0; r < 2; r++) {
		const struct ks_access *a = r ? q : p, *b = r ? p : q;
		size_t j = ks_xfk_spell_access(text, ts, i, to, a, mid);

		if (j && (j = ks_xfk_spell_access(text, ts, j, to, b, sep)))
			return j;
	}
	return 0;
}
