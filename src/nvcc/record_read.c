/*
 * The build record reader (record.h): the one place `ks` turns a record's
 * JSON back into fields. Linked into ks only: it needs cJSON.
 */
#include "record.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "../core/buf.h"
#include "../core/fs.h"
#include "../core/json.h"
#include "../core/util.h"
#include "onecmd.h"

void
ks_build_rec_release(struct ks_build_rec *r)
{
	size_t i;

	free(r->path);
	free(r->source);
	free(r->cwd);
	free(r->output);
	free(r->depfile);
	free(r->nvcc);
	free(r->nvcc_version);
	free(r->time);
	free(r->std);
	free(r->prepend_flags);
	free(r->append_flags);
	if (r->argv.v)
		ks_strv_release(&r->argv);
	if (r->command_argv.v)
		ks_strv_release(&r->command_argv);
	free(r->mode);
	if (r->includes.v)
		ks_strv_release(&r->includes);
	if (r->defines.v)
		ks_strv_release(&r->defines);
	if (r->devflags.v)
		ks_strv_release(&r->devflags);
	for (i = 0; i < r->narchs; i++) {
		free(r->archs[i].virt);
		free(r->archs[i].real);
	}
	free(r->archs);
	free(r->text);
	memset(r, 0, sizeof(*r));
}

/* The strings of array o[key]; -1 when it holds anything else. */
static int
strv_of(const cJSON *o, const char *key, struct ks_strv *out)
{
	const cJSON *v, *arr = cJSON_GetObjectItemCaseSensitive(o, key);

	cJSON_ArrayForEach(v, arr) {
		if (!cJSON_IsString(v))
			return -1;
		ks_strv_push(out, v->valuestring);
	}
	return 0;
}

int
ks_build_rec_parse(const char *text, size_t len, const char *path,
		   struct ks_build_rec *r, struct ks_buf *err)
{
	const cJSON *argv, *archs, *a, *cmd, *idx;
	cJSON *o = NULL;
	size_t n;
	int rc = -1;

	memset(r, 0, sizeof(*r));
	ks_strv_init(&r->argv);
	ks_strv_init(&r->command_argv);
	ks_strv_init(&r->includes);
	ks_strv_init(&r->defines);
	ks_strv_init(&r->devflags);
	/* `ks builds --json` copies the text out: it must be UTF-8 JSON. */
	if (strlen(text) == len && ks_utf8_valid(text, len))
		o = cJSON_ParseWithOpts(text, NULL, 1);
	if (!cJSON_IsObject(o)) {
		ks_error(err, "'%s' is not a build record (not one UTF-8 JSON object)", path);
		goto out;
	}
	r->path = ks_xstrdup(path);
	r->source = ks_json_dup(o, "source");
	r->cwd = ks_json_dup(o, "cwd");
	r->output = ks_json_dup(o, "output");
	r->depfile = ks_json_dup(o, "depfile");
	r->nvcc = ks_json_dup(o, "nvcc");
	r->nvcc_version = ks_json_dup(o, "nvcc_version");
	r->time = ks_json_dup(o, "time");
	r->std = ks_json_dup(o, "std");
	r->prepend_flags = ks_json_dup(o, "prepend_flags");
	r->append_flags = ks_json_dup(o, "append_flags");
	argv = cJSON_GetObjectItemCaseSensitive(o, "argv");
	if (!r->source || !r->cwd || !cJSON_IsArray(argv)) {
		ks_error(err, "'%s' is not a build record (no source, cwd or argv)",
			 path);
		goto out;
	}
	if (strv_of(o, "argv", &r->argv) || strv_of(o, "includes", &r->includes) ||
	    strv_of(o, "defines", &r->defines) ||
	    strv_of(o, "device_flags", &r->devflags)) {
		ks_error(err, "'%s': an argument list holds a non-string", path);
		goto out;
	}
	/* Format 2 added mode, command_argv and source_index; a format 1
	 * record is a -c build, its own command. */
	r->mode = ks_json_dup(o, "mode");
	if (!r->mode)
		r->mode = ks_xstrdup("compile");
	cmd = cJSON_GetObjectItemCaseSensitive(o, "command_argv");
	if (cJSON_IsArray(cmd)) {
		if (strv_of(o, "command_argv", &r->command_argv)) {
			ks_error(err, "'%s': an argument list holds a non-string",
				 path);
			goto out;
		}
	} else {
		ks_strv_pushv(&r->command_argv, (const char *const *)r->argv.v,
			      r->argv.n);
	}
	idx = cJSON_GetObjectItemCaseSensitive(o, "source_index");
	if (cJSON_IsNumber(idx) && idx->valuedouble >= 0 &&
	    idx->valuedouble < (double)r->command_argv.n)
		r->source_index = (long)idx->valuedouble;
	else
		r->source_index = ks_onecmd_input_word(
			(const char *const *)r->command_argv.v,
			r->command_argv.n, 0);
	archs = cJSON_GetObjectItemCaseSensitive(o, "archs");
	n = (size_t)cJSON_GetArraySize(archs);
	r->archs = ks_xcalloc(n + 1, sizeof(*r->archs));
	cJSON_ArrayForEach(a, archs) {
		r->archs[r->narchs].virt = ks_json_dup(a, "virtual");
		r->archs[r->narchs].real = ks_json_dup(a, "real");
		r->narchs++;
	}
	r->text = ks_xstrndup(text, len);
	rc = 0;
out:
	cJSON_Delete(o);
	if (rc)
		ks_build_rec_release(r);
	return rc;
}

