/*
 * xfbody: locating calls in a kernel's body and copying the body with
 * coordinates renamed and calls redirected (xfbody.h).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/inventory.h"
#include "../core/buf.h"
#include "xfbody.h"

/* A token of the body: an identifier, a punctuation character, or
 * something skipped (comment, literal, preprocessor line, blank). */
enum tok { T_END, T_IDENT, T_PUNCT, T_OTHER };

struct scan {
	const char *s;
	size_t pos, end;
	unsigned line;		/* of pos */
	int bol;		/* only blanks since the last newline */
};

static void
scan_init(struct scan *sc, const char *text, size_t len,
	  const struct ks_kernel *k)
{
	sc->s = text;
	sc->pos = k->body.begin;
	sc->end = k->body.end < len ? k->body.end : len;
	sc->line = k->body.line ? k->body.line : 1;
	sc->bol = 0;
}

static void
adv(struct scan *sc)
{
	if (sc->s[sc->pos] == '\n') {
		sc->line++;
		sc->bol = 1;
	} else if (!isspace((unsigned char)sc->s[sc->pos])) {
		sc->bol = 0;
	}
	sc->pos++;
}

static int
is_ident_start(int c)
{
	return isalpha(c) || c == '_';
}

static int
is_ident(int c)
{
	return isalnum(c) || c == '_';
}

/* The next token: [*b, sc->pos) after the call, its line in *line. */
static enum tok
next(struct scan *sc, size_t *b, unsigned *line)
{
	const char *s = sc->s;

	while (sc->pos < sc->end) {
		char c = s[sc->pos];

		*b = sc->pos;
		*line = sc->line;
		if (isspace((unsigned char)c)) {
			adv(sc);
			continue;
		}
		if (c == '#' && sc->bol) {
			/* a directive, continuation lines included */
			while (sc->pos < sc->end && s[sc->pos] != '\n') {
				if (s[sc->pos] == '\\' && sc->pos + 1 < sc->end)
					adv(sc);
				adv(sc);
			}
			return T_OTHER;
		}
		if (c == '/' && sc->pos + 1 < sc->end && s[sc->pos + 1] == '/') {
			while (sc->pos < sc->end && s[sc->pos] != '\n')
				adv(sc);
			return T_OTHER;
		}
		if (c == '/' && sc->pos + 1 < sc->end && s[sc->pos + 1] == '*') {
			adv(sc);
			adv(sc);
			while (sc->pos + 1 < sc->end &&
			       !(s[sc->pos] == '*' && s[sc->pos + 1] == '/'))
				adv(sc);
			if (sc->pos + 1 < sc->end) {
				adv(sc);
				adv(sc);
			} else {
				sc->pos = sc->end;
			}
			return T_OTHER;
		}
		if (c == '"' || c == '\'') {
			adv(sc);
			while (sc->pos < sc->end && s[sc->pos] != c &&
			       s[sc->pos] != '\n') {
				if (s[sc->pos] == '\\' && sc->pos + 1 < sc->end)
					adv(sc);
				adv(sc);
			}
			if (sc->pos < sc->end)
				adv(sc);
			return T_OTHER;
		}
		if (isdigit((unsigned char)c) ||
		    (c == '.' && sc->pos + 1 < sc->end &&
		     isdigit((unsigned char)s[sc->pos + 1]))) {
			/* a number, digit separators and exponents included */
			while (sc->pos < sc->end) {
				char d = s[sc->pos];

				if (is_ident(d) || d == '.' || d == '\'') {
					adv(sc);
				} else if ((d == '+' || d == '-') &&
					   strchr("eEpP", s[sc->pos - 1])) {
					adv(sc);
				} else {
					break;
				}
			}
			return T_OTHER;
		}
		if (is_ident_start((unsigned char)c)) {
			while (sc->pos < sc->end && is_ident((unsigned char)s[sc->pos]))
				adv(sc);
			/* a raw string R"d(...)d", u8R"...", LR"..." */
			if (sc->pos < sc->end && s[sc->pos] == '"' &&
			    s[sc->pos - 1] == 'R' && sc->pos - *b <= 3) {
				size_t d0 = sc->pos + 1, d1 = d0;

				while (d1 < sc->end && s[d1] != '(')
					d1++;
				while (sc->pos < sc->end) {
					adv(sc);
					if (s[sc->pos - 1] == ')' &&
					    sc->pos + (d1 - d0) < sc->end &&
					    !memcmp(s + sc->pos, s + d0, d1 - d0) &&
					    s[sc->pos + (d1 - d0)] == '"') {
						while (d0 <= d1) {
							adv(sc);
							d0++;
						}
						break;
					}
				}
				return T_OTHER;
			}
			return T_IDENT;
		}
		adv(sc);
		return T_PUNCT;
	}
	*b = sc->end;
	return T_END;
}

