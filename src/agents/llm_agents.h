/*
 * llm_agents: the Planner's and the Diagnoser's questions to an LLM, when
 * one is configured. The rules stay in charge: the Planner's pick must be
 * one of the skills the policy allowed (anything else is ignored), and
 * the Diagnoser asks only about a failure no rule classifies. Each reply
 * costs tokens that go into the next trajectory record.
 * May include: libc, core/, llm/, memory/, agents.h.
 */
#ifndef KS_AGENTS_LLM_AGENTS_H
#define KS_AGENTS_LLM_AGENTS_H

#include "agents.h"

/* Move the skill the LLM picks (with its plan) to the front of t->plan. */
void ks_agent_llm_plan(struct ks_task *t);

/* Fill r->diag's cause and fix from the LLM's diagnosis. */
void ks_agent_llm_diagnose(struct ks_task *t, struct ks_traj_round *r,
			   const char *log);

/* Pure: the index of the skill named by a reply's JSON {"skill": ...} in
 * `plan`, or -1 (an unknown or absent skill). *why gets its "plan". */
long ks_agent_llm_pick(const struct ks_agent_plan *plan, const char *reply,
		       char **why);

#endif
