/*
 * Unit tests of src/policy/expr: precedence, three-valued evaluation,
 * errors at parse time (syntax, unknown names, types), justifications.
 */
#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/policy/expr.h"
#include "test.h"

void ks_suite_expr(void);

/* A vocabulary of four names: a, b (numbers), p, q (true/false). */
static int
lookup(void *ctx, const char *name, enum ks_expr_type *type)
{
	static const char *const names[] = { "m.a", "m.b", "f.p", "f.q" };
	int i;

	(void)ctx;
	for (i = 0; i < 4; i++)
		if (!strcmp(names[i], name)) {
			*type = i < 2 ? KS_EXPR_NUM : KS_EXPR_BOOL;
			return i;
		}
	return -1;
}

static const struct ks_expr_names vocab = { lookup, NULL };

/* Evaluate `text` over a=2, b=10, p=true, q=false (all known). */
static struct ks_val
eval(const char *text, const struct ks_val *vals, int *ok)
{
	struct ks_expr e = { 0 };
	struct ks_buf err = KS_BUF_INIT;
	struct ks_val v = { 0, 0 };

	*ok = ks_expr_parse(&e, text, &vocab, &err) == 0;
	if (*ok)
		v = ks_expr_eval(&e, vals);
	else
		fprintf(stderr, "parse '%s': %s\n", text, err.buf);
	ks_expr_release(&e);
	ks_buf_release(&err);
	return v;
}

static const struct ks_val known[4] = { { 1, 2 }, { 1, 10 }, { 1, 1 }, { 1, 0 } };

#define CHECK_EVAL(text, want)                                              \
	do {                                                                \
		int ok_;                                                    \
		struct ks_val v_ = eval(text, known, &ok_);                 \
		CHECK(ok_);                                                 \
		CHECK(v_.known);                                            \
		if (v_.v != (want)) {                                       \
			TEST_FAIL_("%s: want %g, got %g", text, (double)(want), v_.v); \
			return;                                             \
		}                                                           \
	} while (0)

TEST(expr_precedence)
{
	CHECK_EVAL("1 + 2 * 3", 7);
	CHECK_EVAL("(1 + 2) * 3", 9);
	CHECK_EVAL("10 - 4 - 3", 3);		/* left associative */
	CHECK_EVAL("12 / 3 / 2", 2);
	CHECK_EVAL("-m.a * 3", -6);
	CHECK_EVAL("m.a + 1 < m.b", 1);		/* arithmetic before comparison */
	CHECK_EVAL("f.p || f.q && f.q", 1);	/* && before || */
	CHECK_EVAL("(f.p || f.q) && f.q", 0);
	CHECK_EVAL("!f.q && f.p", 1);		/* ! before && */
	CHECK_EVAL("!m.a > 3", 1);		/* ! takes the comparison */
	CHECK_EVAL("m.a in [1, 2, 3]", 1);
	CHECK_EVAL("m.b in [1, 2, 3]", 0);
	CHECK_EVAL("m.a + 1 in [3]", 1);
	CHECK_EVAL("max(m.a, m.b, 4) == 10", 1);
	CHECK_EVAL("min(m.a, 4) * 2", 4);
	CHECK_EVAL("f.p == true", 1);
	CHECK_EVAL("f.q != false", 0);
	CHECK_EVAL("1e2 >= 100 && .5 < 1", 1);
	CHECK_EVAL("m.a/m.b*10", 2);		/* no spaces needed */
}

TEST(expr_unknown_values)
{
	struct ks_val vals[4] = { { 0, 0 }, { 1, 10 }, { 1, 1 }, { 1, 0 } };
	struct ks_val v;
	int ok;

	v = eval("m.a > 1", vals, &ok);
	CHECK(ok && !v.known);
	v = eval("m.a > 1 && f.q", vals, &ok);	/* false && unknown */
	CHECK(ok && v.known && v.v == 0);
	v = eval("m.a > 1 || f.p", vals, &ok);	/* true || unknown */
	CHECK(ok && v.known && v.v == 1);
	v = eval("m.a > 1 || f.q", vals, &ok);
	CHECK(ok && !v.known);
	v = eval("!(m.a > 1)", vals, &ok);
	CHECK(ok && !v.known);
	v = eval("known(m.a)", vals, &ok);
	CHECK(ok && v.known && v.v == 0);
	v = eval("!known(m.a) || m.a > 1", vals, &ok);
	CHECK(ok && v.known && v.v == 1);
	v = eval("max(m.a, m.b)", vals, &ok);
	CHECK(ok && !v.known);
	v = eval("m.b / 0", vals, &ok);		/* division by zero: unknown */
	CHECK(ok && !v.known);
}

