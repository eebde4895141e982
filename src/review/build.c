#include "build.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/buf.h"
#include "../core/fs.h"
#include "../core/grow.h"
#include "../core/hash.h"
#include "../core/log.h"
#include "../core/proc.h"
#include "../core/util.h"
#include "../nvcc/args.h"
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

int
ks_build_rec_object_is_own(const struct ks_build_rec *r)
{
	struct ks_strv words = KS_STRV_INIT;
	struct ks_args a;
	struct ks_buf err = KS_BUF_INIT;
	size_t i, cuda = 0;

	if (!r->mode || !strcmp(r->mode, "compile"))
		return 1;
	/* nvcc read NVCC_PREPEND_FLAGS + the command + NVCC_APPEND_FLAGS:
	 * a -x cu among them makes every input CUDA. */
	ks_args_init(&a);
	if (!(r->prepend_flags &&
	      ks_args_split_env(r->prepend_flags, &words, &err))) {
		ks_strv_pushv(&words, (const char *const *)r->command_argv.v,
			      r->command_argv.n);
		if (!(r->append_flags &&
		      ks_args_split_env(r->append_flags, &words, &err)) &&
		    !ks_args_classify(&words, &a, &err))
			for (i = 0; i < a.ninputs; i++)
				cuda += a.inputs[i].lang == KS_LANG_CU;
	}
	ks_args_release(&a);
	ks_strv_release(&words);
	ks_buf_release(&err);
	return cuda == 1;
}

char *
ks_build_rec_own_object_path(const char *dir, const struct ks_build_rec *r)
{
	const char *base = ks_basename(r->path ? r->path : "record");
	size_t n = ks_ends_with(base, ".json") ? strlen(base) - 5 : strlen(base);
	char digest[17];

	ks_hash_once_hex64(r->text ? r->text : "", r->text ? strlen(r->text) : 0,
			   digest);
	return ks_xasprintf("%s/builds/objects/%.*s-%s.o", dir, (int)n, base,
			    digest);
}

/* The most a source's compile alone may take. */
#define KS_OWN_COMPILE_TIMEOUT_MS (10 * 60 * 1000)

/* Remove <objects>/<id>-*.o but `keep`: objects of older versions of a record. */
static void
remove_older(const char *objects, const char *keep)
{
	const char *name = ks_basename(keep), *dash = strrchr(name, '-');
	size_t n = dash ? (size_t)(dash - name + 1) : 0;
	DIR *d = n ? opendir(objects) : NULL;
	struct dirent *de;

	while (d && (de = readdir(d))) {
		char *p;

		if (strncmp(de->d_name, name, n) || !strcmp(de->d_name, name) ||
		    strchr(de->d_name + n, '-') || !ks_ends_with(de->d_name, ".o"))
			continue;
		p = ks_fs_join(objects, de->d_name);
		unlink(p);
		free(p);
	}
	if (d)
		closedir(d);
}

/*
 * The object of the record's source compiled alone: kept, or made now
 * (under a temporary name, renamed into place). 0 with its path in *obj,
 * or -1 with a message.
 */
static int
own_object(const char *dir, const struct ks_build_rec *r, char **obj,
	   struct ks_buf *err)
{
	struct ks_strv argv = KS_STRV_INIT;
	struct ks_buf out = KS_BUF_INIT;
	char *path = ks_build_rec_own_object_path(dir, r);
	char *objects = ks_xasprintf("%s/builds/objects", dir);
	char *tmp = ks_xasprintf("%.*s.tmp%ld.o", (int)(strlen(path) - 2), path,
				 (long)getpid());
	char *pre = ks_xasprintf("NVCC_PREPEND_FLAGS=%s",
				 r->prepend_flags ? r->prepend_flags : "");
	char *app = ks_xasprintf("NVCC_APPEND_FLAGS=%s",
				 r->append_flags ? r->append_flags : "");
	const char *env[3];
	struct ks_proc p;
	int rc = -1;

	*obj = NULL;
	if (ks_fs_exists(path)) {
		*obj = path;
		path = NULL;
		rc = 0;
		goto out;
	}
	if (ks_fs_mkdirs(objects, err))
		goto out;
	ks_strv_push(&argv, r->nvcc ? r->nvcc : "nvcc");
	/* The record's argv is the source's compile alone (onecmd.h),
	 * without outputs; ours is the only -o. */
	if (ks_derive_argv(&ks_derive_manifest, (const char *const *)r->argv.v,
			   r->argv.n, &argv, NULL, err))
		goto out;
	ks_strv_push(&argv, "-o");
	ks_strv_push(&argv, tmp);
	env[0] = pre;
	env[1] = app;
	env[2] = NULL;
	memset(&p, 0, sizeof(p));
	p.argv = (const char *const *)argv.v;
	p.env = env;
	p.cwd = r->cwd;
	out.max = KS_NVCC_LOG_MAX;
	p.out = &out;
	p.err_out = &out;
	p.timeout_ms = KS_OWN_COMPILE_TIMEOUT_MS;
	if (ks_proc_run(&p, err))
		goto out;
	if (p.timed_out || p.status || rename(tmp, path)) {
		ks_buf_rtrim(&out);
		ks_error(err, "compiling %s alone %s%s%.300s", r->source,
			 p.timed_out ? "took too long" : p.status ? "failed" :
			 "left no object", out.len ? ": " : "", out.buf);
		goto out;
	}
	remove_older(objects, path);
	*obj = path;
	path = NULL;
	rc = 0;
out:
	unlink(tmp);
	ks_strv_release(&argv);
	ks_buf_release(&out);
	free(path);
	free(objects);
	free(tmp);
	free(pre);
	free(app);
	return rc;
}

