/*
 * policy: the Planner's decision as data and one pure function.
 *
 * The table (skills/policy.yaml, docs/SKILLS.md) declares the names it
 * reads (static features f.*, compiler evidence ev.*, counters m.*,
 * kernel facts k.*, build facts b.*), derived values d.*, headroom tiers,
 * bottleneck buckets with a signature and cases (a `when` expression,
 * tiers, allowed and forbidden skills, the expected gain), global vetoes,
 * and the similarity vector of the cross-task statistics. Loading checks
 * everything a plan could trip over later: syntax, unknown names, types,
 * unknown skills, skills' preconditions, unreachable cases.
 *
 * ks_policy_plan() is the decision: values in, ranked allowed skills out,
 * each with the bucket, case and the predicates that matched with the
 * values they matched on; forbidden skills with the rule that forbade
 * them; the cases skipped because a value they need (a counter) is not
 * known. ks_policy_rank() then re-orders the allowed skills by what the
 * cross-task statistics measured on similar kernels. Both are pure.
 *
 * Ownership: struct ks_policy owns everything it loaded and borrows the
 * skills it was loaded with (they must outlive it); struct ks_plan owns
 * its strings. _release() functions free (safe on zeroed structs).
 * May include: libc, core/, memory/, expr.h.
 */
#ifndef KS_POLICY_POLICY_H
#define KS_POLICY_POLICY_H

#include <stddef.h>

#include "expr.h"

struct ks_buf;
struct ks_skills;
struct ks_skill;
struct ks_knowledge;
struct ks_ynode;

struct ks_policy_input {
	char *name;		/* "f.is_naive_gemm" */
	char *source;		/* "f", "ev", "m", "k", "b", "d" */
	enum ks_expr_type type;
	int line;
};

struct ks_policy_derived {
	int input;		/* its slot among the inputs */
	struct ks_expr expr;
};

struct ks_policy_tier {
	char *id;
	char *doc;
	struct ks_expr when;
	int line;
};

struct ks_policy_forbid {
	char *skill;
	char *why;
};

struct ks_policy_case {
	char *id;
	char *doc;
	struct ks_expr when;
	unsigned tiers;		/* bit i: tier i allowed; all bits: any */
	char **allow;
	size_t nallow;
	struct ks_policy_forbid *forbid;
	size_t nforbid;
	char *gain;		/* small, medium, large */
	int line;
};

struct ks_policy_bucket {
	char *id;
	char *doc;
	struct ks_expr signature;
	struct ks_policy_case *cases;
	size_t ncases;
	int line;
};

struct ks_policy_veto {
	char *id;
	char *why;
	struct ks_expr when;
	char **skills;
	size_t nskills;
	int line;
};

/* A skill's preconditions, parsed against the policy's names. */
struct ks_policy_requires {
	const struct ks_skill *skill;
	struct ks_expr *exprs;
	size_t n;
};

struct ks_policy {
	char *file;
	int version;
	struct ks_policy_input *inputs;
	size_t ninputs;
	struct ks_policy_derived *derived;
	size_t nderived;
	struct ks_policy_tier *tiers;
	size_t ntiers;
	char *cap_tier;		/* at this tier, every gain is at most cap_gain */
	char *cap_gain;
	struct ks_policy_bucket *buckets;
	size_t nbuckets;
	struct ks_policy_veto *vetoes;
	size_t nvetoes;
	int *similarity;	/* input slots */
	size_t nsimilarity;
	const struct ks_skills *skills;
	struct ks_policy_requires *requires;	/* one per skill */
};

void ks_policy_release(struct ks_policy *p);

/*
 * Pure: load the table from its text, against `skills` (borrowed).
 * Every error is "FILE:LINE: ..." (a skill's precondition: the skill's
 * file and line), one per line in `err`.
 */
int ks_policy_parse(const char *file, const char *text, size_t len,
		    const struct ks_skills *skills, struct ks_policy *out,
		    struct ks_buf *err);

/* The slot of input `name`, or -1. */
int ks_policy_input(const struct ks_policy *p, const char *name);

/* The values a plan reads: one per input, all unknown at first. */
struct ks_policy_values {
	struct ks_val *v;
	size_t n;
};

void ks_policy_values_init(struct ks_policy_values *vals, const struct ks_policy *p);
void ks_policy_values_release(struct ks_policy_values *vals);
/* Set input `name` if the policy reads it; returns 0, or -1 if it does not. */
int ks_policy_set(const struct ks_policy *p, struct ks_policy_values *vals,
		  const char *name, double v);

struct ks_plan_item {
	char *skill;
	char *bucket, *case_id;
	char *gain;		/* after the tier cap */
	char *why;		/* "f.is_naive_gemm (1); m.l1_pct > 90 (m.l1_pct = 95.8)" */
	char *why_json;		/* [{"predicate": ..., "values": {...}}, ...] */
	char *requires_unknown;	/* preconditions not decidable, or NULL */
	double score;		/* from the statistics; 0 without */
	size_t evidence;	/* similar outcomes behind the score */
	int policy_rank;	/* 0-based, before re-ranking */
};

struct ks_plan_forbidden {
	char *skill;
	char *rule;		/* "veto no_reuse", "case gemm/naive", "precondition" */
	char *why;
	char *why_json;
};

struct ks_plan_skipped {
	char *what;		/* "bucket compute" or "case gemm/naive" */
	char *needs;		/* "m.sm_pct, m.dram_pct" */
	char **skills;		/* what its cases allow, were they judged */
	size_t nskills;
	const char *gain;	/* the most any of its cases promises (the
				 * policy's string, not owned) */
};

struct ks_plan {
	char *tier;		/* or NULL: not measured */
	char *tier_why;
	char *tier_why_json;
	struct ks_plan_item *allowed;
	size_t nallowed;
	struct ks_plan_forbidden *forbidden;
	size_t nforbidden;
	struct ks_plan_skipped *skipped;
	size_t nskipped;
	int counters;		/* were any m.* values known */
};

void ks_plan_release(struct ks_plan *pl);

/* Pure: the plan for these values (the derived ones are computed here). */
void ks_policy_plan(const struct ks_policy *p, struct ks_policy_values *vals,
		    struct ks_plan *out);

/*
 * Pure: re-rank `pl` by the outcomes of `k` (docs/SKILLS.md: similarity
 * over the policy's vector, score = sum of w * value / (1 + sum of w),
 * stable: ties keep the policy's order).
 */
void ks_policy_rank(const struct ks_policy *p, const struct ks_policy_values *vals,
		    const struct ks_knowledge *k, struct ks_plan *pl);

/* Pure: the similarity (0..1) of an outcome's vector to `vals`. */
double ks_policy_similarity(const struct ks_policy *p,
			    const struct ks_policy_values *vals,
			    size_t n, char *const *names, const double *values);

/*
 * Pure: the most a skill the plan does not allow could gain, were the
 * cases it skipped judged: the highest gain of the skipped buckets and
 * cases that allow it, or "small" where none does (its own pattern
 * check is then all that speaks for it).
 */
const char *ks_plan_unjudged_gain(const struct ks_plan *pl, const char *skill);

/* Pure: the plan as text or JSON. */
void ks_plan_format(const struct ks_plan *pl, struct ks_buf *out);
void ks_plan_json(const struct ks_plan *pl, struct ks_buf *out);

#endif
