/*
 * knowledge: JSON lines read with cJSON, written by hand (the order of the
 * keys is fixed, so equal outcomes are equal lines and import can skip
 * them).
 */
#include "knowledge.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/buf.h"
#include "../core/fs.h"
#include "../core/util.h"

const char *const ks_outcome_results[] = {
	"faster", "same", "slower", "incorrect", "failed", NULL,
};

void
ks_outcome_release(struct ks_outcome *o)
{
	size_t i;

	free(o->time);
	free(o->skill);
	free(o->params);
	free(o->kernel);
	free(o->bucket);
	free(o->case_id);
	free(o->result);
	for (i = 0; i < o->nfeatures; i++)
		free(o->fnames[i]);
	free(o->fnames);
	free(o->fvalues);
	memset(o, 0, sizeof(*o));
}

void
ks_knowledge_release(struct ks_knowledge *k)
{
	size_t i;

	for (i = 0; i < k->n; i++)
		ks_outcome_release(&k->v[i]);
	free(k->v);
	memset(k, 0, sizeof(*k));
}

void
ks_outcome_json(const struct ks_outcome *o, struct ks_buf *out)
{
	size_t i;

	ks_buf_addf(out, "{\"format\": %d, \"time\": ", KS_KNOWLEDGE_FORMAT);
	ks_buf_add_json_str(out, o->time ? o->time : "");
	ks_buf_adds(out, ", \"skill\": ");
	ks_buf_add_json_str(out, o->skill ? o->skill : "");
	ks_buf_adds(out, ", \"params\": ");
	ks_buf_add_json_str(out, o->params ? o->params : "");
	ks_buf_adds(out, ", \"kernel\": ");
	ks_buf_add_json_str(out, o->kernel ? o->kernel : "");
	ks_buf_adds(out, ", \"bucket\": ");
	ks_buf_add_json_str(out, o->bucket ? o->bucket : "");
	ks_buf_adds(out, ", \"case\": ");
	ks_buf_add_json_str(out, o->case_id ? o->case_id : "");
	ks_buf_adds(out, ", \"result\": ");
	ks_buf_add_json_str(out, o->result ? o->result : "");
	ks_buf_addf(out, ", \"speedup\": %.6g, \"features\": {", o->speedup);
	for (i = 0; i < o->nfeatures; i++) {
		if (i)
			ks_buf_adds(out, ", ");
		ks_buf_add_json_str(out, o->fnames[i]);
		ks_buf_addf(out, ": %.6g", o->fvalues[i]);
	}
	ks_buf_adds(out, "}}\n");
}

static char *
jstr(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? ks_xstrdup(v->valuestring) : NULL;
}

static int
in_results(const char *s)
{
	const char *const *r;

	for (r = ks_outcome_results; *r; r++)
		if (!strcmp(*r, s))
			return 1;
	return 0;
}

static int
parse_line(const char *name, int line, const char *text, size_t len,
	   struct ks_outcome *o, struct ks_buf *err)
{
	cJSON *j = cJSON_ParseWithLength(text, len);
	const cJSON *f, *v, *sp;
	size_t n = 0;

