/*
 * The form algebra of facts.h: polynomials over uniform symbols, and the
 * forms (affine over thread indices and loop inductions) the walk gives
 * every integer expression.
 */
#include "facts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/buf.h"
#include "../core/util.h"

/* ---- polynomials over uniform symbols ------------------------------------ */

static int
poly_zero(const struct ks_poly *p)
{
	return p->n == 0 && !p->opaque;
}

static void
mono_norm(struct ks_mono *m)
{
	for (int i = 1; i < KS_MONO_SYMS; i++)
		for (int j = i; j > 0 && m->sym[j - 1] > m->sym[j]; j--) {
			unsigned short t = m->sym[j - 1];

			m->sym[j - 1] = m->sym[j];
			m->sym[j] = t;
		}
}

static int
mono_cmp(const struct ks_mono *a, const struct ks_mono *b)
{
	for (int i = 0; i < KS_MONO_SYMS; i++)
		if (a->sym[i] != b->sym[i])
			return a->sym[i] < b->sym[i] ? -1 : 1;
	return 0;
}

static int
mono_is_const(const struct ks_mono *m)
{
	for (int i = 0; i < KS_MONO_SYMS; i++)
		if (m->sym[i])
			return 0;
	return 1;
}

/* Add k*m into p, keeping monomials sorted and merged. */
static void
poly_addmono(struct ks_poly *p, const struct ks_mono *m)
{
	struct ks_mono x = *m;
	int i, j;

	if (x.k == 0)
		return;
	mono_norm(&x);
	for (i = 0; i < p->n; i++) {
		int c = mono_cmp(&p->m[i], &x);

		if (c == 0) {
			if (__builtin_add_overflow(p->m[i].k, x.k,
						   &p->m[i].k)) {
				p->opaque = 1;
				p->m[i].k = 0;
			}
			if (p->m[i].k == 0) {
				for (j = i; j + 1 < p->n; j++)
					p->m[j] = p->m[j + 1];
				p->n--;
			}
			return;
		}
		if (c > 0)
			break;
	}
	if (p->n == KS_POLY_MAX) {
		p->opaque = 1;
		return;
	}
	for (j = p->n; j > i; j--)
		p->m[j] = p->m[j - 1];
	p->m[i] = x;
	p->n++;
}

static void
poly_add(struct ks_poly *out, const struct ks_poly *a, const struct ks_poly *b,
	 long long bsign)
{
	struct ks_poly r = *a;
	int i;

	r.opaque |= b->opaque;
	for (i = 0; i < b->n; i++) {
		struct ks_mono m = b->m[i];

		if (__builtin_mul_overflow(m.k, bsign, &m.k)) {
			r.opaque = 1;
			continue;
		}
		poly_addmono(&r, &m);
	}
	*out = r;
}

static void
poly_mul(struct ks_poly *out, const struct ks_poly *a, const struct ks_poly *b)
{
	struct ks_poly r;
	int i, j;

	memset(&r, 0, sizeof(r));
	/* Anything times an unknown non-zero is unknown; zero stays zero. */
	if ((a->opaque && !poly_zero(b)) || (b->opaque && !poly_zero(a)))
		r.opaque = 1;
	for (i = 0; i < a->n; i++) {
		for (j = 0; j < b->n; j++) {
			struct ks_mono m;
			unsigned short s[2 * KS_MONO_SYMS];
			int ns = 0, t;

			for (t = 0; t < KS_MONO_SYMS; t++) {
				if (a->m[i].sym[t])
					s[ns++] = a->m[i].sym[t];
				if (b->m[j].sym[t])
					s[ns++] = b->m[j].sym[t];
			}
			if (ns > KS_MONO_SYMS ||
			    __builtin_mul_overflow(a->m[i].k, b->m[j].k, &m.k)) {
				r.opaque = 1;
				continue;
			}
			for (t = 0; t < KS_MONO_SYMS; t++)
				m.sym[t] = t < ns ? s[t] : 0;
			poly_addmono(&r, &m);
		}
	}
	*out = r;
}

static int
poly_const(const struct ks_poly *p, long long *k)
{
	if (p->opaque)
		return 0;
	if (p->n == 0) {
		*k = 0;
		return 1;
	}
	if (p->n == 1 && mono_is_const(&p->m[0])) {
		*k = p->m[0].k;
		return 1;
	}
	return 0;
}

