/*
 * test: the unit-test framework (ccache's unittest/ in spirit).
 *
 * A test file defines tests with TEST(name) and one suite function that runs
 * them with RUN(name); tests/unit/main.c lists the suites. A failed CHECK
 * prints file:line and the values, marks the running test failed and returns
 * from it. SKIP(reason...) ends a test that cannot run here (no libclang,
 * no toolkit): it is counted apart, never as passed. main() prints
 * "N passed, N failed, N skipped" and exits non-zero on failure.
 * Every test runs with the environment and working directory the runner
 * started with, restored after it whatever it did (test_run).
 * Tests do no I/O outside a scratch directory given by test_tmpdir().
 */
#ifndef KS_TEST_H
#define KS_TEST_H

#include <stdio.h>
#include <string.h>

extern int test_failed_now, test_skipped_now;
extern int test_passed, test_failed, test_skipped;
extern const char *test_current;

/* A fresh scratch directory for the running test (under $TMPDIR). */
const char *test_tmpdir(void);
/* Write `text` to `dir/name`; returns the full path (static storage). */
const char *test_write(const char *dir, const char *name, const char *text);

void test_run(const char *name, void (*fn)(void));

#define TEST(name) static void test_##name(void)
#define RUN(name) test_run(#name, test_##name)

#define TEST_FAIL_(...)                                                     \
	do {                                                                \
		fprintf(stderr, "FAIL %s (%s:%d): ", test_current, __FILE__, \
			__LINE__);                                          \
		fprintf(stderr, __VA_ARGS__);                               \
		fputc('\n', stderr);                                        \
		test_failed_now = 1;                                        \
	} while (0)

#define SKIP(...)                                                           \
	do {                                                                \
		fprintf(stderr, "skip %s: ", test_current);                 \
		fprintf(stderr, __VA_ARGS__);                               \
		fputc('\n', stderr);                                        \
		test_skipped_now = 1;                                       \
		return;                                                     \
	} while (0)

#define CHECK(cond)                                                         \
	do {                                                                \
		if (!(cond)) {                                              \
			TEST_FAIL_("%s", #cond);                            \
			return;                                             \
		}                                                           \
	} while (0)

#define CHECK_INT_EQ(want, got)                                             \
	do {                                                                \
		long long w_ = (long long)(want), g_ = (long long)(got);    \
		if (w_ != g_) {                                             \
			TEST_FAIL_("%s == %s: want %lld, got %lld", #want,  \
				   #got, w_, g_);                           \
			return;                                             \
		}                                                           \
	} while (0)

#define CHECK_STR_EQ(want, got)                                             \
	do {                                                                \
		const char *w_ = (want), *g_ = (got);                       \
		if (!w_ || !g_ || strcmp(w_, g_)) {                         \
			TEST_FAIL_("%s == %s: want \"%s\", got \"%s\"",     \
				   #want, #got, w_ ? w_ : "(null)",         \
				   g_ ? g_ : "(null)");                     \
			return;                                             \
		}                                                           \
	} while (0)

#define CHECK_NULL(got) CHECK((got) == NULL)

#endif
