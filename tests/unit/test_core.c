/* Unit tests of src/core: buffers, vectors, hashing, files, locks,
 * processes, stats. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../src/core/buf.h"
#include "../../src/core/fs.h"
#include "../../src/core/hash.h"
#include "../../src/core/proc.h"
#include "../../src/core/stats.h"
#include "../../src/core/strv.h"
#include "../../src/core/util.h"
#include "test.h"

void ks_suite_core(void);

TEST(buf_grows_and_terminates)
{
	struct ks_buf b = KS_BUF_INIT;
	int i;

	CHECK_STR_EQ("", b.buf);
	for (i = 0; i < 1000; i++)
		CHECK_INT_EQ(0, ks_buf_addch(&b, 'a' + i % 26));
	CHECK_INT_EQ(1000, b.len);
	CHECK_INT_EQ('\0', b.buf[1000]);
	CHECK_INT_EQ(0, ks_buf_addf(&b, "%d-%s", 42, "x"));
	CHECK_STR_EQ("42-x", b.buf + 1000);
	ks_buf_release(&b);
	CHECK_STR_EQ("", b.buf);
}

TEST(buf_cap_refuses_and_keeps_contents)
{
	struct ks_buf b = KS_BUF_INIT;

	ks_buf_init(&b, 8);
	CHECK_INT_EQ(0, ks_buf_adds(&b, "12345678"));
	CHECK_INT_EQ(-1, ks_buf_adds(&b, "9"));
	CHECK_INT_EQ(-1, ks_buf_addf(&b, "%s", "abc"));
	CHECK_STR_EQ("12345678", b.buf);
	ks_buf_reset(&b);
	CHECK_INT_EQ(0, ks_buf_adds(&b, "ab"));
	CHECK_STR_EQ("ab", b.buf);
	ks_buf_release(&b);
}

TEST(buf_detach_hands_over)
{
	struct ks_buf b = KS_BUF_INIT;
	size_t len;
	char *s;

	s = ks_buf_detach(&b, &len);
	CHECK_STR_EQ("", s);
	free(s);
	ks_buf_adds(&b, "hello");
	s = ks_buf_detach(&b, &len);
	CHECK_STR_EQ("hello", s);
	CHECK_INT_EQ(5, len);
	CHECK_STR_EQ("", b.buf);
	free(s);
}

TEST(buf_json_and_shell_quoting)
{
	struct ks_buf b = KS_BUF_INIT;

	ks_buf_add_json_str(&b, "a\"b\\c\nd\x01");
	CHECK_STR_EQ("\"a\\\"b\\\\c\\nd\\u0001\"", b.buf);
	ks_buf_reset(&b);
	ks_buf_add_shell_word(&b, "-DX=1");
	ks_buf_addch(&b, ' ');
	ks_buf_add_shell_word(&b, "it's here");
	ks_buf_addch(&b, ' ');
	ks_buf_add_shell_word(&b, "");
	CHECK_STR_EQ("-DX=1 'it'\\''s here' ''", b.buf);
	ks_buf_release(&b);
}

TEST(error_messages_chain)
{
	struct ks_buf err = KS_BUF_INIT;

	CHECK_INT_EQ(-1, ks_error(&err, "reading '%s'", "x"));
	CHECK_INT_EQ(-1, ks_error(&err, "bad"));
	CHECK_STR_EQ("reading 'x': bad", err.buf);
	CHECK_INT_EQ(-1, ks_error(NULL, "ignored"));
	ks_buf_release(&err);
}

TEST(strv_push_insert_remove)
{
	struct ks_strv sv = KS_STRV_INIT;

	CHECK_NULL(sv.v[0]);
	ks_strv_push(&sv, "a");
	ks_strv_push(&sv, "c");
	ks_strv_insert(&sv, 1, "b");
	CHECK_INT_EQ(3, sv.n);
	CHECK_STR_EQ("b", sv.v[1]);
	CHECK_NULL(sv.v[3]);
	CHECK_INT_EQ(2, ks_strv_find(&sv, "c"));
	ks_strv_remove(&sv, 0);
	CHECK_STR_EQ("b", sv.v[0]);
	CHECK_INT_EQ(-1, ks_strv_find(&sv, "a"));
	CHECK_NULL(sv.v[2]);
	ks_strv_release(&sv);
	CHECK_INT_EQ(0, sv.n);
}

TEST(hash_known_values_and_framing)
{
	struct ks_hash h = KS_HASH_INIT;
	char a[33], b[33], x[17];

	/* XXH3-64 of the empty input, from the xxHash test vectors. */
	ks_hash_once_hex64("", 0, x);
	CHECK_STR_EQ("2d06800538d394c2", x);
	ks_hash_init(&h);
	ks_hash_str(&h, "ab");
	ks_hash_str(&h, "c");
	ks_hash_hex128(&h, a);
	ks_hash_release(&h);
	ks_hash_init(&h);
	ks_hash_str(&h, "a");
	ks_hash_str(&h, "bc");
	ks_hash_hex128(&h, b);
	ks_hash_release(&h);
	CHECK_INT_EQ(32, strlen(a));
	CHECK(strcmp(a, b) != 0);
	ks_hash_init(&h);
	ks_hash_str(&h, "ab");
	ks_hash_str(&h, "c");
	ks_hash_hex128(&h, b);
	ks_hash_release(&h);
	CHECK_STR_EQ(a, b);
}

