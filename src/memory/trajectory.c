/*
 * trajectory: JSON lines written by hand in a fixed key order, read with
 * cJSON; the rules over them.
 */
#include "trajectory.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/buf.h"
#include "../core/fs.h"
#include "../core/json.h"
#include "../core/util.h"

void
ks_traj_round_init(struct ks_traj_round *r)
{
	memset(r, 0, sizeof(*r));
	r->parent = -1;
	r->repairs = -1;
}

static void
diag_release(struct ks_traj_diag *d)
{
	free(d->cls);
	free(d->what);
	free(d->evidence);
	free(d->cause);
	free(d->fix);
	free(d->next);
}

void
ks_traj_round_release(struct ks_traj_round *r)
{
	size_t i;

	free(r->phase);
	free(r->skill);
	free(r->why);
	free(r->params);
	free(r->plan);
	free(r->source);
	free(r->hash);
	free(r->file);
	free(r->variant);
	free(r->compile);
	free(r->verdict);
	free(r->stage);
	free(r->reason);
	for (i = 0; i < r->nmetrics; i++)
		free(r->mnames[i]);
	free(r->mnames);
	free(r->mvalues);
	diag_release(&r->diag);
	free(r->model);
	free(r->time);
	free(r->task);
	ks_traj_round_init(r);
}

void
ks_traj_release(struct ks_traj *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		ks_traj_round_release(&t->v[i]);
	free(t->v);
	memset(t, 0, sizeof(*t));
}

void
ks_traj_push(struct ks_traj *t, struct ks_traj_round *r)
{
	if (t->n == t->alloc) {
		t->alloc = t->alloc ? 2 * t->alloc : 16;
		t->v = ks_xrealloc(t->v, t->alloc * sizeof(*t->v));
	}
	t->v[t->n++] = *r;
	ks_traj_round_init(r);
}

/* ---- writing --------------------------------------------------------------- */

static void
add_str(struct ks_buf *out, const char *key, const char *v)
{
	ks_buf_addf(out, ", \"%s\": ", key);
	ks_buf_add_json_str_or_null(out, v);
}

static void
add_timing(struct ks_buf *out, const char *key, const struct ks_traj_timing *t)
{
	if (!t->have) {
		ks_buf_addf(out, ", \"%s\": null", key);
		return;
	}
	ks_buf_addf(out, ", \"%s\": {\"median_ms\": %.9g, \"lo_ms\": %.9g, "
		    "\"hi_ms\": %.9g}", key, t->median, t->lo, t->hi);
}

static const char *const cost_names[KS_TRAJ_COST_N] = {
	"compile", "setup", "original", "output-only", "candidate", "random",
	"timing", "metrics", "process", "ncu", "sanitizer", "base-metrics", "lock_wait",
};

const char *
ks_traj_cost_name(enum ks_traj_cost_phase p)
{
	return (unsigned)p < KS_TRAJ_COST_N ? cost_names[p] : "?";
}

enum ks_traj_cost_phase
ks_traj_cost_phase_of(const char *name)
{
	size_t i;

	for (i = 0; name && i < KS_TRAJ_COST_N; i++)
		if (!strcmp(name, cost_names[i]))
			return (enum ks_traj_cost_phase)i;
	return KS_TRAJ_COST_N;
}

int
ks_traj_cost_any(const struct ks_traj_cost *c)
{
	size_t i;

	for (i = 0; i < KS_TRAJ_COST_N; i++)
		if (c->s[i] > 0)
			return 1;
	return 0;
}

/* "cost": the phases spent, in seconds; absent when none was measured. */
static void
add_cost(struct ks_buf *out, const struct ks_traj_cost *c)
{
	size_t i, n = 0;

	if (!ks_traj_cost_any(c))
		return;
	ks_buf_adds(out, ", \"cost\": {");
	for (i = 0; i < KS_TRAJ_COST_N; i++)
		if (c->s[i] > 0)
			ks_buf_addf(out, "%s\"%s\": %.3f", n++ ? ", " : "", cost_names[i],
				    c->s[i]);
	ks_buf_addch(out, '}');
}

