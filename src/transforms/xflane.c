/* xflane: may a body run on P-wide values? See xflane.h. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../core/buf.h"
#include "xflane.h"
#include "xfkit.h"

/* The locals one body declares that this follows (more: it says no). */
#define LANE_NAMES 64

struct lane_name {
	unsigned long b, e;	/* the declaring token */
	int tainted;		/* depends on x */
};

struct lane_ctx {
	const struct ks_xflane *l;
	const char *t;
	struct ks_xfk_toks ts;
	struct lane_name lv[LANE_NAMES];	/* of the element type */
	size_t nlv;
	struct lane_name iv[LANE_NAMES];	/* other scalars */
	size_t niv;
	int changed;		/* a local became x-dependent this pass */
	int store_x;		/* a store's index depends on x */
	struct ks_buf *why;
	int bad;
};

static int
is(const struct lane_ctx *c, size_t i, const char *s)
{
	return i < c->ts.n && ks_xfk_tok_is(c->t, &c->ts.t[i], s);
}

static int
kind(const struct lane_ctx *c, size_t i)
{
	return i < c->ts.n ? c->ts.t[i].kind : 0;
}

/* Says no (the first reason only); returns -1. */
static int
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
no(struct lane_ctx *c, size_t i, const char *fmt, ...)
{
	va_list ap;

	if (c->bad)
		return -1;
	c->bad = 1;
	va_start(ap, fmt);
	ks_buf_vaddf(c->why, fmt, ap);
	va_end(ap);
	if (i < c->ts.n)
		ks_buf_addf(c->why, " on line %u", c->ts.t[i].line);
	return -1;
}

static int
tok_len(const struct lane_ctx *c, size_t i)
{
	return (int)(c->ts.t[i].end - c->ts.t[i].begin);
}

static const char *
tok_at(const struct lane_ctx *c, size_t i)
{
	return c->t + c->ts.t[i].begin;
}

static struct lane_name *
find(struct lane_name *v, size_t n, const struct lane_ctx *c, size_t i)
{
	const size_t len = c->ts.t[i].end - c->ts.t[i].begin;

	for (size_t k = 0; k < n; k++)
		if (v[k].e - v[k].b == len &&
		    !memcmp(c->t + v[k].b, tok_at(c, i), len))
			return &v[k];
	return NULL;
}

static struct lane_name *
add(struct lane_ctx *c, struct lane_name *v, size_t *n, size_t i)
{
	struct lane_name *x = find(v, *n, c, i);

	if (x)
		return x;
	if (*n == LANE_NAMES) {
		no(c, i, "more than %d locals", LANE_NAMES);
		return NULL;
	}
	x = &v[(*n)++];
	x->b = c->ts.t[i].begin;
	x->e = c->ts.t[i].end;
	x->tainted = 0;
	return x;
}

/* Token i starts a range of `r`: the index of the first token past it. */
static size_t
past_range(const struct lane_ctx *c, size_t i, const struct ks_xflane_range *r,
	   size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (r[k].begin == c->ts.t[i].begin) {
			size_t j = i;

			while (j < c->ts.n && c->ts.t[j].end <= r[k].end)
				j++;
			return j;
		}
	return 0;
}

/* threadIdx.x or blockIdx.x at token i */
static int
seed(const struct lane_ctx *c, size_t i)
{
	return (is(c, i, "threadIdx") || is(c, i, "blockIdx")) &&
	       is(c, i + 1, ".") && is(c, i + 2, "x");
}

/* Token i lies inside the comparison of a bounds check. */
static int
in_bounds(const struct lane_ctx *c, size_t i)
{
	const struct ks_facts *f = c->l->f;

	for (size_t b = 0; b < f->nbranches; b++) {
		const struct ks_branch *br = &f->branches[b];

		if (br->kind == KS_BR_BOUNDS && br->in_main &&
		    br->begin <= c->ts.t[i].begin && c->ts.t[i].end <= br->end)
			return 1;
	}
	return 0;
}