TEST(fs_atomic_write_read_and_mkdirs)
{
	const char *dir = test_tmpdir();
	struct ks_buf b = KS_BUF_INIT, err = KS_BUF_INIT;
	char *path = ks_xasprintf("%s/a/b/c/file", dir);

	CHECK_INT_EQ(0, ks_fs_write_atomic(path, "one", 3, &err));
	CHECK_INT_EQ(0, ks_fs_write_atomic(path, "two!", 4, &err));
	CHECK_INT_EQ(0, ks_fs_read(path, &b, &err));
	CHECK_STR_EQ("two!", b.buf);
	ks_buf_reset(&b);
	b.max = 2;
	CHECK_INT_EQ(-1, ks_fs_read(path, &b, &err));
	CHECK(strstr(err.buf, "larger than 2 bytes") != NULL);
	ks_buf_reset(&err);
	free(path);
	path = ks_xasprintf("%s/missing", dir);
	CHECK_INT_EQ(-1, ks_fs_read(path, &b, &err));
	CHECK(strstr(err.buf, "cannot open") != NULL);
	ks_buf_reset(&err);
	free(path);
	/* A file where a directory should be. */
	path = ks_xasprintf("%s/a/b/c/file/sub", dir);
	CHECK_INT_EQ(-1, ks_fs_write_atomic(path, "x", 1, &err));
	CHECK(err.len > 0);
	free(path);
	ks_buf_release(&b);
	ks_buf_release(&err);
}

TEST(fs_join_and_remove_tree)
{
	const char *dir = test_tmpdir();
	struct ks_buf err = KS_BUF_INIT;
	char *j = ks_fs_join("/a/", "b"), *p;

	CHECK_STR_EQ("/a/b", j);
	free(j);
	j = ks_fs_join("/a", "/abs");
	CHECK_STR_EQ("/abs", j);
	free(j);
	p = ks_xasprintf("%s/t/x/y", dir);
	CHECK_INT_EQ(0, ks_fs_write_atomic(p, "1", 1, &err));
	free(p);
	p = ks_xasprintf("%s/t", dir);
	CHECK_INT_EQ(0, ks_fs_remove_tree(p, &err));
	CHECK_INT_EQ(0, ks_fs_exists(p));
	CHECK_INT_EQ(0, ks_fs_remove_tree(p, &err));
	free(p);
	ks_buf_release(&err);
}

static int
refuse_first(const char *cand, void *ctx)
{
	return strstr(cand, (const char *)ctx) == NULL;
}

TEST(fs_which_searches_in_order_with_a_veto)
{
	const char *dir = test_tmpdir();
	char *a = ks_xasprintf("%s/a", dir), *b = ks_xasprintf("%s/b", dir);
	char *path = ks_xasprintf("%s:%s", a, b), *got;
	struct ks_buf err = KS_BUF_INIT;

	ks_fs_mkdirs(a, &err);
	ks_fs_mkdirs(b, &err);
	test_write(a, "tool", "#!/bin/sh\n");	/* not executable: skipped */
	test_write(b, "tool", "#!/bin/sh\n");
	chmod(test_write(b, "tool", "#!/bin/sh\n"), 0755);
	got = ks_fs_which("tool", path, NULL, NULL);
	CHECK(got && ks_starts_with(got, b));
	free(got);
	chmod(test_write(a, "tool", "#!/bin/sh\n"), 0755);
	got = ks_fs_which("tool", path, NULL, NULL);
	CHECK(got && ks_starts_with(got, a));
	free(got);
	got = ks_fs_which("tool", path, refuse_first, (void *)"/a/");
	CHECK(got && ks_starts_with(got, b));
	free(got);
	CHECK_NULL(ks_fs_which("missing", path, NULL, NULL));
	CHECK_NULL(ks_fs_which("tool", "", NULL, NULL));
	free(a);
	free(b);
	free(path);
	ks_buf_release(&err);
}