static int
poly_equal(const struct ks_poly *a, const struct ks_poly *b)
{
	int i;

	if (a->n != b->n || a->opaque || b->opaque)
		return 0;
	for (i = 0; i < a->n; i++)
		if (a->m[i].k != b->m[i].k || mono_cmp(&a->m[i], &b->m[i]))
			return 0;
	return 1;
}

static int
poly_multiple_of(const struct ks_poly *p, long long k)
{
	int i;

	if (p->opaque)
		return 0;
	for (i = 0; i < p->n; i++)
		if (p->m[i].k % k)
			return 0;
	return 1;
}

/* ---- exact views (derived coordinates) ----------------------------------- */

/* The exact view of `f` into *v; 0 when it has none. */
static int
xview(const struct ks_form *f, struct ks_xform *v)
{
	if (f->data)
		return 0;
	if (f->xv == KS_XV_OWN) {
		*v = f->xf;
		return 1;
	}
	if (f->xv == KS_XV_NONE || f->nonlinear)
		return 0;
	memcpy(v->x, f->c, sizeof(v->x));
	memset(v->q, 0, sizeof(v->q));
	memset(v->d, 0, sizeof(v->d));
	return 1;
}

/* Give `out` (whose nonlinear view is computed) its exact view: its own
 * when that is exact, else `v` when `ok`, else none. */
static void
xset(struct ks_form *out, int ok, const struct ks_xform *v)
{
	if (!out->nonlinear && !out->data) {
		out->xv = KS_XV_SAME;
		return;
	}
	if (!ok) {
		out->xv = KS_XV_NONE;
		return;
	}
	out->xv = KS_XV_OWN;
	out->xf = *v;
}

/* Only a constant term (and *u is it): the view is uniform. */
static int
xuniform(const struct ks_xform *v, struct ks_poly *u)
{
	int s;

	for (s = 0; s < KS_SRC_N; s++)
		if (s != KS_SRC_ONE && !poly_zero(&v->x[s]))
			return 0;
	for (s = 0; s < KS_DER_N; s++)
		if (!poly_zero(&v->q[s]) || !poly_zero(&v->d[s]))
			return 0;
	*u = v->x[KS_SRC_ONE];
	return 1;
}

static void
xadd(struct ks_xform *out, const struct ks_xform *a, const struct ks_xform *b,
     long long bsign)
{
	int s;

	for (s = 0; s < KS_SRC_N; s++)
		poly_add(&out->x[s], &a->x[s], &b->x[s], bsign);
	for (s = 0; s < KS_DER_N; s++) {
		poly_add(&out->q[s], &a->q[s], &b->q[s], bsign);
		poly_add(&out->d[s], &a->d[s], &b->d[s], bsign);
	}
}

static void
xscale(struct ks_xform *out, const struct ks_xform *a, const struct ks_poly *u)
{
	int s;

	for (s = 0; s < KS_SRC_N; s++)
		poly_mul(&out->x[s], &a->x[s], u);
	for (s = 0; s < KS_DER_N; s++) {
		poly_mul(&out->q[s], &a->q[s], u);
		poly_mul(&out->d[s], &a->d[s], u);
	}
}

static int
poly_same(const struct ks_poly *a, const struct ks_poly *b)
{
	return poly_equal(a, b) || (poly_zero(a) && poly_zero(b));
}

static int
xequal(const struct ks_xform *a, const struct ks_xform *b)
{
	int s;

	for (s = 0; s < KS_SRC_N; s++)
		if (!poly_same(&a->x[s], &b->x[s]))
			return 0;
	for (s = 0; s < KS_DER_N; s++)
		if (!poly_same(&a->q[s], &b->q[s]) ||
		    !poly_same(&a->d[s], &b->d[s]))
			return 0;
	return 1;
}

/* The exact view of a + bsign * b into out (computed already in the
 * nonlinear view). */
static void
xsum(struct ks_form *out, const struct ks_form *a, const struct ks_form *b,
     long long bsign)
{
	struct ks_xform va, vb, vr;
	int ok;

	if (!out->nonlinear && !out->data) {
		out->xv = KS_XV_SAME;
		return;
	}
	ok = xview(a, &va) && xview(b, &vb);
	if (ok)
		xadd(&vr, &va, &vb, bsign);
	xset(out, ok, &vr);
}