	if (!j || !cJSON_IsObject(j)) {
		cJSON_Delete(j);
		return ks_error(err, "%s:%d: not a JSON object", name, line);
	}
	v = cJSON_GetObjectItemCaseSensitive(j, "format");
	if (!cJSON_IsNumber(v) || v->valueint != KS_KNOWLEDGE_FORMAT) {
		cJSON_Delete(j);
		return ks_error(err, "%s:%d: not an outcome of format %d", name, line,
				KS_KNOWLEDGE_FORMAT);
	}
	o->time = jstr(j, "time");
	o->skill = jstr(j, "skill");
	o->params = jstr(j, "params");
	o->kernel = jstr(j, "kernel");
	o->bucket = jstr(j, "bucket");
	o->case_id = jstr(j, "case");
	o->result = jstr(j, "result");
	sp = cJSON_GetObjectItemCaseSensitive(j, "speedup");
	f = cJSON_GetObjectItemCaseSensitive(j, "features");
	if (!o->time || !o->skill || !o->skill[0] || !o->params || !o->kernel ||
	    !o->bucket || !o->case_id || !o->result || !in_results(o->result) ||
	    !cJSON_IsNumber(sp) || !cJSON_IsObject(f)) {
		cJSON_Delete(j);
		ks_outcome_release(o);
		return ks_error(err, "%s:%d: an outcome needs time, skill, params, "
				"kernel, bucket, case, result (one of faster, same, "
				"slower, incorrect, failed), speedup and features", name,
				line);
	}
	o->speedup = sp->valuedouble;
	cJSON_ArrayForEach(v, f)
		n++;
	o->fnames = ks_xcalloc(n ? n : 1, sizeof(*o->fnames));
	o->fvalues = ks_xcalloc(n ? n : 1, sizeof(*o->fvalues));
	cJSON_ArrayForEach(v, f) {
		if (!cJSON_IsNumber(v)) {
			cJSON_Delete(j);
			ks_outcome_release(o);
			return ks_error(err, "%s:%d: feature values are numbers", name, line);
		}
		o->fnames[o->nfeatures] = ks_xstrdup(v->string);
		o->fvalues[o->nfeatures++] = v->valuedouble;
	}
	cJSON_Delete(j);
	return 0;
}

int
ks_knowledge_parse(const char *name, const char *text, struct ks_knowledge *k,
		   struct ks_buf *err)
{
	const char *p = text;
	int line = 1;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p), i;
		int blank = 1;

		for (i = 0; i < len; i++)
			if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r')
				blank = 0;
		if (!blank) {
			if (k->n == k->alloc) {
				k->alloc = k->alloc ? 2 * k->alloc : 16;
				k->v = ks_xrealloc(k->v, k->alloc * sizeof(*k->v));
			}
			memset(&k->v[k->n], 0, sizeof(k->v[k->n]));
			if (parse_line(name, line, p, len, &k->v[k->n], err))
				return -1;
			k->n++;
		}
		if (!nl)
			break;
		p = nl + 1;
		line++;
	}
	return 0;
}

char *
ks_knowledge_path(const char *dir)
{
	return ks_xasprintf("%s/knowledge/outcomes.jsonl", dir);
}

/* Append `text` to <dir>/knowledge/<name>.jsonl, under its lock. */
static int
append_file(const char *dir, const char *name, const char *text,
	    int lock_timeout_ms, struct ks_buf *err)
{
	char *kdir = ks_fs_join(dir, "knowledge"),
	     *path = ks_xasprintf("%s/knowledge/%s.jsonl", dir, name),
	     *lockp = ks_fs_join(kdir, name);
	struct ks_lock lock = KS_LOCK_INIT;
	FILE *f = NULL;
	int rc = -1;

	if (ks_fs_mkdirs(kdir, err))
		goto out;
	if (ks_lock_acquire(&lock, lockp, lock_timeout_ms, err))
		goto out;
	f = fopen(path, "a");
	if (!f) {
		ks_error_errno(err, "cannot append to '%s'", path);
	} else if (fputs(text, f) == EOF || fclose(f)) {
		f = NULL;
		ks_error_errno(err, "cannot write '%s'", path);
	} else {
		f = NULL;
		rc = 0;
	}
	if (f)
		fclose(f);
	ks_lock_release(&lock);
out:
	free(kdir);
	free(path);
	free(lockp);
	return rc;
}

static int
append_text(const char *dir, const char *text, int lock_timeout_ms,
	    struct ks_buf *err)
{
	return append_file(dir, "outcomes", text, lock_timeout_ms, err);
}

