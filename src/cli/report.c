/*
 * ks report: the results of a benchmark run (a results JSON of make
 * bench), or of the optimize tasks of a state directory, as a terminal
 * table, JSON, or one self-contained HTML page (src/report/).
 *
 *   ks report [RESULTS.json|DIR] [--html FILE] [--json]
 *
 * DIR is a folder of results (the newest results JSON in it) or a state
 * directory (its tasks/); without an argument, KS_DIR's tasks. This file
 * does the reading: the results, each kernel's trajectory, the original
 * kernel's definition (a lexical scan of its source) and the best
 * variant's file; everything shown is made by the pure renderers.
 */
#include "ks.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../cache/expand.h"
#include "../cache/rewrite.h"
#include "../capture/capture.h"
#include "../core/buf.h"
#include "../core/conf.h"
#include "../core/fs.h"
#include "../core/util.h"
#include "../memory/trajectory.h"
#include "../nvcc/record.h"
#include "../report/report.h"

#define REPORT_USAGE "usage: ks report [RESULTS.json|DIR] [--html FILE] [--json]\n"

static int
is_dir(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISDIR(st.st_mode);
}

/* The name a kernel's definition has in its source: the demangled name's
 * (before its parameters), else the name itself. */
static char *
def_name(const char *demangled, const char *fallback)
{
	const char *s = demangled ? demangled : fallback, *e, *c;

	if (!s)
		return NULL;
	e = s + strcspn(s, "(<");
	for (c = s; c < e; c++)
		if (c[0] == ':' && c[1] == ':')
			s = c + 2;
	return ks_xstrndup(s, (size_t)(e - s));
}

static int
read_file(const char *path, struct ks_buf *out, void *ctx)
{
	(void)ctx;
	return ks_fs_exists(path) ? ks_fs_read(path, out, NULL) : -1;
}

/* The original definition of `name` in file `path` (or in the header it
 * includes that defines it, cache/expand.h), or NULL. */
static char *
original_def(const char *path, const char *name)
{
	struct ks_buf src = KS_BUF_INIT;
	struct ks_rewrite_kernel rk;
	struct ks_expand x;
	char *out = NULL, *dir;
	int rc;

	memset(&rk, 0, sizeof(rk));
	if (!path || !name || ks_fs_read(path, &src, NULL))
		goto out;
	rc = ks_rewrite_scan(src.buf, src.len, name, &rk, NULL);
	if (rc == -2) {
		dir = ks_xstrdup(path);
		*(char *)ks_basename(dir) = '\0';
		/* the header that defines it, however deep among the file's
		 * headers (cache/expand.h) */
		if (!ks_expand_find(src.buf, src.len, path, *dir ? dir : ".", name, read_file,
				    NULL, &x, NULL, NULL)) {
			ks_buf_reset(&src);
			if (!read_file(x.def, &src, NULL))
				rc = ks_rewrite_scan(src.buf, src.len, name, &rk, NULL);
			ks_expand_release(&x);
		}
		free(dir);
	}
	if (!rc) {
		out = ks_xstrndup(src.buf + rk.def_begin, rk.def_end - rk.def_begin);
		ks_rewrite_kernel_release(&rk);
	}
out:
	ks_buf_release(&src);
	return out;
}

/* The trajectory, the best variant's parts and the original's definition
 * of one kernel whose task lies in `tdir`. */
static void
load_details(struct ks_report_kernel *k, const char *tdir, const char *source,
	     double min_gain)
{
	char *path = ks_traj_path(tdir), *name;
	struct ks_traj_state s;

	if (ks_fs_exists(path))
		(void)ks_traj_load(path, &k->traj, NULL);
	free(path);
	ks_traj_state(&k->traj, min_gain, &s);
	if (s.best > 0 && k->traj.v[s.best].variant) {
		struct ks_buf v = KS_BUF_INIT;
		struct ks_rewrite_variant rv;

		memset(&rv, 0, sizeof(rv));
		path = ks_fs_join(tdir, k->traj.v[s.best].variant);
		if (!ks_fs_read(path, &v, NULL) && !ks_rewrite_variant_split(v.buf, &rv, NULL)) {
			k->variant_src = ks_xstrdup(rv.definition.text ? rv.definition.text : "");
			if (rv.helpers.text)
				k->variant_helpers = ks_xstrdup(rv.helpers.text);
		}
		free(path);
		ks_buf_release(&v);
	}
	name = def_name(k->demangled, k->kernel);
	k->orig_src = original_def(source, name);
	if (!k->orig_src && k->kernel) {
		/* The bench programs name a kernel K_kernel or K. */
		free(name);
		name = ks_xasprintf("%s_kernel", k->kernel);
		k->orig_src = original_def(source, name);
	}
	free(name);
}

/* The newest results JSON of make bench in `dir`, or NULL. */
static char *
newest_results(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char *best = NULL;

	while (d && (de = readdir(d))) {
		size_t n = strlen(de->d_name);
		char *p;
		struct ks_buf t = KS_BUF_INIT;

		if (n < 6 || strcmp(de->d_name + n - 5, ".json") || de->d_name[0] == '.')
			continue;
		if (best && strcmp(de->d_name, ks_basename(best)) <= 0)
			continue;
		p = ks_fs_join(dir, de->d_name);
		if (!ks_fs_read(p, &t, NULL) && strstr(t.buf, "\"kind\": \"ks-bench\"")) {
			free(best);
			best = p;
		} else {
			free(p);
		}
		ks_buf_release(&t);
	}
	if (d)
		closedir(d);
	return best;
}

