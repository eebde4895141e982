/*
 * skills: the front matter is cut out and parsed as YAML; the Markdown
 * body is scanned for the guidance section and the two example blocks.
 */
#include "skills.h"

#include <dirent.h>
#include <stdarg.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../core/buf.h"
#include "../core/fs.h"
#include "../core/util.h"
#include "yaml.h"

const char *const ks_skill_categories[] = {
	"memory", "compute", "parallelism", "reduction", "launch", "precision",
	"tiling", "registers", "control", "scheduling", NULL,
};

static void
free_texts(struct ks_skill_text *t, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(t[i].text);
	free(t);
}

void
ks_skill_release(struct ks_skill *s)
{
	size_t i;

	free(s->file);
	free(s->id);
	free(s->title);
	free(s->category);
	free(s->intent);
	free(s->mechanism);
	free_texts(s->requires, s->nrequires);
	for (i = 0; i < s->nexpected; i++)
		free(s->expected[i].metric);
	free(s->expected);
	free_texts(s->forbidden, s->nforbidden);
	free(s->risk_precision);
	free(s->risk_shapes);
	free(s->risk_other);
	free(s->transform);
	free(s->planned_transform);
	for (i = 0; i < s->nparams; i++) {
		free(s->params[i].name);
		free(s->params[i].doc);
	}
	free(s->params);
	free_texts(s->includes, s->nincludes);
	free(s->guidance);
	free(s->before.text);
	free(s->after.text);
	free(s->body);
	memset(s, 0, sizeof(*s));
}

void
ks_skills_release(struct ks_skills *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		ks_skill_release(&s->v[i]);
	free(s->v);
	free(s->dir);
	memset(s, 0, sizeof(*s));
}

const struct ks_skill *
ks_skills_find(const struct ks_skills *s, const char *id)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].id, id))
			return &s->v[i];
	return NULL;
}

static const char *const known_keys[] = {
	"id", "title", "category", "intent", "mechanism", "requires", "expected",
	"forbidden", "risks", "transform", "planned_transform", "parameters",
	"includes", NULL,
};

/* Context of one file's checks. */
struct ctx {
	const char *file;
	struct ks_buf *err;
};

