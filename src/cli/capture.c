/*
 * ks capture: run a program unchanged with libks-capture.so injected
 * (CUDA_INJECTION64_PATH), then finish each capture it wrote: the build
 * record of the kernel's TU and, from that TU's analysis, the parameters'
 * spelled types (the hook into src/analysis: `ks analyze --record R
 * --json`, run as a child so that a missing libclang costs only the types).
 *
 *   ks capture [--kernel REGEX] [--launch N|first|all|distinct[:N]]
 *              [--max-bytes B|auto]
 *              [--max-launches N] [--globals N1,N2|--no-globals]
 *              [--no-types] [--no-check] -- PROGRAM ARGS...
 *   ks captures [--check] [--json]
 *
 * The program keeps its stdin, stdout and stderr; ks capture exits with its
 * status (128 + signal when a signal ended it). What ks adds goes to stderr
 * after the program ended: one line per capture, skip or failure, then the
 * eligibility table (each new capture's original replayed; --no-check
 * skips it), which `ks captures` prints again.
 */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../capture/capture.h"
#include "../core/buf.h"
#include "../core/conf.h"
#include "../core/fs.h"
#include "../core/log.h"
#include "../core/proc.h"
#include "../core/strv.h"
#include "../core/toolkit.h"
#include "../core/util.h"
#include "../review/build.h"
#include "../review/eligibility.h"
#include "../review/review.h"
#include "ks.h"

#define USAGE                                                                 \
	"usage: ks capture [--kernel REGEX] [--launch N|first|all|distinct[:N]]\n" \
	"                  [--max-bytes B|auto] [--max-launches N]\n"           \
	"                  [--globals N1,N2|--no-globals]\n"                    \
	"                  [--no-types] [--no-check] -- PROGRAM ARGS...\n"

struct capture_opts {
	const char *kernel, *launch, *max_bytes, *globals;
	int max_launches, no_globals, no_types;
	int no_check;		/* no eligibility table after the program */
	char **cmd;
};

/* PROGRAM as execvp would find it, for cuobjdump. */
static char *
resolve_program(const char *prog)
{
	if (strchr(prog, '/'))
		return ks_fs_realpath(prog);
	return ks_fs_which(prog, getenv("PATH"), NULL, NULL);
}

static char *
find_cuobjdump(const struct ks_conf *conf)
{
	return ks_toolkit_program("cuobjdump",
				  ks_conf_path_setting(conf, KS_CONF_CUOBJDUMP),
				  conf->nvcc && *conf->nvcc ? conf->nvcc : NULL);
}

/* The program's __device__/__constant__ variables, by cuobjdump. */
static void
program_globals(const struct ks_conf *conf, const char *prog, struct ks_buf *list)
{
	char *exe = resolve_program(prog), *tool = find_cuobjdump(conf);
	struct ks_strv names = KS_STRV_INIT;
	struct ks_buf out = KS_BUF_INIT, err = KS_BUF_INIT;
	const char *argv[4];
	struct ks_proc p;
	size_t i;

	if (!exe || !tool) {
		ks_log("capture: no globals: %s", !exe ? "program not found"
						      : "no cuobjdump");
		goto out;
	}
	argv[0] = tool;
	argv[1] = "-symbols";
	argv[2] = exe;
	argv[3] = NULL;
	memset(&p, 0, sizeof(p));
	p.argv = argv;
	out.max = 16 << 20;
	p.out = &out;
	p.err_out = &err;
	p.timeout_ms = 60000;
	if (ks_proc_run(&p, &err) || p.status) {
		ks_log("capture: cuobjdump -symbols %s failed: %s", exe, err.buf);
		goto out;
	}
	ks_capture_parse_symbols(out.buf, &names);
	for (i = 0; i < names.n; i++)
		ks_buf_addf(list, "%s%s", i ? "," : "", names.v[i]);
out:
	ks_strv_release(&names);
	ks_buf_release(&out);
	ks_buf_release(&err);
	free(exe);
	free(tool);
}

/*
 * The hook into the analysis: the spelled parameter types of `kernel` in
 * the TU of `record`, or nothing. Template instances keep unknown types:
 * their parameters are spelled in terms of the template's parameters.
 */
