#include "manifest.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../core/buf.h"
#include "../core/grow.h"
#include "../core/fs.h"
#include "../core/hash.h"
#include "../core/log.h"
#include "../core/proc.h"
#include "../core/strv.h"
#include "../core/util.h"
#include "derive.h"

void
ks_manifest_entry_release(struct ks_manifest_entry *e)
{
	size_t i;

	for (i = 0; i < e->nheaders; i++)
		free(e->headers[i].path);
	for (i = 0; i < e->nkernels; i++) {
		free(e->kernels[i].arch);
		free(e->kernels[i].mangled);
	}
	free(e->headers);
	free(e->kernels);
	memset(e, 0, sizeof(*e));
}

void
ks_manifest_release(struct ks_manifest *m)
{
	size_t i;

	for (i = 0; i < m->nentries; i++)
		ks_manifest_entry_release(&m->entries[i]);
	free(m->entries);
	free(m->source);
	memset(m, 0, sizeof(*m));
}

void
ks_manifest_entry_add_header(struct ks_manifest_entry *e, const char *path,
			     const char *hash, long long size, int system)
{
	struct ks_manifest_header *h;

	e->headers = KS_GROW(e->headers, e->nheaders, NULL);
	h = &e->headers[e->nheaders++];
	h->path = ks_xstrdup(path);
	snprintf(h->hash, sizeof(h->hash), "%s", system || !hash ? "" : hash);
	h->size = system ? -1 : size;
	h->system = system;
}

void
ks_manifest_entry_add_kernel(struct ks_manifest_entry *e, const char *key,
			     const char *arch, const char *mangled)
{
	struct ks_manifest_kernel *k;

	e->kernels = KS_GROW(e->kernels, e->nkernels, NULL);
	k = &e->kernels[e->nkernels++];
	snprintf(k->key, sizeof(k->key), "%s", key);
	k->arch = ks_xstrdup(arch);
	k->mangled = ks_xstrdup(mangled);
}

static void
entry_copy(struct ks_manifest_entry *dst, const struct ks_manifest_entry *src)
{
	size_t i;

	memset(dst, 0, sizeof(*dst));
	for (i = 0; i < src->nheaders; i++)
		ks_manifest_entry_add_header(dst, src->headers[i].path,
					     src->headers[i].hash,
					     src->headers[i].size,
					     src->headers[i].system);
	for (i = 0; i < src->nkernels; i++)
		ks_manifest_entry_add_kernel(dst, src->kernels[i].key,
					     src->kernels[i].arch,
					     src->kernels[i].mangled);
}

void
ks_manifest_normalize_argv(const struct ks_strv *argv, struct ks_strv *out)
{
	ks_derive_argv(&ks_derive_manifest, (const char *const *)argv->v, argv->n,
		       out, NULL, NULL);
}

void
ks_manifest_id(const void *tu, size_t tu_len, const char *cwd,
	       const struct ks_strv *argv, const char *nvcc_version,
	       char out[33])
{
	struct ks_strv norm = KS_STRV_INIT;
	struct ks_hash h = KS_HASH_INIT;
	size_t i;

	ks_manifest_normalize_argv(argv, &norm);
	ks_hash_init(&h);
	ks_hash_str(&h, "ks-manifest");
	ks_hash_u64(&h, KS_MANIFEST_FORMAT);
	ks_hash_str(&h, cwd);
	ks_hash_u64(&h, norm.n);
	for (i = 0; i < norm.n; i++)
		ks_hash_str(&h, norm.v[i]);
	ks_hash_str(&h, nvcc_version);
	ks_hash_u64(&h, tu_len);
	ks_hash_bytes(&h, tu, tu_len);
	ks_hash_hex128(&h, out);
	ks_hash_release(&h);
	ks_strv_release(&norm);
}

