#include "test.h"

#include <stdlib.h>
#include <unistd.h>

#include "../../src/core/buf.h"
#include "../../src/core/fs.h"
#include "../../src/core/util.h"

int test_failed_now;
int test_passed, test_failed;
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

void
test_run(const char *name, void (*fn)(void))
{
	const char *only = getenv("KS_TEST_ONLY");

	if (only && *only && !strstr(name, only))
		return;
	test_current = name;
	test_failed_now = 0;
	fn();
	rm_tmpdir();
	if (test_failed_now)
		test_failed++;
	else
		test_passed++;
}
