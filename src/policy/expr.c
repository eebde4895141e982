/*
 * expr: a recursive-descent parser into a node array, a type check done
 * while parsing, and a three-valued evaluator.
 */
#include "expr.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/buf.h"
#include "../core/util.h"

struct parser {
	struct ks_expr *e;
	const char *s;
	size_t pos;
	const struct ks_expr_names *names;
	struct ks_buf *err;
	int failed;
};

static int
fail(struct parser *p, size_t at, const char *msg, const char *arg)
{
	if (!p->failed)
		ks_error(p->err, "column %zu: %s%s%s%s", at + 1, msg,
			 arg ? " '" : "", arg ? arg : "", arg ? "'" : "");
	p->failed = 1;
	return -1;
}

static void
skip_space(struct parser *p)
{
	while (p->s[p->pos] && isspace((unsigned char)p->s[p->pos]))
		p->pos++;
}

static int
add_node(struct parser *p, enum ks_expr_op op, enum ks_expr_type type,
	 int a, int b, size_t lo, size_t hi)
{
	struct ks_expr *e = p->e;
	struct ks_expr_node *n;

	if (e->n == e->alloc) {
		e->alloc = e->alloc ? 2 * e->alloc : 16;
		e->node = ks_xrealloc(e->node, e->alloc * sizeof(*e->node));
	}
	n = &e->node[e->n];
	memset(n, 0, sizeof(*n));
	n->op = op;
	n->type = type;
	n->a = a;
	n->b = b;
	n->name = -1;
	n->lo = lo;
	n->hi = hi;
	return (int)e->n++;
}

static int is_name_start(int c) { return isalpha(c) || c == '_'; }
static int is_name_char(int c) { return isalnum(c) || c == '_' || c == '.'; }

/* Does the text at the cursor start with the token `t`? Consumes it. */
static int
accept(struct parser *p, const char *t)
{
	size_t n = strlen(t);

	skip_space(p);
	if (strncmp(p->s + p->pos, t, n))
		return 0;
	/* "in" must not be the start of a name; "<" must not be "<=". */
	if (is_name_start((unsigned char)t[0]) && is_name_char((unsigned char)p->s[p->pos + n]))
		return 0;
	if ((t[0] == '<' || t[0] == '>' || t[0] == '!' || t[0] == '=') && !t[1] &&
	    p->s[p->pos + 1] == '=')
		return 0;
	if ((t[0] == '&' || t[0] == '|') && !t[1])
		return 0;
	p->pos += n;
	return 1;
}

static const char *
type_name(enum ks_expr_type t)
{
	return t == KS_EXPR_BOOL ? "true/false" : "a number";
}

static int
want_type(struct parser *p, int node, enum ks_expr_type t, const char *what)
{
	struct ks_buf b = KS_BUF_INIT;

	if (node < 0)
		return -1;
	if (p->e->node[node].type == t)
		return 0;
	ks_buf_addf(&b, "%s needs %s, and '%.*s' is %s", what, type_name(t),
		    (int)(p->e->node[node].hi - p->e->node[node].lo),
		    p->s + p->e->node[node].lo, type_name(p->e->node[node].type));
	fail(p, p->e->node[node].lo, b.buf, NULL);
	ks_buf_release(&b);
	return -1;
}

static int parse_or(struct parser *p);

static int
parse_args(struct parser *p, int *count)
{
	int first = -1, last = -1;

	*count = 0;
	do {
		size_t lo;
		int v, arg;

		skip_space(p);
		lo = p->pos;
		v = parse_or(p);
		if (v < 0)
			return -1;
		arg = add_node(p, KS_OP_ARG, p->e->node[v].type, v, -1, lo, p->pos);
		if (last >= 0)
			p->e->node[last].b = arg;
		else
			first = arg;
		last = arg;
		(*count)++;
	} while (accept(p, ","));
	return first;
}