/* ---- forms --------------------------------------------------------------- */

void
ks_form_zero(struct ks_form *out)
{
	memset(out, 0, sizeof(*out));
}

void
ks_form_const(struct ks_form *out, long long k)
{
	struct ks_mono m = { k, { 0, 0 } };

	ks_form_zero(out);
	poly_addmono(&out->c[KS_SRC_ONE], &m);
}

void
ks_form_src(struct ks_form *out, enum ks_src s)
{
	struct ks_mono m = { 1, { 0, 0 } };

	ks_form_zero(out);
	poly_addmono(&out->c[s], &m);
}

void
ks_form_sym(struct ks_form *out, unsigned sym)
{
	struct ks_mono m = { 1, { (unsigned short)sym, 0 } };

	ks_form_zero(out);
	poly_addmono(&out->c[KS_SRC_ONE], &m);
}

unsigned
ks_form_sources(const struct ks_form *f)
{
	unsigned bits = f->nonlinear;
	int s;

	for (s = 0; s < KS_SRC_N; s++)
		if (!poly_zero(&f->c[s]))
			bits |= KS_SRC_BIT(s);
	return bits;
}

int
ks_form_is_uniform(const struct ks_form *f)
{
	return !f->data && (ks_form_sources(f) & ~KS_SRC_BIT(KS_SRC_ONE)) == 0;
}

int
ks_form_is_const(const struct ks_form *f, long long *k)
{
	return ks_form_is_uniform(f) && poly_const(&f->c[KS_SRC_ONE], k);
}

void
ks_form_add(struct ks_form *out, const struct ks_form *a,
	    const struct ks_form *b)
{
	struct ks_form r;
	int s;

	for (s = 0; s < KS_SRC_N; s++)
		poly_add(&r.c[s], &a->c[s], &b->c[s], 1);
	r.nonlinear = a->nonlinear | b->nonlinear;
	r.data = a->data | b->data;
	r.rem = (a->rem | b->rem) & 1;
	xsum(&r, a, b, 1);
	*out = r;
}

void
ks_form_sub(struct ks_form *out, const struct ks_form *a,
	    const struct ks_form *b)
{
	struct ks_form r;
	int s;

	for (s = 0; s < KS_SRC_N; s++)
		poly_add(&r.c[s], &a->c[s], &b->c[s], -1);
	r.nonlinear = a->nonlinear | b->nonlinear;
	r.data = a->data | b->data;
	r.rem = (a->rem | b->rem) & 1;
	xsum(&r, a, b, -1);
	*out = r;
}

void
ks_form_mix(struct ks_form *out, const struct ks_form *a,
	    const struct ks_form *b)
{
	unsigned bits = ks_form_sources(a) | ks_form_sources(b);
	struct ks_form r;
	int s;

	ks_form_zero(&r);
	for (s = 0; s < KS_SRC_N; s++) {
		if (!(bits & KS_SRC_BIT(s)))
			continue;
		r.c[s].opaque = 1;
		if (s != KS_SRC_ONE)
			r.nonlinear |= KS_SRC_BIT(s);
	}
	r.data = a->data | b->data;
	r.rem = (a->rem | b->rem) & 1;
	xset(&r, 0, NULL);
	*out = r;
}

void
ks_form_data(struct ks_form *out, const struct ks_form *deps)
{
	struct ks_form zero;

	ks_form_zero(&zero);
	ks_form_mix(out, deps, &zero);
	out->data = 1;
}

void
ks_form_scale(struct ks_form *out, const struct ks_form *a, long long k)
{
	struct ks_form c;

	ks_form_const(&c, k);
	ks_form_mul(out, a, &c);
}

/* Multiply every coefficient of `a` by the uniform polynomial `u`. */
static void
scale_poly(struct ks_form *out, const struct ks_form *a,
	   const struct ks_poly *u)
{
	struct ks_form r = *a;
	int s;

	for (s = 0; s < KS_SRC_N; s++)
		poly_mul(&r.c[s], &a->c[s], u);
	/* A source that appears nonlinearly stays so unless multiplied by 0. */
	if (poly_zero(u))
		r.nonlinear = 0;
	*out = r;
}

