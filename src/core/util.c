#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

const char *ks_progname = "ks";

static void
nomem(void)
{
	/* No allocation here: write(2)-level output only. */
	fputs(ks_progname, stderr);
	fputs(": error: out of memory\n", stderr);
	exit(KS_EXIT_NOMEM);
}

void *
ks_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		nomem();
	return p;
}

void *
ks_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		nomem();
	return p;
}

void *
ks_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		nomem();
	return q;
}

char *
ks_xstrdup(const char *s)
{
	return ks_xstrndup(s, strlen(s));
}

char *
ks_xstrndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *p = ks_xmalloc(len + 1);

	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

char *
ks_xasprintf(const char *fmt, ...)
{
	va_list ap, cp;
	int n;
	char *p;

	va_start(ap, fmt);
	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		nomem();
	p = ks_xmalloc((size_t)n + 1);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

void
ks_die(int code, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: error: ", ks_progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);
}

int
ks_starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

int
ks_ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

int
ks_str_in_list(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (!strcmp(*list, s))
			return 1;
	return 0;
}

const char *
ks_basename(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

int
ks_parse_bool(const char *s)
{
	static const char *const yes[] = { "1", "yes", "true", "on" };
	static const char *const no[] = { "0", "no", "false", "off", "" };
	size_t i;

	for (i = 0; i < KS_ARRAY_SIZE(yes); i++)
		if (!strcasecmp(s, yes[i]))
			return 1;
	for (i = 0; i < KS_ARRAY_SIZE(no); i++)
		if (!strcasecmp(s, no[i]))
			return 0;
	return -1;
}

/* Length of the well-formed UTF-8 sequence at `p` (RFC 3629), or 0. */
size_t
ks_utf8_seq(const unsigned char *p, size_t avail)
{
	size_t n, i;
	unsigned cp;

	if (!avail)
		return 0;
	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4, cp = p[0] & 0x07;
	else
		return 0;
	if (avail < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	/* Overlong forms, UTF-16 surrogates and beyond U+10FFFF. */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

int
ks_utf8_valid(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n;

	while (i < len) {
		n = ks_utf8_seq(p + i, len - i);
		if (!n)
			return 0;
		i += n;
	}
	return 1;
}

double
ks_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}
