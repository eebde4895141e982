/*
 * Unit tests of src/core/toolkit.c: the one search order for the toolkit's
 * programs and for ks's companions, and the path settings of the config
 * table (empty set means none, unset means search).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../src/core/buf.h"
#include "../../src/core/conf.h"
#include "../../src/core/fs.h"
#include "../../src/core/toolkit.h"
#include "../../src/core/util.h"
#include "test.h"

void ks_suite_toolkit(void);

/* An executable `dir/name`. */
static void
tool(const char *dir, const char *name)
{
	char *p = ks_xasprintf("%s/%s", dir, name);

	test_write(dir, name, "#!/bin/sh\n");
	chmod(p, 0755);
	free(p);
}

TEST(toolkit_program_order)
{
	const char *base = test_tmpdir();
	char *bin1 = ks_xasprintf("%s/nvcc-dir", base);
	char *home = ks_xasprintf("%s/home", base);
	char *homebin = ks_xasprintf("%s/home/bin", base);
	char *pathdir = ks_xasprintf("%s/path", base);
	char *nvcc = ks_xasprintf("%s/nvcc", bin1), *got, *want;
	/* A name no toolkit has, so that /usr/local/cuda/bin cannot answer. */
	const char *name = "ks-test-tool";

	CHECK_INT_EQ(0, ks_fs_mkdirs(bin1, NULL));
	CHECK_INT_EQ(0, ks_fs_mkdirs(homebin, NULL));
	CHECK_INT_EQ(0, ks_fs_mkdirs(pathdir, NULL));
	unsetenv("CUDA_PATH");
	setenv("CUDA_HOME", home, 1);
	setenv("PATH", pathdir, 1);
	CHECK_NULL(ks_toolkit_program(name, NULL, nvcc));
	/* 5: PATH */
	tool(pathdir, name);
	got = ks_toolkit_program(name, NULL, nvcc);
	want = ks_xasprintf("%s/%s", pathdir, name);
	CHECK_STR_EQ(want, got);
	free(got);
	free(want);
	/* 3: CUDA_HOME/bin before PATH */
	tool(homebin, name);
	got = ks_toolkit_program(name, NULL, nvcc);
	want = ks_xasprintf("%s/%s", homebin, name);
	CHECK_STR_EQ(want, got);
	free(got);
	free(want);
	/* 2: beside the nvcc in use before CUDA_HOME */
	tool(bin1, name);
	got = ks_toolkit_program(name, NULL, nvcc);
	want = ks_xasprintf("%s/%s", bin1, name);
	CHECK_STR_EQ(want, got);
	free(got);
	free(want);
	/* 1: the setting, as given; empty: none */
	got = ks_toolkit_program(name, "/opt/x/tool", nvcc);
	CHECK_STR_EQ("/opt/x/tool", got);
	free(got);
	CHECK_NULL(ks_toolkit_program(name, "", nvcc));
	free(bin1);
	free(home);
	free(homebin);
	free(pathdir);
	free(nvcc);
}

TEST(toolkit_companion_setting_first)
{
	char *got = ks_toolkit_companion("libks-capture.so", "/opt/lib/x.so");

	CHECK_STR_EQ("/opt/lib/x.so", got);
	free(got);
	setenv("PATH", "/nonexistent", 1);
	CHECK_NULL(ks_toolkit_companion("ks-no-such-companion", NULL));
	CHECK_NULL(ks_toolkit_companion("ks-no-such-companion", ""));
}

/* KS_CUOBJDUMP and company are in the table: unset searches, empty is none. */
TEST(conf_path_settings)
{
	struct ks_conf c;
	struct ks_buf err = KS_BUF_INIT, out = KS_BUF_INIT;

	unsetenv("KS_CONFIG");
	setenv("KS_DIR", test_tmpdir(), 1);
	unsetenv("KS_CUOBJDUMP");
	setenv("KS_CAPTURE_LIB", "/opt/lib/libks-capture.so", 1);
	setenv("KS_LIBCLANG", "", 1);
	ks_conf_init(&c);
	CHECK_INT_EQ(0, ks_conf_load(&c, &err));
	CHECK_NULL(ks_conf_path_setting(&c, KS_CONF_CUOBJDUMP));
	CHECK_STR_EQ("/opt/lib/libks-capture.so",
		     ks_conf_path_setting(&c, KS_CONF_CAPTURE_LIB));
	CHECK_STR_EQ("", ks_conf_path_setting(&c, KS_CONF_LIBCLANG));
	ks_conf_describe(&c, &out);
	/* `ks config` shows each with its origin. */
	CHECK(strstr(out.buf, "cuobjdump"));
	CHECK(strstr(out.buf, "/opt/lib/libks-capture.so"));
	CHECK(strstr(out.buf, "libclang"));
	ks_conf_release(&c);
	ks_buf_release(&err);
	ks_buf_release(&out);
}

void
ks_suite_toolkit(void)
{
	RUN(toolkit_program_order);
	RUN(toolkit_companion_setting_first);
	RUN(conf_path_settings);
}
