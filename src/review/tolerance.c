#include "tolerance.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../core/buf.h"

/*
 * Defaults. fp32: a reordered reduction or a fused multiply-add moves a
 * result by a few ulps of the largest partial sum, so rtol 1e-4 with a small
 * atol for results near zero. The partial sums are of the size of the
 * buffer's typical results, not of a result that cancels to near zero, so
 * stol (a tenth of rtol) lets such a result move by 1e-5 of the buffer's
 * RMS: for results of at least a tenth of the RMS, rtol already allows
 * more. fp64 is held far tighter. fp16 (eps 9.8e-4) and bf16 (eps 7.8e-3)
 * get about ten and five ulps.
 */
static const struct ks_tol defaults[KS_DTYPE_N] = {
	[KS_DTYPE_BYTES] = { 0, 0, 0 },
	[KS_DTYPE_INT] = { 0, 0, 0 },
	[KS_DTYPE_F64] = { 1e-12, 1e-9, 1e-10 },
	[KS_DTYPE_F32] = { 1e-5, 1e-4, 1e-5 },
	[KS_DTYPE_F16] = { 1e-3, 1e-2, 1e-3 },
	[KS_DTYPE_BF16] = { 1e-2, 4e-2, 4e-3 },
};

void
ks_tol_defaults(struct ks_tol *tol)
{
	memcpy(tol, defaults, sizeof(defaults));
}

int
ks_tol_parse(const char *text, struct ks_tol *t, struct ks_buf *err)
{
	char *end, *end2, *end3 = NULL;
	double a, r, st = t->stol;

	errno = 0;
	a = strtod(text, &end);
	if (end == text || *end != ',')
		return ks_error(err, "'%s' is not 'ATOL,RTOL[,STOL]'", text);
	r = strtod(end + 1, &end2);
	if (!errno && end2 != end + 1 && *end2 == ',') {
		st = strtod(end2 + 1, &end3);
		if (end3 == end2 + 1 || *end3 || !(st >= 0) || isinf(st))
			end3 = NULL, errno = EINVAL;
		else
			end2 = end3;
	}
	if (errno || end2 == end + 1 || *end2 || !(a >= 0) || !(r >= 0) ||
	    isinf(a) || isinf(r))
		return ks_error(err, "'%s' is not 'ATOL,RTOL[,STOL]' (non-negative "
				"numbers)", text);
	t->atol = a;
	t->rtol = r;
	t->stol = st;
	return 0;
}