void
ks_traj_round_json(const struct ks_traj_round *r, struct ks_buf *out)
{
	size_t i;

	ks_buf_addf(out, "{\"format\": %d, \"round\": %d, \"parent\": %d",
		    KS_TRAJ_FORMAT, r->round, r->parent);
	add_str(out, "phase", r->phase);
	ks_buf_addf(out, ", \"repairs\": %d", r->repairs);
	add_str(out, "skill", r->skill);
	add_str(out, "why", r->why);
	add_str(out, "params", r->params);
	add_str(out, "plan", r->plan);
	add_str(out, "source", r->source);
	add_str(out, "hash", r->hash);
	add_str(out, "file", r->file);
	add_str(out, "variant", r->variant);
	add_str(out, "compile", r->compile);
	add_str(out, "verdict", r->verdict);
	add_str(out, "stage", r->stage);
	add_str(out, "reason", r->reason);
	add_timing(out, "original", &r->orig);
	add_timing(out, "candidate", &r->cand);
	ks_buf_addf(out, ", \"speedup\": %.6g, \"gain\": %s, \"metrics\": {",
		    r->speedup, r->gain ? "true" : "false");
	for (i = 0; i < r->nmetrics; i++) {
		if (i)
			ks_buf_adds(out, ", ");
		ks_buf_add_json_str(out, r->mnames[i]);
		ks_buf_addf(out, ": %.9g", r->mvalues[i]);
	}
	ks_buf_adds(out, "}, \"diagnosis\": ");
	if (!r->diag.cls) {
		ks_buf_adds(out, "null");
	} else {
		ks_buf_adds(out, "{\"class\": ");
		ks_buf_add_json_str(out, r->diag.cls);
		add_str(out, "what", r->diag.what);
		add_str(out, "evidence", r->diag.evidence);
		add_str(out, "cause", r->diag.cause);
		add_str(out, "fix", r->diag.fix);
		add_str(out, "next", r->diag.next);
		ks_buf_addch(out, '}');
	}
	ks_buf_addf(out, ", \"gpu_ms\": %.3f", r->gpu_ms);
	add_cost(out, &r->cost);
	ks_buf_addf(out, ", \"tokens\": %ld", r->tokens);
	add_str(out, "model", r->model);
	add_str(out, "time", r->time);
	if (r->task)
		add_str(out, "task", r->task);
	ks_buf_adds(out, "}\n");
}

/* ---- reading --------------------------------------------------------------- */

static void
read_timing(const cJSON *o, struct ks_traj_timing *t)
{
	memset(t, 0, sizeof(*t));
	if (!cJSON_IsObject(o))
		return;
	t->have = 1;
	t->median = ks_json_num(o, "median_ms");
	t->lo = ks_json_num(o, "lo_ms");
	t->hi = ks_json_num(o, "hi_ms");
}

static int
read_round(const cJSON *o, struct ks_traj_round *r)
{
	const cJSON *m, *d, *it;
	size_t n = 0;

	ks_traj_round_init(r);
	if (!cJSON_IsObject(o) || !cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(o, "round")) ||
	    !ks_json_str(o, "phase"))
		return -1;
	r->round = (int)ks_json_num(o, "round");
	r->parent = cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(o, "parent")) ?
		(int)ks_json_num(o, "parent") : -1;
	r->repairs = cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(o, "repairs")) ?
		(int)ks_json_num(o, "repairs") : -1;
	r->phase = ks_json_dup(o, "phase");
	r->skill = ks_json_dup(o, "skill");
	r->why = ks_json_dup(o, "why");
	r->params = ks_json_dup(o, "params");
	r->plan = ks_json_dup(o, "plan");
	r->source = ks_json_dup(o, "source");
	r->hash = ks_json_dup(o, "hash");
	r->file = ks_json_dup(o, "file");
	r->variant = ks_json_dup(o, "variant");
	r->compile = ks_json_dup(o, "compile");
	r->verdict = ks_json_dup(o, "verdict");
	r->stage = ks_json_dup(o, "stage");
	r->reason = ks_json_dup(o, "reason");
	read_timing(cJSON_GetObjectItemCaseSensitive(o, "original"), &r->orig);
	read_timing(cJSON_GetObjectItemCaseSensitive(o, "candidate"), &r->cand);
	r->speedup = ks_json_num(o, "speedup");
	r->gain = ks_json_true(o, "gain");
	m = cJSON_GetObjectItemCaseSensitive(o, "metrics");
	cJSON_ArrayForEach(it, m)
		n += cJSON_IsNumber(it);
	if (n) {
		r->mnames = ks_xcalloc(n, sizeof(*r->mnames));
		r->mvalues = ks_xcalloc(n, sizeof(*r->mvalues));
		cJSON_ArrayForEach(it, m) {
			if (!cJSON_IsNumber(it))
				continue;
			r->mnames[r->nmetrics] = ks_xstrdup(it->string);
			r->mvalues[r->nmetrics++] = it->valuedouble;
		}
	}
	d = cJSON_GetObjectItemCaseSensitive(o, "diagnosis");
	if (cJSON_IsObject(d) && ks_json_str(d, "class")) {
		r->diag.cls = ks_json_dup(d, "class");
		r->diag.what = ks_json_dup(d, "what");
		r->diag.evidence = ks_json_dup(d, "evidence");
		r->diag.cause = ks_json_dup(d, "cause");
		r->diag.fix = ks_json_dup(d, "fix");
		r->diag.next = ks_json_dup(d, "next");
	}
	r->gpu_ms = ks_json_num(o, "gpu_ms");
	m = cJSON_GetObjectItemCaseSensitive(o, "cost");
	cJSON_ArrayForEach(it, m) {
		enum ks_traj_cost_phase p = ks_traj_cost_phase_of(it->string);

		if (p < KS_TRAJ_COST_N && cJSON_IsNumber(it) && it->valuedouble > 0)
			r->cost.s[p] = it->valuedouble;
	}
	r->tokens = (long)ks_json_num(o, "tokens");
	r->model = ks_json_dup(o, "model");
	r->time = ks_json_dup(o, "time");
	r->task = ks_json_dup(o, "task");
	return 0;
}

