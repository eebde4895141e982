#include "mono.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lex.h"
#include "../core/buf.h"
#include "../core/grow.h"
#include "../core/util.h"

struct param {
	int type;		/* typename/class; else a non-type parameter */
	/* a type argument that is one name (`float`, `ns::Vec<int, 2>`):
	 * written in place of the parameter as it is, so that the analysis
	 * sees the type the facts name (no alias) */
	int direct;
	size_t name;		/* the token of its name */
	size_t dflt, dflt_end;	/* its default's tokens; dflt == 0: none */
	char *arg;		/* the argument, given or defaulted (owned) */
};

/* One call of ks_mono_instance(): the definition's tokens and parameters. */
struct view {
	const char *kernel, *args;	/* for messages */
	const char *s;			/* the definition: s[0, n) */
	size_t n;
	struct ks_token *t;
	size_t nt;
	struct param *p;
	size_t np;
};

/* "cannot make a plain copy of k<args>: <why>" appended to `err`;
 * returns -1. */
static int refuse(struct ks_buf *err, const struct view *v, const char *fmt,
		  ...) __attribute__((format(printf, 3, 4)));

static int
refuse(struct ks_buf *err, const struct view *v, const char *fmt, ...)
{
	struct ks_buf why = KS_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	ks_buf_vaddf(&why, fmt, ap);
	va_end(ap);
	ks_error(err, "cannot make a plain copy of %s<%s>: %s", v->kernel,
		 v->args, why.buf);
	ks_buf_release(&why);
	return -1;
}

static int
punct(const struct view *v, size_t i, char c)
{
	return i < v->nt && ks_lex_punct(v->s, &v->t[i], c);
}

static int
word(const struct view *v, size_t i, const char *w)
{
	return i < v->nt && ks_lex_ident(v->s, &v->t[i], w);
}

/* Tokens i - 1 and i written without a blank between them (`::`). */
static int
glued(const struct view *v, size_t i)
{
	return i && v->t[i - 1].end == v->t[i].begin;
}

/* +1 for ( [ {, -1 for ) ] }, else 0. */
static int
nest(const char *s, const struct ks_token *t)
{
	return ks_lex_punct_in(s, t, "([{") - ks_lex_punct_in(s, t, ")]}");
}

/* +1 for '<', -1 for a '>' that is not the end of `->`, else 0; to be
 * counted only outside parentheses. */
static int
angle(const char *s, const struct ks_token *t, const struct ks_token *prev)
{
	if (ks_lex_punct(s, t, '<'))
		return 1;
	if (ks_lex_punct(s, t, '>') &&
	    !(prev && ks_lex_punct(s, prev, '-') && prev->end == t->begin))
		return -1;
	return 0;
}

/* Is token i a member or a qualified name (after `.`, `::` or `->`),
 * never a template parameter? */
static int
after_member(const struct view *v, size_t i)
{
	if (!i)
		return 0;
	if (punct(v, i - 1, '.'))
		return 1;
	return i >= 2 && glued(v, i - 1) &&
	       ((punct(v, i - 1, ':') && punct(v, i - 2, ':')) ||
		(punct(v, i - 1, '>') && punct(v, i - 2, '-')));
}

/* The parameter among p[0, np) that token i uses, or NULL. */
static const struct param *
use_of(const struct view *v, size_t i, size_t np)
{
	const struct ks_token *t = &v->t[i];
	size_t k;

	if (t->kind != KS_T_IDENT || after_member(v, i))
		return NULL;
	for (k = 0; k < np; k++) {
		const struct ks_token *n = &v->t[v->p[k].name];

		size_t len = t->end - t->begin;

		if (n->end - n->begin == len &&
		    !memcmp(v->s + n->begin, v->s + t->begin, len))
			return &v->p[k];
	}
	return NULL;
}

/* Append s[from, to) to `b`, the uses among tokens [ti, tn) of the
 * parameters p[0, np) replaced by their alias or their argument. */
