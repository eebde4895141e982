/*
 * policy: the table's loader (a walk over the YAML tree with a check at
 * every step) and the plan (buckets in order, the first matching case of
 * each, then vetoes and the skills' preconditions).
 */
#include "policy.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../core/buf.h"
#include "../core/util.h"
#include "../memory/knowledge.h"
#include "../memory/skills.h"
#include "../memory/yaml.h"

static const char *const gains[] = { "small", "medium", "large", NULL };
static const char *const sources[] = { "f", "ev", "m", "k", "b", NULL };
#define ALL_TIERS (~0u)

/* --- loading ------------------------------------------------------------- */

struct ld {
	const char *file;
	struct ks_buf *err;
	struct ks_policy *p;
	int bad;
};

static void ld_err(struct ld *l, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void
ld_err(struct ld *l, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	if (l->err->len)
		ks_buf_addch(l->err, '\n');
	ks_buf_addf(l->err, "%s:%d: ", file, line);
	va_start(ap, fmt);
	ks_buf_vaddf(l->err, fmt, ap);
	va_end(ap);
	l->bad++;
}

int
ks_policy_input(const struct ks_policy *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->ninputs; i++)
		if (!strcmp(p->inputs[i].name, name))
			return (int)i;
	return -1;
}

static int
lookup(void *ctx, const char *name, enum ks_expr_type *type)
{
	const struct ks_policy *p = ctx;
	int i = ks_policy_input(p, name);

	if (i >= 0)
		*type = p->inputs[i].type;
	return i;
}

static int
add_input(struct ld *l, const char *name, const char *source,
	  enum ks_expr_type type, int line)
{
	struct ks_policy *p = l->p;
	struct ks_policy_input *in;

	if (ks_policy_input(p, name) >= 0) {
		ld_err(l, l->file, line, "'%s' is declared twice", name);
		return -1;
	}
	p->inputs = ks_xrealloc(p->inputs, (p->ninputs + 1) * sizeof(*p->inputs));
	in = &p->inputs[p->ninputs];
	in->name = ks_xstrdup(name);
	in->source = ks_xstrdup(source);
	in->type = type;
	in->line = line;
	return (int)p->ninputs++;
}

/* Parse an expression at a node; `want_bool` for conditions. */
static int
ld_expr(struct ld *l, const char *file, const struct ks_ynode *parent,
	const struct ks_ynode *n, const char *what, int want_bool, struct ks_expr *e)
{
	struct ks_expr_names names = { lookup, l->p };
	struct ks_buf err = KS_BUF_INIT;
	int rc = -1;

	if (!n) {
		ld_err(l, file, parent->line, "%s: the expression is missing", what);
		return -1;
	}
	if (n->kind != KS_Y_SCALAR) {
		ld_err(l, file, n->line, "%s must be an expression, not %s", what,
		       ks_ynode_kind_name(n->kind));
		return -1;
	}
	if (ks_expr_parse(e, n->str, &names, &err)) {
		ld_err(l, file, n->line, "%s: %s", what, err.buf);
	} else if (want_bool && e->type != KS_EXPR_BOOL) {
		ld_err(l, file, n->line, "%s must be true/false, and '%s' is a number",
		       what, n->str);
		ks_expr_release(e);
	} else {
		rc = 0;
	}
	ks_buf_release(&err);
	return rc;
}

static int
check_keys(struct ld *l, const struct ks_ynode *map, const char *what,
	   const char *const *allowed)
{
	size_t i;
	int rc = 0;

	if (!map || map->kind != KS_Y_MAP) {
		ld_err(l, l->file, map ? map->line : 0, "%s must be a mapping", what);
		return -1;
	}
	for (i = 0; i < map->n; i++)
		if (!ks_str_in_list(allowed, map->keys[i])) {
			ld_err(l, l->file, map->key_lines[i], "%s: unknown field '%s'", what,
			       map->keys[i]);
			rc = -1;
		}
	return rc;
}

static char *
ld_text(struct ld *l, const struct ks_ynode *map, const char *key, int required,
	const char *what)
{
	const struct ks_ynode *v = ks_ynode_get(map, key);

	if (!v) {
		if (required)
			ld_err(l, l->file, map->line, "%s: '%s' is missing", what, key);
		return NULL;
	}
	if (v->kind != KS_Y_SCALAR || !v->str[0]) {
		ld_err(l, l->file, v->line, "%s: '%s' must be a text", what, key);
		return NULL;
	}
	return ks_xstrdup(v->str);
}

static const struct ks_ynode *
ld_list(struct ld *l, const struct ks_ynode *map, const char *key, const char *what)
{
	const struct ks_ynode *v = ks_ynode_get(map, key);

	if (v && v->kind != KS_Y_SEQ) {
		ld_err(l, l->file, v->line, "%s: '%s' must be a list", what, key);
		return NULL;
	}
	return v;
}

static int
ld_skill(struct ld *l, const struct ks_ynode *n, const char *what)
{
	if (n->kind != KS_Y_SCALAR) {
		ld_err(l, l->file, n->line, "%s: a skill id is a text", what);
		return -1;
	}
	if (!ks_skills_find(l->p->skills, n->str)) {
		ld_err(l, l->file, n->line, "%s: no skill '%s' in the skills folder",
		       what, n->str);
		return -1;
	}
	return 0;
}

static void
ld_inputs(struct ld *l, const struct ks_ynode *in)
{
	size_t i, j, k;

	if (check_keys(l, in, "inputs", sources))
		return;
	for (i = 0; i < in->n; i++) {
		const struct ks_ynode *src = in->items[i];

		if (check_keys(l, src, in->keys[i], (const char *const[]){ "bool", "number",
									  NULL }))
			continue;
		for (j = 0; j < src->n; j++) {
			const struct ks_ynode *names = src->items[j];
			enum ks_expr_type t = !strcmp(src->keys[j], "bool") ? KS_EXPR_BOOL :
				KS_EXPR_NUM;

			if (names->kind != KS_Y_SEQ) {
				ld_err(l, l->file, names->line, "inputs %s.%s must be a list "
				       "of names", in->keys[i], src->keys[j]);
				continue;
			}
			for (k = 0; k < names->n; k++) {
				char *full;

				if (names->items[k]->kind != KS_Y_SCALAR) {
					ld_err(l, l->file, names->items[k]->line, "a name is a text");
					continue;
				}
				full = ks_xasprintf("%s.%s", in->keys[i], names->items[k]->str);
				add_input(l, full, in->keys[i], t, names->items[k]->line);
				free(full);
			}
		}
	}
}

