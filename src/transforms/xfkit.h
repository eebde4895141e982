/*
 * xfkit: what the streaming and pointwise transforms share. Pure helpers
 * over a kernel's inventory entry (inventory.h), its facts (facts.h) and
 * the text of its file: the pieces of the definition (head, parameter
 * list, body), the parameters' names, forms printed as C over the
 * kernel's parameters, and the fact checks that make threads
 * independent of each other (what lets a variant run one original
 * thread's work as part of another thread's).
 *
 * Ownership: struct ks_xfk owns its strings; ks_xfk_release() frees them
 * (safe on a zeroed struct). Everything else appends to caller buffers.
 * May include: libc, core/, analysis/ (structs only), transform.h.
 */
#ifndef KS_TRANSFORMS_XFKIT_H
#define KS_TRANSFORMS_XFKIT_H

#include <stddef.h>

#include "../analysis/facts.h"
#include "transform.h"

struct ks_buf;
struct ks_kernel;

/* A kernel's definition cut into pieces (copied from the file's text). */
struct ks_xfk {
	const struct ks_kernel *k;
	const struct ks_facts *f;
	char *head;		/* from the definition's start to the name */
	char *params;		/* "(const float *x, float *y, size_t n)" */
	char *body;		/* "{ ... }" */
	char *args;		/* "x, y, n" */
	unsigned long body_begin, body_end;	/* of `body` in the file */
	unsigned long def_begin;		/* of `head` in the file */
	unsigned long params_begin;		/* of `params` in the file */
};

/*
 * Cut the definition of in->kernel out of in->text. Declines (returns -1
 * with the reason) for a template kernel, a kernel in a namespace or
 * class (its helper kernels could not be declared in every pass), an
 * unnamed parameter, or extents that do not match the text.
 */
int ks_xfk_init(struct ks_xfk *x, const struct ks_xf_input *in,
		struct ks_buf *reason);
void ks_xfk_release(struct ks_xfk *x);

/*
 * Threads of the kernel are independent: no shared memory, barrier,
 * warp intrinsic, atomic, inline assembly or construct the analysis did
 * not understand. Returns 1, or 0 with the reason appended.
 */
int ks_xfk_independent(const struct ks_xfk *x, struct ks_buf *reason);

/*
 * Print `f` as a C expression of type long long: threadIdx.x and
 * blockIdx.x as `tx` and `bx` (NULL: they must not appear), blockDim and
 * gridDim as `<dims>b.x` and `<dims>g.x` (e.g. "ks_ob.x"), user symbols
 * only when they are kernel parameters (or members of one). Returns 0,
 * or -1 when the form has another source, a nonlinear or opaque part, or
 * a symbol that is not a parameter.
 */
int ks_xfk_form_c(const struct ks_xfk *x, const struct ks_form *f,
		  const char *tx, const char *bx, const char *dims,
		  struct ks_buf *out);

/* Add the formatted reason a transform declines to `reason`; returns -1
 * (a transform's `return ks_xfk_decline(reason, ...)`). */
int ks_xfk_decline(struct ks_buf *reason, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * A uniform polynomial (parameters and launch sizes only, dims "ks_o")
 * divided by `div` as a C expression of type long long, or NULL when a
 * factor is not a multiple of `div` or a part cannot be printed. Caller
 * frees.
 */
char *ks_xfk_poly_c(const struct ks_xfk *x, const struct ks_poly *p,
		    long long div);

/* A uniform form without remainder (a bound, a limit) as a C expression,
 * or NULL. Caller frees. */
char *ks_xfk_uniform_c(const struct ks_xfk *x, const struct ks_form *f);

/* The pointee type of pointer parameter `i` without qualifiers ("float"),
 * or NULL (not a plain pointer). Caller frees. */
char *ks_xfk_pointee(const struct ks_xfk *x, size_t i);

/* The element form of access `a` is exactly the 1-D global index
 * blockIdx.x * blockDim.x + threadIdx.x (and nothing else). */
int ks_xfk_is_global_index(const struct ks_access *a);

/* A token of the kernel's text (comments, strings, character literals
 * and preprocessor lines are skipped by the scanner). */
struct ks_xfk_tok {
	unsigned long begin, end;	/* in the file */
	unsigned line;
	int kind;	/* 'i' identifier, 'n' number, 'p' punctuation */
};

/*
 * Scan the tokens of the file between [from, to), calling `fn` for each;
 * `first_line` is the line of `from`. Stops when fn returns non-zero and
 * returns that value.
 */
int ks_xfk_scan(const char *text, unsigned long from, unsigned long to,
		unsigned first_line,
		int (*fn)(const char *text, const struct ks_xfk_tok *t, void *ctx),
		void *ctx);

/* The tokens of [from, to) as an array (ks_xfk_scan into it); free t. */
struct ks_xfk_toks {
	struct ks_xfk_tok *t;
	size_t n, cap;
};
void ks_xfk_tokens(const char *text, unsigned long from, unsigned long to,
		   unsigned first_line, struct ks_xfk_toks *out);

/* Is token `t` spelled `s`? */
int ks_xfk_tok_is(const char *text, const struct ks_xfk_tok *t, const char *s);

/* The matching closer of the opener ( { [ at token i, or ts->n. */
size_t ks_xfk_match(const char *text, const struct ks_xfk_toks *ts, size_t i);

/* Tokens [i, to) start with access `a` (a token follows it): the index
 * just past it, or 0. */
size_t ks_xfk_past_access(const struct ks_xfk_toks *ts, size_t i, size_t to,
			  const struct ks_access *a);

/* Two tokens spelled the same. */
int ks_xfk_tok_same(const char *text, const struct ks_xfk_tok *a,
		    const struct ks_xfk_tok *b);

/* Tokens [i, to) spell access `a` then `sep`: the index after `sep`, or 0. */
size_t ks_xfk_spell_access(const char *text, const struct ks_xfk_toks *ts, size_t i,
			   size_t to, const struct ks_access *a, const char *sep);

/* Tokens [i, to) spell "P mid Q sep" or "Q mid P sep": the index after
 * `sep`, or 0. */
size_t ks_xfk_spell_two(const char *text, const struct ks_xfk_toks *ts, size_t i,
			size_t to, const struct ks_access *p, const struct ks_access *q,
			const char *mid, const char *sep);

/* One replacement of the file's bytes [begin, end) by `with`. */
struct ks_xfk_edit {
	unsigned long begin, end;
	const char *with;		/* borrowed */
};

/*
 * Append the kernel's definition with `edits` (inside the definition,
 * not overlapping; sorted here) applied. Returns 0, or -1 when two edits
 * overlap or one falls outside the definition.
 */
int ks_xfk_definition(const struct ks_xfk *x, const char *text,
		      struct ks_xfk_edit *edits, size_t n, struct ks_buf *out);

/* Append `fmt` to `b` with every "@K@" replaced by the kernel's name. */
void ks_xfk_emit(struct ks_buf *b, const struct ks_xfk *x, const char *text);

#endif
