/* Unit tests of the transforms for atomics and permutations
 * (atomic_hierarchical_reduce, smem_histogram, smem_tiled_transpose): the
 * kernels of tests/data/transforms are parsed with libclang, each
 * transform applies to the shapes it names and declines look-alikes with
 * its reason, its output is deterministic, holds the three parts of a
 * variant and goes through the rewriter; plus the text helpers (xfbody)
 * on their own. Without a loadable libclang the parse tests say why and
 * pass. Compiling the variants with nvcc is tests/suites/xf_atomics.sh. */
#include <stdlib.h>
#include <string.h>

#include "../../src/analysis/inventory.h"
#include "../../src/analysis/libclang.h"
#include "../../src/core/buf.h"
#include "../../src/core/fs.h"
#include "../../src/core/util.h"
#include "../../src/transforms/transform.h"
#include "../../src/transforms/xfbody.h"
#include "test.h"
#include "xf_fixture.h"

void ks_suite_xf_atomics(void);

#define DATA "tests/data/transforms"

static struct xf_file files[] = {
	{ DATA "/atomics.cu", { 0 }, KS_BUF_INIT, 0 },
	{ DATA "/permute.cu", { 0 }, KS_BUF_INIT, 0 },
};
static struct xf_fixture fx = {
	.what = "transform",
	.probe = DATA "/atomics.cu",
	.files = files,
	.nfiles = KS_ARRAY_SIZE(files),
};

static enum ks_xf_result
run_xf(const char *file, const char *kernel, const char *skill,
       const struct ks_xf_point *pt, struct ks_buf *variant,
       struct ks_buf *reason, const struct ks_kernel **kout)
{
	return xf_run(&fx, skill, file, kernel, pt, variant, reason, kout);
}

static const struct xf_case cases[] = {
	{ DATA "/atomics.cu", "sq_sum", "atomic_hierarchical_reduce", NULL },
	{ DATA "/atomics.cu", "count_max_2d", "atomic_hierarchical_reduce", NULL },
	{ DATA "/atomics.cu", "stride_sum", "atomic_hierarchical_reduce", NULL },
	{ DATA "/atomics.cu", "row_sums", "atomic_hierarchical_reduce", NULL },
	{ DATA "/atomics.cu", "ns::ns_sum", "atomic_hierarchical_reduce",
	  "ns::ns_sum is in a namespace or class" },
	{ DATA "/atomics.cu", "per_thread", "atomic_hierarchical_reduce",
	  "changes address with the thread" },
	{ DATA "/atomics.cu", "compact", "atomic_hierarchical_reduce",
	  "the value atomicAdd returns on line 70 is used" },
	{ DATA "/atomics.cu", "read_back", "atomic_hierarchical_reduce",
	  "sum is also accessed on line 81" },
	{ DATA "/atomics.cu", "hist_u8", "atomic_hierarchical_reduce",
	  "depends on data" },
	{ DATA "/atomics.cu", "hist_u8", "smem_histogram", NULL },
	{ DATA "/atomics.cu", "hist_weighted_2d", "smem_histogram", NULL },
	{ DATA "/atomics.cu", "hist_f64", "smem_histogram", NULL },
	{ DATA "/atomics.cu", "hist_clamped", "smem_histogram", NULL },
	{ DATA "/atomics.cu", "hist_clamped", "atomic_hierarchical_reduce",
	  "depends on data" },
	{ DATA "/atomics.cu", "hist_read", "smem_histogram",
	  "hist is also accessed on line 114" },
	{ DATA "/atomics.cu", "sq_sum", "smem_histogram",
	  "no atomic whose address depends on data" },
	{ DATA "/atomics.cu", "sq_sum", "smem_tiled_transpose",
	  "has atomics" },
	{ DATA "/permute.cu", "transpose_ld", "smem_tiled_transpose", NULL },
	{ DATA "/permute.cu", "gather_transpose", "smem_tiled_transpose", NULL },
	{ DATA "/permute.cu", "batched_transpose", "smem_tiled_transpose", NULL },
	{ DATA "/permute.cu", "copy2d", "smem_tiled_transpose",
	  "already coalesced" },
	{ DATA "/permute.cu", "collapse_rows", "smem_tiled_transpose",
	  "does not depend on both gx and gy" },
	{ DATA "/permute.cu", "permute_1d", "smem_tiled_transpose",
	  "not at an offset affine" },
	{ DATA "/permute.cu", "transpose_sum", "smem_tiled_transpose",
	  "more than one load" },
	{ DATA "/permute.cu", "transpose_ld", "atomic_hierarchical_reduce",
	  "has no atomics" },
};

