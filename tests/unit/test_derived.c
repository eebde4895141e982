/* Unit tests of the derived coordinates of facts.h (form.c): a flat index
 * divided step by step by uniform values gets quotients and digits, an
 * exact view of every form over them, the chain over the flat index and
 * the step of an offset along each coordinate; the nonlinear view the
 * rest of the analysis reads stays what it was. Forms are built by hand:
 * no parse. */
#include <string.h>

#include "../../src/analysis/facts.h"
#include "test.h"

void ks_suite_derived(void);

/* blockIdx.x * blockDim.x + threadIdx.x */
static struct ks_form
flat(void)
{
	struct ks_form t, b, d, r;

	ks_form_src(&t, KS_SRC_TID_X);
	ks_form_src(&b, KS_SRC_BID_X);
	ks_form_sym(&d, KS_SYM_BDIM_X);
	ks_form_mul(&b, &b, &d);
	ks_form_add(&r, &b, &t);
	return r;
}

static struct ks_form
sym(struct ks_facts *f, const char *name)
{
	struct ks_form s;

	ks_form_sym(&s, ks_facts_sym(f, name));
	return s;
}

/* permute3d: b = o % nb, t = o / nb, a = t % na, c = t / na, and the
 * load offset ((a * nb + b) * nc + c) * 4 */
struct perm {
	struct ks_facts f;
	struct ks_form o, b, t, a, c, load, store;
};

static void
perm_build(struct perm *p)
{
	struct ks_form nb, na, nc, four, x;

	memset(p, 0, sizeof(*p));
	p->o = flat();
	nb = sym(&p->f, "nb");
	na = sym(&p->f, "na");
	nc = sym(&p->f, "nc");
	ks_form_div_derived(&p->f, &p->b, &p->o, &nb, 1);
	ks_form_div_derived(&p->f, &p->t, &p->o, &nb, 0);
	ks_form_div_derived(&p->f, &p->a, &p->t, &na, 1);
	ks_form_div_derived(&p->f, &p->c, &p->t, &na, 0);
	ks_form_mul(&x, &p->a, &nb);
	ks_form_add(&x, &x, &p->b);
	ks_form_mul(&x, &x, &nc);
	ks_form_add(&x, &x, &p->c);
	ks_form_const(&four, 4);
	ks_form_mul(&p->load, &x, &four);
	ks_form_mul(&p->store, &p->o, &four);
}

TEST(derived_quotients_and_digits_of_a_flat_index)
{
	struct perm p;
	struct ks_xform v;

	perm_build(&p);
	CHECK_INT_EQ(2, (int)p.f.ndquots);	/* o / nb and t / na, once each */
	CHECK(ks_form_exact(&p.b, &v));
	CHECK_INT_EQ(1, v.d[0].n);
	CHECK_INT_EQ(1, (int)v.d[0].m[0].k);
	CHECK(ks_form_exact(&p.c, &v));
	CHECK_INT_EQ(1, v.q[1].n);
	CHECK_INT_EQ(2, ks_facts_derived_chain(&p.f));
	ks_facts_release(&p.f);
}

TEST(derived_nonlinear_view_unchanged)
{
	struct perm p;
	struct ks_form nb, old;

	perm_build(&p);
	nb = sym(&p.f, "nb");
	ks_form_div(&old, &p.o, &nb, 1);
	/* what every other consumer reads is what ks_form_div gives */
	CHECK(p.b.nonlinear == old.nonlinear);
	CHECK(p.b.nonlinear & KS_SRC_BIT(KS_SRC_TID_X));
	CHECK(p.load.nonlinear & KS_SRC_BIT(KS_SRC_TID_X));
	CHECK(!ks_form_is_uniform(&p.load));
	ks_facts_release(&p.f);
}