static int
parse_primary(struct parser *p)
{
	size_t lo;
	const char *s;

	skip_space(p);
	lo = p->pos;
	s = p->s + lo;
	if (isdigit((unsigned char)*s) || (*s == '.' && isdigit((unsigned char)s[1]))) {
		char *end;
		double v = strtod(s, &end);
		int n;

		if (is_name_char((unsigned char)*end))
			return fail(p, lo, "bad number", NULL);
		p->pos += (size_t)(end - s);
		n = add_node(p, KS_OP_NUM, KS_EXPR_NUM, -1, -1, lo, p->pos);
		p->e->node[n].num = v;
		return n;
	}
	if (*s == '(') {
		int v;

		p->pos++;
		v = parse_or(p);
		if (v < 0)
			return -1;
		if (!accept(p, ")"))
			return fail(p, p->pos, "expected ')'", NULL);
		/* The parenthesized node keeps its own text; widen it. */
		p->e->node[v].lo = lo;
		p->e->node[v].hi = p->pos;
		return v;
	}
	if (is_name_start((unsigned char)*s)) {
		size_t hi = lo;
		char *name;
		int n, idx;
		enum ks_expr_type t = KS_EXPR_NUM;

		while (is_name_char((unsigned char)p->s[hi]))
			hi++;
		name = ks_xstrndup(s, hi - lo);
		p->pos = hi;
		if (!strcmp(name, "true") || !strcmp(name, "false")) {
			n = add_node(p, KS_OP_BOOL, KS_EXPR_BOOL, -1, -1, lo, hi);
			p->e->node[n].num = name[0] == 't';
			free(name);
			return n;
		}
		if (!strcmp(name, "in")) {
			free(name);
			return fail(p, lo, "expected a value before 'in'", NULL);
		}
		if (accept(p, "(")) {
			int args, count, op;

			if (!strcmp(name, "max"))
				op = KS_OP_MAX;
			else if (!strcmp(name, "min"))
				op = KS_OP_MIN;
			else if (!strcmp(name, "known"))
				op = KS_OP_KNOWN;
			else {
				fail(p, lo, "unknown function", name);
				free(name);
				return -1;
			}
			free(name);
			args = parse_args(p, &count);
			if (args < 0)
				return -1;
			if (!accept(p, ")"))
				return fail(p, p->pos, "expected ')'", NULL);
			if (op == KS_OP_KNOWN) {
				int v = p->e->node[args].a;

				if (count != 1 || p->e->node[v].op != KS_OP_NAME)
					return fail(p, lo, "known() takes one name", NULL);
				return add_node(p, KS_OP_KNOWN, KS_EXPR_BOOL, v, -1, lo, p->pos);
			}
			if (count < 2)
				return fail(p, lo, op == KS_OP_MAX ? "max() takes two values or more" :
					    "min() takes two values or more", NULL);
			for (int a = args; a >= 0; a = p->e->node[a].b)
				if (want_type(p, p->e->node[a].a, KS_EXPR_NUM,
					      op == KS_OP_MAX ? "max()" : "min()"))
					return -1;
			return add_node(p, (enum ks_expr_op)op, KS_EXPR_NUM, -1, args, lo, p->pos);
		}
		idx = p->names ? p->names->lookup(p->names->ctx, name, &t) : -1;
		if (idx < 0) {
			fail(p, lo, "unknown name", name);
			free(name);
			return -1;
		}
		free(name);
		n = add_node(p, KS_OP_NAME, t, -1, -1, lo, hi);
		p->e->node[n].name = idx;
		return n;
	}
	if (!*s)
		return fail(p, lo, "unexpected end", NULL);
	{
		char tok[2] = { *s, 0 };

		return fail(p, lo, "unexpected", tok);
	}
}

static int
parse_unary(struct parser *p)
{
	size_t lo;
	int v;

	skip_space(p);
	lo = p->pos;
	if (p->s[p->pos] == '-') {
		p->pos++;
		v = parse_unary(p);
		if (want_type(p, v, KS_EXPR_NUM, "'-'"))
			return -1;
		return add_node(p, KS_OP_NEG, KS_EXPR_NUM, v, -1, lo, p->pos);
	}
	return parse_primary(p);
}

static int
parse_binary_level(struct parser *p, int level);

static const struct {
	const char *tok;
	enum ks_expr_op op;
	int level;
} binops[] = {
	{ "*", KS_OP_MUL, 2 }, { "/", KS_OP_DIV, 2 },
	{ "+", KS_OP_ADD, 1 }, { "-", KS_OP_SUB, 1 },
};

