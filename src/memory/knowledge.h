/*
 * knowledge: the cross-task statistics of the long-term memory.
 *
 * Every verified outcome of applying a skill to a kernel (the skill, its
 * parameters, the kernel, the policy's bucket and case, the kernel's
 * similarity vector, the measured speedup or the failure) is one line of
 * KS_DIR/knowledge/outcomes.jsonl, appended under a lock. The policy reads
 * them back to re-rank the skills it allows for similar kernels
 * (policy.h, ks_policy_rank), and `ks skills stats` shows, exports and
 * imports them: a team merges what each of its machines learned.
 *
 * Parsing and summarizing are pure; only _append, _load and _import touch
 * files.
 * Ownership: struct ks_outcome owns its strings and arrays, struct
 * ks_knowledge its outcomes; the _release() functions free them (safe on
 * zeroed structs).
 * May include: libc, core/.
 */
#ifndef KS_MEMORY_KNOWLEDGE_H
#define KS_MEMORY_KNOWLEDGE_H

#include <stddef.h>

struct ks_buf;

#define KS_KNOWLEDGE_FORMAT 1

/* The results an outcome can have. */
extern const char *const ks_outcome_results[];	/* NULL-ended */

struct ks_outcome {
	char *time;		/* "2026-12-01T10:00:00Z" */
	char *skill;
	char *params;		/* "block=256 vec=4", or "" */
	char *kernel;		/* mangled name */
	char *bucket, *case_id;	/* the policy's, or "" */
	char *result;		/* faster, same, slower, incorrect, failed */
	double speedup;		/* original / variant median; 0 when not timed */
	size_t nfeatures;
	char **fnames;		/* the similarity vector: names ... */
	double *fvalues;	/* ... and values */
};

struct ks_knowledge {
	struct ks_outcome *v;
	size_t n, alloc;
};

void ks_outcome_release(struct ks_outcome *o);
void ks_knowledge_release(struct ks_knowledge *k);

/* Pure: one outcome as one JSON line (with the newline). */
void ks_outcome_json(const struct ks_outcome *o, struct ks_buf *out);

/*
 * Pure: read JSON lines (`name` for messages: "FILE:LINE: ..."), adding
 * each outcome to `k`. Blank lines are skipped; a malformed line fails.
 */
int ks_knowledge_parse(const char *name, const char *text,
		       struct ks_knowledge *k, struct ks_buf *err);

/* <dir>/knowledge/outcomes.jsonl (the caller frees it). */
char *ks_knowledge_path(const char *dir);

/* Append one outcome under <dir>/knowledge/, under its lock. */
int ks_knowledge_append(const char *dir, const struct ks_outcome *o,
			int lock_timeout_ms, struct ks_buf *err);

/* Every outcome recorded under <dir> (none is not an error). */
int ks_knowledge_load(const char *dir, struct ks_knowledge *k,
		      struct ks_buf *err);

/*
 * Merge the outcomes of `text` (an export) into <dir>: lines already
 * there, byte for byte, are skipped. *added gets how many were new.
 */
int ks_knowledge_import(const char *dir, const char *name, const char *text,
			int lock_timeout_ms, size_t *added, struct ks_buf *err);

/*
 * Pure: per skill, the attempts, how many were faster, the failures, the
 * geometric mean and best of the verified speedups; as a table, or with
 * `json` as a JSON array.
 */
void ks_knowledge_summary(const struct ks_knowledge *k, int json,
			  struct ks_buf *out);

/*
 * What a task's final check cost (KS_DIR/knowledge/checks.jsonl, one line
 * per check, appended under its lock): the skill of the variant checked,
 * the seed's review and the check, in GPU milliseconds. The check runs
 * under compute-sanitizer, whose cost over a plain review depends on the
 * kernel (racecheck of a large shared-memory kernel: 20 times its seed's
 * review), so the loop's GPU budget reserves what the statistics say a
 * check of the skills it may apply has cost.
 */
struct ks_check_cost {
	const char *kernel;	/* mangled name */
	const char *skill;
	double seed_ms, check_ms;
};

/* Pure: one check as one JSON line (with the newline). */
void ks_check_cost_json(const struct ks_check_cost *c, const char *time,
			struct ks_buf *out);

/* The checks of a skill that count: its most recent ones. */
#define KS_CHECK_RECENT 4

/*
 * Pure: the largest check_ms / seed_ms among the last KS_CHECK_RECENT
 * lines of `text` of each skill in skills[0..n); 0 when there is none.
 * Lines that do not parse are skipped (the file is a cost estimate, not a
 * record to trust).
 */
double ks_check_ratio(const char *text, const char *const *skills, size_t n);

/* Append one check under <dir>/knowledge/. */
int ks_knowledge_check_append(const char *dir, const struct ks_check_cost *c,
			      int lock_timeout_ms, struct ks_buf *err);

/* The text of <dir>/knowledge/checks.jsonl into `out` (empty when there is
 * none); -1 when it exists and cannot be read. */
int ks_knowledge_checks_load(const char *dir, struct ks_buf *out,
			     struct ks_buf *err);

#endif
