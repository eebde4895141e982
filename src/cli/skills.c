/*
 * ks skills: the long-term memory on the command line.
 *
 *   ks skills list [--json]          every skill: id, category, transform
 *   ks skills show ID                a skill's file
 *   ks skills prompt ROLE [ID]       a role prompt, filled from a skill
 *   ks skills lint [--no-compile]    every check of docs/SKILLS.md
 *   ks skills stats [--json]         what the outcomes measured, per skill
 *   ks skills stats export [FILE]    the outcomes as JSON lines
 *   ks skills stats import FILE      merge outcomes exported elsewhere
 *
 * Lint loads the skills and the policy (which checks names, types,
 * preconditions and reachability), checks that every name the policy
 * declares is produced (features, evidence, metrics, kernel and build
 * facts), that every transform a skill names is built in with the same
 * parameters, that the role prompts use known placeholders, and compiles
 * every example in one nvcc run (cached by content under KS_DIR/lint).
 */
#include "ks.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../evidence/evidence.h"
#include "../analysis/features.h"
#include "../core/buf.h"
#include "../core/conf.h"
#include "../core/fs.h"
#include "../core/hash.h"
#include "../core/proc.h"
#include "../core/strv.h"
#include "../core/util.h"
#include "../memory/knowledge.h"
#include "../memory/skills.h"
#include "../nvcc/passthru.h"
#include "../policy/policy.h"
#include "../review/metricset.h"
#include "../transforms/transform.h"

/* The kernel and build facts `ks plan` computes (k.*, b.*). */
const char *const ks_cli_kernel_facts[] = {
	"k.params", "k.pointer_params", "k.const_pointer_params",
	"k.restrict_params", "k.block_threads", "k.grid_blocks",
	"k.loop_data_branches", "b.fast_math",
	NULL,
};

char *
ks_cli_skills_dir(const struct ks_conf *conf)
{
	/* Beside the binary (the source tree's ./ks), one up (the build
	 * folder's build/ks), then the installed layout, which is also the
	 * answer when none has a policy: its error names the installed path. */
	static const char *const where[] = { "skills", "../skills",
					     "../share/ks-nvcc/skills" };
	char *self, *dir = NULL, *p;
	size_t i;
	int found;

	if (conf->skills && conf->skills[0])
		return ks_xstrdup(conf->skills);
	self = ks_fs_realpath("/proc/self/exe");
	if (!self)
		return ks_xstrdup("skills");
	*strrchr(self, '/') = '\0';
	for (i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
		free(dir);
		dir = ks_fs_join(self, where[i]);
		p = ks_fs_join(dir, "policy.yaml");
		found = ks_fs_exists(p);
		free(p);
		if (found)
			break;
	}
	free(self);
	return dir;
}

int
ks_cli_load_library(const struct ks_conf *conf, struct ks_skills *sk,
		    struct ks_policy *pol, struct ks_buf *err)
{
	char *dir = ks_cli_skills_dir(conf), *path = ks_fs_join(dir, "policy.yaml");
	struct ks_buf text = KS_BUF_INIT;
	int rc = -1;

	if (ks_skills_load(dir, sk, err))
		goto out;
	if (!pol) {
		rc = 0;
		goto out;
	}
	text.max = 4 << 20;
	if (ks_fs_read(path, &text, err))
		goto out;
	rc = ks_policy_parse(path, text.buf, text.len, sk, pol, err);
out:
	ks_buf_release(&text);
	free(path);
	free(dir);
	return rc;
}