static int
tok_is(const char *s, size_t b, size_t e, const char *word)
{
	size_t n = strlen(word);

	return e - b == n && !memcmp(s + b, word, n);
}

/* The previous significant character before `pos` inside the body,
 * skipping blanks and comments (a simple backwards scan: comments are
 * recognized by their closing marks). */
static int
prev_char(const char *s, size_t begin, size_t pos, size_t *at)
{
	while (pos > begin) {
		pos--;
		if (isspace((unsigned char)s[pos]))
			continue;
		if (s[pos] == '/' && pos > begin && s[pos - 1] == '*') {
			pos--;
			while (pos > begin + 1 &&
			       !(s[pos - 2] == '/' && s[pos - 1] == '*'))
				pos--;
			if (pos >= begin + 2)
				pos -= 2;
			continue;
		}
		*at = pos;
		return (unsigned char)s[pos];
	}
	*at = begin;
	return 0;
}

/* Does the ')' at `at` close the condition of an if, while or for, or a
 * `(void)` cast at the start of a statement? */
static int
closes_condition(const char *s, size_t begin, size_t at)
{
	size_t p = at, w, a2;
	int depth = 0, c;

	for (;;) {
		if (s[p] == ')')
			depth++;
		else if (s[p] == '(' && --depth == 0)
			break;
		if (p == begin)
			return 0;
		p--;
	}
	w = p;
	while (w > begin && isspace((unsigned char)s[w - 1]))
		w--;
	for (size_t i = 0; i < 3; i++) {
		static const char *const kw[] = { "if", "while", "for" };
		size_t n = strlen(kw[i]);

		if (w >= begin + n && !memcmp(s + w - n, kw[i], n) &&
		    (w == begin + n || !is_ident((unsigned char)s[w - n - 1])))
			return 1;
	}
	{
		size_t i = p + 1;

		while (i < at && isspace((unsigned char)s[i]))
			i++;
		if (at - i < 4 || memcmp(s + i, "void", 4))
			return 0;
	}
	c = prev_char(s, begin, p, &a2);
	return c == ';' || c == '{' || c == '}';
}

int
ks_xfbody_find_call(const char *text, size_t len, const struct ks_kernel *k,
		    unsigned line, const char *name, struct ks_xfbody_call *out,
		    struct ks_buf *reason)
{
	struct scan sc;
	size_t b, pb = 0;
	unsigned l;
	int found = 0;
	enum tok t;

