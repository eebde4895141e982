#include "buf.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

char ks_buf_empty[1];

void
ks_buf_init(struct ks_buf *b, size_t max)
{
	b->buf = ks_buf_empty;
	b->len = 0;
	b->alloc = 0;
	b->max = max;
}

void
ks_buf_release(struct ks_buf *b)
{
	size_t max = b->max;

	if (b->alloc)
		free(b->buf);
	ks_buf_init(b, max);
}

void
ks_buf_reset(struct ks_buf *b)
{
	b->len = 0;
	if (b->alloc)
		b->buf[0] = '\0';
}

char *
ks_buf_detach(struct ks_buf *b, size_t *len)
{
	char *s = b->alloc ? b->buf : ks_xstrdup("");

	if (len)
		*len = b->len;
	ks_buf_init(b, b->max);
	return s;
}

/* Make room for `extra` more bytes plus the terminator. */
static int
grow(struct ks_buf *b, size_t extra)
{
	size_t cap = b->max ? b->max : SIZE_MAX / 2;
	size_t want;

	if (extra > cap || b->len > cap - extra)
		return -1;
	want = b->len + extra + 1;
	if (want <= b->alloc)
		return 0;
	if (want < 64)
		want = 64;
	if (want < b->alloc + b->alloc / 2)
		want = b->alloc + b->alloc / 2;
	if (b->alloc) {
		b->buf = ks_xrealloc(b->buf, want);
	} else {
		b->buf = ks_xmalloc(want);
		b->buf[0] = '\0';
	}
	b->alloc = want;
	return 0;
}

int
ks_buf_add(struct ks_buf *b, const void *data, size_t n)
{
	if (grow(b, n))
		return -1;
	if (n)
		memcpy(b->buf + b->len, data, n);
	b->len += n;
	if (b->alloc)
		b->buf[b->len] = '\0';
	return 0;
}

int
ks_buf_adds(struct ks_buf *b, const char *s)
{
	return ks_buf_add(b, s, strlen(s));
}

int
ks_buf_addch(struct ks_buf *b, int c)
{
	char ch = (char)c;

	return ks_buf_add(b, &ch, 1);
}

int
ks_buf_vaddf(struct ks_buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0 || grow(b, (size_t)n))
		return -1;
	vsnprintf(b->buf + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return 0;
}

int
ks_buf_addf(struct ks_buf *b, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = ks_buf_vaddf(b, fmt, ap);
	va_end(ap);
	return rc;
}

int
ks_buf_add_json_str(struct ks_buf *b, const char *s)
{
	size_t start = b->len;
	const unsigned char *p;
	int rc = ks_buf_addch(b, '"');

	for (p = (const unsigned char *)s; *p && !rc; p++) {
		switch (*p) {
		case '"': rc = ks_buf_adds(b, "\\\""); break;
		case '\\': rc = ks_buf_adds(b, "\\\\"); break;
		case '\n': rc = ks_buf_adds(b, "\\n"); break;
		case '\t': rc = ks_buf_adds(b, "\\t"); break;
		case '\r': rc = ks_buf_adds(b, "\\r"); break;
		default:
			if (*p < 0x20) {
				rc = ks_buf_addf(b, "\\u%04x", *p);
			} else if (*p < 0x80) {
				rc = ks_buf_addch(b, *p);
			} else {
				/* JSON is UTF-8: a byte that is not becomes U+FFFD. */
				size_t n = ks_utf8_seq(p, strnlen((const char *)p, 4));

				if (n) {
					rc = ks_buf_add(b, p, n);
					p += n - 1;
				} else {
					rc = ks_buf_adds(b, "\\ufffd");
				}
			}
		}
	}
	if (!rc)
		rc = ks_buf_addch(b, '"');
	if (rc)
		ks_buf_truncate(b, start);
	return rc;
}

int
ks_buf_add_json_str_or_null(struct ks_buf *b, const char *s)
{
	return s ? ks_buf_add_json_str(b, s) : ks_buf_adds(b, "null");
}

int
ks_buf_add_shell_word(struct ks_buf *b, const char *s)
{
	size_t start = b->len;
	const char *p;
	int rc = 0;

	if (*s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			   "0123456789_-+=./,:@%") == strlen(s))
		return ks_buf_adds(b, s);
	rc = ks_buf_addch(b, '\'');
	for (p = s; *p && !rc; p++)
		rc = *p == '\'' ? ks_buf_adds(b, "'\\''") : ks_buf_addch(b, *p);
	if (!rc)
		rc = ks_buf_addch(b, '\'');
	if (rc)
		ks_buf_truncate(b, start);
	return rc;
}

void
ks_buf_truncate(struct ks_buf *b, size_t len)
{
	if (len >= b->len)
		return;
	b->len = len;
	b->buf[len] = '\0';
}

void
ks_buf_rtrim(struct ks_buf *b)
{
	size_t n = b->len;

	while (n && strchr(" \t\r\n", b->buf[n - 1]))
		n--;
	ks_buf_truncate(b, n);
}

static int
verror(struct ks_buf *err, int with_errno, const char *fmt, va_list ap)
{
	int saved = errno;

	if (!err)
		return -1;
	if (err->len)
		ks_buf_adds(err, ": ");
	ks_buf_vaddf(err, fmt, ap);
	if (with_errno)
		ks_buf_addf(err, ": %s", strerror(saved));
	errno = saved;
	return -1;
}

int
ks_error(struct ks_buf *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verror(err, 0, fmt, ap);
	va_end(ap);
	return -1;
}

int
ks_error_errno(struct ks_buf *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verror(err, 1, fmt, ap);
	va_end(ap);
	return -1;
}