int
ks_traj_parse(const char *name, const char *text, struct ks_traj *t,
	      int *dropped, struct ks_buf *err)
{
	const char *line = text;
	int lineno = 0;

	if (dropped)
		*dropped = 0;
	while (*line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char *l = ks_xstrndup(line, len);
		struct ks_traj_round r;
		cJSON *o;

		lineno++;
		line += len + (nl ? 1 : 0);
		if (!l[strspn(l, " \t\r")]) {
			free(l);
			continue;
		}
		o = cJSON_Parse(l);
		free(l);
		if (!o || read_round(o, &r)) {
			cJSON_Delete(o);
			if (!nl) {
				/* The write that a kill interrupted. */
				if (dropped)
					*dropped = 1;
				return 0;
			}
			return ks_error(err, "%s:%d: not a trajectory record", name, lineno);
		}
		cJSON_Delete(o);
		ks_traj_push(t, &r);
	}
	return 0;
}

char *
ks_traj_task_dir(const char *dir, const char *task)
{
	return ks_xasprintf("%s/tasks/%s", dir, task);
}

char *
ks_traj_path(const char *task_dir)
{
	return ks_fs_join(task_dir, "trajectory.jsonl");
}

/* Append `line` whole (one write), then fsync. */
static int
append_line(const char *path, const struct ks_buf *line, struct ks_buf *err)
{
	size_t off = 0;
	int fd, rc = 0;

	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return ks_error_errno(err, "cannot open %s", path);
	while (off < line->len) {
		ssize_t w = write(fd, line->buf + off, line->len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			rc = ks_error_errno(err, "cannot write %s", path);
			break;
		}
		off += (size_t)w;
	}
	if (!rc && fsync(fd))
		rc = ks_error_errno(err, "cannot sync %s", path);
	close(fd);
	return rc;
}

int
ks_traj_transcript(const char *task_dir, const struct ks_traj_exchange *x,
		   struct ks_buf *err)
{
	struct ks_buf line = KS_BUF_INIT;
	char *path;
	int rc;

	if (!task_dir)
		return 0;
	path = ks_fs_join(task_dir, "llm.jsonl");
	ks_buf_adds(&line, "{\"agent\": ");
	ks_buf_add_json_str_or_null(&line, x->agent);
	ks_buf_addf(&line, ", \"round\": %d, \"system\": ", x->round);
	ks_buf_add_json_str_or_null(&line, x->system);
	ks_buf_adds(&line, ", \"user\": ");
	ks_buf_add_json_str_or_null(&line, x->user);
	ks_buf_adds(&line, ", \"reply\": ");
	ks_buf_add_json_str_or_null(&line, x->reply);
	ks_buf_addf(&line, ", \"tokens\": %ld, \"error\": ", x->tokens);
	ks_buf_add_json_str_or_null(&line, x->error);
	ks_buf_adds(&line, "}\n");
	rc = append_line(path, &line, err);
	ks_buf_release(&line);
	free(path);
	return rc;
}

int
ks_traj_append(const char *path, const struct ks_traj_round *r, struct ks_buf *err)
{
	struct ks_buf line = KS_BUF_INIT;
	int rc;

	ks_traj_round_json(r, &line);
	/* The record must survive the kill that resuming is for: synced. */
	rc = append_line(path, &line, err);
	ks_buf_release(&line);
	return rc;
}

int
ks_traj_load(const char *path, struct ks_traj *t, struct ks_buf *err)
{
	struct ks_buf text = KS_BUF_INIT;
	int rc = 0;

	if (ks_fs_exists(path)) {
		text.max = 256 << 20;
		rc = ks_fs_read(path, &text, err) ? -1 :
			ks_traj_parse(path, text.buf, t, NULL, err);
	}
	ks_buf_release(&text);
	return rc;
}

/* ---- the rules --------------------------------------------------------------- */