/* Does the object at `path` hold `mangled`? */
static int
file_defines(const char *path, const char *mangled)
{
	struct ks_buf obj = KS_BUF_INIT;
	int has;

	obj.max = KS_OBJECT_MAX_BYTES;
	has = !ks_fs_read(path, &obj, NULL) &&
	      ks_build_object_has(obj.buf, obj.len, mangled);
	ks_buf_release(&obj);
	return has;
}

/* The records whose object holds the name, each object read once. */
struct find {
	const char *mangled;
	struct ks_build_rec *v;
	size_t n, alloc;
	struct ks_strv yes, no;	/* objects read, by answer */
};

static int
collect(struct ks_build_rec *r, const char *path, const char *why, void *ctx)
{
	struct find *f = ctx;
	int has;

	(void)path;
	(void)why;
	if (!r || !r->output || ks_strv_find(&f->no, r->output) >= 0)
		return 0;
	has = ks_strv_find(&f->yes, r->output) >= 0;
	if (!has) {
		has = file_defines(r->output, f->mangled);
		ks_strv_push(has ? &f->yes : &f->no, r->output);
	}
	if (has) {
		f->v = KS_GROW(f->v, f->n, &f->alloc);
		f->v[f->n++] = *r;
		memset(r, 0, sizeof(*r));
	}
	return 0;
}

/* Newest first; records of one command (one time) by path, for a stable order. */
static int
by_time_desc(const void *x, const void *y)
{
	const struct ks_build_rec *a = x, *b = y;
	int c = strcmp(b->time ? b->time : "", a->time ? a->time : "");

	return c ? c : strcmp(a->path ? a->path : "", b->path ? b->path : "");
}

int
ks_build_rec_find(const char *dir, const char *mangled, struct ks_build_rec *r,
		  struct ks_buf *err)
{
	struct find f;
	struct ks_buf why = KS_BUF_INIT;
	size_t i, pick;

	memset(r, 0, sizeof(*r));
	memset(&f, 0, sizeof(f));
	f.mangled = mangled;
	ks_strv_init(&f.yes);
	ks_strv_init(&f.no);
	ks_build_rec_each(dir, collect, &f);
	if (f.n > 1)
		qsort(f.v, f.n, sizeof(*f.v), by_time_desc);
	for (pick = 0; pick < f.n; pick++) {
		struct ks_buf one = KS_BUF_INIT;
		char *obj = NULL;
		int has;

		if (ks_build_rec_object_is_own(&f.v[pick]))
			break;
		/* One source of several: its own compile decides. */
		if (own_object(dir, &f.v[pick], &obj, &one)) {
			ks_log("build record %s: %s", f.v[pick].path, one.buf);
			if (!why.len)
				ks_buf_add(&why, one.buf, one.len);
			ks_buf_release(&one);
			continue;
		}
		has = file_defines(obj, mangled);
		free(obj);
		ks_buf_release(&one);
		if (has)
			break;
	}
	if (pick < f.n) {
		*r = f.v[pick];
		memset(&f.v[pick], 0, sizeof(f.v[pick]));
	}
	for (i = 0; i < f.n; i++)
		ks_build_rec_release(&f.v[i]);
	free(f.v);
	ks_strv_release(&f.yes);
	ks_strv_release(&f.no);
	if (pick >= f.n) {
		ks_error(err, "no build record's object defines %s (build the "
			 "program through ks-nvcc, or name one with --record)%s%s",
			 mangled, why.len ? "; " : "", why.buf);
		ks_buf_release(&why);
		return -1;
	}
	ks_buf_release(&why);
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

/* The target of GPU arch `cc` where the record's compile reaches it only
 * through PTX or an older SASS (ks_args_reach_words). */
static void
add_reach(const struct ks_strv *rec_argv, unsigned cc, struct ks_strv *argv)
{
	struct ks_args a;
	struct ks_buf ignored = KS_BUF_INIT;
	char *real = ks_xasprintf("sm_%u", cc);

	ks_args_init(&a);
	if (!ks_args_classify(rec_argv, &a, &ignored))
		ks_args_reach_words(&a, real, argv);
	ks_args_release(&a);
	ks_buf_release(&ignored);
	free(real);
}

static void
build_key(const struct ks_build_so *b, const struct ks_strv *argv, char out[17])
{
	struct ks_hash h = KS_HASH_INIT;
	size_t i;

	ks_hash_init(&h);
	ks_hash_str(&h, b->rec->cwd);
	ks_hash_str(&h, b->rec->prepend_flags ? b->rec->prepend_flags : "");
	ks_hash_str(&h, b->rec->append_flags ? b->rec->append_flags : "");
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
	char key[17], *pre = NULL, *app = NULL;
	const char *env[3];
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
	if (b->gpu_arch)
		add_reach(&b->rec->argv, b->gpu_arch, &argv);
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
	/* nvcc read the build's NVCC_PREPEND_FLAGS/NVCC_APPEND_FLAGS (a -D
	 * the TU needs may come only from there), not ours. */
	pre = ks_xasprintf("NVCC_PREPEND_FLAGS=%s",
			   b->rec->prepend_flags ? b->rec->prepend_flags : "");
	app = ks_xasprintf("NVCC_APPEND_FLAGS=%s",
			   b->rec->append_flags ? b->rec->append_flags : "");
	env[0] = pre;
	env[1] = app;
	env[2] = NULL;
	memset(&p, 0, sizeof(p));
	p.argv = (const char *const *)argv.v;
	p.env = env;
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
	free(pre);
	free(app);
	return rc;
}