void
ks_form_mul(struct ks_form *out, const struct ks_form *a,
	    const struct ks_form *b)
{
	unsigned rem = (a->rem | b->rem) & 1;
	struct ks_xform va, vb, vr;
	struct ks_poly xu;
	int ok;
	long long k;

	/* the exact view first: `out` may alias a or b */
	ok = xview(a, &va) && xview(b, &vb);
	if (ok && xuniform(&vb, &xu))
		xscale(&vr, &va, &xu);
	else if (ok && xuniform(&va, &xu))
		xscale(&vr, &vb, &xu);
	else
		ok = 0;

	/* (x / c) * c rounds x down to a multiple of c: a remainder split. */
	if (((a->rem & 2) && ks_form_is_const(b, &k)) ||
	    ((b->rem & 2) && ks_form_is_const(a, &k)))
		rem = 1;
	if (ks_form_is_uniform(b)) {
		struct ks_poly u = b->c[KS_SRC_ONE];

		scale_poly(out, a, &u);
		out->data = a->data;
	} else if (ks_form_is_uniform(a)) {
		struct ks_poly u = a->c[KS_SRC_ONE];

		scale_poly(out, b, &u);
		out->data = b->data;
	} else {
		ks_form_mix(out, a, b);
	}
	out->rem = (unsigned char)rem;
	xset(out, ok, &vr);
}

void
ks_form_div(struct ks_form *out, const struct ks_form *a,
	    const struct ks_form *b, int rem)
{
	long long k;
	int s, exact;

	if (ks_form_is_const(b, &k) && k != 0) {
		if (!rem && k == 1) {
			*out = *a;
			return;
		}
		exact = !rem && !a->nonlinear && !a->data;
		for (s = 0; exact && s < KS_SRC_N; s++)
			if (!poly_multiple_of(&a->c[s], k))
				exact = 0;
		if (exact) {
			struct ks_form r = *a;
			int i;

			for (s = 0; s < KS_SRC_N; s++)
				for (i = 0; i < r.c[s].n; i++)
					r.c[s].m[i].k /= k;
			xset(&r, 0, NULL);
			*out = r;
			return;
		}
		if (ks_form_is_uniform(a)) {
			struct ks_form r;

			ks_form_zero(&r);
			r.c[KS_SRC_ONE].opaque = 1;
			r.rem = rem ? 1 : 2;
			*out = r;
			return;
		}
	}
	ks_form_mix(out, a, b);
}

/* Which derived quotient floor(num / den) is, added when new; -1 when
 * the table is full. */
static int
dquot_slot(struct ks_facts *f, const struct ks_xform *num,
	   const struct ks_poly *den)
{
	struct ks_dquot d;
	size_t i;

	for (i = 0; i < f->ndquots; i++)
		if (xequal(&f->dquots[i].num, num) &&
		    poly_equal(&f->dquots[i].den, den))
			return (int)i;
	if (f->ndquots == KS_DER_N)
		return -1;
	d.num = *num;
	d.den = *den;
	return ks_facts_add_dquot(f, &d);
}

int
ks_form_div_derived(struct ks_facts *f, struct ks_form *out,
		    const struct ks_form *a, const struct ks_form *b, int rem)
{
	struct ks_xform va, vr;
	struct ks_poly den;
	struct ks_mono one = { 1, { 0, 0 } };
	int s, dep = 0, k;

	if (!xview(a, &va) || !ks_form_is_uniform(b) ||
	    b->c[KS_SRC_ONE].opaque || poly_zero(&b->c[KS_SRC_ONE])) {
		ks_form_div(out, a, b, rem);
		return -1;
	}
	den = b->c[KS_SRC_ONE];
	for (s = 0; s < KS_SRC_N; s++) {
		int loop = s >= KS_SRC_LOOP0 && s < KS_SRC_ONE;

		if (va.x[s].opaque || (loop && !poly_zero(&va.x[s])))
			dep = -1;
		else if (s != KS_SRC_ONE && !poly_zero(&va.x[s]) && dep >= 0)
			dep = 1;
	}
	for (s = 0; s < KS_DER_N; s++) {
		if (va.q[s].opaque || va.d[s].opaque)
			dep = -1;
		else if ((!poly_zero(&va.q[s]) || !poly_zero(&va.d[s])) &&
			 dep >= 0)
			dep = 1;
	}
	ks_form_div(out, a, b, rem);
	if (dep <= 0 || !(out->nonlinear || out->data) ||
	    (k = dquot_slot(f, &va, &den)) < 0)
		return -1;
	memset(&vr, 0, sizeof(vr));
	poly_addmono(rem ? &vr.d[k] : &vr.q[k], &one);
	xset(out, 1, &vr);
	return k;
}

