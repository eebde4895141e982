/*
 * llm_agents: prompts are built here from the task's facts; replies are
 * read as JSON objects and checked against what the rules allow.
 */
#include "llm_agents.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/inventory.h"
#include "../cache/rewrite.h"
#include "../core/buf.h"
#include "../core/fs.h"
#include "../core/log.h"
#include "../core/strv.h"
#include "../core/util.h"
#include "../llm/llm.h"
#include "../memory/skills.h"
#include "../memory/trajectory.h"

/* Every exchange goes to the task's transcript (llm.jsonl). */
static void
transcript(const struct ks_task *t, const char *agent, int round, const char *system,
	   const char *user, const char *reply, long tokens, const char *error)
{
	struct ks_traj_exchange x;
	struct ks_buf err = KS_BUF_INIT;

	x.agent = agent;
	x.round = round;
	x.system = system;
	x.user = user;
	x.reply = reply;
	x.error = error;
	x.tokens = tokens;
	if (ks_traj_transcript(t->dir, &x, &err))
		ks_log("llm: the transcript: %s", err.buf);
	ks_buf_release(&err);
}

/* Requests in a row without a reply after which the task goes on without
 * the LLM: an endpoint that is down costs each step its timeouts. */
#define LLM_FAILS_MAX 2

/* The most of a log or a translation unit one prompt carries. */
#define LLM_LOG_MAX 8000
#define LLM_TU_MAX 16000

int
ks_agent_llm_usable(const struct ks_task *t)
{
	if (!t->llm || t->llm_failures >= LLM_FAILS_MAX)
		return 0;
	return !(t->tokens > 0 && t->state.tokens + t->pending_tokens >= t->tokens);
}

/*
 * One exchange, into the transcript; a request without a reply counts
 * toward the LLM being given up on, a reply resets the count.
 */
static int
ask(struct ks_task *t, const char *agent, const char *system, const char *user,
    struct ks_buf *reply, long *tokens, struct ks_buf *err)
{
	*tokens = 0;
	if (ks_llm_chat(t->llm, system, user, reply, tokens, err)) {
		transcript(t, agent, (int)t->traj.n, system, user, NULL, *tokens, err->buf);
		t->llm_failures++;
		return -1;
	}
	transcript(t, agent, (int)t->traj.n, system, user, reply->buf, *tokens, NULL);
	t->llm_failures = 0;
	return 0;
}

static const char planner_system[] =
	"You are the planner of a CUDA kernel optimizer. Pick exactly one "
	"skill from the allowed list for the kernel below. Reply with one JSON "
	"object: {\"skill\": \"<id>\", \"plan\": \"<one paragraph citing the "
	"evidence>\"}.";

static const char diagnoser_system[] =
	"You diagnose why a CUDA kernel candidate failed. Reply with one JSON "
	"object: {\"critical_issue\": ..., \"root_cause\": ..., "
	"\"minimal_fix\": ...}.";

long
ks_agent_llm_pick(const struct ks_agent_plan *plan, const char *reply, char **why)
{
	char *obj = ks_llm_json_object(reply);
	cJSON *j = obj ? cJSON_Parse(obj) : NULL;
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(j, "skill");
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(j, "plan");
	long at = -1;
	size_t i;

	*why = NULL;
	for (i = 0; cJSON_IsString(s) && i < plan->n; i++)
		if (!strcmp(plan->v[i].id, s->valuestring))
			at = (long)i;
	if (at >= 0 && cJSON_IsString(p))
		*why = ks_xstrdup(p->valuestring);
	cJSON_Delete(j);
	free(obj);
	return at;
}

/* The TU the LLM reads: an instance's view (its plain copy after the
 * template) or the source. */
static const char *
tu_text(const struct ks_task *t, size_t *len)
{
	if (t->inst_args && t->inst_text) {
		*len = t->inst_len;
		return t->inst_text;
	}
	*len = t->text ? t->len : 0;
	return t->text;
}

static void
kernel_text(const struct ks_task *t, struct ks_buf *out)
{
	size_t len;
	const char *text = tu_text(t, &len);
	size_t n = len < 16000 ? len : 16000;

	ks_buf_adds(out, "Kernel ");
	ks_buf_adds(out, t->kernel);
	ks_buf_adds(out, " in this source:\n```cuda\n");
	ks_buf_add(out, text ? text : "", text ? n : 0);
	ks_buf_adds(out, "\n```\n");
}

