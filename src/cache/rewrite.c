#include "rewrite.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lex.h"
#include "../core/buf.h"
#include "../core/grow.h"
#include "../core/strv.h"
#include "../core/util.h"

/* "cannot rewrite kernel 'k': <why>" appended to `err`; returns -1. */
static int refuse(struct ks_buf *err, const char *kernel, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int
refuse(struct ks_buf *err, const char *kernel, const char *fmt, ...)
{
	struct ks_buf why = KS_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	ks_buf_vaddf(&why, fmt, ap);
	va_end(ap);
	ks_error(err, "cannot rewrite kernel '%s': %s", kernel, why.buf);
	ks_buf_release(&why);
	return -1;
}

/* ------------------------------------------------------------------ */
/* Lines                                                               */

struct lines {
	size_t *start;	/* offset of each line's first byte */
	size_t n;
	/* Where a `#line N "file"` of the text moved the count (a header
	 * brought into the text, ks_expand_text): from line index `at` on,
	 * line `num[i]` of `file[i]` (NULL: the text's own path). */
	size_t *at, *num;
	char **file;
	size_t nmoves;
};

static void
lines_init(struct lines *l, const char *s, size_t len)
{
	size_t i, alloc = 64;

	memset(l, 0, sizeof(*l));
	l->start = ks_xmalloc(alloc * sizeof(*l->start));
	l->start[0] = 0;
	l->n = 1;
	for (i = 0; i < len; i++) {
		if (s[i] != '\n')
			continue;
		if (l->n == alloc) {
			alloc *= 2;
			l->start = ks_xrealloc(l->start,
					       alloc * sizeof(*l->start));
		}
		l->start[l->n++] = i + 1;
	}
	for (i = 0; i + 1 < l->n; i++) {
		size_t num;
		char *file;

		if (s[l->start[i]] != '#' && s[l->start[i]] != ' ' && s[l->start[i]] != '\t')
			continue;
		if (!ks_lex_line_directive(s, l->start[i], l->start[i + 1] - 1, &num, &file))
			continue;
		l->at = ks_xrealloc(l->at, (l->nmoves + 1) * sizeof(*l->at));
		l->num = ks_xrealloc(l->num, (l->nmoves + 1) * sizeof(*l->num));
		l->file = ks_xrealloc(l->file, (l->nmoves + 1) * sizeof(*l->file));
		/* a directive without a file keeps the file before it */
		if (!file && l->nmoves && l->file[l->nmoves - 1])
			file = ks_xstrdup(l->file[l->nmoves - 1]);
		l->at[l->nmoves] = i + 1;
		l->num[l->nmoves] = num;
		l->file[l->nmoves++] = file;
	}
}

static void
lines_release(struct lines *l)
{
	for (size_t i = 0; i < l->nmoves; i++)
		free(l->file[i]);
	free(l->file);
	free(l->at);
	free(l->num);
	free(l->start);
}

/* The index (0-based) of the line holding offset `off`. */
static size_t
line_index(const struct lines *l, size_t off)
{
	size_t lo = 0, hi = l->n;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->start[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* The last move at or before line index `i`, or -1. */
static long
move_of(const struct lines *l, size_t i)
{
	long m = -1;

	for (size_t x = 0; x < l->nmoves && l->at[x] <= i; x++)
		m = (long)x;
	return m;
}

/* The line of offset `off` as the compiler counts it (after any #line). */
static size_t
line_of(const struct lines *l, size_t off)
{
	size_t i = line_index(l, off);
	long m = move_of(l, i);

	return m < 0 ? i + 1 : l->num[m] + (i - l->at[m]);
}

/* The file of offset `off` as the compiler names it: `path`, or the one
 * a #line before it names. */
static const char *
file_of(const struct lines *l, size_t off, const char *path)
{
	long m = move_of(l, line_index(l, off));

	return m < 0 || !l->file[m] ? path : l->file[m];
}

/* ------------------------------------------------------------------ */
/* Output helpers                                                      */

static void
ensure_newline(struct ks_buf *out)
{
	if (out->len && out->buf[out->len - 1] != '\n')
		ks_buf_addch(out, '\n');
}

static void
add_line_directive(struct ks_buf *out, size_t line, const char *file)
{
	const char *p;

	ensure_newline(out);
	ks_buf_addf(out, "#line %zu \"", line);
	for (p = file; *p; p++) {
		if (*p == '"' || *p == '\\')
			ks_buf_addch(out, '\\');
		ks_buf_addch(out, *p);
	}
	ks_buf_adds(out, "\"\n");
}

/* Blanks that put the next character in the column `off` has in src. */
static void
add_pad(struct ks_buf *out, const char *src, const struct lines *l, size_t off)
{
	size_t i;

	for (i = l->start[line_index(l, off)]; i < off; i++)
		ks_buf_addch(out, src[i] == '\t' ? '\t' : ' ');
}

/* User text [from, to), mapped back to its file, line and column. */
static void
add_user(struct ks_buf *out, const char *src, const struct lines *l,
	 const char *path, size_t from, size_t to)
{
	add_line_directive(out, line_of(l, from), file_of(l, from, path));
	add_pad(out, src, l, from);
	ks_buf_add(out, src + from, to - from);
}

static int
present(const struct ks_rewrite_part *p)
{
	return p->text && *p->text;
}

static void
add_part(struct ks_buf *out, const struct ks_rewrite_part *p, const char *file)
{
	add_line_directive(out, p->line ? p->line : 1, file);
	ks_buf_adds(out, p->text);
	ensure_newline(out);
}

/* ------------------------------------------------------------------ */
/* Checks                                                              */

/*
 * The first token of the declaration holding `def_begin`: after the last
 * ';', '{', '}' or directive before it. An extent that starts at
 * `__global__` after `extern "C"` or `static` is so widened, and a
 * `template <...>` before it is seen.
 */
static size_t
decl_start(const char *src, size_t len, size_t def_begin)
{
	struct ks_lexer lx;
	struct ks_token t;
	size_t start = (size_t)-1;

	ks_lex_init(&lx, src, len);
	while (ks_lex(&lx, &t) != KS_T_EOF && t.begin < def_begin) {
		if (t.kind == KS_T_DIRECTIVE || ks_lex_punct(src, &t, ';') ||
		    ks_lex_punct(src, &t, '{') || ks_lex_punct(src, &t, '}'))
			start = (size_t)-1;
		else if (start == (size_t)-1)
			start = t.begin;
	}
	return start == (size_t)-1 ? def_begin : start;
}

/* Is offset `off` inside a preprocessor directive? */
static int
in_directive(const char *src, size_t len, size_t off)
{
	struct ks_lexer lx;
	struct ks_token t;

	ks_lex_init(&lx, src, len);
	while (ks_lex(&lx, &t) != KS_T_EOF && t.begin <= off)
		if (t.kind == KS_T_DIRECTIVE && off < t.end)
			return 1;
	return 0;
}

/*
 * Check that [begin, end) defines kernel `name`: `__global__` and
 * `name (` before the body's '{', and a final '}'. Sets *is_template.
 */
static int
check_definition(const char *src, size_t begin, size_t end, const char *name,
		 size_t line, int *is_template, struct ks_buf *err)
{
	struct ks_lexer lx;
	struct ks_token t, prev = { KS_T_EOF, 0, 0 };
	int global = 0, named = 0, first = 1;

	*is_template = 0;
	ks_lex_init(&lx, src, end);
	lx.pos = begin;
	while (ks_lex(&lx, &t) != KS_T_EOF && !ks_lex_punct(src, &t, '{')) {
		if (first && ks_lex_ident(src, &t, "template"))
			*is_template = 1;
		first = 0;
		if (ks_lex_ident(src, &t, "__global__"))
			global = 1;
		if (ks_lex_punct(src, &t, '(') && ks_lex_ident(src, &prev, name))
			named = 1;
		prev = t;
	}
	if (t.kind == KS_T_EOF || !global || !named || src[end - 1] != '}')
		return refuse(err, name, "the extent at line %zu is not its "
			      "definition", line);
	return 0;
}

/*
 * A launch's text: optional qualifiers, the kernel's name, template
 * arguments where `targs` allows them, `<<<`, ..., ')'. Sets *callee_end
 * to the end of the name and *config to where `<<<` starts.
 */
static int
check_launch(const char *src, const struct ks_rewrite_launch *lc,
	     const char *name, size_t line, int targs, size_t *callee_end,
	     size_t *config, struct ks_buf *err)
{
	struct ks_lexer lx;
	struct ks_token t;

	ks_lex_init(&lx, src, lc->end);
	lx.pos = lc->begin;
	while (ks_lex(&lx, &t) != KS_T_EOF) {
		if (ks_lex_ident(src, &t, name)) {
			struct ks_lexer peek = lx;
			struct ks_token n;
			int depth = 0;

			ks_lex(&peek, &n);
			/* k<float, 4><<<: the arguments' brackets balanced */
			while (targs && !ks_lex_triple(&peek, &n, '<') &&
			       (depth || ks_lex_punct(src, &n, '<')) &&
			       n.kind != KS_T_EOF) {
				depth += ks_lex_punct(src, &n, '<') -
					 ks_lex_punct(src, &n, '>');
				if (ks_lex(&peek, &n) == KS_T_EOF || depth < 0)
					break;
			}
			if (!depth && ks_lex_triple(&peek, &n, '<') &&
			    src[lc->end - 1] == ')') {
				*callee_end = t.end;
				*config = n.begin;
				return 0;
			}
			break;
		}
		if (!(t.kind == KS_T_IDENT || ks_lex_punct(src, &t, ':')))
			break;
	}
	return refuse(err, name, "the launch at line %zu is not "
		      "'%s<<<...>>>(...)'", line, name);
}

/* Keywords after which a name is an operand, not a declarator. */
static const char *const operand_keywords[] = {
	"case", "co_return", "co_yield", "decltype", "delete", "do", "else",
	"new", "return", "sizeof", "throw", "typeid",
};

/* Is token t a type name (or qualifier) that a declarator may follow? */
static int
type_like(const char *s, const struct ks_token *t)
{
	size_t i;

	if (t->kind != KS_T_IDENT)
		return 0;
	for (i = 0; i < KS_ARRAY_SIZE(operand_keywords); i++)
		if (ks_lex_ident(s, t, operand_keywords[i]))
			return 0;
	return 1;
}

/*
 * With a launcher every use of the kernel must be a launch the rewrite
 * sees: taking its address (cudaLaunchKernel, cudaFuncSetAttribute, a
 * function pointer) would run the variant's code with the original
 * geometry. Not uses: declarations of the kernel (statements with
 * __global__), members of the same name (a.k, p->k), and other entities
 * declared with the name (`int k`, `float *k`).
 */
static int
check_other_uses(const char *src, size_t len, const struct lines *l,
		 const struct ks_rewrite_kernel *k, size_t def_from,
		 struct ks_buf *err)
{
	struct ks_lexer lx;
	struct ks_token t, p1 = { KS_T_EOF, 0, 0 }, p2 = { KS_T_EOF, 0, 0 };
	size_t use = (size_t)-1, i;
	int declares = 0;

	ks_lex_init(&lx, src, len);
	while (ks_lex(&lx, &t) != KS_T_EOF) {
		int inside = t.begin >= def_from && t.begin < k->def_end;

		for (i = 0; !inside && i < k->nlaunches; i++)
			inside = t.begin >= k->launches[i].begin &&
				 t.begin < k->launches[i].end;
		if (t.kind == KS_T_DIRECTIVE && !inside &&
		    ks_lex_directive_names(src, &t, k->name))
			return refuse(err, k->name, "a preprocessor "
				      "directive names it at line %zu (the "
				      "launcher would be bypassed)",
				      line_of(l, t.begin));
		if (t.kind == KS_T_DIRECTIVE || ks_lex_punct(src, &t, ';') ||
		    ks_lex_punct(src, &t, '{') || ks_lex_punct(src, &t, '}')) {
			if (use != (size_t)-1 && !declares)
				break;
			use = (size_t)-1;
			declares = 0;
		} else if (ks_lex_ident(src, &t, "__global__")) {
			declares = 1;
		} else if (!inside && ks_lex_ident(src, &t, k->name) &&
			   use == (size_t)-1 && !ks_lex_punct(src, &p1, '.') &&
			   !(ks_lex_punct(src, &p1, '>') && p1.begin &&
			     src[p1.begin - 1] == '-') &&
			   !type_like(src, &p1) &&
			   !((ks_lex_punct(src, &p1, '*') ||
			      ks_lex_punct(src, &p1, '&')) &&
			     type_like(src, &p2))) {
			use = t.begin;
		}
		p2 = p1;
		p1 = t;
	}
	if (use != (size_t)-1 && !declares)
		return refuse(err, k->name, "it is used at line %zu other than "
			      "by a launch (its address would bypass the "
			      "launcher)", line_of(l, use));
	return 0;
}

/* ------------------------------------------------------------------ */
/* The rewrite                                                         */

struct edit {
	size_t begin, end;	/* an instance's definition: begin == end */
	size_t job;
	size_t launch;		/* (size_t)-1: the definition */
	size_t callee_end;	/* launches: end of the kernel's name */
	size_t config;		/* launches: where `<<<` starts */
};

static int
cmp_edits(const void *a, const void *b)
{
	const struct edit *x = a, *y = b;

	/* Instances of one template are inserted at one offset: in job order. */
	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	return x->job < y->job ? -1 : x->job > y->job;
}

/* Does the job need the launcher (a launcher and host launches)? */
static int
uses_launcher(const struct ks_rewrite_job *j)
{
	return present(&j->variant->launcher) && j->kernel->nlaunches > 0;
}

/*
 * The glue of a kernel with a launcher, for every pass (the probe kernel)
 * and for the host pass: @K@ is the kernel's name, @ARCH@ the variant's
 * __CUDA_ARCH__, @PTX@ the ptxVersion of an image compiled for it.
 */
static const char glue_template[] =
	"/* Never launched: cudaFuncGetAttributes on it tells which image\n"
	"   of this file the device runs (__CUDA_ARCH__ is ptxVersion\n"
	"   times 10). */\n"
	"static __global__ void ks_probe_@K@(void) {}\n"
	"#ifndef __CUDA_ARCH__\n"
	"/* 1 when the device code that runs is the variant's (arch @ARCH@):\n"
	"   then its launcher must run. Cached per device. */\n"
	"static int\n"
	"ks_variant_active_@K@(void)\n"
	"{\n"
	"\tstatic int ks_known[64];\n"
	"\tstruct cudaFuncAttributes ks_attr;\n"
	"\tint ks_dev = -1, ks_k = 0, ks_on;\n"
	"\n"
	"\tif (cudaGetDevice(&ks_dev) != cudaSuccess || ks_dev >= 64)\n"
	"\t\tks_dev = -1;\n"
	"\tif (ks_dev >= 0)\n"
	"\t\tks_k = __atomic_load_n(&ks_known[ks_dev], __ATOMIC_RELAXED);\n"
	"\tif (ks_k)\n"
	"\t\treturn ks_k == 1;\n"
	"\tif (cudaFuncGetAttributes(&ks_attr, ks_probe_@K@)"
	" != cudaSuccess)\n"
	"\t\treturn 0;\n"
	"\tks_on = ks_attr.ptxVersion == @PTX@;\n"
	"\tif (ks_dev >= 0)\n"
	"\t\t__atomic_store_n(&ks_known[ks_dev], ks_on ? 1 : 2,\n"
	"\t\t\t\t __ATOMIC_RELAXED);\n"
	"\treturn ks_on;\n"
	"}\n";

/* The glue for kernel (or instance) name `k`, up to inside the host
 * pass's #ifndef: the caller adds the launcher and "#endif". */
static void
glue_open(struct ks_buf *out, const char *k, unsigned arch)
{
	const char *p;

	add_line_directive(out, 1, "<ks-nvcc>");
	for (p = glue_template; *p; p++) {
		if (ks_starts_with(p, "@K@")) {
			ks_buf_adds(out, k);
			p += 2;
		} else if (ks_starts_with(p, "@ARCH@")) {
			ks_buf_addf(out, "%u", arch);
			p += 5;
		} else if (ks_starts_with(p, "@PTX@")) {
			ks_buf_addf(out, "%u", arch / 10);
			p += 4;
		} else {
			ks_buf_addch(out, *p);
		}
	}
}

static void
emit_glue(struct ks_buf *out, const struct ks_rewrite_job *j)
{
	const struct ks_rewrite_variant *v = j->variant;

	glue_open(out, j->kernel->name, v->arch);
	add_part(out, &v->launcher, v->file);
	ks_buf_adds(out, "#endif\n");
}

/* Piece [a, b) of variant part `p`, mapped back to the variant's lines. */
static void
add_piece(struct ks_buf *out, const struct ks_rewrite_part *p, const char *file,
	  size_t a, size_t b)
{
	size_t line = p->line ? p->line : 1, i, bol = 0;

	for (i = 0; i < a; i++) {
		if (p->text[i] == '\n') {
			line++;
			bol = i + 1;
		}
	}
	add_line_directive(out, line, file);
	for (i = bol; i < a; i++)
		ks_buf_addch(out, p->text[i] == '\t' ? '\t' : ' ');
	ks_buf_add(out, p->text + a, b - a);
	ensure_newline(out);
}

/* Helper text [a, b) that only the host and the verified arch see. */
static void
add_guarded(struct ks_buf *out, const struct ks_rewrite_variant *v, size_t a,
	    size_t b)
{
	size_t i;

	for (i = a; i < b && isspace((unsigned char)v->helpers.text[i]); i++)
		;
	if (i == b)
		return;
	ks_buf_addf(out, "#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == %u\n",
		    v->arch);
	add_piece(out, &v->helpers, v->file, i, b);
	ks_buf_adds(out, "#endif\n");
}

/*
 * The helpers. nvcc takes the host stubs of __global__ functions from the
 * last device pass it runs, so every pass must declare the same kernels: a
 * kernel that only the verified arch's pass sees links when that arch
 * comes last and fails to link otherwise. Kernels among the helpers are
 * therefore declared in every pass, with their bodies for the host pass
 * and the verified arch and an empty body elsewhere (the launcher that
 * launches them never runs there). Everything else of the helpers is seen
 * only by the host pass and the verified arch. With `out` NULL, only checks.
 */
static int
emit_helpers(struct ks_buf *out, const struct ks_rewrite_variant *v,
	     const char *kernel, struct ks_buf *err)
{
	const char *h = v->helpers.text;
	struct ks_lexer lx;
	struct ks_token t;
	size_t seg = 0, stmt = (size_t)-1;
	int depth = 0, global = 0, paren = 0, alias = 0;

	ks_lex_init(&lx, h, strlen(h));
	while (ks_lex(&lx, &t) != KS_T_EOF) {
		if (depth > 0) {
			depth += ks_lex_punct(h, &t, '{') - ks_lex_punct(h, &t, '}');
			if (ks_lex_ident(h, &t, "__global__"))
				return refuse(err, kernel, "a helper kernel is "
					      "inside a namespace or class");
			if (!depth) {
				stmt = (size_t)-1;
				global = paren = alias = 0;
			}
			continue;
		}
		if (t.kind == KS_T_DIRECTIVE || ks_lex_punct(h, &t, ';')) {
			/* a kernel's declaration, or a typedef that kernel
			 * signatures may use (a template argument's alias) */
			if ((global || alias) && out) {
				add_guarded(out, v, seg, stmt);
				add_piece(out, &v->helpers, v->file, stmt,
					  t.end);
				seg = t.end;
			}
			stmt = (size_t)-1;
			global = paren = alias = 0;
		} else if (ks_lex_punct(h, &t, '{') && global && paren) {
			size_t body = t.begin;
			int d = 1;

			while (d && ks_lex(&lx, &t) != KS_T_EOF)
				d += ks_lex_punct(h, &t, '{') -
				     ks_lex_punct(h, &t, '}');
			if (d)
				return refuse(err, kernel, "a helper kernel's "
					      "body is not closed");
			if (out) {
				add_guarded(out, v, seg, stmt);
				add_piece(out, &v->helpers, v->file, stmt,
					  body);
				ks_buf_addf(out,
					    "#if !defined(__CUDA_ARCH__) || "
					    "__CUDA_ARCH__ == %u\n",
					    v->arch);
				add_piece(out, &v->helpers, v->file, body,
					  t.end);
				ks_buf_adds(out, "#else\n{}\n#endif\n");
			}
			seg = t.end;
			stmt = (size_t)-1;
			global = paren = alias = 0;
		} else if (ks_lex_punct(h, &t, '{')) {
			depth = 1;
		} else {
			if (stmt == (size_t)-1) {
				stmt = t.begin;
				alias = ks_lex_ident(h, &t, "typedef");
			}
			if (ks_lex_ident(h, &t, "__global__"))
				global = 1;
			if (ks_lex_punct(h, &t, ')'))
				paren = 1;
		}
	}
	if (out)
		add_guarded(out, v, seg, strlen(h));
	return 0;
}

static void
emit_definition(struct ks_buf *out, const char *src, const struct lines *l,
		const char *path, const struct ks_rewrite_job *j, size_t from)
{
	const struct ks_rewrite_kernel *k = j->kernel;
	const struct ks_rewrite_variant *v = j->variant;

	ensure_newline(out);
	if (present(&v->helpers))
		emit_helpers(out, v, k->name, NULL);
	ks_buf_addf(out, "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == %u\n",
		    v->arch);
	if (from < k->def_begin)
		add_user(out, src, l, path, from, k->def_begin);
	add_part(out, &v->definition, v->file);
	ks_buf_adds(out, "#else\n");
	add_user(out, src, l, path, from, k->def_end);
	ensure_newline(out);
	ks_buf_adds(out, "#endif\n");
	if (uses_launcher(j))
		emit_glue(out, j);
}

/* A host launch's rewrite up to the host pass's text: device passes keep
 * the launch as written, the host pass's text starts at its column. */
static void
launch_open(struct ks_buf *out, const char *src, const struct lines *l,
	    const char *path, const struct ks_rewrite_launch *lc)
{
	ensure_newline(out);
	ks_buf_adds(out, "#ifdef __CUDA_ARCH__\n");
	add_user(out, src, l, path, lc->begin, lc->end);
	ks_buf_adds(out, "\n#else\n");
	add_line_directive(out, line_of(l, lc->begin), file_of(l, lc->begin, path));
	add_pad(out, src, l, lc->begin);
}

static void
emit_launch(struct ks_buf *out, const char *src, const struct lines *l,
	    const char *path, const struct ks_rewrite_job *j,
	    const struct edit *e)
{
	const struct ks_rewrite_launch *lc = &j->kernel->launches[e->launch];
	const char *k = j->kernel->name;
	size_t qual = e->callee_end - strlen(k) - lc->begin, i;

	launch_open(out, src, l, path, lc);
	ks_buf_addf(out,
		    "(%.*sks_variant_active_%s() ? "
		    "%.*sks_launch_%s(%s, %s, %s, %s",
		    (int)qual, src + lc->begin, k, (int)qual, src + lc->begin,
		    k, lc->grid, lc->block, lc->shmem ? lc->shmem : "0",
		    lc->stream ? lc->stream : "cudaStream_t()");
	for (i = 0; i < lc->nargs; i++)
		ks_buf_addf(out, ", %s", lc->args[i]);
	ks_buf_adds(out, ") : (void)(");
	add_user(out, src, l, path, lc->begin, lc->end);
	ks_buf_adds(out, "))\n#endif\n");
}

/* Does launcher text name ks_launch_<kernel>? */
static int
names_launcher(const char *text, const char *kernel)
{
	char *fn = ks_xasprintf("ks_launch_%s", kernel);
	int found = strstr(text, fn) != NULL;

	free(fn);
	return found;
}

/* ------------------------------------------------------------------ */
/* The names of helpers: two instances of one template                 */

static int
tok_is(const char *s, const struct ks_token *t, const char *const *set)
{
	for (; *set; set++)
		if (ks_lex_ident(s, t, *set))
			return 1;
	return 0;
}

static void
push_name(struct ks_strv *out, const char *s, const struct ks_token *t)
{
	char *n = ks_xstrndup(s + t->begin, t->end - t->begin);

	if (ks_strv_find(out, n) < 0)
		ks_strv_push(out, n);
	free(n);
}

/* The name a #define directive defines, into `out`. */
static void
define_name(const char *s, const struct ks_token *t, struct ks_strv *out)
{
	size_t i = t->begin + 1, b;

	while (i < t->end && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (t->end - i < 6 || strncmp(s + i, "define", 6))
		return;
	for (i += 6; i < t->end && (s[i] == ' ' || s[i] == '\t'); i++)
		;
	for (b = i; i < t->end && ks_lex_ident_char((unsigned char)s[i]); i++)
		;
	if (i > b && ks_lex_ident_start((unsigned char)s[b])) {
		char *n = ks_xstrndup(s + b, i - b);

		if (ks_strv_find(out, n) < 0)
			ks_strv_push(out, n);
		free(n);
	}
}

/*
 * The names a variant's helpers declare at file scope, read lexically: a
 * function's (the name before its first '(' that is not an attribute's
 * like __launch_bounds__), a struct's, class's, union's or enum's, a
 * `using` alias's, a macro's, and otherwise each declarator's last name
 * before '=', '[', ',' or ';' (variables, typedefs). -1 for what it
 * cannot read: a namespace or a linkage block.
 */
static int
helper_names(const char *h, struct ks_strv *out)
{
	static const char *const tags[] = { "struct", "class", "union", "enum", NULL };
	static const char *const notnames[] = { "alignas", "decltype", "sizeof",
						"operator", NULL };
	/* words of a declaration that are never its name */
	static const char *const words[] = {
		"void", "bool", "char", "short", "int", "long", "float", "double",
		"signed", "unsigned", "const", "volatile", "static", "inline",
		"extern", "typedef", "constexpr", "auto", "register", "mutable",
		"thread_local", "typename", "friend", "virtual", "explicit", NULL
	};
	struct ks_lexer lx;
	struct ks_token t, last = { KS_T_EOF, 0, 0 };
	int depth = 0, paren = 0, angle = 0, named = 0, fn = 0, tag = 0,
	    alias = 0, tmpl = 0;

	ks_lex_init(&lx, h, strlen(h));
	while (ks_lex(&lx, &t) != KS_T_EOF) {
		if (depth > 0) {
			depth += ks_lex_punct(h, &t, '{') - ks_lex_punct(h, &t, '}');
			if (!depth && fn)	/* a function's body: its end */
				named = fn = tag = alias = 0, last.kind = KS_T_EOF;
			continue;
		}
		if (t.kind == KS_T_DIRECTIVE) {
			define_name(h, &t, out);
			continue;
		}
		if (tmpl) {	/* a template header's parameters */
			angle += ks_lex_punct(h, &t, '<') - ks_lex_punct(h, &t, '>');
			if (!angle)
				tmpl = 0;
			continue;
		}
		if (t.kind == KS_T_IDENT) {
			if (ks_lex_ident(h, &t, "namespace"))
				return -1;
			if (ks_lex_ident(h, &t, "template")) {
				tmpl = 1;
				continue;
			}
			if (named || paren)
				continue;
			if ((tag || alias) && (!strncmp(h + t.begin, "__", 2) ||
					       tok_is(h, &t, notnames))) {
				continue;	/* struct __align__(16) name */
			} else if (tag || alias) {
				push_name(out, h, &t);
				named = 1;
				tag = alias = 0;
			} else if (tok_is(h, &t, tags)) {
				tag = 1;
			} else if (ks_lex_ident(h, &t, "using")) {
				alias = 1;
			} else if (!tok_is(h, &t, words)) {
				last = t;
			}
			continue;
		}
		if (t.kind == KS_T_STRING && !paren && !named)
			return -1;	/* extern "C" and the like */
		if (ks_lex_punct(h, &t, '(')) {
			struct ks_lexer peek = lx;
			struct ks_token p;

			/* a declarator in parentheses: (*name)(...), (&name)[4] */
			if (!paren && !named && !tag && !alias &&
			    ks_lex(&peek, &p) == KS_T_PUNCT && ks_lex_punct_in(h, &p, "*&") &&
			    ks_lex(&peek, &p) == KS_T_IDENT) {
				push_name(out, h, &p);
				named = 1;
			}
			if (!paren++ && !named && !tag && !alias &&
			    last.kind == KS_T_IDENT &&
			    strncmp(h + last.begin, "__", 2) &&
			    !tok_is(h, &last, notnames)) {
				push_name(out, h, &last);
				named = fn = 1;
			}
		} else if (ks_lex_punct(h, &t, ')')) {
			if (paren)
				paren--;
		} else if (paren) {
			continue;
		} else if (ks_lex_punct(h, &t, '{')) {
			depth = 1;
			if (!fn)	/* a struct's or an initializer's */
				last.kind = KS_T_EOF;
		} else if (ks_lex_punct_in(h, &t, "=[,;")) {
			if (!named && last.kind == KS_T_IDENT)
				push_name(out, h, &last);
			named = !ks_lex_punct_in(h, &t, ",;");
			if (ks_lex_punct_in(h, &t, ",;"))
				last.kind = KS_T_EOF;
			if (ks_lex_punct(h, &t, ';'))
				fn = tag = alias = 0;
		}
	}
	return 0;
}

/* The names a variant declares at file scope: its helpers', and its
 * launcher part's but the launcher itself (the rewriter names that one
 * per job). -1 when they cannot be read. */
static int
variant_names(const struct ks_rewrite_variant *v, struct ks_strv *out)
{
	struct ks_strv l = KS_STRV_INIT;
	size_t i;

	if ((present(&v->helpers) && helper_names(v->helpers.text, out)) ||
	    (present(&v->launcher) && helper_names(v->launcher.text, &l))) {
		ks_strv_release(&l);
		return -1;
	}
	for (i = 0; i < l.n; i++)
		if (!ks_starts_with(l.v[i], "ks_launch_") && ks_strv_find(out, l.v[i]) < 0)
			ks_strv_push(out, l.v[i]);
	ks_strv_release(&l);
	return 0;
}

/* Do two variants declare a name in common (or one that cannot be
 * read)? 1, -1 or 0; the common names into `common` when not NULL. */
static int
variants_collide(const struct ks_rewrite_variant *a, const struct ks_rewrite_variant *b,
		 struct ks_strv *common)
{
	struct ks_strv na = KS_STRV_INIT, nb = KS_STRV_INIT;
	int rc = 0;
	size_t i;
	int ra = variant_names(a, &na), rb = variant_names(b, &nb);

	/* one that declares nothing collides with none */
	if ((!ra && !na.n) || (!rb && !nb.n))
		goto out;
	if (ra || rb) {
		rc = -1;
		goto out;
	}
	for (i = 0; i < nb.n; i++)
		if (ks_strv_find(&na, nb.v[i]) >= 0) {
			rc = 1;
			if (common)
				ks_strv_push(common, nb.v[i]);
		}
out:
	ks_strv_release(&na);
	ks_strv_release(&nb);
	return rc;
}

/* Append to `out` the words of s[b..e) (a directive's text), each of
 * `names` suffixed. */
static void
rename_words(const char *s, size_t b, size_t e, const struct ks_strv *names,
	     const char *suffix, struct ks_buf *out)
{
	size_t i = b, w;

	while (i < e) {
		if (!ks_lex_ident_start((unsigned char)s[i]) ||
		    (i > b && ks_lex_ident_char((unsigned char)s[i - 1]))) {
			ks_buf_add(out, s + i, 1);
			i++;
			continue;
		}
		for (w = i; i < e && ks_lex_ident_char((unsigned char)s[i]); i++)
			;
		ks_buf_add(out, s + w, i - w);
		for (size_t k = 0; k < names->n; k++)
			if (strlen(names->v[k]) == i - w && !strncmp(s + w, names->v[k], i - w))
				ks_buf_adds(out, suffix);
	}
}

/* `s` with every use of `names` suffixed: members and qualified uses too,
 * so a struct of the helpers keeps its members' names consistent. */
static char *
rename_text(const char *s, const struct ks_strv *names, const char *suffix)
{
	struct ks_buf out = KS_BUF_INIT;
	struct ks_lexer lx;
	struct ks_token t;
	size_t pos = 0;

	ks_lex_init(&lx, s, strlen(s));
	while (ks_lex(&lx, &t) != KS_T_EOF) {
		char *n;

		if (t.kind == KS_T_DIRECTIVE) {
			ks_buf_add(&out, s + pos, t.begin - pos);
			rename_words(s, t.begin, t.end, names, suffix, &out);
			pos = t.end;
			continue;
		}
		if (t.kind != KS_T_IDENT)
			continue;
		n = ks_xstrndup(s + t.begin, t.end - t.begin);
		if (ks_strv_find(names, n) >= 0) {
			ks_buf_add(&out, s + pos, t.end - pos);
			ks_buf_adds(&out, suffix);
			pos = t.end;
		}
		free(n);
	}
	ks_buf_adds(&out, s + pos);
	return ks_buf_detach(&out, NULL);
}

/* A job's variant with the names its helpers share with an earlier
 * instance of its template renamed. */
struct renamed {
	char *text[3];
	struct ks_rewrite_variant v;
};

static void
renamed_release(struct renamed *r, size_t n)
{
	for (size_t i = 0; r && i < n; i++)
		for (size_t p = 0; p < 3; p++)
			free(r[i].text[p]);
	free(r);
}

static int same_template(const struct ks_rewrite_job *x, const struct ks_rewrite_job *y);

/*
 * Two instances of one template whose variants both have helpers: each
 * helper name the later shares with an earlier is renamed in all of the
 * later's parts ("ks_sb_k" -> "ks_sb_k_i1"), so the two specializations
 * sit in one TU. *own (with *rn) is NULL where no job needs it. A
 * helper that cannot be read is left to plan_job's refusal.
 */
static void
rename_instances(const struct ks_rewrite_job *jobs, size_t njobs,
		 struct ks_rewrite_job **own, struct renamed **rn)
{
	size_t ji, x;

	*own = NULL;
	*rn = NULL;
	for (ji = 1; ji < njobs; ji++) {
		const struct ks_rewrite_variant *v = jobs[ji].variant;
		struct ks_strv common = KS_STRV_INIT;
		char suffix[32];

		if (!jobs[ji].args)
			continue;
		for (x = 0; x < ji; x++) {
			const struct ks_rewrite_job *e = *own ? &(*own)[x] : &jobs[x];

			if (same_template(e, &jobs[ji]))
				variants_collide(e->variant, v, &common);
		}
		if (!common.n) {
			ks_strv_release(&common);
			continue;
		}
		if (!*own) {
			*own = ks_xcalloc(njobs, sizeof(**own));
			memcpy(*own, jobs, njobs * sizeof(**own));
			*rn = ks_xcalloc(njobs, sizeof(**rn));
		}
		snprintf(suffix, sizeof(suffix), "_i%zu", ji);
		(*rn)[ji].v = *v;
		(*rn)[ji].v.helpers.text = (*rn)[ji].text[0] =
			rename_text(v->helpers.text, &common, suffix);
		(*rn)[ji].v.definition.text = (*rn)[ji].text[1] =
			rename_text(v->definition.text, &common, suffix);
		if (present(&v->launcher))
			(*rn)[ji].v.launcher.text = (*rn)[ji].text[2] =
				rename_text(v->launcher.text, &common, suffix);
		(*own)[ji].variant = &(*rn)[ji].v;
		ks_strv_release(&common);
	}
}

int
ks_rewrite_variants_coexist(const struct ks_rewrite_variant *a,
			    const struct ks_rewrite_variant *b)
{
	return variants_collide(a, b, NULL) >= 0;
}

/* Is job `x` an instance of the same template as job `y`? */
static int
same_template(const struct ks_rewrite_job *x, const struct ks_rewrite_job *y)
{
	return x->args && y->args && x->kernel->def_begin == y->kernel->def_begin &&
	       !strcmp(x->kernel->name, y->kernel->name);
}

/* Does a job of job `ji`'s template need the launcher template? */
static int
template_launcher(const struct ks_rewrite_job *jobs, size_t njobs, size_t ji)
{
	size_t i;

	for (i = 0; i < njobs; i++)
		if (same_template(&jobs[i], &jobs[ji]) && uses_launcher(&jobs[i]))
			return 1;
	return 0;
}

static int specialization_of(const char *def, const char *name,
			     size_t *name_end);
static int check_inst_launcher(const char *src, size_t len,
			       const struct ks_rewrite_job *j, size_t from,
			       struct ks_buf *err);
static void emit_instance(struct ks_buf *out, const struct ks_rewrite_job *j);
static void emit_template_glue(struct ks_buf *out, const char *src, size_t len,
			       const struct ks_rewrite_job *jobs, size_t njobs,
			       size_t ji);
static void emit_inst_launch(struct ks_buf *out, const char *src,
			     const struct lines *l, const char *path,
			     const struct ks_rewrite_job *j, const struct edit *e);

/* The checks of one instance job (see ks_rewrite_instances). */
static int
plan_instance(const char *src, size_t len, const struct lines *l,
	      const struct ks_rewrite_job *jobs, size_t njobs, size_t ji,
	      size_t from, struct ks_buf *err)
{
	const struct ks_rewrite_job *j = &jobs[ji];
	const struct ks_rewrite_kernel *k = j->kernel;
	const struct ks_rewrite_variant *v = j->variant;
	size_t line = line_of(l, k->def_begin), i, name_end;

	specialization_of(v->definition.text, k->name, &name_end);
	if (!name_end)
		return refuse(err, k->name, "the variant does not define "
			      "%s<%s>", k->name, j->args);
	for (i = 0; i < k->nlaunches; i++)
		if (k->launches[i].begin < k->def_end)
			return refuse(err, k->name, "the launch at line %zu "
				      "comes before the definition (line "
				      "%zu): %s<%s> would be instantiated "
				      "before its specialization",
				      line_of(l, k->launches[i].begin), line,
				      k->name, j->args);
	for (i = 0; i < ji; i++) {
		if (!same_template(&jobs[i], j))
			continue;
		if (!strcmp(jobs[i].args, j->args))
			return refuse(err, k->name, "two variants for %s<%s>",
				      k->name, j->args);
		if (variants_collide(jobs[i].variant, v, NULL))
			return refuse(err, k->name, "two variants with helpers "
				      "for instances of one template (%s<%s> and "
				      "%s<%s>): their names would collide",
				      k->name, jobs[i].args, k->name, j->args);
	}
	if (template_launcher(jobs, njobs, ji) &&
	    check_inst_launcher(src, len, j, from, err))
		return -1;
	return 0;
}

/* Validate job `ji` and add its edits. */
static int
plan_job(const char *src, size_t len, const struct lines *l,
	 const struct ks_rewrite_job *jobs, size_t njobs, size_t ji,
	 struct edit **edits, size_t *nedits, size_t *alloc, struct ks_buf *err)
{
	const struct ks_rewrite_job *j = &jobs[ji];
	const struct ks_rewrite_kernel *k = j->kernel;
	const struct ks_rewrite_variant *v = j->variant;
	size_t from, line, i, first;
	int is_template, redirect;

	if (!k->name || !*k->name || k->def_begin >= k->def_end ||
	    k->def_end > len)
		return refuse(err, k->name ? k->name : "", "its extent is "
			      "outside the file");
	line = line_of(l, k->def_begin);
	if (!present(&v->definition) || !v->file || v->arch < 10 ||
	    (j->args && !*j->args))
		return refuse(err, k->name, "the variant has no definition, "
			      "file, arch or instance");
	from = decl_start(src, len, k->def_begin);
	if (check_definition(src, from, k->def_end, k->name, line,
			     &is_template, err))
		return -1;
	if (is_template && !j->args)
		return refuse(err, k->name, "template kernels are not "
			      "supported (line %zu)", line);
	if (!is_template && j->args)
		return refuse(err, k->name, "it is not a template (line %zu)",
			      line);
	if (*nedits + 1 + k->nlaunches > *alloc) {
		*alloc = 2 * (*nedits + 1 + k->nlaunches);
		*edits = ks_xrealloc(*edits, *alloc * sizeof(**edits));
	}
	if (j->args) {
		if (plan_instance(src, len, l, jobs, njobs, ji, from, err))
			return -1;
		/* The specialization goes after the template, which stays. */
		(*edits)[(*nedits)++] = (struct edit){ k->def_end, k->def_end,
						       ji, (size_t)-1, 0, 0 };
	} else {
		(*edits)[(*nedits)++] = (struct edit){ from, k->def_end, ji,
						       (size_t)-1, 0, 0 };
	}
	if (present(&v->helpers) && emit_helpers(NULL, v, k->name, err))
		return -1;
	if (uses_launcher(j) && !names_launcher(v->launcher.text, k->name))
		return refuse(err, k->name, "the launcher does not define "
			      "ks_launch_%s", k->name);
	/* The launches are redirected once: by the template's first job. */
	for (first = 0; j->args && first < ji; first++)
		if (same_template(&jobs[first], j))
			break;
	redirect = j->args ? first == ji && template_launcher(jobs, njobs, ji)
			   : uses_launcher(j);
	if (!redirect)
		return 0;
	if (k->foreign_launches)
		return refuse(err, k->name, "%zu of its launches are in other "
			      "files, where the launcher cannot reach",
			      k->foreign_launches);
	for (i = 0; i < k->nlaunches; i++) {
		const struct ks_rewrite_launch *lc = &k->launches[i];
		size_t at, callee_end = 0, config = 0;

		if (lc->begin >= lc->end || lc->end > len || !lc->grid ||
		    !lc->block)
			return refuse(err, k->name, "launch %zu has no extent "
				      "or configuration", i);
		at = line_of(l, lc->begin);
		if (lc->device_side)
			return refuse(err, k->name, "the launch at line %zu is "
				      "in device code, where the launcher "
				      "cannot run", at);
		if (lc->begin < k->def_end)
			return refuse(err, k->name, "the launch at line %zu "
				      "comes before the definition (line %zu)",
				      at, line);
		if (lc->macro)
			return refuse(err, k->name, "the launch at line %zu is "
				      "not rewritable: launch inside macro %s",
				      at, lc->macro);
		if (in_directive(src, len, lc->begin))
			return refuse(err, k->name, "the launch at line %zu is "
				      "inside a preprocessor directive", at);
		if (check_launch(src, lc, k->name, at, j->args != NULL,
				 &callee_end, &config, err))
			return -1;
		(*edits)[(*nedits)++] = (struct edit){ lc->begin, lc->end, ji, i,
						       callee_end, config };
	}
	return check_other_uses(src, len, l, k, from, err);
}

int
ks_rewrite(const char *src, size_t len, const char *path,
	   const struct ks_rewrite_job *jobs, size_t njobs, struct ks_buf *out,
	   struct ks_buf *err)
{
	struct ks_buf text = KS_BUF_INIT;
	struct edit *edits = NULL;
	struct ks_rewrite_job *own;
	struct renamed *rn;
	size_t nedits = 0, alloc = 0, i, pos = 0;
	struct lines l;
	int rc = -1;

	lines_init(&l, src, len);
	rename_instances(jobs, njobs, &own, &rn);
	if (own)
		jobs = own;
	for (i = 0; i < njobs; i++)
		if (plan_job(src, len, &l, jobs, njobs, i, &edits, &nedits,
			     &alloc, err))
			goto out;
	if (nedits)
		qsort(edits, nedits, sizeof(*edits), cmp_edits);
	for (i = 1; i < nedits; i++) {
		if (edits[i].begin < edits[i - 1].end) {
			refuse(err, jobs[edits[i].job].kernel->name,
			       "its text at line %zu overlaps that of "
			       "kernel '%s'",
			       line_of(&l, edits[i].begin),
			       jobs[edits[i - 1].job].kernel->name);
			goto out;
		}
	}
	ks_buf_adds(&text, "/* ks-nvcc: verified variants replace ");
	for (i = 0; i < njobs; i++)
		ks_buf_addf(&text, "%s%s%s%s%s (arch %u)", i ? ", " : "",
			    jobs[i].kernel->name, jobs[i].args ? "<" : "",
			    jobs[i].args ? jobs[i].args : "",
			    jobs[i].args ? ">" : "", jobs[i].variant->arch);
	ks_buf_adds(&text, "; see docs/REWRITE.md */\n");
	for (i = 0; i < nedits; i++) {
		const struct ks_rewrite_job *j = &jobs[edits[i].job];
		size_t ji = edits[i].job, x;

		/* two instances at one offset: no empty piece between them */
		if (!j->args || edits[i].launch != (size_t)-1 ||
		    edits[i].begin > pos)
			add_user(&text, src, &l, path, pos, edits[i].begin);
		if (edits[i].launch != (size_t)-1) {
			if (j->args)
				emit_inst_launch(&text, src, &l, path, j, &edits[i]);
			else
				emit_launch(&text, src, &l, path, j, &edits[i]);
		} else if (!j->args) {
			emit_definition(&text, src, &l, path, j, edits[i].begin);
		} else {
			emit_instance(&text, j);
			/* After the template's last instance: its launcher
			 * template, where its launches are redirected. */
			for (x = ji + 1; x < njobs && !same_template(&jobs[x], j); x++)
				;
			if (x == njobs && template_launcher(jobs, njobs, ji))
				emit_template_glue(&text, src, len, jobs, njobs, ji);
		}
		pos = edits[i].end;
	}
	add_user(&text, src, &l, path, pos, len);
	ensure_newline(&text);
	ks_buf_add(out, text.buf, text.len);
	rc = 0;
out:
	ks_buf_release(&text);
	free(edits);
	lines_release(&l);
	renamed_release(rn, njobs);
	free(own);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Template instances                                                  */

/* Does `def` open with `template <>` (an explicit specialization)? Sets
 * *name_end to the end of the kernel's name before its '(' or '<'. */
static int
specialization_of(const char *def, const char *name, size_t *name_end)
{
	struct ks_lexer lx;
	struct ks_token t, n;
	int first = 1, spec = 0;

	*name_end = 0;
	ks_lex_init(&lx, def, strlen(def));
	while (ks_lex(&lx, &t) != KS_T_EOF && !ks_lex_punct(def, &t, '{')) {
		if (first && ks_lex_ident(def, &t, "template")) {
			struct ks_lexer peek = lx;

			if (ks_lex(&peek, &n) != KS_T_EOF && ks_lex_punct(def, &n, '<') &&
			    ks_lex(&peek, &n) != KS_T_EOF && ks_lex_punct(def, &n, '>'))
				spec = 1;
		}
		first = 0;
		if (!*name_end && ks_lex_ident(def, &t, name)) {
			struct ks_lexer peek = lx;

			if (ks_lex(&peek, &n) != KS_T_EOF &&
			    (ks_lex_punct(def, &n, '(') || ks_lex_punct(def, &n, '<')))
				*name_end = t.end;
		}
	}
	return spec;
}

struct span {
	size_t b, e;
};

/*
 * The items of the list whose opening bracket `lx` has just read, up to
 * the closer `close` at depth 0 (depth over ( [ { and, with `angles`,
 * < >), split at commas: their [b, e) into *items (owned; one empty
 * item for "()"). Returns 0, or -1 at the end of the text.
 */
static int
list_spans(struct ks_lexer *lx, char close, int angles, struct span **items,
	   size_t *n)
{
	const char *s = lx->s;
	struct ks_token t;
	size_t item = lx->pos;
	int depth = 0;

	*items = NULL;
	*n = 0;
	while (ks_lex(lx, &t) != KS_T_EOF) {
		int end = depth == 0 && ks_lex_punct(s, &t, close);

		if (!end && (ks_lex_punct_in(s, &t, "([{") ||
			     (angles && ks_lex_punct(s, &t, '<'))))
			depth++;
		else if (!end && (ks_lex_punct_in(s, &t, ")]}") ||
				  (angles && ks_lex_punct(s, &t, '>'))))
			depth--;
		if (end || (depth == 0 && ks_lex_punct(s, &t, ','))) {
			size_t e = t.begin;

			while (item < e && isspace((unsigned char)s[item]))
				item++;
			while (e > item && isspace((unsigned char)s[e - 1]))
				e--;
			*items = KS_GROW(*items, *n, NULL);
			(*items)[(*n)++] = (struct span){ item, e };
			item = t.end;
			if (end)
				return 0;
		}
	}
	free(*items);
	*items = NULL;
	*n = 0;
	return -1;
}

/* Words that end a declaration without naming it ("int", "class T"'s
 * "class" when T is missing). */
static const char *const unnamed_words[] = {
	"auto", "bool", "char", "class", "const", "double", "float", "int",
	"long", "short", "signed", "size_t", "typename", "unsigned", "void",
	"volatile",
};

/*
 * The name a parameter declares: its last identifier at depth 0 before a
 * '=' at depth 0. *pack when it holds "...". An empty span when it names
 * nothing.
 */
static struct span
param_name(const char *s, struct span it, int *pack)
{
	struct ks_lexer lx;
	struct ks_token t;
	struct span name = { 0, 0 };
	int depth = 0, dots = 0;
	size_t i;

	*pack = 0;
	ks_lex_init(&lx, s, it.e);
	lx.pos = it.b;
	while (ks_lex(&lx, &t) != KS_T_EOF) {
		dots = ks_lex_punct(s, &t, '.') ? dots + 1 : 0;
		*pack |= dots == 3;
		if (depth == 0 && ks_lex_punct(s, &t, '='))
			break;
		if (ks_lex_punct_in(s, &t, "([{<"))
			depth++;
		else if (ks_lex_punct_in(s, &t, ")]}>"))
			depth--;
		else if (depth == 0 && t.kind == KS_T_IDENT)
			name = (struct span){ t.begin, t.end };
	}
	for (i = 0; i < KS_ARRAY_SIZE(unnamed_words); i++)
		if (name.e - name.b == strlen(unnamed_words[i]) &&
		    !memcmp(s + name.b, unnamed_words[i], name.e - name.b))
			return (struct span){ 0, 0 };
	return name;
}

/* Is the list one empty item (or "void")? */
static int
empty_list(const char *s, const struct span *items, size_t n)
{
	size_t b, e;

	if (n != 1)
		return n == 0;
	for (b = items[0].b; b < items[0].e && isspace((unsigned char)s[b]); b++)
		;
	for (e = items[0].e; e > b && isspace((unsigned char)s[e - 1]); e--)
		;
	return e == b || (e - b == 4 && !memcmp(s + b, "void", 4));
}

/*
 * The names of a parameter list's items, ", "-separated, into `names`,
 * their number into *n; -1 (a reason in `why`) for a pack or an item
 * that names nothing.
 */
static int
list_names(const char *s, const struct span *items, size_t count,
	   struct ks_buf *names, size_t *n, struct ks_buf *why)
{
	size_t i;

	*n = 0;
	if (empty_list(s, items, count))
		return 0;
	for (i = 0; i < count; i++) {
		int pack;
		struct span nm = param_name(s, items[i], &pack);

		if (pack)
			return ks_error(why, "parameter %zu is a pack", i + 1);
		if (nm.e == nm.b)
			return ks_error(why, "parameter %zu has no name", i + 1);
		ks_buf_addf(names, "%s%.*s", i ? ", " : "", (int)(nm.e - nm.b),
			    s + nm.b);
		(*n)++;
	}
	return 0;
}

/*
 * The template's shape for its launcher template: the header
 * (`template <class T, int B = 4>`) as written, its parameters' names
 * ("T, B"), the kernel's parameter list as written and its names, and
 * their number.
 */
static int
template_shape(const char *src, size_t len, const struct ks_rewrite_kernel *k,
	       size_t from, struct ks_buf *hdr, struct ks_buf *tnames,
	       struct ks_buf *params, struct ks_buf *pnames, size_t *nparams,
	       struct ks_buf *err)
{
	struct ks_lexer lx;
	struct ks_token t, prev = { KS_T_EOF, 0, 0 };
	struct span *items = NULL;
	struct ks_buf why = KS_BUF_INIT;
	size_t n = 0, open = 0;
	int rc = -1;

	(void)len;
	ks_lex_init(&lx, src, k->def_end);
	lx.pos = from;
	if (ks_lex(&lx, &t) != KS_T_IDENT || !ks_lex_ident(src, &t, "template") ||
	    ks_lex(&lx, &t) != KS_T_PUNCT || !ks_lex_punct(src, &t, '<') ||
	    list_spans(&lx, '>', 1, &items, &n)) {
		refuse(err, k->name, "its template header was not found");
		goto out;
	}
	ks_buf_add(hdr, src + from, lx.pos - from);
	if (empty_list(src, items, n) ||
	    list_names(src, items, n, tnames, &open, &why)) {
		refuse(err, k->name, "its template parameters cannot be named "
		       "in a launcher template (%s)",
		       why.len ? why.buf : "no parameter");
		goto out;
	}
	free(items);
	items = NULL;
	while (ks_lex(&lx, &t) != KS_T_EOF && !ks_lex_punct(src, &t, '{')) {
		if (ks_lex_punct(src, &t, '(') && ks_lex_ident(src, &prev, k->name)) {
			open = t.end;
			break;
		}
		prev = t;
	}
	if (!open || list_spans(&lx, ')', 1, &items, &n)) {
		refuse(err, k->name, "its parameter list was not found");
		goto out;
	}
	if (list_names(src, items, n, pnames, nparams, &why)) {
		refuse(err, k->name, "its parameters cannot be passed on by a "
		       "launcher (%s)", why.buf);
		goto out;
	}
	if (*nparams)
		ks_buf_add(params, src + items[0].b, items[n - 1].e - items[0].b);
	rc = 0;
out:
	free(items);
	ks_buf_release(&why);
	return rc;
}

/*
 * The parameters of an instance job's launcher after the four of the
 * configuration, as written, their names and their number.
 */
static int
inst_launcher_params(const struct ks_rewrite_job *j, struct ks_buf *params,
		     struct ks_buf *names, size_t *n, struct ks_buf *err)
{
	const char *s = j->variant->launcher.text;
	char *fn = ks_xasprintf("ks_launch_%s", j->kernel->name);
	struct ks_lexer lx;
	struct ks_token t, prev = { KS_T_EOF, 0, 0 };
	struct span *items = NULL;
	struct ks_buf why = KS_BUF_INIT;
	size_t count = 0;
	int rc = -1, found = 0;

	*n = 0;
	ks_lex_init(&lx, s, strlen(s));
	while (!found && ks_lex(&lx, &t) != KS_T_EOF) {
		found = ks_lex_punct(s, &t, '(') && ks_lex_ident(s, &prev, fn);
		prev = t;
	}
	if (!found || list_spans(&lx, ')', 1, &items, &count) || count < 4) {
		refuse(err, j->kernel->name, "the launcher of %s<%s> does not "
		       "take the four values of a configuration first",
		       j->kernel->name, j->args);
		goto out;
	}
	if (list_names(s, items + 4, count - 4, names, n, &why)) {
		refuse(err, j->kernel->name, "the launcher of %s<%s>: %s",
		       j->kernel->name, j->args, why.buf);
		goto out;
	}
	if (*n)
		ks_buf_add(params, s + items[4].b, items[count - 1].e - items[4].b);
	rc = 0;
out:
	free(items);
	free(fn);
	ks_buf_release(&why);
	return rc;
}

/* Does one job of the template need the launcher template, and can its
 * launcher take the kernel's arguments? */
static int
check_inst_launcher(const char *src, size_t len, const struct ks_rewrite_job *j,
		    size_t from, struct ks_buf *err)
{
	struct ks_buf b[6];
	size_t n = 0, m = 0, i;
	int rc;

	for (i = 0; i < KS_ARRAY_SIZE(b); i++)
		ks_buf_init(&b[i], 0);
	rc = template_shape(src, len, j->kernel, from, &b[0], &b[1], &b[2], &b[3],
			    &n, err);
	if (!rc && uses_launcher(j))
		rc = inst_launcher_params(j, &b[4], &b[5], &m, err);
	if (!rc && uses_launcher(j) && m != n)
		rc = refuse(err, j->kernel->name, "the launcher of %s<%s> takes "
			    "%zu parameters after the configuration, the kernel "
			    "%zu", j->kernel->name, j->args, m, n);
	for (i = 0; i < KS_ARRAY_SIZE(b); i++)
		ks_buf_release(&b[i]);
	return rc;
}

static void
emit_instance(struct ks_buf *out, const struct ks_rewrite_job *j)
{
	const struct ks_rewrite_variant *v = j->variant;
	const char *def = v->definition.text;
	size_t name_end;
	int spec = specialization_of(def, j->kernel->name, &name_end);

	ensure_newline(out);
	if (present(&v->helpers))
		emit_helpers(out, v, j->kernel->name, NULL);
	ks_buf_addf(out, "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == %u\n",
		    v->arch);
	add_line_directive(out, v->definition.line ? v->definition.line : 1,
			   v->file);
	if (spec) {
		ks_buf_adds(out, def);
	} else {
		/* the plain definition, made the instance's specialization
		 * on its own lines (no newline is added) */
		ks_buf_adds(out, "template <> ");
		ks_buf_add(out, def, name_end);
		ks_buf_addf(out, "<%s>", j->args);
		ks_buf_adds(out, def + name_end);
	}
	ensure_newline(out);
	ks_buf_adds(out, "#endif\n");
}

/*
 * Job `ji`'s launcher as a function of its own, `ks_launch_<k>_<ji>`; the
 * kernel's plain name in it (`k<<<`, `cudaOccupancy...(&n, k, ...)`),
 * which names the template now, names the instance (`k<args>`).
 */
static char *
inst_launcher_text(const struct ks_rewrite_job *j, size_t ji)
{
	const char *s = j->variant->launcher.text, *k = j->kernel->name;
	char *fn = ks_xasprintf("ks_launch_%s", k);
	struct ks_buf out = KS_BUF_INIT;
	struct ks_lexer lx;
	struct ks_token t;
	size_t pos = 0;

	ks_lex_init(&lx, s, strlen(s));
	while (ks_lex(&lx, &t) != KS_T_EOF) {
		struct ks_lexer peek = lx;
		struct ks_token n;

		if (ks_lex_ident(s, &t, fn)) {
			ks_buf_add(&out, s + pos, t.end - pos);
			ks_buf_addf(&out, "_%zu", ji);
			pos = t.end;
		} else if (ks_lex_ident(s, &t, k) &&
			   !(ks_lex(&peek, &n) == KS_T_PUNCT &&
			     ks_lex_punct(s, &n, '<') && !ks_lex_triple(&peek, &n, '<'))) {
			ks_buf_add(&out, s + pos, t.end - pos);
			ks_buf_addf(&out, "<%s>", j->args);
			pos = t.end;
		}
	}
	ks_buf_adds(&out, s + pos);
	free(fn);
	return ks_buf_detach(&out, NULL);
}

/*
 * After the last instance of a template whose launches are redirected:
 * the launcher template every host launch calls (the kernel launched as
 * written), and for each job with a launcher its glue, its launcher
 * (renamed) and the launcher template's specialization for its instance,
 * which runs that launcher when the variant's image runs.
 */
static void
emit_template_glue(struct ks_buf *out, const char *src, size_t len,
		   const struct ks_rewrite_job *jobs, size_t njobs, size_t ji)
{
	const struct ks_rewrite_kernel *k = jobs[ji].kernel;
	struct ks_buf hdr = KS_BUF_INIT, tn = KS_BUF_INIT, ps = KS_BUF_INIT,
		      pn = KS_BUF_INIT, err = KS_BUF_INIT;
	size_t n = 0, i;

	if (template_shape(src, len, k, decl_start(src, len, k->def_begin), &hdr,
			   &tn, &ps, &pn, &n, &err))
		goto out;	/* checked by plan_instance */
	ensure_newline(out);
	add_line_directive(out, 1, "<ks-nvcc>");
	ks_buf_addf(out,
		    "#ifndef __CUDA_ARCH__\n"
		    "/* Every host launch of %s calls this; a specialization\n"
		    "   below runs a verified variant's launcher. */\n"
		    "%s static void\n"
		    "ks_launch_%s(dim3 ks_grid, dim3 ks_block, size_t ks_shmem,\n"
		    "\t\tcudaStream_t ks_stream%s%s)\n"
		    "{\n"
		    "\t%s<%s><<<ks_grid, ks_block, ks_shmem, ks_stream>>>(%s);\n"
		    "}\n"
		    "#endif\n",
		    k->name, hdr.buf, k->name, n ? ", " : "", n ? ps.buf : "",
		    k->name, tn.buf, n ? pn.buf : "");
	for (i = 0; i < njobs; i++) {
		const struct ks_rewrite_job *j = &jobs[i];
		struct ks_buf lp = KS_BUF_INIT, ln = KS_BUF_INIT;
		struct ks_rewrite_part part;
		char *name, *text;
		size_t m = 0;

		if (!same_template(j, &jobs[ji]) || !uses_launcher(j) ||
		    inst_launcher_params(j, &lp, &ln, &m, &err))
			continue;
		name = ks_xasprintf("%s_%zu", k->name, i);
		text = inst_launcher_text(j, i);
		glue_open(out, name, j->variant->arch);
		part = j->variant->launcher;
		part.text = text;
		add_part(out, &part, j->variant->file);
		add_line_directive(out, 1, "<ks-nvcc>");
		ks_buf_addf(out,
			    "template <> void\n"
			    "ks_launch_%s<%s>(dim3 ks_grid, dim3 ks_block, size_t ks_shmem,\n"
			    "\t\tcudaStream_t ks_stream%s%s)\n"
			    "{\n"
			    "\tif (ks_variant_active_%s())\n"
			    "\t\tks_launch_%s(ks_grid, ks_block, ks_shmem, ks_stream%s%s);\n"
			    "\telse\n"
			    "\t\t%s<%s><<<ks_grid, ks_block, ks_shmem, ks_stream>>>(%s);\n"
			    "}\n"
			    "#endif\n",
			    k->name, j->args, m ? ", " : "", m ? lp.buf : "", name,
			    name, m ? ", " : "", m ? ln.buf : "", k->name, j->args,
			    m ? ln.buf : "");
		free(name);
		free(text);
		ks_buf_release(&lp);
		ks_buf_release(&ln);
	}
out:
	ks_buf_release(&hdr);
	ks_buf_release(&tn);
	ks_buf_release(&ps);
	ks_buf_release(&pn);
	ks_buf_release(&err);
}

/* A host launch of a template: the launcher template's call, with the
 * launch's own template arguments (none: deduced as the kernel's are). */
static void
emit_inst_launch(struct ks_buf *out, const char *src, const struct lines *l,
		 const char *path, const struct ks_rewrite_job *j,
		 const struct edit *e)
{
	const struct ks_rewrite_launch *lc = &j->kernel->launches[e->launch];
	const char *k = j->kernel->name;
	size_t qual = e->callee_end - strlen(k) - lc->begin, i;

	launch_open(out, src, l, path, lc);
	ks_buf_addf(out, "%.*sks_launch_%s%.*s(%s, %s, %s, %s", (int)qual,
		    src + lc->begin, k, (int)(e->config - e->callee_end),
		    src + e->callee_end, lc->grid, lc->block,
		    lc->shmem ? lc->shmem : "0",
		    lc->stream ? lc->stream : "cudaStream_t()");
	for (i = 0; i < lc->nargs; i++)
		ks_buf_addf(out, ", %s", lc->args[i]);
	ks_buf_adds(out, ")\n#endif\n");
}

int
ks_rewrite_instances(const char *src, size_t len, const char *path,
		     const struct ks_rewrite_instance_job *jobs, size_t njobs,
		     struct ks_buf *out, struct ks_buf *err)
{
	struct ks_rewrite_job *j = ks_xcalloc(njobs ? njobs : 1, sizeof(*j));
	size_t i;
	int rc;

	for (i = 0; i < njobs; i++) {
		j[i].kernel = jobs[i].kernel;
		j[i].variant = jobs[i].variant;
		j[i].args = jobs[i].args ? jobs[i].args : "";
	}
	rc = ks_rewrite(src, len, path, j, njobs, out, err);
	free(j);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Variant files                                                       */

int
ks_rewrite_variant_split(char *text, struct ks_rewrite_variant *v,
			 struct ks_buf *err)
{
	static const char marker[] = "// ks-nvcc: ";
	struct ks_rewrite_part *parts[] = { &v->helpers, &v->definition,
					    &v->launcher };
	static const char *const names[] = { "helpers", "definition",
					     "launcher" };
	char *p = text;
	size_t line = 1, i;

	for (i = 0; i < KS_ARRAY_SIZE(parts); i++)
		parts[i]->text = NULL;
	while (*p) {
		char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		if (n && p[n - 1] == '\r')
			n--;
		for (i = 0; i < KS_ARRAY_SIZE(names); i++) {
			size_t m = sizeof(marker) - 1 + strlen(names[i]);

			if (n != m || strncmp(p, marker, sizeof(marker) - 1) ||
			    strncmp(p + sizeof(marker) - 1, names[i],
				    n - (sizeof(marker) - 1)))
				continue;
			if (parts[i]->text)
				return ks_error(err, "variant: two %s parts "
						"(line %zu)", names[i], line);
			*p = '\0';
			parts[i]->text = nl ? nl + 1 : p + n;
			parts[i]->line = line + 1;
		}
		if (!nl)
			break;
		p = nl + 1;
		line++;
	}
	if (!v->definition.text || !*v->definition.text)
		return ks_error(err, "variant: no definition part");
	return 0;
}

int
ks_rewrite_variant_helpers_first(const char *header, const char *first,
				 struct ks_buf *variant, struct ks_buf *err)
{
	struct ks_rewrite_variant v;
	struct ks_buf out = KS_BUF_INIT;
	char *copy = ks_xstrdup(variant->buf ? variant->buf : "");

	memset(&v, 0, sizeof(v));
	if (ks_rewrite_variant_split(copy, &v, err)) {
		free(copy);
		return -1;
	}
	ks_buf_addf(&out, "// ks-nvcc variant: %s\n// ks-nvcc: helpers\n", header);
	ks_buf_adds(&out, first);
	if (v.helpers.text)
		ks_buf_adds(&out, v.helpers.text);
	ks_buf_adds(&out, "// ks-nvcc: definition\n");
	ks_buf_adds(&out, v.definition.text);
	if (v.launcher.text && *v.launcher.text) {
		ks_buf_adds(&out, "// ks-nvcc: launcher\n");
		ks_buf_adds(&out, v.launcher.text);
	}
	free(copy);
	ks_buf_release(variant);
	*variant = out;
	return 0;
}

/* ------------------------------------------------------------------ */
/* The lexical scan                                                    */

void
ks_rewrite_kernel_release(struct ks_rewrite_kernel *k)
{
	size_t i, j;

	for (i = 0; i < k->nlaunches; i++) {
		struct ks_rewrite_launch *lc = &k->launches[i];

		free(lc->grid);
		free(lc->block);
		free(lc->shmem);
		free(lc->stream);
		for (j = 0; j < lc->nargs; j++)
			free(lc->args[j]);
		free(lc->args);
		free(lc->macro);
	}
	free(k->launches);
	free(k->name);
	memset(k, 0, sizeof(*k));
}

/* A copy of src[b, e) without surrounding blanks. */
static char *
trimmed(const char *s, size_t b, size_t e)
{
	while (b < e && isspace((unsigned char)s[b]))
		b++;
	while (e > b && isspace((unsigned char)s[e - 1]))
		e--;
	return ks_xstrndup(s + b, e - b);
}

/*
 * Read a list up to the closing `close` (">>>" when triple) at nesting
 * depth 0, splitting at commas. `lx` is after the opening; on return it is
 * after the closing. Returns -1 at EOF.
 */
static int
read_list(struct ks_lexer *lx, int triple_close, char close, char ***items,
	  size_t *n)
{
	struct ks_token t;
	size_t item = lx->pos;
	int depth = 0;

	*items = NULL;
	*n = 0;
	while (ks_lex(lx, &t) != KS_T_EOF) {
		int end = depth == 0 &&
			  (triple_close ? ks_lex_triple(lx, &t, '>')
					: ks_lex_punct(lx->s, &t, close));

		if (!end && ks_lex_punct_in(lx->s, &t, "([{"))
			depth++;
		else if (!end && ks_lex_punct_in(lx->s, &t, ")]}"))
			depth--;
		if (end || (depth == 0 && ks_lex_punct(lx->s, &t, ','))) {
			if (end && *n == 0 && !triple_close) {
				char *empty = trimmed(lx->s, item, t.begin);

				/* "()" is no argument, not one empty one */
				if (!*empty) {
					free(empty);
					return 0;
				}
				free(empty);
			}
			*items = KS_GROW(*items, *n, NULL);
			(*items)[(*n)++] = trimmed(lx->s, item, t.begin);
			item = t.end;
			if (end) {
				if (triple_close)
					lx->pos = t.begin + 3;
				return 0;
			}
		}
	}
	/* unterminated: nothing is the caller's to free */
	while (*n)
		free((*items)[--*n]);
	free(*items);
	*items = NULL;
	return -1;
}

enum scope {
	SCOPE_PLAIN,  /* file, namespace, extern "C", class, initializer */
	SCOPE_HOST,   /* a host function's body */
	SCOPE_DEVICE, /* a __global__ or __device__ function's body */
};

/* Parse the launch whose kernel name is `t`; `qual` is where it starts. */
static int
scan_launch(struct ks_lexer *lx, size_t qual, int device,
	    struct ks_rewrite_kernel *k, struct ks_buf *err)
{
	struct ks_rewrite_launch lc;
	char **cfg;
	size_t ncfg, i;
	struct ks_token t;

	memset(&lc, 0, sizeof(lc));
	lc.begin = qual;
	lc.device_side = device;
	ks_lex(lx, &t);			/* the first '<' */
	lx->pos = t.begin + 3;
	if (read_list(lx, 1, 0, &cfg, &ncfg))
		return ks_error(err, "unterminated launch of '%s'", k->name);
	if (ncfg < 2 || ncfg > 4 || ks_lex(lx, &t) == KS_T_EOF ||
	    !ks_lex_punct(lx->s, &t, '(')) {
		for (i = 0; i < ncfg; i++)
			free(cfg[i]);
		free(cfg);
		return ks_error(err,
				"launch of '%s' has %zu configuration values",
				k->name, ncfg);
	}
	lc.grid = cfg[0];
	lc.block = cfg[1];
	lc.shmem = ncfg > 2 ? cfg[2] : NULL;
	lc.stream = ncfg > 3 ? cfg[3] : NULL;
	free(cfg);
	if (read_list(lx, 0, ')', &lc.args, &lc.nargs)) {
		k->launches = KS_GROW(k->launches, k->nlaunches, NULL);
		k->launches[k->nlaunches++] = lc;
		return ks_error(err,
				"unterminated arguments of a launch of '%s'",
				k->name);
	}
	lc.end = lx->pos;
	k->launches = KS_GROW(k->launches, k->nlaunches, NULL);
	k->launches[k->nlaunches++] = lc;
	return 0;
}

/*
 * After `k<` in a function body: where the `<<<` of a launch of a
 * template's instance (`k<float, 4><<<`) starts, or (size_t)-1 when the
 * brackets do not close before the statement ends or no `<<<` follows.
 */
static size_t
template_launch(struct ks_lexer *lx)
{
	struct ks_token t;
	int depth = 1;

	while (ks_lex(lx, &t) != KS_T_EOF) {
		if (t.kind == KS_T_DIRECTIVE || ks_lex_punct_in(lx->s, &t, ";{}"))
			break;
		depth += ks_lex_punct(lx->s, &t, '<') - ks_lex_punct(lx->s, &t, '>');
		if (!depth) {
			if (ks_lex(lx, &t) != KS_T_EOF && ks_lex_triple(lx, &t, '<'))
				return t.begin;
			break;
		}
	}
	return (size_t)-1;
}

int
ks_rewrite_scan(const char *src, size_t len, const char *name,
		struct ks_rewrite_kernel *k, struct ks_buf *err)
{
	struct ks_lexer lx;
	struct ks_token t, hist[4];
	enum scope *stack = NULL;
	size_t depth = 0, alloc = 0, stmt = (size_t)-1, def_depth = 0, defs = 0;
	size_t qual = (size_t)-1;
	int global = 0, device = 0, paren = 0, parens = 0, named = 0, rc = -1;
	int in_def = 0;
	struct lines l;

	memset(k, 0, sizeof(*k));
	memset(hist, 0, sizeof(hist));
	k->name = ks_xstrdup(name);
	lines_init(&l, src, len);
	ks_lex_init(&lx, src, len);
	while (ks_lex(&lx, &t) != KS_T_EOF) {
		enum scope inner = depth ? stack[depth - 1] : SCOPE_PLAIN;

		if (t.kind == KS_T_DIRECTIVE || ks_lex_punct(src, &t, ';')) {
			stmt = (size_t)-1;
			global = device = paren = parens = named = 0;
		} else if (ks_lex_punct(src, &t, '{')) {
			enum scope s = inner;

			if (inner == SCOPE_PLAIN && paren)
				s = device ? SCOPE_DEVICE : SCOPE_HOST;
			if (inner == SCOPE_PLAIN && named) {
				defs++;
				if (defs == 1) {
					k->def_begin = stmt;
					k->line = line_of(&l, stmt);
					in_def = 1;
					def_depth = depth;
				}
			}
			stack = KS_GROW(stack, depth, &alloc);
			stack[depth++] = s;
			stmt = (size_t)-1;
			global = device = paren = parens = named = 0;
		} else if (ks_lex_punct(src, &t, '}')) {
			if (depth)
				depth--;
			if (in_def && depth == def_depth) {
				k->def_end = t.end;
				in_def = 0;
			}
			stmt = (size_t)-1;
			global = device = paren = parens = named = 0;
		} else {
			if (stmt == (size_t)-1)
				stmt = t.begin;
			if (ks_lex_ident(src, &t, "__global__"))
				global = device = 1;
			if (ks_lex_ident(src, &t, "__device__"))
				device = 1;
			if (ks_lex_punct(src, &t, '(') &&
			    ks_lex_ident(src, &hist[0], name) &&
			    inner == SCOPE_PLAIN && !parens)
				named = global;
			if (ks_lex_punct(src, &t, '('))
				parens++;
			if (ks_lex_punct(src, &t, ')')) {
				paren = 1;
				parens -= parens > 0;
			}
		}
		/* Where a qualified name (ns::k, ::k) starts. */
		if (t.kind == KS_T_IDENT) {
			if (!ks_lex_punct(src, &hist[0], ':') ||
			    !ks_lex_punct(src, &hist[1], ':') || qual == (size_t)-1)
				qual = t.begin;
		} else if (ks_lex_punct(src, &t, ':')) {
			if (qual == (size_t)-1)
				qual = t.begin;
		} else {
			qual = (size_t)-1;
		}
		if (ks_lex_ident(src, &t, name) && inner != SCOPE_PLAIN) {
			struct ks_lexer peek = lx;
			struct ks_token n;
			size_t config = (size_t)-1;

			ks_lex(&peek, &n);
			if (ks_lex_triple(&lx, &n, '<'))
				config = n.begin;
			else if (ks_lex_punct(src, &n, '<'))
				config = template_launch(&peek);
			if (config != (size_t)-1) {
				size_t from =
					qual != (size_t)-1 ? qual : t.begin;

				lx.pos = config;
				if (scan_launch(&lx, from,
						inner == SCOPE_DEVICE, k, err))
					goto out;
				memset(hist, 0, sizeof(hist));
				continue;
			}
		}
		memmove(hist + 1, hist, sizeof(hist) - sizeof(hist[0]));
		hist[0] = t;
	}
	if (!defs) {
		ks_error(err, "no definition of kernel '%s'", name);
		rc = -2;
		goto out;
	}
	if (defs > 1) {
		ks_error(err, "kernel '%s' is defined %zu times", name, defs);
		goto out;
	}
	if (in_def) {
		ks_error(err, "the definition of kernel '%s' is not closed",
			 name);
		goto out;
	}
	rc = 0;
out:
	if (rc)
		ks_rewrite_kernel_release(k);
	free(stack);
	lines_release(&l);
	return rc;
}
