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

int
ks_xf_launches_flat(const struct ks_xf_opts *o, int y_free, int z_batch,
		    struct ks_buf *reason)
{
	const struct ks_xf_launch *l;

	for (size_t i = 0; i < o->nlaunches; i++) {
		l = &o->launches[i];
		if (l->block[2] == 1 && (z_batch || l->grid[2] == 1) &&
		    (y_free || (l->block[1] == 1 && l->grid[1] == 1)))
			return 1;
	}
	if (!o->nlaunches)
		return 1;
	l = &o->launches[0];
	ks_buf_addf(reason, "no captured launch fits the variant (%s%s): the first has "
			    "grid %ux%ux%u, block %ux%ux%u, for which it would launch the "
			    "original",
		    y_free ? "blocks flat in z" : "1-D in x",
		    z_batch ? (y_free ? "" : ", any grid.z") : (y_free ? ", grid.z 1" : ""),
		    l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1], l->block[2]);
	return 0;
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