static void
substitute(struct ks_buf *b, const struct view *v, size_t from, size_t to,
	   size_t ti, size_t tn, size_t np)
{
	size_t pos = from;

	for (; ti < tn; ti++) {
		const struct param *p = use_of(v, ti, np);
		const struct ks_token *n;

		if (!p)
			continue;
		n = &v->t[p->name];
		ks_buf_add(b, v->s + pos, v->t[ti].begin - pos);
		if (p->type && p->direct)
			ks_buf_adds(b, p->arg);
		else if (p->type)
			ks_buf_addf(b, "ks_tp_%s_%.*s", v->kernel,
				    (int)(n->end - n->begin), v->s + n->begin);
		else
			ks_buf_addf(b, "(%s)", p->arg);
		pos = v->t[ti].end;
	}
	ks_buf_add(b, v->s + pos, to - pos);
}

/* Words that end a type, so that a non-type parameter ending in one of
 * them has no name (`int`, `unsigned long`). */
static const char *const type_words[] = {
	"bool", "char", "char8_t", "char16_t", "char32_t", "wchar_t",
	"short", "int", "long", "signed", "unsigned", "float", "double",
	"void", "auto", "__int128", "const", "volatile", "typename",
	"class", "struct", "union", "enum",
};

/* Words that do not make a type on their own (`const Foo`, `struct S`
 * name no parameter). */
static const char *const type_prefixes[] = {
	"const", "volatile", "typename", "class", "struct", "union", "enum",
};

static int
among(const struct view *v, size_t i, const char *const *words, size_t n)
{
	size_t k;

	for (k = 0; k < n; k++)
		if (word(v, i, words[k]))
			return 1;
	return 0;
}

/* The parameter of tokens [b, e) of the header into *p, the k-th. */
static int
parse_param(const struct view *v, size_t b, size_t e, size_t k,
	    struct param *p, struct ks_buf *err)
{
	int text = b < e ? (int)(v->t[e - 1].end - v->t[b].begin) : 0;
	const char *at = b < e ? v->s + v->t[b].begin : "";
	long paren = 0, ang = 0;
	size_t i, eq = e;

	memset(p, 0, sizeof(*p));
	if (b == e)
		return refuse(err, v, "template parameter %zu is empty", k);
	for (i = b; i < e; i++)
		if (punct(v, i, '.') && i + 1 < e && punct(v, i + 1, '.') &&
		    glued(v, i + 1))
			return refuse(err, v, "template parameter %zu (%.*s) "
				      "is a parameter pack", k, text, at);
	if (word(v, b, "template"))
		return refuse(err, v, "template parameter %zu (%.*s) is a "
			      "template template parameter", k, text, at);
	for (i = b; i < e && eq == e; i++) {
		paren += nest(v->s, &v->t[i]);
		if (!paren) {
			ang += angle(v->s, &v->t[i], i ? &v->t[i - 1] : NULL);
			if (!ang && punct(v, i, '='))
				eq = i;
		}
	}
	if (eq + 1 == e)
		return refuse(err, v, "template parameter %zu (%.*s) has an "
			      "empty default", k, text, at);
	if (eq < e) {
		p->dflt = eq + 1;
		p->dflt_end = e;
	}
	if ((word(v, b, "typename") || word(v, b, "class")) &&
	    (eq - b == 1 || (eq - b == 2 && v->t[b + 1].kind == KS_T_IDENT))) {
		p->type = 1;
		if (eq - b == 2)
			p->name = b + 1;
	} else if (eq - b >= 2 && v->t[eq - 1].kind == KS_T_IDENT &&
		   !among(v, eq - 1, type_words, KS_ARRAY_SIZE(type_words)) &&
		   !punct(v, eq - 2, ':') && !punct(v, eq - 2, '.')) {
		for (i = b; i < eq - 1; i++)
			if (!among(v, i, type_prefixes,
				   KS_ARRAY_SIZE(type_prefixes)))
				p->name = eq - 1;
	}
	if (!p->name)
		return refuse(err, v, "template parameter %zu (%.*s) is "
			      "unnamed", k, text, at);
	return 0;
}