static void
ld_derived(struct ld *l, const struct ks_ynode *d)
{
	struct ks_policy *p = l->p;
	size_t i;

	if (!d)
		return;
	if (d->kind != KS_Y_MAP) {
		ld_err(l, l->file, d->line, "derived must map names to expressions");
		return;
	}
	p->derived = ks_xcalloc(d->n ? d->n : 1, sizeof(*p->derived));
	for (i = 0; i < d->n; i++) {
		struct ks_policy_derived *dv = &p->derived[p->nderived];
		char *name = ks_xasprintf("d.%s", d->keys[i]);
		int slot;

		/* Parsed before it is declared: a derived value cannot read itself. */
		if (ld_expr(l, l->file, d, d->items[i], name, 0, &dv->expr) == 0) {
			slot = add_input(l, name, "d", dv->expr.type, d->key_lines[i]);
			if (slot >= 0) {
				dv->input = slot;
				p->nderived++;
			} else {
				ks_expr_release(&dv->expr);
			}
		}
		free(name);
	}
}

static void
ld_tiers(struct ld *l, const struct ks_ynode *t)
{
	struct ks_policy *p = l->p;
	size_t i, j;

	if (!t)
		return;
	if (t->kind != KS_Y_SEQ || t->n > 16) {
		ld_err(l, l->file, t->line, "tiers must be a list (at most 16)");
		return;
	}
	p->tiers = ks_xcalloc(t->n ? t->n : 1, sizeof(*p->tiers));
	for (i = 0; i < t->n; i++) {
		struct ks_policy_tier *tr = &p->tiers[p->ntiers];

		if (check_keys(l, t->items[i], "a tier", (const char *const[]){ "id", "when",
									     "doc", NULL }))
			continue;
		tr->id = ld_text(l, t->items[i], "id", 1, "a tier");
		tr->doc = ld_text(l, t->items[i], "doc", 0, "a tier");
		tr->line = t->items[i]->line;
		if (!tr->id || ld_expr(l, l->file, t->items[i], ks_ynode_get(t->items[i], "when"),
				       "a tier's 'when'", 1, &tr->when)) {
			free(tr->id);
			free(tr->doc);
			continue;
		}
		for (j = 0; j < p->ntiers; j++)
			if (!strcmp(p->tiers[j].id, tr->id))
				ld_err(l, l->file, tr->line, "tier '%s' is declared twice", tr->id);
		p->ntiers++;
	}
}

static int
tier_index(const struct ks_policy *p, const char *id)
{
	size_t i;

	for (i = 0; i < p->ntiers; i++)
		if (!strcmp(p->tiers[i].id, id))
			return (int)i;
	return -1;
}

static unsigned
ld_tier_mask(struct ld *l, const struct ks_ynode *list, const char *what)
{
	unsigned mask = 0;
	size_t i, j;

	if (!list)
		return ALL_TIERS;
	if (list->kind != KS_Y_SEQ || !list->n) {
		ld_err(l, l->file, list->line, "%s: 'tiers' must list tier ids", what);
		return ALL_TIERS;
	}
	for (i = 0; i < list->n; i++) {
		for (j = 0; j < l->p->ntiers; j++)
			if (list->items[i]->kind == KS_Y_SCALAR &&
			    !strcmp(list->items[i]->str, l->p->tiers[j].id))
				break;
		if (j == l->p->ntiers)
			ld_err(l, l->file, list->items[i]->line, "%s: no tier '%s'", what,
			       list->items[i]->kind == KS_Y_SCALAR ? list->items[i]->str : "?");
		else
			mask |= 1u << j;
	}
	return mask;
}

static void
ld_case(struct ld *l, const struct ks_ynode *n, const char *bucket,
	struct ks_policy_case *c)
{
	const struct ks_ynode *allow, *forbid;
	char *what;
	size_t i;

	c->line = n->line;
	if (check_keys(l, n, "a case", (const char *const[]){ "id", "when", "tiers",
							     "allow", "forbid", "gain",
							     "doc", NULL }))
		return;
	c->id = ld_text(l, n, "id", 1, "a case");
	what = ks_xasprintf("case %s/%s", bucket, c->id ? c->id : "?");
	c->doc = ld_text(l, n, "doc", 0, what);
	c->gain = ld_text(l, n, "gain", 1, what);
	if (c->gain && !ks_str_in_list(gains, c->gain))
		ld_err(l, l->file, ks_ynode_get(n, "gain")->line,
		       "%s: gain '%s' is not small, medium or large", what, c->gain);
	ld_expr(l, l->file, n, ks_ynode_get(n, "when"), what, 1, &c->when);
	c->tiers = ld_tier_mask(l, ks_ynode_get(n, "tiers"), what);
	allow = ld_list(l, n, "allow", what);
	if (!allow || !allow->n) {
		ld_err(l, l->file, n->line, "%s allows no skill", what);
	} else {
		c->allow = ks_xcalloc(allow->n, sizeof(*c->allow));
		for (i = 0; i < allow->n; i++)
			if (!ld_skill(l, allow->items[i], what))
				c->allow[c->nallow++] = ks_xstrdup(allow->items[i]->str);
	}
	forbid = ks_ynode_get(n, "forbid");
	if (forbid && (forbid->kind != KS_Y_MAP || !forbid->n)) {
		ld_err(l, l->file, forbid->line, "%s: 'forbid' maps skills to the reason",
		       what);
	} else if (forbid) {
		c->forbid = ks_xcalloc(forbid->n, sizeof(*c->forbid));
		for (i = 0; i < forbid->n; i++) {
			if (!ks_skills_find(l->p->skills, forbid->keys[i])) {
				ld_err(l, l->file, forbid->key_lines[i],
				       "%s: no skill '%s' in the skills folder", what,
				       forbid->keys[i]);
				continue;
			}
			if (forbid->items[i]->kind != KS_Y_SCALAR) {
				ld_err(l, l->file, forbid->items[i]->line,
				       "%s: the reason for forbidding '%s' is a text", what,
				       forbid->keys[i]);
				continue;
			}
			c->forbid[c->nforbid].skill = ks_xstrdup(forbid->keys[i]);
			c->forbid[c->nforbid++].why = ks_xstrdup(forbid->items[i]->str);
		}
	}
	free(what);
}