TEST(applies_to_its_shapes_and_declines_look_alikes)
{
	if (!xf_setup(&fx))
		SKIP("no libclang, or the suite's data is missing");
	xf_check_cases(&fx, NULL, cases, KS_ARRAY_SIZE(cases));
}

/* Every applied case: the same bytes twice, three parts, the kernel's
 * own definition, a launcher, and the rewriter takes it. */
TEST(variants_are_deterministic_and_rewritable)
{
	if (!xf_setup(&fx))
		SKIP("no libclang, or the suite's data is missing");
	xf_check_rewritable(&fx, NULL, cases, KS_ARRAY_SIZE(cases));
}

/* Every allowed point of each applied case gives a variant or a reason. */
TEST(every_point_applies_or_says_why)
{
	if (!xf_setup(&fx))
		SKIP("no libclang, or the suite's data is missing");
	for (size_t i = 0; i < KS_ARRAY_SIZE(cases); i++) {
		const struct ks_transform *t = ks_xf_find(cases[i].skill);
		struct ks_xf_point pt;

		if (cases[i].reason)
			continue;
		CHECK(t);
		for (size_t d = 0; d < t->nparams; d++)
			for (size_t j = 0; j < t->params[d].nvalues; j++) {
				struct ks_buf v = KS_BUF_INIT, r = KS_BUF_INIT;
				enum ks_xf_result res;
				char want[32];

				ks_xf_default_point(t, &pt);
				pt.v[d] = t->params[d].values[j];
				res = run_xf(cases[i].file, cases[i].kernel,
					     cases[i].skill, &pt, &v, &r, NULL);
				CHECK(res == KS_XF_APPLIED ||
				      (res == KS_XF_DECLINED && r.len));
				/* the point's value is in the text */
				snprintf(want, sizeof(want), "%lld",
					 pt.v[d]);
				CHECK(res != KS_XF_APPLIED || strstr(v.buf, want));
				ks_buf_release(&v);
				ks_buf_release(&r);
			}
	}
}

/* An address that depends on the block is flushed after each original
 * block; one uniform over the grid at the end. */
TEST(reduce_flushes_block_addresses_per_block)
{
	struct ks_buf v = KS_BUF_INIT, r = KS_BUF_INIT;
	const char *loop, *inner, *end;

	if (!xf_setup(&fx))
		SKIP("no libclang, or the suite's data is missing");
	CHECK_INT_EQ(KS_XF_APPLIED, run_xf(DATA "/atomics.cu", "row_sums",
					   "atomic_hierarchical_reduce", NULL,
					   &v, &r, NULL));
	loop = strstr(v.buf, "for (unsigned long long ks_vb");
	CHECK(loop);
	inner = strstr(loop, "atomicAdd((float *)ks_s0.p, ks_s0.v);\n"
			     "\t\t\tks_s0.v = (float)0;");
	end = strstr(loop, "atomicMin((int *)ks_s1.p, ks_s1.v);");
	CHECK(inner && end && inner < end);
	/* the minimum starts from the largest int */
	CHECK(strstr(v.buf, "ks_red_slot<int> ks_s1 = { 2147483647, 0, 0 };"));
	ks_buf_release(&v);
	ks_buf_release(&r);
}

