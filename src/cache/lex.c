#include "lex.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"

void
ks_lex_init(struct ks_lexer *lx, const char *s, size_t len)
{
	lx->s = s;
	lx->len = len;
	lx->pos = 0;
	lx->bol = 1;
}

int
ks_lex_ident_start(int c)
{
	return isalpha(c) || c == '_' || c == '$';
}

int
ks_lex_ident_char(int c)
{
	return isalnum(c) || c == '_' || c == '$';
}

/* Is s[0..n) an encoding prefix of a string or character literal? */
static int
literal_prefix(const char *s, size_t n)
{
	static const char *const prefixes[] = {
		"L", "u", "U", "u8", "R", "LR", "uR", "UR", "u8R",
	};
	size_t i;

	for (i = 0; i < KS_ARRAY_SIZE(prefixes); i++)
		if (strlen(prefixes[i]) == n && !memcmp(prefixes[i], s, n))
			return 1;
	return 0;
}

/* The end of the quoted literal whose opening quote is at i. */
static size_t
skip_quoted(const char *s, size_t len, size_t i)
{
	char q = s[i++];

	while (i < len && s[i] != q && s[i] != '\n') {
		if (s[i] == '\\' && i + 1 < len)
			i++;
		i++;
	}
	return i < len && s[i] == q ? i + 1 : i;
}

/* The end of the raw string R"delim( ... )delim" whose quote is at i. */
static size_t
skip_raw(const char *s, size_t len, size_t i)
{
	size_t d = i + 1, dl, j;

	while (d < len && s[d] != '(' && d - i <= 17)
		d++;
	if (d >= len || s[d] != '(')
		return skip_quoted(s, len, i);
	dl = d - (i + 1);
	for (j = d + 1; j + dl + 1 < len; j++)
		if (s[j] == ')' && !memcmp(s + j + 1, s + i + 1, dl) &&
		    s[j + 1 + dl] == '"')
			return j + dl + 2;
	return len;
}

enum ks_tok
ks_lex(struct ks_lexer *lx, struct ks_token *t)
{
	const char *s = lx->s;
	size_t n = lx->len, i = lx->pos;

	for (;;) {
		if (i >= n) {
			t->kind = KS_T_EOF;
			t->begin = t->end = lx->pos = n;
			return KS_T_EOF;
		}
		if (s[i] == '\n') {
			lx->bol = 1;
			i++;
		} else if (isspace((unsigned char)s[i])) {
			i++;
		} else if (s[i] == '\\' && i + 1 < n && s[i + 1] == '\n') {
			i += 2;
		} else if (s[i] == '/' && i + 1 < n && s[i + 1] == '/') {
			while (i < n && s[i] != '\n')
				i += s[i] == '\\' && i + 1 < n ? 2 : 1;
		} else if (s[i] == '/' && i + 1 < n && s[i + 1] == '*') {
			const char *e =
				i + 2 < n ? strstr(s + i + 2, "*/") : NULL;

			i = e && (size_t)(e - s) < n ? (size_t)(e - s) + 2 : n;
		} else {
			break;
		}
	}
	t->begin = i;
	if (lx->bol && s[i] == '#') {
		t->kind = KS_T_DIRECTIVE;
		while (i < n && s[i] != '\n') {
			if (s[i] == '\\' && i + 1 < n && s[i + 1] == '\n')
				i++;
			i++;
		}
	} else if (ks_lex_ident_start((unsigned char)s[i])) {
		while (i < n && ks_lex_ident_char((unsigned char)s[i]))
			i++;
		t->kind = KS_T_IDENT;
		if (i < n && (s[i] == '"' || s[i] == '\'') &&
		    literal_prefix(s + t->begin, i - t->begin)) {
			t->kind = s[i] == '"' ? KS_T_STRING : KS_T_CHAR;
			if (s[i] == '"' && s[i - 1] == 'R')
				i = skip_raw(s, n, i);
			else
				i = skip_quoted(s, n, i);
		}
	} else if (isdigit((unsigned char)s[i]) ||
		   (s[i] == '.' && i + 1 < n &&
		    isdigit((unsigned char)s[i + 1]))) {
		/* A pp-number: 1'000, 0x1p-3, 1.5e+10f. */
		for (i++; i < n; i++) {
			if ((s[i] == '+' || s[i] == '-') &&
			    strchr("eEpP", s[i - 1]))
				continue;
			if (ks_lex_ident_char((unsigned char)s[i]) || s[i] == '.' ||
			    (s[i] == '\'' && i + 1 < n &&
			     isalnum((unsigned char)s[i + 1])))
				continue;
			break;
		}
		t->kind = KS_T_NUMBER;
	} else if (s[i] == '"' || s[i] == '\'') {
		t->kind = s[i] == '"' ? KS_T_STRING : KS_T_CHAR;
		i = skip_quoted(s, n, i);
	} else {
		t->kind = KS_T_PUNCT;
		i++;
	}
	t->end = lx->pos = i;
	lx->bol = 0;
	return t->kind;
}