static int
cmd_list(int argc, char **argv, struct ks_conf *conf)
{
	struct ks_skills sk = { 0 };
	struct ks_buf err = KS_BUF_INIT, out = KS_BUF_INIT;
	int json = argc == 2 && !strcmp(argv[1], "--json");
	size_t i;

	if (argc > 2 || (argc == 2 && !json)) {
		fprintf(stderr, "usage: ks skills list [--json]\n");
		return KS_EXIT_USAGE;
	}
	if (ks_cli_load_library(conf, &sk, NULL, &err)) {
		fprintf(stderr, "ks: error: %s\n", err.buf);
		ks_buf_release(&err);
		return KS_EXIT_FAILED;
	}
	if (json)
		ks_buf_adds(&out, "[");
	for (i = 0; i < sk.n; i++) {
		const struct ks_skill *s = &sk.v[i];
		const char *xf = s->transform ? s->transform : "none";
		int built = s->transform && ks_xf_find(s->transform);

		if (json) {
			ks_buf_adds(&out, i ? ",\n {\"id\": " : "{\"id\": ");
			ks_buf_add_json_str(&out, s->id);
			ks_buf_adds(&out, ", \"category\": ");
			ks_buf_add_json_str(&out, s->category);
			ks_buf_adds(&out, ", \"title\": ");
			ks_buf_add_json_str(&out, s->title);
			ks_buf_adds(&out, ", \"transform\": ");
			ks_buf_add_json_str_or_null(&out, s->transform);
			ks_buf_adds(&out, ", \"planned_transform\": ");
			ks_buf_add_json_str_or_null(&out, s->planned_transform);
			ks_buf_addf(&out, ", \"built_in\": %s}", built ? "true" : "false");
		} else {
			ks_buf_addf(&out, "%-28s %-12s %-9s %s\n", s->id, s->category,
				    s->transform ? (built ? "builtin" : "missing") :
				    s->planned_transform ? "planned" : xf, s->title);
		}
	}
	if (json)
		ks_buf_adds(&out, "]\n");
	fputs(out.buf, stdout);
	ks_buf_release(&out);
	ks_buf_release(&err);
	ks_skills_release(&sk);
	return 0;
}

static int
cmd_show(int argc, char **argv, struct ks_conf *conf)
{
	struct ks_skills sk = { 0 };
	struct ks_buf err = KS_BUF_INIT, text = KS_BUF_INIT;
	const struct ks_skill *s;
	int rc = KS_EXIT_FAILED;

	if (argc != 2) {
		fprintf(stderr, "usage: ks skills show ID\n");
		return KS_EXIT_USAGE;
	}
	if (ks_cli_load_library(conf, &sk, NULL, &err))
		goto out;
	s = ks_skills_find(&sk, argv[1]);
	if (!s) {
		ks_error(&err, "no skill '%s' (see 'ks skills list')", argv[1]);
		goto out;
	}
	if (ks_fs_read(s->file, &text, &err))
		goto out;
	fputs(text.buf, stdout);
	rc = 0;
out:
	if (rc)
		fprintf(stderr, "ks: error: %s\n", err.buf);
	ks_buf_release(&err);
	ks_buf_release(&text);
	ks_skills_release(&sk);
	return rc;
}

static const char *const roles[] = {
	"planner", "optimizer", "diagnoser", "repairer", NULL,
};

static int
cmd_prompt(int argc, char **argv, struct ks_conf *conf)
{
	struct ks_skills sk = { 0 };
	struct ks_buf err = KS_BUF_INIT, text = KS_BUF_INIT, out = KS_BUF_INIT;
	const struct ks_skill *s = NULL;
	char *dir = NULL, *path = NULL;
	int rc = KS_EXIT_FAILED;

	if (argc < 2 || argc > 3 || !ks_str_in_list(roles, argv[1])) {
		fprintf(stderr, "usage: ks skills prompt planner|optimizer|diagnoser|"
			"repairer [ID]\n");
		return KS_EXIT_USAGE;
	}
	if (ks_cli_load_library(conf, &sk, NULL, &err))
		goto out;
	if (argc == 3 && !(s = ks_skills_find(&sk, argv[2]))) {
		ks_error(&err, "no skill '%s'", argv[2]);
		goto out;
	}
	dir = ks_cli_skills_dir(conf);
	path = ks_xasprintf("%s/prompts/%s.md", dir, argv[1]);
	if (ks_fs_read(path, &text, &err) ||
	    ks_skill_render(path, text.buf, s, &out, &err))
		goto out;
	fputs(out.buf, stdout);
	rc = 0;
out:
	if (rc)
		fprintf(stderr, "ks: error: %s\n", err.buf);
	ks_buf_release(&err);
	ks_buf_release(&text);
	ks_buf_release(&out);
	ks_skills_release(&sk);
	free(dir);
	free(path);
	return rc;
}