/* A case that no values can reach is a mistake in the table. */
static void
check_reachable(struct ld *l, const struct ks_policy_bucket *b)
{
	struct ks_val none = { 0, 0 };
	size_t i, j;

	for (i = 0; i < b->ncases; i++) {
		const struct ks_policy_case *c = &b->cases[i];
		struct ks_buf ci = KS_BUF_INIT;

		if (!c->when.text)
			continue;
		if (ks_expr_is_const(&c->when) && !ks_expr_eval(&c->when, &none).v) {
			ld_err(l, l->file, c->line, "case %s/%s is unreachable: its 'when' "
			       "is always false", b->id, c->id);
			continue;
		}
		ks_expr_canon(&c->when, &ci);
		for (j = 0; j < i; j++) {
			const struct ks_policy_case *e = &b->cases[j];
			struct ks_buf ce = KS_BUF_INIT;
			int covers;

			if (!e->when.text)
				continue;
			ks_expr_canon(&e->when, &ce);
			covers = (ks_expr_is_const(&e->when) && ks_expr_eval(&e->when, &none).v) ||
				!strcmp(ce.buf, ci.buf);
			ks_buf_release(&ce);
			if (covers && (e->tiers & c->tiers) == c->tiers) {
				ld_err(l, l->file, c->line, "case %s/%s is unreachable: case "
				       "%s (line %d) matches whenever it does", b->id, c->id,
				       e->id, e->line);
				break;
			}
		}
		ks_buf_release(&ci);
	}
}

static void
ld_buckets(struct ld *l, const struct ks_ynode *bs)
{
	struct ks_policy *p = l->p;
	struct ks_val none = { 0, 0 };
	size_t i, j;

	if (!bs || bs->kind != KS_Y_SEQ || !bs->n) {
		ld_err(l, l->file, bs ? bs->line : 1, "'buckets' must be a list of buckets");
		return;
	}
	p->buckets = ks_xcalloc(bs->n, sizeof(*p->buckets));
	for (i = 0; i < bs->n; i++) {
		const struct ks_ynode *n = bs->items[i], *cases;
		struct ks_policy_bucket *b = &p->buckets[p->nbuckets++];
		char *what;

		b->line = n->line;
		if (check_keys(l, n, "a bucket", (const char *const[]){ "id", "signature",
								       "cases", "doc", NULL }))
			continue;
		b->id = ld_text(l, n, "id", 1, "a bucket");
		if (!b->id)
			continue;
		for (j = 0; j + 1 < p->nbuckets; j++)
			if (p->buckets[j].id && !strcmp(p->buckets[j].id, b->id))
				ld_err(l, l->file, n->line, "bucket '%s' is declared twice", b->id);
		what = ks_xasprintf("bucket %s", b->id);
		b->doc = ld_text(l, n, "doc", 0, what);
		if (!ld_expr(l, l->file, n, ks_ynode_get(n, "signature"), what, 1, &b->signature) &&
		    ks_expr_is_const(&b->signature) && !ks_expr_eval(&b->signature, &none).v)
			ld_err(l, l->file, n->line, "%s is unreachable: its signature is "
			       "always false", what);
		cases = ld_list(l, n, "cases", what);
		if (!cases || !cases->n) {
			ld_err(l, l->file, n->line, "%s has no cases", what);
			free(what);
			continue;
		}
		b->cases = ks_xcalloc(cases->n, sizeof(*b->cases));
		for (j = 0; j < cases->n; j++) {
			size_t k;

			ld_case(l, cases->items[j], b->id, &b->cases[b->ncases++]);
			for (k = 0; k + 1 < b->ncases; k++)
				if (b->cases[k].id && b->cases[b->ncases - 1].id &&
				    !strcmp(b->cases[k].id, b->cases[b->ncases - 1].id))
					ld_err(l, l->file, cases->items[j]->line,
					       "%s: case '%s' is declared twice", what,
					       b->cases[k].id);
		}
		check_reachable(l, b);
		free(what);
	}
}

static void
ld_vetoes(struct ld *l, const struct ks_ynode *vs)
{
	struct ks_policy *p = l->p;
	struct ks_val none = { 0, 0 };
	size_t i, j;

	if (!vs)
		return;
	if (vs->kind != KS_Y_SEQ) {
		ld_err(l, l->file, vs->line, "'vetoes' must be a list");
		return;
	}
	p->vetoes = ks_xcalloc(vs->n ? vs->n : 1, sizeof(*p->vetoes));
	for (i = 0; i < vs->n; i++) {
		const struct ks_ynode *n = vs->items[i], *list;
		struct ks_policy_veto *v = &p->vetoes[p->nvetoes++];
		char *what;

		v->line = n->line;
		if (check_keys(l, n, "a veto", (const char *const[]){ "id", "when", "forbid",
								     "why", NULL }))
			continue;
		v->id = ld_text(l, n, "id", 1, "a veto");
		what = ks_xasprintf("veto %s", v->id ? v->id : "?");
		v->why = ld_text(l, n, "why", 1, what);
		if (!ld_expr(l, l->file, n, ks_ynode_get(n, "when"), what, 1, &v->when) &&
		    ks_expr_is_const(&v->when) && !ks_expr_eval(&v->when, &none).v)
			ld_err(l, l->file, n->line, "%s never applies: its 'when' is always "
			       "false", what);
		list = ld_list(l, n, "forbid", what);
		if (!list || !list->n) {
			ld_err(l, l->file, n->line, "%s forbids no skill", what);
		} else {
			v->skills = ks_xcalloc(list->n, sizeof(*v->skills));
			for (j = 0; j < list->n; j++)
				if (!ld_skill(l, list->items[j], what))
					v->skills[v->nskills++] = ks_xstrdup(list->items[j]->str);
		}
		free(what);
	}
}

