/*
 * search: visiting order and stop rule of a transform's parameter space
 * (search.h).
 */
#include <stdlib.h>
#include <string.h>

#include "search.h"

struct ranked {
	size_t rank;
	size_t pos[KS_XF_MAX_PARAMS];
};

static int
before(const struct ranked *x, const struct ranked *y, size_t np)
{
	if (x->rank != y->rank)
		return x->rank < y->rank;
	for (size_t i = 0; i < np; i++)
		if (x->pos[i] != y->pos[i])
			return x->pos[i] < y->pos[i];
	return 0;
}

/* Stable insertion sort: at most KS_XF_SEARCH_MAX points. */
static void
sort_ranked(struct ranked *a, size_t n, size_t np)
{
	for (size_t i = 1; i < n; i++) {
		struct ranked x = a[i];
		size_t j = i;

		for (; j > 0 && before(&x, &a[j - 1], np); j--)
			a[j] = a[j - 1];
		a[j] = x;
	}
}

static size_t
position(const struct ks_xf_param *q, long long v)
{
	for (size_t i = 0; i < q->nvalues; i++)
		if (q->values[i] == v)
			return i;
	return 0;
}

size_t
ks_xf_search_points(const struct ks_transform *t, const struct ks_xf_point *base,
		    const int *fixed, struct ks_xf_point *out, size_t max)
{
	struct ranked *all = calloc(KS_XF_SEARCH_MAX, sizeof(*all));
	size_t n = 0, total = 1, i, j, k, nout = 0;
	struct ks_xf_point def;

	if (!all)
		return 0;
	for (i = 0; i < t->nparams; i++)
		total *= fixed && fixed[i] ? 1 : (t->params[i].nvalues ? t->params[i].nvalues : 1);
	if (total > KS_XF_SEARCH_MAX)
		total = KS_XF_SEARCH_MAX;
	/* Enumerate as a mixed-radix counter over the positions. */
	for (k = 0; k < total; k++) {
		size_t rest = k;

		all[n].rank = 0;
		for (i = 0; i < t->nparams; i++) {
			const struct ks_xf_param *q = &t->params[i];

			if (fixed && fixed[i]) {
				all[n].pos[i] = position(q, base->v[i]);
			} else {
				all[n].pos[i] = rest % q->nvalues;
				rest /= q->nvalues;
				all[n].rank += all[n].pos[i];
			}
		}
		n++;
	}
	sort_ranked(all, n, t->nparams);
	ks_xf_default_point(t, &def);
	for (i = 0; i < t->nparams; i++)
		if (fixed && fixed[i])
			def.v[i] = base->v[i];
	if (max)
		out[nout++] = def;
	for (j = 0; j < n && nout < max; j++) {
		struct ks_xf_point p;

		p.n = t->nparams;
		for (i = 0; i < t->nparams; i++)
			p.v[i] = t->params[i].values[all[j].pos[i]];
		if (memcmp(p.v, def.v, t->nparams * sizeof(p.v[0])) == 0)
			continue;
		out[nout++] = p;
	}
	free(all);
	return nout;
}

long
ks_xf_search_best(const struct ks_xf_timing *m, size_t n)
{
	long best = -1;

	for (size_t i = 0; i < n; i++)
		if (best < 0 || m[i].median < m[best].median)
			best = (long)i;
	return best;
}

int
ks_xf_search_stop(const struct ks_xf_timing *m, size_t n, size_t patience)
{
	size_t since = 0, i;
	long best = -1;

	for (i = 0; i < n; i++) {
		if (best < 0 ||
		    m[i].median < m[best].median - (m[best].hi - m[best].lo)) {
			best = (long)i;
			since = 0;
		} else {
			since++;
			/* Not a clear win, but keep the smaller median as best. */
			if (m[i].median < m[best].median)
				best = (long)i;
		}
	}
	return patience && since >= patience;
}
