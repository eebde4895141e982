/*
 * registry: the table of builtin transforms and the parameter-point
 * helpers every caller (ks transform, ks try, the loop) shares.
 */
#include <string.h>

#include "../core/buf.h"
#include "transform.h"

#define KS_XF(id) extern const struct ks_transform ks_xf_##id;
#include "list.h"
#undef KS_XF

static const struct ks_transform *const all[] = {
#define KS_XF(id) &ks_xf_##id,
#include "list.h"
#undef KS_XF
	NULL
};

const struct ks_transform *const *
ks_xf_all(size_t *n)
{
	*n = sizeof(all) / sizeof(all[0]) - 1;
	return all;
}

const struct ks_transform *
ks_xf_find(const char *id)
{
	for (size_t i = 0; all[i]; i++)
		if (strcmp(all[i]->id, id) == 0)
			return all[i];
	return NULL;
}

void
ks_xf_default_point(const struct ks_transform *t, struct ks_xf_point *p)
{
	p->n = t->nparams;
	for (size_t i = 0; i < t->nparams; i++)
		p->v[i] = t->params[i].def;
}

static int
allowed(const struct ks_xf_param *q, long long v)
{
	for (size_t i = 0; i < q->nvalues; i++)
		if (q->values[i] == v)
			return 1;
	return 0;
}

int
ks_xf_point_set(const struct ks_transform *t, struct ks_xf_point *p,
		const char *name, long long value, struct ks_buf *err)
{
	for (size_t i = 0; i < t->nparams; i++) {
		const struct ks_xf_param *q = &t->params[i];

		if (strcmp(q->name, name) != 0)
			continue;
		if (!allowed(q, value))
			return ks_error(err, "%s: %s=%lld is not an allowed value",
					t->id, name, value);
		p->v[i] = value;
		return 0;
	}
	return ks_error(err, "%s has no parameter '%s'", t->id, name);
}

void
ks_xf_point_format(const struct ks_transform *t, const struct ks_xf_point *p,
		   struct ks_buf *out)
{
	for (size_t i = 0; i < t->nparams && i < p->n; i++)
		ks_buf_addf(out, "%s%s=%lld", i ? " " : "", t->params[i].name,
			    p->v[i]);
}

enum ks_xf_result
ks_xf_apply(const struct ks_transform *t, const struct ks_xf_input *in,
	    const struct ks_xf_point *p, struct ks_buf *variant,
	    struct ks_buf *reason)
{
	if (p->n != t->nparams) {
		ks_buf_addf(reason, "%s takes %zu parameters, the point has %zu",
			    t->id, t->nparams, p->n);
		return KS_XF_DECLINED;
	}
	for (size_t i = 0; i < t->nparams; i++)
		if (!allowed(&t->params[i], p->v[i])) {
			ks_buf_addf(reason, "%s: %s=%lld is not an allowed value",
				    t->id, t->params[i].name, p->v[i]);
			return KS_XF_DECLINED;
		}
	return t->apply(in, p, variant, reason);
}