int
ks_form_exact(const struct ks_form *f, struct ks_xform *out)
{
	return xview(f, out);
}

int
ks_form_same_exact(const struct ks_form *a, const struct ks_form *b)
{
	struct ks_xform va, vb;

	return a->nonlinear == b->nonlinear && a->data == b->data &&
	       a->rem == b->rem && xview(a, &va) && xview(b, &vb) &&
	       xequal(&va, &vb);
}

/* A polynomial that is exactly k * sym (sym 0: the constant k). */
static int
poly_is(const struct ks_poly *p, long long k, unsigned short sym)
{
	/* monomials keep their symbols sorted: a single one is the last */
	struct ks_mono want;

	memset(&want, 0, sizeof(want));
	want.sym[KS_MONO_SYMS - 1] = sym;
	return !p->opaque && p->n == 1 && p->m[0].k == k &&
	       !mono_cmp(&p->m[0], &want);
}

/* The view is c * g + uniform (*c its coefficient) plus quotient and
 * digit terms: the thread indices only as the flat index. */
static int
flat_part(const struct ks_xform *v, struct ks_poly *c)
{
	struct ks_poly want;
	struct ks_mono m = { 1, { 0, KS_SYM_BDIM_X } };
	int s;

	for (s = 0; s < KS_SRC_N; s++)
		if (s != KS_SRC_TID_X && s != KS_SRC_BID_X && s != KS_SRC_ONE &&
		    !poly_zero(&v->x[s]))
			return 0;
	memset(&want, 0, sizeof(want));
	poly_addmono(&want, &m);
	poly_mul(&want, &want, &v->x[KS_SRC_TID_X]);
	if (v->x[KS_SRC_TID_X].opaque || !poly_same(&want, &v->x[KS_SRC_BID_X]))
		return 0;
	*c = v->x[KS_SRC_TID_X];
	return 1;
}

int
ks_facts_derived_chain(const struct ks_facts *f)
{
	size_t k;
	int s;

	for (k = 0; k < f->ndquots; k++) {
		const struct ks_xform *v = &f->dquots[k].num;
		struct ks_poly c;

		for (s = 0; s < KS_DER_N; s++)
			if (!poly_zero(&v->d[s]) ||
			    !(s == (int)k - 1 ? poly_is(&v->q[s], 1, 0)
					      : poly_zero(&v->q[s])))
				return 0;
		if (!flat_part(v, &c) || !poly_zero(&v->x[KS_SRC_ONE]))
			return 0;
		if (k == 0 ? !poly_is(&c, 1, 0) : !poly_zero(&c))
			return 0;
	}
	return (int)f->ndquots;
}

int
ks_facts_flat_quotient(const struct ks_facts *f, int q)
{
	const struct ks_xform *v;
	struct ks_poly c;

	if (q < 0 || (size_t)q >= f->ndquots)
		return 0;
	v = &f->dquots[q].num;
	for (int s = 0; s < KS_DER_N; s++)
		if (!poly_zero(&v->q[s]) || !poly_zero(&v->d[s]))
			return 0;
	return flat_part(v, &c) && poly_is(&c, 1, 0) &&
	       poly_zero(&v->x[KS_SRC_ONE]);
}

/* `depth` bounds the walk: a numerator names only earlier quotients, but
 * hand-made facts need not. */
static int
group_level(const struct ks_facts *f, const struct ks_xform *v, int depth)
{
	if (depth > KS_DER_N)
		return 0;
	for (int s = 0; s < KS_SRC_N; s++)
		if (s != KS_SRC_ONE && !poly_zero(&v->x[s]))
			return 0;
	for (int k = 0; k < KS_DER_N; k++) {
		if (poly_zero(&v->q[k]) && poly_zero(&v->d[k]))
			continue;
		if ((size_t)k >= f->ndquots)
			return 0;
		/* Q_k: a flat quotient, or of a group-level numerator; D_k
		 * = num - den * Q_k: only of a group-level numerator */
		if (!poly_zero(&v->d[k]) || !ks_facts_flat_quotient(f, k))
			if (!group_level(f, &f->dquots[k].num, depth + 1))
				return 0;
	}
	return 1;
}