/* The header's parameters into v->p; the index of the header's '>'. */
static int
parse_header(struct view *v, size_t *hdr, struct ks_buf *err)
{
	size_t i, b = 2, alloc = 0;
	long paren = 0, ang = 0;

	if (!word(v, 0, "template") || !punct(v, 1, '<'))
		return refuse(err, v, "its definition does not start with "
			      "'template <'");
	for (i = 1; i < v->nt; i++) {
		paren += nest(v->s, &v->t[i]);
		if (!paren)
			ang += angle(v->s, &v->t[i], &v->t[i - 1]);
		if (!paren && !ang)
			break;
	}
	if (i == v->nt)
		return refuse(err, v, "its template header does not close");
	*hdr = i;
	if (i == 2)
		return refuse(err, v, "'template <>' is an explicit "
			      "specialization, not a template");
	paren = ang = 0;
	for (i = 2; i <= *hdr; i++) {
		if (i == *hdr || (!paren && !ang && punct(v, i, ','))) {
			v->p = KS_GROW(v->p, v->np, &alloc);
			if (parse_param(v, b, i, v->np + 1, &v->p[v->np], err))
				return -1;
			v->np++;
			b = i + 1;
			continue;
		}
		paren += nest(v->s, &v->t[i]);
		if (!paren)
			ang += angle(v->s, &v->t[i], &v->t[i - 1]);
	}
	return 0;
}

/* Check that the definition after the header (token `hdr`) is a plain
 * function's: a body, ending the definition, and no requires-clause. */
static int
check_body(const struct view *v, size_t hdr, struct ks_buf *err)
{
	long paren = 0;
	size_t i;

	for (i = hdr + 1; i < v->nt; i++) {
		if (!paren && word(v, i, "requires"))
			return refuse(err, v, "it has a requires-clause, "
				      "which a plain function cannot have");
		if (!paren && punct(v, i, '{'))
			break;
		paren += nest(v->s, &v->t[i]);
	}
	if (i == v->nt)
		return refuse(err, v, "no body ('{') before the end of its "
			      "definition");
	if (!punct(v, v->nt - 1, '}') || v->t[v->nt - 1].end != v->n)
		return refuse(err, v, "its definition does not end just "
			      "after its body's closing brace");
	return 0;
}

/* Split the instance's arguments at their top-level commas into *out. */
static int
split_args(const struct view *v, char ***out, size_t *n,
	   struct ks_buf *err)
{
	const char *s = v->args;
	struct ks_lexer lx;
	struct ks_token t, last;
	const struct ks_token *prev = NULL;
	size_t b = 0, e = 0, alloc = 0;
	int empty = 1, any = 0;
	long paren = 0, ang = 0;

	ks_lex_init(&lx, s, strlen(s));
	for (;;) {
		int end = ks_lex(&lx, &t) == KS_T_EOF;

		if (end || (!paren && !ang && ks_lex_punct(s, &t, ','))) {
			if (end && !any)
				return 0;
			if (empty)
				return refuse(err, v, "its argument %zu is "
					      "empty", *n + 1);
			*out = KS_GROW(*out, *n, &alloc);
			(*out)[(*n)++] = ks_xstrndup(s + b, e - b);
			if (strstr((*out)[*n - 1], "(anonymous") ||
			    strstr((*out)[*n - 1], "(unnamed") ||
			    strstr((*out)[*n - 1], "(lambda") ||
			    strstr((*out)[*n - 1], "lambda at"))
				return refuse(err, v, "its argument '%s' "
					      "cannot be spelled in source "
					      "(an anonymous type or a lambda)",
					      (*out)[*n - 1]);
			if (end)
				return 0;
			empty = 1;
			last = t;
			prev = &last;
			continue;
		}
		if (empty)
			b = t.begin;
		e = t.end;
		empty = 0;
		any = 1;
		paren += nest(s, &t);
		if (!paren)
			ang += angle(s, &t, prev);
		last = t;
		prev = &last;
	}
}

