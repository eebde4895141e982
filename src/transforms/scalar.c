/*
 * scalar: the transforms that edit a kernel's body in place, guided by
 * the facts: unroll_constant_loops (#pragma unroll before the loops whose
 * trip count the analysis knows), fp32_promotion_fix (the double
 * literals and double math calls the analysis counted as FP64 events in
 * float code become float ones) and fast_math_intrinsics (the float
 * transcendental calls become their fast hardware forms, only when the
 * precision setting allows it). The facts say where (a loop, an FP64
 * event, a call, each with its line); the text is only edited at those
 * lines, and only inside the kernel's own body.
 */
#include <stdlib.h>
#include <string.h>

#include "../analysis/inventory.h"
#include "../core/buf.h"
#include "../core/util.h"
#include "transform.h"
#include "xfkit.h"

#define MAX_EDITS 256

struct edits {
	struct ks_xfk_edit e[MAX_EDITS];
	char *own[MAX_EDITS];
	size_t n;
};

static void
edits_release(struct edits *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->own[i]);
	d->n = 0;
}

static int
edits_add(struct edits *d, unsigned long b, unsigned long e, char *with)
{
	if (d->n == MAX_EDITS) {
		free(with);
		return -1;
	}
	d->e[d->n].begin = b;
	d->e[d->n].end = e;
	d->e[d->n].with = with;
	d->own[d->n++] = with;
	return 0;
}

/* The variant: header and the edited definition, no helpers or launcher. */
static enum ks_xf_result
emit(const struct ks_xfk *x, const struct ks_xf_input *in, const char *id,
     struct edits *d, struct ks_buf *variant, struct ks_buf *reason)
{
	struct ks_buf def = KS_BUF_INIT;

	if (ks_xfk_definition(x, in->text, d->e, d->n, &def)) {
		ks_buf_adds(reason, "two edits of the kernel's text overlap");
		ks_buf_release(&def);
		return KS_XF_DECLINED;
	}
	ks_buf_addf(variant, "// %s: %s, %zu edit%s (builtin transform, arch %d)\n"
			     "// ks-nvcc: definition\n", x->k->name, id, d->n,
		    d->n == 1 ? "" : "s", in->opts.arch);
	ks_buf_add(variant, def.buf, def.len);
	ks_buf_adds(variant, "\n");
	ks_buf_release(&def);
	return KS_XF_APPLIED;
}

static unsigned
first_line(const struct ks_xfk *x)
{
	return x->k->extent.line ? x->k->extent.line : 1;
}

/* ---- unroll_constant_loops --------------------------------------------------- */

struct unroll_ctx {
	const struct ks_xfk *x;
	unsigned line;
	unsigned long found, line_start;
	int first_on_line;
};

static int
find_for(const char *t, const struct ks_xfk_tok *tok, void *v)
{
	struct unroll_ctx *c = v;

	(void)t;
	if (tok->line < c->line || tok->begin < c->x->body_begin)
		return 0;
	if (tok->line > c->line)
		return 1;
	if (tok->kind == 'i' && tok->end - tok->begin == 3 &&
	    !strncmp(t + tok->begin, "for", 3)) {
		c->found = tok->begin;
		return 1;
	}
	c->first_on_line = 0;
	return 0;
}

/* Is the line before `at` a "#pragma unroll" already? */
static int
pragma_before(const char *t, unsigned long from, unsigned long at)
{
	unsigned long e = at, b;

	while (e > from && t[e - 1] != '\n')
		e--;
	if (e == from)
		return 0;
	e--;		/* the newline ending the previous line */
	b = e;
	while (b > from && t[b - 1] != '\n')
		b--;
	while (b < e && (t[b] == ' ' || t[b] == '\t'))
		b++;
	return e - b >= 14 && !strncmp(t + b, "#pragma unroll", 14);
}