TEST(derived_steps_along_each_coordinate)
{
	struct perm p;
	struct ks_xform v;
	long long k;

	perm_build(&p);
	/* the load moves by one float along c (the top), by 4*nc along b */
	CHECK(ks_form_exact(&p.load, &v));
	CHECK(ks_facts_derived_step(&p.f, 2, &v, 2, &k));
	CHECK_INT_EQ(4, (int)k);
	CHECK(!ks_facts_derived_step(&p.f, 2, &v, 0, &k));
	CHECK(!ks_facts_derived_step(&p.f, 2, &v, 1, &k));
	/* the store (4*o) by one float along b, by 4*nb along a */
	CHECK(ks_form_exact(&p.store, &v));
	CHECK(ks_facts_derived_step(&p.f, 2, &v, 0, &k));
	CHECK_INT_EQ(4, (int)k);
	CHECK(!ks_facts_derived_step(&p.f, 2, &v, 1, &k));
	CHECK(!ks_facts_derived_step(&p.f, 2, &v, 2, &k));
	ks_facts_release(&p.f);
}

TEST(derived_constant_divisors_and_steps)
{
	struct ks_facts f;
	struct ks_form g = flat(), eight, four, d, q, x;
	struct ks_xform v;
	long long k;

	memset(&f, 0, sizeof(f));
	ks_form_const(&eight, 8);
	ks_form_const(&four, 4);
	ks_form_div_derived(&f, &d, &g, &eight, 1);	/* col = g % 8 */
	ks_form_div_derived(&f, &q, &g, &eight, 0);	/* row = g / 8 */
	/* x[row + 16 * col] * 4: contiguous along the top, 64 along D0 */
	ks_form_const(&x, 16);
	ks_form_mul(&x, &x, &d);
	ks_form_add(&x, &x, &q);
	ks_form_mul(&x, &x, &four);
	CHECK_INT_EQ(1, ks_facts_derived_chain(&f));
	CHECK(ks_form_exact(&x, &v));
	CHECK(ks_facts_derived_step(&f, 1, &v, 1, &k));
	CHECK_INT_EQ(4, (int)k);
	CHECK(ks_facts_derived_step(&f, 1, &v, 0, &k));
	CHECK_INT_EQ(64, (int)k);
	/* g itself: 1 along D0, 8 along the top */
	CHECK(ks_form_exact(&g, &v));
	CHECK(ks_facts_derived_step(&f, 1, &v, 1, &k));
	CHECK_INT_EQ(8, (int)k);
	ks_facts_release(&f);
}

TEST(derived_not_for_thread_divisors_loops_or_data)
{
	struct ks_facts f;
	struct ks_form g = flat(), t, j, n, r, mem;
	struct ks_xform v;

	memset(&f, 0, sizeof(f));
	n = sym(&f, "n");
	ks_form_src(&t, KS_SRC_TID_Y);
	ks_form_div_derived(&f, &r, &g, &t, 1);	/* by a thread value */
	CHECK(!ks_form_exact(&r, &v));
	ks_form_src(&j, KS_SRC_LOOP0);
	ks_form_add(&j, &j, &g);
	ks_form_div_derived(&f, &r, &j, &n, 0);	/* of a loop variable */
	CHECK(!ks_form_exact(&r, &v));
	ks_form_data(&mem, &g);
	ks_form_div_derived(&f, &r, &mem, &n, 1);	/* of loaded data */
	CHECK(!ks_form_exact(&r, &v));
	ks_form_div_derived(&f, &r, &n, &n, 0);		/* uniform: no quotient */
	CHECK_INT_EQ(0, (int)f.ndquots);
	/* a product of two digits is not exact */
	ks_form_div_derived(&f, &r, &g, &n, 1);
	ks_form_mul(&r, &r, &r);
	CHECK(!ks_form_exact(&r, &v));
	ks_facts_release(&f);
}

TEST(derived_chain_declines_other_decompositions)
{
	struct ks_facts f;
	struct ks_form g = flat(), one, n, m, q, r, x;

	/* (g + 1) / n: not of the flat index itself */
	memset(&f, 0, sizeof(f));
	n = sym(&f, "n");
	ks_form_const(&one, 1);
	ks_form_add(&x, &g, &one);
	ks_form_div_derived(&f, &q, &x, &n, 0);
	CHECK_INT_EQ(1, (int)f.ndquots);
	CHECK_INT_EQ(0, ks_facts_derived_chain(&f));
	ks_facts_release(&f);
	/* g / n and g / m: two decompositions of g, not a chain */
	memset(&f, 0, sizeof(f));
	n = sym(&f, "n");
	m = sym(&f, "m");
	ks_form_div_derived(&f, &q, &g, &n, 0);
	ks_form_div_derived(&f, &r, &g, &m, 0);
	CHECK_INT_EQ(2, (int)f.ndquots);
	CHECK_INT_EQ(0, ks_facts_derived_chain(&f));
	ks_facts_release(&f);
}

