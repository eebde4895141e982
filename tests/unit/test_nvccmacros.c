/*
 * Unit tests of src/nvcc/nvccmacros.c: nvcc's predefined macros as -U/-D
 * pairs, from -dM output and from a version, without running nvcc, and
 * where the analysis's clang arguments put them.
 */
#include <stdlib.h>
#include <string.h>

#include "../../src/analysis/inventory.h"
#include "../../src/core/strv.h"
#include "../../src/nvcc/nvccmacros.h"
#include "test.h"

void ks_suite_nvccmacros(void);

/* The pairs as one line, "-UA -DA=1 -UB ..." */
static char *
joined(const struct ks_strv *sv)
{
	size_t i, len = 1;
	char *s;

	for (i = 0; i < sv->n; i++)
		len += strlen(sv->v[i]) + 1;
	s = calloc(1, len);
	for (i = 0; i < sv->n; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, sv->v[i]);
	}
	return s;
}

TEST(parse_keeps_nvccs_macros_only)
{
	/* as nvcc 13 prints them, among the host compiler's */
	const char *text =
		"#define __GNUC__ 12\n"
		"#define __CUDACC_VER_MINOR__ 0\n"
		"#define __CUDACC_VER_BUILD__ 88\n"
		"#define __CUDACC_VER_MAJOR__ 13\n"
		"#define __CUDA_ARCH__ 750\n"
		"#define __CUDACC_DEVICE_ATOMIC_BUILTINS__ 1\n"
		"#define __CUDACC_VER__ \"__CUDACC_VER__ is no longer supported.\"\n"
		"#define __NVCC_DIAG_PRAGMA_SUPPORT__ 1\n"
		"#define __CUDA_ARCH_LIST__ 750\n"
		"#define __CUDA_ARCH_HAS_FEATURE__(_FEAT) __CUDA_ARCH_FEAT_ ##_FEAT\n"
		"#define __NVCC__ 1\r\n"
		"#define __CUDACC_RDC__ 1\n"
		"#define __CUDACC__ 1";
	struct ks_strv sv = KS_STRV_INIT;
	char *s;

	CHECK_INT_EQ(6, ks_nvccmacros_parse(text, &sv));
	s = joined(&sv);
	CHECK_STR_EQ("-U__CUDACC_VER_MINOR__ -D__CUDACC_VER_MINOR__=0 "
		     "-U__CUDACC_VER_BUILD__ -D__CUDACC_VER_BUILD__=88 "
		     "-U__CUDACC_VER_MAJOR__ -D__CUDACC_VER_MAJOR__=13 "
		     "-U__NVCC__ -D__NVCC__=1 -U__CUDACC_RDC__ "
		     "-D__CUDACC_RDC__=1 -U__CUDACC__ -D__CUDACC__=1", s);
	free(s);
	ks_strv_release(&sv);
}

TEST(parse_refuses_what_is_not_nvccs_answer)
{
	struct ks_strv sv = KS_STRV_INIT;

	ks_strv_push(&sv, "-DKEEP");
	/* gcc's -dM alone; an empty __CUDACC__ (clang's); no __NVCC__ */
	CHECK_INT_EQ(-1, ks_nvccmacros_parse("#define __GNUC__ 12\n", &sv));
	CHECK_INT_EQ(-1, ks_nvccmacros_parse(
				 "#define __NVCC__ 1\n#define __CUDACC__\n", &sv));
	CHECK_INT_EQ(-1, ks_nvccmacros_parse("#define __CUDACC__ 1\n", &sv));
	CHECK_INT_EQ(-1, ks_nvccmacros_parse("", &sv));
	/* a value that is no integer is not passed on */
	CHECK_INT_EQ(-1, ks_nvccmacros_parse(
				 "#define __NVCC__ 1 -DX\n#define __CUDACC__ 1\n",
				 &sv));
	CHECK_INT_EQ(1, (int)sv.n);
	ks_strv_release(&sv);
}