	memset(out, 0, sizeof(*out));
	if (k->body.end > len || k->body.begin >= k->body.end) {
		ks_buf_addf(reason, "the kernel's body is not in the text");
		return -1;
	}
	scan_init(&sc, text, len, k);
	while ((t = next(&sc, &b, &l)) != T_END) {
		size_t e = sc.pos, q;
		int depth;

		if (t != T_IDENT || l != line || !tok_is(text, b, e, name))
			continue;
		/* skip blanks to the '(' */
		q = e;
		while (q < sc.end && isspace((unsigned char)text[q]))
			q++;
		if (q >= sc.end || text[q] != '(')
			continue;
		if (found++) {
			ks_buf_addf(reason,
				    "line %u has more than one call of %s", line,
				    name);
			return -1;
		}
		out->name_begin = b;
		out->name_end = e;
		out->open = q;
		/* the matching ')', through the scanner (literals skipped) */
		sc.pos = q;
		depth = 0;
		for (;;) {
			t = next(&sc, &pb, &l);
			if (t == T_END)
				break;
			if (t != T_PUNCT)
				continue;
			if (strchr("([{", text[pb]))
				depth++;
			else if (strchr(")]}", text[pb]) && --depth == 0)
				break;
		}
		if (t == T_END) {
			ks_buf_addf(reason, "the call of %s on line %u does "
					    "not close", name, line);
			return -1;
		}
		out->close = pb;
	}
	if (!found) {
		ks_buf_addf(reason,
			    "no call of %s on line %u of the kernel's body "
			    "(in a helper function or a macro?)",
			    name, line);
		return -1;
	}
	/* A whole expression statement: `;`, `{`, `}`, `)` of a condition
	 * or `else` before it, `;` after it. */
	{
		size_t at, q = out->close + 1;
		int c = prev_char(text, k->body.begin, out->name_begin, &at);
		int before = c == ';' || c == '{' || c == '}' || c == ')' ||
			     (c == ':' && !(at > 0 && text[at - 1] == ':'));

		if (c == 'e' && at >= 3 && !memcmp(text + at - 3, "else", 4) &&
		    (at < 4 || !is_ident((unsigned char)text[at - 4])))
			before = 1;
		if (c == ')')
			before = closes_condition(text, k->body.begin, at);
		while (q < sc.end && isspace((unsigned char)text[q]))
			q++;
		out->discarded = before && q < sc.end && text[q] == ';';
	}
	return 0;
}

int
ks_xfbody_copy(const char *text, size_t len, const struct ks_kernel *k,
	       const struct ks_xfbody_edit *edits, size_t nedits,
	       const struct ks_xfbody_rename *renames, struct ks_buf *out,
	       struct ks_buf *reason)
{
	struct scan sc;
	size_t b, done, ei = 0;
	unsigned l;
	enum tok t;

	if (k->body.end > len || k->body.begin >= k->body.end) {
		ks_buf_addf(reason, "the kernel's body is not in the text");
		return -1;
	}
	for (size_t i = 0; i < nedits; i++)
		if (edits[i].begin < k->body.begin || edits[i].end > k->body.end ||
		    edits[i].end < edits[i].begin ||
		    (i && edits[i].begin < edits[i - 1].end)) {
			ks_buf_addf(reason, "overlapping edits of the body");
			return -1;
		}
	scan_init(&sc, text, len, k);
	done = sc.pos;
	while ((t = next(&sc, &b, &l)) != T_END) {
		if (ei < nedits && b >= edits[ei].begin) {
			/* the token starts inside (or after) the edit */
			ks_buf_add(out, text + done, edits[ei].begin - done);
			ks_buf_adds(out, edits[ei].with);
			done = edits[ei].end;
			sc.pos = done > sc.pos ? done : sc.pos;
			/* keep the line count right past the edit */
			for (size_t q = b; q < done; q++)
				if (text[q] == '\n')
					sc.line++;
			ei++;
			continue;
		}
		if (t != T_IDENT || !renames)
			continue;
		for (size_t i = 0; renames[i].to; i++)
			if (tok_is(text, b, sc.pos, renames[i].from)) {
				ks_buf_add(out, text + done, b - done);
				ks_buf_adds(out, renames[i].to);
				done = sc.pos;
				break;
			}
	}
	if (ei < nedits) {
		ks_buf_add(out, text + done, edits[ei].begin - done);
		ks_buf_adds(out, edits[ei].with);
		done = edits[ei].end;
		ei++;
	}
	if (ei < nedits) {
		ks_buf_addf(reason, "an edit lies outside the body");
		return -1;
	}
	ks_buf_add(out, text + done, sc.end - done);
	return 0;
}

int
ks_xfbody_only_subscripted(const char *text, size_t len,
			   const struct ks_kernel *k, const char *name,
			   struct ks_buf *reason)
{
	struct scan sc;
	size_t b;
	unsigned l;
	enum tok t;