static void
analysis_types(const char *record, struct ks_capture *c)
{
	char *self = ks_fs_realpath("/proc/self/exe");
	const char *argv[6];
	struct ks_buf out = KS_BUF_INIT, err = KS_BUF_INIT;
	const cJSON *k, *ps, *pp;
	cJSON *o = NULL;
	struct ks_proc p;
	const char **types = NULL;
	size_t i;

	if (!self)
		goto out;
	argv[0] = self;
	argv[1] = "analyze";
	argv[2] = "--record";
	argv[3] = record;
	argv[4] = "--json";
	argv[5] = NULL;
	memset(&p, 0, sizeof(p));
	p.argv = argv;
	out.max = 64 << 20;
	p.out = &out;
	p.err_out = &err;
	p.timeout_ms = 300000;
	if (ks_proc_run(&p, &err) || p.status) {
		ks_log("capture: no types: ks analyze --record %s: %s", record, err.buf);
		goto out;
	}
	o = cJSON_Parse(out.buf);
	cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(o, "kernels")) {
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(k, "mangled");

		if (!cJSON_IsString(m) || strcmp(m->valuestring, c->kernel))
			continue;
		ps = cJSON_GetObjectItemCaseSensitive(k, "params");
		if (!cJSON_IsArray(ps) || (size_t)cJSON_GetArraySize(ps) != c->nparams)
			break;
		types = ks_xcalloc(c->nparams + 1, sizeof(*types));
		i = 0;
		cJSON_ArrayForEach(pp, ps) {
			const cJSON *t = cJSON_GetObjectItemCaseSensitive(pp, "type");
			const cJSON *sz = cJSON_GetObjectItemCaseSensitive(pp, "size");

			/* A size that disagrees with the launch: trust neither. */
			if (!cJSON_IsString(t) || !cJSON_IsNumber(sz) ||
			    sz->valuedouble != (double)c->params[i].size) {
				free(types);
				types = NULL;
				break;
			}
			types[i++] = t->valuestring;
		}
		break;
	}
	if (types)
		ks_capture_apply_types(c, types, c->nparams);
out:
	free(types);
	cJSON_Delete(o);
	ks_buf_release(&out);
	ks_buf_release(&err);
	free(self);
}

/*
 * Record, demangled name and types for one fresh capture; failures only
 * cost the extras.
 */
static void
finish(const struct ks_conf *conf, const char *dir, int types)
{
	struct ks_capture c;
	struct ks_build_rec rec;
	struct ks_buf err = KS_BUF_INIT;
	int have_rec;

	memset(&rec, 0, sizeof(rec));
	if (ks_capture_load(dir, &c, &err)) {
		fprintf(stderr, "ks: warning: %s\n", err.buf);
		goto out;
	}
	have_rec = !ks_build_rec_find(conf->dir, c.kernel, &rec, &err);
	if (!have_rec)
		ks_log("capture: %s", err.buf);
	/* The program could not demangle (no libstdc++ in reach): cu++filt. */
	if (!c.demangled)
		c.demangled = ks_review_demangle(have_rec ? rec.nvcc : conf->nvcc,
						 c.kernel);
	if (have_rec) {
		free(c.record);
		c.record = ks_xstrdup(rec.path);
		if (types)
			analysis_types(rec.path, &c);
	}
	ks_buf_reset(&err);
	if (ks_capture_save(dir, &c, &err))
		fprintf(stderr, "ks: warning: %s\n", err.buf);
	ks_capture_release(&c);
out:
	ks_build_rec_release(&rec);
	ks_buf_release(&err);
}