/* level 2: * /, level 1: + - */
static int
parse_binary_level(struct parser *p, int level)
{
	size_t lo;
	int l;

	skip_space(p);
	lo = p->pos;
	l = level == 2 ? parse_unary(p) : parse_binary_level(p, 2);
	while (l >= 0) {
		size_t i;
		int found = 0;

		for (i = 0; i < KS_ARRAY_SIZE(binops); i++) {
			if (binops[i].level == level && accept(p, binops[i].tok)) {
				int r = level == 2 ? parse_unary(p) : parse_binary_level(p, 2);
				char what[8];

				snprintf(what, sizeof(what), "'%s'", binops[i].tok);
				if (want_type(p, l, KS_EXPR_NUM, what) ||
				    want_type(p, r, KS_EXPR_NUM, what))
					return -1;
				l = add_node(p, binops[i].op, KS_EXPR_NUM, l, r, lo, p->pos);
				found = 1;
				break;
			}
		}
		if (!found)
			break;
	}
	return l;
}

static const struct {
	const char *tok;
	enum ks_expr_op op;
} cmpops[] = {
	{ "<=", KS_OP_LE }, { ">=", KS_OP_GE }, { "==", KS_OP_EQ },
	{ "!=", KS_OP_NE }, { "<", KS_OP_LT }, { ">", KS_OP_GT },
};

static int
parse_cmp(struct parser *p)
{
	size_t lo, i;
	int l;

	skip_space(p);
	lo = p->pos;
	l = parse_binary_level(p, 1);
	if (l < 0)
		return -1;
	if (accept(p, "in")) {
		int list, count;

		if (want_type(p, l, KS_EXPR_NUM, "'in'"))
			return -1;
		if (!accept(p, "["))
			return fail(p, p->pos, "expected '[' after 'in'", NULL);
		list = parse_args(p, &count);
		if (list < 0)
			return -1;
		if (!accept(p, "]"))
			return fail(p, p->pos, "expected ']'", NULL);
		for (int a = list; a >= 0; a = p->e->node[a].b)
			if (want_type(p, p->e->node[a].a, KS_EXPR_NUM, "'in'"))
				return -1;
		l = add_node(p, KS_OP_IN, KS_EXPR_BOOL, l, list, lo, p->pos);
	} else {
		for (i = 0; i < KS_ARRAY_SIZE(cmpops); i++) {
			if (accept(p, cmpops[i].tok)) {
				int r = parse_binary_level(p, 1);
				enum ks_expr_op op = cmpops[i].op;
				char what[8];

				if (r < 0)
					return -1;
				snprintf(what, sizeof(what), "'%s'", cmpops[i].tok);
				if (op == KS_OP_EQ || op == KS_OP_NE) {
					if (want_type(p, r, p->e->node[l].type, what))
						return -1;
				} else if (want_type(p, l, KS_EXPR_NUM, what) ||
					   want_type(p, r, KS_EXPR_NUM, what)) {
					return -1;
				}
				l = add_node(p, op, KS_EXPR_BOOL, l, r, lo, p->pos);
				break;
			}
		}
	}
	skip_space(p);
	for (i = 0; i < KS_ARRAY_SIZE(cmpops); i++)
		if (!strncmp(p->s + p->pos, cmpops[i].tok, strlen(cmpops[i].tok)))
			return fail(p, p->pos, "comparisons do not chain: add parentheses", NULL);
	return l;
}

static int
parse_not(struct parser *p)
{
	size_t lo;
	int v;

	skip_space(p);
	lo = p->pos;
	if (p->s[p->pos] == '!' && p->s[p->pos + 1] != '=') {
		p->pos++;
		v = parse_not(p);
		if (want_type(p, v, KS_EXPR_BOOL, "'!'"))
			return -1;
		return add_node(p, KS_OP_NOT, KS_EXPR_BOOL, v, -1, lo, p->pos);
	}
	return parse_cmp(p);
}

static int
parse_and(struct parser *p)
{
	size_t lo;
	int l;

	skip_space(p);
	lo = p->pos;
	l = parse_not(p);
	while (l >= 0 && accept(p, "&&")) {
		int r = parse_not(p);

		if (want_type(p, l, KS_EXPR_BOOL, "'&&'") ||
		    want_type(p, r, KS_EXPR_BOOL, "'&&'"))
			return -1;
		l = add_node(p, KS_OP_AND, KS_EXPR_BOOL, l, r, lo, p->pos);
	}
	return l;
}

static int
parse_or(struct parser *p)
{
	size_t lo;
	int l;

	skip_space(p);
	lo = p->pos;
	l = parse_and(p);
	while (l >= 0 && accept(p, "||")) {
		int r = parse_and(p);

		if (want_type(p, l, KS_EXPR_BOOL, "'||'") ||
		    want_type(p, r, KS_EXPR_BOOL, "'||'"))
			return -1;
		l = add_node(p, KS_OP_OR, KS_EXPR_BOOL, l, r, lo, p->pos);
	}
	return l;
}

