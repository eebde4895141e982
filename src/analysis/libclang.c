#include "libclang.h"

#define _GNU_SOURCE 1	/* dladdr */
#include <ctype.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "../core/buf.h"
#include "../core/fs.h"
#include "../core/log.h"
#include "../core/strv.h"
#include "../core/util.h"
#include "cx.h"

struct ks_cx ks_cx;

static int state;		/* 0: not tried, 1: loaded, -1: failed */
static char *loaded_path;
static char *version;
static int major;
static struct ks_buf failure = KS_BUF_INIT;
static char *wrappers;		/* clang's cuda_wrappers directory, or NULL */

void
ks_libclang_candidates(const char *env, struct ks_strv *out)
{
	int n;

	if (env && *env) {
		ks_strv_push(out, env);
		return;
	}
	/* Newest first: libclang 16 cannot parse CCCL 3 (research: toolchain
	 * §6), so a newer one is always preferred when both are present. */
	for (n = 19; n >= 16; n--) {
		ks_strv_push_owned(out, ks_xasprintf("libclang-%d.so.1", n));
		ks_strv_push_owned(
			out,
			ks_xasprintf("/usr/lib/llvm-%d/lib/libclang-%d.so.1", n,
				     n));
		ks_strv_push_owned(
			out,
			ks_xasprintf("/usr/lib/llvm-%d/lib/libclang.so.1", n));
	}
	ks_strv_push(out, "libclang.so.1");
	ks_strv_push(out, "libclang.so");
}

int
ks_libclang_parse_major(const char *v)
{
	const char *s = v ? strstr(v, "version ") : NULL;

	if (!s)
		return 0;
	s += strlen("version ");
	return isdigit((unsigned char)*s) ? atoi(s) : 0;
}

/* An address inside the library (for dladdr). */
static void *
p_of(const struct ks_cx *t)
{
	void *p;

	memcpy(&p, &t->getClangVersion, sizeof(p));
	return p;
}

void
ks_libclang_wrapper_candidates(const char *file, const char *clang_version,
			       struct ks_strv *out)
{
	const char *v = clang_version ? strstr(clang_version, "version ") : NULL;
	char full[32] = "";
	int mj = ks_libclang_parse_major(clang_version);

	if (v) {
		size_t n;

		v += strlen("version ");
		n = strspn(v, "0123456789.");
		if (n && n < sizeof(full))
			memcpy(full, v, n), full[n] = '\0';
	}
	if (!mj)
		return;
	/* Debian's libclang takes /usr/include/clang/<version> */
	if (*full)
		ks_strv_push_owned(out, ks_xasprintf(
			"/usr/include/clang/%s/include/cuda_wrappers", full));
	if (file && *file) {
		char *real = ks_fs_realpath(file);
		const char *f = real ? real : file;
		const char *slash = strrchr(f, '/');

		if (slash) {
			ks_strv_push_owned(out, ks_xasprintf(
				"%.*s/clang/%d/include/cuda_wrappers",
				(int)(slash - f), f, mj));
			if (*full)
				ks_strv_push_owned(out, ks_xasprintf(
					"%.*s/clang/%s/include/cuda_wrappers",
					(int)(slash - f), f, full));
		}
		free(real);
	}
	ks_strv_push_owned(out, ks_xasprintf(
		"/usr/lib/llvm-%d/lib/clang/%d/include/cuda_wrappers", mj, mj));
}

const char *
ks_libclang_cuda_wrappers(void)
{
	return state > 0 ? wrappers : NULL;
}