TEST(from_version)
{
	struct ks_strv sv = KS_STRV_INIT;
	char *s;

	CHECK_INT_EQ(5, ks_nvccmacros_from_version("13.0.88", &sv));
	s = joined(&sv);
	CHECK_STR_EQ("-U__NVCC__ -D__NVCC__=1 -U__CUDACC__ -D__CUDACC__=1 "
		     "-U__CUDACC_VER_MAJOR__ -D__CUDACC_VER_MAJOR__=13 "
		     "-U__CUDACC_VER_MINOR__ -D__CUDACC_VER_MINOR__=0 "
		     "-U__CUDACC_VER_BUILD__ -D__CUDACC_VER_BUILD__=88", s);
	free(s);
	ks_strv_release(&sv);
	CHECK_INT_EQ(5, ks_nvccmacros_from_version("12.4", &sv));
	CHECK_STR_EQ("-D__CUDACC_VER_MINOR__=4", sv.v[7]);
	CHECK_STR_EQ("-D__CUDACC_VER_BUILD__=0", sv.v[9]);
	ks_strv_release(&sv);
	CHECK_INT_EQ(-1, ks_nvccmacros_from_version("", &sv));
	CHECK_INT_EQ(-1, ks_nvccmacros_from_version(NULL, &sv));
	CHECK_INT_EQ(-1, ks_nvccmacros_from_version("13.", &sv));
	CHECK_INT_EQ(0, (int)sv.n);
}

TEST(tu_args_pass_them_before_the_builds)
{
	struct ks_strv mac = KS_STRV_INIT, def = KS_STRV_INIT;
	struct ks_strv out = KS_STRV_INIT;
	struct ks_tu_opts o;
	long d, u, b;

	CHECK_INT_EQ(5, ks_nvccmacros_from_version("13.0.88", &mac));
	ks_strv_push(&def, "-DN=4");
	memset(&o, 0, sizeof(o));
	o.source = "k.cu";
	o.toolkit = "/usr/local/cuda";
	o.nvcc_macros = &mac;
	o.defines = &def;
	ks_tu_args(&o, "/state/clang", "/state/prelude.h", &out);
	u = ks_strv_find(&out, "-U__CUDACC__");
	d = ks_strv_find(&out, "-D__CUDACC__=1");
	b = ks_strv_find(&out, "-DN=4");
	CHECK(u >= 0 && d == u + 1 && b > d);
	CHECK(ks_strv_find(&out, "-D__CUDACC_VER_MAJOR__=13") >= 0);
	/* restored after clang's wrapper empties it */
	CHECK(ks_strv_find(&out, "-D__KS_CUDACC__=1") > b);
	CHECK(ks_strv_find(&out, "-D__CUDA_ARCH__") < 0);
	ks_strv_release(&out);
	/* the build's last word on __CUDACC__ is the one restored */
	ks_strv_push(&def, "-U__CUDACC__");
	ks_strv_init(&out);
	ks_tu_args(&o, "/state/clang", "/state/prelude.h", &out);
	CHECK(ks_strv_find(&out, "-D__KS_CUDACC__=1") < 0);
	ks_strv_release(&out);
	ks_strv_push(&def, "-D__CUDACC__=2");
	ks_strv_init(&out);
	ks_tu_args(&o, "/state/clang", "/state/prelude.h", &out);
	CHECK(ks_strv_find(&out, "-D__KS_CUDACC__=2") >= 0);
	ks_strv_release(&out);
	/* no nvcc macros: none of ks's */
	o.nvcc_macros = NULL;
	ks_strv_release(&def);
	ks_strv_init(&out);
	ks_tu_args(&o, "/state/clang", "/state/prelude.h", &out);
	CHECK(ks_strv_find(&out, "-U__CUDACC__") < 0);
	CHECK(ks_strv_find(&out, "-D__KS_CUDACC__=1") < 0);
	ks_strv_release(&out);
	ks_strv_release(&mac);
}

void
ks_suite_nvccmacros(void)
{
	RUN(parse_keeps_nvccs_macros_only);
	RUN(parse_refuses_what_is_not_nvccs_answer);
	RUN(from_version);
	RUN(tu_args_pass_them_before_the_builds);
}
