/*
 * walk: the layers of the AST walk (walk_cursor.c, walk_eval.c,
 * walk_access.c, walk_stmt.c, walk_tu.c) and what they share; private to
 * those files. From the bottom: cursor utilities over libclang (kinds,
 * tokens, operators, constants, types); the abstract evaluation of
 * expressions (forms, values, variables) and of memory accesses; the
 * statements (loops, branches, inlined calls); the TU visitor (kernels,
 * launch sites, host facts), which is what tu.h exports.
 *
 * The walk itself: a kernel body is evaluated abstractly. Every integer
 * expression gets a form (an affine expression over thread indices and
 * loop inductions), every pointer a memory object and a byte offset;
 * memory accesses, loops, branches, calls and products are recorded as
 * they are met. Calls to __device__ functions of the TU are walked in
 * place with their parameters bound to the arguments (up to a small
 * depth), so a helper doing the loads counts as the kernel's own. Nothing
 * here decides a feature: features.c does, from the facts.
 * May include: libc, core/, tu.h.
 */
#ifndef KS_ANALYSIS_WALK_H
#define KS_ANALYSIS_WALK_H

#include <stddef.h>

#include "tu.h"

#define MAX_INLINE_DEPTH 3

struct kids {
	CXCursor *v;
	size_t n, alloc;
};

/* Tokens of a cursor's extent (spelling and offset each). */
struct toks {
	CXToken *t;
	unsigned n;
	CXTranslationUnit tu;
};

struct val {
	int ptr;		/* a pointer into `array` at byte offset f */
	int array;		/* facts array, or -1 */
	struct ks_form f;
	int load;		/* the access whose value this is, or -1 */
	int prod;		/* a product of two loads (a fact), or -1 */
	int sload;		/* a load times factors free of data and of
				 * loops (alpha * A[i]): the load, or -1 */
	int sum;		/* went through an addition */
	int literal;		/* a literal constant (integer or floating) */
	int minmax;		/* the result of min/max (a reduction step) */
};

struct var {
	CXCursor decl;
	struct val v;
	int is_array;		/* the variable is the memory object itself */
	int carried;		/* assigned in the loop being walked */
};

struct walk {
	struct ks_tu *t;
	CXTranslationUnit tu;
	struct ks_facts *f;
	struct var *vars;
	size_t nvars, avars;
	int loop;		/* innermost loop, or -1 */
	int depth;
	int guards;
	CXCursor inl[MAX_INLINE_DEPTH + 1];
	int ninl;
	struct val ret;		/* value of the inlined function's return */
	int have_ret;
	/* a condition being evaluated: comparisons become branches */
	int in_cond;
	enum ks_branch_stmt cond_stmt;
	int cond_loop;
	int cond_recorded;
	unsigned cond_join;	/* KS_BRJ_* of the node being evaluated */
	int unknown_array;
	int impure;		/* scratch of impure() */
};

/* A location: memory (where->ptr) or a variable. */
struct loc {
	int is_mem;
	struct val where;	/* memory: array + byte offset */
	struct var *var;	/* variable, or NULL */
	CXType type;		/* of the accessed object */
};

/* ---- cursor utilities (walk_cursor.c) */
void ks_walk_kids_of(CXCursor c, struct kids *k);
void ks_walk_kids_release(struct kids *k);
enum CXCursorKind ks_walk_kind(CXCursor c);
char *ks_walk_spelling(CXCursor c);
int ks_walk_spelled(CXCursor c, const char *s);
int ks_walk_same(CXCursor a, CXCursor b);
unsigned ks_walk_offset_of(CXSourceLocation loc);
unsigned ks_walk_begin_of(CXCursor c);
unsigned ks_walk_end_of(CXCursor c);
CXCursor ks_walk_strip(CXCursor c);
int ks_walk_has_attr(CXCursor c, enum CXCursorKind attr);
void ks_walk_toks_of(CXTranslationUnit tu, CXSourceRange r, struct toks *t);
void ks_walk_toks_release(struct toks *t);
char *ks_walk_tok_str(struct toks *t, unsigned i);
int ks_walk_tok_is(struct toks *t, unsigned i, const char *s);
unsigned ks_walk_tok_begin(struct toks *t, unsigned i);
unsigned ks_walk_tok_end(struct toks *t, unsigned i);
int ks_walk_binop(CXTranslationUnit tu, CXCursor c, CXCursor lhs);
int ks_walk_unop(CXTranslationUnit tu, CXCursor c);
int ks_walk_is_relational(int op);
int ks_walk_int_value(CXCursor c, long long *v);
long long ks_walk_type_size(CXType t);
int ks_walk_is_pointer(CXType t);
int ks_walk_is_array(CXType t);
enum ks_scalar ks_walk_scalar_of(CXType t, int *lanes, int *vector);
int ks_walk_type_is_double(CXType t);
int ks_walk_type_is_floaty(CXType t);
int ks_walk_type_is_vector(CXType t);

/* ---- the abstract evaluation (walk_eval.c) */
void ks_walk_val_scalar(struct val *v, const struct ks_form *f);
void ks_walk_val_const(struct val *v, long long k);
void ks_walk_val_unknown(struct val *v);
struct var *ks_walk_var_find(struct walk *w, CXCursor decl);
struct var *ks_walk_var_bind(struct walk *w, CXCursor decl,
		const struct val *v);
int ks_walk_add_array(struct walk *w, const char *name, enum ks_space space,
		int param, CXType t);
int ks_walk_unknown_array(struct walk *w);
void ks_walk_record_access(struct walk *w, const struct val *where,
		CXCursor c, CXType t, unsigned flags, int value_from, const char *op, int *id);
void ks_walk_eval_children(struct walk *w, CXCursor c, struct ks_form *mix);
int ks_walk_builtin_index(CXCursor member, struct walk *w, struct ks_form *out);
char *ks_walk_text_of(struct walk *w, CXCursor c);
void ks_walk_eval_declref(struct walk *w, CXCursor c, struct val *out);
void ks_walk_record_compare(struct walk *w, int op, const struct val *a,
		const struct val *b, unsigned line);
void ks_walk_eval_binary(struct walk *w, CXCursor c, struct val *out);
void ks_walk_eval_compound(struct walk *w, CXCursor c, struct val *out);
void ks_walk_eval_unary(struct walk *w, CXCursor c, struct val *out);

/* ---- memory accesses (walk_access.c) */
void ks_walk_locate(struct walk *w, CXCursor c, struct loc *l);
void ks_walk_eval(struct walk *w, CXCursor c, struct val *out);

/* ---- statements (walk_stmt.c) */
/* Count one step of the walk; 1 when the TU's bound is passed: then the
 * caller does nothing more (the TU gets no inventory). */
int ks_walk_step(struct walk *w);
int ks_walk_impure(struct walk *w, CXCursor c);
void ks_walk_stmt(struct walk *w, CXCursor c);
void ks_walk_inline_call(struct walk *w, CXCursor def, struct val *args,
		size_t nargs, struct val *out);
void ks_walk_kernel(struct ks_tu *t, CXCursor kernel, struct ks_facts *f);

#endif