void
ks_manifest_parse_deps(const char *text, struct ks_strv *out)
{
	struct ks_buf word = KS_BUF_INIT;
	const char *s;
	int in_prereqs = 0;

	for (s = text;; s++) {
		int end_word = 0, end_rule = 0;

		if (*s == '\\' && s[1] == '\n') {
			s++;
			end_word = 1;
		} else if (*s == '\\' && s[1] == '\r' && s[2] == '\n') {
			s += 2;
			end_word = 1;
		} else if (*s == '\\' && s[1] == ' ') {
			ks_buf_addch(&word, ' ');
			s++;
			continue;
		} else if (*s == ' ' || *s == '\t' || *s == '\r') {
			end_word = 1;
		} else if (*s == '\n' || *s == '\0') {
			end_word = end_rule = 1;
		} else if (*s == ':' && !in_prereqs &&
			   (s[1] == ' ' || s[1] == '\t' || s[1] == '\n' ||
			    s[1] == '\0' || s[1] == '\\')) {
			/* the end of the targets ("C:\x" is not: no blank) */
			ks_buf_reset(&word);
			in_prereqs = 1;
			continue;
		} else {
			ks_buf_addch(&word, *s);
			continue;
		}
		if (end_word && word.len) {
			if (in_prereqs && ks_strv_find(out, word.buf) < 0)
				ks_strv_push(out, word.buf);
			ks_buf_reset(&word);
		}
		if (end_rule)
			in_prereqs = 0;
		if (!*s)
			break;
	}
	ks_buf_release(&word);
}

char *
ks_manifest_path(const char *dir, const char *id)
{
	return ks_xasprintf("%s/manifests/%.2s/%s", dir, id, id);
}