static int
int_type(const struct lane_ctx *c, size_t i)
{
	static const char *const types[] = {
		"int", "unsigned", "signed", "long", "short", "char", "bool",
		"size_t", "ptrdiff_t", "int32_t", "uint32_t", "int64_t",
		"uint64_t", "const", NULL,
	};

	for (const char *const *ty = types; *ty; ty++)
		if (is(c, i, *ty))
			return 1;
	return 0;
}

/* The next `;` (or `,` with comma) at bracket depth 0 in [i, to). */
static size_t
next_sep(const struct lane_ctx *c, size_t i, size_t to, int comma)
{
	int depth = 0;

	for (; i < to; i++) {
		const char ch = kind(c, i) == 'p' ? *tok_at(c, i) : 0;

		if (ch == '(' || ch == '[' || ch == '{')
			depth++;
		else if (ch == ')' || ch == ']' || ch == '}')
			depth--;
		else if (!depth && (ch == ';' || (comma && ch == ',')))
			return i;
	}
	return to;
}

/* An integer expression: no lane value in it; *x set when it depends on
 * the thread's x coordinate. */
static int
int_expr(struct lane_ctx *c, size_t i, size_t to, int *x)
{
	const struct ks_xflane *l = c->l;

	for (; i < to; i++) {
		struct lane_name *n;

		if (past_range(c, i, l->reads, l->nreads))
			return no(c, i, "a read of the input in an integer "
					"expression");
		if (kind(c, i) != 'i')
			continue;
		if (is(c, i, l->elem))
			return no(c, i, "a conversion of %s to an integer", l->elem);
		if (find(c->lv, c->nlv, c, i))
			return no(c, i, "%.*s (a %s) in an integer expression",
				  tok_len(c, i), tok_at(c, i), l->elem);
		if (seed(c, i)) {
			*x = 1;
			i += 2;
		} else if ((n = find(c->iv, c->niv, c, i)) && n->tainted) {
			*x = 1;
		}
	}
	return 0;
}

/* A value of the element type: + - * / over lane values, reads, scalar
 * locals and literals that do not depend on x, and elements of arrays at
 * indices that do not. */
static int
lane_expr(struct lane_ctx *c, size_t i, size_t to)
{
	const struct ks_xflane *l = c->l;

	while (i < to) {
		size_t j = past_range(c, i, l->reads, l->nreads);
		struct lane_name *n;

		if (j) {
			i = j;
			continue;
		}
		if (kind(c, i) == 'p') {
			if (!strchr("()+-*/", *tok_at(c, i)))
				return no(c, i, "`%c` on a %s value", *tok_at(c, i),
					  l->elem);
			i++;
			continue;
		}
		if (kind(c, i) == 'n') {
			const char *s = tok_at(c, i);
			const int len = tok_len(c, i), hex = len > 1 && s[1] == 'x';
			const int real = memchr(s, '.', len) ||
					 (!hex && (memchr(s, 'e', len) || memchr(s, 'E', len)));

			if (real && s[len - 1] != 'f' && s[len - 1] != 'F')
				return no(c, i, "the double literal %.*s", len, s);
			i++;
			continue;
		}
		if (is(c, i, l->elem))
			return no(c, i, "a cast to %s", l->elem);
		if (is(c, i + 1, "("))
			return no(c, i, "a call of %.*s", tok_len(c, i), tok_at(c, i));
		if (seed(c, i))
			return no(c, i, "the thread's x coordinate in a value");
		if (find(c->lv, c->nlv, c, i)) {
			i++;
			continue;
		}
		if ((n = find(c->iv, c->niv, c, i)) && n->tainted)
			return no(c, i, "%.*s (it depends on x) in a value",
				  tok_len(c, i), tok_at(c, i));
		j = i++;
		while (is(c, i, "[")) {
			const size_t e = ks_xfk_match(c->t, &c->ts, i);
			int x = 0;

			if (e >= to || int_expr(c, i + 1, e, &x))
				return no(c, i, "an index ks cannot follow");
			if (x)
				return no(c, j, "an element of %.*s at an index that "
						"depends on x",
					  tok_len(c, j), tok_at(c, j));
			i = e + 1;
		}
		/* a member of a parameter, blockDim.x, threadIdx.y */
		while (is(c, i, ".") && kind(c, i + 1) == 'i')
			i += 2;
	}
	return 0;
}

