/* Unit tests of cache/expand.h: which #include brings a kernel's
 * definition into a TU, the TU with that include replaced by the header's
 * text (lines mapped back by #line), the refusals, and the rewrite of a
 * kernel so brought in (its lines still its header's). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/cache/expand.h"
#include "../../src/cache/lex.h"
#include "../../src/cache/rewrite.h"
#include "../../src/core/buf.h"
#include "../../src/core/strv.h"
#include "../../src/core/util.h"
#include "test.h"

void ks_suite_expand(void);

/* A folder of files in memory: "src/k.cuh" and the like. */
static const char *const files[][2] = {
	{ "/p/src/k.cuh",
	  "#pragma once\n"
	  "#include \"common.h\"\n"
	  "#include \"missing.h\"\n"
	  "__global__ void hk(float *p, int n)\n"
	  "{\n"
	  "\tif (threadIdx.x < n) p[threadIdx.x] *= 2;\n"
	  "}\n" },
	{ "/p/src/common.h", "#define TWO 2\n" },
	{ "/p/src/other.h", "__global__ void other(float *p) { p[0] = 0; }\n" },
	{ "/p/src/sub/dup.cuh", "__global__ void hk(float *p, int n) { }\n" },
	/* a chain: app.cu -> lib/a.h -> lib/kern/b.h -> lib/kern/k3.cuh,
	 * each found beside its includer */
	{ "/p/src/lib/a.h",
	  "#ifndef A_H\n"
	  "#define A_H\n"
	  "// #include \"kern/b.h\" (a comment: not a second inclusion)\n"
	  "#include \"kern/b.h\"\n"
	  "int a_after;\n"
	  "#endif\n" },
	{ "/p/src/lib/kern/b.h",
	  "#pragma once\n"
	  "#include \"common.h\"\n"
	  "#include \"k3.cuh\"\n"
	  "int b_after;\n" },
	{ "/p/src/lib/kern/common.h", "#define C 1\n" },
	{ "/p/src/lib/kern/k3.cuh",
	  "__global__ void k3(float *p)\n"
	  "{\n"
	  "\tp[0] = C;\n"
	  "}\n" },
	{ "/p/src/two.h", "// two\n#include \"k.cuh\"\nint two_after;\n" },
	{ "/p/src/cmt.h", "// #include \"k.cuh\"\n/*\n#include \"k.cuh\"\n*/\n" },
	{ "/p/src/cyc1.h", "#pragma once\n#include \"cyc2.h\"\n#include \"kc.cuh\"\n" },
	{ "/p/src/cyc2.h", "#pragma once\n#include \"cyc1.h\"\n" },
	{ "/p/src/kc.cuh", "__global__ void kc(int *p) { p[0] = 1; }\n" },
	{ "/p/src/d1.h", "#include \"d2.h\"\n" },
	{ "/p/src/d2.h", "#include \"d3.h\"\n" },
	{ "/p/src/d3.h", "#include \"d4.h\"\n" },
	{ "/p/src/d4.h", "#include \"kd.cuh\"\n" },
	{ "/p/src/kd.cuh", "__global__ void kd(int *p) { p[0] = 2; }\n" },
};

static int
fake_read(const char *path, struct ks_buf *out, void *ctx)
{
	(void)ctx;
	for (size_t i = 0; i < KS_ARRAY_SIZE(files); i++)
		if (!strcmp(files[i][0], path))
			return ks_buf_adds(out, files[i][1]), 0;
	return -1;
}

static int
fake_exists(const char *path, void *ctx)
{
	struct ks_buf b = KS_BUF_INIT;
	int ok = !fake_read(path, &b, ctx);

	ks_buf_release(&b);
	return ok;
}

static const char tu[] =
	"#include <cstdio>\n"
	"#include \"other.h\" // a comment /* that opens nothing\n"
	"#include \"k.cuh\"\n"
	"void go(float *p, int n)\n"
	"{\n"
	"\thk<<<1, 32>>>(p, n);\n"
	"}\n";

