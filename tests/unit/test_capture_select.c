/*
 * Unit tests of src/capture's pure decisions beyond the format: which
 * launches distinct:N records (the shape key), the replay layout of
 * neighboring allocations, pointers stored in buffers, the automatic capture limit, and
 * the lookup of every capture of a kernel.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/capture/capture.h"
#include "../../src/core/buf.h"
#include "../../src/core/fs.h"
#include "../../src/core/strv.h"
#include "../../src/core/util.h"
#include "test.h"

void ks_suite_capture_select(void);

/* k(float *a, float *b, int n, float alpha): two pointers, two scalars. */
static void
launch(struct ks_capture *c, unsigned long long a, unsigned long long b, int n,
       float alpha)
{
	size_t i;

	memset(c, 0, sizeof(*c));
	c->kernel = ks_xstrdup("_Z1kPfS_if");
	c->grid[0] = 64, c->grid[1] = 1, c->grid[2] = 1;
	c->block[0] = 256, c->block[1] = 1, c->block[2] = 1;
	c->param_size = 24;
	c->param_bytes = ks_xcalloc(24, 1);
	memcpy(c->param_bytes, &a, 8);
	memcpy(c->param_bytes + 8, &b, 8);
	memcpy(c->param_bytes + 16, &n, 4);
	memcpy(c->param_bytes + 20, &alpha, 4);
	c->nparams = 4;
	c->params = ks_xcalloc(4, sizeof(*c->params));
	for (i = 0; i < 4; i++) {
		c->params[i].offset = i < 2 ? 8 * i : 16 + 4 * (i - 2);
		c->params[i].size = i < 2 ? 8 : 4;
	}
	for (i = 0; i < 2; i++) {
		c->params[i].nptrs = 1;
		c->params[i].ptrs = ks_xcalloc(1, sizeof(struct ks_capture_ptr));
		c->params[i].ptrs[0].buffer = i;
	}
	c->nbuffers = 2;
	c->buffers = ks_xcalloc(2, sizeof(*c->buffers));
	c->buffers[0].base = a, c->buffers[0].size = 1024;
	c->buffers[1].base = b, c->buffers[1].size = 1024;
}

TEST(capture_launch_mode)
{
	struct ks_capture_policy p;
	struct ks_buf err = KS_BUF_INIT;

	memset(&p, 0, sizeof(p));
	CHECK_INT_EQ(0, ks_capture_parse_launch_mode("distinct", &p, &err));
	CHECK_INT_EQ(3, p.distinct);
	CHECK_INT_EQ(0, ks_capture_parse_launch_mode("distinct:7", &p, &err));
	CHECK_INT_EQ(7, p.distinct);
	CHECK_INT_EQ(0, ks_capture_parse_launch_mode(KS_CAPTURE_LAUNCH_DEFAULT, &p, &err));
	CHECK_INT_EQ(3, p.distinct);
	CHECK_INT_EQ(0, ks_capture_parse_launch_mode("2", &p, &err));
	CHECK_INT_EQ(0, p.distinct);
	CHECK_INT_EQ(2, p.launch);
	CHECK_INT_EQ(-1, ks_capture_parse_launch_mode("distinct:0", &p, &err));
	CHECK_INT_EQ(-1, ks_capture_parse_launch_mode("distinct:", &p, &err));
	CHECK_INT_EQ(-1, ks_capture_parse_launch_mode("distinct:x", &p, &err));
	CHECK_INT_EQ(-1, ks_capture_parse_launch_mode("distinctly", &p, &err));
	CHECK(strstr(err.buf, "distinct:N") != NULL);
	ks_buf_release(&err);
}

