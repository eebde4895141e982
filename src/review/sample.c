#include <ctype.h>
#include <string.h>

#include "../core/buf.h"
#include "sample.h"

enum tok { T_END, T_IDENT, T_STRING, T_PUNCT };

struct scan {
	const char *s;
	size_t i;
	unsigned line;
	int bol;		/* only blanks since the line began */
	size_t start, len;	/* the last token */
};

static int
ident_char(int c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '$';
}

/* Past the quoted literal at s[i] (quote q), escapes honoured. */
static size_t
skip_quoted(struct scan *sc, size_t i, char q)
{
	const char *s = sc->s;

	for (i++; s[i] && s[i] != q; i++) {
		if (s[i] == '\\' && s[i + 1])
			i++;
		if (s[i] == '\n')
			sc->line++;
	}
	return s[i] ? i + 1 : i;
}

/* Past the raw string whose '"' is at s[i]: "delim( ... )delim". */
static size_t
skip_raw(struct scan *sc, size_t i)
{
	const char *s = sc->s, *open = strchr(s + i + 1, '('), *end;
	char close[20];
	size_t dl;

	if (!open || (dl = (size_t)(open - (s + i + 1))) > 16)
		return skip_quoted(sc, i, '"');
	close[0] = ')';
	memcpy(close + 1, s + i + 1, dl);
	close[dl + 1] = '"';
	close[dl + 2] = '\0';
	end = strstr(open, close);
	if (!end)
		return strlen(s);
	for (const char *p = s + i; p < end; p++)
		sc->line += *p == '\n';
	return (size_t)(end - s) + dl + 2;
}

/* The next token: identifiers, string literals and single punctuators;
   blanks, comments, character literals, numbers and preprocessor lines
   are passed over. */
static enum tok
next(struct scan *sc)
{
	const char *s = sc->s;
	size_t i = sc->i;

	for (;;) {
		char c = s[i];

		if (!c) {
			sc->i = i;
			return T_END;
		}
		if (c == '\n') {
			sc->line++;
			sc->bol = 1;
			i++;
		} else if (isspace((unsigned char)c)) {
			i++;
		} else if (c == '/' && s[i + 1] == '/') {
			while (s[i] && s[i] != '\n')
				i++;
		} else if (c == '/' && s[i + 1] == '*') {
			const char *e = strstr(s + i + 2, "*/");
			size_t stop = e ? (size_t)(e - s) + 2 : strlen(s);

			for (; i < stop; i++)
				sc->line += s[i] == '\n';
		} else if (c == '#' && sc->bol) {
			/* a directive, with its continuation lines */
			while (s[i] && s[i] != '\n') {
				if (s[i] == '\\' && s[i + 1] == '\n') {
					sc->line++;
					i++;
				}
				i++;
			}
		} else if (c == '\'') {
			sc->bol = 0;
			i = skip_quoted(sc, i, '\'');
		} else if (isdigit((unsigned char)c) ||
			   (c == '.' && isdigit((unsigned char)s[i + 1]))) {
			/* a pp-number, digit separators (1'000) and
			   exponent signs in it */
			sc->bol = 0;
			for (i++; s[i]; i++) {
				if (ident_char(s[i]) || s[i] == '.')
					continue;
				if (s[i] == '\'' && ident_char(s[i + 1]))
					continue;
				if ((s[i] == '+' || s[i] == '-') &&
				    strchr("eEpP", s[i - 1]))
					continue;
				break;
			}
		} else if (c == '"') {
			sc->bol = 0;
			sc->start = i;
			i = skip_quoted(sc, i, '"');
			sc->len = i - sc->start;
			sc->i = i;
			return T_STRING;
		} else if (ident_char(c)) {
			size_t b = i;

			sc->bol = 0;
			while (ident_char(s[i]))
				i++;
			if (s[i] == '"' && s[i - 1] == 'R' &&
			    (i - b == 1 || (i - b <= 3 && strchr("uUL8", s[b])))) {
				sc->start = b;
				i = skip_raw(sc, i);
				sc->len = i - b;
				sc->i = i;
				return T_STRING;
			}
			sc->start = b;
			sc->len = i - b;
			sc->i = i;
			return T_IDENT;
		} else {
			sc->bol = 0;
			sc->start = i;
			sc->len = 1;
			sc->i = i + 1;
			return T_PUNCT;
		}
	}
}