void
ks_expr_release(struct ks_expr *e)
{
	free(e->text);
	free(e->node);
	memset(e, 0, sizeof(*e));
}

int
ks_expr_parse(struct ks_expr *e, const char *text,
	      const struct ks_expr_names *names, struct ks_buf *err)
{
	struct parser p;

	ks_expr_release(e);
	e->text = ks_xstrdup(text);
	memset(&p, 0, sizeof(p));
	p.e = e;
	p.s = e->text;
	p.names = names;
	p.err = err;
	e->root = parse_or(&p);
	if (e->root >= 0) {
		skip_space(&p);
		if (p.s[p.pos])
			e->root = fail(&p, p.pos, "unexpected", (char[2]){ p.s[p.pos], 0 });
	}
	if (e->root < 0) {
		ks_expr_release(e);
		return -1;
	}
	e->type = e->node[e->root].type;
	return 0;
}

static struct ks_val
kv(double v)
{
	struct ks_val r = { 1, v };

	return r;
}

static const struct ks_val unknown = { 0, 0 };

struct ks_val
ks_expr_eval_node(const struct ks_expr *e, int i, const struct ks_val *values)
{
	const struct ks_expr_node *n = &e->node[i];
	struct ks_val a, b;
	int arg;

	switch (n->op) {
	case KS_OP_NUM:
	case KS_OP_BOOL:
		return kv(n->num);
	case KS_OP_NAME:
		return values[n->name];
	case KS_OP_KNOWN:
		return kv(values[e->node[n->a].name].known ? 1 : 0);
	case KS_OP_NEG:
		a = ks_expr_eval_node(e, n->a, values);
		return a.known ? kv(-a.v) : unknown;
	case KS_OP_NOT:
		a = ks_expr_eval_node(e, n->a, values);
		return a.known ? kv(!a.v) : unknown;
	case KS_OP_AND:
		a = ks_expr_eval_node(e, n->a, values);
		b = ks_expr_eval_node(e, n->b, values);
		if ((a.known && !a.v) || (b.known && !b.v))
			return kv(0);
		return a.known && b.known ? kv(1) : unknown;
	case KS_OP_OR:
		a = ks_expr_eval_node(e, n->a, values);
		b = ks_expr_eval_node(e, n->b, values);
		if ((a.known && a.v) || (b.known && b.v))
			return kv(1);
		return a.known && b.known ? kv(0) : unknown;
	case KS_OP_IN:
		a = ks_expr_eval_node(e, n->a, values);
		if (!a.known)
			return unknown;
		{
			int any_unknown = 0;

			for (arg = n->b; arg >= 0; arg = e->node[arg].b) {
				b = ks_expr_eval_node(e, e->node[arg].a, values);
				if (!b.known)
					any_unknown = 1;
				else if (b.v == a.v)
					return kv(1);
			}
			return any_unknown ? unknown : kv(0);
		}
	case KS_OP_MAX:
	case KS_OP_MIN:
		{
			struct ks_val r = unknown;

			for (arg = n->b; arg >= 0; arg = e->node[arg].b) {
				b = ks_expr_eval_node(e, e->node[arg].a, values);
				if (!b.known)
					return unknown;
				if (!r.known || (n->op == KS_OP_MAX ? b.v > r.v : b.v < r.v))
					r = b;
			}
			return r;
		}
	case KS_OP_ARG:
		return ks_expr_eval_node(e, n->a, values);
	default:
		break;
	}
	a = ks_expr_eval_node(e, n->a, values);
	b = ks_expr_eval_node(e, n->b, values);
	if (!a.known || !b.known)
		return unknown;
	switch (n->op) {
	case KS_OP_LT: return kv(a.v < b.v);
	case KS_OP_LE: return kv(a.v <= b.v);
	case KS_OP_GT: return kv(a.v > b.v);
	case KS_OP_GE: return kv(a.v >= b.v);
	case KS_OP_EQ: return kv(a.v == b.v);
	case KS_OP_NE: return kv(a.v != b.v);
	case KS_OP_ADD: return kv(a.v + b.v);
	case KS_OP_SUB: return kv(a.v - b.v);
	case KS_OP_MUL: return kv(a.v * b.v);
	case KS_OP_DIV: return b.v == 0 ? unknown : kv(a.v / b.v);
	default: return unknown;
	}
}