TEST(capture_launch_key)
{
	struct ks_capture a, b;
	unsigned long long ka;

	/* Other buffers, same shape: the same key. */
	launch(&a, 0x7f0000000000ull, 0x7f0000100000ull, 100, 2.0f);
	launch(&b, 0x7f0000400000ull, 0x7f0000800000ull, 100, 2.0f);
	ka = ks_capture_launch_key(&a);
	CHECK(ka == ks_capture_launch_key(&b));
	ks_capture_release(&b);
	/* A scalar differs. */
	launch(&b, 0x7f0000000000ull, 0x7f0000100000ull, 101, 2.0f);
	CHECK(ka != ks_capture_launch_key(&b));
	ks_capture_release(&b);
	launch(&b, 0x7f0000000000ull, 0x7f0000100000ull, 100, 3.0f);
	CHECK(ka != ks_capture_launch_key(&b));
	ks_capture_release(&b);
	/* The geometry differs: grid, block, dynamic shared memory. */
	launch(&b, 0x7f0000000000ull, 0x7f0000100000ull, 100, 2.0f);
	b.grid[1] = 2;
	CHECK(ka != ks_capture_launch_key(&b));
	b.grid[1] = 1;
	b.block[0] = 128;
	CHECK(ka != ks_capture_launch_key(&b));
	b.block[0] = 256;
	b.shmem = 4096;
	CHECK(ka != ks_capture_launch_key(&b));
	b.shmem = 0;
	CHECK(ka == ks_capture_launch_key(&b));
	/* A word that was not found to be a pointer counts as a scalar. */
	b.params[1].nptrs = 0;
	CHECK(ka != ks_capture_launch_key(&b));
	ks_capture_release(&b);
	ks_capture_release(&a);
}

TEST(capture_distinct_policy)
{
	struct ks_capture_policy p = { 0, 16, 1 << 30, 3 };
	unsigned long long seen[3] = { 11, 22, 33 };

	CHECK_INT_EQ(1, ks_capture_policy_wants_key(&p, 0, seen, 0, 11));
	CHECK_INT_EQ(0, ks_capture_policy_wants_key(&p, 0, seen, 1, 11));
	CHECK_INT_EQ(1, ks_capture_policy_wants_key(&p, 0, seen, 1, 22));
	CHECK_INT_EQ(1, ks_capture_policy_wants_key(&p, 5, seen, 2, 44));
	/* N shapes of this kernel already: no more. */
	CHECK_INT_EQ(0, ks_capture_policy_wants_key(&p, 5, seen, 3, 44));
	/* The run's limit of captures. */
	CHECK_INT_EQ(0, ks_capture_policy_wants_key(&p, 16, seen, 1, 44));
	p.distinct = 1;
	CHECK_INT_EQ(0, ks_capture_policy_wants_key(&p, 0, seen, 1, 44));
}

TEST(capture_replace_policy)
{
	struct ks_capture_policy p = { 0, 16, 1 << 30, 3 };
	/* A wavefront's first three diagonals: 1, 2 and 3 blocks of 16. */
	unsigned long long kept[3] = { 16, 32, 48 };

	/* Fewer than N kept: wants_key decides, nothing is replaced. */
	CHECK_INT_EQ(-1, ks_capture_policy_replace(&p, 0, kept, 2, 1 << 20));
	/* Not twice the largest kept. */
	CHECK_INT_EQ(-1, ks_capture_policy_replace(&p, 3, kept, 3, 64));
	CHECK_INT_EQ(-1, ks_capture_policy_replace(&p, 3, kept, 3, 95));
	/* Twice or more: the smallest gives way. */
	CHECK_INT_EQ(0, ks_capture_policy_replace(&p, 3, kept, 3, 96));
	kept[0] = 96;
	CHECK_INT_EQ(1, ks_capture_policy_replace(&p, 4, kept, 3, 192));
	/* Smaller launches never replace larger ones. */
	CHECK_INT_EQ(-1, ks_capture_policy_replace(&p, 4, kept, 3, 8));
	/* The run's limit of captures still holds. */
	CHECK_INT_EQ(-1, ks_capture_policy_replace(&p, 16, kept, 3, 1 << 20));
	/* Not in the other modes. */
	p.distinct = 0;
	CHECK_INT_EQ(-1, ks_capture_policy_replace(&p, 4, kept, 3, 1 << 20));
}

/* Buffers at `bases` (sizes `sizes`), parameter i pointing at buffer i with
 * offset offs[i]. */