TEST(derived_table_is_bounded)
{
	struct ks_facts f;
	struct ks_form g = flat(), q, r;
	struct ks_xform v;
	char name[8];

	memset(&f, 0, sizeof(f));
	for (int i = 0; i <= KS_DER_N; i++) {
		struct ks_form s;

		snprintf(name, sizeof(name), "n%d", i);
		s = sym(&f, name);
		ks_form_div_derived(&f, &q, &g, &s, 0);
	}
	CHECK_INT_EQ(KS_DER_N, (int)f.ndquots);
	CHECK(!ks_form_exact(&q, &v));	/* the one past the table */
	ks_form_sub(&r, &q, &q);	/* still nonlinear in the old view */
	CHECK(r.nonlinear & KS_SRC_BIT(KS_SRC_TID_X));
	ks_facts_release(&f);
}

/* k = (g / (H * W)) % K: g / (H * W) is a flat quotient, it and the
 * digit of its division by K are group-level; g % (H * W), g + 1 and a
 * quotient of (g + 1) are not. */
TEST(derived_flat_quotients_and_group_level)
{
	struct ks_facts f;
	struct ks_form g = flat(), h, w, hw, K, q, k, r, one, x;
	struct ks_xform v;
	struct ks_divmod d;
	int qi, ki, ri, xi;

	memset(&f, 0, sizeof(f));
	h = sym(&f, "H");
	w = sym(&f, "W");
	K = sym(&f, "K");
	ks_form_mul(&hw, &h, &w);
	qi = ks_form_div_derived(&f, &q, &g, &hw, 0);
	ki = ks_form_div_derived(&f, &k, &q, &K, 1);
	ri = ks_form_div_derived(&f, &r, &g, &hw, 1);
	CHECK_INT_EQ(qi, ri);		/* g % hw: the digit of the same quotient */
	CHECK(ks_facts_flat_quotient(&f, qi));
	CHECK(!ks_facts_flat_quotient(&f, ki));
	CHECK(ks_form_exact(&q, &v) && ks_facts_group_level(&f, &v));
	CHECK(ks_form_exact(&k, &v) && ks_facts_group_level(&f, &v));
	CHECK(ks_form_exact(&r, &v) && !ks_facts_group_level(&f, &v));
	CHECK(ks_form_exact(&g, &v) && !ks_facts_group_level(&f, &v));
	memset(&d, 0, sizeof(d));
	d.dquot = qi;
	CHECK(ks_facts_divmod_group_level(&f, &d));	/* g / hw */
	d.rem = 1;
	CHECK(!ks_facts_divmod_group_level(&f, &d));	/* g % hw */
	d.dquot = ki;
	CHECK(ks_facts_divmod_group_level(&f, &d));	/* (g / hw) % K */
	d.rem = 0;
	CHECK(ks_facts_divmod_group_level(&f, &d));	/* (g / hw) / K */
	d.dquot = -1;
	CHECK(!ks_facts_divmod_group_level(&f, &d));	/* no quotient */
	/* (g + 1) / hw: shifted, not a flat quotient */
	ks_form_const(&one, 1);
	ks_form_add(&x, &g, &one);
	xi = ks_form_div_derived(&f, &x, &x, &hw, 0);
	CHECK(xi >= 0 && !ks_facts_flat_quotient(&f, xi));
	d.dquot = xi;
	CHECK(!ks_facts_divmod_group_level(&f, &d));
	CHECK(!ks_facts_flat_quotient(&f, -1));
	CHECK(!ks_facts_flat_quotient(&f, KS_DER_N));
	ks_facts_release(&f);
}

void
ks_suite_derived(void)
{
	RUN(derived_quotients_and_digits_of_a_flat_index);
	RUN(derived_nonlinear_view_unchanged);
	RUN(derived_steps_along_each_coordinate);
	RUN(derived_constant_divisors_and_steps);
	RUN(derived_not_for_thread_divisors_loops_or_data);
	RUN(derived_chain_declines_other_decompositions);
	RUN(derived_table_is_bounded);
	RUN(derived_flat_quotients_and_group_level);
}
