/*
 * llm_agents: prompts are built here from the task's facts; replies are
 * read as JSON objects and checked against what the rules allow.
 */
#include "llm_agents.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "../core/buf.h"
#include "../core/log.h"
#include "../core/util.h"
#include "../llm/llm.h"
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

static void
kernel_text(const struct ks_task *t, struct ks_buf *out)
{
	size_t n = t->len < 16000 ? t->len : 16000;

	ks_buf_adds(out, "Kernel ");
	ks_buf_adds(out, t->kernel);
	ks_buf_adds(out, " in this source:\n```cuda\n");
	ks_buf_add(out, t->text ? t->text : "", t->text ? n : 0);
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
	if (ks_llm_chat(t->llm, planner_system, user.buf, &reply, &tokens, &err)) {
		transcript(t, "planner", (int)t->traj.n, planner_system, user.buf, NULL,
			   tokens, err.buf);
		ks_log("llm planner: %s (the policy's order stands)", err.buf);
		goto out;
	}
	transcript(t, "planner", (int)t->traj.n, planner_system, user.buf, reply.buf,
		   tokens, NULL);
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
	if (ks_llm_chat(t->llm, diagnoser_system, user.buf, &reply, &tokens, &err)) {
		transcript(t, "diagnoser", r->round, diagnoser_system, user.buf, NULL,
			   tokens, err.buf);
		ks_log("llm diagnoser: %s", err.buf);
		goto out;
	}
	transcript(t, "diagnoser", r->round, diagnoser_system, user.buf, reply.buf,
		   tokens, NULL);
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
