#include "nvccmacros.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "../core/buf.h"
#include "../core/fs.h"
#include "../core/log.h"
#include "../core/proc.h"
#include "../core/strv.h"
#include "../core/util.h"
#include "nvccver.h"

/*
 * What nvcc defines for every CUDA compile (or for one of its flags:
 * -rdc, --extended-lambda, --expt-relaxed-constexpr) and that code tests
 * in #if. Not here: __CUDA_ARCH__ and __CUDA_ARCH_LIST__ (per arch, set
 * by the parse); __CUDACC_VER__ (a string that only errs);
 * __CUDACC_DEVICE_ATOMIC_BUILTINS__ (would lead CCCL to nvcc's
 * __nv_atomic_* builtins, which clang lacks); __NVCC_DIAG_PRAGMA_SUPPORT__
 * (nv_diag pragmas clang does not know).
 */
static const char *const nvcc_macros[] = {
	"__NVCC__",
	"__CUDACC__",
	"__CUDACC_VER_MAJOR__",
	"__CUDACC_VER_MINOR__",
	"__CUDACC_VER_BUILD__",
	"__CUDACC_RDC__",
	"__CUDACC_EWP__",
	"__CUDACC_EXTENDED_LAMBDA__",
	"__CUDACC_RELAXED_CONSTEXPR__",
};

/* The most bytes of -dM output read (2,300 lines for nvcc 13 and gcc). */
#define KS_NVCCMACROS_TEXT_MAX (1u << 20)

static int
known(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < KS_ARRAY_SIZE(nvcc_macros); i++)
		if (strlen(nvcc_macros[i]) == len &&
		    !memcmp(nvcc_macros[i], name, len))
			return 1;
	return 0;
}

static void
push_pair(struct ks_strv *out, const char *name, size_t nlen,
	  const char *value, size_t vlen)
{
	ks_strv_push_owned(out, ks_xasprintf("-U%.*s", (int)nlen, name));
	ks_strv_push_owned(out, ks_xasprintf("-D%.*s=%.*s", (int)nlen, name,
					     (int)vlen, value));
}

int
ks_nvccmacros_parse(const char *text, struct ks_strv *out)
{
	struct ks_strv got = KS_STRV_INIT;
	const char *line = text;
	int n = 0, nvcc = 0, cudacc = 0;
	size_t i;

	while (line && *line) {
		const char *end = strchr(line, '\n'), *name, *value, *v;
		size_t nlen, vlen;

		if (!end)
			end = line + strlen(line);
		if (!ks_starts_with(line, "#define "))
			goto next;
		name = line + 8;
		for (v = name; v < end && *v != ' '; v++)
			;
		nlen = (size_t)(v - name);
		if (v >= end || !known(name, nlen))
			goto next;
		value = v + 1;
		vlen = (size_t)(end - value);
		while (vlen && (value[vlen - 1] == '\r' ||
				value[vlen - 1] == ' '))
			vlen--;
		/* Integers only: what an #if compares, and safe as an argv. */
		if (!vlen || vlen > 20)
			goto next;
		for (i = 0; i < vlen; i++)
			if (!isdigit((unsigned char)value[i]))
				break;
		if (i < vlen)
			goto next;
		nvcc |= nlen == 8 && !memcmp(name, "__NVCC__", 8);
		cudacc |= nlen == 10 && !memcmp(name, "__CUDACC__", 10);
		push_pair(&got, name, nlen, value, vlen);
		n++;
	next:
		line = *end ? end + 1 : NULL;
	}
	if (!nvcc || !cudacc) {
		ks_strv_release(&got);
		return -1;
	}
	for (i = 0; i < got.n; i++)
		ks_strv_push(out, got.v[i]);
	ks_strv_release(&got);
	return n;
}