static int
load_results(const char *file, struct ks_report *r, struct ks_buf *err)
{
	struct ks_buf t = KS_BUF_INIT;
	char *base;
	int rc;

	if (ks_fs_read(file, &t, err)) {
		ks_buf_release(&t);
		return -1;
	}
	rc = ks_report_parse_results(t.buf, r, err);
	ks_buf_release(&t);
	if (rc) {
		char *why = ks_buf_detach(err, NULL);

		ks_error(err, "%s: %s", file, why);
		free(why);
		return -1;
	}
	base = ks_xstrdup(file);
	*(char *)ks_basename(base) = '\0';
	for (size_t i = 0; i < r->n; i++) {
		struct ks_report_kernel *k = &r->k[i];
		char *tdir, *src;

		if (!k->task_dir)
			continue;
		tdir = ks_xasprintf("%s%s", base, k->task_dir);
		src = k->source_file ? ks_xasprintf("%s%s", base, k->source_file) : NULL;
		load_details(k, tdir, src, r->min_gain);
		free(tdir);
		free(src);
	}
	free(base);
	return 0;
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A state directory's tasks, each with what its first capture says. */
static int
load_tasks(const char *ksdir, struct ks_report *r, struct ks_buf *err)
{
	char *tasks = ks_fs_join(ksdir, "tasks");
	DIR *d = opendir(tasks);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0;

	if (!d) {
		ks_error(err, "no optimize tasks under %s (run 'ks optimize' first)", ksdir);
		free(tasks);
		return -1;
	}
	while ((de = readdir(d))) {
		char *td = ks_fs_join(tasks, de->d_name), *tp = ks_traj_path(td);

		if (de->d_name[0] != '.' && ks_fs_exists(tp)) {
			names = ks_xrealloc(names, (n + 1) * sizeof(*names));
			names[n++] = ks_xstrdup(de->d_name);
		}
		free(td);
		free(tp);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), by_name);
	for (size_t i = 0; i < n; i++) {
		struct ks_report_kernel *k = ks_report_add(r);
		char *td = ks_fs_join(tasks, names[i]), *cap = ks_capture_find(ksdir, names[i]);
		char *source = NULL;
		struct ks_capture c;
		struct ks_build_rec rec;

		memset(&c, 0, sizeof(c));
		memset(&rec, 0, sizeof(rec));
		k->task = ks_xstrdup(names[i]);
		if (cap && !ks_capture_load(cap, &c, NULL)) {
			if (c.demangled)
				k->demangled = ks_xstrdup(c.demangled);
			if (c.record && !ks_build_rec_load(c.record, &rec, NULL) && rec.source)
				source = ks_xstrdup(rec.source);
		}
		k->kernel = k->demangled ? def_name(k->demangled, NULL) : ks_xstrdup(names[i]);
		load_details(k, td, source, r->min_gain);
		ks_report_kernel_from_traj(k, r->min_gain);
		ks_build_rec_release(&rec);
		ks_capture_release(&c);
		free(source);
		free(cap);
		free(td);
		free(names[i]);
	}
	free(names);
	free(tasks);
	ks_report_summarize_tasks(r, &r->s);
	r->have_summary = 1;
	return 0;
}

int
ks_cmd_report(int argc, char **argv, struct ks_conf *conf)
{
	struct ks_report r;
	struct ks_buf err = KS_BUF_INIT, out = KS_BUF_INIT;
	const char *arg = NULL, *html = NULL;
	char *file = NULL;
	int json = 0, rc = KS_EXIT_FAILED, i;
	double gain = conf->min_gain ? atof(conf->min_gain) : 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = 1;
		} else if (!strcmp(argv[i], "--html") && i + 1 < argc) {
			html = argv[++i];
		} else if (argv[i][0] != '-' && !arg) {
			arg = argv[i];
		} else {
			fputs(REPORT_USAGE, stderr);
			return KS_EXIT_USAGE;
		}
	}
	ks_report_init(&r);
	if (gain >= 1)
		r.min_gain = gain;
	if (!arg) {
		if (load_tasks(conf->dir, &r, &err))
			goto fail;
	} else if (!is_dir(arg)) {
		if (load_results(arg, &r, &err))
			goto fail;
	} else {
		char *tasks = ks_fs_join(arg, "tasks");
		int have_tasks = is_dir(tasks);

		free(tasks);
		if (have_tasks) {
			if (load_tasks(arg, &r, &err))
				goto fail;
		} else if (!(file = newest_results(arg))) {
			ks_error(&err, "%s: no results JSON of make bench and no tasks/ folder", arg);
			goto fail;
		} else if (load_results(file, &r, &err)) {
			goto fail;
		}
	}
	if (html) {
		ks_report_html(&r, &out);
		if (ks_fs_write_atomic(html, out.buf, out.len, &err))
			goto fail;
		ks_buf_reset(&out);
	}
	if (json)
		ks_report_json(&r, &out);
	else if (!html)
		ks_report_text(&r, &out);
	fputs(out.buf ? out.buf : "", stdout);
	rc = 0;
	goto out;
fail:
	fprintf(stderr, "ks: error: %s\n", err.buf);
out:
	ks_report_release(&r);
	ks_buf_release(&out);
	ks_buf_release(&err);
	free(file);
	return rc;
}
