/* Unit tests of src/capture: the launch.json format, names, dtypes. */
#include <stdlib.h>
#include <string.h>

#include "../../src/capture/capture.h"
#include "../../src/capture/dtype.h"
#include "../../src/core/buf.h"
#include "../../src/core/hash.h"
#include "../../src/core/strv.h"
#include "../../src/core/util.h"
#include "test.h"

void ks_suite_capture(void);

/* A launch of "scale(grid2d, const float *, float *, int)": a 16-byte
 * struct with a pointer inside, two pointers into one allocation, an int. */
static void
sample(struct ks_capture *c)
{
	static const char *const names[] = { NULL, NULL, "coeffs" };
	size_t i;

	memset(c, 0, sizeof(*c));
	c->kernel = ks_xstrdup("_Z5scale6grid2dPKfPfi");
	c->demangled = ks_xstrdup("scale(grid2d, float const*, float*, int)");
	c->api = ks_xstrdup("cuLaunchKernel");
	c->grid[0] = 16, c->grid[1] = 2, c->grid[2] = 1;
	c->block[0] = 256, c->block[1] = 1, c->block[2] = 1;
	c->shmem = 1024;
	c->launch = 3;
	c->device = ks_xstrdup("NVIDIA H200");
	c->cc_major = 9;
	c->cuda_version = 13000;
	c->time = ks_xstrdup("2025-11-30T10:00:00Z");
	c->note = ks_xstrdup("a \"quoted\" note\n");
	c->param_size = 40;
	c->param_bytes = ks_xmalloc(40);
	for (i = 0; i < 40; i++)
		c->param_bytes[i] = (unsigned char)(i * 7);
	c->nbuffers = 3;
	c->buffers = ks_xcalloc(3, sizeof(*c->buffers));
	for (i = 0; i < 3; i++) {
		c->buffers[i].base = 0x7f0000000000ull + (i << 20);
		c->buffers[i].size = 4096 * (i + 1);
		c->buffers[i].written = (int)i - 1;
		c->buffers[i].name = names[i] ? ks_xstrdup(names[i]) : NULL;
	}
	c->buffers[2].mem = KS_MEM_GLOBAL;
	c->buffers[1].mem = KS_MEM_MANAGED;
	c->buffers[0].dtype = KS_DTYPE_F32;
	c->nparams = 4;
	c->params = ks_xcalloc(4, sizeof(*c->params));
	c->params[0].offset = 0, c->params[0].size = 16;
	c->params[1].offset = 16, c->params[1].size = 8;
	c->params[2].offset = 24, c->params[2].size = 8;
	c->params[3].offset = 32, c->params[3].size = 4;
	c->params[0].nptrs = 1;
	c->params[0].ptrs = ks_xcalloc(1, sizeof(struct ks_capture_ptr));
	c->params[0].ptrs[0].at = 8;
	c->params[0].ptrs[0].buffer = 1;
	for (i = 1; i <= 2; i++) {
		c->params[i].nptrs = 1;
		c->params[i].ptrs = ks_xcalloc(1, sizeof(struct ks_capture_ptr));
		c->params[i].ptrs[0].buffer = 0;
		c->params[i].ptrs[0].offset = 2048 * (i - 1);
	}
	c->params[3].type = ks_xstrdup("int");
}

