/*
 * Unit tests of the unit-test framework itself: a test that changes the
 * environment and the working directory, and fails half-way, leaves the
 * next test in the state the runner started with.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/core/fs.h"
#include "test.h"

void ks_suite_framework(void);

static char *cwd_before;
static char *path_before;
static int failed_before;

/* Changes everything it can, then "fails" (the failure is undone below). */
TEST(framework_changes_then_fails)
{
	setenv("KS_FRAMEWORK_PROBE", "set", 1);
	setenv("PATH", "/nowhere", 1);
	unsetenv("HOME");
	if (chdir("/") == 0)
		test_failed_now = 1;
}

TEST(framework_restored)
{
	char *cwd = ks_fs_getcwd();
	const char *path = getenv("PATH");

	CHECK_NULL(getenv("KS_FRAMEWORK_PROBE"));
	CHECK(path && path_before && !strcmp(path, path_before));
	CHECK(cwd && cwd_before && !strcmp(cwd, cwd_before));
	free(cwd);
}

void
ks_suite_framework(void)
{
	cwd_before = ks_fs_getcwd();
	path_before = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	failed_before = test_failed;
	RUN(framework_changes_then_fails);
	/* That failure was the point: take it back. */
	if (test_failed == failed_before + 1) {
		test_failed--;
		test_passed++;
	}
	RUN(framework_restored);
	free(cwd_before);
	free(path_before);
}
