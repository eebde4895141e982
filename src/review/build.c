#include "build.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "../../wrapper/nvopts.h"
#include "../core/buf.h"
#include "../core/fs.h"
#include "../core/proc.h"
#include "../core/util.h"

void
ks_build_rec_release(struct ks_build_rec *r)
{
	free(r->path);
	free(r->source);
	free(r->cwd);
	free(r->output);
	free(r->nvcc);
	free(r->time);
	if (r->argv.v)
		ks_strv_release(&r->argv);
	memset(r, 0, sizeof(*r));
}

static char *
json_dup(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? ks_xstrdup(v->valuestring) : NULL;
}

int
ks_build_rec_load(const char *path, struct ks_build_rec *r, struct ks_buf *err)
{
	struct ks_buf text = KS_BUF_INIT;
	const cJSON *argv, *a;
	cJSON *o = NULL;
	int rc = -1;

	memset(r, 0, sizeof(*r));
	ks_strv_init(&r->argv);
	text.max = 16 << 20;
	if (ks_fs_read(path, &text, err))
		goto out;
	o = cJSON_ParseWithOpts(text.buf, NULL, 1);
	if (!o) {
		ks_error(err, "'%s' is not a build record (not JSON)", path);
		goto out;
	}
	r->path = ks_xstrdup(path);
	r->source = json_dup(o, "source");
	r->cwd = json_dup(o, "cwd");
	r->output = json_dup(o, "output");
	r->nvcc = json_dup(o, "nvcc");
	r->time = json_dup(o, "time");
	argv = cJSON_GetObjectItemCaseSensitive(o, "argv");
	if (!r->source || !r->cwd || !cJSON_IsArray(argv)) {
		ks_error(err, "'%s' is not a build record (no source, cwd or argv)",
			 path);
		goto out;
	}
	cJSON_ArrayForEach(a, argv) {
		if (!cJSON_IsString(a)) {
			ks_error(err, "'%s': argv holds a non-string", path);
			goto out;
		}
		ks_strv_push(&r->argv, a->valuestring);
	}
	rc = 0;
out:
	cJSON_Delete(o);
	ks_buf_release(&text);
	if (rc)
		ks_build_rec_release(r);
	return rc;
}

int
ks_build_object_has(const void *data, size_t len, const char *mangled)
{
	const char *p = data, *end = p + len;
	size_t n = strlen(mangled);

	if (!n)
		return 0;
	while (p + n < end) {
		const char *hit = memchr(p, mangled[0], (size_t)(end - p - n));

		if (!hit)
			break;
		if (!memcmp(hit, mangled, n) && hit[n] == '\0' &&
		    (hit == data || hit[-1] == '\0'))
			return 1;
		p = hit + 1;
	}
	return 0;
}

int
ks_build_rec_find(const char *dir, const char *mangled, struct ks_build_rec *r,
		  struct ks_buf *err)
{
	char *bdir = ks_fs_join(dir, "builds");
	DIR *d = opendir(bdir);
	struct dirent *de;
	int found = 0;

	memset(r, 0, sizeof(*r));
	while (d && (de = readdir(d))) {
		struct ks_build_rec cand;
		struct ks_buf obj = KS_BUF_INIT, e = KS_BUF_INIT;
		char *path;

		if (!ks_ends_with(de->d_name, ".json"))
			continue;
		path = ks_fs_join(bdir, de->d_name);
		obj.max = 1u << 30;
		if (!ks_build_rec_load(path, &cand, &e)) {
			if (cand.output && !ks_fs_read(cand.output, &obj, &e) &&
			    ks_build_object_has(obj.buf, obj.len, mangled) &&
			    (!found || strcmp(cand.time ? cand.time : "",
					      r->time ? r->time : "") > 0)) {
				ks_build_rec_release(r);
				*r = cand;
				found = 1;
			} else {
				ks_build_rec_release(&cand);
			}
		}
		free(path);
		ks_buf_release(&obj);
		ks_buf_release(&e);
	}
	if (d)
		closedir(d);
	free(bdir);
	if (!found)
		return ks_error(err, "no build record's object defines %s (build the "
				"program through ks-nvcc, or name one with --record)",
				mangled);
	return 0;
}