static void
buffers(struct ks_capture *c, const unsigned long long *bases,
	const unsigned long long *sizes, const unsigned long long *offs, size_t n)
{
	size_t i;

	memset(c, 0, sizeof(*c));
	c->kernel = ks_xstrdup("_Z1kv");
	c->nbuffers = n;
	c->buffers = ks_xcalloc(n, sizeof(*c->buffers));
	c->nparams = n;
	c->params = ks_xcalloc(n, sizeof(*c->params));
	c->param_size = 8 * n;
	c->param_bytes = ks_xcalloc(8 * n, 1);
	for (i = 0; i < n; i++) {
		c->buffers[i].base = bases[i];
		c->buffers[i].size = sizes[i];
		c->params[i].offset = 8 * i;
		c->params[i].size = 8;
		c->params[i].nptrs = 1;
		c->params[i].ptrs = ks_xcalloc(1, sizeof(struct ks_capture_ptr));
		c->params[i].ptrs[0].buffer = i;
		c->params[i].ptrs[0].offset = offs[i];
	}
}

TEST(capture_layout)
{
	/* b0 and b2 are 0x200 apart, b1 far away, b3 right after b2 (b0's end
	 * pointer resolved to b2's start), b4 a global beside b1, b5 farther
	 * from b1 than the gap, b6 overlapping b1. */
	static const unsigned long long bases[] = {
		0x7f0000000000ull, 0x7f0040000000ull, 0x7f0000000200ull,
		0x7f0000000400ull, 0x7f0040001000ull,
		0x7f0040002800ull + KS_CAPTURE_LAYOUT_GAP, 0x7f0040000800ull,
	};
	static const unsigned long long sizes[] = { 0x200, 4096, 0x200, 100, 64,
						    64, 8192 };
	static const unsigned long long offs[] = { 0, 0, 0, 0, 0, 0, 0 };
	size_t group[7];
	unsigned long long off[7], gsize[7];
	struct ks_capture c;

	buffers(&c, bases, sizes, offs, 7);
	c.buffers[4].mem = KS_MEM_GLOBAL;
	c.buffers[3].mem = KS_MEM_POOL;	/* neighbors, whatever the kind */
	CHECK_INT_EQ(3, ks_capture_layout(&c, KS_CAPTURE_LAYOUT_GAP, group, off, gsize));
	CHECK_INT_EQ(0, group[0]);
	CHECK_INT_EQ(0, group[2]);
	CHECK_INT_EQ(0, group[3]);
	CHECK(off[0] == 0 && off[2] == 0x200 && off[3] == 0x400);
	CHECK(gsize[0] == 0x400 + 100);
	/* b1 and the overlapping b6: group 1, spanning both. */
	CHECK_INT_EQ(1, group[1]);
	CHECK_INT_EQ(1, group[6]);
	CHECK(off[6] == 0x800);
	CHECK(gsize[1] == 0x800 + 8192);
	CHECK(group[4] == (size_t)-1);
	CHECK_INT_EQ(2, group[5]);
	CHECK(off[5] == 0 && gsize[2] == 64);
	/* gap 0: only overlapping buffers share a group. */
	CHECK_INT_EQ(5, ks_capture_layout(&c, 0, group, off, gsize));
	CHECK_INT_EQ(group[1], group[6]);
	CHECK(group[0] != group[2]);
	ks_capture_release(&c);
}