TEST(capture_json_round_trip)
{
	struct ks_capture c, d;
	struct ks_buf a = KS_BUF_INIT, b = KS_BUF_INIT, err = KS_BUF_INIT;

	sample(&c);
	ks_capture_format_json(&c, &a);
	CHECK(strstr(a.buf, "\"kind\": \"pointer\"") != NULL);
	CHECK(strstr(a.buf, "\"base\": \"0x7f0000100000\"") != NULL);
	CHECK_INT_EQ(0, ks_capture_parse_json(a.buf, &d, &err));
	CHECK_STR_EQ(c.kernel, d.kernel);
	CHECK_STR_EQ(c.note, d.note);
	CHECK_NULL(d.program);
	CHECK_INT_EQ(16, d.grid[0]);
	CHECK_INT_EQ(2, d.grid[1]);
	CHECK_INT_EQ(256, d.block[0]);
	CHECK_INT_EQ(1024, d.shmem);
	CHECK_INT_EQ(3, d.launch);
	CHECK_INT_EQ(9, d.cc_major);
	CHECK_INT_EQ(13000, d.cuda_version);
	CHECK_INT_EQ(40, d.param_size);
	CHECK(!memcmp(c.param_bytes, d.param_bytes, 40));
	CHECK_INT_EQ(3, d.nbuffers);
	CHECK_INT_EQ(0x7f0000200000ull == d.buffers[2].base, 1);
	CHECK_INT_EQ(KS_MEM_GLOBAL, d.buffers[2].mem);
	CHECK_STR_EQ("coeffs", d.buffers[2].name);
	CHECK_INT_EQ(-1, d.buffers[0].written);
	CHECK_INT_EQ(1, d.buffers[2].written);
	CHECK_INT_EQ(KS_DTYPE_F32, d.buffers[0].dtype);
	CHECK_INT_EQ(4, d.nparams);
	CHECK_INT_EQ(8, d.params[0].ptrs[0].at);
	CHECK_INT_EQ(2048, d.params[2].ptrs[0].offset);
	CHECK_STR_EQ("int", d.params[3].type);
	CHECK_NULL(d.params[1].type);
	/* The text of the parsed capture is the text of the original. */
	ks_capture_format_json(&d, &b);
	CHECK_STR_EQ(a.buf, b.buf);
	ks_capture_release(&c);
	ks_capture_release(&d);
	ks_buf_release(&a);
	ks_buf_release(&b);
	ks_buf_release(&err);
}

TEST(capture_json_rejects)
{
	struct ks_capture c, d;
	struct ks_buf a = KS_BUF_INIT, err = KS_BUF_INIT;
	char *p;

	CHECK_INT_EQ(-1, ks_capture_parse_json("{", &d, &err));
	CHECK(strstr(err.buf, "not JSON") != NULL);
	ks_buf_reset(&err);
	CHECK_INT_EQ(-1, ks_capture_parse_json("{\"format\": 2}", &d, &err));
	sample(&c);
	c.params[3].offset = 38;	/* runs past the 40 bytes */
	ks_capture_format_json(&c, &a);
	ks_buf_reset(&err);
	CHECK_INT_EQ(-1, ks_capture_parse_json(a.buf, &d, &err));
	CHECK(strstr(err.buf, "outside the parameter buffer") != NULL);
	c.params[3].offset = 32;
	c.params[1].ptrs[0].buffer = 7;
	ks_buf_reset(&a);
	ks_capture_format_json(&c, &a);
	ks_buf_reset(&err);
	CHECK_INT_EQ(-1, ks_capture_parse_json(a.buf, &d, &err));
	CHECK(strstr(err.buf, "buffer 7 of 3") != NULL);
	c.params[1].ptrs[0].buffer = 0;
	ks_buf_reset(&a);
	ks_capture_format_json(&c, &a);
	p = strstr(a.buf, "\"param_bytes\": \"") + 16;
	*p = 'x';
	ks_buf_reset(&err);
	CHECK_INT_EQ(-1, ks_capture_parse_json(a.buf, &d, &err));
	CHECK(strstr(err.buf, "not hexadecimal") != NULL);
	ks_capture_release(&c);
	ks_buf_release(&a);
	ks_buf_release(&err);
}

