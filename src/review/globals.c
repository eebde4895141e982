#include "globals.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "../core/buf.h"
#include "../core/grow.h"
#include "../core/util.h"

/* A source name's length prefix: at most this many digits. */
#define KEY_MAX_DIGITS 6

static int
ident_char(int c)
{
	return isalnum(c) || c == '_' || c == '$';
}

/* Parse a decimal length at s; returns the digits used (0: none). */
static size_t
parse_len(const char *s, size_t *len)
{
	size_t d = 0;

	*len = 0;
	while (d < KEY_MAX_DIGITS && isdigit((unsigned char)s[d]))
		*len = *len * 10 + (size_t)(s[d++] - '0');
	return d;
}

/*
 * "__nv_static_<L>_" then L characters then "_": the prefix -rdc gives a
 * static global. Returns the prefix's length, 0 when there is none.
 */
static size_t
nv_static_prefix(const char *s)
{
	static const char pre[] = "__nv_static_";
	size_t n = sizeof(pre) - 1, len, d;

	if (strncmp(s, pre, n))
		return 0;
	d = parse_len(s + n, &len);
	if (!d || s[n + d] != '_')
		return 0;
	if (strlen(s + n + d + 1) < len + 1 || s[n + d + 1 + len] != '_')
		return 0;
	return n + d + 1 + len + 1;
}

char *
ks_globals_key(const char *name)
{
	struct ks_buf k = KS_BUF_INIT;
	const char *s = name;
	size_t pre;

	while ((pre = nv_static_prefix(s))) {
		ks_buf_adds(&k, "@S");
		s += pre;
	}
	if (strncmp(s, "_Z", 2)) {
		ks_buf_adds(&k, s);
		return ks_buf_detach(&k, NULL);
	}
	/*
	 * Walk the mangled name; a run of digits starts a source name of
	 * that length (skipped whole, so digits inside names never count).
	 * Other productions with digits (S0_, T1_, Li3E) are copied as they
	 * are: they never hold a path-dependent part.
	 */
	while (*s) {
		size_t len, d;

		if (!isdigit((unsigned char)*s)) {
			ks_buf_addch(&k, *s++);
			continue;
		}
		d = parse_len(s, &len);
		if (d == KEY_MAX_DIGITS || strlen(s + d) < len) {
			ks_buf_adds(&k, s);
			break;
		}
		if (len >= 10 && !strncmp(s + d, "_INTERNAL_", 10))
			ks_buf_adds(&k, "@I");
		else if (len >= 11 && !strncmp(s + d, "_GLOBAL__N_", 11))
			ks_buf_adds(&k, "@N");
		else
			ks_buf_add(&k, s, d + len);
		s += d + len;
	}
	return ks_buf_detach(&k, NULL);
}

int
ks_globals_is_internal(const char *name)
{
	char *k = ks_globals_key(name);
	int internal = strcmp(k, name) != 0;

	free(k);
	return internal;
}

/* --- the PTX scan ------------------------------------------------------ */

struct span {
	const char *p;
	size_t n;
};

struct func {
	struct span name;
	int entry;
	const char *body, *end;	/* between the braces; NULL: a prototype */
};

struct scan {
	struct func *funcs;
	size_t nfuncs, afuncs;
	struct span *inits;	/* [vars.n]: a variable's initializer text */
	size_t ainits;
};

/* Skip blanks and comments. */
static const char *
skip_space(const char *p, const char *end)
{
	while (p < end) {
		if (isspace((unsigned char)*p)) {
			p++;
		} else if (p + 1 < end && p[0] == '/' && p[1] == '/') {
			while (p < end && *p != '\n')
				p++;
		} else if (p + 1 < end && p[0] == '/' && p[1] == '*') {
			const char *c = strstr(p + 2, "*/");

			p = c && c < end ? c + 2 : end;
		} else {
			break;
		}
	}
	return p;
}

static struct span
read_ident(const char **pp, const char *end)
{
	struct span s = { *pp, 0 };

	while (*pp < end && ident_char((unsigned char)**pp))
		(*pp)++;
	s.n = (size_t)(*pp - s.p);
	return s;
}

