#include "hostinc.h"

#include <stdlib.h>
#include <string.h>

#include "../core/buf.h"
#include "../core/fs.h"
#include "../core/log.h"
#include "../core/proc.h"
#include "../core/strv.h"
#include "../core/util.h"
#include "nvccver.h"

/* The most bytes of -v output read (about 2 KB for gcc). */
#define KS_HOSTINC_TEXT_MAX (1u << 18)
#define KS_HOSTINC_START "#include <...> search starts here:"
#define KS_HOSTINC_END "End of search list."

int
ks_hostinc_parse(const char *text, struct ks_strv *out)
{
	struct ks_strv got = KS_STRV_INIT;
	const char *line = text ? strstr(text, KS_HOSTINC_START) : NULL;
	int n = 0, ended = 0;
	size_t i;

	if (!line)
		return -1;
	line = strchr(line, '\n');
	while (line && *line) {
		const char *end, *s;
		size_t len;

		line++;
		end = strchr(line, '\n');
		if (!end)
			end = line + strlen(line);
		if (ks_starts_with(line, KS_HOSTINC_END)) {
			ended = 1;
			break;
		}
		for (s = line; s < end && (*s == ' ' || *s == '\t'); s++)
			;
		len = (size_t)(end - s);
		while (len && (s[len - 1] == '\r' || s[len - 1] == ' '))
			len--;
		if (len > 22 && !memcmp(s + len - 22, " (framework directory)",
					22))
			len -= 22;
		if (len && *s == '/') {
			ks_strv_push_owned(&got, ks_xstrndup(s, len));
			n++;
		}
		line = *end ? end : NULL;
	}
	if (!ended) {
		ks_strv_release(&got);
		return -1;
	}
	for (i = 0; i < got.n; i++)
		ks_strv_push(out, got.v[i]);
	ks_strv_release(&got);
	return n;
}

char *
ks_hostinc_compiler(const char *ccbin, int ccbin_is_dir)
{
	if (!ccbin || !*ccbin)
		return ks_xstrdup("g++");
	if (ccbin_is_dir)
		return ks_fs_join(ccbin, "g++");
	return ks_xstrdup(ccbin);
}

static int
ask(const char *compiler, struct ks_strv *out, struct ks_buf *err)
{
	const char *argv[] = { compiler, "-E", "-x", "c++", "-v", "/dev/null",
			       NULL };
	struct ks_buf text = KS_BUF_INIT, outtext = KS_BUF_INIT;
	struct ks_proc p = { 0 };
	int rc = -1;

	text.max = KS_HOSTINC_TEXT_MAX;
	outtext.max = 1 << 16;
	p.argv = argv;
	p.out = &outtext;
	p.err_out = &text;
	p.timeout_ms = 30000;
	if (ks_proc_run(&p, err))
		goto out;
	if (p.status) {
		ks_error(err, "'%s -E -x c++ -v' failed", compiler);
		goto out;
	}
	rc = ks_hostinc_parse(text.buf, out);
	if (rc < 0)
		ks_error(err, "'%s -E -x c++ -v' listed no include directories",
			 compiler);
out:
	ks_buf_release(&text);
	ks_buf_release(&outtext);
	return rc;
}

/* The compiler as the build names it, found on PATH: its cache file. */
static char *
cache_path(const char *dir, const char *compiler)
{
	char *found = strchr(compiler, '/')
			      ? ks_xstrdup(compiler)
			      : ks_fs_which(compiler, getenv("PATH"), NULL, NULL);
	char *path = found ? ks_nvccver_cache_path(dir, found, "hostinc",
						   ".hostinc")
			   : NULL;

	free(found);
	return path;
}

int
ks_hostinc_get(const char *dir, const char *compiler, struct ks_strv *out,
	       struct ks_buf *err)
{
	struct ks_strv got = KS_STRV_INIT;
	struct ks_buf cached = KS_BUF_INIT;
	char *path = compiler ? cache_path(dir, compiler) : NULL;
	int n = -1;
	size_t i;

	if (!compiler)
		return ks_error(err, "no host compiler");
	cached.max = 1 << 16;
	if (path && !ks_fs_read(path, &cached, NULL))
		n = ks_hostinc_parse(cached.buf, &got);
	/* Absent, unreadable or damaged: ask, and rewrite it. */
	if (n < 0) {
		n = ask(compiler, &got, err);
		if (n >= 0 && path) {
			struct ks_buf text = KS_BUF_INIT, werr = KS_BUF_INIT;

			ks_buf_adds(&text, KS_HOSTINC_START "\n");
			for (i = 0; i < got.n; i++)
				ks_buf_addf(&text, " %s\n", got.v[i]);
			ks_buf_adds(&text, KS_HOSTINC_END "\n");
			/* Failing to remember is harmless: asked again. */
			if (ks_fs_write_atomic(path, text.buf, text.len,
					       &werr))
				ks_log("cannot cache host includes: %s",
				       werr.buf);
			ks_buf_release(&text);
			ks_buf_release(&werr);
		}
	}
	for (i = 0; n >= 0 && i < got.n; i++)
		ks_strv_push(out, got.v[i]);
	ks_strv_release(&got);
	ks_buf_release(&cached);
	free(path);
	return n;
}