static float
bits_to_float(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

/* IEEE binary16 to float, subnormals, infinities and NaN included. */
static float
half_to_float(uint16_t h)
{
	uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 31,
		 man = h & 1023;

	if (exp == 31)
		return bits_to_float(sign | 0x7f800000u | (man << 13));
	if (exp == 0) {
		float v = (float)man / 16777216.0f;	/* man * 2^-24 */
		return sign ? -v : v;
	}
	return bits_to_float(sign | ((exp + 112) << 23) | (man << 13));
}

double
ks_tol_load(enum ks_dtype d, const void *data, size_t i)
{
	const unsigned char *p = (const unsigned char *)data + i * ks_dtype_size(d);
	double dv;
	float fv;
	uint16_t h;

	switch (d) {
	case KS_DTYPE_F64:
		memcpy(&dv, p, 8);
		return dv;
	case KS_DTYPE_F32:
		memcpy(&fv, p, 4);
		return fv;
	case KS_DTYPE_F16:
		memcpy(&h, p, 2);
		return half_to_float(h);
	case KS_DTYPE_BF16:
		memcpy(&h, p, 2);
		return bits_to_float((uint32_t)h << 16);
	default:
		return p[0];
	}
}

static uint32_t
float_to_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

static uint16_t
float_to_bf16(float f)
{
	uint32_t u = float_to_bits(f);

	if (isnan(f))
		return (uint16_t)((u >> 16) | 0x40);
	u += 0x7fff + ((u >> 16) & 1);
	return (uint16_t)(u >> 16);
}

static uint16_t
float_to_half(float f)
{
	uint32_t u = float_to_bits(f), sign = (u >> 16) & 0x8000;
	float a = fabsf(f);
	int e;

	if (isnan(f))
		return (uint16_t)(sign | 0x7e00);
	if (a >= 65520.0f)	/* rounds to infinity */
		return (uint16_t)(sign | 0x7c00);
	if (a < 6.103515625e-05f) {
		/* Subnormal: a multiple of 2^-24; nearbyint rounds to even. */
		return (uint16_t)(sign | (uint32_t)nearbyintf(a * 16777216.0f));
	}
	frexpf(a, &e);
	/* 11 significant bits: round a / 2^(e-11) to an integer, evenly. */
	{
		float m = nearbyintf(ldexpf(a, 11 - e));	/* 1024 .. 2048 */
		uint32_t exp, man;

		if (m >= 2048.0f) {
			m = 1024.0f;
			e++;
		}
		exp = (uint32_t)(e - 1 + 15);
		man = (uint32_t)m - 1024;
		if (exp >= 31)
			return (uint16_t)(sign | 0x7c00);
		return (uint16_t)(sign | exp << 10 | man);
	}
}

void
ks_tol_store(enum ks_dtype d, void *data, size_t i, double v)
{
	unsigned char *p = (unsigned char *)data + i * ks_dtype_size(d);
	float fv = (float)v;
	uint16_t h;

	switch (d) {
	case KS_DTYPE_F64:
		memcpy(p, &v, 8);
		break;
	case KS_DTYPE_F32:
		memcpy(p, &fv, 4);
		break;
	case KS_DTYPE_F16:
		h = float_to_half(fv);
		memcpy(p, &h, 2);
		break;
	case KS_DTYPE_BF16:
		h = float_to_bf16(fv);
		memcpy(p, &h, 2);
		break;
	default:
		break;
	}
}

/* The reference's scale, taken only once an element needs it. */
struct scale {
	enum ks_dtype d;
	const void *ref;
	size_t n;
	int known;
	double slack;	/* stol * rms(ref) */
};

static double
ref_rms(enum ks_dtype d, const void *ref, size_t n)
{
	double s = 0;
	size_t i, m = 0;

	for (i = 0; i < n; i++) {
		double v = ks_tol_load(d, ref, i);

		if (isfinite(v))
			s += v * v, m++;
	}
	return m ? sqrt(s / (double)m) : 0;
}

/* One float pair under the rules; counts the kind of mismatch. */
static int
float_bad(double a, double b, const struct ks_tol *tol, struct scale *sc,
	  struct ks_cmp *r)
{
	int bad;

	if (isnan(a) || isnan(b)) {
		bad = !(isnan(a) && isnan(b));
		r->nan_mismatch += (size_t)bad;
	} else if (isinf(a) || isinf(b)) {
		bad = a != b;
		r->inf_mismatch += (size_t)bad;
	} else {
		double diff = fabs(a - b);
		double lim = tol->atol + tol->rtol * fabs(b);

		if (diff > r->max_abs)
			r->max_abs = diff;
		if (!(diff <= lim) && !sc->known) {
			sc->known = 1;
			if (tol->stol > 0) {
				r->ref_rms = ref_rms(sc->d, sc->ref, sc->n);
				sc->slack = tol->stol * r->ref_rms;
			}
		}
		bad = !(diff <= lim + sc->slack);
	}
	if (bad && !r->bad) {
		r->got_first = a;
		r->want_first = b;
	}
	return bad;
}

/*
 * ks_tol_compare(), stopping at the first mismatch when `early`. f32, the
 * common case at gigabytes, reads its elements directly; the constant
 * checks stop once an element differs from the first.
 */
static int
compare(enum ks_dtype d, const void *got, const void *ref, size_t size,
	const struct ks_tol *tol, struct ks_cmp *r, int early)
{
	size_t es = ks_dtype_size(d), n = size / es, i;
	const unsigned char *g = got, *w = ref;
	struct scale sc = { d, ref, n, 0, 0 };

	memset(r, 0, sizeof(*r));
	r->elems = n;
	r->got_constant = r->ref_constant = 1;
	if (d == KS_DTYPE_F32) {
		uint32_t g0 = 0, w0 = 0;

		if (n) {
			memcpy(&g0, g, 4);
			memcpy(&w0, w, 4);
		}
		for (i = 0; i < n; i++) {
			uint32_t gb, wb;
			float gf, wf;

			memcpy(&gb, g + 4 * i, 4);
			memcpy(&wb, w + 4 * i, 4);
			r->got_constant &= gb == g0;
			r->ref_constant &= wb == w0;
			if (gb == wb && (gb & 0x7f800000u) != 0x7f800000u)
				continue;	/* equal and finite */
			memcpy(&gf, &gb, 4);
			memcpy(&wf, &wb, 4);
			if (float_bad(gf, wf, tol, &sc, r) && !r->bad++) {
				r->first_bad = i;
				if (early)
					return 0;
			}
		}
	} else {
		for (i = 0; i < n; i++) {
			int bad;

			if (r->got_constant && i && memcmp(g + i * es, g, es))
				r->got_constant = 0;
			if (r->ref_constant && i && memcmp(w + i * es, w, es))
				r->ref_constant = 0;
			if (!ks_dtype_is_float(d))
				bad = memcmp(g + i * es, w + i * es, es) != 0;
			else
				bad = float_bad(ks_tol_load(d, got, i), ks_tol_load(d, ref, i),
						tol, &sc, r);
			if (bad && !r->bad++) {
				r->first_bad = i;
				if (early)
					return 0;
			}
		}
	}
	/* A tail shorter than one element: bytes. */
	if (n * es < size && memcmp(g + n * es, w + n * es, size - n * es)) {
		if (!r->bad)
			r->first_bad = n;
		r->bad++;
	}
	return r->bad == 0;
}

int
ks_tol_compare(enum ks_dtype d, const void *got, const void *ref, size_t size,
	       const struct ks_tol *tol, struct ks_cmp *r)
{
	return compare(d, got, ref, size, tol, r, 0);
}

int
ks_check_buffer_passes(const struct ks_check *b, const struct ks_tol *tol)
{
	struct ks_cmp r;

	if (!b->written)
		return !memcmp(b->got, b->before, b->size);
	if (!memcmp(b->got, b->ref, b->size))
		return 1;
	if (!compare(b->dtype, b->got, b->ref, b->size, &tol[b->dtype], &r, 1))
		return 0;
	return !(r.elems > 1 && r.got_constant && !r.ref_constant);
}

int
ks_check_buffer(const struct ks_check *b, const struct ks_tol *tol,
		struct ks_buf *why)
{
	struct ks_cmp r;
	enum ks_dtype d = b->dtype;

	if (!b->written) {
		if (!memcmp(b->got, b->before, b->size))
			return 1;
		ks_tol_compare(KS_DTYPE_BYTES, b->got, b->before, b->size, &tol[0], &r);
		ks_buf_addf(why, "changed a buffer the original leaves alone "
				 "(%zu of %zu bytes differ, first at byte %zu)",
			    r.bad, b->size, r.first_bad);
		return 0;
	}
	/* Identical bytes pass every rule below; most runs are identical,
	 * and at gigabytes the element-wise rules are the review's cost. */
	if (!memcmp(b->got, b->ref, b->size))
		return 1;
	if (!ks_tol_compare(d, b->got, b->ref, b->size, &tol[d], &r)) {
		if (d == KS_DTYPE_BYTES || !r.elems)
			ks_buf_addf(why, "%zu of %zu bytes differ from the reference",
				    r.bad, r.elems ? r.elems : b->size);
		else
			ks_buf_addf(why, "%zu of %zu %s elements differ from the reference",
				    r.bad, r.elems, ks_dtype_name(d));
		if (ks_dtype_is_float(d)) {
			ks_buf_addf(why, " beyond atol %g + rtol %g*|ref|", tol[d].atol,
				    tol[d].rtol);
			if (tol[d].stol > 0)
				ks_buf_addf(why, " + stol %g*rms(ref) (rms %.3g)",
					    tol[d].stol, r.ref_rms);
			if (r.first_bad < r.elems)
				ks_buf_addf(why, "; first at %zu: got %.9g, want %.9g",
					    r.first_bad, r.got_first, r.want_first);
			if (r.nan_mismatch)
				ks_buf_addf(why, "; %zu NaN misplaced", r.nan_mismatch);
			if (r.inf_mismatch)
				ks_buf_addf(why, "; %zu infinities misplaced", r.inf_mismatch);
		} else {
			ks_buf_addf(why, "; first at element %zu", r.first_bad);
		}
		return 0;
	}
	if (r.elems > 1 && r.got_constant && !r.ref_constant) {
		ks_buf_addf(why, "output is constant where the reference's is not");
		return 0;
	}
	return 1;
}