/* The end of the balanced group opened at p ('(' or '{'); end if none. */
static const char *
match(const char *p, const char *end, char open, char close)
{
	int depth = 0;

	for (; p < end; p++) {
		if (*p == open) {
			depth++;
		} else if (*p == close && --depth == 0) {
			return p + 1;
		} else if (*p == '/' && p + 1 < end && (p[1] == '/' || p[1] == '*')) {
			p = skip_space(p, end) - 1;
		}
	}
	return end;
}

static int
span_eq(struct span a, const char *s)
{
	return strlen(s) == a.n && !memcmp(a.p, s, a.n);
}

/* A top-level variable declaration "... .global/.const ... name[...] = ...;". */
static const char *
read_var(const char *p, const char *end, struct ks_globals_ptx *out, struct scan *sc)
{
	const char *semi = memchr(p, ';', (size_t)(end - p)), *q;
	struct span last = { NULL, 0 }, init = { NULL, 0 };

	if (!semi)
		semi = end;
	for (q = p; q < semi;) {
		if (*q == '[' || *q == '=')
			break;
		if (*q == '.' || *q == '%') {	/* a directive or a register */
			q++;
			read_ident(&q, semi);
			continue;
		}
		if (ident_char((unsigned char)*q) && !isdigit((unsigned char)*q)) {
			last = read_ident(&q, semi);
			continue;
		}
		q++;
	}
	q = memchr(q, '=', (size_t)(semi - q));
	if (q) {
		init.p = q + 1;
		init.n = (size_t)(semi - init.p);
	}
	if (last.n) {
		sc->inits = KS_GROW(sc->inits, out->vars.n, &sc->ainits);
		sc->inits[out->vars.n] = init;
		ks_strv_push_owned(&out->vars, ks_xstrndup(last.p, last.n));
	}
	return semi < end ? semi + 1 : end;
}

/* A function ".entry NAME(...)" or ".func [(...)] NAME(...)", with its body. */
static const char *
read_func(const char *p, const char *end, int entry, struct scan *sc)
{
	struct func f;

	memset(&f, 0, sizeof(f));
	f.entry = entry;
	p = skip_space(p, end);
	if (!entry && p < end && *p == '(')
		p = skip_space(match(p, end, '(', ')'), end);
	f.name = read_ident(&p, end);
	p = skip_space(p, end);
	if (p < end && *p == '(')
		p = match(p, end, '(', ')');
	/* Performance directives (.maxntid 256, 1, 1) sit before the body. */
	while (p < end && *p != '{' && *p != ';')
		p++;
	if (p < end && *p == '{') {
		const char *close = match(p, end, '{', '}');

		f.body = p + 1;
		f.end = close;
		p = close;
	} else if (p < end) {
		p++;
	}
	if (f.name.n) {
		sc->funcs = KS_GROW(sc->funcs, sc->nfuncs, &sc->afuncs);
		sc->funcs[sc->nfuncs++] = f;
	}
	return p;
}

/* A sorted index of names, for lookups by bsearch. */
struct ix {
	const char *name;
	size_t len;
	size_t i;
};

static int
ix_cmp(const void *a, const void *b)
{
	const struct ix *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->name, y->name, n);

	return c ? c : x->len < y->len ? -1 : x->len > y->len;
}

static const struct ix *
ix_find(const struct ix *v, size_t n, struct span s)
{
	struct ix key = { s.p, s.n, 0 };

	return n ? bsearch(&key, v, n, sizeof(*v), ix_cmp) : NULL;
}

/* Mark what `text` names: variables used, functions queued. */
static void
visit(struct span text, const struct ix *vars, size_t nvars, const struct ix *fns,
      size_t nfns, int *used, int *queued, size_t *queue, size_t *nq)
{
	const char *p = text.p, *end = text.p + text.n;

	while (p < end) {
		struct span id;
		const struct ix *hit;
		size_t k;

		if (*p == '/' && p + 1 < end && (p[1] == '/' || p[1] == '*')) {
			p = skip_space(p, end);
			continue;
		}
		if (*p == '%' || *p == '.' || isdigit((unsigned char)*p)) {
			p++;
			while (p < end && ident_char((unsigned char)*p))
				p++;
			continue;
		}
		if (!ident_char((unsigned char)*p)) {
			p++;
			continue;
		}
		id = read_ident(&p, end);
		if ((hit = ix_find(vars, nvars, id)) != NULL) {
			/* Every declaration of that name (one per module). */
			for (k = (size_t)(hit - vars); k > 0 && !ix_cmp(&vars[k - 1], hit); k--)
				;
			for (; k < nvars && !ix_cmp(&vars[k], hit); k++)
				used[vars[k].i] = 1;
		}
		if ((hit = ix_find(fns, nfns, id)) != NULL) {
			for (k = (size_t)(hit - fns); k > 0 && !ix_cmp(&fns[k - 1], hit); k--)
				;
			for (; k < nfns && !ix_cmp(&fns[k], hit); k++) {
				if (!queued[fns[k].i]) {
					queued[fns[k].i] = 1;
					queue[(*nq)++] = fns[k].i;
				}
			}
		}
	}
}

