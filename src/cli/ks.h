/*
 * ks: the engine's command line. One function per command, dispatched from
 * a table (git's commands[]): each takes argc/argv after the command name
 * and returns the process exit status (0, or KS_EXIT_* from util.h).
 * Commands print their results on stdout and errors as "ks: error: ...".
 * May include: libc, core/, every engine module.
 */
#ifndef KS_CLI_KS_H
#define KS_CLI_KS_H

#include <stddef.h>

#include "../analysis/inventory.h"
#include "../cache/mono.h"

struct cJSON;
struct ks_buf;
struct ks_conf;
struct ks_inventory;

int ks_main(int argc, char **argv);

int ks_cmd_analyze(int argc, char **argv, struct ks_conf *conf);
int ks_cmd_evidence(int argc, char **argv, struct ks_conf *conf);
int ks_cmd_doctor(int argc, char **argv, struct ks_conf *conf);
int ks_cmd_builds(int argc, char **argv, struct ks_conf *conf);
int ks_cmd_cache(int argc, char **argv, struct ks_conf *conf);
int ks_cmd_capture(int argc, char **argv, struct ks_conf *conf);
/* capture.c: run cmd (argv, PATH searched) with this process's stdio, ^C
 * left to it as system(3) does; its exit status, 128 + signal, 127 when it
 * cannot be run. */
int ks_cli_run_program(char **cmd);
int ks_cmd_captures(int argc, char **argv, struct ks_conf *conf);
int ks_cmd_replay(int argc, char **argv, struct ks_conf *conf);
int ks_cmd_shim(int argc, char **argv, struct ks_conf *conf);
int ks_cmd_transform(int argc, char **argv, struct ks_conf *conf);
int ks_cmd_try(int argc, char **argv, struct ks_conf *conf);

/* analyze.c: the inventory of the TU that build record `record` (or, when
 * NULL, `file` with the nvcc arguments nvcc_argv) compiled, parsed for
 * `arch` (NULL: the build's newest); *arch_used gets the arch parsed for. */
int ks_analyze_inventory(const char *record, const char *file, char **nvcc_argv,
			 int nvcc_argc, const char *arch, struct ks_conf *conf,
			 struct ks_inventory *inv, char **arch_used,
			 struct ks_buf *err);
/*
 * instance.c: the instance view of one instance of template kernel `k`
 * (cache/mono.h), analyzed as the build (`record`, or `file` with its
 * nvcc arguments) analyzes `source`, whose text is `text`: the plain copy
 * `k` the transforms read, in `mono.text`; `args`, the instance's
 * template arguments for the rewriter; `mono.aliases`, what every variant
 * of the copy needs first among its helpers. `name` picks the instance
 * (mangled or displayed); NULL or no match picks the only one, and a
 * template with several is an error that names one.
 */
struct ks_inst_view_in {
	const char *record, *file;
	char **nvcc_argv;
	int nvcc_argc;
	const char *arch;
	struct ks_conf *conf;
	const char *source;
	const char *text;
	size_t len;
	const struct ks_kernel *k;	/* the template */
	const char *name;
};
struct ks_inst_view {
	struct ks_inventory inv;	/* of the view's text */
	const struct ks_kernel *k;	/* the plain copy in it */
	struct ks_mono_view mono;
	char *args;			/* "float, 64" */
	const char *mangled;		/* the instance's, borrowed from `k` */
};
int ks_inst_view_make(const struct ks_inst_view_in *in, struct ks_inst_view *v,
		      struct ks_buf *err);
void ks_inst_view_release(struct ks_inst_view *v);
/* A variant of the copy as one of the instance: the aliases first among
 * its helpers. */
int ks_inst_view_variant(const struct ks_inst_view *v, struct ks_buf *variant,
			 struct ks_buf *err);

/*
 * instance.c: a kernel defined in a header the TU includes (`in->k`, not
 * in the main file), seen by the transforms in the TU's text with that
 * header brought in (cache/expand.h): `text` and `inv` (the source's text
 * and analysis, which `in` reads) are replaced by that text and its
 * analysis (the source's path kept), and *k by `kernel` there, in the
 * main file. -1 with the reason (the header comes through another
 * header, is included twice, ...), `inv` and `text` then as they were
 * unless the kernel was not found in the new text.
 */
int ks_header_view_apply(const struct ks_inst_view_in *in, const char *kernel,
			 struct ks_inventory *inv, struct ks_buf *text,
			 const struct ks_kernel **k, struct ks_buf *err);

/* The same with the file `as` parsed in the source's place (the
 * source's directory searched first for its quoted includes): another
 * text of the same TU, such as a template instance's view. */
int ks_analyze_inventory_as(const char *record, const char *file, char **nvcc_argv,
			    int nvcc_argc, const char *arch, const char *as,
			    struct ks_conf *conf, struct ks_inventory *inv,
			    char **arch_used, struct ks_buf *err);

/*
 * captures.c: check the captures of `dirs` (their originals replayed, the
 * verdicts kept beside them) unless `check` is 0, then append the
 * eligibility table of `dirs` to `out`. Without a GPU it says so in `out`
 * and checks nothing. Returns the number of captures that do not reproduce.
 */
size_t ks_captures_eligibility(const struct ks_conf *conf, const char *const *dirs,
			       size_t n, int check, struct ks_buf *out);

int ks_cmd_skills(int argc, char **argv, struct ks_conf *conf);
int ks_cmd_plan(int argc, char **argv, struct ks_conf *conf);

/* skills.c: the skills folder (KS_SKILLS, else beside ks, else installed). */
struct ks_skills;
struct ks_policy;
char *ks_cli_skills_dir(const struct ks_conf *conf);
/* Load the skills and, when `pol` is not NULL, the policy over them. */
int ks_cli_load_library(const struct ks_conf *conf, struct ks_skills *sk,
			struct ks_policy *pol, struct ks_buf *err);
/*
 * plan.c, pure: fill the policy's values from the JSON of one kernel of
 * `ks analyze --json` (its features and params), its `ks evidence`
 * features, a metrics object, the launch's block and grid ([x, y, z]) and
 * whether the build uses fast math (-1: not known). Each may be NULL.
 */
struct ks_policy_values;
void ks_cli_plan_values(const struct ks_policy *p, struct ks_policy_values *v,
			const struct cJSON *kernel, const struct cJSON *evidence,
			const struct cJSON *metrics, const struct cJSON *block,
			const struct cJSON *grid, int fast_math);
/* The names of the kernel and build facts ks plan fills, NULL-ended. */
extern const char *const ks_cli_kernel_facts[];
/* plan.c: run `ks ARGS...` (args[0] is the command) and parse its JSON. */
struct ks_strv;
struct cJSON *ks_cli_self_json(struct ks_strv *args, struct ks_buf *err);
/* plan.c: the `ks evidence --json` features of `mangled` on `arch` (NULL:
 * the newest), or NULL. */
const struct cJSON *ks_cli_evidence_of(const struct cJSON *ev, const char *mangled,
				       const char *arch);

int ks_cmd_optimize(int argc, char **argv, struct ks_conf *conf);
/* optimize.c: ks optimize; need_gpu 0 skips the GPU check (the tests,
 * whose ks-replay is a fake). */
int ks_cli_optimize(int argc, char **argv, struct ks_conf *conf, int need_gpu);
int ks_cmd_explain(int argc, char **argv, struct ks_conf *conf);
/* report.c: ks report */
int ks_cmd_report(int argc, char **argv, struct ks_conf *conf);
/* gpulock.c: ks gpu-lock */
int ks_cmd_gpu_lock(int argc, char **argv, struct ks_conf *conf);

#endif