/* --- lint ---------------------------------------------------------------- */

struct lint {
	size_t problems;
	struct ks_buf out;
};

static void problem(struct lint *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void
problem(struct lint *l, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ks_buf_vaddf(&l->out, fmt, ap);
	va_end(ap);
	ks_buf_addch(&l->out, '\n');
	l->problems++;
}

/* Every name the policy declares must be one that something produces. */
static void
lint_inputs(struct lint *l, const struct ks_policy *p)
{
	size_t i, n;
	const struct ks_metric_def *defs = ks_metricset(&n);

	for (i = 0; i < p->ninputs; i++) {
		const struct ks_policy_input *in = &p->inputs[i];
		const char *name = strchr(in->name, '.') + 1;
		int ok = 1;
		size_t j;

		if (!strcmp(in->source, "f"))
			ok = ks_feature_lookup(name) >= 0;
		else if (!strcmp(in->source, "ev"))
			ok = ks_evidence_feature_lookup(name) >= 0;
		else if (!strcmp(in->source, "m")) {
			ok = 0;
			for (j = 0; j < n; j++)
				ok |= !strcmp(defs[j].name, name);
		} else if (!strcmp(in->source, "k") || !strcmp(in->source, "b")) {
			ok = ks_str_in_list(ks_cli_kernel_facts, in->name);
		}
		if (!ok)
			problem(l, "%s:%d: '%s' is not a %s", p->file, in->line, in->name,
				!strcmp(in->source, "f") ? "static feature (docs/FEATURES.md)" :
				!strcmp(in->source, "ev") ? "compiler evidence feature (docs/EVIDENCE.md)" :
				!strcmp(in->source, "m") ? "metric (docs/CAPTURE.md)" :
				"kernel or build fact of ks plan");
	}
}

static void
lint_transforms(struct lint *l, const struct ks_skills *sk, struct ks_buf *notes)
{
	size_t i, j, k;

	for (i = 0; i < sk->n; i++) {
		const struct ks_skill *s = &sk->v[i];
		const struct ks_transform *t;

		if (!s->transform) {
			if (s->planned_transform && ks_xf_find(s->planned_transform))
				ks_buf_addf(notes, "%s:%d: note: transform '%s' is built in now: "
					    "say 'transform: %s'\n", s->file, s->transform_line,
					    s->planned_transform, s->planned_transform);
			continue;
		}
		t = ks_xf_find(s->transform);
		if (!t) {
			problem(l, "%s:%d: transform '%s' is not built in (ks transform list "
				"has it not; say 'transform: none' and 'planned_transform: %s')",
				s->file, s->transform_line, s->transform, s->transform);
			continue;
		}
		for (j = 0; j < s->nparams; j++) {
			const struct ks_skill_param *q = &s->params[j];
			const struct ks_xf_param *tp = NULL;

			for (k = 0; k < t->nparams; k++)
				if (!strcmp(t->params[k].name, q->name))
					tp = &t->params[k];
			if (!tp) {
				problem(l, "%s:%d: transform '%s' has no parameter '%s'", s->file,
					q->line, t->id, q->name);
				continue;
			}
			if (tp->def != q->def || tp->nvalues != q->nvalues ||
			    memcmp(tp->values, q->values, q->nvalues * sizeof(*q->values)))
				problem(l, "%s:%d: parameter '%s' differs from transform '%s' "
					"(values or default)", s->file, q->line, q->name, t->id);
		}
	}
}

static void
lint_prompts(struct lint *l, const char *dir, size_t *n)
{
	size_t i;

	*n = 0;
	for (i = 0; roles[i]; i++) {
		char *path = ks_xasprintf("%s/prompts/%s.md", dir, roles[i]);
		struct ks_buf text = KS_BUF_INIT, out = KS_BUF_INIT, err = KS_BUF_INIT;

		if (ks_fs_read(path, &text, &err) ||
		    ks_skill_render(path, text.buf, NULL, &out, &err))
			problem(l, "%s", err.buf);
		else
			(*n)++;
		ks_buf_release(&text);
		ks_buf_release(&out);
		ks_buf_release(&err);
		free(path);
	}
}

/* One translation unit holding every example, each in its namespace. */
static void
examples_tu(struct lint *l, const struct ks_skills *sk, struct ks_buf *tu)
{
	size_t i, j;
	struct ks_strv inc = KS_STRV_INIT;

	for (i = 0; i < sk->n; i++)
		for (j = 0; j < sk->v[i].nincludes; j++)
			if (ks_strv_find(&inc, sk->v[i].includes[j].text) < 0)
				ks_strv_push(&inc, sk->v[i].includes[j].text);
	ks_buf_adds(tu, "// every skill's example, as ks skills lint compiles them\n");
	for (i = 0; i < inc.n; i++)
		ks_buf_addf(tu, "#include <%s>\n", inc.v[i]);
	for (i = 0; i < sk->n; i++) {
		const struct ks_skill *s = &sk->v[i];
		const struct ks_skill_text *ex[2] = { &s->before, &s->after };

		for (j = 0; j < 2; j++) {
			if (strstr(ex[j]->text, "#include"))
				problem(l, "%s:%d: the example may not #include: list headers "
					"under 'includes'", s->file, ex[j]->line);
			if (!strstr(ex[j]->text, "__global__"))
				problem(l, "%s:%d: the example defines no __global__ kernel",
					s->file, ex[j]->line);
			ks_buf_addf(tu, "namespace ks_lint_%s_%s {\n#line %d \"%s\"\n%s}\n",
				    s->id, j ? "after" : "before", ex[j]->line, s->file,
				    ex[j]->text);
		}
	}
	ks_strv_release(&inc);
}

static int
lint_compile(struct lint *l, const struct ks_conf *conf, const struct ks_skills *sk,
	     struct ks_buf *notes)
{
	struct ks_buf tu = KS_BUF_INIT, out = KS_BUF_INIT, err = KS_BUF_INIT;
	char *self = ks_passthru_self(), *nvcc, *tmp = NULL, *src = NULL, *obj = NULL,
	     *cache = NULL, *mark = NULL;
	char hex[17];
	struct ks_proc p;
	const char *argv[8];
	int rc = 0;

	examples_tu(l, sk, &tu);
	nvcc = ks_passthru_find(conf->nvcc, self, &err);
	if (!nvcc) {
		ks_buf_addf(notes, "examples: not compiled: %s\n", err.buf);
		goto out;
	}
	{
		/* The nvcc's identity: its path, size and time, as for its version. */
		struct stat st;
		struct ks_buf key = KS_BUF_INIT;

		ks_buf_add(&key, tu.buf, tu.len);
		ks_buf_addf(&key, "\n// %s", nvcc);
		if (!stat(nvcc, &st))
			ks_buf_addf(&key, " %lld %lld", (long long)st.st_size,
				    (long long)st.st_mtime);
		ks_hash_once_hex64(key.buf, key.len, hex);
		ks_buf_release(&key);
	}
	cache = ks_fs_join(conf->dir, "lint");
	mark = ks_xasprintf("%s/examples-%s.ok", cache, hex);
	if (ks_fs_exists(mark)) {
		ks_buf_addf(notes, "examples: %zu compiled before (same text, same nvcc)\n",
			    2 * sk->n);
		goto out;
	}
	tmp = ks_xstrdup("/tmp/ks-lint-XXXXXX");
	if (!mkdtemp(tmp)) {
		ks_error_errno(&err, "cannot make a temporary directory");
		rc = -1;
		goto out;
	}
	src = ks_fs_join(tmp, "examples.cu");
	obj = ks_fs_join(tmp, "examples.o");
	if (ks_fs_write_atomic(src, tu.buf, tu.len, &err)) {
		rc = -1;
		goto out;
	}
	argv[0] = nvcc;
	argv[1] = "-arch=sm_90";
	argv[2] = "-c";
	argv[3] = src;
	argv[4] = "-o";
	argv[5] = obj;
	argv[6] = NULL;
	memset(&p, 0, sizeof(p));
	p.argv = argv;
	out.max = 1 << 20;
	p.out = &out;
	p.err_out = &out;
	p.timeout_ms = 300000;
	if (ks_proc_run(&p, &err)) {
		rc = -1;
		goto out;
	}
	if (p.status) {
		size_t i;

		/* Name the skills whose examples failed (nvcc prints FILE(LINE)). */
		for (i = 0; i < sk->n; i++) {
			struct ks_buf pat = KS_BUF_INIT;

			ks_buf_addf(&pat, "%s(", sk->v[i].file);
			if (strstr(out.buf, pat.buf))
				problem(l, "%s: an example does not compile", sk->v[i].file);
			ks_buf_release(&pat);
		}
		problem(l, "examples: nvcc -arch=sm_90 -c failed (status %d):\n%s", p.status,
			out.buf);
		goto out;
	}
	ks_buf_addf(notes, "examples: %zu compiled (nvcc -arch=sm_90 -c, one run)\n",
		    2 * sk->n);
	if (!ks_fs_mkdirs(cache, &err))
		ks_fs_write_atomic(mark, "ok\n", 3, &err);
out:
	if (rc)
		problem(l, "examples: %s", err.buf);
	if (tmp) {
		struct ks_buf e2 = KS_BUF_INIT;

		ks_fs_remove_tree(tmp, &e2);
		ks_buf_release(&e2);
	}
	ks_buf_release(&tu);
	ks_buf_release(&out);
	ks_buf_release(&err);
	free(self);
	free(nvcc);
	free(tmp);
	free(src);
	free(obj);
	free(cache);
	free(mark);
	return rc;
}

static int
cmd_lint(int argc, char **argv, struct ks_conf *conf)
{
	struct ks_skills sk = { 0 };
	struct ks_policy pol = { 0 };
	struct ks_buf err = KS_BUF_INIT, notes = KS_BUF_INIT;
	struct lint l = { 0, KS_BUF_INIT };
	int compile = 1, i;
	size_t nprompts = 0, j, unused = 0;
	char *dir = ks_cli_skills_dir(conf);

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--no-compile")) {
			compile = 0;
		} else {
			fprintf(stderr, "usage: ks skills lint [--no-compile]\n");
			free(dir);
			return KS_EXIT_USAGE;
		}
	}
	if (ks_cli_load_library(conf, &sk, &pol, &err)) {
		problem(&l, "%s", err.buf);
	} else {
		lint_inputs(&l, &pol);
		lint_transforms(&l, &sk, &notes);
		/* A skill no case allows is only reachable by name: say so. */
		for (j = 0; j < sk.n; j++) {
			size_t b, c, a;
			int used = 0;

			for (b = 0; b < pol.nbuckets; b++)
				for (c = 0; c < pol.buckets[b].ncases; c++)
					for (a = 0; a < pol.buckets[b].cases[c].nallow; a++)
						used |= !strcmp(pol.buckets[b].cases[c].allow[a],
								sk.v[j].id);
			if (!used) {
				ks_buf_addf(&notes, "%s:1: note: no case of the policy allows "
					    "'%s'\n", sk.v[j].file, sk.v[j].id);
				unused++;
			}
		}
		lint_prompts(&l, dir, &nprompts);
		if (compile)
			lint_compile(&l, conf, &sk, &notes);
		else
			ks_buf_adds(&notes, "examples: not compiled (--no-compile)\n");
	}
	fputs(notes.buf, stdout);
	fputs(l.out.buf, stdout);
	printf("%zu skills, policy %s (%zu buckets, %zu vetoes), %zu prompts: "
	       "%zu problem%s\n", sk.n, pol.file ? "loaded" : "not loaded",
	       pol.nbuckets, pol.nvetoes, nprompts, l.problems,
	       l.problems == 1 ? "" : "s");
	(void)unused;
	ks_policy_release(&pol);
	ks_skills_release(&sk);
	ks_buf_release(&err);
	ks_buf_release(&notes);
	ks_buf_release(&l.out);
	free(dir);
	return l.problems ? KS_EXIT_FAILED : 0;
}