void
ks_globals_ptx_scan(const char *ptx, const char *kernel, struct ks_globals_ptx *out)
{
	const char *p = ptx, *end = ptx + strlen(ptx);
	struct scan sc;
	struct ix *vars, *fns;
	int *queued, *var_done;
	size_t *queue, nq = 0, i, nfns = 0;
	char *kkey = kernel ? ks_globals_key(kernel) : NULL;
	int found = 0;

	memset(out, 0, sizeof(*out));
	memset(&sc, 0, sizeof(sc));
	ks_strv_init(&out->vars);
	while ((p = skip_space(p, end)) < end) {
		if (*p == '{') {		/* a top-level block (none expected) */
			p = match(p, end, '{', '}');
			continue;
		}
		if (*p != '.') {
			while (p < end && *p != '\n')
				p++;
			continue;
		}
		{
			/* The directives of one declaration, up to what it declares. */
			const char *start = p;
			int handled = 0;

			while (p < end && *p == '.') {
				struct span d;

				p++;
				d = read_ident(&p, end);
				if (span_eq(d, "global") || span_eq(d, "const")) {
					p = read_var(start, end, out, &sc);
					handled = 1;
					break;
				}
				if (span_eq(d, "entry") || span_eq(d, "func")) {
					p = read_func(p, end, span_eq(d, "entry"), &sc);
					handled = 1;
					break;
				}
				if (!(span_eq(d, "visible") || span_eq(d, "extern") ||
				      span_eq(d, "weak") || span_eq(d, "common")))
					break;
				p = skip_space(p, end);
			}
			if (!handled)
				while (p < end && *p != '\n')
					p++;
		}
	}

	out->used = ks_xcalloc(out->vars.n + 1, sizeof(*out->used));
	vars = ks_xcalloc(out->vars.n + 1, sizeof(*vars));
	for (i = 0; i < out->vars.n; i++) {
		vars[i].name = out->vars.v[i];
		vars[i].len = strlen(out->vars.v[i]);
		vars[i].i = i;
	}
	qsort(vars, out->vars.n, sizeof(*vars), ix_cmp);
	fns = ks_xcalloc(sc.nfuncs + 1, sizeof(*fns));
	for (i = 0; i < sc.nfuncs; i++) {
		if (!sc.funcs[i].body)
			continue;
		fns[nfns].name = sc.funcs[i].name.p;
		fns[nfns].len = sc.funcs[i].name.n;
		fns[nfns++].i = i;
	}
	qsort(fns, nfns, sizeof(*fns), ix_cmp);
	queued = ks_xcalloc(sc.nfuncs + 1, sizeof(*queued));
	queue = ks_xcalloc(sc.nfuncs + 1, sizeof(*queue));
	var_done = ks_xcalloc(out->vars.n + 1, sizeof(*var_done));

	/* The kernel's entries: by name, else by key. */
	for (i = 0; kkey && i < sc.nfuncs; i++) {
		struct func *f = &sc.funcs[i];
		char *name, *key;

		if (!f->entry || !f->body)
			continue;
		name = ks_xstrndup(f->name.p, f->name.n);
		key = ks_globals_key(name);
		if (!strcmp(name, kernel) || !strcmp(key, kkey)) {
			queued[i] = 1;
			queue[nq++] = i;
			found = 1;
		}
		free(name);
		free(key);
	}
	if (!found) {
		/* Unknown entry: whatever any function names. */
		for (i = 0; i < sc.nfuncs; i++) {
			if (sc.funcs[i].body && !queued[i]) {
				queued[i] = 1;
				queue[nq++] = i;
			}
		}
	}
	out->found_kernel = found;
	for (;;) {
		int more = 0;

		while (nq) {
			struct func *f = &sc.funcs[queue[--nq]];
			struct span body = { f->body, (size_t)(f->end - f->body) };

			visit(body, vars, out->vars.n, fns, nfns, out->used, queued, queue, &nq);
		}
		/* A reached global's initializer reaches what it names. */
		for (i = 0; i < out->vars.n; i++) {
			if (out->used[i] && !var_done[i] && sc.inits[i].p) {
				var_done[i] = 1;
				visit(sc.inits[i], vars, out->vars.n, fns, nfns, out->used,
				      queued, queue, &nq);
				more = 1;
			}
		}
		if (!more && !nq)
			break;
	}
	free(kkey);
	free(vars);
	free(fns);
	free(queued);
	free(queue);
	free(var_done);
	free(sc.funcs);
	free(sc.inits);
}