int
ks_nvccmacros_from_version(const char *version, struct ks_strv *out)
{
	static const char *const names[] = { "__CUDACC_VER_MAJOR__",
					     "__CUDACC_VER_MINOR__",
					     "__CUDACC_VER_BUILD__" };
	const char *p = version;
	size_t k;

	if (!version || !ks_nvccver_valid(version, strlen(version)))
		return -1;
	push_pair(out, "__NVCC__", 8, "1", 1);
	push_pair(out, "__CUDACC__", 10, "1", 1);
	for (k = 0; k < KS_ARRAY_SIZE(names); k++) {
		size_t len = *p ? strcspn(p, ".") : 0;

		push_pair(out, names[k], strlen(names[k]), len ? p : "0",
			  len ? len : 1);
		p += len;
		if (*p == '.')
			p++;
	}
	return 5;
}

/* The -dM lines of nvcc's table only: what the cache keeps. */
static void
keep_lines(const struct ks_strv *pairs, struct ks_buf *text)
{
	size_t i;

	for (i = 1; i < pairs->n; i += 2) {
		const char *d = pairs->v[i] + 2, *eq = strchr(d, '=');

		ks_buf_addf(text, "#define %.*s %s\n", (int)(eq - d), d,
			    eq + 1);
	}
}

static int
ask(const char *nvcc, struct ks_strv *out, struct ks_buf *err)
{
	const char *argv[] = { nvcc, "-E", "-Xcompiler", "-dM", "-x", "cu",
			       "/dev/null", NULL };
	struct ks_buf text = KS_BUF_INIT, errtext = KS_BUF_INIT;
	struct ks_proc p = { 0 };
	int rc = -1;

	text.max = KS_NVCCMACROS_TEXT_MAX;
	errtext.max = 1 << 16;
	p.argv = argv;
	p.out = &text;
	p.err_out = &errtext;
	p.timeout_ms = 60000;
	if (ks_proc_run(&p, err))
		goto out;
	if (p.status || p.truncated) {
		ks_error(err, "'%s -E -Xcompiler -dM' %s", nvcc,
			 p.status ? "failed" : "said too much");
		goto out;
	}
	rc = ks_nvccmacros_parse(text.buf, out);
	if (rc < 0)
		ks_error(err, "'%s -E -Xcompiler -dM' defined no __CUDACC__",
			 nvcc);
out:
	ks_buf_release(&text);
	ks_buf_release(&errtext);
	return rc;
}

int
ks_nvccmacros_get(const char *dir, const char *nvcc, const char *version,
		  struct ks_strv *out, struct ks_buf *err)
{
	struct ks_strv got = KS_STRV_INIT;
	struct ks_buf cached = KS_BUF_INIT, why = KS_BUF_INIT;
	char *path = ks_nvccver_cache_path(dir, nvcc, NULL, ".macros");
	int n = -1;
	size_t i;

	cached.max = 1 << 16;
	if (path && !ks_fs_read(path, &cached, NULL))
		n = ks_nvccmacros_parse(cached.buf, &got);
	/* Absent, unreadable or damaged: ask, and rewrite it. */
	if (n < 0 && nvcc) {
		n = ask(nvcc, &got, &why);
		if (n >= 0 && path) {
			struct ks_buf text = KS_BUF_INIT, werr = KS_BUF_INIT;

			keep_lines(&got, &text);
			/* Failing to remember is harmless: asked again. */
			if (ks_fs_write_atomic(path, text.buf, text.len,
					       &werr))
				ks_log("cannot cache nvcc macros: %s",
				       werr.buf);
			ks_buf_release(&text);
			ks_buf_release(&werr);
		} else if (n < 0) {
			ks_log("nvcc macros from the version: %s", why.buf);
		}
	}
	if (n < 0)
		n = ks_nvccmacros_from_version(version, &got);
	if (n < 0)
		ks_error(err, "no nvcc to ask and no nvcc version%s%s",
			 why.len ? ": " : "", why.buf);
	for (i = 0; n >= 0 && i < got.n; i++)
		ks_strv_push(out, got.v[i]);
	ks_strv_release(&got);
	ks_buf_release(&cached);
	ks_buf_release(&why);
	free(path);
	return n;
}