struct ks_val
ks_expr_eval(const struct ks_expr *e, const struct ks_val *values)
{
	return ks_expr_eval_node(e, e->root, values);
}

int
ks_expr_is_const(const struct ks_expr *e)
{
	size_t i;

	for (i = 0; i < e->n; i++)
		if (e->node[i].op == KS_OP_NAME)
			return 0;
	return 1;
}

void
ks_expr_canon(const struct ks_expr *e, struct ks_buf *out)
{
	const char *s;

	for (s = e->text; *s; s++)
		if (!isspace((unsigned char)*s))
			ks_buf_addch(out, *s);
}

static int
is_leaf(const struct ks_expr_node *n)
{
	switch (n->op) {
	case KS_OP_LT: case KS_OP_LE: case KS_OP_GT: case KS_OP_GE:
	case KS_OP_EQ: case KS_OP_NE: case KS_OP_IN: case KS_OP_KNOWN:
	case KS_OP_NAME: case KS_OP_BOOL:
		return 1;
	default:
		return 0;
	}
}

static void
why(const struct ks_expr *e, int i, int want, const struct ks_val *values,
    int *out, size_t max, size_t *n)
{
	const struct ks_expr_node *nd = &e->node[i];
	struct ks_val v = ks_expr_eval_node(e, i, values);

	if (!v.known || (v.v != 0) != want)
		return;
	if (nd->op == KS_OP_NOT && is_leaf(&e->node[nd->a])) {
		if (*n < max)
			out[*n] = i;
		(*n)++;
		return;
	}
	if (nd->op == KS_OP_NOT) {
		why(e, nd->a, !want, values, out, max, n);
		return;
	}
	if (nd->op == KS_OP_AND || nd->op == KS_OP_OR) {
		why(e, nd->a, want, values, out, max, n);
		why(e, nd->b, want, values, out, max, n);
		return;
	}
	/* A literal explains nothing. */
	if (is_leaf(nd) && nd->op != KS_OP_BOOL) {
		if (*n < max)
			out[*n] = i;
		(*n)++;
	}
}

size_t
ks_expr_why(const struct ks_expr *e, const struct ks_val *values, int *out,
	    size_t max)
{
	struct ks_val v = ks_expr_eval(e, values);
	size_t n = 0;

	if (v.known)
		why(e, e->root, v.v != 0, values, out, max, &n);
	return n;
}

static void
names_of(const struct ks_expr *e, int i, int *out, size_t max, size_t *n)
{
	const struct ks_expr_node *nd;
	size_t k;

	if (i < 0)
		return;
	nd = &e->node[i];
	if (nd->op == KS_OP_NAME) {
		for (k = 0; k < *n && k < max; k++)
			if (out[k] == nd->name)
				return;
		if (*n < max)
			out[*n] = nd->name;
		(*n)++;
		return;
	}
	if (nd->op == KS_OP_NUM || nd->op == KS_OP_BOOL)
		return;
	names_of(e, nd->a, out, max, n);
	names_of(e, nd->b, out, max, n);
}

size_t
ks_expr_names_of(const struct ks_expr *e, int i, int *out, size_t max)
{
	size_t n = 0;

	names_of(e, i, out, max, &n);
	return n;
}

size_t
ks_expr_unknown(const struct ks_expr *e, const struct ks_val *values, int *out,
		size_t max)
{
	int names[64];
	size_t n = ks_expr_names_of(e, e->root, names, KS_ARRAY_SIZE(names)), i, k = 0;

	for (i = 0; i < n && i < KS_ARRAY_SIZE(names); i++) {
		if (values[names[i]].known)
			continue;
		if (k < max)
			out[k] = names[i];
		k++;
	}
	return k;
}

void
ks_expr_node_text(const struct ks_expr *e, int i, struct ks_buf *out)
{
	size_t hi = e->node[i].hi;

	/* A node's end may include the blanks before the next token. */
	while (hi > e->node[i].lo && isspace((unsigned char)e->text[hi - 1]))
		hi--;
	ks_buf_add(out, e->text + e->node[i].lo, hi - e->node[i].lo);
}

void
ks_expr_name_text(const struct ks_expr *e, int idx, struct ks_buf *out)
{
	size_t i;

	for (i = 0; i < e->n; i++) {
		if (e->node[i].op == KS_OP_NAME && e->node[i].name == idx) {
			ks_expr_node_text(e, (int)i, out);
			return;
		}
	}
}
