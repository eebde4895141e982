/*
 * search: visiting order and stop rule of a transform's parameter space
 * (search.h).
 */
#include <string.h>

#include "search.h"

static size_t
position(const struct ks_xf_param *q, long long v)
{
	for (size_t i = 0; i < q->nvalues; i++)
		if (q->values[i] == v)
			return i;
	return 0;
}

struct walk {
	const struct ks_transform *t;
	const int *fixed;
	size_t pos[KS_XF_MAX_PARAMS];
	/* the largest sum of positions parameters i.. can still make */
	size_t most[KS_XF_MAX_PARAMS + 1];
	struct ks_xf_point *out;
	size_t n, max;
	const struct ks_xf_point *def;
};

/* Appends, in lexicographic order of positions, every point whose free
 * positions from parameter i on sum to `left` (fixed ones hold pos[i]),
 * until the room is full. Only sums the parameters can make are
 * entered, so that the walk costs what it appends whatever the space's
 * size. */
static void
walk_rank(struct walk *w, size_t i, size_t left)
{
	const struct ks_transform *t = w->t;

	if (w->n >= w->max || left > w->most[i])
		return;
	if (i == t->nparams) {
		struct ks_xf_point p;

		memset(&p, 0, sizeof(p));
		p.n = t->nparams;
		for (size_t j = 0; j < t->nparams; j++)
			p.v[j] = t->params[j].values[w->pos[j]];
		if (memcmp(p.v, w->def->v, t->nparams * sizeof(p.v[0])))
			w->out[w->n++] = p;
		return;
	}
	if (w->fixed && w->fixed[i]) {
		walk_rank(w, i + 1, left);
		return;
	}
	for (size_t v = 0; v < t->params[i].nvalues && v <= left; v++) {
		w->pos[i] = v;
		walk_rank(w, i + 1, left - v);
	}
}

size_t
ks_xf_search_points(const struct ks_transform *t, const struct ks_xf_point *base,
		    const int *fixed, struct ks_xf_point *out, size_t max)
{
	struct walk w;
	struct ks_xf_point def;
	size_t i, rank;

	if (!max)
		return 0;
	if (max > KS_XF_SEARCH_MAX)
		max = KS_XF_SEARCH_MAX;
	ks_xf_default_point(t, &def);
	memset(&w, 0, sizeof(w));
	for (i = 0; i < t->nparams; i++)
		if (fixed && fixed[i]) {
			def.v[i] = base->v[i];
			w.pos[i] = position(&t->params[i], base->v[i]);
		}
	for (i = t->nparams; i-- > 0;)
		w.most[i] = w.most[i + 1] +
			((fixed && fixed[i]) || !t->params[i].nvalues ? 0 : t->params[i].nvalues - 1);
	w.t = t;
	w.fixed = fixed;
	w.out = out;
	w.max = max;
	w.def = &def;
	out[w.n++] = def;
	/* Rank by rank, so that a space too large to list whole is cut at
	   its least promising points, whichever parameters they vary. */
	for (rank = 0; rank <= w.most[0] && w.n < max; rank++)
		walk_rank(&w, 0, rank);
	return w.n;
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