TEST(lock_excludes_another_process)
{
	const char *dir = test_tmpdir();
	char *path = ks_xasprintf("%s/thing", dir);
	struct ks_lock l = KS_LOCK_INIT;
	struct ks_buf err = KS_BUF_INIT;
	int status = -1;
	pid_t pid;

	CHECK_INT_EQ(0, ks_lock_acquire(&l, path, 0, &err));
	pid = fork();
	if (pid == 0) {
		struct ks_lock l2 = KS_LOCK_INIT;
		/* Held by the parent: must time out. */
		_exit(ks_lock_acquire(&l2, path, 50, NULL) == -1 ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	CHECK_INT_EQ(0, WEXITSTATUS(status));
	ks_lock_release(&l);
	CHECK_INT_EQ(0, ks_lock_acquire(&l, path, 0, &err));
	ks_lock_release(&l);
	ks_lock_release(&l); /* twice is harmless */
	free(path);
	ks_buf_release(&err);
}

TEST(proc_captures_output_and_status)
{
	const char *argv[] = { "sh", "-c", "echo out; echo err >&2; exit 3", NULL };
	struct ks_buf out = KS_BUF_INIT, err_out = KS_BUF_INIT, err = KS_BUF_INIT;
	struct ks_proc p = { 0 };

	p.argv = argv;
	p.out = &out;
	p.err_out = &err_out;
	CHECK_INT_EQ(0, ks_proc_run(&p, &err));
	CHECK_INT_EQ(3, p.status);
	CHECK_STR_EQ("out\n", out.buf);
	CHECK_STR_EQ("err\n", err_out.buf);
	CHECK_INT_EQ(0, p.timed_out);
	ks_buf_release(&out);
	ks_buf_release(&err_out);
	ks_buf_release(&err);
}

TEST(proc_feeds_stdin_and_caps_output)
{
	const char *argv[] = { "sh", "-c", "cat; head -c 100000 /dev/zero", NULL };
	struct ks_buf in = KS_BUF_INIT, out = KS_BUF_INIT, err = KS_BUF_INIT;
	struct ks_proc p = { 0 };

	ks_buf_adds(&in, "hello");
	out.max = 10;
	p.argv = argv;
	p.in = &in;
	p.out = &out;
	CHECK_INT_EQ(0, ks_proc_run(&p, &err));
	CHECK_INT_EQ(0, p.status);
	CHECK_INT_EQ(1, p.truncated);
	CHECK(ks_starts_with(out.buf, "hello"));
	ks_buf_release(&in);
	ks_buf_release(&out);
	ks_buf_release(&err);
}

TEST(proc_times_out)
{
	const char *argv[] = { "sleep", "5", NULL };
	struct ks_buf err = KS_BUF_INIT;
	struct ks_proc p = { 0 };

	p.argv = argv;
	p.timeout_ms = 100;
	CHECK_INT_EQ(0, ks_proc_run(&p, &err));
	CHECK_INT_EQ(1, p.timed_out);
	CHECK_INT_EQ(128 + SIGTERM, p.status);
	ks_buf_release(&err);
}

TEST(proc_missing_program_is_127)
{
	const char *argv[] = { "/nonexistent/program", NULL };
	struct ks_buf err = KS_BUF_INIT;
	struct ks_proc p = { 0 };

	p.argv = argv;
	CHECK_INT_EQ(0, ks_proc_run(&p, &err));
	CHECK_INT_EQ(127, p.status);
	ks_buf_release(&err);
}

TEST(stats_apply_is_sorted_and_additive)
{
	struct ks_buf out = KS_BUF_INIT;
	const char *names[] = { "b", "a", "b" };

	ks_stats_apply("c 5\nb 1\n", names, 3, 1, &out);
	CHECK_STR_EQ("a 1\nb 3\nc 5\n", out.buf);
	ks_buf_reset(&out);
	ks_stats_apply("garbage\nx 2\n", NULL, 0, 0, &out);
	CHECK_STR_EQ("x 2\n", out.buf);
	ks_buf_release(&out);
}

TEST(stats_concurrent_updates_are_not_lost)
{
	const char *dir = test_tmpdir();
	const char *names[] = { "hits" };
	struct ks_buf err = KS_BUF_INIT;
	pid_t pids[8];
	int i, j, status;

	for (i = 0; i < 8; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			for (j = 0; j < 25; j++)
				if (ks_stats_add(dir, names, 1, 1, 5000, NULL))
					_exit(1);
			_exit(0);
		}
	}
	for (i = 0; i < 8; i++) {
		waitpid(pids[i], &status, 0);
		CHECK_INT_EQ(0, WEXITSTATUS(status));
	}
	CHECK_INT_EQ(200, ks_stats_get(dir, "hits"));
	CHECK_INT_EQ(0, ks_stats_get(dir, "misses"));
	CHECK_INT_EQ(0, ks_stats_zero(dir, 1000, &err));
	CHECK_INT_EQ(0, ks_stats_get(dir, "hits"));
	ks_buf_release(&err);
}

void
ks_suite_core(void)
{
	RUN(buf_grows_and_terminates);
	RUN(buf_cap_refuses_and_keeps_contents);
	RUN(buf_detach_hands_over);
	RUN(buf_json_and_shell_quoting);
	RUN(error_messages_chain);
	RUN(strv_push_insert_remove);
	RUN(hash_known_values_and_framing);
	RUN(fs_atomic_write_read_and_mkdirs);
	RUN(fs_join_and_remove_tree);
	RUN(fs_which_searches_in_order_with_a_veto);
	RUN(lock_excludes_another_process);
	RUN(proc_captures_output_and_status);
	RUN(proc_feeds_stdin_and_caps_output);
	RUN(proc_times_out);
	RUN(proc_missing_program_is_127);
	RUN(stats_apply_is_sorted_and_additive);
	RUN(stats_concurrent_updates_are_not_lost);
}
