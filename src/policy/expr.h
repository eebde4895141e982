/*
 * expr: the small deterministic expression language of the policy table
 * and of the skills' preconditions.
 *
 *   numbers (3, 0.5, 1e4), true, false, names (f.is_naive_gemm, m.dram_pct),
 *   + - * /, comparisons < <= > >= == !=, `x in [0, 2, 3]`, ! && ||,
 *   parentheses, and the functions max(a, b, ...), min(a, b, ...) and
 *   known(name).
 *
 * Precedence, loosest first: ||, &&, !, comparisons and `in` (one per
 * operand: `a < b < c` is an error), + -, * /, unary minus. `!` applies
 * to a whole comparison (`!x > 3` is `!(x > 3)`).
 *
 * Names and their types (number or true/false) come from the caller's
 * vocabulary when the text is parsed: an unknown name, a type error (a
 * number where true/false is needed, or the reverse) or a syntax error is
 * reported then, with the column, never at evaluation. Evaluation is pure
 * and total: a value may be unknown (counters not measured), and
 * unknowns propagate by Kleene's three-valued logic (false && unknown is
 * false, true || unknown is true; any arithmetic or comparison with an
 * unknown is unknown; division by zero is unknown).
 *
 * Ownership: struct ks_expr owns its text and nodes; ks_expr_release()
 * frees them (safe on a zeroed struct).
 * May include: libc, core/.
 */
#ifndef KS_POLICY_EXPR_H
#define KS_POLICY_EXPR_H

#include <stddef.h>

struct ks_buf;

enum ks_expr_type { KS_EXPR_NUM = 1, KS_EXPR_BOOL = 2 };

/* The vocabulary: name -> index (>= 0) and type, or -1 when unknown. */
struct ks_expr_names {
	int (*lookup)(void *ctx, const char *name, enum ks_expr_type *type);
	void *ctx;
};

enum ks_expr_op {
	KS_OP_NUM, KS_OP_BOOL, KS_OP_NAME, KS_OP_NEG, KS_OP_NOT,
	KS_OP_AND, KS_OP_OR,
	KS_OP_LT, KS_OP_LE, KS_OP_GT, KS_OP_GE, KS_OP_EQ, KS_OP_NE,
	KS_OP_ADD, KS_OP_SUB, KS_OP_MUL, KS_OP_DIV,
	KS_OP_IN, KS_OP_MAX, KS_OP_MIN, KS_OP_KNOWN, KS_OP_ARG,
};

/*
 * One node. Binary operators use a and b; NEG, NOT and KNOWN use a; IN
 * has the tested value in a and its list as a chain of ARG nodes in b;
 * MAX and MIN chain their arguments the same way (ARG: value in a, next
 * ARG in b, -1 at the end). [lo, hi) is the node's text.
 */
struct ks_expr_node {
	enum ks_expr_op op;
	enum ks_expr_type type;
	double num;
	int name;
	int a, b;
	size_t lo, hi;
};

struct ks_expr {
	char *text;
	struct ks_expr_node *node;
	size_t n, alloc;
	int root;
	enum ks_expr_type type;
};

/* A value: `known` 0 means not measured. Booleans are 0 or 1. */
struct ks_val {
	unsigned char known;
	double v;
};

/*
 * Parse and type-check `text`. Returns 0, or -1 with "column N: ..." in
 * `err`. `e` must be zeroed or released.
 */
int ks_expr_parse(struct ks_expr *e, const char *text,
		  const struct ks_expr_names *names, struct ks_buf *err);

void ks_expr_release(struct ks_expr *e);

/* Pure: the value of `e` over `values` (indexed by name index). */
struct ks_val ks_expr_eval(const struct ks_expr *e, const struct ks_val *values);

/* Pure: the value of node `i` of `e` (ks_expr_eval is node e->root). */
struct ks_val ks_expr_eval_node(const struct ks_expr *e, int i,
				const struct ks_val *values);

/* Does `e` use no name at all (its value is then a constant)? */
int ks_expr_is_const(const struct ks_expr *e);

/* The text of `e` with its spacing normalized: equal texts, equal meaning. */
void ks_expr_canon(const struct ks_expr *e, struct ks_buf *out);

/*
 * The justification of a value: the leaf predicates (comparisons, `in`,
 * true/false names, known()) whose value made `e` come out as it did.
 * Under a `!` the wanted value flips. Fills `out` with up to `max` node
 * indices in text order and returns how many there are.
 */
size_t ks_expr_why(const struct ks_expr *e, const struct ks_val *values,
		   int *out, size_t max);

/*
 * The name indices that node `i` (a leaf, or the root) reads, without
 * repeats, in text order; returns how many (at most `max` stored).
 */
size_t ks_expr_names_of(const struct ks_expr *e, int i, int *out, size_t max);

/* Which names `e` reads that are unknown in `values`; returns how many. */
size_t ks_expr_unknown(const struct ks_expr *e, const struct ks_val *values,
		       int *out, size_t max);

/* The text of node `i`, and the spelling of name `idx` as written. */
void ks_expr_node_text(const struct ks_expr *e, int i, struct ks_buf *out);
void ks_expr_name_text(const struct ks_expr *e, int idx, struct ks_buf *out);

#endif