static int
is(const struct scan *sc, const char *word)
{
	return sc->len == strlen(word) && !memcmp(sc->s + sc->start, word, sc->len);
}

static int
begins(const struct scan *sc, const char *word)
{
	size_t n = strlen(word);

	return sc->len >= n && !memcmp(sc->s + sc->start, word, n);
}

/* An identifier that lets blocks of one launch wait for one another, or
   see what another wrote: atomics (atomicAdd, atomic_ref, cuda::atomic,
   __nv_atomic_*), device-wide fences, volatile accesses, grid and cluster
   groups, cooperative launches, back-off sleeps. */
static int
forbidden_ident(const struct scan *sc)
{
	static const char *const exact[] = {
		"atomic", "volatile", "__threadfence", "__threadfence_system",
		"grid_group", "this_grid", "sync_grids", "cluster_group",
		"this_cluster", "__cluster_dims__", "cudaLaunchCooperativeKernel",
		"cudaLaunchCooperativeKernelMultiDevice", "__nanosleep",
	};
	const char *p = sc->s + sc->start;

	for (size_t k = 0; k < sizeof(exact) / sizeof(exact[0]); k++)
		if (is(sc, exact[k]))
			return 1;
	if (begins(sc, "atomic_") || begins(sc, "__nv_atomic"))
		return 1;
	return begins(sc, "atomic") && sc->len > 6 && isupper((unsigned char)p[6]);
}

/* PTX in an asm statement's text that does the same: the opcodes (at an
   instruction's start, before a '.' or a blank) and the qualifiers (after
   a '.') of atomics, reductions, fences, ordered or volatile accesses and
   cluster scopes. */
static const char *
forbidden_ptx(const struct scan *sc)
{
	static const char *const ops[] = { "atom", "red", "fence", "membar", "nanosleep" };
	static const char *const quals[] = { "acquire", "release", "relaxed", "volatile",
					     "cluster", "mmio" };
	const char *s = sc->s + sc->start, *end = s + sc->len;

	for (const char *p = s; p < end; p++) {
		size_t k, n;

		if (!isalpha((unsigned char)*p) ||
		    (p > s && (isalnum((unsigned char)p[-1]) || p[-1] == '_')))
			continue;
		for (k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
			n = strlen(ops[k]);
			if ((p == s || p[-1] != '.') && (size_t)(end - p) > n &&
			    !memcmp(p, ops[k], n) && (p[n] == '.' || isspace((unsigned char)p[n]) ||
						      p[n] == ';'))
				return ops[k];
		}
		for (k = 0; p > s && p[-1] == '.' && k < sizeof(quals) / sizeof(quals[0]); k++) {
			n = strlen(quals[k]);
			if ((size_t)(end - p) >= n && !memcmp(p, quals[k], n) &&
			    !isalnum((unsigned char)p[n]) && p[n] != '_')
				return quals[k];
		}
	}
	return NULL;
}