/* Each error is found at parse time, with the column it is at. */
static void
check_error(const char *text, const char *want, int *failed)
{
	struct ks_expr e = { 0 };
	struct ks_buf err = KS_BUF_INIT;

	if (ks_expr_parse(&e, text, &vocab, &err) == 0 || !strstr(err.buf, want)) {
		fprintf(stderr, "'%s': want an error with '%s', got '%s'\n", text, want,
			err.buf);
		*failed = 1;
	}
	ks_expr_release(&e);
	ks_buf_release(&err);
}

TEST(expr_errors)
{
	int failed = 0;

	check_error("m.zzz > 1", "column 1: unknown name 'm.zzz'", &failed);
	check_error("f.p && m.a > m.nope", "column 14: unknown name 'm.nope'", &failed);
	check_error("m.a &&", "column 7: unexpected end", &failed);
	check_error("m.a && f.p", "'&&' needs true/false, and 'm.a' is a number", &failed);
	check_error("f.p + 1", "'+' needs a number", &failed);
	check_error("!m.a", "'!' needs true/false", &failed);
	check_error("f.p < 2", "'<' needs a number", &failed);
	check_error("f.p == 2", "'==' needs true/false", &failed);
	check_error("1 < 2 < 3", "comparisons do not chain", &failed);
	check_error("(m.a > 1", "expected ')'", &failed);
	check_error("m.a > 1)", "column 8: unexpected ')'", &failed);
	check_error("m.a in 1, 2", "expected '['", &failed);
	check_error("f.p in [1]", "'in' needs a number", &failed);
	check_error("frob(m.a)", "unknown function 'frob'", &failed);
	check_error("max(m.a)", "max() takes two values or more", &failed);
	check_error("known(1)", "known() takes one name", &failed);
	check_error("", "column 1: unexpected end", &failed);
	check_error("m.a > 1 &", "unexpected '&'", &failed);
	check_error("3x > 1", "bad number", &failed);
	check_error("m.a = 1", "unexpected '='", &failed);
	CHECK(!failed);
}

TEST(expr_why_and_names)
{
	struct ks_expr e = { 0 };
	struct ks_buf err = KS_BUF_INIT, t = KS_BUF_INIT;
	int leaves[8], names[8];
	size_t n;

	CHECK_INT_EQ(0, ks_expr_parse(&e, "f.p && (m.a > 5 || m.b > 5) && !f.q", &vocab, &err));
	CHECK_INT_EQ(KS_EXPR_BOOL, e.type);
	CHECK(!ks_expr_is_const(&e));
	/* true because of f.p, m.b > 5 and !f.q; m.a > 5 is false and says nothing */
	n = ks_expr_why(&e, known, leaves, 8);
	CHECK_INT_EQ(3, n);
	ks_expr_node_text(&e, leaves[0], &t);
	CHECK_STR_EQ("f.p", t.buf);
	ks_buf_reset(&t);
	ks_expr_node_text(&e, leaves[1], &t);
	CHECK_STR_EQ("m.b > 5", t.buf);
	ks_buf_reset(&t);
	ks_expr_node_text(&e, leaves[2], &t);
	CHECK_STR_EQ("!f.q", t.buf);
	CHECK_INT_EQ(1, ks_expr_names_of(&e, leaves[1], names, 8));
	CHECK_INT_EQ(1, names[0]);
	CHECK_INT_EQ(4, ks_expr_names_of(&e, e.root, names, 8));
	ks_buf_reset(&t);
	ks_expr_canon(&e, &t);
	CHECK_STR_EQ("f.p&&(m.a>5||m.b>5)&&!f.q", t.buf);
	ks_expr_release(&e);
	ks_buf_release(&err);
	ks_buf_release(&t);
}

void
ks_suite_expr(void)
{
	RUN(expr_precedence);
	RUN(expr_unknown_values);
	RUN(expr_errors);
	RUN(expr_why_and_names);
}