TEST(capture_buffer_at_and_relocate)
{
	static const unsigned long long bases[] = { 0x7f0000000000ull,
						    0x7f0000100000ull };
	static const unsigned long long sizes[] = { 100, 64 };
	static const unsigned long long offs[] = { 0, 0 };
	unsigned long long now[2] = { 0x7e0000000000ull, 0x7e0000500000ull }, v;
	unsigned char data[64];
	struct ks_capture c;

	buffers(&c, bases, sizes, offs, 2);
	CHECK_INT_EQ(0, ks_capture_buffer_at(&c, 0x7f0000000000ull + 99, 0));
	/* An end pointer lies in the allocation's padding. */
	CHECK_INT_EQ(-1, ks_capture_buffer_at(&c, 0x7f0000000000ull + 200, 0));
	CHECK_INT_EQ(0, ks_capture_buffer_at(&c, 0x7f0000000000ull + 200, 512));
	CHECK_INT_EQ(-1, ks_capture_buffer_at(&c, 0x7f0000000000ull + 100 + 513, 512));
	CHECK_INT_EQ(1, ks_capture_buffer_at(&c, 0x7f0000100000ull, 0));
	CHECK_INT_EQ(-1, ks_capture_buffer_at(&c, 0x1000, 512));
	/* Seen on an H200: 100-float allocations 0x200 apart; the end pointer
	 * of the second lies in the first's slack too, and is the second's. */
	c.buffers[1].base = 0x7f0000000200ull;
	CHECK_INT_EQ(1, ks_capture_buffer_at(&c, 0x7f0000000200ull + 100, 512));
	CHECK_INT_EQ(0, ks_capture_buffer_at(&c, 0x7f0000000000ull + 100, 512));
	c.buffers[1].base = 0x7f0000100000ull;
	/* Buffer 1 is an array of two pointers: into buffer 0 and itself. */
	c.buffers[1].nptrs = 2;
	c.buffers[1].ptrs = ks_xcalloc(2, sizeof(struct ks_capture_ptr));
	c.buffers[1].ptrs[0].at = 0, c.buffers[1].ptrs[0].buffer = 0;
	c.buffers[1].ptrs[0].offset = 40;
	c.buffers[1].ptrs[1].at = 8, c.buffers[1].ptrs[1].buffer = 1;
	c.buffers[1].ptrs[1].offset = 16;
	memset(data, 0xab, sizeof(data));
	ks_capture_relocate(&c, 1, data, now);
	memcpy(&v, data, 8);
	CHECK(v == 0x7e0000000000ull + 40);
	memcpy(&v, data + 8, 8);
	CHECK(v == 0x7e0000500000ull + 16);
	CHECK_INT_EQ(0xab, data[16]);
	/* A target without a new address (a global): left alone. */
	now[0] = 0;
	memset(data, 0xab, sizeof(data));
	ks_capture_relocate(&c, 1, data, now);
	CHECK_INT_EQ(0xab, data[0]);
	ks_capture_release(&c);
}

TEST(capture_auto_limit)
{
	const unsigned long long G = 1ull << 30, M = 1ull << 20;

	/* 128 GiB host, 140 GiB free device: the host's quarter. */
	CHECK(ks_capture_auto_limit(128 * G, 140 * G) == 32 * G);
	/* 20 GiB free on the device: nine tenths of it, whole MiB. */
	CHECK(ks_capture_auto_limit(128 * G, 20 * G) == (20 * G / 10 * 9 & ~(M - 1)));
	/* The device unknown (no driver query): the host alone. */
	CHECK(ks_capture_auto_limit(24 * G, 0) == 6 * G);
	/* Nothing known: the old fixed 1 GiB. */
	CHECK(ks_capture_auto_limit(0, 0) == G);
	/* Never below 64 MiB. */
	CHECK(ks_capture_auto_limit(100 * M, 0) == 64 * M);
	CHECK(ks_capture_host_memory() > 0);
}

TEST(capture_json_new_fields)
{
	static const unsigned long long bases[] = { 0x7f0000000000ull,
						    0x7f0000000200ull };
	static const unsigned long long sizes[] = { 0x200, 64 };
	static const unsigned long long offs[] = { 0, 0 };
	struct ks_capture c, d;
	struct ks_buf a = KS_BUF_INIT, b = KS_BUF_INIT, err = KS_BUF_INIT;

	buffers(&c, bases, sizes, offs, 2);
	c.buffers[1].mem = KS_MEM_POOL;
	c.duration_ns = 123456789012ull;
	c.buffers[0].mem = KS_MEM_HOST;
	c.buffers[1].nptrs = 1;
	c.buffers[1].ptrs = ks_xcalloc(1, sizeof(struct ks_capture_ptr));
	c.buffers[1].ptrs[0].at = 8, c.buffers[1].ptrs[0].offset = 4;
	ks_capture_note_add(&c, "one");
	ks_capture_note_add(&c, "two");
	CHECK_STR_EQ("one; two", c.note);
	ks_capture_format_json(&c, &a);
	CHECK(strstr(a.buf, "\"duration_ns\": 123456789012") != NULL);
	CHECK(strstr(a.buf, "\"mem\": \"pool\"") != NULL);
	CHECK_INT_EQ(0, ks_capture_parse_json(a.buf, &d, &err));
	CHECK(d.duration_ns == 123456789012ull);
	CHECK_INT_EQ(KS_MEM_HOST, d.buffers[0].mem);
	CHECK_INT_EQ(KS_MEM_POOL, d.buffers[1].mem);
	CHECK_INT_EQ(1, d.buffers[1].nptrs);
	CHECK_INT_EQ(8, d.buffers[1].ptrs[0].at);
	ks_capture_format_json(&d, &b);
	CHECK_STR_EQ(a.buf, b.buf);
	ks_capture_release(&d);
	/* Not measured: null, read back as 0. */
	c.duration_ns = 0;
	ks_buf_reset(&a);
	ks_capture_format_json(&c, &a);
	CHECK(strstr(a.buf, "\"duration_ns\": null") != NULL);
	CHECK_INT_EQ(0, ks_capture_parse_json(a.buf, &d, &err));
	CHECK(d.duration_ns == 0);
	ks_capture_release(&d);
	/* A stored pointer outside its buffer, or to no buffer: rejected. */
	c.buffers[1].ptrs[0].at = 60;
	ks_buf_reset(&a);
	ks_capture_format_json(&c, &a);
	CHECK_INT_EQ(-1, ks_capture_parse_json(a.buf, &d, &err));
	CHECK(strstr(err.buf, "outside 64 bytes") != NULL);
	c.buffers[1].ptrs[0].at = 8;
	c.buffers[1].ptrs[0].buffer = 2;
	ks_buf_reset(&a);
	ks_capture_format_json(&c, &a);
	CHECK_INT_EQ(-1, ks_capture_parse_json(a.buf, &d, &err));
	CHECK(strstr(err.buf, "pointer to buffer 2 of 2") != NULL);
	ks_capture_release(&c);
	ks_buf_release(&a);
	ks_buf_release(&b);
	ks_buf_release(&err);
}