/* Can `typedef arg alias;` name type `arg`? Not an array or a function
 * type, whose alias would need a declarator around it: no '[' or '('
 * outside a template argument list. */
static int
typedef_names(const char *arg)
{
	struct ks_lexer lx;
	struct ks_token t, last;
	const struct ks_token *prev = NULL;
	long paren = 0, ang = 0;

	ks_lex_init(&lx, arg, strlen(arg));
	while (ks_lex(&lx, &t) != KS_T_EOF) {
		if (!ang && ks_lex_punct_in(arg, &t, "(["))
			return 0;
		paren += nest(arg, &t);
		if (!paren)
			ang += angle(arg, &t, prev);
		last = t;
		prev = &last;
	}
	return 1;
}

/*
 * Is the type `arg` one name, which may stand wherever the parameter
 * does (`T(0)`, `sizeof(T)`, `T::x`): identifiers joined by `::`, then
 * at most one template argument list that ends it? `unsigned int`,
 * `float *` and `const X` are not.
 */
static int
one_name(const char *arg)
{
	struct ks_lexer lx;
	struct ks_token t;
	int want_ident = 1;

	ks_lex_init(&lx, arg, strlen(arg));
	while (ks_lex(&lx, &t) != KS_T_EOF) {
		if (want_ident) {
			if (t.kind != KS_T_IDENT || ks_lex_ident(arg, &t, "const") ||
			    ks_lex_ident(arg, &t, "volatile") ||
			    ks_lex_ident(arg, &t, "struct") ||
			    ks_lex_ident(arg, &t, "class") ||
			    ks_lex_ident(arg, &t, "unsigned") ||
			    ks_lex_ident(arg, &t, "signed") ||
			    ks_lex_ident(arg, &t, "long") ||
			    ks_lex_ident(arg, &t, "short"))
				return 0;
			want_ident = 0;
		} else if (ks_lex_punct(arg, &t, ':')) {
			if (ks_lex(&lx, &t) != KS_T_PUNCT || !ks_lex_punct(arg, &t, ':'))
				return 0;
			want_ident = 1;
		} else if (ks_lex_punct(arg, &t, '<')) {
			/* the list must close at the very end */
			const char *end = arg + strlen(arg);

			while (end > arg && isspace((unsigned char)end[-1]))
				end--;
			return end > arg && end[-1] == '>';
		} else {
			return 0;
		}
	}
	return !want_ident;
}

/* Each parameter's argument: given, or its default with the earlier
 * parameters replaced. */
static int
bind_args(struct view *v, char **given, size_t ngiven, struct ks_buf *err)
{
	size_t k;

	if (ngiven > v->np)
		return refuse(err, v, "the instance gives %zu argument%s, the "
			      "template has %zu parameter%s", ngiven,
			      ngiven == 1 ? "" : "s", v->np,
			      v->np == 1 ? "" : "s");
	for (k = 0; k < v->np; k++) {
		struct param *p = &v->p[k];
		const struct ks_token *n = &v->t[p->name];
		int nl = (int)(n->end - n->begin);
		const char *ns = v->s + n->begin;

		if (k < ngiven) {
			p->arg = ks_xstrdup(given[k]);
		} else if (p->dflt) {
			struct ks_buf b = KS_BUF_INIT;

			substitute(&b, v, v->t[p->dflt].begin,
				   v->t[p->dflt_end - 1].end, p->dflt,
				   p->dflt_end, k);
			p->arg = ks_buf_detach(&b, NULL);
		} else {
			return refuse(err, v, "the instance gives %zu "
				      "argument%s, the template has %zu "
				      "parameter%s and %.*s has no default",
				      ngiven, ngiven == 1 ? "" : "s", v->np,
				      v->np == 1 ? "" : "s", nl, ns);
		}
		p->direct = p->type && one_name(p->arg);
		if (p->type && !p->direct && !typedef_names(p->arg))
			return refuse(err, v, "the type argument '%s' of %.*s "
				      "cannot be named by a typedef (an array "
				      "or function type)", p->arg, nl, ns);
	}
	return 0;
}