int
ks_cli_run_program(char **cmd)
{
	struct sigaction ign, old_int, old_quit;
	pid_t pid;
	int status = 0;

	/* As system(3) does: ^C goes to the program, which decides. */
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	pid = fork();
	if (pid == 0) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGQUIT, &old_quit, NULL);
		execvp(cmd[0], cmd);
		fprintf(stderr, "ks: error: cannot run '%s': %s\n", cmd[0],
			strerror(errno));
		_exit(127);
	}
	if (pid < 0) {
		fprintf(stderr, "ks: error: fork: %s\n", strerror(errno));
		status = -1;
	} else {
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	if (status < 0)
		return KS_EXIT_FAILED;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

static int
parse_capture_args(int argc, char **argv, struct capture_opts *o,
		   const struct ks_conf *conf)
{
	int i;

	memset(o, 0, sizeof(o[0]));
	o->max_bytes = conf->capture_max_bytes;
	o->max_launches = conf->capture_max_launches;
	o->launch = KS_CAPTURE_LAUNCH_DEFAULT;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--")) {
			o->cmd = argv + i + 1;
			return *o->cmd ? 0 : -1;
		} else if (!strcmp(a, "--no-globals")) {
			o->no_globals = 1;
		} else if (!strcmp(a, "--no-types")) {
			o->no_types = 1;
		} else if (!strcmp(a, "--no-check")) {
			o->no_check = 1;
		} else if (!v) {
			return -1;
		} else if (!strcmp(a, "--kernel")) {
			o->kernel = v, i++;
		} else if (!strcmp(a, "--launch")) {
			o->launch = v, i++;
		} else if (!strcmp(a, "--max-bytes")) {
			o->max_bytes = v, i++;
		} else if (!strcmp(a, "--globals")) {
			o->globals = v, i++;
		} else if (!strcmp(a, "--max-launches")) {
			char *end;
			long n = strtol(v, &end, 10);

			if (*end || end == v || n < 0)
				return -1;
			o->max_launches = (int)n, i++;
		} else {
			return -1;
		}
	}
	return -1;
}