	scan_init(&sc, text, len, k);
	while ((t = next(&sc, &b, &l)) != T_END) {
		size_t q = sc.pos;

		if (t != T_IDENT || !tok_is(text, b, sc.pos, name))
			continue;
		if (b > 0 && (text[b - 1] == '.' ||
			      (b > 1 && text[b - 1] == '>' && text[b - 2] == '-')))
			continue;	/* a member of the same name */
		while (q < sc.end && isspace((unsigned char)text[q]))
			q++;
		if (q >= sc.end || text[q] != '[') {
			ks_buf_addf(reason,
				    "line %u uses %s other than as %s[...]", l,
				    name, name);
			return 0;
		}
	}
	return 1;
}

int
ks_xfbody_params(const struct ks_kernel *k, int retype, const char *rtype,
		 int retype2, const char *rtype2, struct ks_buf *out,
		 struct ks_buf *reason)
{
	for (size_t i = 0; i < k->nparams; i++) {
		const struct ks_param *p = &k->params[i];
		const char *type = p->type;

		if (!*p->name) {
			ks_buf_addf(reason, "parameter %zu has no name", i + 1);
			return -1;
		}
		if ((int)i == retype)
			type = rtype;
		else if ((int)i == retype2)
			type = rtype2;
		/* a pointer to an array (`float (*A)[N]`, `float A[][N]`) is
		 * spelled around its name: GNU typeof names it whole */
		if (strpbrk(type, "(["))
			ks_buf_addf(out, "%s__typeof__(%s) %s", i ? ", " : "", type,
				    p->name);
		else
			ks_buf_addf(out, "%s%s%s%s", i ? ", " : "", type,
				    type[strlen(type) - 1] == '*' ? "" : " ", p->name);
	}
	return 0;
}

void
ks_xfbody_args(const struct ks_kernel *k, struct ks_buf *out)
{
	for (size_t i = 0; i < k->nparams; i++)
		ks_buf_addf(out, "%s%s", i ? ", " : "", k->params[i].name);
}

static const struct ks_xfbody_elem elems[] = {
	{ "float", 4, 1, 1, NULL, NULL },
	{ "double", 8, 1, 1, NULL, NULL },
	{ "int", 4, 0, 1, "(-2147483647 - 1)", "2147483647" },
	{ "unsigned int", 4, 0, 0, "0u", "0xffffffffu" },
	{ "long long", 8, 0, 1, "(-9223372036854775807LL - 1)",
	  "9223372036854775807LL" },
	{ "unsigned long long", 8, 0, 0, "0ull", "0xffffffffffffffffull" },
};

/* Spellings of the same types (words in any order are not accepted:
 * these are the ones code uses). */
static const struct {
	const char *as;
	int elem;
} spellings[] = {
	{ "float", 0 },
	{ "double", 1 },
	{ "int", 2 },
	{ "signed", 2 },
	{ "signed int", 2 },
	{ "int32_t", 2 },
	{ "unsigned", 3 },
	{ "unsigned int", 3 },
	{ "uint32_t", 3 },
	{ "long long", 4 },
	{ "long long int", 4 },
	{ "signed long long", 4 },
	{ "int64_t", 4 },
	{ "unsigned long long", 5 },
	{ "unsigned long long int", 5 },
	{ "uint64_t", 5 },
};

int
ks_xfbody_elem(const struct ks_kernel *k, int param,
	       struct ks_xfbody_elem *out, struct ks_buf *reason)
{
	char words[128];
	const char *t, *star;
	size_t n = 0;