int
ks_build_shared_argv(const struct ks_strv *argv, const char *include_dir,
		     const char *shim, const char *so, struct ks_strv *out,
		     struct ks_buf *err)
{
	size_t i;

	for (i = 0; i < argv->n; i++) {
		const char *w = argv->v[i], *value = NULL;
		const struct ks_nvopt *opt = NULL;
		enum ks_nvopt_word kind = ks_nvopt_parse(w, &opt, &value);
		int takes = kind == KS_NVOPT_WORD_OPTION && opt &&
			    (opt->flags & KS_NVOPT_TAKES_ARG) && !value;
		int drop = 0;

		if (takes && i + 1 >= argv->n)
			return ks_error(err, "'%s' lacks its value", w);
		if (kind == KS_NVOPT_WORD_INPUT) {
			drop = 1;	/* the TU: the shim includes it */
		} else if (kind == KS_NVOPT_WORD_OPTION && opt) {
			if (!strcmp(opt->name, "device-c"))
				ks_strv_push(out, "-rdc=true");
			drop = (opt->flags & (KS_NVOPT_MODE | KS_NVOPT_DEPS)) ||
			       !strcmp(opt->name, "output-file") ||
			       !strcmp(opt->name, "output-directory") ||
			       !strcmp(opt->name, "cudart");
		}
		if (!drop) {
			ks_strv_push(out, w);
			if (takes)
				ks_strv_push(out, argv->v[i + 1]);
		}
		if (takes)
			i++;
	}
	if (include_dir)
		ks_strv_push_owned(out, ks_xasprintf("-I%s", include_dir));
	ks_strv_push(out, "-shared");
	ks_strv_push(out, "-Xcompiler");
	ks_strv_push(out, "-fPIC");
	ks_strv_push(out, "-cudart");
	ks_strv_push(out, "shared");
	ks_strv_push(out, "-o");
	ks_strv_push(out, so);
	ks_strv_push(out, shim);
	return 0;
}

int
ks_build_so(const struct ks_build_so *b, char **so, struct ks_buf *log,
	    struct ks_buf *err)
{
	struct ks_strv argv = KS_STRV_INIT;
	struct ks_buf out = KS_BUF_INIT;
	struct ks_proc p;
	char *shim = ks_xasprintf("%s/%s.cu", b->workdir, b->name);
	char *path = ks_xasprintf("%s/%s.so", b->workdir, b->name);
	char *srcdir = ks_xstrdup(b->rec->source), *slash = strrchr(srcdir, '/');
	int rc = -1;

	*so = NULL;
	if (slash)
		*slash = '\0';
	if (ks_fs_write_atomic(shim, b->shim, strlen(b->shim), err))
		goto out;
	ks_strv_push(&argv, b->nvcc ? b->nvcc : b->rec->nvcc ? b->rec->nvcc : "nvcc");
	if (ks_build_shared_argv(&b->rec->argv, slash ? srcdir : NULL, shim, path,
				 &argv, err))
		goto out;
	memset(&p, 0, sizeof(p));
	p.argv = (const char *const *)argv.v;
	p.cwd = b->rec->cwd;
	out.max = 1 << 20;
	p.out = &out;
	p.err_out = &out;
	p.timeout_ms = b->timeout_ms;
	if (ks_proc_run(&p, err))
		goto out;
	ks_buf_add(log, out.buf, out.len);
	if (p.timed_out) {
		ks_error(err, "nvcc took longer than %d ms building %s", b->timeout_ms,
			 path);
		goto out;
	}
	if (p.status) {
		ks_error(err, "nvcc failed (status %d) building %s", p.status, path);
		goto out;
	}
	*so = path;
	path = NULL;
	rc = 0;
out:
	ks_strv_release(&argv);
	ks_buf_release(&out);
	free(shim);
	free(path);
	free(srcdir);
	return rc;
}
