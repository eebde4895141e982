/* Unit tests of wrapper/subst: the pure parts of substitution (kernel
 * names from mangled names, arch numbers, includes made absolute,
 * depfiles mapped back). The compiles are tests/suites/subst.sh. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../src/core/buf.h"
#include "../../src/core/strv.h"
#include "../../wrapper/subst.h"
#include "test.h"

void ks_suite_subst(void);

TEST(kernel_names)
{
	struct ks_buf b = KS_BUF_INIT;
	int inst = -1;

	CHECK_INT_EQ(0, ks_subst_kernel_name("_Z5scalePffi", &b, &inst));
	CHECK_STR_EQ("scale", b.buf);
	CHECK_INT_EQ(0, inst);
	CHECK_INT_EQ(0, ks_subst_kernel_name("_ZN2ns4stepEPf", &b, &inst));
	CHECK_STR_EQ("step", b.buf);
	CHECK_INT_EQ(0, ks_subst_kernel_name("_ZN1a1b10long_name_Ev", &b, &inst));
	CHECK_STR_EQ("long_name_", b.buf);
	CHECK_INT_EQ(0, ks_subst_kernel_name("plain_c_kernel", &b, &inst));
	CHECK_STR_EQ("plain_c_kernel", b.buf);
	CHECK_INT_EQ(0, inst);
	/* Instances of templates: the template's name. */
	CHECK_INT_EQ(0, ks_subst_kernel_name("_Z4fillIfEvPT_i", &b, &inst));
	CHECK_STR_EQ("fill", b.buf);
	CHECK_INT_EQ(1, inst);
	CHECK_INT_EQ(0, ks_subst_kernel_name("_ZN2ns4fillIiEEvPT_", &b, &inst));
	CHECK_STR_EQ("fill", b.buf);
	CHECK_INT_EQ(1, inst);
	/* What the scan cannot name. */
	CHECK_INT_EQ(-1, ks_subst_kernel_name("_Z99x", &b, &inst));
	CHECK_INT_EQ(-1, ks_subst_kernel_name("", &b, &inst));
	ks_buf_release(&b);
}

TEST(arch_numbers)
{
	CHECK_INT_EQ(900, ks_subst_arch_number("sm_90"));
	CHECK_INT_EQ(900, ks_subst_arch_number("sm_90a"));
	CHECK_INT_EQ(1000, ks_subst_arch_number("sm_100f"));
	CHECK_INT_EQ(800, ks_subst_arch_number("sm_80"));
	CHECK_INT_EQ(0, ks_subst_arch_number("compute_90"));
	CHECK_INT_EQ(0, ks_subst_arch_number("sm_"));
	CHECK_INT_EQ(0, ks_subst_arch_number("sm_90x"));
	CHECK_INT_EQ(0, ks_subst_arch_number(NULL));
}

static int
exists_in_list(const char *path, void *ctx)
{
	const char *const *l = ctx;

	for (; *l; l++)
		if (!strcmp(*l, path))
			return 1;
	return 0;
}

TEST(includes_made_absolute)
{
	static const char *const files[] = { "/p/src/util.h", "/p/src/sub/x.h", NULL };
	struct ks_buf out = KS_BUF_INIT, why = KS_BUF_INIT;
	struct ks_strv from = KS_STRV_INIT, to = KS_STRV_INIT;
	const char *tu = "#include <cstdio>\n"
			 "#include \"util.h\"\n"
			 "  #  include \"sub/x.h\" // why\n"
			 "#include \"not-here.h\"\n"
			 "#include \"/abs/y.h\"\n"
			 "int x;\n";

	CHECK_INT_EQ(0, ks_subst_fix_includes(tu, "/p/src", "src", exists_in_list,
					      (void *)files, &out, &from, &to, &why));
	CHECK_STR_EQ("#include <cstdio>\n"
		     "#include \"/p/src/util.h\"\n"
		     "  #  include \"/p/src/sub/x.h\" // why\n"
		     "#include \"not-here.h\"\n"
		     "#include \"/abs/y.h\"\n"
		     "int x;\n", out.buf);
	CHECK_INT_EQ(2, from.n);
	CHECK_STR_EQ("/p/src/util.h", from.v[0]);
	CHECK_STR_EQ("src/util.h", to.v[0]);
	CHECK_STR_EQ("src/sub/x.h", to.v[1]);
	/* A source given without a directory: the bare name. */
	ks_buf_reset(&out);
	ks_strv_release(&from);
	ks_strv_release(&to);
	CHECK_INT_EQ(0, ks_subst_fix_includes("#include \"util.h\"\n", "/p/src", "",
					      exists_in_list, (void *)files, &out,
					      &from, &to, &why));
	CHECK_STR_EQ("util.h", to.v[0]);
	/* What cannot be made to resolve as before. */
	ks_buf_reset(&out);
	CHECK_INT_EQ(-1, ks_subst_fix_includes("#include HDR\n", "/p/src", "",
					       exists_in_list, (void *)files, &out,
					       &from, &to, &why));
	CHECK(strstr(why.buf, "computed #include on line 1"));
	ks_buf_reset(&why);
	CHECK_INT_EQ(-1, ks_subst_fix_includes("int a;\n#include_next <x.h>\n",
					       "/p/src", "", exists_in_list,
					       (void *)files, &out, &from, &to, &why));
	CHECK(strstr(why.buf, "line 2"));
	ks_buf_reset(&why);
	CHECK_INT_EQ(-1, ks_subst_fix_includes("#if __has_include(\"a.h\")\n#endif\n",
					       "/p/src", "", exists_in_list,
					       (void *)files, &out, &from, &to, &why));
	ks_buf_release(&out);
	ks_buf_release(&why);
	ks_strv_release(&from);
	ks_strv_release(&to);
}