int
ks_knowledge_append(const char *dir, const struct ks_outcome *o,
		    int lock_timeout_ms, struct ks_buf *err)
{
	struct ks_buf line = KS_BUF_INIT;
	int rc;

	ks_outcome_json(o, &line);
	rc = append_text(dir, line.buf, lock_timeout_ms, err);
	ks_buf_release(&line);
	return rc;
}

int
ks_knowledge_load(const char *dir, struct ks_knowledge *k, struct ks_buf *err)
{
	char *path = ks_knowledge_path(dir);
	struct ks_buf text = KS_BUF_INIT;
	int rc = 0;

	if (ks_fs_exists(path)) {
		text.max = 256 << 20;
		rc = ks_fs_read(path, &text, err) ? -1 :
			ks_knowledge_parse(path, text.buf, k, err);
	}
	ks_buf_release(&text);
	free(path);
	return rc;
}

int
ks_knowledge_import(const char *dir, const char *name, const char *text,
		    int lock_timeout_ms, size_t *added, struct ks_buf *err)
{
	struct ks_knowledge in = { 0 }, have = { 0 };
	struct ks_buf lines = KS_BUF_INIT;
	char *path = ks_knowledge_path(dir);
	size_t i, j;
	int rc = -1;

	*added = 0;
	if (ks_knowledge_parse(name, text, &in, err) ||
	    ks_knowledge_load(dir, &have, err))
		goto out;
	for (i = 0; i < in.n; i++) {
		struct ks_buf a = KS_BUF_INIT;
		int dup = 0;

		ks_outcome_json(&in.v[i], &a);
		for (j = 0; j < have.n && !dup; j++) {
			struct ks_buf b = KS_BUF_INIT;

			ks_outcome_json(&have.v[j], &b);
			dup = !strcmp(a.buf, b.buf);
			ks_buf_release(&b);
		}
		/* Repeats inside the import count once too. */
		if (!dup && strstr(lines.buf, a.buf))
			dup = 1;
		if (!dup) {
			ks_buf_adds(&lines, a.buf);
			(*added)++;
		}
		ks_buf_release(&a);
	}
	rc = lines.len ? append_text(dir, lines.buf, lock_timeout_ms, err) : 0;
out:
	ks_knowledge_release(&in);
	ks_knowledge_release(&have);
	ks_buf_release(&lines);
	free(path);
	return rc;
}

struct agg {
	const char *skill;
	size_t n, faster, failed;
	double logsum, best;
	size_t timed;
};

void
ks_knowledge_summary(const struct ks_knowledge *k, int json, struct ks_buf *out)
{
	struct agg *a = ks_xcalloc(k->n ? k->n : 1, sizeof(*a));
	size_t na = 0, i, j;

	for (i = 0; i < k->n; i++) {
		const struct ks_outcome *o = &k->v[i];

		for (j = 0; j < na; j++)
			if (!strcmp(a[j].skill, o->skill))
				break;
		if (j == na)
			a[na++].skill = o->skill;
		a[j].n++;
		if (!strcmp(o->result, "faster"))
			a[j].faster++;
		if (!strcmp(o->result, "incorrect") || !strcmp(o->result, "failed"))
			a[j].failed++;
		else if (o->speedup > 0) {
			a[j].timed++;
			a[j].logsum += log(o->speedup);
			if (o->speedup > a[j].best)
				a[j].best = o->speedup;
		}
	}
	if (json)
		ks_buf_adds(out, "[");
	else if (na)
		ks_buf_addf(out, "%-28s %8s %7s %7s %8s %8s\n", "skill", "attempts",
			    "faster", "failed", "geomean", "best");
	for (j = 0; j < na; j++) {
		double gm = a[j].timed ? exp(a[j].logsum / (double)a[j].timed) : 0;

		if (json) {
			ks_buf_adds(out, j ? ",\n {\"skill\": " : "{\"skill\": ");
			ks_buf_add_json_str(out, a[j].skill);
			ks_buf_addf(out, ", \"attempts\": %zu, \"faster\": %zu, \"failed\": %zu, "
				    "\"timed\": %zu, \"geomean_speedup\": %.4g, "
				    "\"best_speedup\": %.4g}", a[j].n, a[j].faster,
				    a[j].failed, a[j].timed, gm, a[j].best);
		} else {
			ks_buf_addf(out, "%-28s %8zu %7zu %7zu %7.2fx %7.2fx\n", a[j].skill,
				    a[j].n, a[j].faster, a[j].failed, gm, a[j].best);
		}
	}
	if (json)
		ks_buf_adds(out, "]\n");
	else if (!na)
		ks_buf_adds(out, "no outcomes recorded yet\n");
	free(a);
}