int
ks_lex_punct(const char *s, const struct ks_token *t, char c)
{
	return t->kind == KS_T_PUNCT && s[t->begin] == c;
}

int
ks_lex_ident(const char *s, const struct ks_token *t, const char *name)
{
	size_t n = strlen(name);

	return t->kind == KS_T_IDENT && t->end - t->begin == n &&
	       !memcmp(s + t->begin, name, n);
}

int
ks_lex_punct_in(const char *s, const struct ks_token *t, const char *set)
{
	return t->kind == KS_T_PUNCT && s[t->begin] && strchr(set, s[t->begin]);
}

/* Does the directive token t name `name` as a whole word? */
int
ks_lex_directive_names(const char *s, const struct ks_token *t, const char *name)
{
	size_t n = strlen(name), i;

	for (i = t->begin; i + n <= t->end; i++)
		if (!memcmp(s + i, name, n) &&
		    (i == t->begin || !ks_lex_ident_char((unsigned char)s[i - 1])) &&
		    (i + n == t->end || !ks_lex_ident_char((unsigned char)s[i + n])))
			return 1;
	return 0;
}

/* Three adjacent `c` punctuators starting at token t (<<< or >>>). */
int
ks_lex_triple(const struct ks_lexer *lx, const struct ks_token *t, char c)
{
	return t->kind == KS_T_PUNCT && lx->s[t->begin] == c &&
	       t->begin + 2 < lx->len && lx->s[t->begin + 1] == c &&
	       lx->s[t->begin + 2] == c;
}

size_t
ks_lex_directive_word(const char *s, size_t b, size_t e, const char *word)
{
	size_t i = b, n = strlen(word);

	while (i < e && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i >= e || s[i++] != '#')
		return 0;
	while (i < e && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (n) {
		if (e - i < n || strncmp(s + i, word, n) ||
		    (i + n < e && ks_lex_ident_char((unsigned char)s[i + n])))
			return 0;
		for (i += n; i < e && (s[i] == ' ' || s[i] == '\t'); i++)
			;
	}
	return i;
}

int
ks_lex_line_directive(const char *s, size_t b, size_t e, size_t *num, char **file)
{
	size_t i, q;

	/* `#line N` or `# N` */
	if (!(i = ks_lex_directive_word(s, b, e, "line")) &&
	    !(i = ks_lex_directive_word(s, b, e, "")))
		return 0;
	if (i >= e || !isdigit((unsigned char)s[i]))
		return 0;
	*num = strtoul(s + i, NULL, 10);
	while (i < e && isdigit((unsigned char)s[i]))
		i++;
	while (i < e && (s[i] == ' ' || s[i] == '\t'))
		i++;
	*file = NULL;
	if (i < e && s[i] == '"' && (q = i + 1) < e) {
		while (q < e && s[q] != '"')
			q++;
		if (q < e)
			*file = ks_xstrndup(s + i + 1, q - i - 1);
	}
	if (*num)
		return 1;
	free(*file);
	*file = NULL;
	return 0;
}
