/*
 * ks evidence: what the compiler says about each kernel of one source.
 *
 *   ks evidence [--json] FILE.cu                 as the build compiled it
 *   ks evidence [--json] FILE.cu -- NVCC-ARGS    with these nvcc arguments
 *
 * The first form takes the newest build record of FILE.cu (its nvcc,
 * directory, arguments and NVCC_*_FLAGS); the second runs the configured
 * nvcc with NVCC-ARGS and FILE.cu in the current directory. Both print the
 * features of docs/EVIDENCE.md per kernel and arch.
 */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../wrapper/passthru.h"
#include "../analysis/evidence.h"
#include "../core/buf.h"
#include "../core/conf.h"
#include "../core/fs.h"
#include "../core/strv.h"
#include "../core/util.h"
#include "ks.h"

#define EVIDENCE_TIMEOUT_MS (10 * 60 * 1000)

/* What one build record says about the compile. */
struct recorded {
	char *time;
	char *nvcc;
	char *cwd;
	char *prepend, *append;
	struct ks_strv argv;
};

static void
recorded_release(struct recorded *r)
{
	free(r->time);
	free(r->nvcc);
	free(r->cwd);
	free(r->prepend);
	free(r->append);
	ks_strv_release(&r->argv);
	memset(r, 0, sizeof(*r));
	ks_strv_init(&r->argv);
}

static char *
str_or_null(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? ks_xstrdup(v->valuestring) : NULL;
}

/* Fill `r` from record text when it is a record of `source`. */
static int
read_record(const char *text, const char *source, struct recorded *r)
{
	cJSON *o = cJSON_ParseWithOpts(text, NULL, 1), *a;
	const cJSON *src, *args;
	int rc = -1;

	if (!o)
		return -1;
	src = cJSON_GetObjectItemCaseSensitive(o, "source");
	args = cJSON_GetObjectItemCaseSensitive(o, "argv");
	if (!cJSON_IsString(src) || strcmp(src->valuestring, source) ||
	    !cJSON_IsArray(args))
		goto out;
	r->time = str_or_null(o, "time");
	r->nvcc = str_or_null(o, "nvcc");
	r->cwd = str_or_null(o, "cwd");
	r->prepend = str_or_null(o, "prepend_flags");
	r->append = str_or_null(o, "append_flags");
	cJSON_ArrayForEach(a, args)
		if (cJSON_IsString(a))
			ks_strv_push(&r->argv, a->valuestring);
	rc = r->nvcc ? 0 : -1;
out:
	cJSON_Delete(o);
	return rc;
}

/* The newest build record of `source` (an absolute path) into `best`. */
static int
find_record(const char *dir, const char *source, struct recorded *best,
	    struct ks_buf *err)
{
	char *builds = ks_fs_join(dir, "builds");
	DIR *d = opendir(builds);
	struct dirent *de;
	int found = 0;

	while (d && (de = readdir(d))) {
		struct ks_buf text = KS_BUF_INIT, rerr = KS_BUF_INIT;
		struct recorded r;
		char *path;

		if (!ks_ends_with(de->d_name, ".json"))
			continue;
		memset(&r, 0, sizeof(r));
		ks_strv_init(&r.argv);
		path = ks_fs_join(builds, de->d_name);
		text.max = 1 << 20;
		if (!ks_fs_read(path, &text, &rerr) &&
		    !read_record(text.buf, source, &r) &&
		    (!found || strcmp(r.time ? r.time : "",
				      best->time ? best->time : "") > 0)) {
			recorded_release(best);
			*best = r;
			found = 1;
		} else {
			recorded_release(&r);
		}
		ks_buf_release(&text);
		ks_buf_release(&rerr);
		free(path);
	}
	if (d)
		closedir(d);
	free(builds);
	if (!found)
		return ks_error(err,
				"no build record of '%s' (build it through "
				"ks-nvcc, or give nvcc arguments after --)",
				source);
	return 0;
}

int
ks_cmd_evidence(int argc, char **argv, struct ks_conf *conf)
{
	struct ks_evidence ev = KS_EVIDENCE_INIT;
	struct ks_evidence_request req;
	struct ks_buf err = KS_BUF_INIT, out = KS_BUF_INIT;
	struct recorded r;
	const char *file = NULL;
	char *source = NULL, *cuobjdump = NULL;
	int json = 0, usage = 0, dashes = -1, i, rc = KS_EXIT_FAILED;
	char *self = NULL;

	memset(&r, 0, sizeof(r));
	ks_strv_init(&r.argv);
	memset(&req, 0, sizeof(req));
	for (i = 1; i < argc && dashes < 0; i++) {
		if (!strcmp(argv[i], "--"))
			dashes = i;
		else if (!strcmp(argv[i], "--json"))
			json = 1;
		else if (!file && argv[i][0] != '-')
			file = argv[i];
		else
			usage = 1;
	}
	if (!file || usage) {
		fputs("usage: ks evidence [--json] FILE.cu [-- NVCC-ARGS...]\n",
		      stderr);
		return KS_EXIT_USAGE;
	}
	if (dashes < 0) {
		source = ks_fs_realpath(file);
		if (!source) {
			ks_error_errno(&err, "cannot find '%s'", file);
			goto out;
		}
		if (find_record(conf->dir, source, &r, &err))
			goto out;
	} else {
		self = ks_passthru_self();
		r.nvcc = ks_passthru_find(conf->nvcc, self, &err);
		if (!r.nvcc)
			goto out;
		for (i = dashes + 1; i < argc; i++)
			ks_strv_push(&r.argv, argv[i]);
		ks_strv_push(&r.argv, file);
		r.prepend = getenv("NVCC_PREPEND_FLAGS")
				    ? ks_xstrdup(getenv("NVCC_PREPEND_FLAGS"))
				    : NULL;
		r.append = getenv("NVCC_APPEND_FLAGS")
				   ? ks_xstrdup(getenv("NVCC_APPEND_FLAGS"))
				   : NULL;
	}
	cuobjdump = ks_evidence_find_cuobjdump(r.nvcc);
	req.nvcc = r.nvcc;
	req.argv = (const char *const *)r.argv.v;
	req.argc = r.argv.n;
	req.cwd = r.cwd;
	req.prepend_flags = r.prepend;
	req.append_flags = r.append;
	req.cuobjdump = cuobjdump;
	req.timeout_ms = EVIDENCE_TIMEOUT_MS;
	if (ks_evidence_collect(&req, &ev, &err))
		goto out;
	if (json)
		ks_evidence_format_json(&ev, &out);
	else
		ks_evidence_format_text(&ev, &out);
	fputs(out.buf, stdout);
	if (!json && !cuobjdump)
		printf("(no cuobjdump: counts are from PTX)\n");
	rc = 0;
out:
	if (rc)
		fprintf(stderr, "ks: error: %s\n", err.buf);
	ks_evidence_release(&ev);
	recorded_release(&r);
	ks_buf_release(&err);
	ks_buf_release(&out);
	free(source);
	free(cuobjdump);
	free(self);
	return rc;
}