static enum ks_xf_result
unroll_apply(const struct ks_xf_input *in, const struct ks_xf_point *p,
	     struct ks_buf *variant, struct ks_buf *reason)
{
	struct ks_xfk x;
	struct edits d;
	enum ks_xf_result r = KS_XF_DECLINED;
	long long max = p->v[0];
	size_t known = 0;

	d.n = 0;
	if (ks_xfk_init(&x, in, reason))
		goto out;
	for (size_t i = 0; i < x.f->nloops; i++) {
		const struct ks_loop *l = &x.f->loops[i];
		struct unroll_ctx c = { &x, l->line, 0, 0, 1 };
		int dup = 0;

		if (!l->has_trip || l->trip < 2 || l->trip > max)
			continue;
		known++;
		ks_xfk_scan(in->text, x.def_begin, x.k->extent.end, first_line(&x),
			    find_for, &c);
		if (!c.found || pragma_before(in->text, x.body_begin, c.found))
			continue;
		for (size_t j = 0; j < d.n; j++)
			dup |= d.e[j].begin == c.found;
		if (dup)
			continue;
		/* a directive must start a line: first on its line, the
		 * loop keeps its indentation after the pragma */
		if (c.first_on_line) {
			unsigned long b = c.found;

			while (b > x.body_begin && in->text[b - 1] != '\n')
				b--;
			edits_add(&d, c.found, c.found + 3,
				  ks_xasprintf("#pragma unroll\n%.*sfor",
					       (int)(c.found - b), in->text + b));
		} else {
			edits_add(&d, c.found, c.found + 3,
				  ks_xstrdup("\n#pragma unroll\nfor"));
		}
	}
	if (!d.n) {
		if (known)
			ks_buf_addf(reason, "the loops with a known trip count of at "
					    "most %lld are already unrolled or not "
					    "for loops of the kernel's body", max);
		else
			ks_buf_addf(reason, "no loop has a compile-time trip count "
					    "between 2 and %lld", max);
		goto out;
	}
	r = emit(&x, in, "unroll_constant_loops", &d, variant, reason);
out:
	edits_release(&d);
	ks_xfk_release(&x);
	return r;
}

const struct ks_transform ks_xf_unroll_constant_loops = {
	.id = "unroll_constant_loops",
	.summary = "#pragma unroll before the for loops whose trip count is known "
		   "at compile time",
	.precondition = "a for loop of the kernel's body with a compile-time trip "
			"count between 2 and max_trip",
	.nparams = 1,
	.params = {
		{ "max_trip", "unroll loops of at most this many iterations", 32, 3,
		  { 32, 8, 128 } },
	},
	.apply = unroll_apply,
};

/* ---- fp32_promotion_fix and fast_math_intrinsics ------------------------------ */

/* Knowledge: a double math function and its float form. */
static const char *const double_math[][2] = {
	{ "exp", "expf" }, { "exp2", "exp2f" }, { "exp10", "exp10f" },
	{ "expm1", "expm1f" }, { "log", "logf" }, { "log2", "log2f" },
	{ "log10", "log10f" }, { "log1p", "log1pf" }, { "pow", "powf" },
	{ "sqrt", "sqrtf" }, { "rsqrt", "rsqrtf" }, { "cbrt", "cbrtf" },
	{ "sin", "sinf" }, { "cos", "cosf" }, { "tan", "tanf" },
	{ "asin", "asinf" }, { "acos", "acosf" }, { "atan", "atanf" },
	{ "atan2", "atan2f" }, { "sinh", "sinhf" }, { "cosh", "coshf" },
	{ "tanh", "tanhf" }, { "erf", "erff" }, { "erfc", "erfcf" },
	{ "fabs", "fabsf" }, { "floor", "floorf" }, { "ceil", "ceilf" },
	{ "round", "roundf" }, { "trunc", "truncf" }, { "fmin", "fminf" },
	{ "fmax", "fmaxf" }, { "fmod", "fmodf" }, { "hypot", "hypotf" },
	{ "fma", "fmaf" },
};

