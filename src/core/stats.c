#include "stats.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "fs.h"
#include "strv.h"
#include "util.h"

#define STATS_MAX (1 << 20)

struct counter {
	char *name;
	long value;
};

static int
cmp_counter(const void *a, const void *b)
{
	return strcmp(((const struct counter *)a)->name,
		      ((const struct counter *)b)->name);
}

/* A counter at the top stays there: signed overflow is undefined. */
static long
saturating_add(long v, long delta)
{
	if (delta > 0 && v > LONG_MAX - delta)
		return LONG_MAX;
	if (delta < 0 && v < LONG_MIN - delta)
		return LONG_MIN;
	return v + delta;
}

void
ks_stats_apply(const char *text, const char *const *names, int n, long delta,
	       struct ks_buf *out)
{
	struct counter *c = NULL;
	size_t nc = 0, alloc = 0, i;
	const char *line = text;
	int k;

	while (line && *line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char *l = ks_xstrndup(line, len), *sp = strchr(l, ' ');

		if (sp && sp != l) {
			*sp = '\0';
			if (nc == alloc) {
				alloc = alloc ? alloc * 2 : 32;
				c = ks_xrealloc(c, alloc * sizeof(*c));
			}
			c[nc].name = ks_xstrdup(l);
			c[nc].value = strtol(sp + 1, NULL, 10);
			nc++;
		}
		free(l);
		line += len + (nl ? 1 : 0);
	}
	for (k = 0; k < n; k++) {
		for (i = 0; i < nc && strcmp(c[i].name, names[k]); i++)
			;
		if (i == nc) {
			if (nc == alloc) {
				alloc = alloc ? alloc * 2 : 32;
				c = ks_xrealloc(c, alloc * sizeof(*c));
			}
			c[nc].name = ks_xstrdup(names[k]);
			c[nc].value = 0;
			nc++;
		}
		c[i].value = saturating_add(c[i].value, delta);
	}
	if (nc)
		qsort(c, nc, sizeof(*c), cmp_counter);
	for (i = 0; i < nc; i++) {
		ks_buf_addf(out, "%s %ld\n", c[i].name, c[i].value);
		free(c[i].name);
	}
	free(c);
}

int
ks_stats_add(const char *dir, const char *const *names, int n, long delta,
	     int lock_timeout_ms, struct ks_buf *err)
{
	char *path = ks_fs_join(dir, "stats");
	struct ks_lock lock = KS_LOCK_INIT;
	struct ks_buf old = KS_BUF_INIT, new = KS_BUF_INIT, rerr = KS_BUF_INIT;
	int rc = -1;

	old.max = STATS_MAX;
	if (ks_fs_mkdirs(dir, err) ||
	    ks_lock_acquire(&lock, path, lock_timeout_ms, err))
		goto out;
	/*
	 * Absent: start from zero. Unreadable, not a regular file or over
	 * the cap: leave it alone (rewriting it would lose every counter).
	 */
	if (ks_fs_read(path, &old, &rerr)) {
		if (errno != ENOENT) {
			ks_error(err, "%s", rerr.buf);
			goto out;
		}
		ks_buf_reset(&old);
	}
	ks_stats_apply(old.buf, names, n, delta, &new);
	rc = ks_fs_write_atomic(path, new.buf, new.len, err);
out:
	ks_lock_release(&lock);
	ks_buf_release(&old);
	ks_buf_release(&new);
	ks_buf_release(&rerr);
	free(path);
	return rc;
}

long
ks_stats_get(const char *dir, const char *name)
{
	struct ks_buf text = KS_BUF_INIT;
	char *path = ks_fs_join(dir, "stats");
	size_t nlen = strlen(name);
	const char *line;
	long v = 0;

	text.max = STATS_MAX;
	if (ks_fs_read(path, &text, NULL) == 0) {
		for (line = text.buf; *line;) {
			const char *nl = strchr(line, '\n');
			if (!strncmp(line, name, nlen) && line[nlen] == ' ') {
				v = strtol(line + nlen + 1, NULL, 10);
				break;
			}
			if (!nl)
				break;
			line = nl + 1;
		}
	}
	ks_buf_release(&text);
	free(path);
	return v;
}

int
ks_stats_read(const char *dir, struct ks_buf *out, struct ks_buf *err)
{
	struct ks_buf text = KS_BUF_INIT, rerr = KS_BUF_INIT;
	char *path = ks_fs_join(dir, "stats");
	int rc = 0;

	text.max = STATS_MAX;
	if (ks_fs_read(path, &text, &rerr) && errno != ENOENT)
		rc = ks_error(err, "%s", rerr.buf);
	if (!rc)
		ks_stats_apply(text.buf, NULL, 0, 0, out);
	ks_buf_release(&text);
	ks_buf_release(&rerr);
	free(path);
	return rc;
}

int
ks_stats_zero(const char *dir, int lock_timeout_ms, struct ks_buf *err)
{
	char *path = ks_fs_join(dir, "stats");
	struct ks_lock lock = KS_LOCK_INIT;
	int rc = -1;

	if (ks_lock_acquire(&lock, path, lock_timeout_ms, err))
		goto out;
	if (unlink(path) && errno != ENOENT) {
		ks_error_errno(err, "cannot remove '%s'", path);
		goto out;
	}
	rc = 0;
out:
	ks_lock_release(&lock);
	free(path);
	return rc;
}
