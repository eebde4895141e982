#include "build.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/buf.h"
#include "../core/fs.h"
#include "../core/hash.h"
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

/*
 * The objects this process built, by what went into them, so that a review
 * of several captures, and the reviews of one task, build each object once
 * (a full nvcc run each). Each is kept under a second name beside the first
 * (<name>-<key>.so), which no later build overwrites; a hit hard-links it
 * into place. Headers the TU includes are not part of the key: they do not
 * change while one process runs.
 */
struct built {
	char key[17];
	char *so, *ptx;
};
static struct built *builts;
static size_t nbuilt;

/* A word of nvcc's command with this build's own paths made neutral. */
static void
hash_word(struct ks_hash *h, const char *w, const char *workdir)
{
	const char *at = strstr(w, workdir);

	if (!at) {
		ks_hash_str(h, w);
		return;
	}
	ks_hash_bytes(h, w, (size_t)(at - w));
	ks_hash_str(h, "<workdir>");
	ks_hash_str(h, at + strlen(workdir));
}

/* The contents of the files the shim #includes (the TU, or a candidate). */
static void
hash_includes(struct ks_hash *h, const char *shim)
{
	const char *line = shim;

	while (line && *line) {
		const char *end = strchr(line, '\n');

		if (!strncmp(line, "#include \"", 10)) {
			struct ks_buf path = KS_BUF_INIT, text = KS_BUF_INIT;
			const char *q = line + 10;

			for (; *q && *q != '"' && *q != '\n'; q++) {
				if (*q == '\\' && q[1])
					q++;
				ks_buf_addch(&path, *q);
			}
			if (path.len && !ks_fs_read(path.buf, &text, NULL))
				ks_hash_bytes(h, text.buf, text.len);
			else
				ks_hash_str(h, "<unreadable>");
			ks_buf_release(&path);
			ks_buf_release(&text);
		}
		line = end ? end + 1 : NULL;
	}
}

static void
build_key(const struct ks_build_so *b, const struct ks_strv *argv, char out[17])
{
	struct ks_hash h = KS_HASH_INIT;
	size_t i;

	ks_hash_init(&h);
	ks_hash_str(&h, b->rec->cwd);
	ks_hash_u64(&h, (uint64_t)b->keep_ptx);
	for (i = 0; i < argv->n; i++)
		hash_word(&h, argv->v[i], b->workdir);
	ks_hash_str(&h, b->shim);
	hash_includes(&h, b->shim);
	ks_hash_hex64(&h, out);
	ks_hash_release(&h);
}

static const struct built *
built_find(const char *key)
{
	size_t i;

	for (i = 0; i < nbuilt; i++)
		if (!strcmp(builts[i].key, key) && ks_fs_exists(builts[i].so))
			return &builts[i];
	return NULL;
}

/* Put a kept object (and PTX) in place under this build's names. */
static int
built_use(const struct built *k, const char *so, const char *ptx)
{
	unlink(so);
	unlink(ptx);
	if (link(k->so, so))
		return -1;
	if (k->ptx && link(k->ptx, ptx)) {
		unlink(so);
		return -1;
	}
	return 0;
}

static void
built_keep(const struct ks_build_so *b, const char *key, const char *so,
	   const char *ptx)
{
	struct built k;

	memset(&k, 0, sizeof(k));
	memcpy(k.key, key, sizeof(k.key));
	k.so = ks_xasprintf("%s/%s-%s.so", b->workdir, b->name, key);
	unlink(k.so);
	if (link(so, k.so)) {
		free(k.so);
		return;
	}
	if (b->keep_ptx) {
		k.ptx = ks_xasprintf("%s/%s-%s.ptx", b->workdir, b->name, key);
		unlink(k.ptx);
		if (link(ptx, k.ptx)) {
			unlink(k.so);
			free(k.so);
			free(k.ptx);
			return;
		}
	}
	builts = ks_xrealloc(builts, (nbuilt + 1) * sizeof(*builts));
	builts[nbuilt++] = k;
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
	const struct built *hit;
	char key[17];
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
	build_key(b, &argv, key);
	hit = built_find(key);
	if (hit && !built_use(hit, path, ptx)) {
		ks_buf_addf(log, "(built before in this run: %s)\n", hit->so);
		*so = path;
		path = NULL;
		rc = 0;
		goto out;
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
	built_keep(b, key, path, ptx);
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
