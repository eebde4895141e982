#include "ksnvcc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../src/core/buf.h"
#include "../src/core/conf.h"
#include "../src/core/fs.h"
#include "../src/core/log.h"
#include "../src/core/stats.h"
#include "../src/core/strv.h"
#include "../src/core/util.h"
#include "../src/nvcc/args.h"
#include "../src/nvcc/nvccver.h"
#include "../src/nvcc/onecmd.h"
#include "../src/nvcc/passthru.h"
#include "../src/nvcc/record.h"
#include "subst.h"

int
ks_nvcc_is_launcher_form(const char *arg1, int is_exec)
{
	const char *base;

	if (!arg1 || arg1[0] == '-' || !is_exec)
		return 0;
	base = ks_basename(arg1);
	/*
	 * "nvcc", "nvcc-13.0", "x86_64-linux-nvcc": any name holding nvcc,
	 * unless nvcc would take it as an input (gcc makes shared libraries
	 * executable: libnvcc_helpers.so, libnvcc.so.1 are link inputs).
	 */
	return strstr(base, "nvcc") != NULL &&
	       ks_args_lang_of(base) == KS_LANG_OTHER &&
	       strstr(base, ".so.") == NULL;
}

static int
split_env(const char *name, struct ks_strv *out, struct ks_buf *err)
{
	const char *v = getenv(name);

	if (!v || !*v)
		return 0;
	if (ks_args_split_env(v, out, err))
		return ks_error(err, "in %s", name);
	return 0;
}

/* "passthru-<reason>": the counter of a classifier reason. */
static const char *
passthru_reason(const char *reason)
{
	static char name[64];

	snprintf(name, sizeof(name), "passthru-%s", reason ? reason : "unknown");
	return name;
}

/*
 * JSON holds only UTF-8: a record of a command whose words are not would
 * not name the same bytes, so such a compile is not recorded.
 */
static int
check_utf8(const char *cwd, const char *real, const struct ks_strv *argv,
	   struct ks_buf *err)
{
	const char *env[] = { getenv("NVCC_PREPEND_FLAGS"),
			      getenv("NVCC_APPEND_FLAGS") };
	size_t i;

	if (!ks_utf8_valid(cwd, strlen(cwd)))
		return ks_error(err, "the working directory is not valid UTF-8");
	if (!ks_utf8_valid(real, strlen(real)))
		return ks_error(err, "the nvcc path is not valid UTF-8");
	for (i = 0; i < argv->n; i++)
		if (!ks_utf8_valid(argv->v[i], strlen(argv->v[i])))
			return ks_error(err, "argument %zu is not valid UTF-8",
					i + 1);
	for (i = 0; i < KS_ARRAY_SIZE(env); i++)
		if (env[i] && !ks_utf8_valid(env[i], strlen(env[i])))
			return ks_error(err, "NVCC_%s_FLAGS is not valid UTF-8",
					i ? "APPEND" : "PREPEND");
	return 0;
}

/* What every record of one nvcc command shares. */
struct cmd {
	const struct ks_conf *conf;
	struct ks_strv pre, expanded, app;	/* the words nvcc reads */
	struct ks_record_info ri;
};

/*
 * Record the CUDA source a->inputs[k] of a one-command build: its compile
 * alone (onecmd.h), classified again as a -c build would be, handed to
 * `sub` as one of its sources. Returns 0, or -1 with the reason in `err`.
 */
static int
record_source(struct cmd *c, const struct ks_args *a, const struct ks_strv *full,
	      size_t k, struct ks_subst *sub, struct ks_buf *err)
{
	struct ks_strv one = KS_STRV_INIT, onefull = KS_STRV_INIT;
	struct ks_args s;
	struct ks_record_info ri = c->ri;
	const char *why = NULL;
	long at = ks_onecmd_input_word((const char *const *)full->v, full->n, k);
	size_t src;
	int rc = -1;

	ks_args_init(&s);
	if (at < (long)c->pre.n || at >= (long)(c->pre.n + c->expanded.n)) {
		ks_error(err, "source '%s' comes from NVCC_PREPEND_FLAGS or "
			 "NVCC_APPEND_FLAGS", a->inputs[k].path);
		goto out;
	}
	src = (size_t)at - c->pre.n;
	if (ks_onecmd_compile_argv((const char *const *)c->expanded.v,
				   c->expanded.n, src, &one, err))
		goto out;
	ks_strv_pushv(&onefull, (const char *const *)c->pre.v, c->pre.n);
	ks_strv_pushv(&onefull, (const char *const *)one.v, one.n);
	ks_strv_pushv(&onefull, (const char *const *)c->app.v, c->app.n);
	if (ks_args_classify(&onefull, &s, err))
		goto out;
	/* The compile alone must be one ks records, of the same file. */
	if (!ks_args_eligible(&s, &why) ||
	    strcmp(s.inputs[0].path, a->inputs[k].path)) {
		ks_error(err, "the compile of '%s' alone is not a single-source "
			 "CUDA compile (%s)", a->inputs[k].path,
			 why ? why : "another input");
		goto out;
	}
	ri.argv = &one;
	ri.mode = ks_args_mode_name(a->mode);
	ri.command_argv = &c->expanded;
	ri.source_index = (long)src;
	ri.output = a->output;
	ri.depfile = a->depfile;
	rc = ks_record_write(c->conf->dir, &s, &ri, err);
	if (!rc) {
		struct ks_subst_source *one_src = ks_subst_add_source(sub);
		char *name = ks_record_name_for(&s, c->ri.cwd, a->output);

		ks_log("recorded %s (one-command build)", a->inputs[k].path);
		one_src->word = src;
		one_src->a = s;
		ks_args_init(&s);
		one_src->argv = one;
		ks_strv_init(&one);
		one_src->record = ks_xasprintf("%s/builds/%s", c->conf->dir, name);
		free(name);
	}
out:
	ks_args_release(&s);
	ks_strv_release(&one);
	ks_strv_release(&onefull);
	return rc;
}