/* Declarators from token i to `to`: lane values or integers. */
static int
decl(struct lane_ctx *c, size_t i, size_t to, int lane)
{
	while (i < to) {
		size_t e;
		struct lane_name *n;
		int x = 0;

		if (kind(c, i) != 'i')
			return no(c, i, "a declaration ks cannot follow");
		n = lane ? add(c, c->lv, &c->nlv, i) : add(c, c->iv, &c->niv, i);
		if (!n)
			return -1;
		e = next_sep(c, i, to, 1);
		if (e > i + 1 && !is(c, i + 1, "="))
			return no(c, i, "a declaration of %.*s ks cannot follow",
				  tok_len(c, i), tok_at(c, i));
		if (e > i + 1) {
			if (lane ? lane_expr(c, i + 2, e) : int_expr(c, i + 2, e, &x))
				return -1;
			if (x && !n->tainted) {
				n->tainted = 1;
				c->changed = 1;
			}
		}
		i = e < to ? e + 1 : to;
	}
	return 0;
}

/* An expression statement [i, to). */
static int
assignment(struct lane_ctx *c, size_t i, size_t to)
{
	const struct ks_xflane *l = c->l;
	size_t j = past_range(c, i, l->stores, l->nstores);
	struct lane_name *n;
	int x = 0;

	if (j) {
		if (!is(c, j, "=") || is(c, j + 1, "="))
			return no(c, i, "a store of the output other than `=`");
		if (int_expr(c, i, j, &x))
			return -1;
		c->store_x |= x;
		return lane_expr(c, j + 1, to);
	}
	if (kind(c, i) != 'i')
		return no(c, i, "a statement ks cannot run on lanes");
	if (find(c->lv, c->nlv, c, i)) {
		if (is(c, i + 1, "=") && !is(c, i + 2, "="))
			return lane_expr(c, i + 2, to);
		if (kind(c, i + 1) == 'p' && strchr("+-*/", *tok_at(c, i + 1)) &&
		    is(c, i + 2, "="))
			return lane_expr(c, i + 3, to);
		return no(c, i, "an update of %.*s ks cannot run on lanes",
			  tok_len(c, i), tok_at(c, i));
	}
	if ((n = find(c->iv, c->niv, c, i))) {
		if (int_expr(c, i + 1, to, &x))
			return -1;
		if (x && !n->tainted) {
			n->tainted = 1;
			c->changed = 1;
		}
		return 0;
	}
	return no(c, i, "a statement ks cannot run on lanes");
}

/* A condition: lane values may not decide it, and x only through the
 * bounds checks the caller makes the lanes agree on. */
static int
condition(struct lane_ctx *c, size_t i, size_t to)
{
	const struct ks_xflane *l = c->l;

	for (; i < to; i++) {
		struct lane_name *n;

		if (past_range(c, i, l->reads, l->nreads) ||
		    (kind(c, i) == 'i' && find(c->lv, c->nlv, c, i)))
			return no(c, i, "a condition on a value the outputs differ in");
		if (kind(c, i) != 'i')
			continue;
		/* (on lanes the element type is the vector, which has no
		   comparisons) */
		if (is(c, i, l->elem))
			return no(c, i, "%s in a condition", l->elem);
		if ((seed(c, i) || ((n = find(c->iv, c->niv, c, i)) && n->tainted)) &&
		    !in_bounds(c, i))
			return no(c, i, "a condition on x other than a bounds check");
	}
	return 0;
}

