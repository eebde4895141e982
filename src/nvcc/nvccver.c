#include "nvccver.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../core/buf.h"
#include "../core/fs.h"
#include "../core/hash.h"
#include "../core/log.h"
#include "../core/proc.h"
#include "../core/util.h"

int
ks_nvccver_valid(const char *s, size_t len)
{
	size_t i, groups = 0, digits = 0;

	if (len > KS_NVCCVER_MAX)
		return 0;
	for (i = 0; i < len; i++) {
		if (isdigit((unsigned char)s[i])) {
			digits++;
		} else if (s[i] == '.' && digits) {
			groups++;
			digits = 0;
		} else {
			return 0;
		}
	}
	return digits && groups >= 1;
}

int
ks_nvccver_parse(const char *text, struct ks_buf *out, struct ks_buf *err)
{
	const char *p;

	/* "Cuda compilation tools, release 13.0, V13.0.88" */
	for (p = strstr(text, ", V"); p; p = strstr(p + 1, ", V")) {
		const char *v = p + 3, *e = v;

		while (isdigit((unsigned char)*e) || *e == '.')
			e++;
		if (ks_nvccver_valid(v, (size_t)(e - v))) {
			ks_buf_add(out, v, (size_t)(e - v));
			return 0;
		}
	}
	return ks_error(err, "no version in nvcc --version output");
}

static int
ask(const char *nvcc, struct ks_buf *out, struct ks_buf *err)
{
	const char *argv[] = { nvcc, "--version", NULL };
	struct ks_buf text = KS_BUF_INIT, errtext = KS_BUF_INIT;
	struct ks_proc p = { 0 };
	int rc = -1;

	text.max = errtext.max = 1 << 16;
	p.argv = argv;
	p.out = &text;
	p.err_out = &errtext;
	p.timeout_ms = 60000;
	if (ks_proc_run(&p, err))
		goto out;
	if (p.status) {
		ks_error(err, "'%s --version' exited with %d", nvcc, p.status);
		goto out;
	}
	rc = ks_nvccver_parse(text.buf, out, err);
out:
	ks_buf_release(&text);
	ks_buf_release(&errtext);
	return rc;
}

char *
ks_nvccver_cache_path(const char *dir, const char *program, const char *salt,
		      const char *ext)
{
	struct ks_hash h = KS_HASH_INIT;
	char *real, *path, id[17];
	struct stat st;

	if (!dir || !program || !(real = ks_fs_realpath(program)))
		return NULL;
	if (stat(real, &st)) {
		free(real);
		return NULL;
	}
	ks_hash_init(&h);
	if (salt)
		ks_hash_str(&h, salt);
	ks_hash_str(&h, real);
	ks_hash_u64(&h, (unsigned long long)st.st_size);
	ks_hash_u64(&h, (unsigned long long)st.st_mtime);
	ks_hash_u64(&h, (unsigned long long)st.st_ino);
	ks_hash_hex64(&h, id);
	ks_hash_release(&h);
	path = ks_xasprintf("%s/nvcc/%s%s", dir, id, ext);
	free(real);
	return path;
}

int
ks_nvccver_get(const char *dir, const char *nvcc, struct ks_buf *out,
	       struct ks_buf *err)
{
	struct ks_buf cached = KS_BUF_INIT, werr = KS_BUF_INIT;
	char *path = ks_nvccver_cache_path(dir, nvcc, NULL, "");
	int rc;

	if (!path)
		return ask(nvcc, out, err);
	cached.max = 256;
	rc = ks_fs_read(path, &cached, NULL);
	ks_buf_rtrim(&cached);
	if (!rc && ks_nvccver_valid(cached.buf, cached.len)) {
		ks_buf_add(out, cached.buf, cached.len);
		rc = 0;
	} else {
		/* Absent, unreadable, or damaged ("13."): ask, and rewrite it. */
		size_t start = out->len;

		rc = ask(nvcc, out, err);
		/* Failing to remember is harmless: the next compile asks again. */
		if (!rc && ks_fs_write_atomic(path, out->buf + start,
					      out->len - start, &werr))
			ks_log("cannot cache nvcc version: %s", werr.buf);
	}
	ks_buf_release(&cached);
	ks_buf_release(&werr);
	free(path);
	return rc;
}