TEST(depfile_mapped_back)
{
	struct ks_strv from = KS_STRV_INIT, to = KS_STRV_INIT;
	struct ks_buf out = KS_BUF_INIT;

	ks_strv_push(&from, "/k/tmp/ks-nvcc.ab/app.cu");
	ks_strv_push(&to, "src/app.cu");
	ks_strv_push(&from, "/p/my src/util.h");
	ks_strv_push(&to, "my src/util.h");
	ks_subst_fix_depfile("app.o : /k/tmp/ks-nvcc.ab/app.cu \\\n"
			     "    /usr/include/stdio.h \\\n"
			     "    /p/my\\ src/util.h\n"
			     "/p/my\\ src/util.h:\n", &from, &to, &out);
	CHECK_STR_EQ("app.o : src/app.cu \\\n"
		     "    /usr/include/stdio.h \\\n"
		     "    my\\ src/util.h\n"
		     "my\\ src/util.h:\n", out.buf);
	ks_buf_release(&out);
	ks_strv_release(&from);
	ks_strv_release(&to);
}

TEST(depfile_dedupe)
{
	struct ks_buf dep = KS_BUF_INIT;

	/* the TU again in the middle, and as the rule's last line */
	ks_buf_adds(&dep, "happ.o : src/happ.cu \\\n"
			  "    src/happ.cu \\\n"
			  "    src/util.h \\\n"
			  "    src/my\\ h.h \\\n"
			  "    src/happ.cu\n"
			  "src/util.h:\n"
			  "src/util.h:\n");
	ks_subst_depfile_dedupe(&dep);
	CHECK_STR_EQ("happ.o : src/happ.cu \\\n"
		     "    src/util.h \\\n"
		     "    src/my\\ h.h\n"
		     "src/util.h:\n"
		     "src/util.h:\n", dep.buf);
	ks_buf_release(&dep);
	/* nothing repeated, or a one-line rule: unchanged */
	ks_buf_adds(&dep, "a.o : a.cu b.h b.h\nb.h:\n");
	ks_subst_depfile_dedupe(&dep);
	CHECK_STR_EQ("a.o : a.cu b.h b.h\nb.h:\n", dep.buf);
	ks_buf_release(&dep);
	ks_buf_adds(&dep, "a.o : a.cu \\\n    b.h\n");
	ks_subst_depfile_dedupe(&dep);
	CHECK_STR_EQ("a.o : a.cu \\\n    b.h\n", dep.buf);
	ks_buf_release(&dep);
	ks_subst_depfile_dedupe(&dep);
	CHECK_INT_EQ(0, (long)dep.len);
	ks_buf_release(&dep);
}

TEST(empty_cache)
{
	const char *d = test_tmpdir();
	char sub[4096];

	CHECK_INT_EQ(0, ks_subst_cache_nonempty(d));
	CHECK_INT_EQ(0, ks_subst_cache_nonempty("/nonexistent/cache"));
	CHECK_INT_EQ(0, ks_subst_cache_nonempty(NULL));
	test_write(d, "trim.lock", "");
	CHECK_INT_EQ(0, ks_subst_cache_nonempty(d));
	snprintf(sub, sizeof(sub), "%s/3f", d);
	CHECK_INT_EQ(0, mkdir(sub, 0777));
	CHECK_INT_EQ(1, ks_subst_cache_nonempty(d));
}

void
ks_suite_subst(void)
{
	RUN(kernel_names);
	RUN(depfile_dedupe);
	RUN(arch_numbers);
	RUN(includes_made_absolute);
	RUN(depfile_mapped_back);
	RUN(empty_cache);
}