	if (param < 0 || (size_t)param >= k->nparams ||
	    !k->params[param].is_pointer) {
		ks_buf_addf(reason, "the object is not a pointer parameter");
		return -1;
	}
	t = k->params[param].type;
	star = strchr(t, '*');
	if (!star || strchr(star + 1, '*')) {
		ks_buf_addf(reason, "parameter %s is not a pointer to a scalar",
			    k->params[param].name);
		return -1;
	}
	/* the words before the '*', without const and volatile */
	while (t < star) {
		const char *w;

		while (t < star && isspace((unsigned char)*t))
			t++;
		w = t;
		while (t < star && !isspace((unsigned char)*t))
			t++;
		if (t == w || (t - w == 5 && !memcmp(w, "const", 5)) ||
		    (t - w == 8 && !memcmp(w, "volatile", 8)))
			continue;
		if (n + (size_t)(t - w) + 2 > sizeof(words))
			break;
		if (n)
			words[n++] = ' ';
		memcpy(words + n, w, (size_t)(t - w));
		n += (size_t)(t - w);
	}
	words[n] = 0;
	for (size_t i = 0; i < sizeof(spellings) / sizeof(spellings[0]); i++)
		if (!strcmp(words, spellings[i].as)) {
			*out = elems[spellings[i].elem];
			return 0;
		}
	ks_buf_addf(reason, "parameter %s points to '%s', not a plain "
			    "float, double or 32/64-bit integer",
		    k->params[param].name, words);
	return -1;
}

void
ks_xfbody_resident_grid(struct ks_buf *out, const char *var,
			const char *kernel, const char *block,
			const char *shmem, long long waves)
{
	ks_buf_addf(out,
		"\t{\n"
		"\t\t/* blocks resident at once, per device and launch shape */\n"
		"\t\tstatic struct { unsigned threads; size_t shmem; unsigned blocks; } ks_seen[64];\n"
		"\t\tunsigned ks_threads = %s.x * %s.y * %s.z;\n"
		"\t\tint ks_dev = -1, ks_sms = 0, ks_occ = 0;\n"
		"\n"
		"\t\t%s = 0;\n"
		"\t\tif (cudaGetDevice(&ks_dev) == cudaSuccess && ks_dev >= 0 && ks_dev < 64 &&\n"
		"\t\t    ks_seen[ks_dev].blocks && ks_seen[ks_dev].threads == ks_threads &&\n"
		"\t\t    ks_seen[ks_dev].shmem == %s) {\n"
		"\t\t\t%s = ks_seen[ks_dev].blocks;\n"
		"\t\t} else if (ks_dev >= 0 &&\n"
		"\t\t\t   cudaDeviceGetAttribute(&ks_sms, cudaDevAttrMultiProcessorCount, ks_dev) == cudaSuccess &&\n"
		"\t\t\t   cudaOccupancyMaxActiveBlocksPerMultiprocessor(&ks_occ, %s, (int)ks_threads, %s) == cudaSuccess &&\n"
		"\t\t\t   ks_sms > 0 && ks_occ > 0) {\n"
		"\t\t\t%s = (unsigned)ks_sms * (unsigned)ks_occ * %lldu;\n"
		"\t\t\tif (ks_dev < 64) {\n"
		"\t\t\t\tks_seen[ks_dev].threads = ks_threads;\n"
		"\t\t\t\tks_seen[ks_dev].shmem = %s;\n"
		"\t\t\t\tks_seen[ks_dev].blocks = %s;\n"
		"\t\t\t}\n"
		"\t\t} else {\n"
		"\t\t\t(void)cudaGetLastError();	/* the query's, not the program's */\n"
		"\t\t}\n"
		"\t}\n",
		block, block, block, var, shmem, var, kernel, shmem, var,
		waves, shmem, var);
}

int
ks_xfbody_definition(const char *text, size_t len, const struct ks_kernel *k,
		     struct ks_buf *out, struct ks_buf *reason)
{
	if (k->extent.end > len || k->extent.begin >= k->extent.end) {
		ks_buf_addf(reason, "the kernel's definition is not in the text");
		return -1;
	}
	ks_buf_add(out, text + k->extent.begin, k->extent.end - k->extent.begin);
	ks_buf_adds(out, "\n");
	return 0;
}

int
ks_xfbody_plain_kernel(const struct ks_kernel *k, int allow_coop,
		       struct ks_buf *reason)
{
	const struct ks_facts *f = &k->facts;