static int err_at(struct ctx *c, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int
err_at(struct ctx *c, int line, const char *fmt, ...)
{
	va_list ap;

	if (c->err->len)
		ks_buf_adds(c->err, ": ");
	ks_buf_addf(c->err, "%s:%d: ", c->file, line);
	va_start(ap, fmt);
	ks_buf_vaddf(c->err, fmt, ap);
	va_end(ap);
	return -1;
}

/* A required or optional scalar text field. */
static int
text_field(struct ctx *c, const struct ks_ynode *root, const char *key,
	   int required, char **out)
{
	const struct ks_ynode *v = ks_ynode_get(root, key);

	if (!v) {
		if (required)
			return err_at(c, root->line, "'%s' is missing", key);
		return 0;
	}
	if (v->kind != KS_Y_SCALAR)
		return err_at(c, v->line, "'%s' must be text, not %s", key,
			      ks_ynode_kind_name(v->kind));
	if (!v->str[0])
		return err_at(c, v->line, "'%s' is empty", key);
	*out = ks_xstrdup(v->str);
	return 0;
}

/* A list of texts (a single text is taken as a list of one). */
static int
texts_field(struct ctx *c, const struct ks_ynode *root, const char *key,
	    int required, struct ks_skill_text **out, size_t *n)
{
	const struct ks_ynode *v = ks_ynode_get(root, key);
	size_t i;

	if (!v) {
		if (required)
			return err_at(c, root->line, "'%s' is missing", key);
		return 0;
	}
	if (v->kind == KS_Y_SCALAR) {
		*out = ks_xcalloc(1, sizeof(**out));
		(*out)[0].text = ks_xstrdup(v->str);
		(*out)[0].line = v->line;
		*n = 1;
		return 0;
	}
	if (v->kind != KS_Y_SEQ)
		return err_at(c, v->line, "'%s' must be a list of texts, not %s", key,
			      ks_ynode_kind_name(v->kind));
	*out = ks_xcalloc(v->n ? v->n : 1, sizeof(**out));
	for (i = 0; i < v->n; i++) {
		if (v->items[i]->kind != KS_Y_SCALAR)
			return err_at(c, v->items[i]->line,
				      "each entry of '%s' must be text, not %s", key,
				      ks_ynode_kind_name(v->items[i]->kind));
		(*out)[i].text = ks_xstrdup(v->items[i]->str);
		(*out)[i].line = v->items[i]->line;
		(*n)++;
	}
	if (required && !*n)
		return err_at(c, v->line, "'%s' is empty", key);
	return 0;
}

static int
parse_int(const char *s, long long *v)
{
	char *end;

	errno = 0;
	*v = strtoll(s, &end, 10);
	return *s && !*end && !errno ? 0 : -1;
}

static int
params_field(struct ctx *c, const struct ks_ynode *root, struct ks_skill *s)
{
	const struct ks_ynode *v = ks_ynode_get(root, "parameters");
	size_t i, j;

	if (!v)
		return 0;
	if (v->kind != KS_Y_SEQ)
		return err_at(c, v->line, "'parameters' must be a list, not %s",
			      ks_ynode_kind_name(v->kind));
	s->params = ks_xcalloc(v->n ? v->n : 1, sizeof(*s->params));
	for (i = 0; i < v->n; i++) {
		const struct ks_ynode *p = v->items[i], *vals, *def;
		struct ks_skill_param *q = &s->params[i];
		int found = 0;

		if (p->kind != KS_Y_MAP)
			return err_at(c, p->line, "each parameter must be a mapping "
				      "(name, values, default, doc)");
		s->nparams++;
		q->line = p->line;
		for (j = 0; j < p->n; j++)
			if (!ks_str_in_list((const char *const[]){ "name", "values", "default",
							    "doc", NULL }, p->keys[j]))
				return err_at(c, p->key_lines[j],
					      "unknown parameter field '%s'", p->keys[j]);
		if (text_field(c, p, "name", 1, &q->name) ||
		    text_field(c, p, "doc", 1, &q->doc))
			return -1;
		vals = ks_ynode_get(p, "values");
		def = ks_ynode_get(p, "default");
		if (!vals || vals->kind != KS_Y_SEQ || !vals->n)
			return err_at(c, vals ? vals->line : p->line,
				      "parameter '%s' needs a list of values", q->name);
		if (vals->n > KS_SKILL_MAX_VALUES)
			return err_at(c, vals->line, "parameter '%s' has more than 16 values",
				      q->name);
		for (j = 0; j < vals->n; j++) {
			if (vals->items[j]->kind != KS_Y_SCALAR ||
			    parse_int(vals->items[j]->str, &q->values[j]))
				return err_at(c, vals->items[j]->line,
					      "parameter '%s': values must be integers", q->name);
			q->nvalues++;
		}
		if (!def || def->kind != KS_Y_SCALAR || parse_int(def->str, &q->def))
			return err_at(c, def ? def->line : p->line,
				      "parameter '%s' needs an integer default", q->name);
		for (j = 0; j < q->nvalues; j++)
			found |= q->values[j] == q->def;
		if (!found)
			return err_at(c, def->line, "parameter '%s': the default is not "
				      "one of the values", q->name);
	}
	return 0;
}

static int
check_header(struct ctx *c, const struct ks_ynode *root, const char *want_id,
	     struct ks_skill *s)
{
	const struct ks_ynode *v;
	size_t i;

	if (root->kind != KS_Y_MAP)
		return err_at(c, root->line, "the front matter must be a mapping, not %s",
			      ks_ynode_kind_name(root->kind));
	for (i = 0; i < root->n; i++)
		if (!ks_str_in_list(known_keys, root->keys[i]))
			return err_at(c, root->key_lines[i], "unknown field '%s'",
				      root->keys[i]);
	if (text_field(c, root, "id", 1, &s->id) ||
	    text_field(c, root, "title", 1, &s->title) ||
	    text_field(c, root, "category", 1, &s->category) ||
	    text_field(c, root, "intent", 1, &s->intent) ||
	    text_field(c, root, "mechanism", 1, &s->mechanism) ||
	    text_field(c, root, "transform", 1, &s->transform) ||
	    text_field(c, root, "planned_transform", 0, &s->planned_transform) ||
	    texts_field(c, root, "requires", 0, &s->requires, &s->nrequires) ||
	    texts_field(c, root, "forbidden", 1, &s->forbidden, &s->nforbidden) ||
	    texts_field(c, root, "includes", 0, &s->includes, &s->nincludes) ||
	    params_field(c, root, s))
		return -1;
	if (strcmp(s->id, want_id))
		return err_at(c, ks_ynode_get(root, "id")->line,
			      "id '%s' does not match the file name (want '%s')", s->id,
			      want_id);
	if (!ks_str_in_list(ks_skill_categories, s->category))
		return err_at(c, ks_ynode_get(root, "category")->line,
			      "unknown category '%s' (see docs/SKILLS.md)", s->category);
	v = ks_ynode_get(root, "transform");
	s->transform_line = v->line;
	if (!strcmp(s->transform, "none")) {
		free(s->transform);
		s->transform = NULL;
	} else if (s->planned_transform) {
		return err_at(c, ks_ynode_get(root, "planned_transform")->line,
			      "'planned_transform' is only for 'transform: none'");
	}
	if (s->nparams && !s->transform && !s->planned_transform)
		return err_at(c, ks_ynode_get(root, "parameters")->line,
			      "parameters without a transform");
	v = ks_ynode_get(root, "expected");
	if (!v)
		return err_at(c, root->line, "'expected' is missing");
	if (v->kind != KS_Y_MAP || !v->n)
		return err_at(c, v->line, "'expected' must map metrics to up or down");
	s->expected = ks_xcalloc(v->n, sizeof(*s->expected));
	for (i = 0; i < v->n; i++) {
		const struct ks_ynode *d = v->items[i];

		if (d->kind != KS_Y_SCALAR || (strcmp(d->str, "up") && strcmp(d->str, "down")))
			return err_at(c, d->line, "expected '%s': the direction must be up "
				      "or down", v->keys[i]);
		s->expected[i].metric = ks_xstrdup(v->keys[i]);
		s->expected[i].direction = d->str[0] == 'u' ? 1 : -1;
		s->expected[i].line = v->key_lines[i];
		s->nexpected++;
	}
	v = ks_ynode_get(root, "risks");
	if (!v)
		return err_at(c, root->line, "'risks' is missing");
	if (v->kind != KS_Y_MAP || !v->n)
		return err_at(c, v->line, "'risks' must map precision, shapes or other "
			      "to a text");
	for (i = 0; i < v->n; i++) {
		char **slot = !strcmp(v->keys[i], "precision") ? &s->risk_precision :
			!strcmp(v->keys[i], "shapes") ? &s->risk_shapes :
			!strcmp(v->keys[i], "other") ? &s->risk_other : NULL;

		if (!slot)
			return err_at(c, v->key_lines[i], "unknown risk '%s' (precision, "
				      "shapes, other)", v->keys[i]);
		if (v->items[i]->kind != KS_Y_SCALAR)
			return err_at(c, v->items[i]->line, "risk '%s' must be text",
				      v->keys[i]);
		*slot = ks_xstrdup(v->items[i]->str);
	}
	return 0;
}

/* Is `line` (len bytes) exactly `want`, give or take trailing blanks? */
static int
line_is(const char *line, size_t len, const char *want)
{
	size_t n = strlen(want);

	while (len && (line[len - 1] == ' ' || line[len - 1] == '\t' ||
		       line[len - 1] == '\r'))
		len--;
	return len == n && !strncmp(line, want, n);
}

/* The Markdown after the header: guidance and the two examples. */
static int
scan_body(struct ctx *c, const char *body, int first_line, struct ks_skill *s)
{
	const char *p = body;
	int line = first_line, in_guidance = 0, guidance_line = 0;
	struct ks_buf guid = KS_BUF_INIT, code = KS_BUF_INIT;
	struct ks_skill_text *fence = NULL;
	int fence_line = 0, rc = -1;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (fence) {
			if (line_is(p, len, "```")) {
				fence->text = ks_buf_detach(&code, NULL);
				fence = NULL;
			} else {
				ks_buf_add(&code, p, len);
				ks_buf_addch(&code, '\n');
			}
		} else if (len >= 3 && !strncmp(p, "```", 3)) {
			struct ks_skill_text *t = line_is(p, len, "```cuda before") ? &s->before :
				line_is(p, len, "```cuda after") ? &s->after : NULL;

			in_guidance = 0;
			if (t && t->line) {
				ks_error(c->err, "%s:%d: a second '%.*s' block", c->file, line,
					 (int)len, p);
				goto out;
			}
			if (t) {
				t->line = line + 1;
				fence = t;
			} else {
				/* Another fenced block: skip it whole. */
				const char *q = nl;
				int l = line;

				while (q && *q) {
					const char *q2 = strchr(q + 1, '\n');
					size_t ql = q2 ? (size_t)(q2 - q - 1) : strlen(q + 1);

					l++;
					if (line_is(q + 1, ql, "```"))
						break;
					q = q2;
				}
				if (!q || !*q) {
					ks_error(c->err, "%s:%d: a code block that does not end",
						 c->file, line);
					goto out;
				}
				line = l;
				nl = strchr(q + 1, '\n');
			}
			fence_line = line;
		} else if (len >= 3 && !strncmp(p, "## ", 3)) {
			in_guidance = line_is(p, len, "## Guidance");
			if (in_guidance)
				guidance_line = line;
		} else if (len >= 2 && !strncmp(p, "# ", 2)) {
			in_guidance = 0;
		} else if (in_guidance) {
			ks_buf_add(&guid, p, len);
			ks_buf_addch(&guid, '\n');
		}
		line++;
		if (!nl)
			break;
		p = nl + 1;
	}
	if (fence) {
		ks_error(c->err, "%s:%d: the example block does not end", c->file,
			 fence_line);
		goto out;
	}
	ks_buf_rtrim(&guid);
	while (guid.len && guid.buf[0] == '\n') {
		memmove(guid.buf, guid.buf + 1, guid.len);
		guid.len--;
	}
	if (!guidance_line) {
		ks_error(c->err, "%s:%d: no '## Guidance' section", c->file, first_line);
		goto out;
	}
	if (!guid.len) {
		ks_error(c->err, "%s:%d: the guidance is empty", c->file, guidance_line);
		goto out;
	}
	if (!s->before.text || !s->after.text) {
		ks_error(c->err, "%s:%d: no '```cuda %s' example block", c->file,
			 first_line, s->before.text ? "after" : "before");
		goto out;
	}
	s->guidance = ks_buf_detach(&guid, NULL);
	rc = 0;
out:
	ks_buf_release(&guid);
	ks_buf_release(&code);
	return rc;
}