int
ks_sample_allowed(const char *src, struct ks_buf *why)
{
	struct scan sc = { src, 0, 1, 1, 0, 0 };
	enum tok t;
	int in_asm = 0;		/* 1 after asm, 2 inside its parentheses */
	int depth = 0;

	while ((t = next(&sc)) != T_END) {
		if (t == T_IDENT && (is(&sc, "asm") || is(&sc, "__asm__") ||
				     is(&sc, "__asm"))) {
			in_asm = 1;
			continue;
		}
		if (in_asm == 1 && t == T_IDENT &&
		    (is(&sc, "volatile") || is(&sc, "__volatile__")))
			continue;	/* asm volatile: the compiler's, not memory's */
		if (in_asm == 1 && t == T_PUNCT && sc.s[sc.start] == '(') {
			in_asm = 2;
			depth = 1;
			continue;
		}
		if (in_asm == 2) {
			if (t == T_PUNCT && sc.s[sc.start] == '(')
				depth++;
			else if (t == T_PUNCT && sc.s[sc.start] == ')' && !--depth)
				in_asm = 0;
			else if (t == T_STRING) {
				const char *w = forbidden_ptx(&sc);

				if (w) {
					ks_buf_addf(why, "inline PTX with '%s' at line %u",
						    w, sc.line);
					return 0;
				}
			}
			continue;
		}
		in_asm = 0;
		if (t == T_IDENT && forbidden_ident(&sc)) {
			ks_buf_addf(why, "'%.*s' at line %u", (int)sc.len,
				    sc.s + sc.start, sc.line);
			return 0;
		}
	}
	return 1;
}

/* The guard: a block outside the sample returns. Device code only (the
   host pass compiles the bodies of __global__ functions too). */
static const char guard[] =
	"/* ks: racecheck on a sample of each launch's blocks (review/sample.h) */\n"
	"__device__ __forceinline__ static bool\n"
	"ks_rc_keep(unsigned c, unsigned g)\n"
	"{\n"
	"\tconst unsigned s = g > 8 ? (g - 4 + 3) / 4 : 1;\n"
	"\n"
	"\treturn g <= 8 || c < 2 || c + 2 >= g || (c - 2) % s == 0;\n"
	"}\n"
	"#ifdef __CUDA_ARCH__\n"
	"#define KS_RC_SAMPLE \\\n"
	"\tif (!ks_rc_keep(blockIdx.x, gridDim.x) || !ks_rc_keep(blockIdx.y, gridDim.y) || \\\n"
	"\t    !ks_rc_keep(blockIdx.z, gridDim.z)) \\\n"
	"\t\treturn;\n"
	"#else\n"
	"#define KS_RC_SAMPLE\n"
	"#endif\n";

size_t
ks_sample_blocks(const char *src, const char *name, struct ks_buf *out)
{
	struct scan sc = { src, 0, 1, 1, 0, 0 };
	struct ks_buf body = KS_BUF_INIT;
	size_t copied = 0, n = 0;
	enum tok t;

	while ((t = next(&sc)) != T_END) {
		int depth = 0;

		if (t != T_IDENT || !is(&sc, "__global__"))
			continue;
		/* The definition's body: the first '{' outside parentheses
		   (past the attributes, the name and the parameters); a ';'
		   first is a declaration. */
		while ((t = next(&sc)) != T_END) {
			char c = sc.s[sc.start];

			if (t != T_PUNCT)
				continue;
			if (c == '(')
				depth++;
			else if (c == ')')
				depth--;
			else if (!depth && (c == '{' || c == ';'))
				break;
		}
		if (t == T_END)
			break;
		if (sc.s[sc.start] == '{') {
			ks_buf_add(&body, src + copied, sc.i - copied);
			ks_buf_adds(&body, " KS_RC_SAMPLE");
			copied = sc.i;
			n++;
		}
	}
	if (n) {
		ks_buf_adds(out, guard);
		ks_buf_adds(out, "#line 1 \"");
		for (const char *p = name; *p; p++) {
			if (*p == '"' || *p == '\\')
				ks_buf_addch(out, '\\');
			ks_buf_addch(out, *p);
		}
		ks_buf_adds(out, "\"\n");
		ks_buf_add(out, body.buf, body.len);
		ks_buf_adds(out, src + copied);
	}
	ks_buf_release(&body);
	return n;
}
