#include "fs.h"

#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "util.h"

int
ks_fs_mkdirs(const char *path, struct ks_buf *err)
{
	char *p = ks_xstrdup(path), *s;
	int rc = 0;

	for (s = p + 1;; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char c = *s;
		*s = '\0';
		if (mkdir(p, 0777) && errno != EEXIST) {
			rc = ks_error_errno(err, "cannot create directory '%s'", p);
			break;
		}
		*s = c;
		if (!c)
			break;
	}
	if (!rc) {
		struct stat st;
		if (stat(path, &st) || !S_ISDIR(st.st_mode))
			rc = ks_error(err, "'%s' is not a directory", path);
	}
	free(p);
	return rc;
}

static int
write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* "<name>.tmp.<digits>[.<digits>...]": a temporary of a writer. */
int
ks_fs_is_temp_name(const char *name)
{
	const char *p = strstr(name, ".tmp."), *last = NULL;

	for (; p; p = strstr(p + 1, ".tmp."))
		last = p;
	if (!last || last == name)
		return 0;
	for (p = last + 4; *p == '.';) {
		size_t n = strspn(p + 1, "0123456789");
		if (!n)
			return 0;
		p += 1 + n;
	}
	return *p == '\0';
}

void
ks_fs_sweep_stale(const char *dir, long long now)
{
	char *mark = ks_fs_join(dir, KS_FS_SWEEP_MARK);
	struct stat st;
	struct dirent *de;
	DIR *d;
	int fd;

	/* One stat per write; the scan runs at most once an hour per dir. */
	if (!lstat(mark, &st) && (long long)st.st_mtime > now - KS_FS_STALE_SECONDS &&
	    (long long)st.st_mtime <= now + KS_FS_STALE_SECONDS)
		goto out;
	/* Touch the mark first, so that concurrent writers do not all scan. */
	fd = open(mark, O_WRONLY | O_CREAT | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC,
		  0666);
	if (fd < 0)
		goto out;
	futimens(fd, NULL);
	close(fd);
	d = opendir(dir);
	while (d && (de = readdir(d))) {
		char *path;

		if (!ks_fs_is_temp_name(de->d_name))
			continue;
		path = ks_fs_join(dir, de->d_name);
		if (!lstat(path, &st) && S_ISREG(st.st_mode) &&
		    (long long)st.st_mtime < now - KS_FS_STALE_SECONDS)
			unlink(path);
		free(path);
	}
	if (d)
		closedir(d);
out:
	free(mark);
}

int
ks_fs_write_atomic(const char *path, const void *data, size_t len,
		   struct ks_buf *err)
{
	char *dir = ks_xstrdup(path), *slash = strrchr(dir, '/');
	char *tmp = NULL;
	int fd = -1, rc = -1;
	unsigned n;

	if (slash && slash != dir) {
		*slash = '\0';
		if (ks_fs_mkdirs(dir, err))
			goto out;
	}
	/* The pid and a counter make the name unique among concurrent writers. */
	for (n = 0; n < 100 && fd < 0; n++) {
		free(tmp);
		tmp = ks_xasprintf("%s.tmp.%ld.%u.%ld", path, (long)getpid(), n,
				   (long)time(NULL));
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0 && errno != EEXIST) {
			ks_error_errno(err, "cannot create '%s'", tmp);
			goto out;
		}
	}
	if (fd < 0) {
		ks_error(err, "cannot create a temporary file for '%s'", path);
		goto out;
	}
	if (write_all(fd, data, len)) {
		ks_error_errno(err, "cannot write '%s'", tmp);
		close(fd);
		unlink(tmp);
		goto out;
	}
	if (close(fd)) {
		ks_error_errno(err, "cannot write '%s'", tmp);
		unlink(tmp);
		goto out;
	}
	if (rename(tmp, path)) {
		ks_error_errno(err, "cannot rename '%s' to '%s'", tmp, path);
		unlink(tmp);
		goto out;
	}
	rc = 0;
	ks_fs_sweep_stale(!slash ? "." : slash == dir ? "/" : dir,
			  (long long)time(NULL));
out:
	free(tmp);
	free(dir);
	return rc;
}