int
ks_cmd_capture(int argc, char **argv, struct ks_conf *conf)
{
	struct capture_opts o;
	struct ks_buf err = KS_BUF_INIT, globals = KS_BUF_INIT, rep = KS_BUF_INIT;
	struct ks_strv captured = KS_STRV_INIT;
	char *lib = NULL, *capdir = NULL, *report = NULL, *libreal = NULL;
	struct ks_capture_policy policy;
	unsigned long long bytes;
	const char *line;
	int rc = KS_EXIT_USAGE, started = 0, ncaptured = 0;
	size_t i;
	regex_t re;

	if (parse_capture_args(argc, argv, &o, conf)) {
		fputs(USAGE, stderr);
		return KS_EXIT_USAGE;
	}
	memset(&policy, 0, sizeof(policy));
	if (ks_capture_parse_launch_mode(o.launch, &policy, &err) ||
	    (strcmp(o.max_bytes, "auto") &&
	     ks_capture_parse_bytes(o.max_bytes, &bytes, &err))) {
		fprintf(stderr, "ks: error: %s\n", err.buf);
		goto out;
	}
	if (o.kernel) {
		if (regcomp(&re, o.kernel, REG_EXTENDED | REG_NOSUB)) {
			fprintf(stderr, "ks: error: --kernel: '%s' is not an extended "
					"regular expression\n", o.kernel);
			goto out;
		}
		regfree(&re);
	}
	rc = KS_EXIT_FAILED;
	lib = ks_toolkit_companion("libks-capture.so", conf->capture_lib);
	libreal = lib ? ks_fs_realpath(lib) : NULL;
	if (!libreal) {
		fprintf(stderr, "ks: error: libks-capture.so not found beside ks or "
				"in its lib/ks-nvcc (built only with the CUDA toolkit; "
				"KS_CAPTURE_LIB names it)\n");
		goto out;
	}
	capdir = ks_fs_join(conf->dir, "captures");
	if (ks_fs_mkdirs(capdir, &err)) {
		fprintf(stderr, "ks: error: %s\n", err.buf);
		goto out;
	}
	report = ks_xasprintf("%s/.report-%ld", capdir, (long)getpid());
	unlink(report);
	if (o.globals)
		ks_buf_adds(&globals, o.globals);
	else if (!o.no_globals)
		program_globals(conf, o.cmd[0], &globals);

	setenv("CUDA_INJECTION64_PATH", libreal, 1);
	setenv("KS_CAPTURE_DIR", capdir, 1);
	setenv("KS_CAPTURE_REPORT", report, 1);
	setenv("KS_CAPTURE_LAUNCH", o.launch, 1);
	setenv("KS_CAPTURE_MAX_BYTES", o.max_bytes, 1);
	{
		char n[32];

		snprintf(n, sizeof(n), "%d", o.max_launches);
		setenv("KS_CAPTURE_MAX_LAUNCHES", n, 1);
	}
	if (o.kernel)
		setenv("KS_CAPTURE_KERNEL", o.kernel, 1);
	else
		unsetenv("KS_CAPTURE_KERNEL");
	setenv("KS_CAPTURE_GLOBALS", globals.buf, 1);

	rc = ks_cli_run_program(o.cmd);
	/* What runs next (the eligibility check's replays) is not captured. */
	unsetenv("CUDA_INJECTION64_PATH");
	unsetenv("KS_CAPTURE_DIR");
	unsetenv("KS_CAPTURE_REPORT");
	unsetenv("KS_CAPTURE_KERNEL");
	unsetenv("KS_CAPTURE_GLOBALS");

	rep.max = 16 << 20;
	ks_fs_read(report, &rep, &err);
	for (line = rep.buf; *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char *l = ks_xstrndup(line, len);

		if (ks_starts_with(l, "started ")) {
			started = 1;
		} else if (ks_starts_with(l, "captured ")) {
			ks_strv_push(&captured, l + 9);
		} else if (ks_starts_with(l, "replaced ")) {
			/* "replaced OLD<tab>NEW": a launch of at least twice
			 * the threads took the place of OLD, which is gone. */
			char *by = strchr(l + 9, '\t');
			long at;

			if (by) {
				*by++ = '\0';
				if ((at = ks_strv_find(&captured, l + 9)) >= 0)
					ks_strv_remove(&captured, (size_t)at);
				fprintf(stderr, "ks: replaced %s by %s (a launch of at "
						"least %d times its threads)\n", l + 9, by,
					KS_CAPTURE_GROW);
			}
		} else if (ks_starts_with(l, "skipped ")) {
			fprintf(stderr, "ks: %s\n", l);
		}
		free(l);
		line += len + (nl ? 1 : 0);
	}
	for (i = 0; i < captured.n; i++) {
		finish(conf, captured.v[i], !o.no_types);
		fprintf(stderr, "ks: captured %s\n", captured.v[i]);
		ncaptured++;
	}
	if (!started)
		fprintf(stderr, "ks: warning: the capture library was not loaded (the "
				"program made no CUDA call, or the driver refused %s)\n",
			libreal);
	else if (!ncaptured)
		fprintf(stderr, "ks: no launch captured%s%s\n",
			o.kernel ? " matching " : "", o.kernel ? o.kernel : "");
	unlink(report);
	if (captured.n && !o.no_check) {
		struct ks_buf table = KS_BUF_INIT;

		ks_captures_eligibility(conf, (const char *const *)captured.v, captured.n, 1,
					&table);
		fputs(table.buf ? table.buf : "", stderr);
		ks_buf_release(&table);
	}
out:
	ks_strv_release(&captured);
	free(lib);
	free(libreal);
	free(capdir);
	free(report);
	ks_buf_release(&err);
	ks_buf_release(&globals);
	ks_buf_release(&rep);
	return rc;
}

struct listed {
	char *dir;
	struct ks_capture c;
};

static int
cmp_listed(const void *a, const void *b)
{
	const struct listed *x = a, *y = b;
	int k = strcmp(x->c.kernel, y->c.kernel);

	return k ? k : strcmp(x->dir, y->dir);
}