void
ks_agent_llm_plan(struct ks_task *t)
{
	const struct ks_traj_round *b = &t->traj.v[t->state.base];
	struct ks_buf user = KS_BUF_INIT, reply = KS_BUF_INIT, err = KS_BUF_INIT;
	struct ks_agent_skill pick;
	char *why = NULL;
	long at, tokens = 0;
	size_t i;

	kernel_text(t, &user);
	ks_buf_adds(&user, "Metrics of the current version:");
	for (i = 0; i < b->nmetrics; i++)
		ks_buf_addf(&user, " %s=%.4g", b->mnames[i], b->mvalues[i]);
	ks_buf_adds(&user, "\nAllowed skills, ranked by the policy:\n");
	for (i = 0; i < t->plan.n; i++)
		ks_buf_addf(&user, "- %s: %s\n", t->plan.v[i].id,
			    t->plan.v[i].why ? t->plan.v[i].why : "");
	if (ask(t, "planner", planner_system, user.buf, &reply, &tokens, &err)) {
		ks_log("llm planner: %s (the policy's order stands)", err.buf);
		goto out;
	}
	t->pending_tokens += tokens;
	at = ks_agent_llm_pick(&t->plan, reply.buf, &why);
	if (at <= 0) {
		ks_log("llm planner: %s", at < 0 ? "no allowed skill in the reply" :
			"the policy's first skill");
		goto out;
	}
	pick = t->plan.v[at];
	memmove(&t->plan.v[1], &t->plan.v[0], (size_t)at * sizeof(pick));
	t->plan.v[0] = pick;
	if (why) {
		free(t->plan.v[0].why);
		t->plan.v[0].why = ks_xasprintf("LLM plan: %s", why);
	}
out:
	free(why);
	ks_buf_release(&user);
	ks_buf_release(&reply);
	ks_buf_release(&err);
}

void
ks_agent_llm_diagnose(struct ks_task *t, struct ks_traj_round *r, const char *log)
{
	struct ks_buf user = KS_BUF_INIT, reply = KS_BUF_INIT, err = KS_BUF_INIT;
	char *obj;
	cJSON *j;
	long tokens = 0;
	const char *s;

	ks_buf_addf(&user, "Skill %s at %s. Stage: %s. Reason: %s\nLog:\n",
		    r->skill ? r->skill : "?", r->params ? r->params : "",
		    r->stage ? r->stage : "?", r->reason ? r->reason : "?");
	if (log)
		ks_buf_add(&user, log, strlen(log) < 8000 ? strlen(log) : 8000);
	if (ask(t, "diagnoser", diagnoser_system, user.buf, &reply, &tokens, &err)) {
		ks_log("llm diagnoser: %s", err.buf);
		goto out;
	}
	r->tokens += tokens;
	obj = ks_llm_json_object(reply.buf);
	j = obj ? cJSON_Parse(obj) : NULL;
	if ((s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "root_cause")))) {
		free(r->diag.cause);
		r->diag.cause = ks_xstrdup(s);
	}
	if ((s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "minimal_fix")))) {
		free(r->diag.fix);
		r->diag.fix = ks_xstrdup(s);
	}
	if ((s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "critical_issue")))) {
		free(r->diag.what);
		r->diag.what = ks_xstrdup(s);
	}
	cJSON_Delete(j);
	free(obj);
out:
	ks_buf_release(&user);
	ks_buf_release(&reply);
	ks_buf_release(&err);
}

/* ---- the Optimizer and the Repairer -------------------------------------- */

static const char optimizer_system[] =
	"You are the optimizer of ks-nvcc. You write one variant of one CUDA "
	"kernel that carries out the plan you are given. It is compiled with "
	"the program's own flags, checked against the kernel's captured outputs "
	"and fresh random inputs, and timed against the original; only a "
	"correct, faster variant is kept.";

static const char repairer_system[] =
	"You are the repairer of ks-nvcc. A variant of a CUDA kernel failed the "
	"review; you return it fixed with the smallest change that removes the "
	"diagnosed cause.";