static void
ld_similarity(struct ld *l, const struct ks_ynode *s)
{
	struct ks_policy *p = l->p;
	size_t i;

	if (!s)
		return;
	if (s->kind != KS_Y_SEQ) {
		ld_err(l, l->file, s->line, "'similarity' must list input names");
		return;
	}
	p->similarity = ks_xcalloc(s->n ? s->n : 1, sizeof(*p->similarity));
	for (i = 0; i < s->n; i++) {
		int slot = s->items[i]->kind == KS_Y_SCALAR ?
			ks_policy_input(p, s->items[i]->str) : -1;

		if (slot < 0)
			ld_err(l, l->file, s->items[i]->line, "similarity: unknown name '%s'",
			       s->items[i]->kind == KS_Y_SCALAR ? s->items[i]->str : "?");
		else
			p->similarity[p->nsimilarity++] = slot;
	}
}

/* The skills' preconditions and expected metrics, against the names. */
static void
ld_skills(struct ld *l)
{
	struct ks_policy *p = l->p;
	struct ks_expr_names names = { lookup, p };
	size_t i, j;

	p->requires = ks_xcalloc(p->skills->n ? p->skills->n : 1, sizeof(*p->requires));
	for (i = 0; i < p->skills->n; i++) {
		const struct ks_skill *s = &p->skills->v[i];
		struct ks_policy_requires *r = &p->requires[i];

		r->skill = s;
		r->exprs = ks_xcalloc(s->nrequires ? s->nrequires : 1, sizeof(*r->exprs));
		for (j = 0; j < s->nrequires; j++) {
			struct ks_buf err = KS_BUF_INIT;

			if (ks_expr_parse(&r->exprs[r->n], s->requires[j].text, &names, &err))
				ld_err(l, s->file, s->requires[j].line, "requires: %s", err.buf);
			else if (r->exprs[r->n].type != KS_EXPR_BOOL) {
				ld_err(l, s->file, s->requires[j].line, "requires: '%s' is a "
				       "number, not true/false", s->requires[j].text);
				ks_expr_release(&r->exprs[r->n]);
			} else {
				r->n++;
			}
			ks_buf_release(&err);
		}
		for (j = 0; j < s->nexpected; j++) {
			char *m = ks_xasprintf("m.%s", s->expected[j].metric);

			if (ks_policy_input(p, m) < 0)
				ld_err(l, s->file, s->expected[j].line, "expected: '%s' is not "
				       "a metric the policy reads (m.* in %s)", s->expected[j].metric,
				       l->file);
			free(m);
		}
	}
}

int
ks_policy_parse(const char *file, const char *text, size_t len,
		const struct ks_skills *skills, struct ks_policy *out,
		struct ks_buf *err)
{
	struct ld l = { file, err, out, 0 };
	struct ks_ynode *root;
	const struct ks_ynode *v, *cap;

	ks_policy_release(out);
	out->file = ks_xstrdup(file);
	out->skills = skills;
	root = ks_yaml_parse(file, text, len, 1, err);
	if (!root)
		return -1;
	if (!check_keys(&l, root, "the policy", (const char *const[]){ "version", "inputs",
									"derived", "tiers", "cap",
									"similarity", "buckets",
									"vetoes", NULL })) {
		v = ks_ynode_get(root, "version");
		if (!v || v->kind != KS_Y_SCALAR || strcmp(v->str, "1"))
			ld_err(&l, file, v ? v->line : 1, "'version: 1' is required");
		out->version = 1;
		ld_inputs(&l, ks_ynode_get(root, "inputs"));
		ld_derived(&l, ks_ynode_get(root, "derived"));
		ld_tiers(&l, ks_ynode_get(root, "tiers"));
		cap = ks_ynode_get(root, "cap");
		if (cap && !check_keys(&l, cap, "cap", (const char *const[]){ "tier", "gain",
									   NULL })) {
			out->cap_tier = ld_text(&l, cap, "tier", 1, "cap");
			out->cap_gain = ld_text(&l, cap, "gain", 1, "cap");
			if (out->cap_gain && !ks_str_in_list(gains, out->cap_gain))
				ld_err(&l, file, cap->line, "cap: gain '%s' is not small, medium "
				       "or large", out->cap_gain);
			if (out->cap_tier && tier_index(out, out->cap_tier) < 0)
				ld_err(&l, file, cap->line, "cap: no tier '%s'", out->cap_tier);
		}
		ld_similarity(&l, ks_ynode_get(root, "similarity"));
		ld_buckets(&l, ks_ynode_get(root, "buckets"));
		ld_vetoes(&l, ks_ynode_get(root, "vetoes"));
		ld_skills(&l);
	}
	ks_ynode_free(root);
	if (l.bad) {
		ks_policy_release(out);
		return -1;
	}
	return 0;
}