TEST(the_include_that_defines_the_kernel_is_found_and_expanded)
{
	struct ks_buf err = KS_BUF_INIT, h = KS_BUF_INIT, out = KS_BUF_INIT;
	struct ks_strv from = KS_STRV_INIT, to = KS_STRV_INIT;
	struct ks_expand x;

	CHECK_INT_EQ(0, ks_expand_find(tu, strlen(tu), "src/app.cu", "/p/src", "hk", fake_read,
				       NULL, &x, &h, &err));
	CHECK_STR_EQ("", err.buf);
	CHECK_STR_EQ("/p/src/k.cuh", x.header);
	CHECK_STR_EQ("k.cuh", x.name);
	CHECK_INT_EQ(3, (int)x.line);
	CHECK_INT_EQ((int)(strstr(tu, "#include \"k.cuh\"") - tu), (int)x.begin);
	CHECK(h.buf && strstr(h.buf, "__global__ void hk"));
	ks_expand_text(tu, strlen(tu), "src/app.cu", &x, "src/k.cuh", h.buf, h.len,
		       fake_exists, NULL, &from, &to, &out);
	CHECK_INT_EQ(1, (int)from.n);
	CHECK_STR_EQ("/p/src/common.h", from.v[0]);
	CHECK_STR_EQ("src/common.h", to.v[0]);
	CHECK_STR_EQ("#include <cstdio>\n"
		     "#include \"other.h\" // a comment /* that opens nothing\n"
		     "#line 1 \"src/k.cuh\"\n"
		     "            \n"
		     "#include \"/p/src/common.h\"\n"
		     "#include \"missing.h\"\n"
		     "__global__ void hk(float *p, int n)\n"
		     "{\n"
		     "\tif (threadIdx.x < n) p[threadIdx.x] *= 2;\n"
		     "}\n"
		     "#line 4 \"src/app.cu\"\n"
		     "void go(float *p, int n)\n"
		     "{\n"
		     "\thk<<<1, 32>>>(p, n);\n"
		     "}\n", out.buf);
	ks_expand_release(&x);
	ks_strv_release(&from);
	ks_strv_release(&to);
	ks_buf_release(&h);
	ks_buf_release(&out);
	ks_buf_release(&err);
}

TEST(expand_refusals_say_why)
{
	static const char twice[] = "#include \"k.cuh\"\n#include \"k.cuh\"\n";
	static const char two[] = "#include \"k.cuh\"\n#include \"sub/dup.cuh\"\n";
	static const char commented[] = "/*\n#include \"k.cuh\"\n*/\n";
	struct ks_buf err = KS_BUF_INIT;
	struct ks_expand x;

	CHECK_INT_EQ(-1, ks_expand_find(tu, strlen(tu), "src/app.cu", "/p/src", "nothere",
					fake_read, NULL, &x, NULL, &err));
	CHECK(strstr(err.buf, "kernel nothere is defined in a header that the file "
			      "does not reach through quoted includes") != NULL);
	CHECK(x.header == NULL);
	ks_buf_reset(&err);
	CHECK_INT_EQ(-1, ks_expand_find(twice, strlen(twice), "src/app.cu", "/p/src", "hk",
					fake_read, NULL, &x, NULL, &err));
	CHECK_STR_EQ("kernel hk's header \"k.cuh\" is included 2 times", err.buf);
	ks_buf_reset(&err);
	CHECK_INT_EQ(-1, ks_expand_find(two, strlen(two), "src/app.cu", "/p/src", "hk",
					fake_read, NULL, &x, NULL, &err));
	CHECK_STR_EQ("kernel hk is defined in two headers the file includes, "
		     "\"k.cuh\" and \"sub/dup.cuh\"", err.buf);
	ks_buf_reset(&err);
	CHECK_INT_EQ(-1, ks_expand_find(commented, strlen(commented), "src/app.cu", "/p/src",
					"hk", fake_read, NULL, &x, NULL, &err));
	ks_buf_release(&err);
}

/* The rewrite of the expanded text: the kernel's replaced definition and
 * the text around it map back to the header's lines, the TU's to its. */