static size_t stmt(struct lane_ctx *c, size_t i, size_t to);

static void
walk(struct lane_ctx *c, size_t i, size_t to)
{
	while (i < to && !c->bad)
		i = stmt(c, i, to);
}

static size_t
stmt(struct lane_ctx *c, size_t i, size_t to)
{
	static const char *const refused[] = {
		"while", "do", "switch", "goto", "case", "default", "asm",
		"static", "__shared__", "extern", "auto", "typedef", "struct",
		"union", "class", "template", "volatile", NULL,
	};
	size_t j;

	if (is(c, i, "{")) {
		j = ks_xfk_match(c->t, &c->ts, i);
		walk(c, i + 1, j);
		return j + 1;
	}
	if (is(c, i, ";"))
		return i + 1;
	for (const char *const *r = refused; *r; r++)
		if (is(c, i, *r)) {
			no(c, i, "`%s`", *r);
			return to;
		}
	if (is(c, i, "if") || is(c, i, "for")) {
		const int loop = is(c, i, "for");

		if (!is(c, i + 1, "(")) {
			no(c, i, "a statement ks cannot follow");
			return to;
		}
		j = ks_xfk_match(c->t, &c->ts, i + 1);
		if (j >= to) {
			no(c, i, "a statement ks cannot follow");
			return to;
		}
		if (loop) {
			/* a loop the lanes run alike: nothing in its header
			   depends on x or on a value */
			const size_t s = next_sep(c, i + 2, j, 0);
			int x = 0;

			if (s < j && int_type(c, i + 2)) {
				size_t k = i + 2;

				while (int_type(c, k))
					k++;
				if (decl(c, k, s, 0))
					return to;
			}
			if (int_expr(c, i + 2, j, &x))
				return to;
			if (x) {
				no(c, i, "a loop whose bounds depend on x");
				return to;
			}
		} else if (condition(c, i + 2, j)) {
			return to;
		}
		i = stmt(c, j + 1, to);
		if (!loop && is(c, i, "else"))
			i = stmt(c, i + 1, to);
		return i;
	}
	j = next_sep(c, i, to, 0);
	if (is(c, i, "return")) {
		if (j != i + 1)
			no(c, i, "a return with a value");
		return j + 1;
	}
	if (is(c, i, "break") || is(c, i, "continue"))
		return j + 1;
	{
		size_t k = i;

		while (is(c, k, "const") || is(c, k, "register"))
			k++;
		if (is(c, k, c->l->elem) && kind(c, k + 1) == 'i')
			decl(c, k + 1, j, 1);
		else if (int_type(c, k)) {
			while (int_type(c, k))
				k++;
			decl(c, k, j, 0);
		} else
			assignment(c, i, j);
	}
	return j + 1;
}

int
ks_xflane_check(const struct ks_xflane *l, struct ks_buf *why)
{
	struct lane_ctx c;
	int pass;

	memset(&c, 0, sizeof(c));
	c.l = l;
	c.t = l->text;
	c.why = why;
	ks_xfk_tokens(l->text, l->k->body.begin, l->k->body.end, l->k->body.line,
		      &c.ts);
	/* follow x through the locals until nothing more depends on it */
	for (pass = 0; pass < 16; pass++) {
		c.changed = 0;
		c.store_x = 0;
		c.nlv = 0;
		walk(&c, 0, c.ts.n);
		if (c.bad || !c.changed)
			break;
	}
	if (!c.bad && pass == 16)
		no(&c, c.ts.n, "x flows through more than 16 locals");
	if (!c.bad && !c.store_x)
		no(&c, c.ts.n, "no store of the output is indexed by the thread's "
			       "x coordinate as written");
	free(c.ts.t);
	return !c.bad;
}