int
ks_skill_parse(const char *file, const char *text, size_t len,
	       struct ks_skill *out, struct ks_buf *err)
{
	struct ctx c = { file, err };
	const char *base = ks_basename(file), *end;
	char *want_id;
	struct ks_ynode *root;
	int rc = -1, body_line = 1;
	const char *p;

	ks_skill_release(out);
	if (len < 4 || strncmp(text, "---\n", 4)) {
		ks_error(err, "%s:1: a skill file starts with a '---' line and its "
			 "front matter", file);
		return -1;
	}
	/* The closing "---" line. */
	for (end = strstr(text + 3, "\n---"); end; end = strstr(end + 1, "\n---"))
		if (end[4] == '\n' || end[4] == '\0')
			break;
	if (!end) {
		ks_error(err, "%s:1: the front matter does not end (no closing '---' line)",
			 file);
		return -1;
	}
	for (p = text; p <= end; p++)
		if (*p == '\n')
			body_line++;
	want_id = ks_xstrdup(base);
	if (ks_ends_with(want_id, ".md"))
		want_id[strlen(want_id) - 3] = '\0';
	root = ks_yaml_parse(file, text + 4, (size_t)(end + 1 - (text + 4)), 2, err);
	if (!root)
		goto out;
	out->file = ks_xstrdup(file);
	if (check_header(&c, root, want_id, out))
		goto out;
	p = end + 4;
	if (*p == '\n')
		p++;
	out->body = ks_xstrdup(p);
	if (scan_body(&c, out->body, body_line + 1, out))
		goto out;
	rc = 0;
out:
	ks_ynode_free(root);
	free(want_id);
	if (rc)
		ks_skill_release(out);
	return rc;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int
ks_skills_load(const char *dir, struct ks_skills *out, struct ks_buf *err)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, i, j, bad = 0;