TEST(a_rewrite_of_the_expanded_text_keeps_each_files_lines)
{
	static const char variant[] =
		"// ks-nvcc: definition\n"
		"__global__ void hk(float *p, int n) { p[0] = n; }\n";
	struct ks_buf err = KS_BUF_INIT, h = KS_BUF_INIT, text = KS_BUF_INIT,
		      out = KS_BUF_INIT;
	struct ks_rewrite_kernel k;
	struct ks_rewrite_variant v;
	struct ks_rewrite_job job;
	struct ks_expand x;
	char *vt = ks_xstrdup(variant);

	CHECK_INT_EQ(0, ks_expand_find(tu, strlen(tu), "src/app.cu", "/p/src", "hk", fake_read,
				       NULL, &x, &h, &err));
	ks_expand_text(tu, strlen(tu), "src/app.cu", &x, NULL, h.buf, h.len, fake_exists,
		       NULL, NULL, NULL, &text);
	CHECK_INT_EQ(0, ks_rewrite_scan(text.buf, text.len, "hk", &k, &err));
	CHECK_INT_EQ(4, (int)k.line);	/* line 4 of the header */
	memset(&v, 0, sizeof(v));
	CHECK_INT_EQ(0, ks_rewrite_variant_split(vt, &v, &err));
	v.file = "cache/v.cu";
	v.arch = 900;
	job = (struct ks_rewrite_job){ &k, &v, NULL };
	CHECK_INT_EQ(0, ks_rewrite(text.buf, text.len, "src/app.cu", &job, 1, &out, &err));
	CHECK_STR_EQ("", err.buf);
	/* the original definition, for the other passes, at its header line */
	CHECK(strstr(out.buf, "#line 4 \"/p/src/k.cuh\"\n__global__ void hk(float *p, "
			      "int n)\n{\n") != NULL);
	/* the TU's text after the header at its own lines */
	CHECK(strstr(out.buf, "#line 4 \"src/app.cu\"\nvoid go(") != NULL);
	ks_rewrite_kernel_release(&k);
	ks_expand_release(&x);
	free(vt);
	ks_buf_release(&h);
	ks_buf_release(&text);
	ks_buf_release(&out);
	ks_buf_release(&err);
}

/* The in-memory file that a #line of the expanded text names. */
static const char *
named_text(const char *named)
{
	static const char *const names[][2] = {
		{ "src/app.cu", "tu" },
		{ "src/lib/a.h", "/p/src/lib/a.h" },
		{ "src/lib/kern/b.h", "/p/src/lib/kern/b.h" },
		{ "src/lib/kern/k3.cuh", "/p/src/lib/kern/k3.cuh" },
		{ "src/two.h", "/p/src/two.h" },
		{ "src/k.cuh", "/p/src/k.cuh" },
	};

	for (size_t i = 0; i < KS_ARRAY_SIZE(names); i++) {
		if (strcmp(names[i][0], named))
			continue;
		for (size_t j = 0; j < KS_ARRAY_SIZE(files); j++)
			if (!strcmp(files[j][0], names[i][1]))
				return files[j][1];
		return NULL;
	}
	return NULL;
}

/* Line `n` (1-based) of `text`, without its newline, into `out`. */
static int
nth_line(const char *text, size_t n, struct ks_buf *out)
{
	const char *p = text, *nl;

	while (--n && (p = strchr(p, '\n')))
		p++;
	if (!p || !*p)
		return -1;
	nl = strchr(p, '\n');
	ks_buf_reset(out);
	ks_buf_add(out, p, nl ? (size_t)(nl - p) : strlen(p));
	return 0;
}

/*
 * Every line of `text` but its #line directives, mapped back through
 * them, is the line of its file that it claims to be: the same text, or
 * `#pragma once` blanked, or an include made absolute. The number of
 * lines so checked.
 */
static int
lines_map_back(const char *text, const char *tu_text, size_t *checked)
{
	struct ks_buf line = KS_BUF_INIT, orig = KS_BUF_INIT;
	char *file = ks_xstrdup("src/app.cu");
	size_t num = 1, n, i;
	int bad = 0;

	*checked = 0;
	for (i = 1; !bad && !nth_line(text, i, &line); i++) {
		const char *src;
		char *f;

		if (ks_lex_line_directive(line.buf, 0, line.len, &n, &f)) {
			if (f) {
				free(file);
				file = f;
			}
			num = n;
			continue;
		}
		src = strcmp(file, "src/app.cu") ? named_text(file) : tu_text;
		if (!src || nth_line(src, num, &orig)) {
			fprintf(stderr, "line %zu: %s:%zu is no line\n", i, file, num);
			bad = 1;
		} else if (strcmp(line.buf, orig.buf) &&
			   !(strstr(orig.buf, "#pragma once") && !strspn(line.buf, "#")) &&
			   !(strstr(line.buf, "#include \"/p/src/"))) {
			fprintf(stderr, "line %zu: \"%s\" is not %s:%zu \"%s\"\n", i, line.buf,
				file, num, orig.buf);
			bad = 1;
		}
		num++;
		++*checked;
	}
	free(file);
	ks_buf_release(&line);
	ks_buf_release(&orig);
	return bad ? -1 : 0;
}

