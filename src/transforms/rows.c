/*
 * rows: the cooperative-rows transform (coop_rows).
 *
 * A kernel whose thread walks a contiguous row in one or several loops
 * (sums, products, min/max, arg-max, several passes over the row, running
 * sums) becomes T threads per row: T = 32 (a warp per row, several rows
 * per block) or T = 64..1024 (a block per row). The variant keeps the
 * kernel's own text. Only three things change:
 *
 *   - the thread geometry the body sees is virtual: `threadIdx`,
 *     `blockIdx`, `blockDim` and `gridDim` are renamed to locals that
 *     give each group of T threads the coordinates of the one original
 *     thread it replaces (the launcher puts the original block's x extent
 *     into gridDim.z), so every index the kernel computes is what it was;
 *   - each loop over a row (uniform bounds, unit step, accesses
 *     contiguous in the loop variable) is dealt among the T threads
 *     (`j = init + lane; j += T`), and every value the loop carries is
 *     combined across them afterwards by butterfly shuffles (and shared
 *     memory across warps): sums and products from the identity with the
 *     value before the loop added back, min/max with the kernel's own
 *     function (so NaN goes as it went), arg-max by the kernel's own
 *     comparison with the smaller index on ties (the first, as a
 *     sequential strict comparison keeps); a running sum that the loop
 *     reads becomes a warp scan over tiles of 32 elements with a carry;
 *   - a statement outside the row loops that stores to memory runs on
 *     the group's first thread only (every thread of the group holds the
 *     same values there);
 *   - with a warp per row, passes of one block that read the same array
 *     at their variable read it once into K registers a lane (element
 *     lane + 32 t in ks_rc[t]) when the row's bound is at most 32 K, a
 *     run-time test; each pass then walks t under its own first element
 *     and bound, its reads of the array replaced by the register, and
 *     the dealt form stays as the other branch. Only where nothing the
 *     passes store could reach the array before its last read (the row
 *     cache; the header says whether it is used, and why not).
 *
 * The launcher launches the variant when the launch is 1-D in its block
 * and the block divides into rows, else a copy of the original kernel
 * (a helper kernel), so every launch the original allowed stays correct.
 *
 * Recognition uses the analysis facts: the loops' inductions (init,
 * bound, step as forms), the accesses' offset forms (the loop variable as
 * the contiguous index, no data-dependent index in a row loop, no load of
 * what the kernel stores elsewhere), calls, barriers and shared memory.
 * The text is tokenized only to copy it and to bind the roles of the
 * statements the facts point at (which variable a loop accumulates into,
 * with which operator).
 *
 * Ownership: everything is local to one apply() call.
 * May include: libc, core/, analysis/ (facts.h, inventory.h: structs),
 * transform.h.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/facts.h"
#include "../analysis/inventory.h"
#include "../core/buf.h"
#include "../core/util.h"
#include "transform.h"

enum tkind { TK_ID, TK_NUM, TK_PUNCT, TK_STR, TK_DIR };

struct tok {
	size_t b, e;		/* bytes [b, e) of the text */
	enum tkind kind;
	unsigned line;
};

enum skind {
	S_SIMPLE, S_BLOCK, S_IF, S_FOR, S_WHILE, S_DO, S_DIR, S_EMPTY,
};

struct stmt {
	enum skind k;
	int b, e;		/* tokens [b, e) */
	int cb, ce;		/* if/while: the condition, parentheses out */
	int ib, ie, nb, ne;	/* for: init and increment (cond in cb, ce) */
	int else_tok;		/* if: the `else` token, or -1 */
	int *kid;		/* block: statements; if: then, else; loops: body */
	int nkid;
	int loop;		/* loops: the facts loop, or -1 */
};

enum acc_op { A_SUM, A_SUB, A_PROD, A_MINMAX, A_SELECT };

/* A value a row loop carries: `id op= e`, `id = fn(id, e)`, or
 * `if (e cmp id) { id = e; idx = j; }`. */
struct accum {
	int id;			/* token of the variable's name */
	enum acc_op op;
	int fn;			/* A_MINMAX: the function's token */
	int idx;		/* A_SELECT: the index variable's token, or -1 */
	int cmp;		/* A_SELECT: the comparison's token */
	int cand_left;		/* A_SELECT: `e cmp id` (else `id cmp e`) */
	int eb, ee;		/* the combined value e */
	int stmt;		/* the statement */
};

#define MAX_ACC 8

/* The row cache's values a lane by default: rows of up to 1024 elements,
 * 32 registers for float. */
#define ROW_CACHE_DEF 32

/* `#pragma unroll` of a row loop, and the values per thread of a scan
 * tile: enough loads in flight per warp for HBM at full occupancy. */
#define ROW_UNROLL 4

/* At most this many passes share the row cache. */
#define MAX_PASS 16

/* The register cache of a row: passes of one block that read the same
 * array at their variable read it from K registers a lane instead. */
struct rcache {
	int used;
	int pass[MAX_PASS];	/* the passes (for statements), in order */
	int npass;
	int array;		/* the facts array held in registers */
	int lb, le;		/* the first pass's read, tokens [lb, le) */
	long long min_init;	/* the smallest first element of the passes */
	const char *type;	/* the element's type */
	int *rep;		/* reads replaced: tokens [rep[2i], rep[2i+1]) */
	int nrep;
	int body;		/* copying a cached pass's body */
	int deep;		/* tabs after a marked newline (the cached body) */
};

struct cx {
	const char *t;
	struct tok *tk;
	int ntk;
	struct stmt *st;
	int nst;
	const struct ks_kernel *k;
	const struct ks_facts *f;
	int T, rpb, unroll;
	struct ks_buf *out;
	struct ks_buf *why;
	int failed;
	int nloops_seen;	/* loop statements numbered in source order */
	int col_loops;
	int mark;		/* writing a generated block (add_user) */
	int K;			/* the row cache's values a lane (0: off) */
	int scans;		/* row scans emitted */
	struct rcache rc;
};

/* ---- tokens ---- */

