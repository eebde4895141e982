/* Unit tests of the pure parts of the fault fixes: UTF-8, JSON strings,
 * saturating counters, version cache entries, temporary names, launcher
 * look-alikes. The behaviour end to end: tests/suites/faults.sh. */
#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/core/fs.h"
#include "../../src/core/stats.h"
#include "../../src/core/util.h"
#include "../../wrapper/ksnvcc.h"
#include "../../src/nvcc/nvccver.h"
#include "test.h"

void ks_suite_faults(void);

TEST(utf8_valid)
{
	CHECK_INT_EQ(1, ks_utf8_valid("", 0));
	CHECK_INT_EQ(1, ks_utf8_valid("-DX=1", 5));
	CHECK_INT_EQ(1, ks_utf8_valid("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9));
	CHECK_INT_EQ(0, ks_utf8_valid("\xff\xfe", 2));
	CHECK_INT_EQ(0, ks_utf8_valid("\xc3", 1));		/* truncated */
	CHECK_INT_EQ(0, ks_utf8_valid("\xc0\xaf", 2));		/* overlong '/' */
	CHECK_INT_EQ(0, ks_utf8_valid("\xe0\x80\xaf", 3));	/* overlong */
	CHECK_INT_EQ(0, ks_utf8_valid("\xed\xa0\x80", 3));	/* surrogate */
	CHECK_INT_EQ(0, ks_utf8_valid("\xf4\x90\x80\x80", 4));	/* > U+10FFFF */
	CHECK_INT_EQ(1, ks_utf8_valid("a\0b", 3));	/* NUL is ASCII */
}

TEST(json_str_is_always_utf8)
{
	struct ks_buf b = KS_BUF_INIT;

	ks_buf_add_json_str(&b, "-DX=\xff\xfe");
	CHECK_STR_EQ("\"-DX=\\ufffd\\ufffd\"", b.buf);
	ks_buf_reset(&b);
	ks_buf_add_json_str(&b, "\xc3\xa9\xc3");
	CHECK_STR_EQ("\"\xc3\xa9\\ufffd\"", b.buf);
	CHECK_INT_EQ(1, ks_utf8_valid(b.buf, b.len));
	ks_buf_release(&b);
}

TEST(stats_saturate)
{
	const char *names[] = { "compile", "new" };
	struct ks_buf out = KS_BUF_INIT;

	ks_stats_apply("compile 9223372036854775807\n", names, 2, 1, &out);
	CHECK_STR_EQ("compile 9223372036854775807\nnew 1\n", out.buf);
	ks_buf_reset(&out);
	ks_stats_apply("compile 99999999999999999999999\n", names, 1, 1, &out);
	CHECK_STR_EQ("compile 9223372036854775807\n", out.buf);
	ks_buf_reset(&out);
	ks_stats_apply("compile -9223372036854775808\n", names, 1, -1, &out);
	CHECK_STR_EQ("compile -9223372036854775808\n", out.buf);
	ks_buf_release(&out);
}

TEST(nvcc_version_valid)
{
	CHECK_INT_EQ(1, ks_nvccver_valid("13.0.88", 7));
	CHECK_INT_EQ(1, ks_nvccver_valid("12.4", 4));
	CHECK_INT_EQ(0, ks_nvccver_valid("13.", 3));
	CHECK_INT_EQ(0, ks_nvccver_valid("13", 2));
	CHECK_INT_EQ(0, ks_nvccver_valid(".0", 2));
	CHECK_INT_EQ(0, ks_nvccver_valid("13..0", 5));
	CHECK_INT_EQ(0, ks_nvccver_valid("13.0.88x", 8));
	CHECK_INT_EQ(0, ks_nvccver_valid("", 0));
	CHECK_INT_EQ(0, ks_nvccver_valid("1.2.3.4.5.6.7.8.9.10.11.12.13.14.15", 35));
}

TEST(nvcc_version_parse_skips_truncated)
{
	struct ks_buf v = KS_BUF_INIT, err = KS_BUF_INIT;

	CHECK_INT_EQ(-1, ks_nvccver_parse("release 13.0, V13.\n", &v, &err));
	CHECK_INT_EQ(0, ks_nvccver_parse("x, V13. y, V13.0.88\n", &v, &err));
	CHECK_STR_EQ("13.0.88", v.buf);
	ks_buf_release(&v);
	ks_buf_release(&err);
}

TEST(temp_names)
{
	CHECK_INT_EQ(1, ks_fs_is_temp_name("a.json.tmp.123.0.1700000000"));
	CHECK_INT_EQ(1, ks_fs_is_temp_name("stats.tmp.9"));
	CHECK_INT_EQ(0, ks_fs_is_temp_name("notes.tmp.txt"));
	CHECK_INT_EQ(0, ks_fs_is_temp_name("a.json"));
	CHECK_INT_EQ(0, ks_fs_is_temp_name(".tmp.1"));
	CHECK_INT_EQ(0, ks_fs_is_temp_name("x.tmp."));
	CHECK_INT_EQ(0, ks_fs_is_temp_name("x.tmp.1."));
	CHECK_INT_EQ(0, ks_fs_is_temp_name("x.tmp.1.2a"));
	CHECK_INT_EQ(0, ks_fs_is_temp_name(KS_FS_SWEEP_MARK));
}

TEST(launcher_look_alikes_are_inputs)
{
	CHECK_INT_EQ(0, ks_nvcc_is_launcher_form("./libnvcc_helpers.so", 1));
	CHECK_INT_EQ(0, ks_nvcc_is_launcher_form("libnvcc.so.1", 1));
	CHECK_INT_EQ(0, ks_nvcc_is_launcher_form("nvcc_kernels.o", 1));
	CHECK_INT_EQ(0, ks_nvcc_is_launcher_form("libnvcc.a", 1));
	CHECK_INT_EQ(0, ks_nvcc_is_launcher_form("nvcc_k.cpp", 1));
	CHECK_INT_EQ(1, ks_nvcc_is_launcher_form("/site/my-nvcc.sh", 1));
	CHECK_INT_EQ(1, ks_nvcc_is_launcher_form("/usr/bin/x86_64-linux-nvcc", 1));
}

void
ks_suite_faults(void)
{
	RUN(utf8_valid);
	RUN(json_str_is_always_utf8);
	RUN(stats_saturate);
	RUN(nvcc_version_valid);
	RUN(nvcc_version_parse_skips_truncated);
	RUN(temp_names);
	RUN(launcher_look_alikes_are_inputs);
}