TEST(histogram_declines_counters_past_static_shared_memory)
{
	const struct ks_transform *t = ks_xf_find("smem_histogram");
	struct ks_buf v = KS_BUF_INIT, r = KS_BUF_INIT;
	struct ks_xf_point pt;

	if (!xf_setup(&fx))
		SKIP("no libclang, or the suite's data is missing");
	CHECK(t);
	ks_xf_default_point(t, &pt);
	pt.v[0] = 12288;	/* 48 KiB of unsigned: allowed */
	CHECK_INT_EQ(KS_XF_APPLIED, run_xf(DATA "/atomics.cu", "hist_u8",
					   "smem_histogram", &pt, &v, &r, NULL));
	CHECK(strstr(v.buf, "ks_bins[12288]"));
	ks_buf_reset(&v);
	pt.v[0] = 4096;
	CHECK_INT_EQ(KS_XF_APPLIED, run_xf(DATA "/atomics.cu", "hist_f64",
					   "smem_histogram", &pt, &v, &r, NULL));
	CHECK(strstr(v.buf, "__shared__ double ks_bins[4096]"));
	ks_buf_reset(&v);
	pt.v[0] = 8192;		/* 64 KiB of double */
	CHECK_INT_EQ(KS_XF_DECLINED, run_xf(DATA "/atomics.cu", "hist_f64",
					    "smem_histogram", &pt, &v, &r,
					    NULL));
	CHECK(strstr(r.buf, "8192 double counters need more than 49152 bytes"));
	ks_buf_release(&v);
	ks_buf_release(&r);
}

/* The text helpers on a kernel made by hand (no parse). */
static const char src[] =
	"__global__ void k(int *a, float *s, int n)\n"
	"{\n"
	"\t/* atomicAdd(s, 1) in a comment */\n"
	"\tint i = blockIdx.x * blockDim.x + threadIdx.x; // gridDim\n"
	"\tif (i < n) atomicAdd(s, 1.0f);\n"
	"\tint old = atomicAdd(a, 1); const char *q = \"blockIdx\";\n"
	"\t(void)atomicMax(a, old);\n"
	"}\n";

/* Writable strings for the structs' char * fields. */
static char s_k[] = "k", s_a[] = "a", s_s[] = "s", s_n[] = "n";
static char t_int_p[] = "int *", t_float_r[] = "float *__restrict__";
static char t_int[] = "int", t_ull[] = "const unsigned long long *";
static char t_pp[] = "float **", t_half[] = "__half *";

static void
hand_kernel(struct ks_kernel *k, struct ks_param *ps)
{
	const char *b = strchr(src, '{');

	memset(k, 0, sizeof(*k));
	k->name = s_k;
	k->extent.begin = 0;
	k->extent.end = sizeof(src) - 2;	/* through the '}' */
	k->body.begin = (unsigned long)(b - src);
	k->body.end = sizeof(src) - 2;
	k->body.line = 2;
	memset(ps, 0, 3 * sizeof(*ps));
	ps[0].name = s_a;
	ps[0].type = t_int_p;
	ps[0].is_pointer = 1;
	ps[1].name = s_s;
	ps[1].type = t_float_r;
	ps[1].is_pointer = 1;
	ps[2].name = s_n;
	ps[2].type = t_int;
	k->params = ps;
	k->nparams = 3;
}

TEST(xfbody_finds_calls_and_tells_discarded_values)
{
	struct ks_kernel k;
	struct ks_param ps[3];
	struct ks_xfbody_call c;
	struct ks_buf r = KS_BUF_INIT;

	hand_kernel(&k, ps);
	CHECK_INT_EQ(0, ks_xfbody_find_call(src, sizeof(src) - 1, &k, 5,
					    "atomicAdd", &c, &r));
	CHECK(c.discarded);
	CHECK(!strncmp(src + c.name_begin, "atomicAdd(s", 11));
	CHECK(src[c.close] == ')' && src[c.close + 1] == ';');
	CHECK_INT_EQ(0, ks_xfbody_find_call(src, sizeof(src) - 1, &k, 6,
					    "atomicAdd", &c, &r));
	CHECK(!c.discarded);
	CHECK_INT_EQ(0, ks_xfbody_find_call(src, sizeof(src) - 1, &k, 7,
					    "atomicMax", &c, &r));
	CHECK(c.discarded);
	/* the comment on line 3 is not a call */
	CHECK_INT_EQ(-1, ks_xfbody_find_call(src, sizeof(src) - 1, &k, 3,
					     "atomicAdd", &c, &r));
	CHECK(strstr(r.buf, "no call of atomicAdd on line 3"));
	ks_buf_release(&r);
}