	if (k->is_template) {
		ks_buf_addf(reason, "%s is a template kernel: the transforms read "
			    "one instance's plain copy (its instance view)", k->name);
		return -1;
	}
	if (k->qualified && strcmp(k->qualified, k->name)) {
		ks_buf_addf(reason,
			    "%s is in a namespace or class (its helper kernels "
			    "could not be declared in every pass)",
			    k->qualified);
		return -1;
	}
	if (f->incomplete) {
		ks_buf_addf(reason, "the analysis did not understand every "
				    "construct of %s",
			    k->name);
		return -1;
	}
	if (f->inline_asm) {
		ks_buf_addf(reason, "%s uses inline assembly", k->name);
		return -1;
	}
	for (size_t i = 0; i < f->ncalls; i++) {
		const struct ks_call *c = &f->calls[i];

		if (c->kind == KS_CALL_DEVICE) {
			ks_buf_addf(reason,
				    "%s calls __device__ function %s (line %u), "
				    "whose thread and block coordinates the "
				    "template cannot remap",
				    k->name, c->name, c->line);
			return -1;
		}
		if (!allow_coop &&
		    (c->kind == KS_CALL_SYNC || c->kind == KS_CALL_WARP)) {
			ks_buf_addf(reason,
				    "%s already cooperates across threads (%s "
				    "on line %u)",
				    k->name, c->name, c->line);
			return -1;
		}
	}
	if (!allow_coop && f->shared_decls) {
		ks_buf_addf(reason, "%s already uses shared memory", k->name);
		return -1;
	}
	return 0;
}

static const struct ks_xfbody_rename block_renames[] = {
	{ "blockIdx", "ks_bid" },
	{ "gridDim", "ks_gdim" },
	{ NULL, NULL },
};

int
ks_xfbody_persistent(const char *text, size_t len, const struct ks_kernel *k,
		     const struct ks_xfbody_persist *p, struct ks_buf *variant,
		     struct ks_buf *reason)
{
	struct ks_buf params = KS_BUF_INIT, args = KS_BUF_INIT;
	struct ks_buf body = KS_BUF_INIT, grid = KS_BUF_INIT;
	char *kname = NULL;
	const char *inner = p->inner ? p->inner : "";
	int rc = -1;

	if (ks_xfbody_params(k, -1, NULL, -1, NULL, &params, reason) ||
	    ks_xfbody_copy(text, len, k, p->edits, p->nedits, block_renames,
			   &body, reason))
		goto out;
	ks_xfbody_args(k, &args);
	ks_buf_addf(&grid, "%s_%s", p->prefix, k->name);
	kname = ks_buf_detach(&grid, NULL);