static int
is_idch(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

static const char *const punct3[] = { "<<=", ">>=", "->*", "..." };
static const char *const punct2[] = {
	"->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
	"+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "::",
};

static int fail(struct cx *c, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Decline (the first reason wins); returns -1. */
static int
fail(struct cx *c, unsigned line, const char *fmt, ...)
{
	va_list ap;

	if (c->failed)
		return -1;
	c->failed = 1;
	if (line)
		ks_buf_addf(c->why, "line %u: ", line);
	va_start(ap, fmt);
	ks_buf_vaddf(c->why, fmt, ap);
	va_end(ap);
	return -1;
}

static int
tokenize(struct cx *c, size_t b, size_t e)
{
	const char *t = c->t;
	size_t i = b, cap = 64;
	unsigned line = 1;
	int bol = 0;

	for (size_t j = 0; j < b; j++)
		if (t[j] == '\n')
			line++;
	c->tk = ks_xmalloc(cap * sizeof(*c->tk));
	c->ntk = 0;
	while (i < e) {
		struct tok k;

		if (t[i] == '\n') {
			line++;
			bol = 1;
			i++;
			continue;
		}
		if (t[i] == ' ' || t[i] == '\t' || t[i] == '\r' ||
		    t[i] == '\f' || t[i] == '\v') {
			i++;
			continue;
		}
		if (t[i] == '/' && i + 1 < e && t[i + 1] == '/') {
			while (i < e && t[i] != '\n')
				i++;
			continue;
		}
		if (t[i] == '/' && i + 1 < e && t[i + 1] == '*') {
			i += 2;
			while (i + 1 < e && !(t[i] == '*' && t[i + 1] == '/')) {
				if (t[i] == '\n')
					line++;
				i++;
			}
			i += 2;
			continue;
		}
		k.b = i;
		k.line = line;
		if (t[i] == '#') {
			if (!bol)
				return fail(c, line, "a '#' inside the body");
			while (i < e && t[i] != '\n') {
				if (t[i] == '\\' && i + 1 < e && t[i + 1] == '\n')
					return fail(c, line, "a continued directive "
						    "inside the body");
				i++;
			}
			k.kind = TK_DIR;
		} else if (is_idch((unsigned char)t[i]) ||
			   (t[i] == '.' && i + 1 < e && t[i + 1] >= '0' &&
			    t[i + 1] <= '9')) {
			int num = (t[i] >= '0' && t[i] <= '9') || t[i] == '.';

			while (i < e && (is_idch((unsigned char)t[i]) ||
					 (num && (t[i] == '.' || t[i] == '\'' ||
						  ((t[i] == '+' || t[i] == '-') &&
						   (t[i - 1] == 'e' || t[i - 1] == 'E' ||
						    t[i - 1] == 'p' || t[i - 1] == 'P'))))))
				i++;
			k.kind = num ? TK_NUM : TK_ID;
		} else if (t[i] == '"' || t[i] == '\'') {
			char q = t[i++];

			while (i < e && t[i] != q) {
				if (t[i] == '\\')
					i++;
				i++;
			}
			i++;
			k.kind = TK_STR;
		} else {
			size_t n = 1;

			for (size_t p = 0; p < KS_ARRAY_SIZE(punct3) && n == 1; p++)
				if (i + 3 <= e && !memcmp(t + i, punct3[p], 3))
					n = 3;
			for (size_t p = 0; p < KS_ARRAY_SIZE(punct2) && n == 1; p++)
				if (i + 2 <= e && !memcmp(t + i, punct2[p], 2))
					n = 2;
			i += n;
			k.kind = TK_PUNCT;
		}
		if (i > e)
			i = e;
		k.e = i;
		bol = 0;
		if (c->ntk == (int)cap) {
			cap *= 2;
			c->tk = ks_xrealloc(c->tk, cap * sizeof(*c->tk));
		}
		c->tk[c->ntk++] = k;
	}
	return 0;
}

/* Token i as a C string (static storage, for messages). */
static const char *
tok_str(const struct cx *c, int i)
{
	static char nm[64];
	size_t n = c->tk[i].e - c->tk[i].b;

	if (n >= sizeof(nm))
		n = sizeof(nm) - 1;
	memcpy(nm, c->t + c->tk[i].b, n);
	nm[n] = 0;
	return nm;
}

static int
is(const struct cx *c, int i, const char *s)
{
	size_t n = strlen(s);

	return i >= 0 && i < c->ntk && c->tk[i].e - c->tk[i].b == n &&
	       !memcmp(c->t + c->tk[i].b, s, n);
}

static int
is_id(const struct cx *c, int i)
{
	return i >= 0 && i < c->ntk && c->tk[i].kind == TK_ID;
}

static int
same_tok(const struct cx *c, int a, int b)
{
	size_t n = c->tk[a].e - c->tk[a].b;

	return c->tk[b].e - c->tk[b].b == n &&
	       !memcmp(c->t + c->tk[a].b, c->t + c->tk[b].b, n);
}

static int
same_range(const struct cx *c, int ab, int ae, int bb, int be)
{
	if (ae - ab != be - bb)
		return 0;
	for (int i = 0; i < ae - ab; i++)
		if (!same_tok(c, ab + i, bb + i))
			return 0;
	return 1;
}

/* The token matching the opening bracket at `i`, or -1. */
static int
match(const struct cx *c, int i, int end)
{
	int depth = 0;

	for (; i < end; i++) {
		if (is(c, i, "(") || is(c, i, "[") || is(c, i, "{"))
			depth++;
		else if (is(c, i, ")") || is(c, i, "]") || is(c, i, "}"))
			if (--depth == 0)
				return i;
	}
	return -1;
}

/* ---- statements ---- */

static int
new_stmt(struct cx *c, enum skind k, int b)
{
	struct stmt *s;

	c->st = ks_xrealloc(c->st, (size_t)(c->nst + 1) * sizeof(*c->st));
	s = &c->st[c->nst];
	memset(s, 0, sizeof(*s));
	s->k = k;
	s->b = b;
	s->else_tok = -1;
	s->loop = -1;
	return c->nst++;
}

static void
add_kid(struct cx *c, int s, int kid)
{
	struct stmt *p = &c->st[s];

	p->kid = ks_xrealloc(p->kid, (size_t)(p->nkid + 1) * sizeof(int));
	p->kid[p->nkid++] = kid;
}

static int parse_stmt(struct cx *c, int i, int end, int *next);

/* `( ... )` at i: sets the inside, returns the token after ')'. */
static int
parens(struct cx *c, int i, int end, int *b, int *e)
{
	int m;

	if (!is(c, i, "(") || (m = match(c, i, end)) < 0)
		return fail(c, i < c->ntk ? c->tk[i].line : 0,
			    "a statement the transform cannot read");
	*b = i + 1;
	*e = m;
	return m + 1;
}

static int
parse_stmt(struct cx *c, int i, int end, int *next)
{
	int s, n, kid;

	if (i >= end)
		return fail(c, 0, "a statement the transform cannot read");
	if (c->tk[i].kind == TK_DIR) {
		s = new_stmt(c, S_DIR, i);
		c->st[s].e = *next = i + 1;
		return s;
	}
	if (is(c, i, ";")) {
		s = new_stmt(c, S_EMPTY, i);
		c->st[s].e = *next = i + 1;
		return s;
	}
	if (is(c, i, "{")) {
		int m = match(c, i, end);

		if (m < 0)
			return fail(c, c->tk[i].line, "an unbalanced brace");
		s = new_stmt(c, S_BLOCK, i);
		for (int j = i + 1; j < m; j = n) {
			if ((kid = parse_stmt(c, j, m, &n)) < 0)
				return -1;
			add_kid(c, s, kid);
		}
		c->st[s].e = *next = m + 1;
		return s;
	}
	if (is(c, i, "if") || is(c, i, "while")) {
		int b, e, j;

		s = new_stmt(c, is(c, i, "if") ? S_IF : S_WHILE, i);
		if (is(c, i + 1, "constexpr"))
			i++;
		if ((j = parens(c, i + 1, end, &b, &e)) < 0)
			return -1;
		c->st[s].cb = b;
		c->st[s].ce = e;
		if (c->st[s].k == S_WHILE)
			c->st[s].loop = c->nloops_seen++;
		if ((kid = parse_stmt(c, j, end, &n)) < 0)
			return -1;
		add_kid(c, s, kid);
		if (c->st[s].k == S_IF && is(c, n, "else")) {
			c->st[s].else_tok = n;
			if ((kid = parse_stmt(c, n + 1, end, &n)) < 0)
				return -1;
			add_kid(c, s, kid);
		}
		c->st[s].e = *next = n;
		return s;
	}
	if (is(c, i, "for")) {
		int b, e, j, semi[2], ns = 0, depth = 0;

		s = new_stmt(c, S_FOR, i);
		if ((j = parens(c, i + 1, end, &b, &e)) < 0)
			return -1;
		for (int p = b; p < e; p++) {
			if (is(c, p, "(") || is(c, p, "[") || is(c, p, "{"))
				depth++;
			else if (is(c, p, ")") || is(c, p, "]") || is(c, p, "}"))
				depth--;
			else if (!depth && is(c, p, ";") && ns < 2)
				semi[ns++] = p;
			else if (!depth && is(c, p, ":"))
				return fail(c, c->tk[i].line,
					    "a range-based for loop");
		}
		if (ns != 2)
			return fail(c, c->tk[i].line, "a for loop the transform "
				    "cannot read");
		c->st[s].ib = b;
		c->st[s].ie = semi[0];
		c->st[s].cb = semi[0] + 1;
		c->st[s].ce = semi[1];
		c->st[s].nb = semi[1] + 1;
		c->st[s].ne = e;
		c->st[s].loop = c->nloops_seen++;
		if ((kid = parse_stmt(c, j, end, &n)) < 0)
			return -1;
		add_kid(c, s, kid);
		c->st[s].e = *next = n;
		return s;
	}
	if (is(c, i, "do")) {
		int b, e;

		s = new_stmt(c, S_DO, i);
		c->st[s].loop = c->nloops_seen++;
		if ((kid = parse_stmt(c, i + 1, end, &n)) < 0)
			return -1;
		add_kid(c, s, kid);
		if (!is(c, n, "while") || (n = parens(c, n + 1, end, &b, &e)) < 0 ||
		    !is(c, n, ";"))
			return fail(c, c->tk[i].line, "a do loop the transform "
				    "cannot read");
		c->st[s].cb = b;
		c->st[s].ce = e;
		c->st[s].e = *next = n + 1;
		return s;
	}
	if (is(c, i, "switch") || is(c, i, "case") || is(c, i, "default") ||
	    is(c, i, "goto") || is(c, i, "try") || is(c, i, "asm"))
		return fail(c, c->tk[i].line, "a '%s' statement in the kernel",
			    is(c, i, "switch") ? "switch" : "case, goto or asm");
	/* a simple statement: to the `;` outside brackets */
	s = new_stmt(c, S_SIMPLE, i);
	for (int j = i, depth = 0; j < end; j++) {
		if (is(c, j, "(") || is(c, j, "[") || is(c, j, "{"))
			depth++;
		else if (is(c, j, ")") || is(c, j, "]") || is(c, j, "}"))
			depth--;
		else if (!depth && is(c, j, ";")) {
			c->st[s].e = *next = j + 1;
			return s;
		}
	}
	return fail(c, c->tk[i].line, "a statement without its ';'");
}

/* ---- facts ---- */

static int
in_loop(const struct ks_facts *f, int inner, int loop)
{
	return inner >= 0 && ks_facts_loop_within(f, inner, loop);
}

static int
is_global(const struct ks_facts *f, const struct ks_access *a)
{
	enum ks_space sp = f->arrays[a->array].space;

	return sp == KS_SPACE_GLOBAL || sp == KS_SPACE_UNKNOWN;
}

/* Does statement s (lines) hold a store or atomic to memory others see? */
static int
stores_in_lines(const struct cx *c, unsigned l0, unsigned l1)
{
	for (size_t i = 0; i < c->f->nacc; i++) {
		const struct ks_access *a = &c->f->acc[i];

		if ((a->flags & (KS_ACC_STORE | KS_ACC_ATOMIC)) &&
		    is_global(c->f, a) && a->line >= l0 && a->line <= l1)
			return 1;
	}
	return 0;
}

/* A row loop: some global access directly in it depends on its variable,
 * which does not start at a thread's own value (a loop over rows does). */
static int
walks_row(const struct cx *c, int loop)
{
	enum ks_src src = KS_SRC_LOOP0 + c->f->loops[loop].depth;

	if (c->f->loops[loop].depth >= KS_MAX_LOOP_DEPTH ||
	    (ks_form_sources(&c->f->loops[loop].init) & KS_SRC_THREAD_MASK))
		return 0;
	for (size_t i = 0; i < c->f->nacc; i++) {
		const struct ks_access *a = &c->f->acc[i];

		if (a->loop == loop && is_global(c->f, a) &&
		    (ks_form_sources(&a->offset) & KS_SRC_BIT(src)))
			return 1;
	}
	return 0;
}

/* The facts' conditions on a row loop; declines with the reason. */
static int
check_row_loop(struct cx *c, int loop)
{
	const struct ks_facts *f = c->f;
	const struct ks_loop *l = &f->loops[loop];
	enum ks_src src = KS_SRC_LOOP0 + l->depth;
	long long k;

	if (l->step_kind != KS_STEP_ADD || !ks_form_is_const(&l->step, &k) ||
	    k != 1)
		return fail(c, l->line, "the row loop does not step by +1");
	if (!ks_form_is_uniform(&l->init) || !ks_form_is_uniform(&l->bound))
		return fail(c, l->line, "the row loop's bounds are not uniform "
			    "across the block");
	if (l->has_sync || l->has_warp)
		return fail(c, l->line, "the row loop synchronizes");
	for (size_t i = 0; i < f->nacc; i++) {
		const struct ks_access *a = &f->acc[i];
		const struct ks_array *ar = &f->arrays[a->array];

		if (!in_loop(f, a->loop, loop))
			continue;
		if (ar->space == KS_SPACE_LOCAL || ar->space == KS_SPACE_SHARED)
			return fail(c, a->line, "the row loop uses the array "
				    "'%s' of the thread", ar->name);
		if (a->offset.data || ar->space == KS_SPACE_UNKNOWN)
			return fail(c, a->line, "the row loop accesses '%s' at "
				    "an index that depends on data", ar->name);
		if (a->loop != loop)
			continue;
		if (ks_form_sources(&a->offset) & KS_SRC_BIT(src)) {
			if ((a->offset.nonlinear & KS_SRC_BIT(src)) ||
			    !ks_form_coef_const(&a->offset, src, &k) ||
			    k != (long long)a->bytes)
				return fail(c, a->line, "the row loop walks '%s' "
					    "with a stride, not contiguously",
					    ar->name);
		} else if ((a->flags & KS_ACC_STORE) &&
			   !(a->flags & KS_ACC_ATOMIC)) {
			return fail(c, a->line, "the row loop stores to the "
				    "same element of '%s' in every iteration",
				    ar->name);
		}
	}
	return 0;
}

/* Kernel-wide conditions from the facts. */
static int
check_kernel(struct cx *c)
{
	const struct ks_facts *f = c->f;
	const struct ks_kernel *k = c->k;

	if (k->is_template)
		return fail(c, 0, "a template kernel: the transforms read one "
			       "instance's plain copy (its instance view)");
	if (f->incomplete)
		return fail(c, 0, "the analysis did not understand every "
			    "construct of the kernel");
	if (f->shared_decls || f->inline_asm)
		return fail(c, 0, "the kernel already uses shared memory or "
			    "inline assembly");
	for (size_t i = 0; i < f->ncalls; i++) {
		const struct ks_call *cl = &f->calls[i];

		if (cl->kind == KS_CALL_SYNC || cl->kind == KS_CALL_WARP ||
		    cl->kind == KS_CALL_TENSOR)
			return fail(c, cl->line, "the kernel already cooperates "
				    "(%s)", cl->name);
		if (cl->kind == KS_CALL_DEVICE)
			return fail(c, cl->line, "the kernel calls the __device__ "
				    "function '%s', whose thread indices would "
				    "not follow the rows' geometry", cl->name);
	}
	for (size_t i = 0; i < k->nparams; i++)
		if (!k->params[i].name[0])
			return fail(c, 0, "a parameter has no name");
	/* a load of what the kernel stores at another offset: another
	 * thread's row (a dependency across rows) */
	for (size_t i = 0; i < f->nacc; i++) {
		const struct ks_access *a = &f->acc[i];
		int stored = 0, same = 0;

		if (!(a->flags & KS_ACC_LOAD) || (a->flags & KS_ACC_STORE) ||
		    !is_global(f, a))
			continue;
		for (size_t j = 0; j < f->nacc; j++) {
			const struct ks_access *s = &f->acc[j];

			if (s->array != a->array ||
			    !(s->flags & (KS_ACC_STORE | KS_ACC_ATOMIC)))
				continue;
			stored = 1;
			if (ks_form_equal(&s->offset, &a->offset))
				same = 1;
		}
		if (stored && !same)
			return fail(c, a->line, "the kernel reads '%s', which it "
				    "also writes at other offsets (a dependency "
				    "across rows)", f->arrays[a->array].name);
	}
	return 0;
}

/* A store outside the row loops runs on one thread of the row; a load of
 * the same array by the others would not see it. */
static int
check_readback(struct cx *c)
{
	const struct ks_facts *f = c->f;

	for (size_t i = 0; i < f->nacc; i++) {
		const struct ks_access *s = &f->acc[i];

		if (!(s->flags & (KS_ACC_STORE | KS_ACC_ATOMIC)) ||
		    !is_global(f, s) || (s->loop >= 0 && walks_row(c, s->loop)))
			continue;
		for (size_t j = 0; j < f->nacc; j++) {
			const struct ks_access *a = &f->acc[j];

			/* y[row] += v: the load is in the same guarded
			 * statement, on the same thread */
			if (a->array == s->array && (a->flags & KS_ACC_LOAD) &&
			    a != s && !(a->flags & KS_ACC_ATOMIC) &&
			    !(a->line == s->line && a->loop == s->loop))
				return fail(c, a->line, "the kernel reads back "
					    "'%s', which one thread of the row "
					    "writes", f->arrays[a->array].name);
		}
	}
	return 0;
}

/* ---- emission ---- */

static const char *const builtins[][2] = {
	{ "threadIdx", "ks_tid" }, { "blockIdx", "ks_bid" },
	{ "blockDim", "ks_bdim" }, { "gridDim", "ks_gdim" },
};

/* Append user text; inside a generated block its newlines are marked, so
 * that indent() indents only the generated lines. */
static void
add_user(struct cx *c, const char *p, size_t n)
{
	if (!c->mark) {
		ks_buf_add(c->out, p, n);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		ks_buf_addch(c->out, p[i] == '\n' ? '\1' : p[i]);
		for (int d = 0; p[i] == '\n' && d < c->rc.deep; d++)
			ks_buf_addch(c->out, '\t');
	}
}

/* Append generated text `g` to `out`, each of its lines (but the first,
 * and preprocessor lines) after `ind`; marked user newlines unchanged. */
static void
indent(struct ks_buf *out, const struct ks_buf *g, const char *ind)
{
	for (size_t i = 0; i < g->len; i++) {
		if (g->buf[i] == '\1') {
			/* one level deeper: inside the generated block */
			ks_buf_adds(out, "\n\t");
			continue;
		}
		ks_buf_addch(out, g->buf[i]);
		if (g->buf[i] == '\n' && i + 1 < g->len && g->buf[i + 1] != '#')
			ks_buf_adds(out, ind);
	}
}

/* The whitespace before token i on its line ("" if code precedes it). */
static void
indent_of(const struct cx *c, int i, char *ind, size_t size)
{
	size_t b = c->tk[i].b, n = 0;

	while (b > 0 && (c->t[b - 1] == ' ' || c->t[b - 1] == '\t'))
		b--;
	if (b > 0 && c->t[b - 1] != '\n')
		b = c->tk[i].b;
	while (b + n < c->tk[i].b && n + 1 < size) {
		ind[n] = c->t[b + n];
		n++;
	}
	ind[n] = 0;
}

/* Tokens [b, e) with the gaps between them; `var` (a token, or -1)
 * renamed to `repl`; the thread built-ins renamed to the virtual ones. */
/* The end of a read of the cached array that starts at token i, or -1. */
static int
cached_read(const struct cx *c, int i)
{
	for (int j = 0; j < c->rc.nrep; j++)
		if (c->rc.rep[2 * j] == i)
			return c->rc.rep[2 * j + 1];
	return -1;
}

static void
copy_sub(struct cx *c, int b, int e, int var, const char *repl)
{
	for (int i = b; i < e; i++) {
		const struct tok *k = &c->tk[i];
		const char *r = NULL;
		int end;

		if (i > b)
			add_user(c, c->t + c->tk[i - 1].e, k->b - c->tk[i - 1].e);
		if (c->rc.body && (end = cached_read(c, i)) > i && end <= e) {
			/* the cached array's element of this pass's iteration */
			ks_buf_adds(c->out, "ks_rc[ks_t]");
			i = end - 1;
			continue;
		}
		if (k->kind == TK_ID) {
			if (var >= 0 && same_tok(c, i, var))
				r = repl;
			for (size_t j = 0; !r && j < KS_ARRAY_SIZE(builtins); j++)
				if (is(c, i, builtins[j][0]))
					r = builtins[j][1];
		}
		if (r)
			ks_buf_adds(c->out, r);
		else
			add_user(c, c->t + k->b, k->e - k->b);
	}
}

static void
copy(struct cx *c, int b, int e)
{
	copy_sub(c, b, e, -1, NULL);
}

/* The whitespace and comments before token i. */
static void
gap(struct cx *c, int i)
{
	if (i > 0 && i < c->ntk)
		add_user(c, c->t + c->tk[i - 1].e, c->tk[i].b - c->tk[i - 1].e);
}

/* Token i as it is written. */
static void
name(struct cx *c, int i)
{
	add_user(c, c->t + c->tk[i].b, c->tk[i].e - c->tk[i].b);
}

static const char *const not_types[] = {
	"return", "else", "goto", "case", "sizeof", "new", "delete", "throw",
	"co_return", "typedef", "using",
};

/* Is token i a name declared at that point (`T x =`, `T *x;`)? */
static int
declares(const struct cx *c, int i)
{
	int p = i - 1;

	if (!is_id(c, i))
		return 0;
	while (p >= 0 && (is(c, p, "*") || is(c, p, "&") ||
			  is(c, p, "__restrict__") || is(c, p, "const")))
		p--;
	if (p == i - 1 && !is_id(c, p))
		return 0;
	if (!is_id(c, p) && !is(c, p, ">"))
		return 0;
	for (size_t k = 0; k < KS_ARRAY_SIZE(not_types); k++)
		if (is(c, p, not_types[k]))
			return 0;
	return is(c, i + 1, "=") || is(c, i + 1, ";") || is(c, i + 1, ",") ||
	       is(c, i + 1, "[") || is(c, i + 1, "{") || is(c, i + 1, "(");
}

/* Is the name at token n declared inside tokens [b, e)? */
static int
local_in(const struct cx *c, int n, int b, int e)
{
	for (int i = b; i < e; i++)
		if (same_tok(c, i, n) && declares(c, i))
			return 1;
	return 0;
}

static int
is_assign(const struct cx *c, int i)
{
	static const char *const ops[] = {
		"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=",
		">>=", "++", "--",
	};

	for (size_t k = 0; k < KS_ARRAY_SIZE(ops); k++)
		if (is(c, i, ops[k]))
			return 1;
	return 0;
}

/* The first variable outside [lb, le) that tokens [b, e) assign, or -1. */
static int
assigns_outer(const struct cx *c, int b, int e, int lb, int le)
{
	for (int i = b; i < e; i++) {
		int j = i + 1;

		if (!is_id(c, i) || is(c, i - 1, ".") || is(c, i - 1, "->") ||
		    is(c, i - 1, "::"))
			continue;
		/* a member of a variable (s.x += v) changes the variable */
		while (is(c, j, ".") && is_id(c, j + 1))
			j += 2;
		if (!is_assign(c, j) && !is(c, i - 1, "++") &&
		    !is(c, i - 1, "--"))
			continue;
		if (declares(c, i) || local_in(c, i, lb, le))
			continue;
		return i;
	}
	return -1;
}

static int
find_in(const struct cx *c, int b, int e, int name)
{
	for (int i = b; i < e; i++)
		if (is_id(c, i) && same_tok(c, i, name) && !is(c, i - 1, ".") &&
		    !is(c, i - 1, "->"))
			return i;
	return -1;
}

static const char *const minmax_fns[] = {
	"fmaxf", "fminf", "fmax", "fmin", "max", "min", "__hmax", "__hmin",
};

/* Bind statement s of a row loop's body as an accumulation, or 0. */
static int
bind_accum(struct cx *c, int s, struct accum *a)
{
	const struct stmt *st = &c->st[s];
	int b = st->b, e = st->e;

	memset(a, 0, sizeof(*a));
	a->stmt = s;
	a->idx = -1;
	if (st->k == S_SIMPLE && is_id(c, b) &&
	    (is(c, b + 1, "+=") || is(c, b + 1, "-=") || is(c, b + 1, "*="))) {
		a->id = b;
		a->op = is(c, b + 1, "+=") ? A_SUM :
			is(c, b + 1, "-=") ? A_SUB : A_PROD;
		a->eb = b + 2;
		a->ee = e - 1;
		return 1;
	}
	if (st->k == S_SIMPLE && is_id(c, b) && is(c, b + 1, "=") &&
	    is_id(c, b + 2) && is(c, b + 3, "(") && match(c, b + 3, e) == e - 2) {
		int comma = -1, depth = 0;
		size_t k;

		for (k = 0; k < KS_ARRAY_SIZE(minmax_fns); k++)
			if (is(c, b + 2, minmax_fns[k]))
				break;
		if (k == KS_ARRAY_SIZE(minmax_fns))
			return 0;
		for (int i = b + 4; i < e - 2; i++) {
			if (is(c, i, "(") || is(c, i, "[") || is(c, i, "{"))
				depth++;
			else if (is(c, i, ")") || is(c, i, "]") || is(c, i, "}"))
				depth--;
			else if (!depth && is(c, i, ","))
				comma = comma < 0 ? i : -2;
		}
		if (comma < 0)
			return 0;
		a->id = b;
		a->op = A_MINMAX;
		a->fn = b + 2;
		if (comma == b + 5 && same_tok(c, b + 4, b)) {
			a->eb = comma + 1;
			a->ee = e - 2;
		} else if (comma == e - 4 && same_tok(c, e - 3, b)) {
			a->eb = b + 4;
			a->ee = comma;
		} else {
			return 0;
		}
		return 1;
	}
	if (st->k == S_IF && st->else_tok < 0) {
		int cmp = -1, depth = 0, left, best;
		const struct stmt *th = &c->st[st->kid[0]];
		const int *as;
		int nas;

		for (int i = st->cb; i < st->ce; i++) {
			if (is(c, i, "(") || is(c, i, "["))
				depth++;
			else if (is(c, i, ")") || is(c, i, "]"))
				depth--;
			else if (!depth && (is(c, i, "<") || is(c, i, ">") ||
					    is(c, i, "<=") || is(c, i, ">=")))
				cmp = cmp == -1 ? i : -2;
			else if (!depth && (is(c, i, "&&") || is(c, i, "||") ||
					    is(c, i, "?")))
				return 0;
		}
		if (cmp < 0)
			return 0;
		if (cmp == st->ce - 2 && is_id(c, st->ce - 1)) {
			left = 1;	/* e cmp id */
			a->id = st->ce - 1;
			a->eb = st->cb;
			a->ee = cmp;
		} else if (cmp == st->cb + 1 && is_id(c, st->cb)) {
			left = 0;
			a->id = st->cb;
			a->eb = cmp + 1;
			a->ee = st->ce;
		} else {
			return 0;
		}
		if (th->k == S_BLOCK) {
			as = th->kid;
			nas = th->nkid;
		} else {
			as = &st->kid[0];
			nas = 1;
		}
		if (nas < 1 || nas > 2)
			return 0;
		best = 0;
		for (int i = 0; i < nas; i++) {
			const struct stmt *x = &c->st[as[i]];

			if (x->k != S_SIMPLE || !is_id(c, x->b) ||
			    !is(c, x->b + 1, "="))
				return 0;
			if (same_tok(c, x->b, a->id)) {
				if (!same_range(c, x->b + 2, x->e - 1, a->eb, a->ee))
					return 0;
				best = 1;
			} else if (x->e - x->b == 4 && a->idx < 0) {
				a->idx = x->b;	/* idx = j: bound by the caller */
			} else {
				return 0;
			}
		}
		if (!best || (nas == 2 && a->idx < 0))
			return 0;
		a->op = A_SELECT;
		a->cmp = cmp;
		a->cand_left = left;
		return 1;
	}
	return 0;
}

/* "decltype(x)" */
static void
type_of(struct cx *c, int i)
{
	ks_buf_adds(c->out, "decltype(");
	name(c, i);
	ks_buf_adds(c->out, ")");
}

/* `x = combine(x, y)` for accumulation a, with y given as text. */
static void
combine(struct cx *c, const struct accum *a, const char *y)
{
	switch (a->op) {
	case A_SUM:
	case A_SUB:
		name(c, a->id);
		ks_buf_addf(c->out, " += %s;", y);
		break;
	case A_PROD:
		name(c, a->id);
		ks_buf_addf(c->out, " *= %s;", y);
		break;
	case A_MINMAX:
		name(c, a->id);
		ks_buf_adds(c->out, " = ");
		name(c, a->fn);
		ks_buf_adds(c->out, "(");
		name(c, a->id);
		ks_buf_addf(c->out, ", %s);", y);
		break;
	case A_SELECT:
		break;
	}
}

/* The select step: take (ks_ov, ks_oi) when the kernel's comparison
 * prefers it, or on a tie when its index comes first (strict comparison)
 * or last (non-strict). */
static void
select_step(struct cx *c, const struct accum *a)
{
	int strict = is(c, a->cmp, "<") || is(c, a->cmp, ">");
	char op[3] = { c->t[c->tk[a->cmp].b], 0, 0 };

	ks_buf_adds(c->out, "if ((");
	if (a->cand_left) {
		ks_buf_addf(c->out, "ks_ov %s ", op);
		name(c, a->id);
	} else {
		name(c, a->id);
		ks_buf_addf(c->out, " %s ks_ov", op);
	}
	ks_buf_adds(c->out, ")");
	if (a->idx >= 0) {
		ks_buf_adds(c->out, " || (ks_ov == ");
		name(c, a->id);
		ks_buf_addf(c->out, " && ks_oi %s ", strict ? "<" : ">");
		name(c, a->idx);
		ks_buf_adds(c->out, ")");
	}
	ks_buf_adds(c->out, ") { ");
	name(c, a->id);
	ks_buf_adds(c->out, " = ks_ov;");
	if (a->idx >= 0) {
		ks_buf_adds(c->out, " ");
		name(c, a->idx);
		ks_buf_adds(c->out, " = ks_oi;");
	}
	ks_buf_adds(c->out, " }");
}

/* Combine every thread's value of a across the T threads of the row. */
static void
allreduce(struct cx *c, const struct accum *a, const char *ind)
{
	struct ks_buf *o = c->out;
	int w = c->T < 32 ? c->T : 32;

	ks_buf_addf(o, "%sfor (int ks_o = %d; ks_o > 0; ks_o >>= 1) {\n", ind,
		    w / 2);
	if (a->op == A_SELECT) {
		ks_buf_addf(o, "%s\t", ind);
		type_of(c, a->id);
		ks_buf_adds(o, " ks_ov = __shfl_xor_sync(0xffffffffu, ");
		name(c, a->id);
		ks_buf_adds(o, ", ks_o);\n");
		if (a->idx >= 0) {
			ks_buf_addf(o, "%s\t", ind);
			type_of(c, a->idx);
			ks_buf_adds(o, " ks_oi = __shfl_xor_sync(0xffffffffu, ");
			name(c, a->idx);
			ks_buf_adds(o, ", ks_o);\n");
		}
		ks_buf_addf(o, "%s\t", ind);
		select_step(c, a);
		ks_buf_adds(o, "\n");
	} else {
		struct ks_buf y = KS_BUF_INIT;
		struct ks_buf *save = c->out;

		c->out = &y;
		ks_buf_adds(&y, "__shfl_xor_sync(0xffffffffu, ");
		name(c, a->id);
		ks_buf_adds(&y, ", ks_o)");
		c->out = save;
		ks_buf_addf(o, "%s\t", ind);
		combine(c, a, y.buf);
		ks_buf_adds(o, "\n");
		ks_buf_release(&y);
	}
	ks_buf_addf(o, "%s}\n", ind);
	if (c->T <= 32)
		return;
	/* across the warps of the block (one row per block) */
	ks_buf_addf(o, "%s{\n%s\t__shared__ ", ind, ind);
	type_of(c, a->id);
	ks_buf_addf(o, " ks_sv[%d];\n", c->T / 32);
	if (a->idx >= 0) {
		ks_buf_addf(o, "%s\t__shared__ ", ind);
		type_of(c, a->idx);
		ks_buf_addf(o, " ks_si[%d];\n", c->T / 32);
	}
	ks_buf_addf(o, "%s\tif ((ks_lane & 31) == 0) {\n%s\t\tks_sv[ks_lane >> 5] = ",
		    ind, ind);
	name(c, a->id);
	ks_buf_adds(o, ";\n");
	if (a->idx >= 0) {
		ks_buf_addf(o, "%s\t\tks_si[ks_lane >> 5] = ", ind);
		name(c, a->idx);
		ks_buf_adds(o, ";\n");
	}
	ks_buf_addf(o, "%s\t}\n%s\t__syncthreads();\n%s\t", ind, ind, ind);
	name(c, a->id);
	ks_buf_adds(o, " = ks_sv[0];\n");
	if (a->idx >= 0) {
		ks_buf_addf(o, "%s\t", ind);
		name(c, a->idx);
		ks_buf_adds(o, " = ks_si[0];\n");
	}
	ks_buf_addf(o, "%s\tfor (int ks_w = 1; ks_w < %d; ks_w++) {\n", ind,
		    c->T / 32);
	if (a->op == A_SELECT) {
		ks_buf_addf(o, "%s\t\t", ind);
		type_of(c, a->id);
		ks_buf_adds(o, " ks_ov = ks_sv[ks_w];\n");
		if (a->idx >= 0) {
			ks_buf_addf(o, "%s\t\t", ind);
			type_of(c, a->idx);
			ks_buf_adds(o, " ks_oi = ks_si[ks_w];\n");
		}
		ks_buf_addf(o, "%s\t\t", ind);
		select_step(c, a);
		ks_buf_adds(o, "\n");
	} else {
		ks_buf_addf(o, "%s\t\t", ind);
		combine(c, a, "ks_sv[ks_w]");
		ks_buf_adds(o, "\n");
	}
	ks_buf_addf(o, "%s\t}\n%s\t__syncthreads();\n%s}\n", ind, ind, ind);
}

struct loopdesc {
	int s;			/* the for statement */
	int var;		/* token of the variable */
	int tb, te;		/* its type */
	int ib, ie;		/* its initial value */
	const int *body;	/* top-level statements of the body */
	int nbody;
	int bb, be;		/* the body's tokens */
};

static int
read_header(struct cx *c, int s, struct loopdesc *d)
{
	const struct stmt *st = &c->st[s];
	const struct stmt *body = &c->st[st->kid[0]];
	unsigned line = c->tk[st->b].line;
	int eq = -1, v;

	memset(d, 0, sizeof(*d));
	d->s = s;
	for (int i = st->ib; i < st->ie; i++)
		if (is(c, i, "=")) {
			eq = i;
			break;
		}
	if (eq < 0 || eq - 1 <= st->ib || !is_id(c, eq - 1))
		return fail(c, line, "the row loop does not declare its "
			    "variable");
	for (int i = st->ib; i < st->ie; i++)
		if (is(c, i, ","))
			return fail(c, line, "the row loop declares several "
				    "variables");
	v = d->var = eq - 1;
	d->tb = st->ib;
	d->te = v;
	d->ib = eq + 1;
	d->ie = st->ie;
	if (!(same_tok(c, st->cb, v) && (is(c, st->cb + 1, "<") ||
					 is(c, st->cb + 1, "<=")) &&
	      find_in(c, st->cb + 2, st->ce, v) < 0))
		return fail(c, line, "the row loop's condition is not "
			    "'variable < bound'");
	if (!((st->ne - st->nb == 2 && ((same_tok(c, st->nb, v) &&
					  is(c, st->nb + 1, "++")) ||
					 (is(c, st->nb, "++") &&
					  same_tok(c, st->nb + 1, v)))) ||
	      (st->ne - st->nb == 3 && same_tok(c, st->nb, v) &&
	       is(c, st->nb + 1, "+=") && is(c, st->nb + 2, "1"))))
		return fail(c, line, "the row loop does not step by +1");
	if (body->k == S_BLOCK) {
		d->body = body->kid;
		d->nbody = body->nkid;
	} else {
		d->body = &st->kid[0];
		d->nbody = 1;
	}
	d->bb = body->b;
	d->be = body->e;
	for (int i = d->bb; i < d->be; i++)
		if (is(c, i, "break") || is(c, i, "return") || is(c, i, "goto"))
			return fail(c, c->tk[i].line, "the row loop leaves early");
	return 0;
}

static void emit(struct cx *c, int s);

/* Copy the body statements [from, to) of d, each after its gap. */
static void
copy_body(struct cx *c, const struct loopdesc *d, int from, int to,
	  const char *ind)
{
	for (int i = from; i < to; i++) {
		const struct stmt *x = &c->st[d->body[i]];

		ks_buf_adds(c->out, ind);
		copy(c, x->b, x->e);
		ks_buf_adds(c->out, "\n");
	}
}

static void
emit_scan(struct cx *c, const struct loopdesc *d, const struct accum *a,
	  int at)
{
	struct ks_buf *o = c->out;
	const struct stmt *st = &c->st[d->s];
	const char *sign = a->op == A_SUB ? "-" : "+";
	int U = c->unroll;

	ks_buf_adds(o, "{\n\t");
	type_of(c, a->id);
	ks_buf_adds(o, " ks_carry = ");
	name(c, a->id);
	ks_buf_adds(o, ";\n\tfor (");
	copy(c, d->tb, d->te);
	ks_buf_adds(o, " ks_b = (");
	copy(c, d->ib, d->ie);
	ks_buf_adds(o, "); ");
	copy_sub(c, st->cb, st->ce, d->var, "ks_b");
	ks_buf_addf(o, "; ks_b += %d) {\n\t\t", 32 * U);
	type_of(c, a->id);
	ks_buf_addf(o, " ks_v[%d];\n#pragma unroll\n\t\tfor (int ks_u = 0; "
		    "ks_u < %d; ks_u++) {\n\t\t\t", U, U);
	copy(c, d->tb, d->te);
	ks_buf_adds(o, " ");
	name(c, d->var);
	ks_buf_adds(o, " = ks_b + ks_u * 32 + (int)ks_lane;\n\t\t\tks_v[ks_u] = (");
	copy(c, st->cb, st->ce);
	ks_buf_adds(o, ") ? (");
	type_of(c, a->id);
	ks_buf_adds(o, ")(");
	copy(c, a->eb, a->ee);
	ks_buf_adds(o, ") : (");
	type_of(c, a->id);
	ks_buf_addf(o, ")0;\n\t\t}\n#pragma unroll\n\t\tfor (int ks_u = 0; "
		    "ks_u < %d; ks_u++) {\n\t\t\t", U);
	copy(c, d->tb, d->te);
	ks_buf_adds(o, " ");
	name(c, d->var);
	ks_buf_adds(o, " = ks_b + ks_u * 32 + (int)ks_lane;\n\t\t\t");
	type_of(c, a->id);
	ks_buf_adds(o, " ks_in = ks_v[ks_u];\n\t\t\tfor (int ks_o = 1; ks_o < 32; "
		    "ks_o <<= 1) {\n\t\t\t\t");
	type_of(c, a->id);
	ks_buf_adds(o, " ks_t = __shfl_up_sync(0xffffffffu, ks_in, ks_o);\n"
		    "\t\t\t\tif ((int)ks_lane >= ks_o)\n\t\t\t\t\tks_in += ks_t;\n"
		    "\t\t\t}\n");
	if (at > 0) {
		ks_buf_adds(o, "\t\t\t");
		type_of(c, a->id);
		ks_buf_adds(o, " ks_ex = __shfl_up_sync(0xffffffffu, ks_in, 1);\n"
			    "\t\t\tif (ks_lane == 0)\n\t\t\t\tks_ex = 0;\n");
	}
	ks_buf_adds(o, "\t\t\tif (");
	copy(c, st->cb, st->ce);
	ks_buf_adds(o, ") {\n");
	if (at > 0) {
		ks_buf_adds(o, "\t\t\t\t");
		name(c, a->id);
		ks_buf_addf(o, " = ks_carry %s ks_ex;\n", sign);
		copy_body(c, d, 0, at, "\t\t\t\t");
	}
	ks_buf_adds(o, "\t\t\t\t");
	name(c, a->id);
	ks_buf_addf(o, " = ks_carry %s ks_in;\n", sign);
	copy_body(c, d, at + 1, d->nbody, "\t\t\t\t");
	ks_buf_addf(o, "\t\t\t}\n\t\t\tks_carry %s= __shfl_sync(0xffffffffu, "
		    "ks_in, 31);\n\t\t}\n\t}\n\t", sign);
	name(c, a->id);
	ks_buf_adds(o, " = ks_carry;\n}");
}

/* A row loop dealt among the T threads, or (cached) walking the row
 * cache's registers: element (int)ks_lane + 32 * ks_t of the row in
 * ks_rc[ks_t], under the pass's own first element and bound. */
static void
emit_row_loop(struct cx *c, int s, int cached)
{
	struct ks_buf *o = c->out;
	const struct stmt *st = &c->st[s];
	struct loopdesc d;
	struct accum acc[MAX_ACC];
	int nacc = 0, scan = -1;
	unsigned line = c->tk[st->b].line;

	if (check_row_loop(c, st->loop) || read_header(c, s, &d))
		return;
	for (int i = 0; i < d.nbody; i++) {
		struct accum a;
		int w;
		const struct stmt *x = &c->st[d.body[i]];

		if (bind_accum(c, d.body[i], &a) &&
		    !local_in(c, a.id, d.bb, d.be) && !same_tok(c, a.id, d.var)) {
			if (a.idx >= 0) {
				const struct stmt *th = &c->st[c->st[a.stmt].kid[0]];
				int ok = 0;

				for (int j = 0; j < th->nkid; j++) {
					const struct stmt *y = &c->st[th->kid[j]];

					if (y->b == a.idx)
						ok = same_tok(c, y->b + 2, d.var);
				}
				if (!ok || local_in(c, a.idx, d.bb, d.be)) {
					fail(c, x->b < c->ntk ? c->tk[x->b].line : line,
					     "the arg-max does not record the "
					     "loop's variable");
					return;
				}
			}
			if (nacc == MAX_ACC) {
				fail(c, line, "the row loop carries too many "
				     "values");
				return;
			}
			for (int j = 0; j < nacc; j++)
				if (same_tok(c, acc[j].id, a.id) &&
				    (acc[j].op != a.op || a.op == A_SELECT)) {
					fail(c, c->tk[x->b].line, "the row loop "
					     "folds '%s' in two ways",
					     tok_str(c, a.id));
					return;
				}
			acc[nacc++] = a;
			continue;
		}
		if ((w = assigns_outer(c, x->b, x->e, d.bb, d.be)) >= 0) {
			if (same_tok(c, w, d.var))
				fail(c, c->tk[w].line, "the row loop changes its "
				     "variable");
			else
				fail(c, c->tk[w].line, "the row loop carries "
				     "'%s' from one element to the next, which is "
				     "not a sum, product, min, max or arg-max "
				     "(a dependency along the row)", tok_str(c, w));
			return;
		}
	}
	/* a loop that reads what it accumulates: a scan, if a running sum */
	for (int j = 0; j < nacc; j++)
		for (int i = 0; i < d.nbody; i++) {
			const struct stmt *x = &c->st[d.body[i]];
			int r;

			if (d.body[i] == acc[j].stmt)
				r = find_in(c, acc[j].eb, acc[j].ee, acc[j].id);
			else
				r = find_in(c, x->b, x->e, acc[j].id);
			if (r < 0)
				continue;
			if (r >= acc[j].eb && r < acc[j].ee) {
				fail(c, c->tk[r].line, "the row loop folds its "
				     "running value into itself");
				return;
			}
			if (nacc != 1 || (acc[j].op != A_SUM && acc[j].op != A_SUB)) {
				fail(c, c->tk[r].line, "the row loop reads a "
				     "running value other than one running sum");
				return;
			}
			scan = j;
		}
	if (scan >= 0) {
		int at = -1;

		if (c->T != 32 || c->rpb > 32) {
			fail(c, line, "a row scan is emitted for threads=32 only");
			return;
		}
		for (int i = 0; i < d.nbody; i++)
			if (d.body[i] == acc[scan].stmt)
				at = i;
		for (int i = d.bb; i < d.be; i++)
			if (is(c, i, "continue")) {
				fail(c, c->tk[i].line, "the row scan skips elements "
				     "(continue)");
				return;
			}
		for (int i = acc[scan].eb; i < acc[scan].ee; i++)
			if (is_id(c, i) && local_in(c, i, d.bb, d.be)) {
				fail(c, c->tk[i].line, "the scanned value depends "
				     "on a variable of the loop's body");
				return;
			}
		c->col_loops++;
		c->scans++;
		emit_scan(c, &d, &acc[scan], at);
		return;
	}
	c->col_loops++;
	ks_buf_adds(o, "{\n");
	for (int j = 0; j < nacc; j++) {
		int dup = 0;

		if (acc[j].op != A_SUM && acc[j].op != A_SUB &&
		    acc[j].op != A_PROD)
			continue;
		for (int i = 0; i < j; i++)
			dup |= same_tok(c, acc[i].id, acc[j].id);
		if (dup)
			continue;
		ks_buf_adds(o, "\t");
		type_of(c, acc[j].id);
		ks_buf_addf(o, " ks_r%d = ", j);
		name(c, acc[j].id);
		ks_buf_adds(o, ";\n\t");
		name(c, acc[j].id);
		ks_buf_adds(o, " = (");
		type_of(c, acc[j].id);
		ks_buf_addf(o, ")%d;\n", acc[j].op == A_PROD ? 1 : 0);
	}
	if (cached) {
		long long k0;

		ks_buf_addf(o, "#pragma unroll\n\tfor (int ks_t = 0; ks_t < %d; "
			    "ks_t++) {\n\t\t", c->K);
		copy(c, d.tb, d.te);
		gap(c, d.var);
		name(c, d.var);
		ks_buf_adds(o, " = (int)ks_lane + 32 * ks_t;\n\t\tif (");
		if (!ks_form_is_const(&c->f->loops[st->loop].init, &k0) ||
		    k0 != 0) {
			name(c, d.var);
			ks_buf_adds(o, " >= (");
			copy(c, d.ib, d.ie);
			ks_buf_adds(o, ") && ");
		}
		copy(c, st->cb, st->ce);
		ks_buf_adds(o, ")");
		c->rc.body = 1;
		c->rc.deep = 1;
		gap(c, d.bb);
		copy(c, d.bb, d.be);
		c->rc.body = 0;
		c->rc.deep = 0;
		ks_buf_adds(o, "\n\t}\n");
	} else {
		if (c->unroll > 1)
			ks_buf_addf(o, "#pragma unroll %d\n", c->unroll);
		ks_buf_adds(o, "\tfor (");
		copy(c, d.tb, d.te);
		gap(c, d.var);
		name(c, d.var);
		ks_buf_adds(o, " = (");
		copy(c, d.ib, d.ie);
		ks_buf_adds(o, ") + (int)ks_lane; ");
		copy(c, st->cb, st->ce);
		ks_buf_adds(o, "; ");
		name(c, d.var);
		ks_buf_addf(o, " += %d)", c->T);
		gap(c, d.bb);
		copy(c, d.bb, d.be);
		ks_buf_adds(o, "\n");
	}
	for (int j = 0; j < nacc; j++) {
		int dup = 0;

		for (int i = 0; i < j; i++)
			dup |= same_tok(c, acc[i].id, acc[j].id);
		if (dup)
			continue;
		allreduce(c, &acc[j], "\t");
		if (acc[j].op == A_SUM || acc[j].op == A_SUB ||
		    acc[j].op == A_PROD) {
			ks_buf_adds(o, "\t");
			name(c, acc[j].id);
			ks_buf_addf(o, " = ks_r%d %s ", j,
				    acc[j].op == A_PROD ? "*" : "+");
			name(c, acc[j].id);
			ks_buf_adds(o, ";\n");
		}
	}
	ks_buf_adds(o, "}");
}

static int
has_loop_inside(const struct cx *c, int s)
{
	const struct stmt *st = &c->st[s];

	if (st->k == S_FOR || st->k == S_WHILE || st->k == S_DO)
		return 1;
	for (int i = 0; i < st->nkid; i++)
		if (has_loop_inside(c, st->kid[i]))
			return 1;
	return 0;
}

/* Append generated text `g` one level deeper (its first line excepted). */
static void
deepen(struct ks_buf *out, const struct ks_buf *g)
{
	for (size_t i = 0; i < g->len; i++) {
		ks_buf_addch(out, g->buf[i]);
		if ((g->buf[i] == '\n' && i + 1 < g->len && g->buf[i + 1] != '#') ||
		    g->buf[i] == '\1')
			ks_buf_addch(out, '\t');
	}
}

static int
cached_pass(const struct cx *c, int s)
{
	for (int i = 0; i < c->rc.npass; i++)
		if (c->rc.pass[i] == s)
			return i;
	return -1;
}

/* Before the first cached pass: the registers, the run-time test of the
 * row's length, and the loads of the elements some pass reads. */
static void
emit_cache_load(struct cx *c)
{
	struct ks_buf *o = c->out;
	const struct stmt *st = &c->st[c->rc.pass[0]];
	struct loopdesc d;
	int le;

	if (read_header(c, c->rc.pass[0], &d))
		return;
	le = is(c, st->cb + 1, "<=");
	ks_buf_addf(o, "%s ks_rc[%d];\nconst bool ks_rc_on = (", c->rc.type,
		    c->K);
	copy(c, st->cb + 2, st->ce);
	ks_buf_addf(o, ") %s %d;\nif (ks_rc_on) {\n#pragma unroll\n\tfor (int "
		    "ks_t = 0; ks_t < %d; ks_t++) {\n\t\t", le ? "<" : "<=",
		    32 * c->K, c->K);
	copy(c, d.tb, d.te);
	gap(c, d.var);
	name(c, d.var);
	ks_buf_adds(o, " = (int)ks_lane + 32 * ks_t;\n\t\tks_rc[ks_t] = (");
	if (c->rc.min_init > 0) {
		name(c, d.var);
		ks_buf_addf(o, " >= %lld && ", c->rc.min_init);
	}
	copy(c, st->cb, st->ce);
	ks_buf_addf(o, ") ? (%s)(", c->rc.type);
	copy(c, c->rc.lb, c->rc.le);
	ks_buf_addf(o, ") : (%s)0;\n\t}\n}\n", c->rc.type);
}

/* A row loop, rewritten, indented as the loop was; a pass of the row
 * cache in both forms, the run-time test choosing. */
static void
emit_generated(struct cx *c, int s)
{
	struct ks_buf g = KS_BUF_INIT;
	struct ks_buf *save = c->out;
	char ind[64];
	int at = cached_pass(c, s);

	indent_of(c, c->st[s].b, ind, sizeof(ind));
	c->out = &g;
	c->mark = 1;
	if (at < 0) {
		emit_row_loop(c, s, 0);
	} else {
		struct ks_buf f = KS_BUF_INIT;

		if (at == 0)
			emit_cache_load(c);
		c->out = &f;
		emit_row_loop(c, s, 1);
		ks_buf_adds(&g, "if (ks_rc_on) {\n\t");
		deepen(&g, &f);
		ks_buf_reset(&f);
		emit_row_loop(c, s, 0);
		ks_buf_adds(&g, "\n} else {\n\t");
		deepen(&g, &f);
		ks_buf_adds(&g, "\n}");
		ks_buf_release(&f);
	}
	c->mark = 0;
	c->out = save;
	indent(c->out, &g, ind);
	ks_buf_release(&g);
}

static int
is_row_loop(const struct cx *c, int s)
{
	const struct stmt *st = &c->st[s];

	return (st->k == S_FOR || st->k == S_WHILE || st->k == S_DO) &&
	       st->loop < (int)c->f->nloops && walks_row(c, st->loop);
}

/* A statement at row level (outside the row loops). */
static void
emit(struct cx *c, int s)
{
	const struct stmt *st = &c->st[s];

	if (c->failed)
		return;
	switch (st->k) {
	case S_DIR:
	case S_EMPTY:
		copy(c, st->b, st->e);
		return;
	case S_BLOCK:
		copy(c, st->b, st->b + 1);
		for (int i = 0; i < st->nkid; i++) {
			const struct stmt *x = &c->st[st->kid[i]];

			gap(c, x->b);
			/* a pragma for a row loop, which is rewritten */
			if (x->k == S_DIR && i + 1 < st->nkid &&
			    is_row_loop(c, st->kid[i + 1]))
				continue;
			emit(c, st->kid[i]);
		}
		gap(c, st->e - 1);
		copy(c, st->e - 1, st->e);
		return;
	case S_IF:
		copy(c, st->b, c->st[st->kid[0]].b);
		gap(c, c->st[st->kid[0]].b);
		emit(c, st->kid[0]);
		if (st->else_tok >= 0) {
			gap(c, st->else_tok);
			copy(c, st->else_tok, st->else_tok + 1);
			gap(c, c->st[st->kid[1]].b);
			emit(c, st->kid[1]);
		}
		return;
	case S_WHILE:
	case S_DO:
	case S_FOR:
		if (st->loop >= (int)c->f->nloops) {
			fail(c, c->tk[st->b].line, "the loops of the text and "
			     "of the analysis disagree");
			return;
		}
		if (walks_row(c, st->loop)) {
			if (st->k != S_FOR) {
				fail(c, c->tk[st->b].line, "a while or do loop "
				     "walks the row");
				return;
			}
			emit_generated(c, s);
			return;
		}
		if (st->k == S_FOR && has_loop_inside(c, st->kid[0])) {
			/* a loop over rows (or passes): its body is row level */
			copy(c, st->b, c->st[st->kid[0]].b);
			gap(c, c->st[st->kid[0]].b);
			emit(c, st->kid[0]);
			return;
		}
		break;
	case S_SIMPLE:
		break;
	}
	/* a statement without row loops: once per row if it stores */
	if (stores_in_lines(c, c->tk[st->b].line, c->tk[st->e - 1].line)) {
		char ind[64];

		for (int i = st->b; i < st->e; i++)
			if (declares(c, i) && st->k == S_SIMPLE) {
				fail(c, c->tk[st->b].line, "a statement both "
				     "declares and stores");
				return;
			}
		indent_of(c, st->b, ind, sizeof(ind));
		ks_buf_addf(c->out, "if (ks_lane == 0) {\n%s\t", ind);
		copy(c, st->b, st->e);
		ks_buf_addf(c->out, "\n%s}", ind);
		return;
	}
	copy(c, st->b, st->e);
}

/* ---- the row cache ---- */

/* The token that begins (or, `end`, ends) at byte `at`, or -1. */
static int
tok_at(const struct cx *c, unsigned long at, int end)
{
	for (int i = 0; i < c->ntk; i++)
		if ((end ? c->tk[i].e : c->tk[i].b) == at)
			return i;
	return -1;
}

/* Is the name at token n assigned anywhere in the kernel (a declaration
 * with an initializer excepted)? */
static int
assigned(const struct cx *c, int n)
{
	for (int i = 0; i < c->ntk; i++) {
		if (!same_tok(c, i, n) || is(c, i - 1, ".") || is(c, i - 1, "->") ||
		    declares(c, i))
			continue;
		if (is_assign(c, i + 1) || is(c, i - 1, "++") || is(c, i - 1, "--") ||
		    is(c, i - 1, "&"))
			return 1;
	}
	return 0;
}

/* The top-level statement of row loop s's body that holds byte `at`, or
 * -1. */
static int
body_stmt_at(const struct cx *c, int s, unsigned long at)
{
	const struct stmt *body = &c->st[c->st[s].kid[0]];
	const int *kids = body->k == S_BLOCK ? body->kid : &c->st[s].kid[0];
	int n = body->k == S_BLOCK ? body->nkid : 1;

	for (int i = 0; i < n; i++) {
		const struct stmt *x = &c->st[kids[i]];

		if (c->tk[x->b].b <= at && at < c->tk[x->e - 1].e)
			return i;
	}
	return -1;
}

/* Top-level statement i of row loop s's body. */
static int
body_kid(const struct cx *c, int s, int i)
{
	const struct stmt *body = &c->st[c->st[s].kid[0]];

	return body->k == S_BLOCK ? body->kid[i] : c->st[s].kid[0];
}

/* The variable a for statement declares, or -1. */
static int
loop_var(const struct cx *c, int s)
{
	for (int i = c->st[s].ib; i < c->st[s].ie; i++)
		if (is(c, i, "="))
			return is_id(c, i - 1) ? i - 1 : -1;
	return -1;
}

static int
in_stmt(const struct cx *c, int s, unsigned long at)
{
	return c->tk[c->st[s].b].b <= at && at < c->tk[c->st[s].e - 1].e;
}

/*
 * Can passes p[0..np) (row loops, kids of one block, in order) read
 * `array` from the registers? Fills c->rc, or returns -1 with the reason
 * in `why`.
 */
static int
plan_array(struct cx *c, const int *p, int np, int array, struct ks_buf *why)
{
	const struct ks_facts *f = c->f;
	const char *nm = f->arrays[array].name;
	const struct ks_access *ref = NULL;
	struct ks_form ref_at;
	const struct stmt *s0 = &c->st[p[0]];
	unsigned long rb = c->tk[s0->b].b, re = c->tk[c->st[p[np - 1]].e - 1].e;
	int last_read = -1;

	for (size_t i = 0; i < f->nacc; i++)
		if (f->acc[i].array == array &&
		    (f->acc[i].flags & (KS_ACC_STORE | KS_ACC_ATOMIC))) {
			ks_buf_addf(why, "'%s' is also stored by the kernel", nm);
			return -1;
		}
	c->rc.nrep = 0;
	c->rc.min_init = -1;
	for (int k = 0; k < np; k++) {
		const struct stmt *st = &c->st[p[k]];
		const struct ks_loop *l = &f->loops[st->loop];
		long long init;

		if (!ks_form_is_const(&l->init, &init) || init < 0) {
			ks_buf_addf(why, "a pass over '%s' (line %u) does not start "
				    "at a constant element", nm, l->line);
			return -1;
		}
		if (c->rc.min_init < 0 || init < c->rc.min_init)
			c->rc.min_init = init;
		if (!same_range(c, st->cb + 1, st->ce, s0->cb + 1, s0->ce) ||
		    !ks_form_equal(&l->bound, &f->loops[s0->loop].bound)) {
			ks_buf_addf(why, "the passes over '%s' have different "
				    "bounds (lines %u and %u)", nm,
				    f->loops[s0->loop].line, l->line);
			return -1;
		}
		for (size_t i = 0; i < f->nacc; i++) {
			const struct ks_access *a = &f->acc[i];
			struct ks_form at;
			int tb, te;

			if (a->array != array || !in_loop(f, a->loop, st->loop))
				continue;
			/* the loop's source counts iterations from its first
			 * element: the offset at the element's index instead */
			ks_form_const(&at, init * (long long)a->bytes);
			ks_form_sub(&at, &a->offset, &at);
			if (a->loop != st->loop || !a->in_main || a->lanes != 1 ||
			    (a->flags & KS_ACC_VECTOR) ||
			    (ref && (!ks_form_equal(&at, &ref_at) ||
				     a->bytes != ref->bytes ||
				     a->scalar != ref->scalar))) {
				ks_buf_addf(why, "the passes read '%s' at different "
					    "offsets (line %u)", nm, a->line);
				return -1;
			}
			tb = tok_at(c, a->begin, 0);
			te = tok_at(c, a->end, 1);
			if (tb < 0 || te < tb || is(c, tb - 1, "&") ||
			    tb <= c->st[st->kid[0]].b - 1 ||
			    te >= c->st[st->kid[0]].e) {
				ks_buf_addf(why, "a read of '%s' (line %u) is not an "
					    "element the cache can stand for", nm,
					    a->line);
				return -1;
			}
			if (!ref) {
				ref = a;
				ref_at = at;
				c->rc.lb = tb;
				c->rc.le = te + 1;
			}
			c->rc.rep = ks_xrealloc(c->rc.rep, (size_t)(c->rc.nrep + 1) *
						2 * sizeof(int));
			c->rc.rep[2 * c->rc.nrep] = tb;
			c->rc.rep[2 * c->rc.nrep + 1] = te + 1;
			c->rc.nrep++;
			if (k == np - 1)
				last_read = body_stmt_at(c, p[k], a->begin);
		}
	}
	if (!ref) {
		ks_buf_addf(why, "the passes do not read '%s'", nm);
		return -1;
	}
	if (ref->scalar == KS_T_FLOAT && ref->bytes == 4) {
		c->rc.type = "float";
	} else if (ref->scalar == KS_T_DOUBLE && ref->bytes == 8) {
		c->rc.type = "double";
	} else {
		ks_buf_addf(why, "'%s' is not a float or double row", nm);
		return -1;
	}
	if (c->K * (int)ref->bytes / 4 > 64) {
		ks_buf_addf(why, "cache=%d of '%s' takes %d registers a lane "
			    "(more than 64)", c->K, nm, c->K * (int)ref->bytes / 4);
		return -1;
	}
	/* the loads go where the first pass is: what they name must mean
	 * there what it means in the first pass, and the bound must not
	 * change between the passes */
	for (int i = c->rc.lb; i < c->rc.le; i++)
		if (is_id(c, i) && (local_in(c, i, c->st[s0->kid[0]].b,
					     c->st[s0->kid[0]].e) ||
				    (!same_tok(c, i, loop_var(c, p[0])) &&
				     local_in(c, i, s0->b, c->st[p[np - 1]].e)))) {
			ks_buf_addf(why, "the read of '%s' (line %u) names a "
				    "variable of the passes", nm, ref->line);
			return -1;
		}
	for (int i = s0->cb + 2; i < s0->ce; i++)
		if (is_id(c, i) && (assigned(c, i) ||
				    local_in(c, i, s0->b, c->st[p[np - 1]].e))) {
			ks_buf_addf(why, "the bound of the passes over '%s' may "
				    "change between them", nm);
			return -1;
		}
	/*
	 * A store before the last read would not reach the registers where
	 * the arrays overlap (in place, element for element, as the dealt
	 * form allows): stores only in the last pass, at or after the
	 * statement of its last read, and in that statement only as the
	 * assignment's left side (its right side is read first).
	 */
	for (size_t i = 0; i < f->nacc; i++) {
		const struct ks_access *a = &f->acc[i];
		int at, tb, te, ok;

		if (!(a->flags & (KS_ACC_STORE | KS_ACC_ATOMIC)) ||
		    !is_global(f, a))
			continue;
		if (!a->in_main) {
			if (a->line < c->tk[s0->b].line ||
			    a->line > c->tk[c->st[p[np - 1]].e - 1].line)
				continue;
		} else if (a->begin < rb || a->begin >= re) {
			continue;
		}
		at = a->in_main && in_stmt(c, p[np - 1], a->begin) ?
			     body_stmt_at(c, p[np - 1], a->begin) : -1;
		ok = at >= 0 && at > last_read;
		if (at >= 0 && at == last_read && !(a->flags & KS_ACC_ATOMIC)) {
			const struct stmt *x = &c->st[body_kid(c, p[np - 1], at)];

			tb = tok_at(c, a->begin, 0);
			te = tok_at(c, a->end, 1);
			ok = x->k == S_SIMPLE && tb == x->b && te > tb &&
			     is_assign(c, te + 1) && !is(c, te + 1, "++") &&
			     !is(c, te + 1, "--");
		}
		if (!ok) {
			ks_buf_addf(why, "a store (line %u) comes before a read of "
				    "'%s' in the passes", a->line, nm);
			return -1;
		}
	}
	memcpy(c->rc.pass, p, (size_t)np * sizeof(int));
	c->rc.npass = np;
	c->rc.array = array;
	return 0;
}

/* Is row loop s one that reads `array` (anywhere in it)? */
static int
pass_reads(const struct cx *c, int s, int array, int direct)
{
	for (size_t i = 0; i < c->f->nacc; i++) {
		const struct ks_access *a = &c->f->acc[i];

		if (a->array == array && (a->flags & KS_ACC_LOAD) &&
		    (direct ? a->loop == c->st[s].loop :
			      in_loop(c->f, a->loop, c->st[s].loop)))
			return 1;
	}
	return 0;
}

/* The blocks emit() reaches at row level, in order: their row loops. */
static void
row_blocks(const struct cx *c, int s, int **blocks, int *n)
{
	const struct stmt *st = &c->st[s];

	switch (st->k) {
	case S_BLOCK:
		*blocks = ks_xrealloc(*blocks, (size_t)(*n + 1) * sizeof(int));
		(*blocks)[(*n)++] = s;
		for (int i = 0; i < st->nkid; i++)
			row_blocks(c, st->kid[i], blocks, n);
		return;
	case S_IF:
		for (int i = 0; i < st->nkid; i++)
			row_blocks(c, st->kid[i], blocks, n);
		return;
	case S_FOR:
		if (!walks_row(c, st->loop) && has_loop_inside(c, st->kid[0]))
			row_blocks(c, st->kid[0], blocks, n);
		return;
	default:
		return;
	}
}

/*
 * Choose the passes and the array of the row cache: the first block at
 * row level with two row loops that read one array at their variable
 * (the first such array that qualifies). Returns 0 with c->rc filled, or
 * -1 with the reason in `why`.
 */
static int
plan_cache(struct cx *c, int top, struct ks_buf *why)
{
	int *blocks = NULL, nb = 0, found = 0;

	row_blocks(c, top, &blocks, &nb);
	for (int b = 0; b < nb; b++) {
		const struct stmt *bl = &c->st[blocks[b]];

		for (size_t i = 0; i < c->f->nacc; i++) {
			const struct ks_access *a = &c->f->acc[i];
			int p[MAX_PASS], np = 0, direct = 0, seen = 0;
			struct ks_buf w = KS_BUF_INIT;

			if (!(a->flags & KS_ACC_LOAD) || !is_global(c->f, a))
				continue;
			for (size_t j = 0; j < i; j++)
				seen |= c->f->acc[j].array == a->array &&
					(c->f->acc[j].flags & KS_ACC_LOAD);
			if (seen)
				continue;
			for (int k = 0; k < bl->nkid; k++) {
				int s = bl->kid[k];

				if (c->st[s].k != S_FOR || !walks_row(c, c->st[s].loop) ||
				    !pass_reads(c, s, a->array, 0))
					continue;
				if (np == MAX_PASS)
					break;
				p[np++] = s;
				direct += pass_reads(c, s, a->array, 1);
			}
			if (direct < 2)
				continue;
			if (c->scans) {
				/* a scan's tile is not a pass of the cache */
				ks_buf_adds(why, "the kernel has a row scan");
				free(blocks);
				return -1;
			}
			if (!plan_array(c, p, np, a->array, &w)) {
				ks_buf_release(&w);
				free(blocks);
				c->rc.used = 1;
				return 0;
			}
			if (!found++)
				ks_buf_add(why, w.buf, w.len);
			ks_buf_release(&w);
		}
	}
	free(blocks);
	if (!found)
		ks_buf_adds(why, "no array of the row is read by two row loops");
	return -1;
}

/* The header's line on the row cache: what is held, or why nothing. */
static void
add_cache_note(const struct cx *c, struct ks_buf *v, int used,
	       const struct ks_buf *why)
{
	if (c->T != 32) {
		ks_buf_adds(v, "// row cache: none (a block per row)\n");
		return;
	}
	if (!c->K) {
		ks_buf_adds(v, "// row cache: off (cache=0)\n");
		return;
	}
	if (!used) {
		ks_buf_addf(v, "// row cache: not used: %s\n", why->buf);
		return;
	}
	ks_buf_addf(v, "// row cache: '%s' read by %d passes (lines",
		    c->f->arrays[c->rc.array].name, c->rc.npass);
	for (int i = 0; i < c->rc.npass; i++)
		ks_buf_addf(v, "%s %u", i ? "," : "",
			    c->tk[c->st[c->rc.pass[i]].b].line);
	ks_buf_addf(v, ") held in registers, %d %s values a lane, when the "
		    "row's bound is at most %d (the dealt form beyond)\n", c->K,
		    c->rc.type, 32 * c->K);
}

static void
free_stmts(struct cx *c)
{
	free(c->rc.rep);
	for (int i = 0; i < c->nst; i++)
		free(c->st[i].kid);
	free(c->st);
	free(c->tk);
}

static int
uses_tok(const struct cx *c, const char *s)
{
	for (int i = 0; i < c->ntk; i++)
		if (is(c, i, s) && !is(c, i - 1, ".") && !is(c, i - 1, "->"))
			return 1;
	return 0;
}

/* The definition's text before the name, without __launch_bounds__(...). */
static void
add_prefix(struct ks_buf *o, const char *t, size_t b, size_t e)
{
	const char *lb = "__launch_bounds__";
	size_t n = strlen(lb);

	for (size_t i = b; i < e; i++) {
		if (i + n <= e && !memcmp(t + i, lb, n)) {
			int depth = 0;

			i += n;
			while (i < e && t[i] != '(')
				i++;
			for (; i < e; i++) {
				if (t[i] == '(')
					depth++;
				else if (t[i] == ')' && --depth == 0)
					break;
			}
			continue;
		}
		ks_buf_addch(o, t[i]);
	}
}

/* The variant's body: virtual coordinates, then the kernel's statements. */
static void
emit_body(struct cx *c, int top)
{
	struct ks_buf *o = c->out;

	ks_buf_addf(o, "{\n\tconst unsigned ks_lane = threadIdx.x %% %d;\n",
		    c->T);
	if (uses_tok(c, "threadIdx"))
		ks_buf_addf(o, "\tconst uint3 ks_tid = make_uint3(blockIdx.z "
			    "* %d + threadIdx.x / %d, 0, 0);\n", c->rpb, c->T);
	if (uses_tok(c, "blockIdx"))
		ks_buf_adds(o, "\tconst uint3 ks_bid = make_uint3(blockIdx.x, "
			    "blockIdx.y, 0);\n");
	if (uses_tok(c, "blockDim"))
		ks_buf_addf(o, "\tconst dim3 ks_bdim(gridDim.z * %d, 1, 1);\n",
			    c->rpb);
	if (uses_tok(c, "gridDim"))
		ks_buf_adds(o, "\tconst dim3 ks_gdim(gridDim.x, gridDim.y, "
			    "1);\n");
	c->col_loops = 0;
	c->scans = 0;
	for (int i = 0; i < c->st[top].nkid; i++) {
		gap(c, c->st[c->st[top].kid[i]].b);
		emit(c, c->st[top].kid[i]);
	}
	gap(c, c->ntk - 1);
	ks_buf_adds(o, "}\n");
}

static enum ks_xf_result
apply(const struct ks_xf_input *in, const struct ks_xf_point *p,
      struct ks_buf *variant, struct ks_buf *reason)
{
	const struct ks_kernel *k = in->kernel;
	struct ks_buf def = KS_BUF_INIT, note = KS_BUF_INIT;
	struct cx c;
	int top, next, block, used = 0;
	size_t pb, pe;		/* the parameter list's parentheses */

	memset(&c, 0, sizeof(c));
	c.t = in->text;
	c.k = k;
	c.f = &k->facts;
	c.rpb = (int)p->v[0];
	c.K = (int)p->v[1];
	c.T = (int)p->v[2];
	c.unroll = ROW_UNROLL;
	c.why = reason;
	c.out = &def;
	block = c.T * c.rpb;
	if (c.T > 32 && c.rpb != 1) {
		ks_buf_adds(reason, "a block per row (threads > 32) takes "
			    "rows_per_block=1");
		return KS_XF_DECLINED;
	}
	if (c.T > 32 && c.K != ROW_CACHE_DEF) {
		ks_buf_addf(reason, "the row cache is a warp's: a block per row "
			    "(threads > 32) takes the default cache=%d",
			    ROW_CACHE_DEF);
		return KS_XF_DECLINED;
	}
	if (block > 1024) {
		ks_buf_addf(reason, "threads x rows_per_block = %d exceeds "
			    "1024", block);
		return KS_XF_DECLINED;
	}
	if (k->body.end > in->len || k->body.begin >= k->body.end ||
	    k->name_ext.end > k->body.begin || k->extent.begin > k->name_ext.begin) {
		ks_buf_adds(reason, "the kernel's extents do not fit its file");
		return KS_XF_DECLINED;
	}
	if (check_kernel(&c) || tokenize(&c, k->body.begin, k->body.end) ||
	    (top = parse_stmt(&c, 0, c.ntk, &next)) < 0)
		goto declined;
	if (c.st[top].k != S_BLOCK || next != c.ntk) {
		fail(&c, 0, "the kernel's body is not one block");
		goto declined;
	}
	if (c.nloops_seen != (int)c.f->nloops) {
		fail(&c, 0, "the loops of the text and of the analysis disagree");
		goto declined;
	}
	for (int i = 0; i < c.nst; i++)
		if (c.st[i].loop >= 0 &&
		    c.f->loops[c.st[i].loop].line != c.tk[c.st[i].b].line) {
			fail(&c, c.tk[c.st[i].b].line, "the loops of the text and "
			     "of the analysis disagree");
			goto declined;
		}
	if (check_readback(&c))
		goto declined;
	emit_body(&c, top);
	if (c.failed)
		goto declined;
	if (!c.col_loops) {
		fail(&c, 0, "no loop walks a contiguous row (nothing to share "
		     "among threads)");
		goto declined;
	}
	/* the row cache, planned on the dealt form's decisions (a scan) */
	if (c.T == 32 && c.K)
		used = !plan_cache(&c, top, &note);
	if (c.T == 32 && c.K != ROW_CACHE_DEF && !used) {
		/* the point's variant would be another point's: declined, so
		 * that a search does not measure it twice */
		struct ks_buf dn = KS_BUF_INIT;
		int def_used;

		c.K = ROW_CACHE_DEF;
		def_used = !plan_cache(&c, top, &dn);
		c.K = (int)p->v[1];
		c.rc.npass = 0;
		if (c.K || !def_used) {
			fail(&c, 0, "the row cache is not used here (%s): cache=%d "
			     "gives the variant of %s", c.K ? note.buf : dn.buf,
			     c.K, def_used ? "cache=0" : "the default cache=32");
			ks_buf_release(&dn);
			goto declined;
		}
		ks_buf_release(&dn);
	}
	if (used) {
		ks_buf_reset(&def);
		emit_body(&c, top);
		if (c.failed)
			goto declined;
	}
	/* the parameter list */
	pb = k->name_ext.end;
	pe = k->body.begin;
	while (pb < pe && in->text[pb] != '(')
		pb++;
	while (pe > pb && in->text[pe - 1] != ')')
		pe--;
	if (pe <= pb + 1) {
		fail(&c, 0, "the parameter list cannot be read");
		goto declined;
	}

	ks_buf_addf(variant, "// %s: cooperative rows, %d threads per row, %d "
		    "row%s per block (coop_rows)\n", k->name, c.T, c.rpb,
		    c.rpb == 1 ? "" : "s");
	add_cache_note(&c, variant, used, &note);
	ks_buf_adds(variant, "// ks-nvcc: helpers\n");
	ks_buf_adds(variant, "// The original kernel, for launches whose "
		    "geometry the variant does not take.\n");
	ks_buf_add(variant, in->text + k->extent.begin,
		   k->name_ext.begin - k->extent.begin);
	ks_buf_addf(variant, "ks_rows_orig_%s", k->name);
	ks_buf_add(variant, in->text + k->name_ext.end,
		   k->extent.end - k->name_ext.end);
	ks_buf_adds(variant, "\n// ks-nvcc: definition\n");
	add_prefix(variant, in->text, k->extent.begin, k->name_ext.begin);
	ks_buf_addf(variant, "__launch_bounds__(%d) %s", block, k->name);
	ks_buf_add(variant, in->text + k->name_ext.end, pe - k->name_ext.end);
	ks_buf_adds(variant, "\n");
	ks_buf_add(variant, def.buf, def.len);
	ks_buf_adds(variant, "// ks-nvcc: launcher\nstatic void\n");
	ks_buf_addf(variant, "ks_launch_%s(dim3 grid, dim3 block, size_t shmem, "
		    "cudaStream_t stream,\n\t\t", k->name);
	ks_buf_add(variant, in->text + pb + 1, pe - pb - 2);
	ks_buf_addf(variant, ")\n{\n\t/* one original thread becomes %d; the "
		    "original block's\n\t   x extent goes to gridDim.z */\n"
		    "\tif (block.y == 1 && block.z == 1 && grid.z == 1 &&\n"
		    "\t    block.x %% %d == 0 && block.x / %d <= 65535) {\n"
		    "\t\t%s<<<dim3(grid.x, grid.y, block.x / %d), %d, shmem, "
		    "stream>>>(", c.T, c.rpb, c.rpb, k->name, c.rpb, block);
	for (size_t i = 0; i < k->nparams; i++)
		ks_buf_addf(variant, "%s%s", i ? ", " : "", k->params[i].name);
	ks_buf_addf(variant, ");\n\t\treturn;\n\t}\n\tks_rows_orig_%s<<<grid, "
		    "block, shmem, stream>>>(", k->name);
	for (size_t i = 0; i < k->nparams; i++)
		ks_buf_addf(variant, "%s%s", i ? ", " : "", k->params[i].name);
	ks_buf_adds(variant, ");\n}\n");
	ks_buf_release(&def);
	ks_buf_release(&note);
	free_stmts(&c);
	return KS_XF_APPLIED;

declined:
	ks_buf_release(&def);
	ks_buf_release(&note);
	free_stmts(&c);
	return KS_XF_DECLINED;
}

const struct ks_transform ks_xf_coop_rows = {
	.id = "coop_rows",
	.summary = "a warp or a block per row: the row loops dealt among its "
		   "threads, carried values combined by shuffles and shared "
		   "memory, running sums as warp scans",
	.precondition = "each thread walks a contiguous row in for loops with "
			"uniform bounds and unit step, carrying only sums, "
			"products, min/max, arg-max or one running sum, with no "
			"data-dependent index in the loops and no load of "
			"another row's output",
	/*
	 * ks try and the loop visit points by the sum of their values'
	 * positions (the default first) and stop after two measured points
	 * that do not win: a block per row (threads=128 with
	 * rows_per_block=1) must be the second point, since rows read in
	 * several passes fit the caches only at few rows per SM
	 * (docs/TRANSFORMS.md: cross_entropy 48 % of its floor with a warp
	 * per row, 78 % with 128 threads), and one round of a two-round
	 * budget went to a second warp-per-row point when it was not. So
	 * rows_per_block defaults to 1 and lists it first: the default is a
	 * warp per row, one row per warp (within 3 % of four rows per block
	 * where both were measured), the next point its block-per-row
	 * neighbour; and the unrolling is not a dimension of its own.
	 * `cache` comes before `threads` for the same reason: among points
	 * of equal sums the later parameter's move comes first, so the
	 * block per row stays second and the dealt warp per row (cache=0)
	 * third. A value of `cache` that would repeat another point's
	 * variant (a block per row, a kernel the cache does not fit) is
	 * declined, which costs the search no measurement.
	 */
	.nparams = 3,
	.params = {
		{ "rows_per_block", "rows per block when threads is 32 (a "
				    "block per row takes 1)", 1, 5,
		  { 1, 4, 8, 2, 16 } },
		{ "cache", "a row read by several passes held in registers, "
			   "this many values a lane (0: off; a warp per row "
			   "only)", ROW_CACHE_DEF, 4, { ROW_CACHE_DEF, 0, 16, 64 } },
		{ "threads", "threads per row (32: a warp per row; more: a "
			     "block per row)", 32, 6,
		  { 32, 128, 256, 512, 64, 1024 } },
	},
	.apply = apply,
};