int
ks_build_rec_load(const char *path, struct ks_build_rec *r, struct ks_buf *err)
{
	struct ks_buf text = KS_BUF_INIT;
	int rc = -1;

	memset(r, 0, sizeof(*r));
	text.max = KS_RECORD_MAX_BYTES;
	if (!ks_fs_read(path, &text, err))
		rc = ks_build_rec_parse(text.buf, text.len, path, r, err);
	ks_buf_release(&text);
	return rc;
}

int
ks_build_rec_each(const char *dir,
		  int (*fn)(struct ks_build_rec *r, const char *path,
			    const char *why, void *ctx),
		  void *ctx)
{
	char *bdir = ks_fs_join(dir, "builds");
	DIR *d = opendir(bdir);
	struct dirent *de;
	int rc = 0;

	while (!rc && d && (de = readdir(d))) {
		struct ks_build_rec r;
		struct ks_buf err = KS_BUF_INIT;
		char *path;

		if (!ks_ends_with(de->d_name, ".json"))
			continue;
		path = ks_fs_join(bdir, de->d_name);
		if (ks_build_rec_load(path, &r, &err))
			rc = fn(NULL, path, err.buf, ctx);
		else
			rc = fn(&r, path, NULL, ctx);
		ks_build_rec_release(&r);
		ks_buf_release(&err);
		free(path);
	}
	if (d)
		closedir(d);
	free(bdir);
	return rc;
}

struct newest {
	int (*match)(const struct ks_build_rec *r, void *ctx);
	void *ctx;
	struct ks_build_rec *best;
	int found;
};

static int
newest_one(struct ks_build_rec *r, const char *path, const char *why, void *ctx)
{
	struct newest *n = ctx;

	(void)path;
	(void)why;
	if (!r || !n->match(r, n->ctx))
		return 0;
	if (n->found && strcmp(r->time ? r->time : "",
			       n->best->time ? n->best->time : "") <= 0)
		return 0;
	ks_build_rec_release(n->best);
	*n->best = *r;
	memset(r, 0, sizeof(*r));
	n->found = 1;
	return 0;
}

int
ks_build_rec_newest(const char *dir,
		    int (*match)(const struct ks_build_rec *r, void *ctx),
		    void *ctx, struct ks_build_rec *best)
{
	struct newest n;

	memset(best, 0, sizeof(*best));
	n.match = match;
	n.ctx = ctx;
	n.best = best;
	n.found = 0;
	ks_build_rec_each(dir, newest_one, &n);
	return n.found ? 0 : -1;
}