int
ks_cmd_captures(int argc, char **argv, struct ks_conf *conf)
{
	char *capdir = ks_fs_join(conf->dir, "captures");
	int json = 0, check = 0, k;
	struct listed *l = NULL;
	size_t n = 0, i, j;
	DIR *d, *d2;
	struct dirent *de, *de2;
	char *eligibility_table = NULL;

	for (k = 1; k < argc; k++) {
		if (!strcmp(argv[k], "--json")) {
			json = 1;
		} else if (!strcmp(argv[k], "--check")) {
			check = 1;
		} else {
			fprintf(stderr, "usage: ks captures [--check] [--json]\n");
			free(capdir);
			return KS_EXIT_USAGE;
		}
	}
	d = opendir(capdir);
	while (d && (de = readdir(d))) {
		char *kdir;

		if (de->d_name[0] == '.')
			continue;
		kdir = ks_fs_join(capdir, de->d_name);
		d2 = opendir(kdir);
		while (d2 && (de2 = readdir(d2))) {
			struct ks_buf err = KS_BUF_INIT;
			char *dir;

			if (de2->d_name[0] == '.')
				continue;
			dir = ks_fs_join(kdir, de2->d_name);
			l = ks_xrealloc(l, (n + 1) * sizeof(*l));
			if (ks_capture_load(dir, &l[n].c, &err)) {
				/* Without launch.json: unfinished, not corrupt. */
				char *lj = ks_fs_join(dir, "launch.json");

				if (ks_fs_exists(lj))
					fprintf(stderr, "ks: warning: skipping "
						"unreadable capture '%s': %s\n",
						dir, err.buf);
				free(lj);
				free(dir);
			} else {
				l[n++].dir = dir;
			}
			ks_buf_release(&err);
		}
		if (d2)
			closedir(d2);
		free(kdir);
	}
	if (d)
		closedir(d);
	if (n)
		qsort(l, n, sizeof(*l), cmp_listed);
	{
		/* The eligibility verdicts: checked again on --check. */
		const char **dirs = ks_xcalloc(n + 1, sizeof(*dirs));
		struct ks_buf table = KS_BUF_INIT;

		for (i = 0; i < n; i++)
			dirs[i] = l[i].dir;
		if (n)
			ks_captures_eligibility(conf, dirs, n, check, &table);
		eligibility_table = ks_buf_detach(&table, NULL);
		free((void *)dirs);
	}
	if (json)
		fputs("[", stdout);
	for (i = 0; i < n; i++) {
		const struct ks_capture *c = &l[i].c;
		unsigned long long bytes = 0;
		size_t written = 0;

		for (j = 0; j < c->nbuffers; j++) {
			bytes += c->buffers[j].size;
			written += c->buffers[j].written == 1;
		}
		if (json) {
			struct ks_buf b = KS_BUF_INIT;
			struct ks_elig e;

			ks_buf_adds(&b, i ? ",\n {\"dir\": " : "\n {\"dir\": ");
			ks_buf_add_json_str(&b, l[i].dir);
			ks_buf_adds(&b, ", \"kernel\": ");
			ks_buf_add_json_str(&b, c->kernel);
			ks_buf_addf(&b, ", \"launch\": %lu, \"buffers\": %zu, \"bytes\": %llu, "
					"\"written\": %zu",
				    c->launch, c->nbuffers, bytes, written);
			if (!ks_elig_load(l[i].dir, &e, NULL) && e.checked) {
				ks_buf_addf(&b, ", \"reproduces\": %s, \"verdict\": ",
					    e.reproduces ? "true" : "false");
				ks_buf_add_json_str(&b, e.verdict);
				ks_buf_adds(&b, ", \"why\": ");
				if (e.why)
					ks_buf_add_json_str(&b, e.why);
				else
					ks_buf_adds(&b, "null");
			}
			ks_elig_release(&e);
			ks_buf_addch(&b, '}');
			fputs(b.buf, stdout);
			ks_buf_release(&b);
		} else {
			printf("%s\n    %s launch %lu  grid %ux%ux%u block %ux%ux%u  "
			       "%zu buffers (%zu written), %llu bytes%s\n",
			       l[i].dir, c->demangled ? c->demangled : c->kernel,
			       c->launch, c->grid[0], c->grid[1], c->grid[2],
			       c->block[0], c->block[1], c->block[2], c->nbuffers,
			       written, bytes, c->record ? "" : "  (no build record)");
		}
	}
	if (json)
		fputs("]\n", stdout);
	else if (eligibility_table && *eligibility_table)
		printf("\n%s", eligibility_table);
	free(eligibility_table);
	for (i = 0; i < n; i++) {
		free(l[i].dir);
		ks_capture_release(&l[i].c);
	}
	free(l);
	free(capdir);
	return 0;
}