/* The role prompts when no skill library gives its own. */
static const char optimizer_builtin[] =
	"# Optimizer\n\nWrite the variant of one CUDA kernel that carries out a "
	"plan. It keeps the kernel's name and parameter list, may add __device__ "
	"helpers before it, and never allocates or touches other host code.\n\n"
	"## The kernel\n\n{{kernel}}\n\n```cuda\n{{source}}\n```\n\n"
	"Static features: {{features}}\nCounters: {{metrics}}\n"
	"Why the policy allowed the skill: {{why}}\n\n"
	"Earlier attempts on this version:\n{{history}}\n\n"
	"## The plan\n\n{{plan}}\n\n## The skill: {{title}} (`{{id}}`)\n\n"
	"{{guidance}}\n\n## Answer\n\nThe whole variant in one ```cuda block.\n";

static const char repairer_builtin[] =
	"# Repairer\n\nFix one failed variant of a CUDA kernel with the smallest "
	"change that removes the diagnosed cause. Keep the skill's idea "
	"(`{{id}}`).\n\n## The candidate\n\n```cuda\n{{source}}\n```\n\n"
	"## The diagnosis\n\n{{diagnosis}}\n\n## What the Reviewer saw\n\n{{log}}\n\n"
	"Earlier repairs of this candidate:\n{{history}}\n\n"
	"## Answer\n\nThe whole fixed variant in one ```cuda block.\n";

int
ks_agent_llm_prompt(const char *file, const char *tmpl, const struct ks_skill *s,
		    const char *const *names, const char *const *values, size_t n,
		    struct ks_buf *out, struct ks_buf *err)
{
	const char *p = tmpl;

	while (*p) {
		const char *open = strstr(p, "{{"), *close;
		char *f, *one;
		size_t i;

		if (!open) {
			ks_buf_adds(out, p);
			break;
		}
		ks_buf_add(out, p, (size_t)(open - p));
		close = strstr(open, "}}");
		if (!close)
			return ks_error(err, "%s: '{{' without '}}'", file);
		f = ks_xstrndup(open + 2, (size_t)(close - open - 2));
		for (i = 0; i < n && strcmp(names[i], f); i++)
			;
		if (i < n) {
			ks_buf_adds(out, values[i] && *values[i] ? values[i] : "(none)");
		} else if (ks_str_in_list(ks_prompt_skill_fields, f)) {
			if (!s) {
				ks_buf_adds(out, "(not in the skill library)");
			} else {
				/* The field alone, through the library's own
				 * renderer. */
				one = ks_xasprintf("{{%s}}", f);
				if (ks_skill_render(file, one, s, out, err)) {
					free(one);
					free(f);
					return -1;
				}
				free(one);
			}
		} else if (ks_str_in_list(ks_prompt_task_fields, f)) {
			ks_buf_adds(out, "(none)");
		} else {
			ks_error(err, "%s: unknown placeholder {{%s}}", file, f);
			free(f);
			return -1;
		}
		free(f);
		p = close + 2;
	}
	return 0;
}

/* The role's prompt: the library's file, else the builtin one. */
static char *
role_prompt(const struct ks_task *t, const char *role, const char *builtin,
	    char **file)
{
	struct ks_buf text = KS_BUF_INIT, err = KS_BUF_INIT;

	if (t->skills && t->skills->dir) {
		char *path = ks_xasprintf("%s/prompts/%s.md", t->skills->dir, role);

		text.max = 1 << 20;
		if (!ks_fs_read(path, &text, &err)) {
			*file = path;
			ks_buf_release(&err);
			return ks_buf_detach(&text, NULL);
		}
		ks_log("llm %s: %s (the builtin prompt instead)", role, err.buf);
		free(path);
	}
	ks_buf_release(&text);
	ks_buf_release(&err);
	*file = ks_xstrdup(role);
	return ks_xstrdup(builtin);
}

/* What the variant must be called, or NULL. */
static const char *
kernel_name(const struct ks_task *t)
{
	return t->k && t->k->name && *t->k->name ? t->k->name : NULL;
}

