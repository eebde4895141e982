/*
 * Which record compiled a kernel (review/build.h): the pure parts. Whether
 * a record's object is its source's alone, and where a one-command
 * source's own compile is kept. The lookup itself is
 * tests/suites/recfind.sh.
 */
#include "test.h"

#include <stdlib.h>

#include "../../src/core/buf.h"
#include "../../src/core/util.h"
#include "../../src/review/build.h"

void ks_suite_recfind(void);

/* A record of `mode` (NULL: none, as format 1) with `cmd` as command_argv. */
static int
rec(struct ks_build_rec *r, const char *mode, const char *cmd,
    const char *append)
{
	struct ks_buf text = KS_BUF_INIT, err = KS_BUF_INIT;
	int rc;

	ks_buf_addf(&text, "{\"source\": \"/p/a.cu\", \"cwd\": \"/p\", "
		    "\"argv\": [\"a.cu\", \"-c\"]");
	if (mode)
		ks_buf_addf(&text, ", \"mode\": \"%s\"", mode);
	if (cmd)
		ks_buf_addf(&text, ", \"command_argv\": [%s]", cmd);
	if (append)
		ks_buf_addf(&text, ", \"append_flags\": \"%s\"", append);
	ks_buf_adds(&text, "}");
	rc = ks_build_rec_parse(text.buf, text.len, "/d/builds/00ff.json", r, &err);
	ks_buf_release(&text);
	ks_buf_release(&err);
	return rc;
}

TEST(object_is_own)
{
	static const struct {
		const char *mode, *cmd, *append;
		int own;
	} cases[] = {
		/* -c builds, and format 1 records (no mode). */
		{ "compile", "\"-c\", \"a.cu\", \"-o\", \"a.o\"", NULL, 1 },
		{ NULL, NULL, NULL, 1 },
		/* One CUDA source, next to C++, C, objects, libraries. */
		{ "compile-link", "\"a.cu\", \"main.cpp\", \"u.c\", \"x.o\", \"-lm\", "
				  "\"-o\", \"app\"", NULL, 1 },
		{ "lib", "\"-lib\", \"a.cu\", \"h.cpp\", \"-o\", \"l.a\"", NULL, 1 },
		/* Several: the executable holds them all. */
		{ "compile-link", "\"a.cu\", \"b.cu\", \"-o\", \"app\"", NULL, 0 },
		/* -x cu makes main.cpp CUDA, from the command or the append flags. */
		{ "compile-link", "\"a.cu\", \"-x\", \"cu\", \"main.cpp\", \"-o\", \"app\"",
		  NULL, 0 },
		{ "compile-link", "\"a.c\", \"main.cpp\", \"-o\", \"app\"", "-x cu", 0 },
		{ "compile-link", "\"a.c\", \"-o\", \"app\"", "-x cu", 1 },
		/* A command that does not classify: not known to be its own. */
		{ "compile-link", "\"a.cu\", \"-o\"", NULL, 0 },
	};
	size_t i;

	for (i = 0; i < KS_ARRAY_SIZE(cases); i++) {
		struct ks_build_rec r;

		CHECK_INT_EQ(0, rec(&r, cases[i].mode, cases[i].cmd, cases[i].append));
		if (ks_build_rec_object_is_own(&r) != cases[i].own) {
			TEST_FAIL_("case %zu: want %d", i, cases[i].own);
			ks_build_rec_release(&r);
			return;
		}
		ks_build_rec_release(&r);
	}
}

TEST(own_object_path)
{
	struct ks_build_rec r1, r2;
	char *p1, *p2, *p3;

	CHECK_INT_EQ(0, rec(&r1, "compile-link", "\"a.cu\", \"b.cu\"", NULL));
	CHECK_INT_EQ(0, rec(&r2, "compile-link", "\"a.cu\", \"c.cu\"", NULL));
	p1 = ks_build_rec_own_object_path("/k", &r1);
	p2 = ks_build_rec_own_object_path("/k", &r1);
	p3 = ks_build_rec_own_object_path("/k", &r2);
	/* Named by the record's id and its text: a rewritten record (a
	 * rebuild) gets another object. */
	CHECK(ks_starts_with(p1, "/k/builds/objects/00ff-"));
	CHECK(ks_ends_with(p1, ".o"));
	CHECK_INT_EQ(strlen("/k/builds/objects/00ff-") + 16 + 2, strlen(p1));
	CHECK(!strcmp(p1, p2));
	CHECK(strcmp(p1, p3));
	free(p1);
	free(p2);
	free(p3);
	ks_build_rec_release(&r1);
	ks_build_rec_release(&r2);
}

void
ks_suite_recfind(void)
{
	RUN(object_is_own);
	RUN(own_object_path);
}