static void
free_strs(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void
ks_policy_release(struct ks_policy *p)
{
	size_t i, j;

	for (i = 0; i < p->ninputs; i++) {
		free(p->inputs[i].name);
		free(p->inputs[i].source);
	}
	free(p->inputs);
	for (i = 0; i < p->nderived; i++)
		ks_expr_release(&p->derived[i].expr);
	free(p->derived);
	for (i = 0; i < p->ntiers; i++) {
		free(p->tiers[i].id);
		free(p->tiers[i].doc);
		ks_expr_release(&p->tiers[i].when);
	}
	free(p->tiers);
	for (i = 0; i < p->nbuckets; i++) {
		struct ks_policy_bucket *b = &p->buckets[i];

		free(b->id);
		free(b->doc);
		ks_expr_release(&b->signature);
		for (j = 0; j < b->ncases; j++) {
			struct ks_policy_case *c = &b->cases[j];
			size_t k;

			free(c->id);
			free(c->doc);
			free(c->gain);
			ks_expr_release(&c->when);
			free_strs(c->allow, c->nallow);
			for (k = 0; k < c->nforbid; k++) {
				free(c->forbid[k].skill);
				free(c->forbid[k].why);
			}
			free(c->forbid);
		}
		free(b->cases);
	}
	free(p->buckets);
	for (i = 0; i < p->nvetoes; i++) {
		free(p->vetoes[i].id);
		free(p->vetoes[i].why);
		ks_expr_release(&p->vetoes[i].when);
		free_strs(p->vetoes[i].skills, p->vetoes[i].nskills);
	}
	free(p->vetoes);
	free(p->similarity);
	if (p->requires && p->skills) {
		for (i = 0; i < p->skills->n; i++) {
			for (j = 0; j < p->requires[i].n; j++)
				ks_expr_release(&p->requires[i].exprs[j]);
			free(p->requires[i].exprs);
		}
	}
	free(p->requires);
	free(p->cap_tier);
	free(p->cap_gain);
	free(p->file);
	memset(p, 0, sizeof(*p));
}

/* --- values -------------------------------------------------------------- */

void
ks_policy_values_init(struct ks_policy_values *vals, const struct ks_policy *p)
{
	vals->n = p->ninputs;
	vals->v = ks_xcalloc(p->ninputs ? p->ninputs : 1, sizeof(*vals->v));
}

void
ks_policy_values_release(struct ks_policy_values *vals)
{
	free(vals->v);
	memset(vals, 0, sizeof(*vals));
}

int
ks_policy_set(const struct ks_policy *p, struct ks_policy_values *vals,
	      const char *name, double v)
{
	int i = ks_policy_input(p, name);

	if (i < 0 || (size_t)i >= vals->n)
		return -1;
	vals->v[i].known = 1;
	vals->v[i].v = v;
	return 0;
}

/* --- the plan ------------------------------------------------------------ */

void
ks_plan_release(struct ks_plan *pl)
{
	size_t i;

	for (i = 0; i < pl->nallowed; i++) {
		struct ks_plan_item *it = &pl->allowed[i];

		free(it->skill);
		free(it->bucket);
		free(it->case_id);
		free(it->gain);
		free(it->why);
		free(it->why_json);
		free(it->requires_unknown);
	}
	free(pl->allowed);
	for (i = 0; i < pl->nforbidden; i++) {
		free(pl->forbidden[i].skill);
		free(pl->forbidden[i].rule);
		free(pl->forbidden[i].why);
		free(pl->forbidden[i].why_json);
	}
	free(pl->forbidden);
	for (i = 0; i < pl->nskipped; i++) {
		free(pl->skipped[i].what);
		free(pl->skipped[i].needs);
		for (size_t k = 0; k < pl->skipped[i].nskills; k++)
			free(pl->skipped[i].skills[k]);
		free(pl->skipped[i].skills);
	}
	free(pl->skipped);
	free(pl->tier);
	free(pl->tier_why);
	free(pl->tier_why_json);
	memset(pl, 0, sizeof(*pl));
}

static void
add_num(struct ks_buf *b, double v)
{
	if (v == floor(v) && fabs(v) < 1e15)
		ks_buf_addf(b, "%.0f", v);
	else
		ks_buf_addf(b, "%.4g", v);
}

/* The predicates behind the value of `e`, as text and as JSON. */
static void
explain(const struct ks_policy *p, const struct ks_expr *e,
	const struct ks_policy_values *vals, struct ks_buf *text, struct ks_buf *json)
{
	int leaves[32], names[16];
	size_t n = ks_expr_why(e, vals->v, leaves, KS_ARRAY_SIZE(leaves)), i, j, k;

	if (n > KS_ARRAY_SIZE(leaves))
		n = KS_ARRAY_SIZE(leaves);
	for (i = 0; i < n; i++) {
		struct ks_buf pred = KS_BUF_INIT;

		ks_expr_node_text(e, leaves[i], &pred);
		k = ks_expr_names_of(e, leaves[i], names, KS_ARRAY_SIZE(names));
		if (k > KS_ARRAY_SIZE(names))
			k = KS_ARRAY_SIZE(names);
		if (text->len)
			ks_buf_adds(text, "; ");
		ks_buf_adds(text, pred.buf);
		if (json->len > 1)
			ks_buf_adds(json, ", ");
		ks_buf_adds(json, "{\"predicate\": ");
		ks_buf_add_json_str(json, pred.buf);
		ks_buf_adds(json, ", \"values\": {");
		if (k)
			ks_buf_adds(text, " (");
		for (j = 0; j < k; j++) {
			const char *nm = p->inputs[names[j]].name;

			ks_buf_addf(text, "%s%s = ", j ? ", " : "", nm);
			if (j)
				ks_buf_adds(json, ", ");
			ks_buf_add_json_str(json, nm);
			ks_buf_adds(json, ": ");
			if (vals->v[names[j]].known) {
				add_num(text, vals->v[names[j]].v);
				add_num(json, vals->v[names[j]].v);
			} else {
				ks_buf_adds(text, "not measured");
				ks_buf_adds(json, "null");
			}
		}
		if (k)
			ks_buf_adds(text, ")");
		ks_buf_adds(json, "}}");
		ks_buf_release(&pred);
	}
}

static char *
unknown_names(const struct ks_policy *p, const struct ks_expr *e,
	      const struct ks_policy_values *vals)
{
	int names[32];
	size_t n = ks_expr_unknown(e, vals->v, names, KS_ARRAY_SIZE(names)), i;
	struct ks_buf b = KS_BUF_INIT;

	if (n > KS_ARRAY_SIZE(names))
		n = KS_ARRAY_SIZE(names);
	for (i = 0; i < n; i++)
		ks_buf_addf(&b, "%s%s", i ? ", " : "", p->inputs[names[i]].name);
	return ks_buf_detach(&b, NULL);
}

static int gain_rank(const char *g);

/* A skipped bucket (every case) or one case (`only`): what it would
 * allow, and the most it promises. */
static void
skip(struct ks_plan *pl, char *what, char *needs, const struct ks_policy_bucket *b,
     const struct ks_policy_case *only)
{
	struct ks_plan_skipped *s;
	size_t j, k, m;

	pl->skipped = ks_xrealloc(pl->skipped, (pl->nskipped + 1) * sizeof(*pl->skipped));
	s = &pl->skipped[pl->nskipped++];
	memset(s, 0, sizeof(*s));
	s->what = what;
	s->needs = needs;
	for (j = 0; j < b->ncases; j++) {
		const struct ks_policy_case *c = only ? only : &b->cases[j];

		if (c->gain && (!s->gain || gain_rank(c->gain) > gain_rank(s->gain)))
			s->gain = c->gain;
		for (k = 0; k < c->nallow; k++) {
			for (m = 0; m < s->nskills; m++)
				if (!strcmp(s->skills[m], c->allow[k]))
					break;
			if (m < s->nskills)
				continue;
			s->skills = ks_xrealloc(s->skills, (s->nskills + 1) * sizeof(*s->skills));
			s->skills[s->nskills++] = ks_xstrdup(c->allow[k]);
		}
		if (only)
			break;
	}
}

const char *
ks_plan_unjudged_gain(const struct ks_plan *pl, const char *skill)
{
	const char *best = NULL;
	size_t i, k;

	for (i = 0; i < pl->nskipped; i++)
		for (k = 0; k < pl->skipped[i].nskills; k++)
			if (!strcmp(pl->skipped[i].skills[k], skill) && pl->skipped[i].gain &&
			    (!best || gain_rank(pl->skipped[i].gain) > gain_rank(best)))
				best = pl->skipped[i].gain;
	return best ? best : gains[0];
}

static void
forbid(struct ks_plan *pl, const char *skill, char *rule, char *why, char *why_json)
{
	size_t i;

	for (i = 0; i < pl->nforbidden; i++)
		if (!strcmp(pl->forbidden[i].skill, skill) &&
		    !strcmp(pl->forbidden[i].rule, rule)) {
			free(rule);
			free(why);
			free(why_json);
			return;
		}
	pl->forbidden = ks_xrealloc(pl->forbidden,
				    (pl->nforbidden + 1) * sizeof(*pl->forbidden));
	pl->forbidden[pl->nforbidden].skill = ks_xstrdup(skill);
	pl->forbidden[pl->nforbidden].rule = rule;
	pl->forbidden[pl->nforbidden].why = why;
	pl->forbidden[pl->nforbidden++].why_json = why_json;
}

static int
gain_rank(const char *g)
{
	int i;

	for (i = 0; gains[i]; i++)
		if (!strcmp(gains[i], g))
			return i;
	return 0;
}

static int
is_forbidden(const struct ks_plan *pl, const char *skill)
{
	size_t i;

	for (i = 0; i < pl->nforbidden; i++)
		if (!strcmp(pl->forbidden[i].skill, skill))
			return 1;
	return 0;
}

static const struct ks_policy_requires *
requires_of(const struct ks_policy *p, const char *skill)
{
	size_t i;

	for (i = 0; i < p->skills->n; i++)
		if (!strcmp(p->skills->v[i].id, skill))
			return &p->requires[i];
	return NULL;
}

void
ks_policy_plan(const struct ks_policy *p, struct ks_policy_values *vals,
	       struct ks_plan *out)
{
	size_t i, j, k;
	int tier = -1;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < p->nderived; i++)
		vals->v[p->derived[i].input] = ks_expr_eval(&p->derived[i].expr, vals->v);
	for (i = 0; i < p->ninputs; i++)
		if (!strcmp(p->inputs[i].source, "m") && vals->v[i].known)
			out->counters = 1;
	for (i = 0; i < p->ntiers; i++) {
		struct ks_val v = ks_expr_eval(&p->tiers[i].when, vals->v);

		if (v.known && v.v) {
			struct ks_buf t = KS_BUF_INIT, js = KS_BUF_INIT;

			ks_buf_addch(&js, '[');
			explain(p, &p->tiers[i].when, vals, &t, &js);
			ks_buf_addch(&js, ']');
			tier = (int)i;
			out->tier = ks_xstrdup(p->tiers[i].id);
			out->tier_why = ks_buf_detach(&t, NULL);
			out->tier_why_json = ks_buf_detach(&js, NULL);
			break;
		}
	}
	for (i = 0; i < p->nbuckets; i++) {
		const struct ks_policy_bucket *b = &p->buckets[i];
		struct ks_val sig = ks_expr_eval(&b->signature, vals->v);

		if (!sig.known) {
			skip(out, ks_xasprintf("bucket %s", b->id),
			     unknown_names(p, &b->signature, vals), b, NULL);
			continue;
		}
		if (!sig.v)
			continue;
		for (j = 0; j < b->ncases; j++) {
			const struct ks_policy_case *c = &b->cases[j];
			struct ks_val w;
			struct ks_buf t = KS_BUF_INIT, js = KS_BUF_INIT;
			char *gain;

			if (c->tiers != ALL_TIERS) {
				if (tier < 0) {
					skip(out, ks_xasprintf("case %s/%s", b->id, c->id),
					     ks_xstrdup("the headroom tier (counters)"), b, c);
					continue;
				}
				if (!(c->tiers & (1u << tier)))
					continue;
			}
			w = ks_expr_eval(&c->when, vals->v);
			if (!w.known) {
				skip(out, ks_xasprintf("case %s/%s", b->id, c->id),
				     unknown_names(p, &c->when, vals), b, c);
				continue;
			}
			if (!w.v)
				continue;
			ks_buf_addch(&js, '[');
			explain(p, &b->signature, vals, &t, &js);
			explain(p, &c->when, vals, &t, &js);
			if (c->tiers != ALL_TIERS) {
				ks_buf_addf(&t, "%stier %s", t.len ? "; " : "", p->tiers[tier].id);
				ks_buf_addf(&js, "%s{\"predicate\": \"tier in case tiers\", "
					    "\"values\": {\"tier\": ", js.len > 1 ? ", " : "");
				ks_buf_add_json_str(&js, p->tiers[tier].id);
				ks_buf_adds(&js, "}}");
			}
			ks_buf_addch(&js, ']');
			gain = c->gain;
			if (tier >= 0 && p->cap_tier && !strcmp(p->tiers[tier].id, p->cap_tier) &&
			    gain_rank(gain) > gain_rank(p->cap_gain))
				gain = p->cap_gain;
			for (k = 0; k < c->nallow; k++) {
				size_t m;
				struct ks_plan_item *it;

				for (m = 0; m < out->nallowed; m++)
					if (!strcmp(out->allowed[m].skill, c->allow[k]))
						break;
				if (m < out->nallowed)
					continue;
				out->allowed = ks_xrealloc(out->allowed, (out->nallowed + 1) *
							   sizeof(*out->allowed));
				it = &out->allowed[out->nallowed];
				memset(it, 0, sizeof(*it));
				it->skill = ks_xstrdup(c->allow[k]);
				it->bucket = ks_xstrdup(b->id);
				it->case_id = ks_xstrdup(c->id);
				it->gain = ks_xstrdup(gain);
				it->why = ks_xstrdup(t.buf);
				it->why_json = ks_xstrdup(js.buf);
				out->nallowed++;
			}
			for (k = 0; k < c->nforbid; k++)
				forbid(out, c->forbid[k].skill,
				       ks_xasprintf("case %s/%s", b->id, c->id),
				       ks_xstrdup(c->forbid[k].why), ks_xstrdup("[]"));
			ks_buf_release(&t);
			ks_buf_release(&js);
			break;	/* the first matching case of a bucket decides it */
		}
	}
	for (i = 0; i < p->nvetoes; i++) {
		const struct ks_policy_veto *v = &p->vetoes[i];
		struct ks_val w = ks_expr_eval(&v->when, vals->v);

		if (!w.known || !w.v)
			continue;
		for (j = 0; j < v->nskills; j++) {
			struct ks_buf t = KS_BUF_INIT, js = KS_BUF_INIT;
			size_t m;

			/* A veto speaks only of skills a case allowed. */
			for (m = 0; m < out->nallowed; m++)
				if (!strcmp(out->allowed[m].skill, v->skills[j]))
					break;
			if (m == out->nallowed)
				continue;

			ks_buf_addch(&js, '[');
			explain(p, &v->when, vals, &t, &js);
			ks_buf_addch(&js, ']');
			forbid(out, v->skills[j], ks_xasprintf("veto %s", v->id),
			       ks_xasprintf("%s: %s", v->why, t.buf), ks_buf_detach(&js, NULL));
			ks_buf_release(&t);
		}
	}
	/* Preconditions of what is still allowed. */
	for (i = 0; i < out->nallowed; i++) {
		struct ks_plan_item *it = &out->allowed[i];
		const struct ks_policy_requires *r = requires_of(p, it->skill);
		struct ks_buf unk = KS_BUF_INIT;

		for (j = 0; r && j < r->n; j++) {
			struct ks_val w = ks_expr_eval(&r->exprs[j], vals->v);

			if (!w.known) {
				ks_buf_addf(&unk, "%s%s", unk.len ? "; " : "", r->exprs[j].text);
			} else if (!w.v) {
				struct ks_buf t = KS_BUF_INIT, js = KS_BUF_INIT;

				ks_buf_addch(&js, '[');
				explain(p, &r->exprs[j], vals, &t, &js);
				ks_buf_addch(&js, ']');
				forbid(out, it->skill, ks_xstrdup("precondition"),
				       ks_xasprintf("%s is false: %s", r->exprs[j].text, t.buf),
				       ks_buf_detach(&js, NULL));
				ks_buf_release(&t);
			}
		}
		if (unk.len)
			it->requires_unknown = ks_buf_detach(&unk, NULL);
		ks_buf_release(&unk);
	}
	/* Forbidden wins over allowed. */
	for (i = 0, k = 0; i < out->nallowed; i++) {
		if (is_forbidden(out, out->allowed[i].skill)) {
			struct ks_plan_item *it = &out->allowed[i];

			free(it->skill);
			free(it->bucket);
			free(it->case_id);
			free(it->gain);
			free(it->why);
			free(it->why_json);
			free(it->requires_unknown);
			continue;
		}
		out->allowed[k] = out->allowed[i];
		out->allowed[k].policy_rank = (int)k;
		k++;
	}
	out->nallowed = k;
}