/* {{kernel}}: which kernel, built how, and its translation unit. */
static void
kernel_field(const struct ks_task *t, struct ks_buf *out)
{
	size_t len;
	const char *text = tu_text(t, &len);
	size_t n = len < LLM_TU_MAX ? len : LLM_TU_MAX;

	ks_buf_addf(out, "`%s` (%s), compiled for sm_%d%s.",
		    t->k && t->k->display ? t->k->display : kernel_name(t),
		    t->kernel ? t->kernel : "?", t->arch / 10,
		    t->fast_math ? " with -use_fast_math" : "");
	if (t->inst_args)
		ks_buf_addf(out, " It is the instance <%s> of a template: the "
			    "kernel to rewrite is its plain copy, the second "
			    "definition of that name below.", t->inst_args);
	if (text && n) {
		ks_buf_addf(out, " Its translation unit%s, for reference (the variant "
			    "replaces the kernel's definition only):\n\n```cuda\n",
			    n < len ? " (the beginning)" : "");
		ks_buf_add(out, text, n);
		ks_buf_adds(out, "\n```\n");
	}
	ks_buf_adds(out, "\nThe current version of the kernel:");
}

static void
metrics_field(const struct ks_traj_round *b, struct ks_buf *out)
{
	size_t i;

	for (i = 0; i < b->nmetrics; i++)
		ks_buf_addf(out, "%s%s=%.4g", i ? ", " : "", b->mnames[i], b->mvalues[i]);
	if (b->speedup > 0 && b->round > 0)
		ks_buf_addf(out, "%s%.3fx over the original", b->nmetrics ? "; " : "",
			    b->speedup);
}

static void
features_field(const struct ks_task *t, struct ks_buf *out)
{
	size_t i;

	for (i = 0; i < t->nfeatures; i++)
		ks_buf_addf(out, "%s%s=%g", i ? ", " : "", t->fnames[i], t->fvalues[i]);
}

/* {{history}}: what was tried on the base already, one line each. */
static void
history_field(const struct ks_task *t, struct ks_buf *out)
{
	size_t i;

	for (i = 1; i < t->traj.n; i++) {
		const struct ks_traj_round *r = &t->traj.v[i];

		if (r->parent != t->state.base || !r->skill)
			continue;
		ks_buf_addf(out, "- round %d: %s%s%s%s: %s", r->round, r->skill,
			    r->params && *r->params ? " " : "", r->params ? r->params : "",
			    r->plan ? " (an LLM edit)" : "", r->verdict ? r->verdict : "?");
		if (r->speedup > 0)
			ks_buf_addf(out, ", %.3fx over the original", r->speedup);
		if (r->reason)
			ks_buf_addf(out, " (%.200s)", r->reason);
		ks_buf_addch(out, '\n');
	}
}

/* The reply into a variant, or why not. */
static int
take_variant(const struct ks_task *t, const char *agent, const char *reply,
	     const char *current, struct ks_buf *variant, struct ks_buf *why)
{
	const char *name = kernel_name(t);

	if (!name) {
		ks_error(why, "the kernel's name is unknown");
		return 1;
	}
	if (ks_agent_llm_variant(reply, name, variant, why)) {
		ks_log("llm %s: %s", agent, why->buf);
		return 1;
	}
	if (current && ks_agent_llm_same_code(variant->buf, current)) {
		ks_buf_reset(variant);
		ks_error(why, "the reply is the current version unchanged");
		return 1;
	}
	return 0;
}

int
ks_agent_llm_edit(struct ks_task *t, const struct ks_agent_skill *sk,
		  const char *current, struct ks_buf *variant, char **plan,
		  struct ks_buf *why)
{
	const struct ks_traj_round *b = &t->traj.v[t->state.base];
	const struct ks_skill *s = t->skills ? ks_skills_find(t->skills, sk->id) : NULL;
	struct ks_buf user = KS_BUF_INIT, reply = KS_BUF_INIT, kernel = KS_BUF_INIT,
		      metrics = KS_BUF_INIT, features = KS_BUF_INIT,
		      history = KS_BUF_INIT, skills = KS_BUF_INIT;
	const char *names[10], *values[10];
	char *file = NULL, *tmpl = role_prompt(t, "optimizer", optimizer_builtin, &file);
	size_t n = 0, i;
	long tokens = 0;
	int rc = -1;

