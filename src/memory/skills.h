/*
 * skills: the long-term memory's skill library, one Markdown file per
 * skill in the skills folder (docs/SKILLS.md).
 *
 * A skill file opens with YAML front matter between two "---" lines (the
 * machine-read part: id, category, intent, mechanism, requires,
 * expected, forbidden, risks, transform, parameters, includes) and goes on
 * in Markdown for people and models: a "## Guidance" section, and the
 * before/after example as two fenced blocks tagged "cuda before" and
 * "cuda after". The loader checks the shape of every field and reports
 * each malformed file as "FILE:LINE: message". What the fields mean to
 * the policy (the names in `requires`, the metrics of `expected`) is
 * checked by the policy loader, and whether the examples compile and the
 * transforms exist by `ks skills lint`.
 *
 * Ownership: struct ks_skill owns its strings, struct ks_skills its
 * skills; the _release() functions free them (safe on zeroed structs).
 * May include: libc, core/, yaml.h.
 */
#ifndef KS_MEMORY_SKILLS_H
#define KS_MEMORY_SKILLS_H

#include <stddef.h>

struct ks_buf;

/* A text with the file line it came from. */
struct ks_skill_text {
	char *text;
	int line;
};

struct ks_skill_metric {
	char *metric;		/* a metric name, as the policy spells it */
	int direction;		/* +1 up, -1 down */
	int line;
};

#define KS_SKILL_MAX_VALUES 16

struct ks_skill_param {
	char *name;
	char *doc;
	long long def;
	size_t nvalues;
	long long values[KS_SKILL_MAX_VALUES];
	int line;
};

struct ks_skill {
	char *file;
	char *id;
	char *title;
	char *category;
	char *intent;
	char *mechanism;
	struct ks_skill_text *requires;	/* expressions, all must hold */
	size_t nrequires;
	struct ks_skill_metric *expected;
	size_t nexpected;
	struct ks_skill_text *forbidden;
	size_t nforbidden;
	char *risk_precision, *risk_shapes, *risk_other;	/* or NULL */
	char *transform;		/* builtin transform id, or NULL: none */
	char *planned_transform;	/* with no transform: the one planned */
	int transform_line;
	struct ks_skill_param *params;
	size_t nparams;
	struct ks_skill_text *includes;	/* headers the example needs */
	size_t nincludes;
	char *guidance;			/* the "## Guidance" section */
	struct ks_skill_text before, after;	/* example code, first line */
	char *body;			/* all the Markdown after the header */
};

struct ks_skills {
	char *dir;
	struct ks_skill *v;
	size_t n;
};

/* The categories a skill may name, NULL-ended. */
extern const char *const ks_skill_categories[];

void ks_skill_release(struct ks_skill *s);
void ks_skills_release(struct ks_skills *s);

/*
 * Pure: parse the text of skill file `file` (its basename, less ".md",
 * must be the id). Returns 0, or -1 with "FILE:LINE: ..." in `err`.
 * `out` must be zeroed or released.
 */
int ks_skill_parse(const char *file, const char *text, size_t len,
		   struct ks_skill *out, struct ks_buf *err);

/*
 * Load every `*.md` of `dir` except README.md, sorted by id. Every
 * malformed file is reported (one line each in `err`) and the load fails;
 * two files with one id fail too.
 */
int ks_skills_load(const char *dir, struct ks_skills *out, struct ks_buf *err);

/*
 * The placeholders of a role prompt (the .md files of skills/prompts): those a skill
 * fills ({{id}}, {{title}}, {{intent}}, {{mechanism}}, {{guidance}},
 * {{before}}, {{after}}, {{forbidden}}, {{risks}}, {{expected}},
 * {{requires}}, {{transform}}) and those the loop fills from the task
 * ({{kernel}}, {{source}}, {{plan}}, {{why}}, {{metrics}}, {{features}},
 * {{evidence}}, {{history}}, {{log}}, {{diagnosis}}, {{skills}}).
 */
extern const char *const ks_prompt_skill_fields[];
extern const char *const ks_prompt_task_fields[];

/*
 * Pure: fill the skill placeholders of `tmpl` from `s` (task placeholders
 * stay as they are, for the loop). An unknown placeholder is an error:
 * "FILE:LINE: unknown placeholder {{x}}".
 */
int ks_skill_render(const char *file, const char *tmpl, const struct ks_skill *s,
		    struct ks_buf *out, struct ks_buf *err);

/* The skill with this id, or NULL. */
const struct ks_skill *ks_skills_find(const struct ks_skills *s, const char *id);

#endif
