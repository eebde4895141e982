/* Unit tests of the ks-nvcc driver's pure parts: launcher form, the nvcc
 * version, finding the real nvcc, build records. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../src/core/buf.h"
#include "../../src/core/fs.h"
#include "../../src/core/strv.h"
#include "../../src/core/util.h"
#include "../../src/nvcc/args.h"
#include "../../wrapper/ksnvcc.h"
#include "../../src/nvcc/nvccver.h"
#include "../../src/nvcc/passthru.h"
#include "../../src/nvcc/record.h"
#include "test.h"

void ks_suite_wrapper(void);

TEST(launcher_form)
{
	CHECK_INT_EQ(1, ks_nvcc_is_launcher_form("/usr/local/cuda/bin/nvcc", 1));
	CHECK_INT_EQ(0, ks_nvcc_is_launcher_form("/usr/local/cuda/bin/nvcc", 0));
	CHECK_INT_EQ(0, ks_nvcc_is_launcher_form("-c", 1));
	CHECK_INT_EQ(0, ks_nvcc_is_launcher_form("kernels.cu", 1));
	CHECK_INT_EQ(1, ks_nvcc_is_launcher_form("/opt/x/nvcc-13.0", 1));
	CHECK_INT_EQ(0, ks_nvcc_is_launcher_form("/opt/x/gcc", 1));
	CHECK_INT_EQ(0, ks_nvcc_is_launcher_form(NULL, 1));
}

TEST(nvcc_version_parse)
{
	struct ks_buf v = KS_BUF_INIT, err = KS_BUF_INIT;

	CHECK_INT_EQ(0, ks_nvccver_parse(
				"nvcc: NVIDIA (R) Cuda compiler driver\n"
				"Cuda compilation tools, release 13.0, V13.0.88\n"
				"Build cuda_13.0.r13.0/compiler.36424714_0\n",
				&v, &err));
	CHECK_STR_EQ("13.0.88", v.buf);
	ks_buf_reset(&v);
	CHECK_INT_EQ(-1, ks_nvccver_parse("gcc (Debian 12.2.0) 12.2.0\n", &v, &err));
	CHECK(strstr(err.buf, "no version") != NULL);
	ks_buf_release(&v);
	ks_buf_release(&err);
}

static void
make_exec(const char *path, const char *text)
{
	test_write("", path, text);
	chmod(path, 0755);
}

TEST(find_real_nvcc_skips_self_and_safeguarded)
{
	const char *dir = test_tmpdir();
	char *d1 = ks_xasprintf("%s/d1", dir), *d2 = ks_xasprintf("%s/d2", dir);
	char *n1 = ks_xasprintf("%s/nvcc", d1), *n2 = ks_xasprintf("%s/nvcc", d2);
	char *path = ks_xasprintf("%s:%s", d1, d2);
	char *old_path = ks_xstrdup(getenv("PATH") ? getenv("PATH") : "");
	char *self, *found, *r2;
	struct ks_buf err = KS_BUF_INIT;

	ks_fs_mkdirs(d1, &err);
	ks_fs_mkdirs(d2, &err);
	make_exec(n1, "#!/bin/sh\n");
	make_exec(n2, "#!/bin/sh\n");
	setenv("PATH", path, 1);
	unsetenv(KS_SAFEGUARD_ENV);
	unsetenv("CUDA_HOME");
	unsetenv("CUDA_PATH");

	found = ks_passthru_find(NULL, NULL, &err);
	CHECK_STR_EQ(n1, found);
	free(found);
	/* d1/nvcc "is" ks-nvcc: skipped. */
	self = ks_fs_realpath(n1);
	found = ks_passthru_find(NULL, self, &err);
	CHECK_STR_EQ(n2, found);
	free(found);
	/* d2/nvcc was already exec'd by a ks-nvcc above us: skipped too. */
	r2 = ks_fs_realpath(n2);
	setenv(KS_SAFEGUARD_ENV, r2, 1);
	found = ks_passthru_find(NULL, self, &err);
	if (found) /* only the standard toolkit location may remain */
		CHECK_STR_EQ("/usr/local/cuda/bin/nvcc", found);
	free(found);
	/* KS_NVCC wins, but never when it is ks-nvcc itself. */
	ks_buf_reset(&err);
	found = ks_passthru_find(n1, self, &err);
	CHECK_NULL(found);
	CHECK(strstr(err.buf, "KS_NVCC") != NULL);
	unsetenv(KS_SAFEGUARD_ENV);
	found = ks_passthru_find(n2, self, &err);
	CHECK_STR_EQ(n2, found);
	free(found);

	setenv("PATH", old_path, 1);
	free(old_path);
	free(self);
	free(r2);
	free(path);
	free(n1);
	free(n2);
	free(d1);
	free(d2);
	ks_buf_release(&err);
}

TEST(record_names_and_format)
{
	struct ks_strv argv = KS_STRV_INIT;
	struct ks_args a;
	struct ks_buf err = KS_BUF_INIT, json = KS_BUF_INIT;
	struct ks_record_info ri = {
		.cwd = "/work", .nvcc = "/usr/local/cuda/bin/nvcc",
		.nvcc_version = "13.0.88", .append_flags = "-lineinfo",
	};
	char *n1, *n2;
	const char *words[] = { "-O3", "-arch=sm_90", "-DX=\"a b\"", "-c",
				"k.cu", "-o", "obj/k.o" };

	ks_strv_pushv(&argv, words, KS_ARRAY_SIZE(words));
	ks_args_init(&a);
	CHECK_INT_EQ(0, ks_args_classify(&argv, &a, &err));
	ks_record_format(&a, &ri, &json);
	CHECK(strstr(json.buf, "\"format\": 2") != NULL);
	/* A -c build is its own command; the source is word 4. */
	CHECK(strstr(json.buf, "\"mode\": \"compile\"") != NULL);
	CHECK(strstr(json.buf, "\"source_index\": 4") != NULL);
	CHECK(strstr(json.buf, "\"time\": \"1970-01-01T00:00:00Z\"") != NULL);
	CHECK(strstr(json.buf, "\"source\": \"/work/k.cu\"") != NULL);
	CHECK(strstr(json.buf, "\"output\": \"/work/obj/k.o\"") != NULL);
	CHECK(strstr(json.buf, "\"-DX=\\\"a b\\\"\"") != NULL);
	CHECK(strstr(json.buf, "\"prepend_flags\": null") != NULL);
	CHECK(strstr(json.buf, "\"append_flags\": \"-lineinfo\"") != NULL);
	CHECK(strstr(json.buf, "{\"virtual\": \"compute_90\", \"real\": \"sm_90\"}") != NULL);
	n1 = ks_record_name(&a, "/work");
	n2 = ks_record_name(&a, "/elsewhere");
	CHECK(ks_ends_with(n1, ".json"));
	CHECK(strcmp(n1, n2) != 0);
	free(n1);
	free(n2);
	ks_args_release(&a);
	ks_strv_release(&argv);
	ks_buf_release(&err);
	ks_buf_release(&json);
}

void
ks_suite_wrapper(void)
{
	RUN(launcher_form);
	RUN(nvcc_version_parse);
	RUN(find_real_nvcc_skips_self_and_safeguarded);
	RUN(record_names_and_format);
}