/* --- statistics ---------------------------------------------------------- */

double
ks_policy_similarity(const struct ks_policy *p, const struct ks_policy_values *vals,
		     size_t n, char *const *names, const double *values)
{
	size_t i, j, same = 0, total = 0;

	/* Over the names both sides know: an outcome recorded under another
	 * version of the vector still compares on what they share. */
	for (i = 0; i < p->nsimilarity; i++) {
		const struct ks_val *v = &vals->v[p->similarity[i]];
		const char *name = p->inputs[p->similarity[i]].name;

		if (!v->known)
			continue;
		for (j = 0; j < n; j++)
			if (!strcmp(names[j], name)) {
				total++;
				same += values[j] == v->v;
				break;
			}
	}
	return total ? (double)same / (double)total : 0;
}

/* An outcome's value: log2 of the verified speedup, or -1 for a failure. */
static int
outcome_value(const struct ks_outcome *o, double *v)
{
	if (!strcmp(o->result, "incorrect") || !strcmp(o->result, "failed")) {
		*v = -1;
		return 1;
	}
	if (o->speedup > 0) {
		*v = log2(o->speedup);
		return 1;
	}
	return 0;
}

void
ks_policy_rank(const struct ks_policy *p, const struct ks_policy_values *vals,
	       const struct ks_knowledge *k, struct ks_plan *pl)
{
	size_t i, j;

	for (i = 0; i < pl->nallowed; i++) {
		struct ks_plan_item *it = &pl->allowed[i];
		double sw = 0, swv = 0;

		it->evidence = 0;
		for (j = 0; k && j < k->n; j++) {
			const struct ks_outcome *o = &k->v[j];
			double w, v;

			if (strcmp(o->skill, it->skill) || strcmp(o->bucket, it->bucket) ||
			    !outcome_value(o, &v))
				continue;
			w = ks_policy_similarity(p, vals, o->nfeatures, o->fnames, o->fvalues);
			if (w < 0.5)
				continue;
			sw += w;
			swv += w * v;
			it->evidence++;
		}
		it->score = swv / (1 + sw);
	}
	/* A stable insertion sort: higher score first, ties keep the order. */
	for (i = 1; i < pl->nallowed; i++) {
		struct ks_plan_item x = pl->allowed[i];

		for (j = i; j > 0 && pl->allowed[j - 1].score < x.score; j--)
			pl->allowed[j] = pl->allowed[j - 1];
		pl->allowed[j] = x;
	}
}