TEST(capture_save_load_and_buffers)
{
	struct ks_capture c, d;
	struct ks_buf err = KS_BUF_INIT;
	const char *dir = test_tmpdir();
	char *path, *data;

	sample(&c);
	CHECK_INT_EQ(0, ks_capture_save(dir, &c, &err));
	CHECK_INT_EQ(0, ks_capture_load(dir, &d, &err));
	CHECK_STR_EQ(c.kernel, d.kernel);
	path = ks_capture_buffer_path(dir, 0, 1);
	CHECK(ks_ends_with(path, "/b0.out"));
	free(path);
	/* A buffer file of the wrong size is refused. */
	test_write(dir, "b0.in", "short");
	data = ks_capture_read_buffer(dir, &d, 0, 0, &err);
	CHECK_NULL(data);
	CHECK(strstr(err.buf, "does not hold 4096 bytes") != NULL);
	d.buffers[0].size = 5;
	data = ks_capture_read_buffer(dir, &d, 0, 0, &err);
	CHECK(data != NULL);
	CHECK(!memcmp(data, "short", 5));
	free(data);
	ks_capture_release(&c);
	ks_capture_release(&d);
	ks_buf_release(&err);
}

TEST(capture_kernel_dir)
{
	char long_name[300], *d;

	d = ks_capture_kernel_dir("_Z5scalePfi");
	CHECK_STR_EQ("_Z5scalePfi", d);
	free(d);
	d = ks_capture_kernel_dir("a/b c..");
	CHECK_STR_EQ("a_b_c..", d);
	free(d);
	d = ks_capture_kernel_dir(".hidden");
	CHECK_STR_EQ("_hidden", d);
	free(d);
	memset(long_name, 'x', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	d = ks_capture_kernel_dir(long_name);
	CHECK_INT_EQ(100 + 1 + 16, strlen(d));
	free(d);
}

TEST(capture_callable)
{
	char *s;

	s = ks_capture_callable("saxpy(int, float, float const*, float*)");
	CHECK_STR_EQ("saxpy", s);
	free(s);
	s = ks_capture_callable("void tk<float, 3>(float*, int)");
	CHECK_STR_EQ("tk<float, 3>", s);
	free(s);
	s = ks_capture_callable("void ns::inner::tk<(anonymous namespace)::T>(T*)");
	CHECK_STR_EQ("ns::inner::tk<T>", s);
	free(s);
	s = ks_capture_callable("(anonymous namespace)::k(float*)");
	CHECK_STR_EQ("k", s);
	free(s);
	s = ks_capture_callable("ns::f(void (*)(int), int)");
	CHECK_STR_EQ("ns::f", s);
	free(s);
	CHECK_NULL(ks_capture_callable("_Z1kv"));
	CHECK_NULL(ks_capture_callable(NULL));
}

TEST(capture_apply_types)
{
	struct ks_capture c;
	const char *types[] = { "grid2d", "const float *__restrict__", "float *",
				"int" };

	sample(&c);
	c.buffers[0].dtype = KS_DTYPE_BYTES;
	ks_capture_apply_types(&c, types, 4);
	CHECK_STR_EQ("grid2d", c.params[0].type);
	CHECK_STR_EQ("int", c.params[3].type);
	CHECK_INT_EQ(KS_DTYPE_F32, c.buffers[0].dtype);
	/* Buffer 1 is only reached through the struct: unknown. */
	CHECK_INT_EQ(KS_DTYPE_BYTES, c.buffers[1].dtype);
	CHECK_INT_EQ(2, ks_capture_param_at(&c, 24));
	CHECK_INT_EQ(3, ks_capture_param_at(&c, 35));
	CHECK_INT_EQ(-1, ks_capture_param_at(&c, 36));
	/* A dtype that does not tile the buffer is dropped. */
	c.buffers[0].size = 4098;
	ks_capture_apply_types(&c, types, 4);
	CHECK_INT_EQ(KS_DTYPE_BYTES, c.buffers[0].dtype);
	ks_capture_release(&c);
}

TEST(dtype_spellings)
{
	CHECK_INT_EQ(KS_DTYPE_F32, ks_dtype_of_pointer("const float *__restrict__"));
	CHECK_INT_EQ(KS_DTYPE_F32, ks_dtype_of_pointer("float4*"));
	CHECK_INT_EQ(KS_DTYPE_F64, ks_dtype_of_pointer("double *"));
	CHECK_INT_EQ(KS_DTYPE_F16, ks_dtype_of_pointer("const __half2 *"));
	CHECK_INT_EQ(KS_DTYPE_F16, ks_dtype_of_pointer("half*"));
	CHECK_INT_EQ(KS_DTYPE_BF16, ks_dtype_of_pointer("__nv_bfloat16 * __restrict__"));
	CHECK_INT_EQ(KS_DTYPE_INT, ks_dtype_of_pointer("unsigned long long *"));
	CHECK_INT_EQ(KS_DTYPE_INT, ks_dtype_of_pointer("const std::int32_t *"));
	CHECK_INT_EQ(KS_DTYPE_BYTES, ks_dtype_of_pointer("float **"));
	CHECK_INT_EQ(KS_DTYPE_BYTES, ks_dtype_of_pointer("grid2d *"));
	CHECK_INT_EQ(KS_DTYPE_BYTES, ks_dtype_of_pointer("T *"));
	CHECK_INT_EQ(KS_DTYPE_BYTES, ks_dtype_of_pointer("float"));
	CHECK_INT_EQ(KS_DTYPE_BYTES, ks_dtype_of_pointer("float * x"));
	CHECK_INT_EQ(KS_DTYPE_BYTES, ks_dtype_of_pointer(NULL));
	CHECK_INT_EQ(KS_DTYPE_BYTES, ks_dtype_of_pointer("float double *"));
	CHECK_INT_EQ(KS_DTYPE_INT, ks_dtype_of_value("const unsigned int"));
	CHECK_INT_EQ(KS_DTYPE_F32, ks_dtype_of_value("float"));
	CHECK_INT_EQ(KS_DTYPE_BYTES, ks_dtype_of_value("float *"));
	CHECK_STR_EQ("bf16", ks_dtype_name(KS_DTYPE_BF16));
	CHECK_INT_EQ(KS_DTYPE_F16, ks_dtype_parse("f16"));
	CHECK_INT_EQ(KS_DTYPE_BYTES, ks_dtype_parse("nonsense"));
	CHECK_INT_EQ(8, ks_dtype_size(KS_DTYPE_F64));
}

TEST(capture_symbols)
{
	struct ks_strv names = KS_STRV_INIT;

	ks_capture_parse_symbols("Fatbin elf code:\n================\narch = sm_90\n\n"
				 "symbols:\n"
				 "STT_SECTION      STB_LOCAL  .text._Z6affinePfi\n"
				 "STT_OBJECT       STB_GLOBAL coef\n"
				 "STT_OBJECT       STB_LOCAL  $str\n"
				 "STT_OBJECT       STB_GLOBAL _ZN2ns3nsgE\r\n"
				 "STT_FUNC         STB_GLOBAL STO_ENTRY      _Z6affinePfi\n"
				 "STT_OBJECT       STB_GLOBAL coef\n"
				 "  STT_OBJECT STB_WEAK launches", &names);
	CHECK_INT_EQ(3, names.n);
	CHECK_STR_EQ("coef", names.v[0]);
	CHECK_STR_EQ("_ZN2ns3nsgE", names.v[1]);
	CHECK_STR_EQ("launches", names.v[2]);
	ks_strv_release(&names);
}

TEST(capture_policy)
{
	struct ks_capture_policy p = { 1, 16, 1 << 30, 0 };
	struct ks_buf err = KS_BUF_INIT;
	unsigned long l;
	unsigned long long b;

	CHECK_INT_EQ(1, ks_capture_policy_wants(&p, 1, 0));
	CHECK_INT_EQ(0, ks_capture_policy_wants(&p, 2, 0));
	CHECK_INT_EQ(0, ks_capture_policy_wants(&p, 1, 16));
	p.launch = 0;
	CHECK_INT_EQ(1, ks_capture_policy_wants(&p, 7, 3));
	CHECK_INT_EQ(0, ks_capture_parse_launch("first", &l, &err));
	CHECK_INT_EQ(1, l);
	CHECK_INT_EQ(0, ks_capture_parse_launch("all", &l, &err));
	CHECK_INT_EQ(0, l);
	CHECK_INT_EQ(0, ks_capture_parse_launch("12", &l, &err));
	CHECK_INT_EQ(12, l);
	CHECK_INT_EQ(-1, ks_capture_parse_launch("0", &l, &err));
	CHECK_INT_EQ(-1, ks_capture_parse_launch("-3", &l, &err));
	CHECK_INT_EQ(-1, ks_capture_parse_launch("x", &l, &err));
	CHECK_INT_EQ(0, ks_capture_parse_bytes("1G", &b, &err));
	CHECK(b == 1ull << 30);
	CHECK_INT_EQ(0, ks_capture_parse_bytes("512k", &b, &err));
	CHECK(b == 512ull << 10);
	CHECK_INT_EQ(0, ks_capture_parse_bytes("4096", &b, &err));
	CHECK(b == 4096);
	CHECK_INT_EQ(-1, ks_capture_parse_bytes("1T", &b, &err));
	CHECK_INT_EQ(-1, ks_capture_parse_bytes("", &b, &err));
	CHECK_INT_EQ(-1, ks_capture_parse_bytes("99999999999999999999G", &b, &err));
	ks_buf_release(&err);
}

/* The identity hash of `c`, as hex. */
static void
identity(const struct ks_capture *c, char out[33])
{
	struct ks_hash h = KS_HASH_INIT;

	ks_hash_init(&h);
	ks_capture_identity(c, &h);
	ks_hash_hex128(&h, out);
	ks_hash_release(&h);
}

TEST(capture_identity_is_the_launch_not_the_run)
{
	struct ks_capture c;
	char a[33], b[33];
	size_t i;

	sample(&c);
	identity(&c, a);
	/* the same launch in another run: other addresses (the pointer
	 * bytes with them), time, duration, program and record */
	for (i = 0; i < c.nbuffers; i++)
		c.buffers[i].base += 0x10000000ull;
	for (i = 8; i < 32; i++)
		c.param_bytes[i] ^= 0x5a;
	free(c.time);
	c.time = ks_xstrdup("2026-12-04T09:00:00Z");
	c.duration_ns = 123456;
	c.program = ks_xstrdup("/elsewhere/prog");
	c.record = ks_xstrdup("/elsewhere/builds/r.json");
	c.launch = 7;
	identity(&c, b);
	CHECK_STR_EQ(a, b);
	/* a scalar argument differs: another test case */
	c.param_bytes[32] ^= 1;
	identity(&c, b);
	CHECK(strcmp(a, b) != 0);
	c.param_bytes[32] ^= 1;
	/* so do the geometry, a buffer's size, the device, and the layout
	 * (buffer 1 moved next to buffer 0: one allocation on replay) */
	c.grid[0]++;
	identity(&c, b);
	CHECK(strcmp(a, b) != 0);
	c.grid[0]--;
	c.buffers[0].size += 4;
	identity(&c, b);
	CHECK(strcmp(a, b) != 0);
	c.buffers[0].size -= 4;
	free(c.device);
	c.device = ks_xstrdup("NVIDIA H100");
	identity(&c, b);
	CHECK(strcmp(a, b) != 0);
	free(c.device);
	c.device = ks_xstrdup("NVIDIA H200");
	identity(&c, b);
	CHECK_STR_EQ(a, b);
	c.buffers[1].base = c.buffers[0].base + c.buffers[0].size;
	identity(&c, b);
	CHECK(strcmp(a, b) != 0);
	ks_capture_release(&c);
}

void
ks_suite_capture(void)
{
	RUN(capture_identity_is_the_launch_not_the_run);
	RUN(capture_json_round_trip);
	RUN(capture_json_rejects);
	RUN(capture_save_load_and_buffers);
	RUN(capture_kernel_dir);
	RUN(capture_callable);
	RUN(capture_apply_types);
	RUN(dtype_spellings);
	RUN(capture_symbols);
	RUN(capture_policy);
}