	if (!kernel_name(t)) {
		free(file);
		free(tmpl);
		*plan = NULL;
		ks_error(why, "the kernel's name is unknown");
		return 1;
	}
	*plan = sk->why && ks_starts_with(sk->why, "LLM plan: ") ?
		ks_xstrdup(sk->why + 10) :
		ks_xasprintf("Carry out the skill %s on the current version; the policy "
			     "allowed it because: %s", sk->id, sk->why ? sk->why : "(no reason)");
	kernel_field(t, &kernel);
	metrics_field(b, &metrics);
	features_field(t, &features);
	history_field(t, &history);
	for (i = 0; i < t->plan.n; i++)
		ks_buf_addf(&skills, "%s%s", i ? ", " : "", t->plan.v[i].id);
	names[n] = "kernel", values[n++] = kernel.buf;
	names[n] = "source", values[n++] = current;
	names[n] = "plan", values[n++] = *plan;
	names[n] = "why", values[n++] = sk->why;
	names[n] = "metrics", values[n++] = metrics.buf;
	names[n] = "features", values[n++] = features.buf;
	names[n] = "evidence", values[n++] = sk->why;
	names[n] = "history", values[n++] = history.buf;
	names[n] = "skills", values[n++] = skills.buf;
	if (!s)
		names[n] = "id", values[n++] = sk->id;
	if (ks_agent_llm_prompt(file, tmpl, s, names, values, n, &user, why))
		goto out;
	if (ask(t, "optimizer", optimizer_system, user.buf, &reply, &tokens, why)) {
		ks_log("llm optimizer: %s", why->buf);
		goto out;
	}
	rc = take_variant(t, "optimizer", reply.buf, current, variant, why);
out:
	t->pending_tokens += tokens;
	free(file);
	free(tmpl);
	ks_buf_release(&user);
	ks_buf_release(&reply);
	ks_buf_release(&kernel);
	ks_buf_release(&metrics);
	ks_buf_release(&features);
	ks_buf_release(&history);
	ks_buf_release(&skills);
	return rc;
}

int
ks_agent_llm_repair(struct ks_task *t, const struct ks_traj_round *f,
		    const char *failed, const char *log, struct ks_buf *variant,
		    struct ks_buf *why)
{
	const struct ks_skill *s = t->skills && f->skill ?
		ks_skills_find(t->skills, f->skill) : NULL;
	struct ks_buf user = KS_BUF_INIT, reply = KS_BUF_INIT, diag = KS_BUF_INIT,
		      lg = KS_BUF_INIT, history = KS_BUF_INIT;
	const char *names[8], *values[8];
	char *file = NULL, *tmpl = role_prompt(t, "repairer", repairer_builtin, &file);
	int chain[16];
	size_t n = 0, i, nchain = ks_traj_repair_chain(&t->traj, f->round, chain, 16);
	long tokens = 0;
	int rc = -1;