/* Record every CUDA source of a one-command build. The counter. */
static const char *
record_command(struct cmd *c, const struct ks_args *a,
	       const struct ks_strv *full, struct ks_subst *sub,
	       struct ks_buf *err)
{
	const char *reason = "one-command";
	size_t k;

	for (k = 0; k < a->ninputs; k++) {
		if (a->inputs[k].lang != KS_LANG_CU)
			continue;
		ks_buf_reset(err);
		if (record_source(c, a, full, k, sub, err)) {
			ks_log("no record: %s", err->buf);
			reason = "record-failed";
		}
	}
	return reason;
}

/*
 * Decide and record. Returns the stats counter naming the outcome. Never
 * fails: every problem becomes a pass-through reason.
 */
static const char *
act(const struct ks_conf *conf, const char *real, int argc, char **argv,
    const char *conf_err, struct ks_subst *sub)
{
	struct ks_strv raw = KS_STRV_INIT, full = KS_STRV_INIT;
	struct cmd c;
	struct ks_args a;
	struct ks_buf err = KS_BUF_INIT, ver = KS_BUF_INIT;
	const char *reason = NULL;
	char *cwd = NULL;
	int i, command = 0;

	memset(&c, 0, sizeof(c));
	c.conf = conf;
	ks_strv_init(&c.pre);
	ks_strv_init(&c.expanded);
	ks_strv_init(&c.app);
	ks_args_init(&a);
	if (conf->disable)
		return "passthru-disabled";
	if (getenv(KS_SAFEGUARD_ENV) && *getenv(KS_SAFEGUARD_ENV))
		return "passthru-nested";
	if (conf_err) {
		ks_log("configuration error, passing through: %s", conf_err);
		return "passthru-config-error";
	}
	/* nvcc reads NVCC_PREPEND_FLAGS + argv + NVCC_APPEND_FLAGS. */
	for (i = 0; i < argc; i++)
		ks_strv_push(&raw, argv[i]);
	if (ks_args_expand(&raw, &c.expanded, &err) ||
	    split_env("NVCC_PREPEND_FLAGS", &c.pre, &err) ||
	    split_env("NVCC_APPEND_FLAGS", &c.app, &err)) {
		reason = "passthru-unclassified";
		goto out;
	}
	ks_strv_pushv(&full, (const char *const *)c.pre.v, c.pre.n);
	ks_strv_pushv(&full, (const char *const *)c.expanded.v, c.expanded.n);
	ks_strv_pushv(&full, (const char *const *)c.app.v, c.app.n);
	if (ks_args_classify(&full, &a, &err)) {
		reason = "passthru-unclassified";
		goto out;
	}
	if (!ks_args_eligible(&a, &reason)) {
		/* A compile and link (or -lib) in one command: its CUDA
		 * sources are recorded one by one. */
		if (a.mode == KS_MODE_COMPILE_LINK || a.mode == KS_MODE_LIB)
			command = ks_args_eligible_command(&a, &reason);
		if (!command) {
			ks_log("not a single-source CUDA compile (%s)", reason);
			reason = passthru_reason(reason);
			goto out;
		}
	}
	reason = command ? "one-command" : "compile";
	if (!conf->record)
		goto out;
	cwd = ks_fs_getcwd();
	if (cwd && check_utf8(cwd, real, &c.expanded, &err)) {
		ks_log("no record: %s", err.buf);
		reason = "record-not-utf8";
		goto out;
	}
	if (!cwd || ks_nvccver_get(conf->dir, real, &ver, &err)) {
		ks_log("no record: %s", cwd ? err.buf : "cannot read the cwd");
		reason = "record-failed";
		goto out;
	}
	c.ri.cwd = cwd;
	c.ri.nvcc = real;
	c.ri.nvcc_version = ver.buf;
	c.ri.argv = &c.expanded;
	c.ri.prepend_flags = getenv("NVCC_PREPEND_FLAGS");
	c.ri.append_flags = getenv("NVCC_APPEND_FLAGS");
	c.ri.time = (long long)time(NULL);
	if (command) {
		reason = record_command(&c, &a, &full, sub, &err);
	} else if (ks_record_write(conf->dir, &a, &c.ri, &err)) {
		ks_log("no record: %s", err.buf);
		reason = "record-failed";
	} else {
		char *name = ks_record_name(&a, cwd);

		ks_log("recorded %s", a.inputs[0].path);
		sub->record = ks_xasprintf("%s/builds/%s", conf->dir, name);
		free(name);
	}
	/* Substitution (subst.h) takes the classification over; a
	 * one-command build's once each of its CUDA sources is recorded. */
	if (conf->subst && cwd && ver.len &&
	    (!strcmp(reason, "compile") || !strcmp(reason, "one-command") ||
	     (!command && !strcmp(reason, "record-failed")))) {
		sub->a = a;
		ks_args_init(&a);
		ks_strv_pushv(&sub->argv, (const char *const *)c.expanded.v, c.expanded.n);
		sub->cwd = cwd;
		cwd = NULL;
		sub->nvcc_version = ks_buf_detach(&ver, NULL);
		sub->ready = 1;
	}
out:
	/* Logged before `err` is released: the message is the reason. */
	if (reason && !strcmp(reason, "passthru-unclassified"))
		ks_log("cannot classify the command, passing through: %s", err.buf);
	free(cwd);
	ks_buf_release(&ver);
	ks_buf_release(&err);
	ks_args_release(&a);
	ks_strv_release(&raw);
	ks_strv_release(&c.pre);
	ks_strv_release(&c.expanded);
	ks_strv_release(&c.app);
	ks_strv_release(&full);
	return reason;
}