	ks_skills_release(out);
	if (!d)
		return ks_error_errno(err, "cannot open the skills folder '%s'", dir);
	while ((de = readdir(d))) {
		if (!ks_ends_with(de->d_name, ".md") || !strcmp(de->d_name, "README.md"))
			continue;
		names = ks_xrealloc(names, (n + 1) * sizeof(*names));
		names[n++] = ks_xstrdup(de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_str);
	out->dir = ks_xstrdup(dir);
	out->v = ks_xcalloc(n ? n : 1, sizeof(*out->v));
	for (i = 0; i < n; i++) {
		char *path = ks_fs_join(dir, names[i]);
		struct ks_buf text = KS_BUF_INIT, e = KS_BUF_INIT;

		text.max = 1 << 20;
		if (ks_fs_read(path, &text, &e) ||
		    ks_skill_parse(path, text.buf, text.len, &out->v[out->n], &e)) {
			if (err->len)
				ks_buf_addch(err, '\n');
			ks_buf_adds(err, e.buf);
			bad++;
		} else {
			out->n++;
		}
		ks_buf_release(&text);
		ks_buf_release(&e);
		free(path);
		free(names[i]);
	}
	free(names);
	for (i = 0; i < out->n; i++)
		for (j = i + 1; j < out->n; j++)
			if (!strcmp(out->v[i].id, out->v[j].id)) {
				if (err->len)
					ks_buf_addch(err, '\n');
				ks_buf_addf(err, "%s:1: skill '%s' is also defined in %s",
					    out->v[j].file, out->v[j].id, out->v[i].file);
				bad++;
			}
	if (bad) {
		ks_skills_release(out);
		return -1;
	}
	return 0;
}

const char *const ks_prompt_skill_fields[] = {
	"id", "title", "intent", "mechanism", "guidance", "before", "after",
	"forbidden", "risks", "expected", "requires", "transform", NULL,
};

const char *const ks_prompt_task_fields[] = {
	"kernel", "source", "plan", "why", "metrics", "features", "evidence",
	"history", "log", "diagnosis", "skills", NULL,
};

static void
render_field(const struct ks_skill *s, const char *f, struct ks_buf *out)
{
	size_t i;

	if (!strcmp(f, "id"))
		ks_buf_adds(out, s->id);
	else if (!strcmp(f, "title"))
		ks_buf_adds(out, s->title);
	else if (!strcmp(f, "intent"))
		ks_buf_adds(out, s->intent);
	else if (!strcmp(f, "mechanism"))
		ks_buf_adds(out, s->mechanism);
	else if (!strcmp(f, "guidance"))
		ks_buf_adds(out, s->guidance);
	else if (!strcmp(f, "before"))
		ks_buf_adds(out, s->before.text);
	else if (!strcmp(f, "after"))
		ks_buf_adds(out, s->after.text);
	else if (!strcmp(f, "forbidden"))
		for (i = 0; i < s->nforbidden; i++)
			ks_buf_addf(out, "%s- %s", i ? "\n" : "", s->forbidden[i].text);
	else if (!strcmp(f, "requires"))
		for (i = 0; i < s->nrequires; i++)
			ks_buf_addf(out, "%s- %s", i ? "\n" : "", s->requires[i].text);
	else if (!strcmp(f, "expected"))
		for (i = 0; i < s->nexpected; i++)
			ks_buf_addf(out, "%s%s %s", i ? ", " : "", s->expected[i].metric,
				    s->expected[i].direction > 0 ? "up" : "down");
	else if (!strcmp(f, "risks")) {
		const char *sep = "";

		if (s->risk_precision) {
			ks_buf_addf(out, "- precision: %s", s->risk_precision);
			sep = "\n";
		}
		if (s->risk_shapes) {
			ks_buf_addf(out, "%s- shapes: %s", sep, s->risk_shapes);
			sep = "\n";
		}
		if (s->risk_other)
			ks_buf_addf(out, "%s- other: %s", sep, s->risk_other);
	} else if (!strcmp(f, "transform"))
		ks_buf_adds(out, s->transform ? s->transform : "none");
}

int
ks_skill_render(const char *file, const char *tmpl, const struct ks_skill *s,
		struct ks_buf *out, struct ks_buf *err)
{
	const char *p = tmpl;
	int line = 1;

	while (*p) {
		const char *open = strstr(p, "{{"), *close, *q;
		char *f;

		if (!open) {
			ks_buf_adds(out, p);
			break;
		}
		for (q = p; q < open; q++)
			line += *q == '\n';
		ks_buf_add(out, p, (size_t)(open - p));
		close = strstr(open, "}}");
		if (!close)
			return ks_error(err, "%s:%d: '{{' without '}}'", file, line);
		f = ks_xstrndup(open + 2, (size_t)(close - open - 2));
		if (ks_str_in_list(ks_prompt_skill_fields, f)) {
			if (s)
				render_field(s, f, out);
			else
				ks_buf_add(out, open, (size_t)(close + 2 - open));
		} else if (ks_str_in_list(ks_prompt_task_fields, f)) {
			ks_buf_add(out, open, (size_t)(close + 2 - open));
		} else {
			ks_error(err, "%s:%d: unknown placeholder {{%s}}", file, line, f);
			free(f);
			return -1;
		}
		free(f);
		p = close + 2;
	}
	return 0;
}