/*
 * Bring kernel `name`'s header into `text` a level at a time, as the
 * callers do, naming each header as the compile would; the number of
 * levels, or -1 with the reason in `err`.
 */
static int
expand_all(struct ks_buf *text, const char *name, struct ks_strv *from, struct ks_strv *to,
	   struct ks_buf *err)
{
	struct ks_buf h = KS_BUF_INIT, out = KS_BUF_INIT;
	struct ks_rewrite_kernel k;
	int levels = 0;

	memset(&k, 0, sizeof(k));
	while (ks_rewrite_scan(text->buf, text->len, name, &k, NULL) == -2) {
		struct ks_expand x;
		char *named;

		if (ks_expand_find(text->buf, text->len, "src/app.cu", "/p/src", name,
				   fake_read, NULL, &x, &h, err)) {
			levels = -1;
			break;
		}
		named = ks_expand_named(&x, "src", from, to);
		ks_buf_reset(&out);
		ks_expand_text(text->buf, text->len, "src/app.cu", &x, named, h.buf, h.len,
			       fake_exists, NULL, from, to, &out);
		ks_buf_reset(text);
		ks_buf_add(text, out.buf, out.len);
		free(named);
		ks_expand_release(&x);
		levels++;
	}
	if (levels > 0)
		ks_rewrite_kernel_release(&k);
	ks_buf_release(&h);
	ks_buf_release(&out);
	return levels;
}

static const char chain_tu[] =
	"#include \"lib/a.h\"\n"
	"void go(float *p)\n"
	"{\n"
	"\tk3<<<1, 1>>>(p);\n"
	"}\n";

/* Three levels: a.h, then b.h at its include in a.h's text, then k3.cuh
 * in b.h's; each text resumes in its includer at the line after. */
TEST(a_kernel_three_headers_deep_is_brought_in_a_level_at_a_time)
{
	struct ks_buf err = KS_BUF_INIT, text = KS_BUF_INIT, h = KS_BUF_INIT;
	struct ks_strv from = KS_STRV_INIT, to = KS_STRV_INIT;
	struct ks_expand x;
	size_t checked;

	/* the first level names the TU's include and where the kernel is */
	CHECK_INT_EQ(0, ks_expand_find(chain_tu, strlen(chain_tu), "src/app.cu", "/p/src",
				       "k3", fake_read, NULL, &x, &h, &err));
	CHECK_STR_EQ("/p/src/lib/a.h", x.header);
	CHECK_STR_EQ("/p/src/lib/kern/k3.cuh", x.def);
	CHECK_INT_EQ(3, (int)x.depth);
	CHECK(x.in == NULL);
	CHECK(strstr(h.buf, "int a_after;") != NULL);
	ks_expand_release(&x);
	ks_buf_add(&text, chain_tu, strlen(chain_tu));
	CHECK_INT_EQ(3, expand_all(&text, "k3", &from, &to, &err));
	CHECK_STR_EQ("", err.buf);
	CHECK_STR_EQ("#line 1 \"src/lib/a.h\"\n"
		     "#ifndef A_H\n"
		     "#define A_H\n"
		     "// #include \"kern/b.h\" (a comment: not a second inclusion)\n"
		     "#line 1 \"src/lib/kern/b.h\"\n"
		     "            \n"
		     "#include \"/p/src/lib/kern/common.h\"\n"
		     "#line 1 \"src/lib/kern/k3.cuh\"\n"
		     "__global__ void k3(float *p)\n"
		     "{\n"
		     "\tp[0] = C;\n"
		     "}\n"
		     "#line 4 \"src/lib/kern/b.h\"\n"
		     "int b_after;\n"
		     "#line 5 \"src/lib/a.h\"\n"
		     "int a_after;\n"
		     "#endif\n"
		     "#line 2 \"src/app.cu\"\n"
		     "void go(float *p)\n"
		     "{\n"
		     "\tk3<<<1, 1>>>(p);\n"
		     "}\n", text.buf);
	CHECK_INT_EQ(0, lines_map_back(text.buf, chain_tu, &checked));
	CHECK_INT_EQ(16, (int)checked);
	/* each absolute include named for the depfile as the compile names it */
	CHECK_INT_EQ(0, (int)ks_strv_find(&from, "/p/src/lib/kern/b.h"));
	CHECK_STR_EQ("src/lib/kern/b.h", to.v[0]);
	CHECK(ks_strv_find(&from, "/p/src/lib/kern/common.h") >= 0);
	CHECK_STR_EQ("src/lib/kern/common.h",
		     to.v[ks_strv_find(&from, "/p/src/lib/kern/common.h")]);
	CHECK(ks_strv_find(&from, "/p/src/lib/kern/k3.cuh") >= 0);
	CHECK_STR_EQ("src/lib/kern/k3.cuh",
		     to.v[ks_strv_find(&from, "/p/src/lib/kern/k3.cuh")]);
	CHECK_INT_EQ(3, (int)from.n);
	ks_strv_release(&from);
	ks_strv_release(&to);
	ks_buf_release(&text);
	ks_buf_release(&h);
	ks_buf_release(&err);
}