/* ---- what final checks cost ------------------------------------------------ */

void
ks_check_cost_json(const struct ks_check_cost *c, const char *time,
		   struct ks_buf *out)
{
	ks_buf_adds(out, "{\"format\": 1, \"time\": ");
	ks_buf_add_json_str(out, time);
	ks_buf_adds(out, ", \"kernel\": ");
	ks_buf_add_json_str(out, c->kernel ? c->kernel : "");
	ks_buf_adds(out, ", \"skill\": ");
	ks_buf_add_json_str(out, c->skill ? c->skill : "");
	ks_buf_addf(out, ", \"seed_ms\": %.3f, \"check_ms\": %.3f}\n", c->seed_ms,
		    c->check_ms);
}

double
ks_check_ratio(const char *text, const char *const *skills, size_t n)
{
	/* Each skill's last KS_CHECK_RECENT ratios, in a ring: checks
	   recorded before the checker got cheaper (racecheck's sample) age
	   out. */
	double *ring = n ? ks_xcalloc(n * KS_CHECK_RECENT, sizeof(*ring)) : NULL;
	size_t *seen = n ? ks_xcalloc(n, sizeof(*seen)) : NULL;
	double best = 0;
	const char *p = text;

	while (p && *p) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		char *line = ks_xstrndup(p, len);
		cJSON *o = cJSON_Parse(line);
		const cJSON *sk = cJSON_GetObjectItemCaseSensitive(o, "skill");
		const cJSON *sd = cJSON_GetObjectItemCaseSensitive(o, "seed_ms");
		const cJSON *ck = cJSON_GetObjectItemCaseSensitive(o, "check_ms");

		if (cJSON_IsString(sk) && cJSON_IsNumber(sd) && cJSON_IsNumber(ck) &&
		    sd->valuedouble > 0 && ck->valuedouble >= 0) {
			for (size_t i = 0; i < n; i++) {
				if (skills[i] && !strcmp(skills[i], sk->valuestring)) {
					ring[i * KS_CHECK_RECENT + seen[i]++ % KS_CHECK_RECENT] =
						ck->valuedouble / sd->valuedouble;
					break;
				}
			}
		}
		cJSON_Delete(o);
		free(line);
		p = e ? e + 1 : NULL;
	}
	for (size_t i = 0; i < n * KS_CHECK_RECENT; i++)
		if (ring[i] > best)
			best = ring[i];
	free(ring);
	free(seen);
	return best;
}

int
ks_knowledge_check_append(const char *dir, const struct ks_check_cost *c,
			  int lock_timeout_ms, struct ks_buf *err)
{
	struct ks_buf line = KS_BUF_INIT;
	char when[32];
	time_t now = time(NULL);
	struct tm tm;
	int rc;

	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	ks_check_cost_json(c, when, &line);
	rc = append_file(dir, "checks", line.buf, lock_timeout_ms, err);
	ks_buf_release(&line);
	return rc;
}

int
ks_knowledge_checks_load(const char *dir, struct ks_buf *out, struct ks_buf *err)
{
	char *path = ks_xasprintf("%s/knowledge/checks.jsonl", dir);
	int rc = 0;

	if (ks_fs_exists(path)) {
		out->max = 64 << 20;
		rc = ks_fs_read(path, out, err) ? -1 : 0;
	}
	free(path);
	return rc;
}