TEST(xfbody_copies_with_renames_and_edits)
{
	struct ks_kernel k;
	struct ks_param ps[3];
	struct ks_xfbody_call c;
	struct ks_buf r = KS_BUF_INIT, out = KS_BUF_INIT;
	static const struct ks_xfbody_rename ren[] = {
		{ "blockIdx", "ks_bid" }, { "gridDim", "ks_gdim" }, { NULL, NULL }
	};
	struct ks_xfbody_edit e;

	hand_kernel(&k, ps);
	CHECK_INT_EQ(0, ks_xfbody_find_call(src, sizeof(src) - 1, &k, 5,
					    "atomicAdd", &c, &r));
	e.begin = c.name_begin;
	e.end = c.open + 1;
	e.with = "put(slot, ";
	CHECK_INT_EQ(0, ks_xfbody_copy(src, sizeof(src) - 1, &k, &e, 1, ren,
				       &out, &r));
	CHECK(strstr(out.buf, "int i = ks_bid.x * blockDim.x + threadIdx.x; // gridDim\n"));
	CHECK(strstr(out.buf, "if (i < n) put(slot, s, 1.0f);"));
	CHECK(strstr(out.buf, "\"blockIdx\""));	/* strings are kept */
	CHECK(strstr(out.buf, "/* atomicAdd(s, 1) in a comment */"));
	CHECK(out.buf[0] == '{' && out.buf[out.len - 1] == '}');
	ks_buf_reset(&out);
	CHECK_INT_EQ(0, ks_xfbody_params(&k, 1, "proxy<float>", -1, NULL, &out,
					 &r));
	CHECK_STR_EQ("int *a, proxy<float> s, int n", out.buf);
	ks_buf_reset(&out);
	ks_xfbody_args(&k, &out);
	CHECK_STR_EQ("a, s, n", out.buf);
	CHECK(!ks_xfbody_only_subscripted(src, sizeof(src) - 1, &k, "a", &r));
	ks_buf_release(&r);
	ks_buf_release(&out);
}

TEST(xfbody_element_types)
{
	struct ks_kernel k;
	struct ks_param ps[3];
	struct ks_xfbody_elem e;
	struct ks_buf r = KS_BUF_INIT;

	hand_kernel(&k, ps);
	CHECK_INT_EQ(0, ks_xfbody_elem(&k, 0, &e, &r));
	CHECK_STR_EQ("int", e.ctype);
	CHECK(e.is_signed && !e.is_float && e.bytes == 4);
	CHECK_INT_EQ(0, ks_xfbody_elem(&k, 1, &e, &r));
	CHECK_STR_EQ("float", e.ctype);
	CHECK_INT_EQ(-1, ks_xfbody_elem(&k, 2, &e, &r));
	ps[0].type = t_ull;
	CHECK_INT_EQ(0, ks_xfbody_elem(&k, 0, &e, &r));
	CHECK_STR_EQ("unsigned long long", e.ctype);
	CHECK_STR_EQ("0xffffffffffffffffull", e.max);
	ps[0].type = t_pp;
	CHECK_INT_EQ(-1, ks_xfbody_elem(&k, 0, &e, &r));
	ps[0].type = t_half;
	CHECK_INT_EQ(-1, ks_xfbody_elem(&k, 0, &e, &r));
	CHECK(strstr(r.buf, "'__half'"));
	ks_buf_release(&r);
}

void
ks_suite_xf_atomics(void)
{
	RUN(applies_to_its_shapes_and_declines_look_alikes);
	RUN(variants_are_deterministic_and_rewritable);
	RUN(every_point_applies_or_says_why);
	RUN(reduce_flushes_block_addresses_per_block);
	RUN(histogram_declines_counters_past_static_shared_memory);
	RUN(xfbody_finds_calls_and_tells_discarded_values);
	RUN(xfbody_copies_with_renames_and_edits);
	RUN(xfbody_element_types);
	xf_teardown(&fx);
}