int
ks_fs_read(const char *path, struct ks_buf *out, struct ks_buf *err)
{
	char chunk[65536];
	/* O_NONBLOCK: opening a FIFO must not wait for a writer. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), rc = 0;
	struct stat st;
	ssize_t n;

	if (fd < 0)
		return ks_error_errno(err, "cannot open '%s'", path);
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return ks_error(err, "'%s' is not a regular file", path);
	}
	for (;;) {
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = ks_error_errno(err, "cannot read '%s'", path);
			break;
		}
		if (n == 0)
			break;
		if (ks_buf_add(out, chunk, (size_t)n)) {
			rc = ks_error(err, "'%s' is larger than %zu bytes", path,
				      out->max);
			break;
		}
	}
	close(fd);
	return rc;
}

int
ks_fs_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

int
ks_fs_is_exec(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	       access(path, X_OK) == 0;
}

char *
ks_fs_realpath(const char *path)
{
	char *r = realpath(path, NULL);

	if (!r && errno == ENOMEM)
		ks_die(KS_EXIT_NOMEM, "out of memory");
	return r;
}

char *
ks_fs_getcwd(void)
{
	char *r = getcwd(NULL, 0);

	if (!r && errno == ENOMEM)
		ks_die(KS_EXIT_NOMEM, "out of memory");
	return r;
}

char *
ks_fs_join(const char *dir, const char *name)
{
	if (!dir || !*dir || name[0] == '/')
		return ks_xstrdup(name);
	if (ks_ends_with(dir, "/"))
		return ks_xasprintf("%s%s", dir, name);
	return ks_xasprintf("%s/%s", dir, name);
}

char *
ks_fs_which(const char *name, const char *path,
	    int (*accept)(const char *cand, void *ctx), void *ctx)
{
	const char *p;

	for (p = path; p && *p;) {
		size_t n = strcspn(p, ":");
		char *cand = n ? ks_xasprintf("%.*s/%s", (int)n, p, name)
			       : ks_xasprintf("./%s", name);

		if (ks_fs_is_exec(cand) && (!accept || accept(cand, ctx)))
			return cand;
		free(cand);
		p += n + (p[n] == ':');
	}
	return NULL;
}

static int
rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_DP)
		return rmdir(path);
	return unlink(path);
}

int
ks_fs_remove_tree(const char *path, struct ks_buf *err)
{
	if (!ks_fs_exists(path))
		return 0;
	if (nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS))
		return ks_error_errno(err, "cannot remove '%s'", path);
	return 0;
}

static int
lock_acquire(struct ks_lock *lock, const char *path, int timeout_ms, int how,
	     struct ks_buf *err)
{
	char *lpath = ks_xasprintf("%s.lock", path);
	struct timespec pause = { 0, 2 * 1000 * 1000 };
	int waited = 0, rc = -1;

	lock->fd = open(lpath, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	if (lock->fd < 0) {
		ks_error_errno(err, "cannot open lock '%s'", lpath);
		goto out;
	}
	for (;;) {
		if (!flock(lock->fd, how | LOCK_NB)) {
			rc = 0;
			break;
		}
		if (errno != EWOULDBLOCK && errno != EINTR) {
			ks_error_errno(err, "cannot lock '%s'", lpath);
			break;
		}
		if (waited >= timeout_ms) {
			ks_error(err, "timed out after %d ms waiting for lock '%s'",
				 timeout_ms, lpath);
			break;
		}
		nanosleep(&pause, NULL);
		waited += 2;
	}
	if (rc)
		ks_lock_release(lock);
out:
	free(lpath);
	return rc;
}

int
ks_lock_acquire(struct ks_lock *lock, const char *path, int timeout_ms,
		struct ks_buf *err)
{
	return lock_acquire(lock, path, timeout_ms, LOCK_EX, err);
}

int
ks_lock_acquire_shared(struct ks_lock *lock, const char *path, int timeout_ms,
		       struct ks_buf *err)
{
	return lock_acquire(lock, path, timeout_ms, LOCK_SH, err);
}

void
ks_lock_release(struct ks_lock *lock)
{
	if (lock->fd >= 0)
		close(lock->fd);
	lock->fd = -1;
}