/* Knowledge: float transcendental functions and their fast intrinsics. */
static const char *const fast_math[][2] = {
	{ "expf", "__expf" }, { "exp10f", "__exp10f" }, { "logf", "__logf" },
	{ "log2f", "__log2f" }, { "log10f", "__log10f" }, { "sinf", "__sinf" },
	{ "cosf", "__cosf" }, { "tanf", "__tanf" }, { "powf", "__powf" },
};

struct fix_ctx {
	const struct ks_xfk *x;
	const struct ks_xf_input *in;
	const unsigned char *lines;	/* lines to edit, relative to first */
	unsigned first, nlines;
	const char *const (*map)[2];
	size_t nmap;
	int literals;			/* fix double literals too */
	struct edits *d;
	unsigned long pending, pending_end;	/* an identifier awaiting '(' */
	const char *pending_with;
};

static int
on_line(const struct fix_ctx *c, unsigned line)
{
	return line >= c->first && line - c->first < c->nlines &&
	       c->lines[line - c->first];
}

/* A floating literal without a suffix: 2.0, .5, 1e-3 (not hex, not 2.0f). */
static int
double_literal(const char *t, const struct ks_xfk_tok *tok)
{
	const char *s = t + tok->begin;
	size_t n = tok->end - tok->begin, i;
	int fl = 0;

	if (n > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return 0;
	for (i = 0; i < n; i++) {
		if (s[i] == '.' || s[i] == 'e' || s[i] == 'E')
			fl = 1;
		else if (!(s[i] >= '0' && s[i] <= '9') && s[i] != '+' &&
			 s[i] != '-' && s[i] != '\'')
			return 0;	/* a suffix, or not a number */
	}
	return fl;
}

static int
fix_token(const char *t, const struct ks_xfk_tok *tok, void *v)
{
	struct fix_ctx *c = v;

	if (c->pending && tok->kind == 'p' && t[tok->begin] == '(')
		edits_add(c->d, c->pending, c->pending_end,
			  ks_xstrdup(c->pending_with));
	c->pending = 0;
	if (tok->begin < c->x->body_begin || !on_line(c, tok->line))
		return 0;
	if (tok->kind == 'n' && c->literals && double_literal(t, tok)) {
		char *w = ks_xstrndup(t + tok->begin, tok->end - tok->begin);
		char *with = ks_xasprintf("%sf", w);

		free(w);
		edits_add(c->d, tok->begin, tok->end, with);
		return 0;
	}
	if (tok->kind == 'i') {
		size_t n = tok->end - tok->begin;
		int member = tok->begin > 0 &&
			     (t[tok->begin - 1] == '.' ||
			      (t[tok->begin - 1] == '>' && tok->begin > 1 &&
			       t[tok->begin - 2] == '-'));

		for (size_t i = 0; i < c->nmap && !member; i++)
			if (strlen(c->map[i][0]) == n &&
			    !strncmp(t + tok->begin, c->map[i][0], n)) {
				/* replaced only when a '(' follows: a call */
				c->pending = tok->begin;
				c->pending_end = tok->end;
				c->pending_with = c->map[i][1];
				break;
			}
	}
	return 0;
}

/*
 * Run the fixer over the body's lines flagged in `lines` (absolute line
 * numbers from `first`).
 */
static void
fix_lines(struct fix_ctx *c)
{
	ks_xfk_scan(c->in->text, c->x->def_begin, c->x->k->extent.end, first_line(c->x),
		    fix_token, c);
}

static enum ks_xf_result
fix_apply(const struct ks_xf_input *in, int fast, struct ks_buf *variant,
	  struct ks_buf *reason)
{
	struct ks_xfk x;
	struct edits d;
	struct fix_ctx c;
	unsigned char *lines = NULL;
	enum ks_xf_result r = KS_XF_DECLINED;
	size_t events = 0;

	d.n = 0;
	memset(&c, 0, sizeof(c));
	if (ks_xfk_init(&x, in, reason))
		goto out;
	c.x = &x;
	c.in = in;
	c.d = &d;
	c.first = first_line(&x);
	c.nlines = x.k->extent.end_line >= c.first ? x.k->extent.end_line - c.first + 1 : 1;
	lines = ks_xcalloc(c.nlines + 1, 1);
	c.lines = lines;
	if (!fast) {
		const struct ks_facts *f = x.f;

		if (!f->float_code || f->declares_double) {
			ks_buf_adds(reason, f->declares_double ?
				    "the kernel declares double values: its double "
				    "arithmetic is meant" :
				    "the kernel has no float data");
			goto out;
		}
		for (size_t i = 0; i < f->nfp64; i++) {
			unsigned l = f->fp64[i].line;

			if (l >= c.first && l - c.first < c.nlines) {
				lines[l - c.first] = 1;
				events++;
			}
		}
		if (!f->nfp64) {
			ks_buf_adds(reason, "no double-precision arithmetic in the "
					    "float code");
			goto out;
		}
		c.map = double_math;
		c.nmap = sizeof(double_math) / sizeof(double_math[0]);
		c.literals = 1;
	} else {
		if (!in->opts.fast_math) {
			ks_buf_adds(reason, "the precision setting does not allow fast "
					    "intrinsics (--fast-math)");
			goto out;
		}
		for (size_t i = 0; i < x.f->ncalls; i++) {
			const struct ks_call *k = &x.f->calls[i];

			if (k->kind != KS_CALL_TRANSCENDENTAL || k->fp64)
				continue;
			for (size_t j = 0; j < sizeof(fast_math) / sizeof(fast_math[0]); j++)
				if (!strcmp(k->name, fast_math[j][0]) &&
				    k->line >= c.first && k->line - c.first < c.nlines) {
					lines[k->line - c.first] = 1;
					events++;
				}
		}
		c.map = fast_math;
		c.nmap = sizeof(fast_math) / sizeof(fast_math[0]);
	}
	if (events)
		fix_lines(&c);
	if (!d.n) {
		ks_buf_adds(reason, fast ? "no float transcendental call with a fast "
					   "intrinsic in the kernel's body" :
				    "the double-precision events are not in the "
				    "kernel's body (a helper function?)");
		goto out;
	}
	r = emit(&x, in, fast ? "fast_math_intrinsics" : "fp32_promotion_fix", &d,
		 variant, reason);
out:
	free(lines);
	edits_release(&d);
	ks_xfk_release(&x);
	return r;
}

static enum ks_xf_result
fp32_apply(const struct ks_xf_input *in, const struct ks_xf_point *p,
	   struct ks_buf *variant, struct ks_buf *reason)
{
	(void)p;
	return fix_apply(in, 0, variant, reason);
}

static enum ks_xf_result
fast_apply(const struct ks_xf_input *in, const struct ks_xf_point *p,
	   struct ks_buf *variant, struct ks_buf *reason)
{
	(void)p;
	return fix_apply(in, 1, variant, reason);
}

const struct ks_transform ks_xf_fp32_promotion_fix = {
	.id = "fp32_promotion_fix",
	.summary = "double literals and double math calls of float code become "
		   "float (2.0 -> 2.0f, exp -> expf)",
	.precondition = "float code that declares no double, with FP64 events "
			"(fp64_in_float_code) in the kernel's body",
	.nparams = 0,
	.apply = fp32_apply,
};

const struct ks_transform ks_xf_fast_math_intrinsics = {
	.id = "fast_math_intrinsics",
	.summary = "float transcendental calls become their fast intrinsics "
		   "(expf -> __expf); only with --fast-math",
	.precondition = "the precision setting allows fast math; expf, logf, "
			"sinf, cosf, tanf, powf, ... calls in the kernel's body",
	.nparams = 0,
	.apply = fast_apply,
};