	ks_buf_addf(variant, "// %s: %s\n", k->name, p->what);
	ks_buf_adds(variant, "// ks-nvcc: helpers\n");
	ks_buf_adds(variant, p->common);
	ks_buf_addf(variant,
		    "/* The body of %s at the virtual block ks_bid of the "
		    "grid ks_gdim. */\n"
		    "__device__ __forceinline__ static void\n"
		    "%s_body_%s(const uint3 ks_bid, const dim3 ks_gdim%s, %s)\n",
		    k->name, p->prefix, k->name, p->state_params, params.buf);
	ks_buf_add(variant, body.buf, body.len);
	ks_buf_adds(variant, "\n\n");
	ks_buf_addf(variant,
		"/* Each block walks blocks of the original grid ks_vgrid. */\n"
		"__global__ void%s%s%s\n"
		"%s(const dim3 ks_vgrid, %s)\n"
		"{\n"
		"%s"
		"\tconst unsigned long long ks_nvb = (unsigned long long)ks_vgrid.x *\n"
		"\t\t\t\t\t   ks_vgrid.y * ks_vgrid.z;\n"
		"\n"
		"\tif (ks_vgrid.y == 1 && ks_vgrid.z == 1) {\n"
		"#pragma unroll %lld\n"
		"\t\tfor (unsigned long long ks_vb = blockIdx.x; ks_vb < ks_nvb;\n"
		"\t\t     ks_vb += gridDim.x) {\n"
		"\t\t\t%s_body_%s(make_uint3((unsigned)ks_vb, 0, 0), ks_vgrid%s,\n"
		"\t\t\t\t%s);\n"
		"%s"
		"\t\t}\n"
		"\t} else {\n"
		"\t\tfor (unsigned long long ks_vb = blockIdx.x; ks_vb < ks_nvb;\n"
		"\t\t     ks_vb += gridDim.x) {\n"
		"\t\t\tconst unsigned long long ks_q = ks_vb / ks_vgrid.x;\n"
		"\n"
		"\t\t\t%s_body_%s(make_uint3((unsigned)(ks_vb %% ks_vgrid.x),\n"
		"\t\t\t\t\t\t(unsigned)(ks_q %% ks_vgrid.y),\n"
		"\t\t\t\t\t\t(unsigned)(ks_q / ks_vgrid.y)),\n"
		"\t\t\t\tks_vgrid%s, %s);\n"
		"%s"
		"\t\t}\n"
		"\t}\n"
		"%s"
		"}\n",
		k->launch_bounds ? " __launch_bounds__(" : "",
		k->launch_bounds ? k->launch_bounds : "",
		k->launch_bounds ? ")" : "", kname, params.buf, p->prologue,
		p->unroll, p->prefix, k->name, p->state_args, args.buf, inner,
		p->prefix, k->name, p->state_args, args.buf, inner, p->epilogue);
	ks_buf_adds(variant, "// ks-nvcc: definition\n");
	if (ks_xfbody_definition(text, len, k, variant, reason))
		goto out;
	ks_xfbody_launcher_open(variant, k->name, params.buf, 0);
	ks_buf_adds(variant,
		    "\tconst unsigned long long ks_nvb = (unsigned long long)grid.x * grid.y * grid.z;\n"
		    "\tunsigned ks_g;\n"
		    "\n");
	ks_xfbody_resident_grid(variant, "ks_g", kname, "block", "shmem",
				p->waves);
	ks_buf_addf(variant,
		    "\tif (ks_g == 0 || ks_nvb == 0) {\n"
		    "\t\t%s<<<grid, block, shmem, stream>>>(%s);\n"
		    "\t\treturn;\n"
		    "\t}\n"
		    "\tif (ks_g > ks_nvb)\n"
		    "\t\tks_g = (unsigned)ks_nvb;\n"
		    "\t%s<<<ks_g, block, shmem, stream>>>(grid, %s);\n"
		    "}\n",
		    k->name, args.buf, kname, args.buf);
	rc = 0;
out:
	free(kname);
	ks_buf_release(&params);
	ks_buf_release(&args);
	ks_buf_release(&body);
	ks_buf_release(&grid);
	return rc;
}

