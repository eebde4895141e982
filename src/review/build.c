#include "build.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/buf.h"
#include "../core/fs.h"
#include "../core/proc.h"
#include "../core/util.h"
#include "../nvcc/derive.h"

/* The most of an object file read to look for a kernel's name. */
#define KS_OBJECT_MAX_BYTES (1u << 30)

/* The most of nvcc's output kept as a shim build's log. */
#define KS_NVCC_LOG_MAX (1u << 20)

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

/* Does the record's object hold the mangled name in ctx? */
static int
object_defines(const struct ks_build_rec *r, void *ctx)
{
	struct ks_buf obj = KS_BUF_INIT;
	int has;

	if (!r->output)
		return 0;
	obj.max = KS_OBJECT_MAX_BYTES;
	has = !ks_fs_read(r->output, &obj, NULL) &&
	      ks_build_object_has(obj.buf, obj.len, ctx);
	ks_buf_release(&obj);
	return has;
}

int
ks_build_rec_find(const char *dir, const char *mangled, struct ks_build_rec *r,
		  struct ks_buf *err)
{
	if (ks_build_rec_newest(dir, object_defines, (void *)mangled, r))
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
	if (ks_derive_argv(&ks_derive_shared, (const char *const *)argv->v,
			   argv->n, out, NULL, err))
		return -1;
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

/* The most PTX kept from one build (every arch's together). */
#define KS_PTX_MAX_BYTES (256u << 20)

/* Concatenate the .ptx files nvcc left in `keep` into `out`, then remove it. */
static void
collect_ptx(const char *keep, const char *out)
{
	struct ks_buf all = KS_BUF_INIT;
	DIR *d = opendir(keep);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		struct ks_buf one = KS_BUF_INIT;
		char *path;

		if (!ks_ends_with(de->d_name, ".ptx"))
			continue;
		path = ks_fs_join(keep, de->d_name);
		one.max = KS_PTX_MAX_BYTES;
		if (!ks_fs_read(path, &one, NULL) && all.len + one.len < KS_PTX_MAX_BYTES) {
			ks_buf_add(&all, one.buf, one.len);
			ks_buf_addch(&all, '\n');
		}
		ks_buf_release(&one);
		free(path);
	}
	if (d)
		closedir(d);
	if (all.len)
		ks_fs_write_atomic(out, all.buf, all.len, NULL);
	ks_fs_remove_tree(keep, NULL);
	ks_buf_release(&all);
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
	char *keep = ks_xasprintf("%s/%s.keep", b->workdir, b->name);
	char *ptx = ks_xasprintf("%s/%s.ptx", b->workdir, b->name);
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
	unlink(ptx);
	if (b->keep_ptx) {
		ks_fs_remove_tree(keep, NULL);
		if (ks_fs_mkdirs(keep, err))
			goto out;
		ks_strv_push(&argv, "-keep");
		ks_strv_push(&argv, "-keep-dir");
		ks_strv_push(&argv, keep);
	}
	memset(&p, 0, sizeof(p));
	p.argv = (const char *const *)argv.v;
	p.cwd = b->rec->cwd;
	out.max = KS_NVCC_LOG_MAX;
	p.out = &out;
	p.err_out = &out;
	p.timeout_ms = b->timeout_ms;
	if (ks_proc_run(&p, err))
		goto out;
	if (b->keep_ptx)
		collect_ptx(keep, ptx);
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
	free(keep);
	free(ptx);
	return rc;
}