void
ks_globals_ptx_release(struct ks_globals_ptx *p)
{
	ks_strv_release(&p->vars);
	free(p->used);
	memset(p, 0, sizeof(*p));
	ks_strv_init(&p->vars);
}

void
ks_globals_map(const struct ks_globals_ptx *p, const char *captured,
	       struct ks_global_map *out)
{
	char *key = ks_globals_key(captured);
	size_t i, hits = 0;
	const char *first = NULL, *first_used = NULL;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < p->vars.n; i++) {
		if (!strcmp(p->vars.v[i], captured)) {
			out->fate = p->used[i] ? KS_GLOBAL_RESTORE : KS_GLOBAL_UNUSED;
			out->name = p->vars.v[i];
			free(key);
			return;
		}
	}
	for (i = 0; i < p->vars.n; i++) {
		char *k = ks_globals_key(p->vars.v[i]);
		size_t j;

		if (strcmp(k, key)) {
			free(k);
			continue;
		}
		free(k);
		/* The same name in several modules' PTX (one per arch) counts once. */
		for (j = 0; j < i; j++)
			if (!strcmp(p->vars.v[j], p->vars.v[i]))
				break;
		if (j == i)
			hits++;
		if (!first)
			first = p->vars.v[i];
		if (p->used[i] && !first_used)
			first_used = p->vars.v[i];
	}
	free(key);
	out->by_key = 1;
	if (!first) {
		out->fate = KS_GLOBAL_ABSENT;
	} else if (!first_used) {
		out->fate = KS_GLOBAL_UNUSED;
		out->name = first;
	} else if (hits > 1) {
		out->fate = KS_GLOBAL_AMBIGUOUS;
	} else {
		out->fate = KS_GLOBAL_RESTORE;
		out->name = first_used;
	}
}

size_t
ks_globals_map_file(const struct ks_globals_ptx *p, const char *const *names,
		    size_t n, struct ks_buf *out)
{
	int *claimed = ks_xcalloc(p->vars.n + 1, sizeof(*claimed));
	size_t i, j, fails = 0;

	for (i = 0; i < n; i++) {
		struct ks_global_map m;

		if (!names[i])
			continue;
		ks_globals_map(p, names[i], &m);
		switch (m.fate) {
		case KS_GLOBAL_RESTORE:
			ks_buf_addf(out, "%zu\t%s\n", i, m.name);
			for (j = 0; j < p->vars.n; j++)
				if (!strcmp(p->vars.v[j], m.name))
					claimed[j] = 1;
			break;
		case KS_GLOBAL_UNUSED:
			ks_buf_addf(out, "%zu\t-\tthe kernel's code never reaches it\n", i);
			break;
		case KS_GLOBAL_ABSENT:
			ks_buf_addf(out, "%zu\t-\tthe module has no such global\n", i);
			break;
		case KS_GLOBAL_AMBIGUOUS:
			ks_buf_addf(out, "fail\t%zu\tseveral globals of the module have "
					 "the path-independent name of %s\n", i, names[i]);
			fails++;
			break;
		}
	}
	for (j = 0; j < p->vars.n; j++) {
		if (!p->used[j] || claimed[j])
			continue;
		/* Once per name (several archs' PTX declare it again). */
		for (i = 0; i < j; i++)
			if (p->used[i] && !strcmp(p->vars.v[i], p->vars.v[j]))
				break;
		if (i == j)
			ks_buf_addf(out, "uses\t%s\n", p->vars.v[j]);
	}
	free(claimed);
	return fails;
}
