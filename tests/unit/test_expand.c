/* Unit tests of cache/expand.h: which #include brings a kernel's
 * definition into a TU, the TU with that include replaced by the header's
 * text (lines mapped back by #line), the refusals, and the rewrite of a
 * kernel so brought in (its lines still its header's). */
#include <stdlib.h>
#include <string.h>

#include "../../src/cache/expand.h"
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

	CHECK_INT_EQ(0, ks_expand_find(tu, strlen(tu), "/p/src", "hk", fake_read, NULL,
				       &x, &h, &err));
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

	CHECK_INT_EQ(-1, ks_expand_find(tu, strlen(tu), "/p/src", "nothere", fake_read,
					NULL, &x, NULL, &err));
	CHECK(strstr(err.buf, "kernel nothere is defined in a header that the file "
			      "does not include itself") != NULL);
	CHECK(x.header == NULL);
	ks_buf_reset(&err);
	CHECK_INT_EQ(-1, ks_expand_find(twice, strlen(twice), "/p/src", "hk", fake_read,
					NULL, &x, NULL, &err));
	CHECK_STR_EQ("kernel hk's header \"k.cuh\" is included 2 times", err.buf);
	ks_buf_reset(&err);
	CHECK_INT_EQ(-1, ks_expand_find(two, strlen(two), "/p/src", "hk", fake_read,
					NULL, &x, NULL, &err));
	CHECK_STR_EQ("kernel hk is defined in two headers the file includes, "
		     "\"k.cuh\" and \"sub/dup.cuh\"", err.buf);
	ks_buf_reset(&err);
	CHECK_INT_EQ(-1, ks_expand_find(commented, strlen(commented), "/p/src", "hk",
					fake_read, NULL, &x, NULL, &err));
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

	CHECK_INT_EQ(0, ks_expand_find(tu, strlen(tu), "/p/src", "hk", fake_read, NULL,
				       &x, &h, &err));
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

void
ks_suite_expand(void)
{
	RUN(the_include_that_defines_the_kernel_is_found_and_expanded);
	RUN(expand_refusals_say_why);
	RUN(a_rewrite_of_the_expanded_text_keeps_each_files_lines);
}