int
ks_facts_group_level(const struct ks_facts *f, const struct ks_xform *v)
{
	return group_level(f, v, 0);
}

int
ks_facts_divmod_group_level(const struct ks_facts *f,
			    const struct ks_divmod *d)
{
	struct ks_xform v;

	if (d->dquot < 0 || (size_t)d->dquot >= f->ndquots)
		return 0;
	memset(&v, 0, sizeof(v));
	if (d->rem)
		v.d[d->dquot] = (struct ks_poly){ .n = 1, .m = { { 1, { 0 } } } };
	else
		v.q[d->dquot] = (struct ks_poly){ .n = 1, .m = { { 1, { 0 } } } };
	return group_level(f, &v, 0);
}

int
ks_facts_derived_step(const struct ks_facts *f, int m,
		      const struct ks_xform *v, int c, long long *k)
{
	/* g = D0 + den0 * Q0, Q_j = D(j+1) + den(j+1) * Q(j+1): the step of
	 * g, then of each Q_j, along coordinate c; the digit's own term */
	struct ks_poly gstep, qstep[KS_DER_N], r, t;
	struct ks_mono one = { 1, { 0, 0 } };
	int j;

	if (c < 0 || c > m || m > KS_DER_N || !flat_part(v, &r))
		return 0;
	memset(qstep, 0, sizeof(qstep));
	/* Q_j grows with coordinate c > j: by prod den(j+1 .. c-1) */
	for (j = m - 1; j >= 0; j--) {
		if (c <= j)
			continue;
		if (c == j + 1) {
			poly_addmono(&qstep[j], &one);
		} else {
			poly_mul(&qstep[j], &f->dquots[j + 1].den, &qstep[j + 1]);
		}
	}
	memset(&gstep, 0, sizeof(gstep));
	if (c == 0)
		poly_addmono(&gstep, &one);
	else if (m > 0)
		poly_mul(&gstep, &f->dquots[0].den, &qstep[0]);
	/* the step: coef(g) * gstep + sum coef(Q_j) * qstep[j] + coef(D_c) */
	poly_mul(&r, &r, &gstep);
	for (j = 0; j < m; j++) {
		poly_mul(&t, &v->q[j], &qstep[j]);
		poly_add(&r, &r, &t, 1);
	}
	for (j = 0; j < KS_DER_N; j++)
		if (j >= m && (!poly_zero(&v->q[j]) || !poly_zero(&v->d[j])))
			return 0;
	if (c < m)
		poly_add(&r, &r, &v->d[c], 1);
	return poly_const(&r, k);
}

int
ks_form_equal(const struct ks_form *a, const struct ks_form *b)
{
	int s;

	if (a->nonlinear != b->nonlinear || a->data != b->data)
		return 0;
	if (a->nonlinear || a->data)
		return 0;	/* unknown values are never known equal */
	for (s = 0; s < KS_SRC_N; s++)
		if (!poly_equal(&a->c[s], &b->c[s]) &&
		    !(poly_zero(&a->c[s]) && poly_zero(&b->c[s])))
			return 0;
	return 1;
}

int
ks_form_equal_but_const(const struct ks_form *a, const struct ks_form *b)
{
	int s;

	if (a->nonlinear || b->nonlinear || a->data || b->data)
		return 0;
	for (s = 0; s < KS_SRC_N; s++) {
		if (s == KS_SRC_ONE)
			continue;
		if (!poly_equal(&a->c[s], &b->c[s]) &&
		    !(poly_zero(&a->c[s]) && poly_zero(&b->c[s])))
			return 0;
	}
	return 1;
}

int
ks_form_multiple_of(const struct ks_form *f, long long k)
{
	int s;

	if (f->nonlinear || f->data || k <= 0)
		return 0;
	for (s = 0; s < KS_SRC_N; s++)
		if (!poly_multiple_of(&f->c[s], k))
			return 0;
	return 1;
}