static int
is_identifier(const char *s)
{
	if (!ks_lex_ident_start((unsigned char)*s))
		return 0;
	while (*++s)
		if (!ks_lex_ident_char((unsigned char)*s))
			return 0;
	return 1;
}

void
ks_mono_view_release(struct ks_mono_view *m)
{
	free(m->text);
	free(m->aliases);
	memset(m, 0, sizeof(*m));
}

int
ks_mono_instance(const char *src, size_t len, size_t def_begin,
		 size_t def_end, const char *name, const char *args,
		 struct ks_mono_view *out, struct ks_buf *err)
{
	struct view v = { name ? name : "", args ? args : "", NULL, 0,
			  NULL, 0, NULL, 0 };
	struct ks_buf text = KS_BUF_INIT, aliases = KS_BUF_INIT;
	struct ks_lexer lx;
	struct ks_token t;
	char **given = NULL;
	size_t ngiven = 0, hdr = 0, from, alloc = 0, k;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (!is_identifier(v.kernel))
		return refuse(err, &v, "'%s' is not an identifier", v.kernel);
	if (!src || def_begin >= def_end || def_end > len)
		return refuse(err, &v, "its definition [%zu, %zu) is not in "
			      "the text (%zu bytes)", def_begin, def_end, len);
	v.s = src + def_begin;
	v.n = def_end - def_begin;
	ks_lex_init(&lx, v.s, v.n);
	while (ks_lex(&lx, &t) != KS_T_EOF) {
		v.t = KS_GROW(v.t, v.nt, &alloc);
		v.t[v.nt++] = t;
	}
	if (parse_header(&v, &hdr, err) || check_body(&v, hdr, err) ||
	    split_args(&v, &given, &ngiven, err) ||
	    bind_args(&v, given, ngiven, err))
		goto out;

	for (k = 0; k < v.np; k++) {
		const struct ks_token *n = &v.t[v.p[k].name];

		if (v.p[k].type && !v.p[k].direct)
			ks_buf_addf(&aliases, "typedef %s ks_tp_%s_%.*s;\n",
				    v.p[k].arg, v.kernel,
				    (int)(n->end - n->begin), v.s + n->begin);
	}
	/* The copy starts at its first non-blank byte, so that the alias
	 * lines run straight into it whatever the header's layout. */
	from = v.t[hdr].end;
	while (from < v.n && isspace((unsigned char)v.s[from]))
		from++;
	ks_buf_add(&text, src, def_end);
	ks_buf_addch(&text, '\n');
	ks_buf_add(&text, aliases.buf, aliases.len);
	out->def_begin = text.len + (v.t[hdr + 1].begin - from);
	substitute(&text, &v, from, v.n, hdr + 1, v.nt, v.np);
	out->def_end = text.len;
	ks_buf_addch(&text, '\n');
	ks_buf_add(&text, src + def_end, len - def_end);
	out->text = ks_buf_detach(&text, &out->len);
	out->aliases = ks_buf_detach(&aliases, NULL);
	rc = 0;
out:
	for (k = 0; k < v.np; k++)
		free(v.p[k].arg);
	for (k = 0; k < ngiven; k++)
		free(given[k]);
	free(given);
	free(v.p);
	free(v.t);
	ks_buf_release(&text);
	ks_buf_release(&aliases);
	return rc;
}