/* Fill `t` from `h`; returns the name of the first missing function. */
static const char *
resolve(void *h, struct ks_cx *t)
{
	void *p;

#define KS_CX_RESOLVE(name)                                                 \
	p = dlsym(h, "clang_" #name);                                       \
	if (!p)                                                             \
		return "clang_" #name;                                      \
	memcpy(&t->name, &p, sizeof(p));
	KS_CX_REQUIRED(KS_CX_RESOLVE)
#undef KS_CX_RESOLVE
	p = dlsym(h, "clang_getCursorBinaryOperatorKind");
	memcpy(&t->getCursorBinaryOperatorKind, &p, sizeof(p));
	p = dlsym(h, "clang_getCursorUnaryOperatorKind");
	memcpy(&t->getCursorUnaryOperatorKind, &p, sizeof(p));
	return NULL;
}

static int
try_load(const char *name, struct ks_buf *why)
{
	struct ks_cx t;
	const char *missing;
	void *h;
	CXString v;

	h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		/* dlerror tells a missing library of its own (libz3, libLLVM)
		 * from a missing file; "not found" alone hides which. */
		const char *de = dlerror();
		size_t nl = strlen(name);

		if (de && !strncmp(de, name, nl) && !strncmp(de + nl, ": ", 2))
			de += nl + 2;
		if (de && !strcmp(de, "cannot open shared object file: "
				      "No such file or directory"))
			de = NULL;
		ks_buf_addf(why, "%s%s: %s", why->len ? "; " : "", name,
			    de ? de : "not found");
		return -1;
	}
	memset(&t, 0, sizeof(t));
	missing = resolve(h, &t);
	if (missing) {
		ks_buf_addf(why, "%s%s: lacks %s", why->len ? "; " : "", name,
			    missing);
		dlclose(h);
		return -1;
	}
	ks_cx = t;
	loaded_path = ks_xstrdup(name);
	v = ks_cx.getClangVersion();
	version = ks_xstrdup(ks_cx.getCString(v) ? ks_cx.getCString(v) : "");
	ks_cx.disposeString(v);
	major = ks_libclang_parse_major(version);
	ks_log("libclang: %s (%s)", loaded_path, version);
	{
		Dl_info di;
		struct ks_strv c = KS_STRV_INIT;
		const char *file = NULL;
		size_t i;

		memset(&di, 0, sizeof(di));
		if (dladdr(p_of(&t), &di) && di.dli_fname)
			file = di.dli_fname;
		ks_libclang_wrapper_candidates(file, version, &c);
		wrappers = NULL;
		for (i = 0; i < c.n && !wrappers; i++) {
			char *probe = ks_xasprintf("%s/new", c.v[i]);

			if (ks_fs_exists(probe))
				wrappers = ks_xstrdup(c.v[i]);
			free(probe);
		}
		ks_strv_release(&c);
		ks_log("libclang: cuda_wrappers %s", wrappers ? wrappers : "not found");
	}
	return 0;
}

static char *setting;
static int configured;

void
ks_libclang_configure(const char *value)
{
	free(setting);
	setting = value ? ks_xstrdup(value) : NULL;
	configured = 1;
}

int
ks_libclang_load(struct ks_buf *err)
{
	struct ks_strv cands = KS_STRV_INIT;
	const char *env = configured ? setting : getenv("KS_LIBCLANG");
	size_t i;

	if (state == 0) {
		struct ks_buf why = KS_BUF_INIT;

		state = -1;
		ks_libclang_candidates(env, &cands);
		for (i = 0; i < cands.n; i++) {
			if (try_load(cands.v[i], &why) == 0) {
				state = 1;
				break;
			}
		}
		if (state < 0) {
			if (env && *env)
				ks_buf_addf(&failure, "KS_LIBCLANG=%s: %s", env,
					    why.buf);
			else
				ks_buf_adds(&failure,
					    "no libclang 16-19 found "
					    "(install libclang-19-dev, or set "
					    "KS_LIBCLANG)");
			ks_log("libclang: %s", why.buf);
		}
		ks_buf_release(&why);
		ks_strv_release(&cands);
	}
	if (state > 0)
		return 0;
	return ks_error(err, "%s", failure.buf);
}

void
ks_libclang_emulate_16(int on)
{
	static int (*bin)(CXCursor), (*un)(CXCursor);

	if (state <= 0)
		return;
	if (on && ks_cx.getCursorBinaryOperatorKind) {
		bin = ks_cx.getCursorBinaryOperatorKind;
		un = ks_cx.getCursorUnaryOperatorKind;
		ks_cx.getCursorBinaryOperatorKind = NULL;
		ks_cx.getCursorUnaryOperatorKind = NULL;
	} else if (!on && bin) {
		ks_cx.getCursorBinaryOperatorKind = bin;
		ks_cx.getCursorUnaryOperatorKind = un;
	}
}

const char *
ks_libclang_path(void)
{
	return state > 0 ? loaded_path : NULL;
}

const char *
ks_libclang_version(void)
{
	return state > 0 ? version : NULL;
}

int
ks_libclang_major(void)
{
	return state > 0 ? major : 0;
}