	ks_buf_addf(&diag, "Stage: %s. Verdict: %s: %s\n", f->stage ? f->stage : "?",
		    f->verdict ? f->verdict : "?", f->reason ? f->reason : "?");
	/* The rules' fix speaks of a transform's next point: not the LLM's
	 * business, so only what broke and why. */
	if (f->diag.cls)
		ks_buf_addf(&diag, "Class: %s. What broke: %s\nLikely cause: %s\n",
			    f->diag.cls, f->diag.what ? f->diag.what : "?",
			    f->diag.cause ? f->diag.cause : "?");
	if (f->diag.evidence && *f->diag.evidence)
		ks_buf_addf(&diag, "Evidence:\n%s\n", f->diag.evidence);
	if (log && *log)
		ks_buf_add(&lg, log, strlen(log) < LLM_LOG_MAX ? strlen(log) : LLM_LOG_MAX);
	else
		ks_buf_addf(&lg, "%s", f->reason ? f->reason : "(no log)");
	for (i = 0; i + 1 < nchain; i++) {
		const struct ks_traj_round *c = &t->traj.v[chain[i]];

		ks_buf_addf(&history, "- round %d: %s (%.300s)\n", c->round,
			    c->diag.what ? c->diag.what : c->verdict ? c->verdict : "?",
			    c->reason ? c->reason : "");
	}
	names[n] = "source", values[n++] = failed;
	names[n] = "diagnosis", values[n++] = diag.buf;
	names[n] = "log", values[n++] = lg.buf;
	names[n] = "history", values[n++] = history.buf;
	names[n] = "plan", values[n++] = f->plan;
	names[n] = "why", values[n++] = f->why;
	if (!s)
		names[n] = "id", values[n++] = f->skill;
	if (ks_agent_llm_prompt(file, tmpl, s, names, values, n, &user, why))
		goto out;
	if (ask(t, "repairer", repairer_system, user.buf, &reply, &tokens, why)) {
		ks_log("llm repairer: %s", why->buf);
		goto out;
	}
	rc = take_variant(t, "repairer", reply.buf, NULL, variant, why);
out:
	t->pending_tokens += tokens;
	free(file);
	free(tmpl);
	ks_buf_release(&user);
	ks_buf_release(&reply);
	ks_buf_release(&diag);
	ks_buf_release(&lg);
	ks_buf_release(&history);
	return rc;
}

/* ---- replies into variants (pure) ----------------------------------------- */

/* Calls a variant may not make: it never allocates, copies, synchronizes
 * or makes streams (work moved off the timed stream is the known trick). */
static const char *const forbidden_calls[] = {
	"cudaMalloc", "cudaFree", "cudaMemcpy", "cudaMemset", "cudaDeviceSynchronize",
	"cudaStreamSynchronize", "cudaStreamCreate", "cudaEventSynchronize",
	"cudaHostAlloc", "cudaGraphLaunch", "malloc(", "free(", NULL,
};

static int
blank(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r')
			return 0;
	return 1;
}

/* `n` bytes of `s`, each line without its trailing blanks, ending in a
 * newline. */
static void
add_lines(struct ks_buf *out, const char *s, size_t n)
{
	const char *end = s + n;

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t len = nl ? (size_t)(nl - s) : (size_t)(end - s);

		while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r'))
			len--;
		ks_buf_add(out, s, len);
		ks_buf_addch(out, '\n');
		s = nl ? nl + 1 : end;
	}
}

/* Leading and trailing blank lines of [s, s + n) cut off. */
static void
add_part(struct ks_buf *out, const char *marker, const char *s, size_t n)
{
	while (n && (*s == '\n' || *s == '\r' || *s == ' ' || *s == '\t')) {
		const char *nl = memchr(s, '\n', n);
		size_t skip;

		if (!nl || !blank(s, (size_t)(nl - s)))
			break;
		skip = (size_t)(nl - s) + 1;
		s += skip;
		n -= skip;
	}
	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ' ||
		     s[n - 1] == '\t'))
		n--;
	if (!n)
		return;
	ks_buf_addf(out, "// ks-nvcc: %s\n", marker);
	add_lines(out, s, n);
}

/* Does the block define kernel `name`? */
static int
defines(const char *code, const char *name, size_t *begin, size_t *end)
{
	struct ks_rewrite_kernel k;
	struct ks_buf err = KS_BUF_INIT;
	int ok;

	memset(&k, 0, sizeof(k));
	ok = !ks_rewrite_scan(code, strlen(code), name, &k, &err);
	if (ok && begin) {
		*begin = k.def_begin;
		*end = k.def_end;
	}
	if (ok)
		ks_rewrite_kernel_release(&k);
	ks_buf_release(&err);
	return ok;
}

static int
has_marker(const char *code, const char *part)
{
	char *line = ks_xasprintf("// ks-nvcc: %s\n", part);
	const char *p = strstr(code, line);
	int at = p && (p == code || p[-1] == '\n');

	free(line);
	return at;
}

int
ks_agent_llm_variant(const char *reply, const char *name, struct ks_buf *out,
		     struct ks_buf *why)
{
	struct ks_strv blocks = KS_STRV_INIT;
	struct ks_buf body = KS_BUF_INIT;
	char *launcher = ks_xasprintf("ks_launch_%s", name);
	const char *code = NULL;
	size_t nb, i, begin = 0, end = 0;
	int truncated = 0, marked = 0, rc = -1;