/* Two levels among the TU's other lines and includes; a rewrite of the
 * result names the header's lines for the kernel, the TU's for its own. */
TEST(a_kernel_two_headers_deep_keeps_every_files_lines)
{
	static const char tu2[] =
		"#include <cstdio>\n"
		"#include \"other.h\"\n"
		"int before;\n"
		"#include \"two.h\"\n"
		"void go(float *p, int n)\n"
		"{\n"
		"\thk<<<1, 32>>>(p, n);\n"
		"}\n";
	static const char variant[] =
		"// ks-nvcc: definition\n"
		"__global__ void hk(float *p, int n) { p[0] = n; }\n";
	struct ks_buf err = KS_BUF_INIT, text = KS_BUF_INIT, out = KS_BUF_INIT;
	struct ks_strv from = KS_STRV_INIT, to = KS_STRV_INIT;
	struct ks_rewrite_kernel k;
	struct ks_rewrite_variant v;
	struct ks_rewrite_job job;
	char *vt = ks_xstrdup(variant);
	size_t checked;

	ks_buf_add(&text, tu2, strlen(tu2));
	CHECK_INT_EQ(2, expand_all(&text, "hk", &from, &to, &err));
	CHECK(strstr(text.buf, "#line 1 \"src/two.h\"\n// two\n#line 1 \"src/k.cuh\"\n"));
	CHECK(strstr(text.buf, "}\n#line 3 \"src/two.h\"\nint two_after;\n"
			       "#line 5 \"src/app.cu\"\nvoid go("));
	CHECK_INT_EQ(0, lines_map_back(text.buf, tu2, &checked));
	CHECK_INT_EQ(16, (int)checked);
	CHECK_INT_EQ(0, ks_rewrite_scan(text.buf, text.len, "hk", &k, &err));
	CHECK_INT_EQ(4, (int)k.line);	/* line 4 of k.cuh */
	memset(&v, 0, sizeof(v));
	CHECK_INT_EQ(0, ks_rewrite_variant_split(vt, &v, &err));
	v.file = "cache/v.cu";
	v.arch = 900;
	job = (struct ks_rewrite_job){ &k, &v, NULL };
	CHECK_INT_EQ(0, ks_rewrite(text.buf, text.len, "src/app.cu", &job, 1, &out, &err));
	CHECK(strstr(out.buf, "#line 4 \"src/k.cuh\"\n__global__ void hk(float *p, "
			      "int n)\n{\n") != NULL);
	CHECK(strstr(out.buf, "#line 3 \"src/two.h\"\nint two_after;\n") != NULL);
	CHECK(strstr(out.buf, "#line 5 \"src/app.cu\"\nvoid go(") != NULL);
	ks_rewrite_kernel_release(&k);
	free(vt);
	ks_strv_release(&from);
	ks_strv_release(&to);
	ks_buf_release(&text);
	ks_buf_release(&out);
	ks_buf_release(&err);
}