/* --- output -------------------------------------------------------------- */

void
ks_plan_format(const struct ks_plan *pl, struct ks_buf *out)
{
	size_t i;

	if (pl->tier)
		ks_buf_addf(out, "headroom tier %s: %s\n", pl->tier, pl->tier_why);
	else
		ks_buf_adds(out, "headroom tier: not measured (no counters)\n");
	if (!pl->counters)
		ks_buf_adds(out, "no counters: the plan rests on the static features "
			    "and the compiler evidence\n");
	ks_buf_adds(out, "allowed, best first:\n");
	if (!pl->nallowed)
		ks_buf_adds(out, "  (none)\n");
	for (i = 0; i < pl->nallowed; i++) {
		const struct ks_plan_item *it = &pl->allowed[i];

		ks_buf_addf(out, "  %zu. %s  [%s/%s, gain %s]\n", i + 1, it->skill, it->bucket,
			    it->case_id, it->gain);
		ks_buf_addf(out, "     because %s\n", it->why[0] ? it->why : "the case always applies");
		if (it->evidence)
			ks_buf_addf(out, "     measured on %zu similar kernel%s: score %+.3f "
				    "(policy rank %d)\n", it->evidence,
				    it->evidence == 1 ? "" : "s", it->score, it->policy_rank + 1);
		if (it->requires_unknown)
			ks_buf_addf(out, "     not decidable yet: %s\n", it->requires_unknown);
	}
	if (pl->nforbidden)
		ks_buf_adds(out, "forbidden:\n");
	for (i = 0; i < pl->nforbidden; i++)
		ks_buf_addf(out, "  %s  [%s] %s\n", pl->forbidden[i].skill,
			    pl->forbidden[i].rule, pl->forbidden[i].why);
	if (pl->nskipped)
		ks_buf_adds(out, "skipped (values not known):\n");
	for (i = 0; i < pl->nskipped; i++) {
		ks_buf_addf(out, "  %s: needs %s", pl->skipped[i].what,
			    pl->skipped[i].needs);
		for (size_t k = 0; k < pl->skipped[i].nskills; k++)
			ks_buf_addf(out, "%s%s", k ? ", " : "; would allow ",
				    pl->skipped[i].skills[k]);
		if (pl->skipped[i].nskills && pl->skipped[i].gain)
			ks_buf_addf(out, " (gain %s)", pl->skipped[i].gain);
		ks_buf_addch(out, '\n');
	}
}