	nb = ks_llm_code_blocks(reply, &blocks, &truncated);
	if (!nb) {
		ks_error(why, "the reply has no code block");
		goto out;
	}
	/* The last block that is the variant: an answer's explanation of
	 * its steps comes first. */
	for (i = nb; i-- > 0 && !code;) {
		if (has_marker(blocks.v[i], "definition")) {
			code = blocks.v[i];
			marked = 1;
		} else if (defines(blocks.v[i], name, &begin, &end)) {
			code = blocks.v[i];
		}
		if (code && truncated && i + 1 == nb) {
			ks_error(why, "the reply was cut off inside its code");
			goto out;
		}
	}
	if (!code) {
		ks_error(why, "no code block of the reply defines the kernel %s%s", name,
			 truncated ? " (the reply was cut off)" : "");
		goto out;
	}
	for (i = 0; forbidden_calls[i]; i++)
		if (strstr(code, forbidden_calls[i])) {
			ks_error(why, "the variant calls %.*s: a variant never allocates, "
				 "copies or synchronizes", (int)strcspn(forbidden_calls[i], "("),
				 forbidden_calls[i]);
			goto out;
		}
	if (marked) {
		struct ks_rewrite_variant v;
		char *copy = ks_xstrdup(code);

		memset(&v, 0, sizeof(v));
		if (ks_rewrite_variant_split(copy, &v, why)) {
			free(copy);
			goto out;
		}
		if (!defines(v.definition.text, name, NULL, NULL)) {
			ks_error(why, "the definition part does not define the kernel %s", name);
			free(copy);
			goto out;
		}
		if (v.launcher.text && *v.launcher.text && !strstr(v.launcher.text, launcher)) {
			ks_error(why, "the launcher part does not define %s", launcher);
			free(copy);
			goto out;
		}
		if (v.helpers.text)
			add_part(&body, "helpers", v.helpers.text, strlen(v.helpers.text));
		add_part(&body, "definition", v.definition.text, strlen(v.definition.text));
		if (v.launcher.text)
			add_part(&body, "launcher", v.launcher.text, strlen(v.launcher.text));
		free(copy);
	} else {
		size_t len = strlen(code);

		if (!blank(code + end, len - end) && !strstr(code + end, launcher)) {
			ks_error(why, "code follows the kernel's definition that is not its "
				 "launcher %s", launcher);
			goto out;
		}
		add_part(&body, "helpers", code, begin);
		add_part(&body, "definition", code + begin, end - begin);
		add_part(&body, "launcher", code + end, len - end);
	}
	ks_buf_adds(out, "// ks-nvcc variant: written by the LLM\n");
	ks_buf_add(out, body.buf, body.len);
	rc = 0;
out:
	ks_strv_release(&blocks);
	ks_buf_release(&body);
	free(launcher);
	return rc;
}

/* Equal but for whitespace (NULL is ""). */
static int
same_ws(const char *a, const char *b)
{
	a = a ? a : "";
	b = b ? b : "";
	for (;;) {
		while (*a == ' ' || *a == '\t' || *a == '\n' || *a == '\r')
			a++;
		while (*b == ' ' || *b == '\t' || *b == '\n' || *b == '\r')
			b++;
		if (*a != *b)
			return 0;
		if (!*a)
			return 1;
		a++, b++;
	}
}

int
ks_agent_llm_same_code(const char *a, const char *b)
{
	struct ks_rewrite_variant va, vb;
	struct ks_buf err = KS_BUF_INIT;
	char *ca = ks_xstrdup(a), *cb = ks_xstrdup(b);
	int same = 0;

	memset(&va, 0, sizeof(va));
	memset(&vb, 0, sizeof(vb));
	if (!ks_rewrite_variant_split(ca, &va, &err) && !ks_rewrite_variant_split(cb, &vb, &err))
		same = same_ws(va.helpers.text, vb.helpers.text) &&
		       same_ws(va.definition.text, vb.definition.text) &&
		       same_ws(va.launcher.text, vb.launcher.text);
	free(ca);
	free(cb);
	ks_buf_release(&err);
	return same;
}
