/*
 * lex: a C++ lexer just good enough to find statements, names and launches
 * in a translation unit's text: comments are skipped as blanks; strings,
 * raw strings, character literals, pp-numbers and whole preprocessor lines
 * are single tokens, so no name inside them is ever seen.
 * The rewriter (rewrite.c), the instance view (mono.c) and the header
 * expansion (expand.c) read with it.
 *
 * Ownership: a lexer borrows its text; tokens are offsets into it.
 * May include: libc, core/.
 */
#ifndef KS_CACHE_LEX_H
#define KS_CACHE_LEX_H

#include <stddef.h>

enum ks_tok {
	KS_T_EOF,
	KS_T_IDENT,
	KS_T_NUMBER,
	KS_T_STRING,
	KS_T_CHAR,
	KS_T_PUNCT,
	KS_T_DIRECTIVE,	/* a whole preprocessor line, continuations included */
};

struct ks_token {
	enum ks_tok kind;
	size_t begin, end;
};

struct ks_lexer {
	const char *s;
	size_t len, pos;
	int bol;	/* only blanks since the last newline */
};

void ks_lex_init(struct ks_lexer *lx, const char *s, size_t len);
/* The next token into *t (KS_T_EOF at the end); its kind. */
enum ks_tok ks_lex(struct ks_lexer *lx, struct ks_token *t);
int ks_lex_ident_start(int c);
int ks_lex_ident_char(int c);
int ks_lex_punct(const char *s, const struct ks_token *t, char c);
int ks_lex_ident(const char *s, const struct ks_token *t, const char *name);
/* A punctuator among the characters of `set`. */
int ks_lex_punct_in(const char *s, const struct ks_token *t, const char *set);
/* Does the directive token t name `name` as a whole word? */
int ks_lex_directive_names(const char *s, const struct ks_token *t,
			   const char *name);
/* Three adjacent `c` punctuators starting at token t (<<< or >>>). */
int ks_lex_triple(const struct ks_lexer *lx, const struct ks_token *t, char c);
/* Is the line s[b..e) a directive `#` WORD (blanks before and after the
 * `#`)? The index after WORD and the blanks that follow it, or 0 when it
 * is not. A WORD ends where no letter, digit or _ follows; "" matches
 * any directive, giving the index after the `#` and its blanks. */
size_t ks_lex_directive_word(const char *s, size_t b, size_t e, const char *word);
/* A `#line N "file"` directive (or `# N "file"`) at s[b..e): N into *num
 * and the file, allocated, into *file (NULL when it names none); 0 when
 * the line is none. */
int ks_lex_line_directive(const char *s, size_t b, size_t e, size_t *num, char **file);

#endif