/* What a chain of headers cannot bring in, each with its reason. */
TEST(chains_of_headers_declined_say_why)
{
	static const struct {
		const char *tu, *kernel, *why;
	} no[] = {
		{ "#include <lib/a.h>\n", "k3",
		  "kernel k3 is defined in a header that the file does not reach through "
		  "quoted includes, each found beside the file that includes it (an "
		  "angle-bracket include, or a header found on the include path)" },
		/* b.h beside a.h, not beside the TU */
		{ "#include \"kern/b.h\"\n", "k3", "kernel k3 is defined in a header that" },
		{ "#include \"cmt.h\"\n", "hk", "kernel hk is defined in a header that" },
		{ "#include \"two.h\"\n#include \"k.cuh\"\n", "hk",
		  "kernel hk's header \"k.cuh\" (through \"two.h\") is included 2 times" },
		{ "#include \"two.h\"\n#include \"two.h\"\n", "hk",
		  "kernel hk's header \"k.cuh\" (through \"two.h\") is included 2 times" },
		{ "#include \"two.h\"\n#include \"sub/dup.cuh\"\n", "hk",
		  "kernel hk is defined in two headers the file includes, \"k.cuh\" "
		  "(through \"two.h\") and \"sub/dup.cuh\"" },
		{ "#include \"cyc1.h\"\n", "kc",
		  "kernel kc's header \"kc.cuh\" comes through \"cyc1.h\", which \"cyc2.h\" "
		  "includes again (headers that include each other)" },
		{ "#include \"d1.h\"\n", "kd",
		  "kernel kd is defined in \"kd.cuh\", more than 4 headers deep (through "
		  "\"d1.h\")" },
	};
	struct ks_buf err = KS_BUF_INIT;
	struct ks_expand x;

	for (size_t i = 0; i < KS_ARRAY_SIZE(no); i++) {
		ks_buf_reset(&err);
		CHECK_INT_EQ(-1, ks_expand_find(no[i].tu, strlen(no[i].tu), "src/app.cu",
						"/p/src", no[i].kernel, fake_read, NULL, &x,
						NULL, &err));
		CHECK(x.header == NULL);
		if (!strstr(err.buf, no[i].why))
			CHECK_STR_EQ(no[i].why, err.buf);
	}
	/* four deep is the most */
	ks_buf_reset(&err);
	CHECK_INT_EQ(0, ks_expand_find("#include \"d2.h\"\n", 16, "src/app.cu", "/p/src",
				       "kd", fake_read, NULL, &x, NULL, &err));
	CHECK_INT_EQ(4, (int)x.depth);
	ks_expand_release(&x);
	ks_buf_release(&err);
}

/* #line directives in both spellings; others are not. */
TEST(line_directives_are_read)
{
	static const char *const yes[] = {
		"#line 12 \"a.h\"", "# 3 \"b/c.h\" 2", "  #  line 7",
	};
	static const char *const no[] = { "#line 0 \"x\"", "#include \"x\"", "#lines 3" };
	static const size_t nums[] = { 12, 3, 7 };
	static const char *const files_of[] = { "a.h", "b/c.h", NULL };
	size_t n;
	char *f;

	for (size_t i = 0; i < KS_ARRAY_SIZE(yes); i++) {
		CHECK_INT_EQ(1, ks_lex_line_directive(yes[i], 0, strlen(yes[i]), &n, &f));
		CHECK_INT_EQ((int)nums[i], (int)n);
		if (files_of[i])
			CHECK_STR_EQ(files_of[i], f);
		else
			CHECK(f == NULL);
		free(f);
	}
	for (size_t i = 0; i < KS_ARRAY_SIZE(no); i++) {
		f = NULL;
		CHECK_INT_EQ(0, ks_lex_line_directive(no[i], 0, strlen(no[i]), &n, &f));
		CHECK(f == NULL);
	}
}

void
ks_suite_expand(void)
{
	RUN(the_include_that_defines_the_kernel_is_found_and_expanded);
	RUN(expand_refusals_say_why);
	RUN(a_rewrite_of_the_expanded_text_keeps_each_files_lines);
	RUN(a_kernel_three_headers_deep_is_brought_in_a_level_at_a_time);
	RUN(a_kernel_two_headers_deep_keeps_every_files_lines);
	RUN(chains_of_headers_declined_say_why);
	RUN(line_directives_are_read);
}