void
ks_plan_json(const struct ks_plan *pl, struct ks_buf *out)
{
	size_t i;

	ks_buf_adds(out, "{\"tier\": ");
	ks_buf_add_json_str_or_null(out, pl->tier);
	ks_buf_adds(out, ", \"tier_why\": ");
	ks_buf_adds(out, pl->tier_why_json ? pl->tier_why_json : "[]");
	ks_buf_addf(out, ", \"counters\": %s,\n \"allowed\": [", pl->counters ? "true" : "false");
	for (i = 0; i < pl->nallowed; i++) {
		const struct ks_plan_item *it = &pl->allowed[i];

		ks_buf_addf(out, "%s\n  {\"rank\": %zu, \"skill\": ", i ? "," : "", i + 1);
		ks_buf_add_json_str(out, it->skill);
		ks_buf_adds(out, ", \"bucket\": ");
		ks_buf_add_json_str(out, it->bucket);
		ks_buf_adds(out, ", \"case\": ");
		ks_buf_add_json_str(out, it->case_id);
		ks_buf_adds(out, ", \"gain\": ");
		ks_buf_add_json_str(out, it->gain);
		ks_buf_addf(out, ", \"policy_rank\": %d, \"score\": %.4g, \"evidence\": %zu, "
			    "\"why\": %s, \"undecided\": ", it->policy_rank + 1, it->score,
			    it->evidence, it->why_json);
		ks_buf_add_json_str_or_null(out, it->requires_unknown);
		ks_buf_adds(out, "}");
	}
	ks_buf_adds(out, "],\n \"forbidden\": [");
	for (i = 0; i < pl->nforbidden; i++) {
		ks_buf_adds(out, i ? ",\n  {\"skill\": " : "\n  {\"skill\": ");
		ks_buf_add_json_str(out, pl->forbidden[i].skill);
		ks_buf_adds(out, ", \"rule\": ");
		ks_buf_add_json_str(out, pl->forbidden[i].rule);
		ks_buf_adds(out, ", \"reason\": ");
		ks_buf_add_json_str(out, pl->forbidden[i].why);
		ks_buf_addf(out, ", \"why\": %s}", pl->forbidden[i].why_json);
	}
	ks_buf_adds(out, "],\n \"skipped\": [");
	for (i = 0; i < pl->nskipped; i++) {
		ks_buf_adds(out, i ? ", {\"what\": " : "{\"what\": ");
		ks_buf_add_json_str(out, pl->skipped[i].what);
		ks_buf_adds(out, ", \"needs\": ");
		ks_buf_add_json_str(out, pl->skipped[i].needs);
		ks_buf_adds(out, ", \"would_allow\": [");
		for (size_t k = 0; k < pl->skipped[i].nskills; k++) {
			if (k)
				ks_buf_adds(out, ", ");
			ks_buf_add_json_str(out, pl->skipped[i].skills[k]);
		}
		ks_buf_adds(out, "], \"gain\": ");
		if (pl->skipped[i].gain)
			ks_buf_add_json_str(out, pl->skipped[i].gain);
		else
			ks_buf_adds(out, "null");
		ks_buf_adds(out, "}");
	}
	ks_buf_adds(out, "]}\n");
}
