/*
 * llm_agents: the Planner's, the Diagnoser's, the Optimizer's and the
 * Repairer's questions to an LLM, when one is configured. The rules stay
 * in charge: the Planner's pick must be one of the skills the policy
 * allowed (anything else is ignored); the Diagnoser asks only about a
 * failure no rule classifies; the Optimizer asks for an edit carrying out
 * one skill the policy allowed, and the Repairer for a fix of an LLM edit
 * the Reviewer failed; their replies become candidates only in the
 * variant contract's form (the kernel's definition, helpers before it, a
 * launcher after it; nothing that allocates or synchronizes) and reach
 * the cache only through the Reviewer. Each reply costs tokens that go
 * into the trajectory record of its step; every exchange goes to the
 * task's transcript (llm.jsonl).
 * May include: libc, core/, llm/, memory/, cache/, analysis/, agents.h.
 */
#ifndef KS_AGENTS_LLM_AGENTS_H
#define KS_AGENTS_LLM_AGENTS_H

#include "agents.h"

struct ks_skill;

/* Move the skill the LLM picks (with its plan) to the front of t->plan. */
void ks_agent_llm_plan(struct ks_task *t);

/* Fill r->diag's cause and fix from the LLM's diagnosis. */
void ks_agent_llm_diagnose(struct ks_task *t, struct ks_traj_round *r,
			   const char *log);

/* Pure: the index of the skill named by a reply's JSON {"skill": ...} in
 * `plan`, or -1 (an unknown or absent skill). *why gets its "plan". */
long ks_agent_llm_pick(const struct ks_agent_plan *plan, const char *reply,
		       char **why);

/* Can the LLM be asked now: configured, within the task's token budget,
 * and not failing request after request? */
int ks_agent_llm_usable(const struct ks_task *t);

/*
 * Optimizer: ask for the variant of the kernel that carries out skill
 * `sk` on the current version `current` (the base's variant file, or the
 * original's definition), with the plan, the facts and the metrics as
 * context. 0: *variant holds a candidate in the contract's form; 1: the
 * reply gave none (the reason in `why`); -1: no reply (timeout, HTTP
 * errors, the budget; the reason in `why`). The tokens go to
 * t->pending_tokens, the plan it was asked to carry out to *plan.
 */
int ks_agent_llm_edit(struct ks_task *t, const struct ks_agent_skill *sk,
		      const char *current, struct ks_buf *variant, char **plan,
		      struct ks_buf *why);

/*
 * Repairer: ask for a fix of failed round `f` (its variant file
 * `failed`, its build log or NULL) from its diagnosis and the repair
 * chain before it. Returns as ks_agent_llm_edit().
 */
int ks_agent_llm_repair(struct ks_task *t, const struct ks_traj_round *f,
			const char *failed, const char *log, struct ks_buf *variant,
			struct ks_buf *why);

/* ---- pure ------------------------------------------------------------------ */

/*
 * The code of a reply as a variant file of kernel `name`: the last fenced
 * block that defines the kernel, either in the contract's marked parts
 * ("// ks-nvcc: helpers", "definition", "launcher") or plain (what comes
 * before the definition is helpers, what comes after must be the launcher
 * ks_launch_<name>). Trailing blanks are dropped, so the hash of the same
 * code is the same. -1 with the reason: no code block, a block cut off,
 * no definition of the kernel, code after it that is not its launcher, a
 * call that allocates, copies or synchronizes (the contract forbids it).
 */
int ks_agent_llm_variant(const char *reply, const char *name, struct ks_buf *out,
			 struct ks_buf *why);

/* Do two variant files hold the same code (whitespace aside)? */
int ks_agent_llm_same_code(const char *a, const char *b);

/*
 * A role prompt: `tmpl` (file `file`) with the skill's placeholders from
 * `s` (NULL: "(not in the skill library)") and the task's from the `n`
 * pairs names/values (a task placeholder not given: "(none)"). One pass:
 * text put in is never read for placeholders. -1 on an unknown one.
 */
int ks_agent_llm_prompt(const char *file, const char *tmpl, const struct ks_skill *s,
			const char *const *names, const char *const *values, size_t n,
			struct ks_buf *out, struct ks_buf *err);

#endif