int
ks_form_coef_const(const struct ks_form *f, enum ks_src s, long long *k)
{
	if (f->nonlinear & KS_SRC_BIT(s))
		return 0;
	return poly_const(&f->c[s], k);
}

int
ks_form_coef_equal(const struct ks_form *a, enum ks_src s,
		   const struct ks_form *b, enum ks_src t)
{
	if ((a->nonlinear & KS_SRC_BIT(s)) || (b->nonlinear & KS_SRC_BIT(t)))
		return 0;
	if (poly_zero(&a->c[s]) || poly_zero(&b->c[t]))
		return 0;
	return poly_equal(&a->c[s], &b->c[t]);
}

int
ks_form_global_index_only(const struct ks_form *f)
{
	int d;

	for (d = 0; d < 3; d++) {
		const struct ks_poly *t = &f->c[KS_SRC_TID_X + d];
		const struct ks_poly *b = &f->c[KS_SRC_BID_X + d];
		struct ks_poly want, dim;
		struct ks_mono m = {1,
				    {(unsigned short)(KS_SYM_BDIM_X + d), 0}};

		if (f->nonlinear & (KS_SRC_BIT(KS_SRC_TID_X + d) |
				    KS_SRC_BIT(KS_SRC_BID_X + d)))
			return 0;
		if (poly_zero(t) && poly_zero(b))
			continue;
		memset(&dim, 0, sizeof(dim));
		poly_addmono(&dim, &m);
		poly_mul(&want, t, &dim);
		if (!poly_equal(&want, b))
			return 0;
	}
	return 1;
}

static const char *const sym_names[] = {
	"", "bdim.x", "bdim.y", "bdim.z", "gdim.x", "gdim.y", "gdim.z",
};

static const char *const src_names[] = {
	"tid.x", "tid.y", "tid.z", "bid.x", "bid.y", "bid.z",
};

static void
add_sym(struct ks_buf *out, unsigned sym, char *const *syms, size_t nsyms)
{
	if (sym < KS_SYM_USER)
		ks_buf_adds(out, sym_names[sym]);
	else if (syms && sym - KS_SYM_USER < nsyms)
		ks_buf_adds(out, syms[sym - KS_SYM_USER]);
	else
		ks_buf_addf(out, "s%u", sym);
}

void
ks_form_format(const struct ks_form *f, char *const *syms, size_t nsyms,
	       struct ks_buf *out)
{
	size_t start = out->len;
	int s, i;

	for (s = 0; s < KS_SRC_N; s++) {
		const struct ks_poly *p = &f->c[s];
		const char *src = NULL;
		char loop[8];

		if (s < KS_SRC_LOOP0) {
			src = src_names[s];
		} else if (s < KS_SRC_ONE) {
			snprintf(loop, sizeof(loop), "L%d", s - KS_SRC_LOOP0);
			src = loop;
		}
		if (f->nonlinear & KS_SRC_BIT(s)) {
			ks_buf_addf(out, "%sf(%s)",
				    out->len > start ? " + " : "", src);
			continue;
		}
		for (i = 0; i < p->n; i++) {
			const struct ks_mono *m = &p->m[i];
			int t, any = 0;

			ks_buf_adds(out, out->len > start
						 ? (m->k < 0 ? " - " : " + ")
						 : (m->k < 0 ? "-" : ""));
			if (llabs(m->k) != 1 ||
			    (mono_is_const(m) && !src)) {
				ks_buf_addf(out, "%lld", llabs(m->k));
				any = 1;
			}
			for (t = 0; t < KS_MONO_SYMS; t++) {
				if (!m->sym[t])
					continue;
				ks_buf_adds(out, any ? "*" : "");
				add_sym(out, m->sym[t], syms, nsyms);
				any = 1;
			}
			if (src)
				ks_buf_addf(out, "%s%s", any ? "*" : "", src);
		}
		if (p->opaque)
			ks_buf_addf(out, "%s?%s%s",
				    out->len > start ? " + " : "",
				    src ? "*" : "", src ? src : "");
	}
	if (f->data)
		ks_buf_adds(out, out->len > start ? " + mem" : "mem");
	if (out->len == start)
		ks_buf_addch(out, '0');
}