/* --- stats --------------------------------------------------------------- */

static int
cmd_stats(int argc, char **argv, struct ks_conf *conf)
{
	struct ks_knowledge k = { 0 };
	struct ks_buf err = KS_BUF_INIT, out = KS_BUF_INIT, text = KS_BUF_INIT;
	int rc = KS_EXIT_FAILED;
	size_t i;

	if (argc == 1 || (argc == 2 && !strcmp(argv[1], "--json"))) {
		if (ks_knowledge_load(conf->dir, &k, &err))
			goto out;
		ks_knowledge_summary(&k, argc == 2, &out);
		fputs(out.buf, stdout);
		rc = 0;
	} else if (!strcmp(argv[1], "export") && argc <= 3) {
		if (ks_knowledge_load(conf->dir, &k, &err))
			goto out;
		for (i = 0; i < k.n; i++)
			ks_outcome_json(&k.v[i], &out);
		if (argc == 3 ? ks_fs_write_atomic(argv[2], out.buf, out.len, &err) :
		    fputs(out.buf, stdout) == EOF)
			goto out;
		if (argc == 3)
			fprintf(stderr, "exported %zu outcomes to %s\n", k.n, argv[2]);
		rc = 0;
	} else if (!strcmp(argv[1], "import") && argc == 3) {
		size_t added;

		text.max = 256 << 20;
		if (ks_fs_read(argv[2], &text, &err) ||
		    ks_knowledge_import(conf->dir, argv[2], text.buf, conf->lock_timeout_ms,
					&added, &err))
			goto out;
		printf("imported %zu new outcomes from %s\n", added, argv[2]);
		rc = 0;
	} else {
		fprintf(stderr, "usage: ks skills stats [--json] | export [FILE] | "
			"import FILE\n");
		return KS_EXIT_USAGE;
	}
out:
	if (rc)
		fprintf(stderr, "ks: error: %s\n", err.buf);
	ks_knowledge_release(&k);
	ks_buf_release(&err);
	ks_buf_release(&out);
	ks_buf_release(&text);
	return rc;
}

int
ks_cmd_skills(int argc, char **argv, struct ks_conf *conf)
{
	static const struct {
		const char *name;
		int (*fn)(int, char **, struct ks_conf *);
	} subs[] = {
		{ "list", cmd_list }, { "show", cmd_show }, { "prompt", cmd_prompt },
		{ "lint", cmd_lint }, { "stats", cmd_stats },
	};
	size_t i;

	if (argc >= 2)
		for (i = 0; i < KS_ARRAY_SIZE(subs); i++)
			if (!strcmp(argv[1], subs[i].name))
				return subs[i].fn(argc - 1, argv + 1, conf);
	fprintf(stderr, "usage: ks skills list|show ID|prompt ROLE [ID]|lint|stats\n");
	return KS_EXIT_USAGE;
}