static int
same_text(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

int
ks_traj_seen(const struct ks_traj *t, const char *hash)
{
	size_t i;

	if (!hash || !*hash)
		return -1;
	for (i = 0; i < t->n; i++)
		if (t->v[i].hash && !strcmp(t->v[i].hash, hash))
			return t->v[i].round;
	return -1;
}

int
ks_traj_repeats(const struct ks_traj *t, int parent, const char *skill,
		const char *params, const char *plan)
{
	size_t i;

	if (!skill)
		return -1;
	for (i = 0; i < t->n; i++) {
		const struct ks_traj_round *r = &t->v[i];

		if (r->parent == parent && r->skill && !strcmp(r->skill, skill) &&
		    same_text(r->params, params) && same_text(r->plan, plan))
			return r->round;
	}
	return -1;
}

int
ks_traj_is_gain(const struct ks_traj_timing *base, const struct ks_traj_timing *cand,
		double ratio)
{
	if (!base->have || !cand->have || cand->median <= 0 || base->median <= 0)
		return 0;
	return cand->hi < base->lo && base->median / cand->median >= ratio;
}

int
ks_traj_verified(const struct ks_traj_round *r)
{
	return r->verdict && (!strcmp(r->verdict, "correct") ||
			      !strcmp(r->verdict, "eligible"));
}

int
ks_traj_failed(const struct ks_traj_round *r)
{
	return r->verdict && !strcmp(r->verdict, "rejected");
}

size_t
ks_traj_repair_chain(const struct ks_traj *t, int last, int *out, size_t max)
{
	int at = last, tmp;
	size_t n = 0, i;

	while (at >= 0 && (size_t)at < t->n && ks_traj_failed(&t->v[at]) && n < max) {
		out[n++] = at;
		at = t->v[at].repairs;
	}
	for (i = 0; i < n / 2; i++) {
		tmp = out[i];
		out[i] = out[n - 1 - i];
		out[n - 1 - i] = tmp;
	}
	return n;
}

/*
 * The base's time as measured beside `r`'s original: the seed is the
 * original of the same review; a variant's time is scaled by how the
 * original moved between its review and this one, so that a slower or
 * faster GPU between reviews does not look like a gain.
 */
static void
base_timing(const struct ks_traj *t, int base, const struct ks_traj_round *r,
	    struct ks_traj_timing *out)
{
	const struct ks_traj_round *b = &t->v[base];
	double s;

	memset(out, 0, sizeof(*out));
	if (base == 0 || !b->cand.have) {
		*out = r->orig;
		return;
	}
	if (!r->orig.have || !b->orig.have || b->orig.median <= 0)
		return;
	s = r->orig.median / b->orig.median;
	out->have = 1;
	out->median = b->cand.median * s;
	out->lo = b->cand.lo * s;
	out->hi = b->cand.hi * s;
}

int
ks_traj_moves_base(const struct ks_traj *t, int base, const struct ks_traj_round *r,
		   double ratio)
{
	struct ks_traj_timing b;

	if (!ks_traj_verified(r) || r->round == 0 || base < 0 || (size_t)base >= t->n)
		return 0;
	base_timing(t, base, r, &b);
	return ks_traj_is_gain(&b, &r->cand, ratio);
}

void
ks_traj_state(const struct ks_traj *t, double ratio, struct ks_traj_state *s)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	s->open_failure = -1;
	for (i = 0; i < t->n; i++) {
		const struct ks_traj_round *r = &t->v[i];

		if (!strcmp(r->phase, "seed")) {
			s->seeded = r->verdict && !strcmp(r->verdict, "eligible");
			s->ineligible = !s->seeded;
			s->gpu_ms += r->gpu_ms;
			s->seed_ms += r->gpu_ms;
			if (r->gpu_ms > s->max_ms)
				s->max_ms = r->gpu_ms;
			s->tokens += r->tokens;
			continue;
		}
		s->tokens += r->tokens;
		if (!r->compile && !r->verdict)
			continue;
		if (r->verdict && (!strcmp(r->verdict, "declined") ||
				   !strcmp(r->verdict, "seen")))
			continue;
		s->reviews++;
		s->gpu_ms += r->gpu_ms;
		if (r->gpu_ms > s->max_ms)
			s->max_ms = r->gpu_ms;
		s->open_failure = ks_traj_failed(r) ? r->round : -1;
		if (ks_traj_moves_base(t, s->base, r, ratio)) {
			s->base = r->round;
			s->best = r->round;
		}
	}
}

int
ks_traj_budget_allows(const struct ks_traj_state *s, double budget_ms,
		      double final_per_seed)
{
	if (budget_ms <= 0)
		return 1;
	if (!(final_per_seed > KS_TRAJ_FINAL_PER_SEED))
		final_per_seed = KS_TRAJ_FINAL_PER_SEED;
	return s->gpu_ms + s->max_ms + final_per_seed * s->seed_ms <= budget_ms;
}