static void
touch(const char *dir, const char *sub, int done)
{
	char *d = ks_xasprintf("%s/captures/%s", dir, sub);
	char *f = ks_fs_join(d, "launch.json");
	struct ks_buf err = KS_BUF_INIT;

	CHECK_INT_EQ(0, ks_fs_mkdirs(d, &err));
	if (done)
		CHECK_INT_EQ(0, ks_fs_write_atomic(f, "{}", 2, &err));
	free(d);
	free(f);
	ks_buf_release(&err);
}

TEST(capture_find_all)
{
	const char *dir = test_tmpdir();
	struct ks_strv v = KS_STRV_INIT;
	char *want, *long_name, *kdir;
	size_t n;

	touch(dir, "_Z1kPf/1", 1);
	touch(dir, "_Z1kPf/10", 1);
	touch(dir, "_Z1kPf/2", 1);
	touch(dir, "_Z1kPf/3", 0);	/* unfinished */
	touch(dir, "_Z1kPf/.tmp-1-1", 1);
	n = ks_capture_find_all(dir, "_Z1kPf", &v);
	CHECK_INT_EQ(3, n);
	want = ks_xasprintf("%s/captures/_Z1kPf/1", dir);
	CHECK_STR_EQ(want, v.v[0]);
	free(want);
	want = ks_xasprintf("%s/captures/_Z1kPf/10", dir);
	CHECK_STR_EQ(want, v.v[2]);
	free(want);
	/* <kernel>/<n>: that one. */
	CHECK_INT_EQ(1, ks_capture_find_all(dir, "_Z1kPf/2", &v));
	CHECK_INT_EQ(4, v.n);
	CHECK_INT_EQ(0, ks_capture_find_all(dir, "_Z1kPf/3", &v));
	CHECK_INT_EQ(0, ks_capture_find_all(dir, "nothing", &v));
	/* A mangled name longer than a directory name: found by its dir. */
	long_name = ks_xstrdup("_ZN5outer5inner6kernelIfLi128ELi256EEEvPKT_PS2_iiiiiiiiiiiiiiiiiiiiiiii"
			       "iiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiii");
	kdir = ks_capture_kernel_dir(long_name);
	want = ks_xasprintf("%s/1", kdir);
	touch(dir, want, 1);
	free(want);
	ks_strv_release(&v);
	ks_strv_init(&v);
	CHECK_INT_EQ(1, ks_capture_find_all(dir, long_name, &v));
	free(long_name);
	free(kdir);
	ks_strv_release(&v);
}

void
ks_suite_capture_select(void)
{
	RUN(capture_launch_mode);
	RUN(capture_launch_key);
	RUN(capture_distinct_policy);
	RUN(capture_replace_policy);
	RUN(capture_layout);
	RUN(capture_buffer_at_and_relocate);
	RUN(capture_auto_limit);
	RUN(capture_json_new_fields);
	RUN(capture_find_all);
}
