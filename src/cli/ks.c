#include "ks.h"

#include <stdio.h>
#include <string.h>

#include "../analysis/libclang.h"
#include "../core/buf.h"
#include "../capture/capture.h"
#include "../core/conf.h"
#include "../core/log.h"
#include "../core/stats.h"
#include "../core/util.h"
#include "version.h"

static int cmd_help(int argc, char **argv, struct ks_conf *conf);
static int cmd_version(int argc, char **argv, struct ks_conf *conf);
static int cmd_config(int argc, char **argv, struct ks_conf *conf);
static int cmd_stats(int argc, char **argv, struct ks_conf *conf);

static const struct command {
	const char *name;
	int (*fn)(int argc, char **argv, struct ks_conf *conf);
	const char *usage;
	const char *help;
} commands[] = {
	{ "analyze", ks_cmd_analyze, "analyze FILE.cu|--record R",
	  "kernels, launches, static features and keys of a CUDA file" },
	{ "builds", ks_cmd_builds, "builds [--json]",
	  "list the recorded CUDA compiles" },
	{ "cache", ks_cmd_cache, "cache stats|list|show K|verify|rm K|clear|export D|import D",
	  "the verified variants ks-nvcc compiles" },
	{ "capture", ks_cmd_capture, "capture [opts] -- CMD",
	  "run CMD and record chosen kernel launches" },
	{ "captures", ks_cmd_captures, "captures [--json]",
	  "list the captured launches" },
	{ "config", cmd_config, "config",
	  "print every setting with where it came from" },
	{ "doctor", ks_cmd_doctor, "doctor",
	  "check nvcc, the CUDA toolkit, libclang, the GPU, CUPTI" },
	{ "evidence", ks_cmd_evidence, "evidence [--json] FILE.cu [-- ARGS]",
	  "what the compiler says about each kernel" },
	{ "explain", ks_cmd_explain, "explain TASK [--json]",
	  "the decision trail of an optimize task, round by round" },
	{ "gpu-lock", ks_cmd_gpu_lock, "gpu-lock [--shared] -- CMD",
	  "run CMD with the GPU to itself, in turn with other ks" },
	{ "help", cmd_help, "help", "this text" },
	{ "optimize", ks_cmd_optimize, "optimize [CAPTURE|REGEX...] [opts]",
	  "optimize captured kernels and cache the verified variants" },
	{ "plan", ks_cmd_plan, "plan CAPTURE|FILE.cu[:KERNEL]",
	  "the ranked skills the policy allows for each kernel" },
	{ "replay", ks_cmd_replay, "replay CAPTURE [opts]",
	  "check the original (and a candidate) on a capture" },
	{ "report", ks_cmd_report, "report [RESULTS|DIR] [--html FILE] [--json]",
	  "the results of a bench run or of the optimize tasks: table, JSON, HTML" },
	{ "shim", ks_cmd_shim, "shim --capture C",
	  "print the entry shim ks-replay launches through" },
	{ "skills", ks_cmd_skills, "skills list|show ID|lint|stats",
	  "the skill library, its checks and what it learned" },
	{ "stats", cmd_stats, "stats [-z]",
	  "print the counters (-z: zero them)" },
	{ "transform", ks_cmd_transform,
	  "transform CAPTURE|FILE.cu:KERNEL --skill ID",
	  "print a builtin transform's variant of a kernel, or why it declines" },
	{ "try", ks_cmd_try, "try CAPTURE --skill ID [--budget N]",
	  "search a transform's parameters with the Reviewer, report the best" },
	{ "version", cmd_version, "version", "print the version" },
};

static int
cmd_help(int argc, char **argv, struct ks_conf *conf)
{
	size_t i;

	(void)argc;
	(void)argv;
	(void)conf;
	printf("usage: ks <command> [<args>]\n\n"
	       "ks is the engine of ks-nvcc, the nvcc drop-in that makes CUDA\n"
	       "kernels faster. Build through ks-nvcc; then use these commands.\n\n");
	for (i = 0; i < KS_ARRAY_SIZE(commands); i++)
		printf("  ks %-36s %s\n", commands[i].usage, commands[i].help);
	printf("\nEvery KS_* variable and exit code: docs/MANUAL.md.\n");
	return 0;
}

static int
cmd_version(int argc, char **argv, struct ks_conf *conf)
{
	(void)argc;
	(void)argv;
	(void)conf;
	printf("ks %s\n", KS_VERSION);
	return 0;
}

static int
cmd_config(int argc, char **argv, struct ks_conf *conf)
{
	struct ks_buf out = KS_BUF_INIT;

	(void)argv;
	if (argc > 1) {
		fprintf(stderr, "usage: ks config\n");
		return KS_EXIT_USAGE;
	}
	ks_conf_describe(conf, &out);
	if (!strcmp(conf->capture_max_bytes, "auto"))
		ks_capture_describe_auto(&out);
	fputs(out.buf, stdout);
	ks_buf_release(&out);
	return 0;
}

static int
cmd_stats(int argc, char **argv, struct ks_conf *conf)
{
	struct ks_buf out = KS_BUF_INIT, err = KS_BUF_INIT;
	int rc = 0;

	if (argc == 2 && !strcmp(argv[1], "-z")) {
		if (ks_stats_zero(conf->dir, conf->lock_timeout_ms, &err)) {
			fprintf(stderr, "ks: error: %s\n", err.buf);
			rc = KS_EXIT_FAILED;
		}
	} else if (argc > 1) {
		fprintf(stderr, "usage: ks stats [-z]\n");
		rc = KS_EXIT_USAGE;
	} else if (ks_stats_read(conf->dir, &out, &err)) {
		fprintf(stderr, "ks: error: %s\n", err.buf);
		rc = KS_EXIT_FAILED;
	} else {
		fputs(out.buf, stdout);
	}
	ks_buf_release(&out);
	ks_buf_release(&err);
	return rc;
}

int
ks_main(int argc, char **argv)
{
	struct ks_conf conf;
	struct ks_buf err = KS_BUF_INIT;
	const char *name;
	size_t i;
	int rc = KS_EXIT_USAGE;

	ks_progname = "ks";
	ks_conf_init(&conf);
	if (ks_conf_load(&conf, &err))
		fprintf(stderr, "ks: warning: %s\n", err.buf);
	ks_log_open(conf.log, conf.debug);
	ks_libclang_configure(conf.libclang);
	name = argc > 1 ? argv[1] : "help";
	if (!strcmp(name, "--version") || !strcmp(name, "-V"))
		name = "version";
	else if (!strcmp(name, "--help") || !strcmp(name, "-h"))
		name = "help";
	for (i = 0; i < KS_ARRAY_SIZE(commands); i++) {
		if (!strcmp(commands[i].name, name)) {
			rc = commands[i].fn(argc > 1 ? argc - 1 : 1,
					    argc > 1 ? argv + 1 : argv, &conf);
			break;
		}
	}
	if (i == KS_ARRAY_SIZE(commands))
		fprintf(stderr, "ks: error: unknown command '%s' (see 'ks help')\n",
			name);
	ks_conf_release(&conf);
	ks_buf_release(&err);
	return rc;
}