/* The proxies of a tiled copy (xfbody.h). */
const char ks_xfbody_tile_helpers[] =
	"#ifndef KS_XF_TILE_HELPERS\n"
	"#define KS_XF_TILE_HELPERS\n"
	"/* The load of the permuted array: in the load phase it reads memory\n"
	"   and keeps the value in the tile, in the store phase it reads the\n"
	"   tile. */\n"
	"template <class ks_T> struct ks_tile_in {\n"
	"\tconst ks_T *p;\n"
	"\tks_T *cell;\n"
	"\tint load;\n"
	"\t__device__ __forceinline__ ks_T operator[](long long i) const\n"
	"\t{\n"
	"\t\tif (load) {\n"
	"\t\t\tconst ks_T v = p[i];\n"
	"\n"
	"\t\t\t*cell = v;\n"
	"\t\t\treturn v;\n"
	"\t\t}\n"
	"\t\treturn *cell;\n"
	"\t}\n"
	"};\n"
	"/* The store: done in the store phase only. */\n"
	"template <class ks_T> struct ks_tile_ref {\n"
	"\tks_T *a;\n"
	"\tint store;\n"
	"\t__device__ __forceinline__ void operator=(const ks_T &v) const\n"
	"\t{\n"
	"\t\tif (store)\n"
	"\t\t\t*a = v;\n"
	"\t}\n"
	"};\n"
	"template <class ks_T> struct ks_tile_out {\n"
	"\tks_T *p;\n"
	"\tint store;\n"
	"\t__device__ __forceinline__ ks_tile_ref<ks_T> operator[](long long i) const\n"
	"\t{\n"
	"\t\tks_tile_ref<ks_T> r;\n"
	"\n"
	"\t\tr.a = p + i;\n"
	"\t\tr.store = store;\n"
	"\t\treturn r;\n"
	"\t}\n"
	"};\n"
	"/* A body run once, in the load phase: loads read memory; the store\n"
	"   records its value and address, stored later by the store phase. */\n"
	"template <class ks_T> struct ks_tile_ld {\n"
	"\tconst ks_T *p;\n"
	"\t__device__ __forceinline__ ks_T operator[](long long i) const\n"
	"\t{\n"
	"\t\treturn p[i];\n"
	"\t}\n"
	"};\n"
	"/* No recorded store: an index no array can have. */\n"
	"#define KS_TILE_NONE (-0x7fffffffffffffffLL - 1)\n"
	"template <class ks_T> struct ks_tile_rref {\n"
	"\tlong long i;\n"
	"\tks_T *v;\n"
	"\tlong long *pi;\n"
	"\t__device__ __forceinline__ void operator=(const ks_T &x) const\n"
	"\t{\n"
	"\t\t*v = x;\n"
	"\t\t*pi = i;\n"
	"\t}\n"
	"};\n"
	"template <class ks_T> struct ks_tile_rec {\n"
	"\tks_T *v;\n"
	"\tlong long *pi;\n"
	"\t__device__ __forceinline__ ks_tile_rref<ks_T> operator[](long long i) const\n"
	"\t{\n"
	"\t\tks_tile_rref<ks_T> r;\n"
	"\n"
	"\t\tr.i = i;\n"
	"\t\tr.v = v;\n"
	"\t\tr.pi = pi;\n"
	"\t\treturn r;\n"
	"\t}\n"
	"};\n"
	"#endif\n"
	"\n";

long long
ks_xfbody_tile_min_blocks(long long tile, long long rows)
{
	const long long threads = tile * rows;
	const long long fit = tile / rows >= 8 ? 1024 : 1536;

	return threads > 0 && fit / threads > 0 ? fit / threads : 1;
}

int
ks_xfbody_pure_text(const char *t, size_t b, size_t e)
{
	for (size_t i = b; i < e; i++) {
		if (i + 1 < e && ((t[i] == '+' && t[i + 1] == '+') ||
				  (t[i] == '-' && t[i + 1] == '-')))
			return 0;
		/* an '=' that is not part of ==, !=, <= or >= (but <<=, >>=
		 * assign) */
		if (t[i] == '=' && !(i + 1 < e && t[i + 1] == '=') &&
		    !(i > b && strchr("=!<>", t[i - 1]) &&
		      !(i > b + 1 && strchr("<>", t[i - 1]) &&
			t[i - 2] == t[i - 1])))
			return 0;
	}
	return 1;
}

static int
edit_cmp(const void *a, const void *b)
{
	const struct ks_xfbody_edit *x = a, *y = b;

	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	return x->end > y->end ? -1 : x->end < y->end;
}

void
ks_xfbody_sort_edits(struct ks_xfbody_edit *edits, size_t n)
{
	if (n)
		qsort(edits, n, sizeof(*edits), edit_cmp);
}

void
ks_xfbody_launcher_open(struct ks_buf *o, const char *kname,
			const char *params, int axes)
{
	static const char axis[] = "xyz";

	ks_buf_addf(o,
		    "// ks-nvcc: launcher\n"
		    "static void\n"
		    "ks_launch_%s(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,\n"
		    "\t\t%s)\n"
		    "{\n",
		    kname, params);
	for (int a = 0; a < axes && a < 3; a++)
		ks_buf_addf(o,
			    "\tconst unsigned long long ks_n%c = "
			    "(unsigned long long)grid.%c * block.%c;\n",
			    axis[a], axis[a], axis[a]);
}