static int
is_hex32(const char *s, size_t n)
{
	size_t i;

	if (n != 32)
		return 0;
	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		      (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

/* Split off the next space-separated field of *p. */
static int
field(const char **p, const char **start, size_t *len)
{
	const char *s = *p, *e;

	if (!*s)
		return 0;
	e = strchr(s, ' ');
	if (!e)
		e = s + strlen(s);
	*start = s;
	*len = (size_t)(e - s);
	*p = *e ? e + 1 : e;
	return *len > 0;
}

static int
parse_line(struct ks_manifest *m, struct ks_manifest_entry **cur, const char *l,
	   struct ks_buf *err)
{
	const char *p, *f;
	size_t n;

	if (!strcmp(l, "entry")) {
		if (*cur)
			return ks_error(err, "entry inside an entry");
		m->entries = KS_GROW(m->entries, m->nentries, NULL);
		*cur = &m->entries[m->nentries++];
		memset(*cur, 0, sizeof(**cur));
		return 0;
	}
	if (!strcmp(l, "end")) {
		if (!*cur)
			return ks_error(err, "end outside an entry");
		*cur = NULL;
		return 0;
	}
	if (ks_starts_with(l, "source ")) {
		free(m->source);
		m->source = ks_xstrdup(l + 7);
		return 0;
	}
	if (!*cur)
		return ks_error(err, "record outside an entry");
	if (ks_starts_with(l, "header ")) {
		char hash[33], *end;
		long long size;

		p = l + 7;
		if (!field(&p, &f, &n) || !is_hex32(f, n))
			return ks_error(err, "bad header hash");
		memcpy(hash, f, 32);
		hash[32] = '\0';
		if (!field(&p, &f, &n))
			return ks_error(err, "bad header size");
		errno = 0;
		size = strtoll(f, &end, 10);
		if (errno || end != f + n || size < 0)
			return ks_error(err, "bad header size");
		if (!*p)
			return ks_error(err, "header without a path");
		ks_manifest_entry_add_header(*cur, p, hash, size, 0);
		return 0;
	}
	if (ks_starts_with(l, "system ")) {
		if (!l[7])
			return ks_error(err, "system header without a path");
		ks_manifest_entry_add_header(*cur, l + 7, NULL, -1, 1);
		return 0;
	}
	if (ks_starts_with(l, "kernel ")) {
		char key[33], *arch;

		p = l + 7;
		if (!field(&p, &f, &n) || !is_hex32(f, n))
			return ks_error(err, "bad kernel key");
		memcpy(key, f, 32);
		key[32] = '\0';
		if (!field(&p, &f, &n) || !*p || strchr(p, ' '))
			return ks_error(err, "bad kernel line");
		arch = ks_xstrndup(f, n);
		ks_manifest_entry_add_kernel(*cur, key, arch, p);
		free(arch);
		return 0;
	}
	return ks_error(err, "unknown record");
}

int
ks_manifest_parse(const char *text, struct ks_manifest *m, struct ks_buf *err)
{
	struct ks_manifest_entry *cur = NULL;
	const char *s = text, *nl;
	char *line;
	int lineno = 0, rc = 0;

	memset(m, 0, sizeof(*m));
	while (*s && !rc) {
		nl = strchr(s, '\n');
		line = ks_xstrndup(s, nl ? (size_t)(nl - s) : strlen(s));
		lineno++;
		if (lineno == 1) {
			char want[32];

			snprintf(want, sizeof(want), "ks-manifest %d",
				 KS_MANIFEST_FORMAT);
			if (strcmp(line, want)) {
				ks_error(err, "not a ks manifest of format %d",
					 KS_MANIFEST_FORMAT);
				rc = -1;
			}
		} else if (*line && parse_line(m, &cur, line, err)) {
			ks_error(err, "manifest line %d", lineno);
			rc = -1;
		}
		free(line);
		s = nl ? nl + 1 : s + strlen(s);
	}
	if (!rc && lineno == 0)
		rc = ks_error(err, "empty manifest");
	if (!rc && cur)
		rc = ks_error(err, "manifest ends inside an entry");
	if (rc)
		ks_manifest_release(m);
	return rc;
}

void
ks_manifest_format(const struct ks_manifest *m, struct ks_buf *out)
{
	size_t i, j;

	ks_buf_addf(out, "ks-manifest %d\n", KS_MANIFEST_FORMAT);
	if (m->source)
		ks_buf_addf(out, "source %s\n", m->source);
	for (i = 0; i < m->nentries; i++) {
		const struct ks_manifest_entry *e = &m->entries[i];

		ks_buf_adds(out, "entry\n");
		for (j = 0; j < e->nheaders; j++) {
			const struct ks_manifest_header *h = &e->headers[j];

			if (h->system)
				ks_buf_addf(out, "system %s\n", h->path);
			else
				ks_buf_addf(out, "header %s %lld %s\n", h->hash,
					    h->size, h->path);
		}
		for (j = 0; j < e->nkernels; j++)
			ks_buf_addf(out, "kernel %s %s %s\n", e->kernels[j].key,
				    e->kernels[j].arch, e->kernels[j].mangled);
		ks_buf_adds(out, "end\n");
	}
}

static int
same_headers(const struct ks_manifest_entry *a,
	     const struct ks_manifest_entry *b)
{
	size_t i;

	if (a->nheaders != b->nheaders)
		return 0;
	for (i = 0; i < a->nheaders; i++)
		if (strcmp(a->headers[i].path, b->headers[i].path) ||
		    strcmp(a->headers[i].hash, b->headers[i].hash) ||
		    a->headers[i].system != b->headers[i].system)
			return 0;
	return 1;
}

void
ks_manifest_add_entry(struct ks_manifest *m, const struct ks_manifest_entry *e)
{
	size_t i, n = 0;
	struct ks_manifest_entry *v = ks_xcalloc(m->nentries + 1, sizeof(*v));

	entry_copy(&v[n++], e);
	for (i = 0; i < m->nentries; i++) {
		if (n < KS_MANIFEST_MAX_ENTRIES &&
		    !same_headers(&m->entries[i], e))
			v[n++] = m->entries[i];
		else
			ks_manifest_entry_release(&m->entries[i]);
	}
	free(m->entries);
	m->entries = v;
	m->nentries = n;
}

const struct ks_manifest_entry *
ks_manifest_match(const struct ks_manifest *m, ks_manifest_digest_fn digest,
		  void *ctx)
{
	size_t i, j;

	for (i = 0; i < m->nentries; i++) {
		const struct ks_manifest_entry *e = &m->entries[i];

		for (j = 0; j < e->nheaders; j++) {
			const struct ks_manifest_header *h = &e->headers[j];
			char hash[33] = "";
			long long size = -1;

			if (h->system)
				continue;
			if (digest(h->path, h->size, hash, &size, ctx) ||
			    size != h->size || strcmp(hash, h->hash))
				break;
		}
		if (j == e->nheaders)
			return e;
	}
	return NULL;
}

int
ks_manifest_file_digest(const char *path, long long known_size, char hash[33],
			long long *size, void *ctx)
{
	struct ks_buf data = KS_BUF_INIT;
	struct ks_hash h = KS_HASH_INIT;
	struct stat st;

	(void)ctx;
	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return -1;
	*size = (long long)st.st_size;
	hash[0] = '\0';
	/* A different size is a different file: no need to read it. */
	if (known_size >= 0 && *size != known_size)
		return 0;
	if (ks_fs_read(path, &data, NULL)) {
		ks_buf_release(&data);
		return -1;
	}
	*size = (long long)data.len;
	ks_hash_init(&h);
	ks_hash_bytes(&h, data.buf, data.len);
	ks_hash_hex128(&h, hash);
	ks_hash_release(&h);
	ks_buf_release(&data);
	return 0;
}

int
ks_manifest_lookup(const char *dir, const char *id,
		   struct ks_manifest_entry *out, struct ks_buf *err)
{
	char *path = ks_manifest_path(dir, id);
	struct ks_buf text = KS_BUF_INIT;
	struct ks_manifest m;
	const struct ks_manifest_entry *e;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	memset(&m, 0, sizeof(m));
	if (!ks_fs_exists(path))
		goto out;
	text.max = KS_MANIFEST_TU_MAX_BYTES;
	if (ks_fs_read(path, &text, err) ||
	    ks_manifest_parse(text.buf, &m, err)) {
		rc = ks_error(err, "manifest '%s'", path);
		goto out;
	}
	e = ks_manifest_match(&m, ks_manifest_file_digest, NULL);
	if (e) {
		entry_copy(out, e);
		rc = 1;
	}
out:
	ks_manifest_release(&m);
	ks_buf_release(&text);
	free(path);
	return rc;
}

int
ks_manifest_store(const char *dir, const char *id, const char *source,
		  const struct ks_manifest_entry *e, int lock_timeout_ms,
		  struct ks_buf *err)
{
	char *path = ks_manifest_path(dir, id);
	struct ks_lock lock = KS_LOCK_INIT;
	struct ks_buf text = KS_BUF_INIT, ignored = KS_BUF_INIT;
	struct ks_manifest m;
	size_t i;
	int rc = -1;

	memset(&m, 0, sizeof(m));
	/* A path with a newline cannot be written in a line format. */
	for (i = 0; i < e->nheaders; i++)
		if (strchr(e->headers[i].path, '\n')) {
			ks_error(err, "header path with a newline: '%s'",
				 e->headers[i].path);
			goto out;
		}
	if (strchr(source, '\n')) {
		ks_error(err, "source path with a newline");
		goto out;
	}
	{
		char *d = ks_xstrdup(path);

		*strrchr(d, '/') = '\0';
		rc = ks_fs_mkdirs(d, err);
		free(d);
		if (rc)
			goto out;
		rc = -1;
	}
	if (ks_lock_acquire(&lock, path, lock_timeout_ms, err))
		goto out;
	text.max = KS_MANIFEST_TU_MAX_BYTES;
	if (ks_fs_exists(path) &&
	    (ks_fs_read(path, &text, &ignored) ||
	     ks_manifest_parse(text.buf, &m, &ignored)))
		memset(&m, 0, sizeof(m));	/* unreadable: start afresh */
	free(m.source);
	m.source = ks_xstrdup(source);
	ks_manifest_add_entry(&m, e);
	ks_buf_reset(&text);
	ks_manifest_format(&m, &text);
	rc = ks_fs_write_atomic(path, text.buf, text.len, err);
out:
	ks_lock_release(&lock);
	ks_manifest_release(&m);
	ks_buf_release(&text);
	ks_buf_release(&ignored);
	free(path);
	return rc;
}

/* ---- the writer ----------------------------------------------------------- */

/* nvcc's argv for `nvcc -M`: the compile without outputs and phases. */
static void
deps_argv(const struct ks_strv *argv, struct ks_strv *out)
{
	struct ks_derived seen;

	ks_derive_argv(&ks_derive_deps, (const char *const *)argv->v, argv->n, out,
		       &seen, NULL);
	if (seen.device_c)
		ks_strv_push(out, "-rdc=true");
	ks_strv_push(out, "-M");
}

/* The files the TU includes, from nvcc -M, else the build's depfile. */
static int
included_files(const struct ks_manifest_build *b, struct ks_strv *files, struct ks_buf *err)
{
	struct ks_strv argv = KS_STRV_INIT;
	struct ks_buf out = KS_BUF_INIT, eout = KS_BUF_INIT, text = KS_BUF_INIT;
	/* the argv already holds NVCC_PREPEND/APPEND_FLAGS' words */
	static const char *const env[] = { "NVCC_PREPEND_FLAGS=",
					   "NVCC_APPEND_FLAGS=", NULL };
	int rc = -1;

	out.max = eout.max = text.max = KS_MANIFEST_TU_MAX_BYTES;
	if (b->nvcc) {
		struct ks_proc p;

		memset(&p, 0, sizeof(p));
		ks_strv_push(&argv, b->nvcc);
		deps_argv(b->argv, &argv);
		p.argv = (const char *const *)argv.v;
		p.env = env;
		p.cwd = b->cwd;
		p.out = &out;
		p.err_out = &eout;
		p.timeout_ms = 120000;
		if (ks_proc_run(&p, err) == 0 && p.status == 0 &&
		    !p.timed_out) {
			ks_manifest_parse_deps(out.buf, files);
			rc = 0;
			goto out;
		}
		ks_log("analyze: nvcc -M failed (status %d): %s", p.status,
		       eout.buf);
	}
	if (b->depfile && ks_fs_read(b->depfile, &text, err) == 0) {
		ks_manifest_parse_deps(text.buf, files);
		rc = 0;
		goto out;
	}
	ks_buf_reset(err);
	ks_error(err, "cannot list the headers of '%s' (nvcc -M failed and no "
		      "depfile)", b->source);
out:
	ks_strv_release(&argv);
	ks_buf_release(&out);
	ks_buf_release(&eout);
	ks_buf_release(&text);
	return rc;
}

int
ks_manifest_write(const char *dir, const struct ks_manifest_build *b,
		  const struct ks_manifest_kernel *kernels, size_t nkernels,
		  char **path, struct ks_buf *err)
{
	struct ks_strv files = KS_STRV_INIT;
	struct ks_manifest_entry e;
	struct ks_buf tu = KS_BUF_INIT;
	char *toolkit = b->toolkit ? ks_fs_realpath(b->toolkit) : NULL;
	const char *source = b->source;
	char id[33];
	size_t i;
	int rc = -1;

	*path = NULL;
	memset(&e, 0, sizeof(e));
	if (included_files(b, &files, err) || ks_fs_read(source, &tu, err))
		goto out;
	for (i = 0; i < files.n; i++) {
		char *abs = files.v[i][0] == '/' ? ks_fs_realpath(files.v[i])
						 : NULL;
		char hash[33];
		long long size;

		if (!abs) {
			char *p = ks_fs_join(b->cwd, files.v[i]);

			abs = ks_fs_realpath(p);
			free(p);
		}
		if (!abs) {
			ks_error(err, "cannot find header '%s'", files.v[i]);
			goto out;
		}
		if (!strcmp(abs, source)) {
			free(abs);
			continue;
		}
		if (toolkit && ks_starts_with(abs, toolkit) &&
		    abs[strlen(toolkit)] == '/') {
			ks_manifest_entry_add_header(&e, abs, NULL, -1, 1);
		} else if (ks_manifest_file_digest(abs, -1, hash, &size,
						   NULL) == 0) {
			ks_manifest_entry_add_header(&e, abs, hash, size, 0);
		} else {
			ks_error(err, "cannot read header '%s'", abs);
			free(abs);
			goto out;
		}
		free(abs);
	}
	for (i = 0; i < nkernels; i++)
		ks_manifest_entry_add_kernel(&e, kernels[i].key, kernels[i].arch,
					     kernels[i].mangled);
	ks_manifest_id(tu.buf, tu.len, b->cwd, b->argv, b->nvcc_version, id);
	if (ks_manifest_store(dir, id, source, &e, b->lock_timeout_ms, err))
		goto out;
	*path = ks_manifest_path(dir, id);
	rc = 0;
out:
	ks_manifest_entry_release(&e);
	ks_strv_release(&files);
	ks_buf_release(&tu);
	free(toolkit);
	return rc;
}
