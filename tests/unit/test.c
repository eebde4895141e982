#include "test.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/core/buf.h"
#include "../../src/core/fs.h"
#include "../../src/core/util.h"

int test_failed_now, test_skipped_now;
int test_passed, test_failed, test_skipped;
const char *test_current;

static char tmpdir[4096];

const char *
test_tmpdir(void)
{
	const char *base = getenv("TMPDIR");

	if (tmpdir[0])
		return tmpdir;
	snprintf(tmpdir, sizeof(tmpdir), "%s/ks-unit-XXXXXX",
		 base && *base ? base : "/tmp");
	if (!mkdtemp(tmpdir))
		ks_die(KS_EXIT_FAILED, "mkdtemp failed");
	return tmpdir;
}

const char *
test_write(const char *dir, const char *name, const char *text)
{
	static char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		ks_die(KS_EXIT_FAILED, "cannot write %s", path);
	fputs(text, f);
	fclose(f);
	return path;
}

static void
rm_tmpdir(void)
{
	struct ks_buf err = KS_BUF_INIT;

	if (!tmpdir[0] || getenv("KS_TEST_KEEP"))
		return;
	if (ks_fs_remove_tree(tmpdir, &err))
		fprintf(stderr, "warning: %s\n", err.buf);
	ks_buf_release(&err);
	tmpdir[0] = '\0';
}

/* The environment as it was: "NAME=value" copies. */
static char **
env_save(void)
{
	extern char **environ;
	size_t n = 0, i;
	char **copy;

	while (environ && environ[n])
		n++;
	copy = ks_xcalloc(n + 1, sizeof(*copy));
	for (i = 0; i < n; i++)
		copy[i] = ks_xstrdup(environ[i]);
	return copy;
}

/* Put the saved environment back exactly, and free the copy. */
static void
env_restore(char **saved)
{
	size_t i;

	clearenv();
	for (i = 0; saved[i]; i++) {
		char *eq = strchr(saved[i], '=');

		if (eq) {
			*eq = '\0';
			setenv(saved[i], eq + 1, 1);
		}
		free(saved[i]);
	}
	free(saved);
}

void
test_run(const char *name, void (*fn)(void))
{
	const char *only = getenv("KS_TEST_ONLY");
	char **env;
	char *cwd;

	if (only && *only && !strstr(name, only))
		return;
	test_current = name;
	test_failed_now = 0;
	test_skipped_now = 0;
	env = env_save();
	cwd = ks_fs_getcwd();
	fn();
	/* Whatever the test did, the next one starts where this one did. */
	env_restore(env);
	if (cwd && chdir(cwd)) {
		fprintf(stderr, "FAIL %s: cannot return to %s\n", name, cwd);
		test_failed_now = 1;
	}
	free(cwd);
	rm_tmpdir();
	if (test_failed_now)
		test_failed++;
	else if (test_skipped_now)
		test_skipped++;
	else
		test_passed++;
}