int
ks_nvcc_main(int argc, char **argv)
{
	struct ks_conf conf;
	struct ks_buf err = KS_BUF_INIT, serr = KS_BUF_INIT;
	char *self, *real;
	char **args;
	const char *reason, *names[2];
	struct ks_subst sub;
	int nargs, conf_failed, status;

	ks_progname = "ks-nvcc";
	ks_conf_init(&conf);
	conf_failed = ks_conf_load(&conf, &err);
	ks_log_open(conf.log, conf.debug);
	self = ks_passthru_self();

	if (argc >= 2 && ks_nvcc_is_launcher_form(argv[1], ks_fs_is_exec(argv[1])) &&
	    ks_passthru_usable(argv[1], self)) {
		real = ks_xstrdup(argv[1]);
		args = argv + 1;
	} else {
		struct ks_buf ferr = KS_BUF_INIT;

		/* "ks-nvcc ks-nvcc args" (ks-nvcc given as its own compiler). */
		if (argc >= 2 && ks_nvcc_is_launcher_form(argv[1], 1)) {
			char *rp = ks_fs_realpath(argv[1]);
			if (rp && self && !strcmp(rp, self))
				argv++, argc--;
			free(rp);
		}
		real = ks_passthru_find(conf.nvcc, self, &ferr);
		if (!real)
			ks_die(getenv(KS_SAFEGUARD_ENV) ? KS_EXIT_RECURSION
							: KS_EXIT_NO_NVCC,
			       "%s", ferr.buf);
		ks_buf_release(&ferr);
		args = argv;
	}
	nargs = (int)(argc - (args - argv));
	ks_log("real nvcc %s, %d arguments", real, nargs - 1);

	ks_subst_init(&sub);
	reason = act(&conf, real, nargs - 1, args + 1,
		     conf_failed ? err.buf : NULL, &sub);
	if (!conf.disable) {
		names[0] = "invocations";
		names[1] = reason;
		if (ks_stats_add(conf.dir, names, 2, 1, conf.lock_timeout_ms, &serr))
			ks_log("stats not updated: %s", serr.buf);
	}
	/* -1: the original is to be compiled; else ks-nvcc's exit status. */
	status = ks_subst_run(&conf, real, &sub);
	ks_subst_release(&sub);
	if (status >= 0) {
		free(real);
		free(self);
		ks_conf_release(&conf);
		ks_buf_release(&err);
		ks_buf_release(&serr);
		return status;
	}
	ks_passthru_exec(real, args);
	ks_die(KS_EXIT_EXEC, "cannot execute '%s'", real);
}
