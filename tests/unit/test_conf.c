/* Unit tests of src/core/conf: defaults, file, environment, origins. */
#include <stdlib.h>
#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/core/conf.h"
#include "test.h"

void ks_suite_conf(void);

TEST(conf_defaults)
{
	struct ks_conf c;

	ks_conf_init(&c);
	CHECK_INT_EQ(0, c.disable);
	CHECK_INT_EQ(1, c.record);
	CHECK_STR_EQ("", c.nvcc);
	CHECK(c.dir && strstr(c.dir, "ks") != NULL);
	CHECK_INT_EQ(KS_ORIGIN_DEFAULT, c.origin[KS_CONF_RECORD]);
	ks_conf_release(&c);
}

TEST(conf_parse_file_text)
{
	struct ks_conf c;
	struct ks_buf err = KS_BUF_INIT;

	ks_conf_init(&c);
	CHECK_INT_EQ(0, ks_conf_parse(&c, "# comment\n\n  disable = yes  \n"
					  "nvcc=/opt/cuda/bin/nvcc # trailing\n"
					  "lock_timeout = 10\n",
				      "test.conf", &err));
	CHECK_INT_EQ(1, c.disable);
	CHECK_STR_EQ("/opt/cuda/bin/nvcc", c.nvcc);
	CHECK_INT_EQ(10, c.lock_timeout_ms);
	CHECK_INT_EQ(KS_ORIGIN_FILE, c.origin[KS_CONF_NVCC]);
	ks_conf_release(&c);
	ks_buf_release(&err);
}

TEST(conf_bad_values_are_reported_and_ignored)
{
	struct ks_conf c;
	struct ks_buf err = KS_BUF_INIT;

	ks_conf_init(&c);
	CHECK_INT_EQ(-1, ks_conf_parse(&c, "disable = maybe\nrecord = 0\n"
					   "nonsense = 1\nno equals sign\n"
					   "lock_timeout = -5\n",
				       "x.conf", &err));
	CHECK_INT_EQ(0, c.disable);
	CHECK_INT_EQ(0, c.record);
	CHECK_INT_EQ(2000, c.lock_timeout_ms);
	CHECK(strstr(err.buf, "'maybe' is not a boolean") != NULL);
	CHECK(strstr(err.buf, "unknown configuration item 'nonsense'") != NULL);
	CHECK(strstr(err.buf, "x.conf:4: expected 'name = value'") != NULL);
	CHECK(strstr(err.buf, "not a non-negative number") != NULL);
	ks_conf_release(&c);
	ks_buf_release(&err);
}

TEST(conf_environment_beats_file)
{
	const char *dir = test_tmpdir();
	struct ks_conf c;
	struct ks_buf err = KS_BUF_INIT, desc = KS_BUF_INIT;
	const char *path = test_write(dir, "ks.conf", "record = 0\ndebug = 1\n");

	setenv("KS_CONFIG", path, 1);
	setenv("KS_RECORD", "1", 1);
	ks_conf_init(&c);
	CHECK_INT_EQ(0, ks_conf_load(&c, &err));
	CHECK_INT_EQ(1, c.record);
	CHECK_INT_EQ(KS_ORIGIN_ENV, c.origin[KS_CONF_RECORD]);
	CHECK_INT_EQ(1, c.debug);
	CHECK_INT_EQ(KS_ORIGIN_FILE, c.origin[KS_CONF_DEBUG]);
	ks_conf_describe(&c, &desc);
	CHECK(strstr(desc.buf, "record         = 1  (environment: KS_RECORD)") != NULL);
	CHECK(strstr(desc.buf, "debug          = 1  (config file)") != NULL);
	unsetenv("KS_CONFIG");
	unsetenv("KS_RECORD");
	ks_conf_release(&c);
	ks_buf_release(&err);
	ks_buf_release(&desc);
}

TEST(conf_missing_named_file_is_an_error)
{
	struct ks_conf c;
	struct ks_buf err = KS_BUF_INIT;

	setenv("KS_CONFIG", "/nonexistent/ks.conf", 1);
	ks_conf_init(&c);
	CHECK_INT_EQ(-1, ks_conf_load(&c, &err));
	CHECK(strstr(err.buf, "/nonexistent/ks.conf") != NULL);
	unsetenv("KS_CONFIG");
	ks_conf_release(&c);
	ks_buf_release(&err);
}

TEST(conf_gpu_lock_per_gpu)
{
	struct ks_conf c;
	char *p;

	ks_conf_init(&c);
	free(c.dir);
	c.dir = strdup("/s");
	p = ks_conf_gpu_lock_for(&c, NULL);
	CHECK_STR_EQ("/s/gpu", p);
	free(p);
	/* GPU 0 named or not: the same lock. */
	p = ks_conf_gpu_lock_for(&c, " 0 ,1");
	CHECK_STR_EQ("/s/gpu", p);
	free(p);
	p = ks_conf_gpu_lock_for(&c, "1,0");
	CHECK_STR_EQ("/s/gpu.1", p);
	free(p);
	p = ks_conf_gpu_lock_for(&c, "MIG-GPU-8a/1/0");
	CHECK_STR_EQ("/s/gpu.MIG-GPU-8a_1_0", p);
	free(p);
	p = ks_conf_gpu_lock_for(&c, "");
	CHECK_STR_EQ("/s/gpu", p);
	free(p);
	free(c.gpu_lock);
	c.gpu_lock = strdup("/shared/lock");
	p = ks_conf_gpu_lock_for(&c, "3");
	CHECK_STR_EQ("/shared/lock.3", p);
	free(p);
	ks_conf_release(&c);
}

void
ks_suite_conf(void)
{
	RUN(conf_defaults);
	RUN(conf_parse_file_text);
	RUN(conf_bad_values_are_reported_and_ignored);
	RUN(conf_environment_beats_file);
	RUN(conf_missing_named_file_is_an_error);
	RUN(conf_gpu_lock_per_gpu);
}
