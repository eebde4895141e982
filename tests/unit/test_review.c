/* Unit tests of src/review: tolerances, the buffer rules, the timing
 * decision and the entry shim's text. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>
#include <unistd.h>

#include "../../src/core/buf.h"
#include "../../src/core/fs.h"
#include "../../src/core/proc.h"
#include "../../src/core/strv.h"
#include "../../src/core/util.h"
#include "../../src/review/build.h"
#include "../../src/review/gpulock.h"
#include "../../src/review/occupancy.h"
#include "../../src/review/review.h"
#include "../../src/review/reviewer.h"
#include "../../src/review/sample.h"
#include "../../src/review/shim.h"
#include "../../src/review/timing.h"
#include "../../src/review/tolerance.h"
#include "test.h"

void ks_suite_review(void);

TEST(tol_defaults_and_parse)
{
	struct ks_tol tol[KS_DTYPE_N], t;
	struct ks_buf err = KS_BUF_INIT;

	ks_tol_defaults(tol);
	CHECK(tol[KS_DTYPE_INT].atol == 0 && tol[KS_DTYPE_INT].rtol == 0);
	CHECK(tol[KS_DTYPE_BYTES].atol == 0);
	CHECK(tol[KS_DTYPE_F32].rtol == 1e-4);
	CHECK(tol[KS_DTYPE_F64].rtol < tol[KS_DTYPE_F32].rtol);
	CHECK(tol[KS_DTYPE_BF16].rtol > tol[KS_DTYPE_F16].rtol);
	CHECK_INT_EQ(0, ks_tol_parse("1e-6,2e-5", &t, &err));
	CHECK(t.atol == 1e-6 && t.rtol == 2e-5);
	CHECK_INT_EQ(-1, ks_tol_parse("1e-6", &t, &err));
	CHECK_INT_EQ(-1, ks_tol_parse("-1,0", &t, &err));
	CHECK_INT_EQ(-1, ks_tol_parse("1,2x", &t, &err));
	CHECK_INT_EQ(-1, ks_tol_parse("nan,0", &t, &err));
	ks_buf_release(&err);
}

TEST(tol_scale_term_for_cancelled_results)
{
	/* Sums of about +-37 and one that cancels to 0.14: a reordering moved
	 * it by 4e-5, 3e-4 of itself but 1e-6 of the buffer's RMS. */
	struct ks_tol t = { 1e-5, 1e-4, 0 };
	struct ks_tol parsed = { 0, 0, 7 };
	struct ks_buf err = KS_BUF_INIT;
	struct ks_cmp r;
	float ref[4] = { 37.0f, -36.0f, 0.14107132f, 38.0f };
	float got[4] = { 37.0f, -36.0f, 0.141111374f, 38.0f };

	CHECK_INT_EQ(0, ks_tol_compare(KS_DTYPE_F32, got, ref, sizeof(ref), &t, &r));
	CHECK(r.ref_rms == 0);	/* no scale term: not computed */
	t.stol = 1e-5;
	CHECK_INT_EQ(1, ks_tol_compare(KS_DTYPE_F32, got, ref, sizeof(ref), &t, &r));
	CHECK(r.ref_rms > 32 && r.ref_rms < 32.1);
	/* It bounds the slack: 1e-5 of the RMS is 3.2e-4, and no more. */
	got[2] = 0.1416f;
	CHECK_INT_EQ(0, ks_tol_compare(KS_DTYPE_F32, got, ref, sizeof(ref), &t, &r));
	CHECK_INT_EQ(2, r.first_bad);
	/* Large results keep their relative bound. */
	got[2] = ref[2];
	got[3] = 38.01f;
	CHECK_INT_EQ(0, ks_tol_compare(KS_DTYPE_F32, got, ref, sizeof(ref), &t, &r));
	/* ATOL,RTOL leaves STOL; a third number sets it. */
	CHECK_INT_EQ(0, ks_tol_parse("1e-6,2e-5", &parsed, &err));
	CHECK(parsed.stol == 7);
	CHECK_INT_EQ(0, ks_tol_parse("1e-6,2e-5,3e-6", &parsed, &err));
	CHECK(parsed.atol == 1e-6 && parsed.rtol == 2e-5 && parsed.stol == 3e-6);
	CHECK_INT_EQ(-1, ks_tol_parse("1e-6,2e-5,", &parsed, &err));
	CHECK_INT_EQ(-1, ks_tol_parse("1e-6,2e-5,-1", &parsed, &err));
	CHECK_INT_EQ(-1, ks_tol_parse("1e-6,2e-5,1,2", &parsed, &err));
	ks_buf_release(&err);
}

TEST(tol_float_elements)
{
	struct ks_tol t = { 1e-5, 1e-4, 0 };
	struct ks_cmp r;
	float ref[4] = { 1.0f, -2.0f, 0.0f, 1000.0f };
	float got[4] = { 1.00009f, -2.0001f, 9e-6f, 1000.09f };

	CHECK_INT_EQ(1, ks_tol_compare(KS_DTYPE_F32, got, ref, sizeof(ref), &t, &r));
	CHECK_INT_EQ(4, r.elems);
	got[3] = 1000.2f;	/* 2e-4 relative */
	CHECK_INT_EQ(0, ks_tol_compare(KS_DTYPE_F32, got, ref, sizeof(ref), &t, &r));
	CHECK_INT_EQ(1, r.bad);
	CHECK_INT_EQ(3, r.first_bad);
	CHECK(fabs(r.got_first - 1000.2) < 1e-3);
	got[3] = 1000.0f;
	got[2] = 2e-5f;		/* beyond atol at zero */
	CHECK_INT_EQ(0, ks_tol_compare(KS_DTYPE_F32, got, ref, sizeof(ref), &t, &r));
	CHECK_INT_EQ(2, r.first_bad);
}

TEST(tol_nan_and_inf_positions)
{
	struct ks_tol t = { 1, 1, 0 };
	struct ks_cmp r;
	double ref[3] = { NAN, INFINITY, 1.0 };
	double got[3] = { NAN, INFINITY, 1.5 };

	CHECK_INT_EQ(1, ks_tol_compare(KS_DTYPE_F64, got, ref, sizeof(ref), &t, &r));
	got[0] = 0;
	CHECK_INT_EQ(0, ks_tol_compare(KS_DTYPE_F64, got, ref, sizeof(ref), &t, &r));
	CHECK_INT_EQ(1, r.nan_mismatch);
	got[0] = NAN;
	got[2] = NAN;		/* NaN where the reference has a number */
	CHECK_INT_EQ(0, ks_tol_compare(KS_DTYPE_F64, got, ref, sizeof(ref), &t, &r));
	CHECK_INT_EQ(1, r.nan_mismatch);
	got[2] = 1.0;
	got[1] = -INFINITY;
	CHECK_INT_EQ(0, ks_tol_compare(KS_DTYPE_F64, got, ref, sizeof(ref), &t, &r));
	CHECK_INT_EQ(1, r.inf_mismatch);
	got[1] = 1e308;		/* a huge finite value is not infinity */
	CHECK_INT_EQ(0, ks_tol_compare(KS_DTYPE_F64, got, ref, sizeof(ref), &t, &r));
}

TEST(tol_half_and_bfloat)
{
	struct ks_tol t = { 0, 0, 0 };
	struct ks_cmp r;
	/* fp16: 1.0 = 0x3c00, -2.0 = 0xc000, 65504 = 0x7bff, +inf, NaN,
	 * smallest subnormal 0x0001 = 2^-24. */
	uint16_t h[6] = { 0x3c00, 0xc000, 0x7bff, 0x7c00, 0x7e00, 0x0001 };
	/* bf16: 1.0 = 0x3f80, 1.0078125 = 0x3f81. */
	uint16_t b[2] = { 0x3f80, 0x3f81 }, b2[2] = { 0x3f80, 0x3f80 };

	CHECK(ks_tol_load(KS_DTYPE_F16, h, 0) == 1.0);
	CHECK(ks_tol_load(KS_DTYPE_F16, h, 1) == -2.0);
	CHECK(ks_tol_load(KS_DTYPE_F16, h, 2) == 65504.0);
	CHECK(isinf(ks_tol_load(KS_DTYPE_F16, h, 3)));
	CHECK(isnan(ks_tol_load(KS_DTYPE_F16, h, 4)));
	CHECK(ks_tol_load(KS_DTYPE_F16, h, 5) == ldexp(1.0, -24));
	CHECK(ks_tol_load(KS_DTYPE_BF16, b, 1) == 1.0078125);
	CHECK_INT_EQ(0, ks_tol_compare(KS_DTYPE_BF16, b, b2, 4, &t, &r));
	t.rtol = 0.01;
	CHECK_INT_EQ(1, ks_tol_compare(KS_DTYPE_BF16, b, b2, 4, &t, &r));
}

TEST(tol_integers_exact)
{
	struct ks_tol t = { 1e9, 1e9, 0 };	/* ignored for integers */
	struct ks_cmp r;
	int32_t ref[3] = { 1, 2, 3 }, got[3] = { 1, 2, 4 };

	CHECK_INT_EQ(0, ks_tol_compare(KS_DTYPE_INT, got, ref, sizeof(ref), &t, &r));
	CHECK_INT_EQ(8, r.first_bad);	/* bytewise */
	got[2] = 3;
	CHECK_INT_EQ(1, ks_tol_compare(KS_DTYPE_INT, got, ref, sizeof(ref), &t, &r));
	/* A tail shorter than an element is compared too. */
	CHECK_INT_EQ(0, ks_tol_compare(KS_DTYPE_F32, "abcdefg", "abcdefh", 7, &t, &r));
}

TEST(check_unwritten_must_stay)
{
	struct ks_tol tol[KS_DTYPE_N];
	struct ks_buf why = KS_BUF_INIT;
	float before[4] = { 1, 2, 3, 4 }, got[4] = { 1, 2, 3, 4 };
	struct ks_check b = { KS_DTYPE_F32, sizeof(before), before, before, got, 0 };

	ks_tol_defaults(tol);
	CHECK_INT_EQ(1, ks_check_buffer(&b, tol, &why));
	got[1] = 2.0000005f;	/* within tolerance, but it was not to change */
	CHECK_INT_EQ(0, ks_check_buffer(&b, tol, &why));
	CHECK(strstr(why.buf, "leaves alone") != NULL);
	ks_buf_release(&why);
}

TEST(check_written_tolerance_and_constant)
{
	struct ks_tol tol[KS_DTYPE_N];
	struct ks_buf why = KS_BUF_INIT;
	float before[4] = { 0 }, ref[4] = { 1, 1.00001f, 1.00002f, 1 };
	float got[4] = { 1, 1.00001f, 1.00002f, 1 };
	struct ks_check b = { KS_DTYPE_F32, sizeof(ref), before, ref, got, 1 };

	ks_tol_defaults(tol);
	CHECK_INT_EQ(1, ks_check_buffer(&b, tol, &why));
	got[0] = got[1] = got[2] = got[3] = 1.00001f;	/* constant, within tolerance */
	CHECK_INT_EQ(0, ks_check_buffer(&b, tol, &why));
	CHECK(strstr(why.buf, "constant") != NULL);
	ks_buf_reset(&why);
	got[0] = 2;
	CHECK_INT_EQ(0, ks_check_buffer(&b, tol, &why));
	CHECK(strstr(why.buf, "first at 0: got 2, want 1") != NULL);
	/* Poisoned and never written: NaN where the reference has numbers. */
	memset(got, 0xff, sizeof(got));
	ks_buf_reset(&why);
	CHECK_INT_EQ(0, ks_check_buffer(&b, tol, &why));
	CHECK(strstr(why.buf, "NaN misplaced") != NULL);
	/* bytes are counted as bytes */
	{
		unsigned char bb[4] = { 0 }, br[4] = { 1, 2, 3, 4 }, bg[4] = { 1, 2, 3, 5 };
		struct ks_check bc = { KS_DTYPE_BYTES, 4, bb, br, bg, 1 };

		ks_buf_reset(&why);
		CHECK_INT_EQ(0, ks_check_buffer(&bc, tol, &why));
		CHECK(strstr(why.buf, "1 of 4 bytes differ from the reference") != NULL);
	}
	ks_buf_release(&why);
}

/* The yes-or-no check answers as the full one does, on every rule; f32
 * and f64 (the per-element path) alike. */
TEST(check_passes_agrees)
{
	struct ks_tol tol[KS_DTYPE_N];
	struct ks_buf why = KS_BUF_INIT;
	float before[5] = { 0 }, ref[5] = { 1, -2, 0.0f, 3, 4 }, got[5];
	double dref[3] = { 1, 2, 3 }, dgot[3], dbefore[3] = { 0 };
	struct ks_check b = { KS_DTYPE_F32, sizeof(ref), before, ref, got, 1 };
	struct ks_check d = { KS_DTYPE_F64, sizeof(dref), dbefore, dref, dgot, 1 };
	int k;

	ks_tol_defaults(tol);
	ref[3] = INFINITY;
	ref[4] = NAN;
	for (k = 0; k < 8; k++) {
		memcpy(got, ref, sizeof(got));
		if (k == 1)
			got[2] = -0.0f;		/* equal, other bits */
		if (k == 2)
			got[0] = 1.0000001f;	/* within tolerance */
		if (k == 3)
			got[1] = 5;
		if (k == 4)
			got[3] = -INFINITY;
		if (k == 5)
			got[4] = 0;
		if (k == 6)
			b.written = 0;		/* must equal before */
		if (k == 7) {
			b.written = 1;
			memset(got, 0xff, sizeof(got));
		}
		ks_buf_reset(&why);
		CHECK_INT_EQ(ks_check_buffer(&b, tol, &why), ks_check_buffer_passes(&b, tol));
	}
	memcpy(dgot, dref, sizeof(dgot));
	CHECK_INT_EQ(1, ks_check_buffer_passes(&d, tol));
	dgot[0] = dgot[1] = dgot[2] = 2;	/* constant where the reference is not */
	CHECK_INT_EQ(ks_check_buffer(&d, tol, &why), ks_check_buffer_passes(&d, tol));
	CHECK_INT_EQ(0, ks_check_buffer_passes(&d, tol));
	ks_buf_release(&why);
}

TEST(timing_summary)
{
	double ms[10] = { 10, 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	struct ks_timing t;

	ks_timing_summarize(ms, 10, &t);
	CHECK_INT_EQ(10, t.n);
	CHECK(t.median == 5.5);
	CHECK(fabs(t.lo - 1.9) < 1e-12);
	CHECK(fabs(t.hi - 9.1) < 1e-12);
	CHECK(t.min == 1 && t.max == 10 && t.total == 55);
	CHECK(ms[0] == 10);	/* the input is left alone */
	CHECK_INT_EQ(1, ks_timing_enough(&t, 10, 55, 0));
	CHECK_INT_EQ(0, ks_timing_enough(&t, 11, 1, 1000));
	CHECK_INT_EQ(0, ks_timing_enough(&t, 1, 56, 55));
	CHECK_INT_EQ(1, ks_timing_enough(&t, 1, 56, 56));	/* enough wall time */
	ks_timing_summarize(ms, 0, &t);
	CHECK_INT_EQ(0, t.n);
}

/* Work left on another stream shows as the GPU busy after the stop event. */
static void
test_timing_escaped(void)
{
	CHECK_INT_EQ(0, ks_timing_escaped(0.008, 0.012));
	CHECK_INT_EQ(0, ks_timing_escaped(0.5, 0.54));	/* the original's own */
	CHECK_INT_EQ(1, ks_timing_escaped(0.008, 0.9));
	CHECK_INT_EQ(1, ks_timing_escaped(0.5, 0.56));
}

static void
series(double *v, size_t n, double center, double spread)
{
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = center + spread * ((double)i / (double)(n - 1) - 0.5);
}

TEST(timing_decision)
{
	double a[20], b[20], s;
	struct ks_timing o, c;

	series(a, 20, 1.0, 0.1);	/* 0.95 .. 1.05 */
	series(b, 20, 0.8, 0.1);	/* 0.75 .. 0.85 */
	ks_timing_summarize(a, 20, &o);
	ks_timing_summarize(b, 20, &c);
	CHECK_INT_EQ(KS_SPEED_FASTER, ks_timing_decide(&o, &c, 20, &s));
	CHECK(fabs(s - 1.25) < 1e-9);
	CHECK_INT_EQ(KS_SPEED_SLOWER, ks_timing_decide(&c, &o, 20, &s));
	/* Overlapping spreads: no claim, even with a better median. */
	series(b, 20, 0.95, 0.1);
	ks_timing_summarize(b, 20, &c);
	CHECK_INT_EQ(KS_SPEED_SAME, ks_timing_decide(&o, &c, 20, &s));
	CHECK(s > 1.0);
	/* Too few repetitions. */
	ks_timing_summarize(b, 5, &c);
	CHECK_INT_EQ(KS_SPEED_UNKNOWN, ks_timing_decide(&o, &c, 20, &s));
	CHECK_STR_EQ("faster", ks_speed_name(KS_SPEED_FASTER));
}

static const struct ks_shim_param params4[] = {
	{ "grid2d", 16 }, { "const float *__restrict__", 8 }, { "float *", 8 },
	{ "int", 4 },
};

TEST(shim_typed)
{
	struct ks_shim s = { "/src/k.cu", "scale", params4, 4, 0, 0 };
	struct ks_buf out = KS_BUF_INIT, err = KS_BUF_INIT;

	CHECK_INT_EQ(0, ks_shim_generate(&s, &out, &err));
	CHECK(strstr(out.buf, "#include \"/src/k.cu\"\n") != NULL);
	CHECK(strstr(out.buf, "using ks_t1 = const float *__restrict__;") != NULL);
	CHECK(strstr(out.buf, "static_assert(sizeof(ks_t0) == 16") != NULL);
	CHECK(strstr(out.buf, "scale<<<ks_g, ks_b, ks_sh, ks_s>>>(*(ks_t0 *)ks_p[0], "
			      "*(ks_t1 *)ks_p[1], *(ks_t2 *)ks_p[2], *(ks_t3 *)ks_p[3]);") != NULL);
	CHECK(strstr(out.buf, "extern \"C\" int\nks_entry(void **ks_params, dim3 ks_grid, "
			      "dim3 ks_block, size_t ks_shmem, cudaStream_t ks_stream)") != NULL);
	CHECK(strstr(out.buf, "extern \"C\" const char ks_entry_kernel[] = \"scale\";") != NULL);
	CHECK(strstr(out.buf, "namespace") == NULL);
	ks_buf_release(&out);
	ks_buf_release(&err);
}

TEST(shim_deduced_namespace_launcher)
{
	struct ks_shim_param p[2] = { { NULL, 8 }, { "int", 4 } };
	struct ks_shim s = { NULL, "ns::in::tk<float>", p, 2, 1, 0 };
	struct ks_buf out = KS_BUF_INIT, err = KS_BUF_INIT;

	CHECK_INT_EQ(0, ks_shim_generate(&s, &out, &err));
	CHECK(strstr(out.buf, "deduced mode") != NULL);
	CHECK(strstr(out.buf, "#include \"") == NULL);
	CHECK(strstr(out.buf, "namespace ns { namespace in { \n") != NULL);
	CHECK(strstr(out.buf, "#ifndef __CUDA_ARCH__\n"
			      "\tks_launch_tk(ks_g, ks_b, ks_sh, ks_s, *(ks_A *)ks_p[ks_I]...);\n"
			      "#endif\n") != NULL);
	CHECK(strstr(out.buf, "static const std::size_t ks_want[] = { 8, 4, 0 };") != NULL);
	CHECK(strstr(out.buf, "ks_shim_call(&tk<float>, ks_p") != NULL);
	CHECK(strstr(out.buf, "return ns::in::ks_shim_entry(ks_params") != NULL);
	ks_buf_release(&out);
	ks_buf_release(&err);
}

TEST(shim_cooperative_and_rejects)
{
	struct ks_shim s = { NULL, "k", params4, 4, 0, 1 };
	struct ks_shim_param bad = { "int; system(\"x\")", 4 };
	struct ks_buf out = KS_BUF_INIT, err = KS_BUF_INIT;

	CHECK_INT_EQ(0, ks_shim_generate(&s, &out, &err));
	CHECK(strstr(out.buf, "cudaLaunchCooperativeKernel((const void *)static_cast<"
			      "void (*)(ks_t0, ks_t1, ks_t2, ks_t3)>(&k), ks_g") != NULL);
	s.launcher = 1;
	CHECK_INT_EQ(-1, ks_shim_generate(&s, &out, &err));
	s.launcher = 0;
	s.kernel = "k{";
	CHECK_INT_EQ(-1, ks_shim_generate(&s, &out, &err));
	s.kernel = "k";
	s.params = &bad;
	s.nparams = 1;
	ks_buf_reset(&err);
	CHECK_INT_EQ(-1, ks_shim_generate(&s, &out, &err));
	CHECK(strstr(err.buf, "cannot be a parameter type") != NULL);
	ks_buf_release(&out);
	ks_buf_release(&err);
}

TEST(tol_store_round_trip)
{
	uint16_t h[4];
	float f[1];
	double d[1];

	ks_tol_store(KS_DTYPE_F16, h, 0, 1.0);
	ks_tol_store(KS_DTYPE_F16, h, 1, -2.5);
	ks_tol_store(KS_DTYPE_F16, h, 2, 1e6);		/* overflows to inf */
	ks_tol_store(KS_DTYPE_F16, h, 3, 1.00048828125);	/* a tie: to even */
	CHECK_INT_EQ(0x3c00, h[0]);
	CHECK_INT_EQ(0xc100, h[1]);
	CHECK_INT_EQ(0x7c00, h[2]);
	CHECK_INT_EQ(0x3c00, h[3]);
	ks_tol_store(KS_DTYPE_F16, h, 0, ldexp(3.0, -24));	/* subnormal */
	CHECK_INT_EQ(3, h[0]);
	ks_tol_store(KS_DTYPE_F16, h, 0, 65504.0);
	CHECK_INT_EQ(0x7bff, h[0]);
	ks_tol_store(KS_DTYPE_BF16, h, 0, 1.0078125);
	CHECK_INT_EQ(0x3f81, h[0]);
	ks_tol_store(KS_DTYPE_BF16, h, 0, -3.0);
	CHECK(ks_tol_load(KS_DTYPE_BF16, h, 0) == -3.0);
	ks_tol_store(KS_DTYPE_F32, f, 0, 0.1);
	CHECK(f[0] == 0.1f);
	ks_tol_store(KS_DTYPE_F64, d, 0, 0.1);
	CHECK(d[0] == 0.1);
}

TEST(occupancy_limits)
{
	/* sm_90: 2048 threads, 32 blocks, 64K registers, 228 KiB per SM. */
	struct ks_occ_device d = { 2048, 32, 65536, 233472, 1024 };
	struct ks_occ_kernel k = { 256, 32, 0 };
	struct ks_occ o;

	ks_occupancy(&d, &k, &o);
	CHECK_INT_EQ(8, o.blocks);
	CHECK_STR_EQ("warps", o.limiter);
	CHECK(o.occupancy_pct == 100.0);
	k.regs = 128;	/* 4096 registers per warp: 16 warps, 2 blocks */
	ks_occupancy(&d, &k, &o);
	CHECK_INT_EQ(2, o.blocks);
	CHECK_STR_EQ("registers", o.limiter);
	CHECK(o.occupancy_pct == 25.0);
	k.regs = 32;
	k.smem = 48 * 1024;	/* 49 KiB with the reservation: 4 blocks */
	ks_occupancy(&d, &k, &o);
	CHECK_INT_EQ(4, o.blocks);
	CHECK_STR_EQ("shared", o.limiter);
	k.threads = 32;
	k.smem = 0;
	ks_occupancy(&d, &k, &o);
	CHECK_INT_EQ(32, o.blocks);
	CHECK_STR_EQ("blocks", o.limiter);
	CHECK(o.occupancy_pct == 50.0);
}

TEST(ncu_csv)
{
	struct ks_buf obj = KS_BUF_INIT;
	const char *csv =
		"==PROF== Connected to process 1\n"
		"program output line\n"
		"\"ID\",\"Process ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
		"\"0\",\"7\",\"k1\",\"gpu__time_duration.sum\",\"ns\",\"1,000\"\n"
		"\"0\",\"7\",\"k1\",\"dram__throughput.avg.pct_of_peak_sustained_elapsed\",\"%\",\"10.5\"\n"
		"\"1\",\"7\",\"k \"\"2\"\"\",\"gpu__time_duration.sum\",\"ns\",\"3000\"\r\n"
		"\"1\",\"7\",\"k2\",\"dram__throughput.avg.pct_of_peak_sustained_elapsed\",\"%\",\"80\"\n"
		"\"1\",\"7\",\"k2\",\"not__a_metric_of_ours\",\"\",\"1\"\n";

	CHECK_INT_EQ(2, ks_review_parse_ncu_csv(csv, &obj));
	CHECK(strstr(obj.buf, "\"ranges\": 2") != NULL);
	CHECK(strstr(obj.buf, "\"duration_ns\": 4000") != NULL);
	CHECK(strstr(obj.buf, "\"dram_pct\": 80") != NULL);
	CHECK(strstr(obj.buf, "\"unavailable\": [\"l2_pct\"") != NULL);
	ks_buf_reset(&obj);
	CHECK_INT_EQ(0, ks_review_parse_ncu_csv("nothing\n", &obj));
	ks_buf_release(&obj);
}

static void
push_all(struct ks_strv *v, const char *const *w)
{
	for (; *w; w++)
		ks_strv_push(v, *w);
}

static void
join(const struct ks_strv *v, struct ks_buf *out)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		ks_buf_addf(out, "%s%s", i ? " " : "", v->v[i]);
}

TEST(build_shared_argv)
{
	static const char *const rec[] = {
		"-O3", "-arch=sm_90", "-I../common", "-MD", "-MF", "build/k.d", "-dc",
		"k.cu", "-o", "build/k.o", "-cudart", "static", "-Xcompiler", "-Wall",
		"--use_fast_math", "-DN=4", NULL
	};
	struct ks_strv in = KS_STRV_INIT, out = KS_STRV_INIT;
	struct ks_buf text = KS_BUF_INIT, err = KS_BUF_INIT;

	push_all(&in, rec);
	CHECK_INT_EQ(0, ks_build_shared_argv(&in, "/src", "/w/shim.cu", "/w/o.so", &out,
					     &err));
	join(&out, &text);
	CHECK_STR_EQ("-O3 -arch=sm_90 -I../common -rdc=true -Xcompiler -Wall "
		     "--use_fast_math -DN=4 -I/src -shared -Xcompiler -fPIC -cudart "
		     "shared -o /w/o.so /w/shim.cu", text.buf);
	ks_strv_release(&in);
	ks_strv_release(&out);
	ks_strv_init(&in);
	ks_strv_init(&out);
	ks_strv_push(&in, "-o");
	CHECK_INT_EQ(-1, ks_build_shared_argv(&in, NULL, "s.cu", "o.so", &out, &err));
	ks_strv_release(&in);
	ks_strv_release(&out);
	ks_buf_release(&text);
	ks_buf_release(&err);
}

/*
 * The same object is built once per process: a second build with the same
 * command, shim and included TU links the first one into place; a changed
 * TU or another shim builds again. "nvcc" here is a script that counts its
 * runs and writes the -o file.
 */
TEST(build_so_once)
{
	const char *dir = test_tmpdir();
	char *nvcc = ks_fs_join(dir, "count-nvcc"), *count = ks_fs_join(dir, "nvcc-runs");
	char *tu = ks_fs_join(dir, "k.cu"), *w1 = ks_fs_join(dir, "w1"),
	     *w2 = ks_fs_join(dir, "w2");
	struct ks_buf script = KS_BUF_INIT, shim = KS_BUF_INIT, log = KS_BUF_INIT,
		      err = KS_BUF_INIT, runs = KS_BUF_INIT;
	struct ks_build_rec rec;
	struct ks_build_so b;
	char *so = NULL;

	ks_buf_addf(&script, "#!/bin/sh\necho x >>'%s'\nwhile [ $# -gt 0 ]; do "
			     "[ \"$1\" = -o ] && { echo obj >\"$2\"; shift; }; shift; "
			     "done\n", count);
	CHECK_INT_EQ(0, ks_fs_write_atomic(nvcc, script.buf, script.len, &err));
	CHECK_INT_EQ(0, chmod(nvcc, 0755));
	CHECK_INT_EQ(0, ks_fs_write_atomic(tu, "__global__ void k() {}\n", 23, &err));
	CHECK_INT_EQ(0, ks_fs_mkdirs(w1, &err));
	CHECK_INT_EQ(0, ks_fs_mkdirs(w2, &err));
	memset(&rec, 0, sizeof(rec));
	ks_strv_init(&rec.argv);
	ks_strv_push(&rec.argv, "-O3");
	rec.source = tu;
	rec.cwd = (char *)dir;
	ks_buf_addf(&shim, "#include \"%s\"\nint ks_entry_x;\n", tu);
	memset(&b, 0, sizeof(b));
	b.rec = &rec;
	b.nvcc = nvcc;
	b.shim = shim.buf;
	b.workdir = w1;
	b.name = "original";
	b.timeout_ms = 20000;
	CHECK_INT_EQ(0, ks_build_so(&b, &so, &log, &err));
	free(so);
	b.workdir = w2;		/* another capture's review, the same object */
	CHECK_INT_EQ(0, ks_build_so(&b, &so, &log, &err));
	CHECK(so && ks_fs_exists(so));
	free(so);
	CHECK_INT_EQ(0, ks_fs_read(count, &runs, &err));
	CHECK_STR_EQ("x\n", runs.buf);
	/* The TU changed: built again. */
	CHECK_INT_EQ(0, ks_fs_write_atomic(tu, "__global__ void k(int) {}\n", 26, &err));
	CHECK_INT_EQ(0, ks_build_so(&b, &so, &log, &err));
	free(so);
	b.name = "candidate";	/* another object */
	CHECK_INT_EQ(0, ks_build_so(&b, &so, &log, &err));
	free(so);
	ks_buf_reset(&runs);
	CHECK_INT_EQ(0, ks_fs_read(count, &runs, &err));
	CHECK_STR_EQ("x\nx\nx\n", runs.buf);
	ks_strv_release(&rec.argv);
	ks_buf_release(&script);
	ks_buf_release(&shim);
	ks_buf_release(&log);
	ks_buf_release(&err);
	ks_buf_release(&runs);
	free(nvcc);
	free(count);
	free(tu);
	free(w1);
	free(w2);
}

/*
 * The GPU the capture ran on gets its target where the record reaches it
 * only through PTX (what ks-nvcc adds to compile a variant in), and no
 * more where the record builds it.
 */
TEST(build_so_adds_the_gpus_target)
{
	static const struct {
		const char *arch;	/* the record's, or NULL: none named */
		unsigned gpu;
		const char *words;	/* what the build adds, or "" */
	} cases[] = {
		{ NULL, 90, " -arch=sm_75 -gencode arch=compute_90,code=sm_90\n" },
		{ "-arch=sm_80", 90, " -gencode arch=compute_90,code=sm_90\n" },
		{ "-arch=sm_90", 90, "" },
		{ NULL, 0, "" },
	};
	const char *dir = test_tmpdir();
	char *nvcc = ks_fs_join(dir, "argv-nvcc"), *argvlog = ks_fs_join(dir, "nvcc-argv");
	char *tu = ks_fs_join(dir, "t.cu"), *w = ks_fs_join(dir, "wt");
	struct ks_buf script = KS_BUF_INIT, err = KS_BUF_INIT;
	size_t i;

	ks_buf_addf(&script, "#!/bin/sh\necho \"$*\" >'%s'\nwhile [ $# -gt 0 ]; do "
			     "[ \"$1\" = -o ] && { echo obj >\"$2\"; shift; }; shift; "
			     "done\n", argvlog);
	CHECK_INT_EQ(0, ks_fs_write_atomic(nvcc, script.buf, script.len, &err));
	CHECK_INT_EQ(0, chmod(nvcc, 0755));
	CHECK_INT_EQ(0, ks_fs_mkdirs(w, &err));
	for (i = 0; i < KS_ARRAY_SIZE(cases); i++) {
		struct ks_buf shim = KS_BUF_INIT, log = KS_BUF_INIT, got = KS_BUF_INIT;
		struct ks_build_rec rec;
		struct ks_build_so b;
		const char *tail;
		char *so = NULL;

		/* a TU of its own each time: no object is reused */
		ks_buf_addf(&shim, "__global__ void k%zu() {}\n", i);
		CHECK_INT_EQ(0, ks_fs_write_atomic(tu, shim.buf, shim.len, &err));
		ks_buf_reset(&shim);
		memset(&rec, 0, sizeof(rec));
		ks_strv_init(&rec.argv);
		ks_strv_push(&rec.argv, "-O3");
		if (cases[i].arch)
			ks_strv_push(&rec.argv, cases[i].arch);
		ks_strv_push(&rec.argv, "-c");
		ks_strv_push(&rec.argv, tu);
		rec.source = tu;
		rec.cwd = (char *)dir;
		ks_buf_addf(&shim, "#include \"%s\"\nint ks_entry_t;\n", tu);
		memset(&b, 0, sizeof(b));
		b.rec = &rec;
		b.nvcc = nvcc;
		b.shim = shim.buf;
		b.workdir = w;
		b.name = "original";
		b.timeout_ms = 20000;
		b.gpu_arch = cases[i].gpu;
		CHECK_INT_EQ(0, ks_build_so(&b, &so, &log, &err));
		free(so);
		CHECK_INT_EQ(0, ks_fs_read(argvlog, &got, &err));
		tail = got.buf ? strstr(got.buf, " -arch=sm_75 -gencode") : NULL;
		if (!tail)
			tail = got.buf ? strstr(got.buf, " -gencode") : NULL;
		CHECK_STR_EQ(cases[i].words, tail ? tail : "");
		ks_strv_release(&rec.argv);
		ks_buf_release(&shim);
		ks_buf_release(&log);
		ks_buf_release(&got);
	}
	ks_buf_release(&script);
	ks_buf_release(&err);
	free(nvcc);
	free(argvlog);
	free(tu);
	free(w);
}

/* Checkers share the GPU, a measurer has it alone, and a measurer waiting
 * at the gate lets no new checker in. Separate descriptors lock against
 * each other as separate processes do. */
TEST(gpulock_readers_writer)
{
	char *path = ks_fs_join(test_tmpdir(), "gpu"), *gate = ks_fs_join(test_tmpdir(), "gpu-gate");
	struct ks_gpulock a = KS_GPULOCK_INIT, b = KS_GPULOCK_INIT, w = KS_GPULOCK_INIT;
	struct ks_lock shut = KS_LOCK_INIT;
	struct ks_buf err = KS_BUF_INIT;

	CHECK_INT_EQ(0, ks_gpulock_shared(&a, path, 0, &err));
	CHECK_INT_EQ(0, ks_gpulock_shared(&b, path, 0, &err));
	CHECK_INT_EQ(-1, ks_gpulock_exclusive(&w, path, 0, &err));
	ks_gpulock_release(&a);
	ks_gpulock_release(&b);
	CHECK_INT_EQ(0, ks_gpulock_exclusive(&w, path, 0, &err));
	CHECK_INT_EQ(-1, ks_gpulock_shared(&a, path, 0, &err));
	/* Back to shared: others may join. */
	CHECK_INT_EQ(0, ks_gpulock_shared(&w, path, 0, &err));
	CHECK_INT_EQ(0, ks_gpulock_shared(&a, path, 0, &err));
	ks_gpulock_release(&a);
	/* A measurer holds the gate while it waits for the checkers. */
	CHECK_INT_EQ(0, ks_lock_acquire(&shut, gate, 0, &err));
	CHECK_INT_EQ(-1, ks_gpulock_shared(&b, path, 0, &err));
	ks_lock_release(&shut);
	CHECK_INT_EQ(0, ks_gpulock_shared(&b, path, 0, &err));
	ks_gpulock_release(&b);
	ks_gpulock_release(&w);
	ks_gpulock_release(&w);	/* twice is safe */
	ks_buf_release(&err);
	free(path);
	free(gate);
}

TEST(build_object_has)
{
	static const char obj[] = "xx\0_Z1kPf\0_Z1kPfi\0tail_Z1kv\0";

	CHECK_INT_EQ(1, ks_build_object_has(obj, sizeof(obj), "_Z1kPf"));
	CHECK_INT_EQ(1, ks_build_object_has(obj, sizeof(obj), "_Z1kPfi"));
	CHECK_INT_EQ(0, ks_build_object_has(obj, sizeof(obj), "_Z1kv"));
	CHECK_INT_EQ(0, ks_build_object_has(obj, sizeof(obj), "_Z1k"));
	CHECK_INT_EQ(0, ks_build_object_has(obj, sizeof(obj), ""));
}

TEST(review_argv)
{
	struct ks_tol tol[KS_DTYPE_N];
	struct ks_review_opts o;
	struct ks_strv v = KS_STRV_INIT;
	struct ks_buf text = KS_BUF_INIT;

	ks_tol_defaults(tol);
	memset(&o, 0, sizeof(o));
	o.replay = "ks-replay";
	o.capture = "/c";
	o.original = "/o.so";
	o.candidate = "/c.so";
	o.random = 3;
	o.seed = 9;
	o.time = 1;
	o.reps = 20;
	o.min_ms = 200;
	o.tol = tol;
	ks_review_argv(&o, "/w/r.json", 0, &v);
	join(&v, &text);
	CHECK(strstr(text.buf, "ks-replay --capture /c --original /o.so --candidate "
			       "/c.so --json /w/r.json --random 3 --seed 9 --time --reps 20 "
			       "--min-ms 200 --tol f64=") == text.buf);
	CHECK(strstr(text.buf, "--tol f32=1.0000000000000001e-05,0.0001") != NULL);
	ks_strv_release(&v);
	ks_strv_init(&v);
	ks_buf_reset(&text);
	ks_review_argv(&o, NULL, 1, &v);
	join(&v, &text);
	CHECK_STR_EQ("ks-replay --capture /c --candidate /c.so --once", text.buf);
	ks_strv_release(&v);
	/* A metrics-only pass: the one side, its counters, nothing checked. */
	ks_strv_init(&v);
	ks_buf_reset(&text);
	o.random = 0;
	o.time = 0;
	o.tol = NULL;
	o.metrics = o.metrics_only = 1;
	o.output_only = "1";
	ks_review_argv(&o, "/w/r.json", 0, &v);
	join(&v, &text);
	CHECK_STR_EQ("ks-replay --capture /c --candidate /c.so --json /w/r.json "
		     "--metrics-only --output-only 1", text.buf);
	ks_strv_release(&v);
	ks_strv_init(&v);
	ks_buf_reset(&text);
	o.candidate = NULL;
	ks_review_argv(&o, "/w/r.json", 0, &v);
	join(&v, &text);
	CHECK_STR_EQ("ks-replay --capture /c --original /o.so --json /w/r.json "
		     "--metrics-only --output-only 1", text.buf);
	ks_strv_release(&v);
	ks_buf_release(&text);
}

/* The decision from what the children said to the verdict, case by case. */
TEST(review_decide)
{
	static const struct {
		int cand, compiled;
		const char *verdict, *stage;
		int san_asked, san_clean;
		enum ks_review_verdict want;
	} cases[] = {
		{ 0, 1, "eligible", NULL, 0, 0, KS_REVIEW_ELIGIBLE },
		{ 0, 1, "ineligible", NULL, 0, 0, KS_REVIEW_INELIGIBLE },
		{ 0, 1, "eligible", NULL, 1, 1, KS_REVIEW_ELIGIBLE },
		{ 0, 1, "eligible", NULL, 1, 0, KS_REVIEW_INELIGIBLE },
		{ 0, 1, NULL, "process", 0, 0, KS_REVIEW_ERROR },
		{ 0, 1, NULL, "setup", 0, 0, KS_REVIEW_ERROR },
		{ 1, 0, NULL, NULL, 0, 0, KS_REVIEW_REJECTED },
		{ 1, 1, "correct", NULL, 0, 0, KS_REVIEW_CORRECT },
		{ 1, 1, "correct", NULL, 1, 1, KS_REVIEW_CORRECT },
		{ 1, 1, "correct", NULL, 1, 0, KS_REVIEW_REJECTED },
		{ 1, 1, "incorrect", NULL, 0, 0, KS_REVIEW_REJECTED },
		{ 1, 1, "ineligible", NULL, 0, 0, KS_REVIEW_INELIGIBLE },
		{ 1, 1, NULL, "candidate", 0, 0, KS_REVIEW_REJECTED },
		{ 1, 1, NULL, "random", 0, 0, KS_REVIEW_REJECTED },
		{ 1, 1, NULL, "process", 0, 0, KS_REVIEW_REJECTED },
		{ 1, 1, NULL, "original", 0, 0, KS_REVIEW_ERROR },
		{ 1, 1, NULL, "timing", 0, 0, KS_REVIEW_ERROR },
		{ 1, 1, NULL, NULL, 0, 0, KS_REVIEW_ERROR },
		/* a metrics-only pass: it ran, by the side it measured */
		{ 1, 1, "measured", NULL, 0, 0, KS_REVIEW_CORRECT },
		{ 0, 1, "measured", NULL, 0, 0, KS_REVIEW_ELIGIBLE },
		{ 1, 1, NULL, "metrics", 0, 0, KS_REVIEW_ERROR },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ks_review_facts f;

		memset(&f, 0, sizeof(f));
		f.has_candidate = cases[i].cand;
		f.compiled = cases[i].compiled;
		f.replay_verdict = cases[i].verdict;
		f.stage = cases[i].stage;
		f.sanitize_asked = cases[i].san_asked;
		f.sanitize_clean = cases[i].san_clean;
		if (ks_review_decide(&f) != cases[i].want)
			fprintf(stderr, "case %zu\n", i);
		CHECK_STR_EQ(ks_review_verdict_name(cases[i].want),
			     ks_review_verdict_name(ks_review_decide(&f)));
	}
	CHECK_INT_EQ(0, ks_review_verdict_exit(KS_REVIEW_ELIGIBLE));
	CHECK_INT_EQ(0, ks_review_verdict_exit(KS_REVIEW_CORRECT));
	CHECK_INT_EQ(1, ks_review_verdict_exit(KS_REVIEW_INELIGIBLE));
	CHECK_INT_EQ(1, ks_review_verdict_exit(KS_REVIEW_REJECTED));
	CHECK_INT_EQ(105, ks_review_verdict_exit(KS_REVIEW_ERROR));
}

TEST(review_combine)
{
	enum ks_review_verdict a[] = { KS_REVIEW_CORRECT, KS_REVIEW_CORRECT };
	enum ks_review_verdict b[] = { KS_REVIEW_CORRECT, KS_REVIEW_INELIGIBLE,
				       KS_REVIEW_ERROR };
	enum ks_review_verdict c[] = { KS_REVIEW_ERROR, KS_REVIEW_REJECTED,
				       KS_REVIEW_CORRECT };
	enum ks_review_verdict d[] = { KS_REVIEW_INELIGIBLE, KS_REVIEW_ELIGIBLE };

	CHECK_INT_EQ(KS_REVIEW_CORRECT, ks_review_combine(a, 2));
	CHECK_INT_EQ(KS_REVIEW_ERROR, ks_review_combine(b, 3));
	CHECK_INT_EQ(KS_REVIEW_REJECTED, ks_review_combine(c, 3));
	CHECK_INT_EQ(KS_REVIEW_INELIGIBLE, ks_review_combine(d, 2));
	CHECK_INT_EQ(KS_REVIEW_ERROR, ks_review_combine(a, 0));
}

/* A request the library cannot use is an error, not a verdict. */
TEST(review_run_needs_a_capture)
{
	struct ks_review_request rq;
	struct ks_review_result res;
	struct ks_buf err = KS_BUF_INIT;

	ks_review_request_init(&rq);
	CHECK_INT_EQ(-1, ks_review_run(&rq, &res, &err));
	CHECK(err.len > 0);
	CHECK_INT_EQ(0, (long long)res.n);
	ks_review_result_release(&res);
	ks_buf_release(&err);
}

/* Racecheck's block sample: which TUs may be sampled, and why not. */
TEST(sample_allowed_only_where_blocks_are_independent)
{
	static const struct {
		const char *src;
		int allowed;
		const char *why;
	} cases[] = {
		{ "__global__ void k(float *x) { __shared__ float t[32];\n"
		  "  t[threadIdx.x] = x[threadIdx.x]; __syncthreads(); }\n", 1, NULL },
		/* cp.async and its wait: asm volatile is the compiler's */
		{ "__device__ void c(void *s, const void *g) {\n"
		  "  asm volatile(\"cp.async.cg.shared.global [%0], [%1], 16;\\n\" ::\n"
		  "    \"r\"(0), \"l\"(g));\n  asm volatile(\"cp.async.wait_all;\\n\" ::: \"memory\"); }\n",
		  1, NULL },
		/* words in comments, strings and directives, host builtins,
		   the block's own fence */
		{ "// atomicAdd(x, 1); volatile\n/* __threadfence() */\n"
		  "#define F atomicAdd\nconst char *m = \"atomicAdd volatile\";\n"
		  "static int h(int *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }\n"
		  "__global__ void k() { __threadfence_block(); int a = 1'000; }\n", 1, NULL },
		{ "__global__ void k(int *c) {\n\n  atomicAdd(c, 1); }\n", 0, "'atomicAdd' at line 3" },
		{ "__global__ void k(int *c) { atomicCAS_block(c, 0, 1); }\n", 0, "'atomicCAS_block'" },
		{ "__global__ void k(cuda::atomic_ref<int> r) {}\n", 0, "'atomic_ref'" },
		{ "__global__ void k(int *c) { __threadfence(); }\n", 0, "'__threadfence'" },
		{ "__global__ void k(volatile int *f) { while (!*f) ; }\n", 0, "'volatile' at line 1" },
		{ "__global__ void k() { cg::this_grid().sync(); }\n", 0, "'this_grid'" },
		{ "__global__ void __cluster_dims__(2, 1, 1) k() {}\n", 0, "'__cluster_dims__'" },
		{ "__global__ void k(int *p) {\n  asm(\"red.global.add.u32 [%0], 1;\" :: \"l\"(p)); }\n",
		  0, "inline PTX with 'red' at line 2" },
		{ "__global__ void k(int *p) { asm volatile(\"atom.global.cas.b32 %0, [%1], 0, 1;\"\n"
		  "  : \"=r\"(*p) : \"l\"(p)); }\n", 0, "inline PTX with 'atom'" },
		{ "__global__ void k(int *p) { int v; asm volatile(\"ld.acquire.gpu.u32 %0, [%1];\"\n"
		  "  : \"=r\"(v) : \"l\"(p)); }\n", 0, "'acquire'" },
	};
	struct ks_buf why = KS_BUF_INIT;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ks_buf_reset(&why);
		if (ks_sample_allowed(cases[i].src, &why) != cases[i].allowed) {
			TEST_FAIL_("case %zu: allowed %d (%s)", i, !cases[i].allowed,
				   why.buf ? why.buf : "");
			break;
		}
		if (cases[i].why)
			CHECK(why.buf && strstr(why.buf, cases[i].why));
	}
	ks_buf_release(&why);
}

/* The guard goes at the top of each definition's body, once, and nowhere
   else; the definition and #line come first. */
TEST(sample_blocks_guards_each_kernel_body)
{
	static const char src[] =
		"#include <cstdio>\n"
		"#define LAUNCH __global__ void m(void) { }\n"
		"/* __global__ void c(void) { } */\n"
		"__global__ void decl(int n);\n"
		"template <int N> __global__ void __launch_bounds__(256, 2)\n"
		"tk(const float *a, float *b, int n = (1 + 2))\n"
		"#if defined(__CUDA_ARCH__)\n"
		"{ b[0] = a[0] * N; }\n"
		"#else\n"
		"{}\n"
		"#endif\n"
		"static const char *s = \"__global__ void q() {\";\n"
		"extern \"C\" __global__ void plain(float *x)\n"
		"{\n\tx[threadIdx.x] = 0;\n}\n";
	struct ks_buf out = KS_BUF_INIT;
	const char *p, *body;
	size_t n = 0;

	CHECK_INT_EQ(2, (int)ks_sample_blocks(src, "/a/k\"1.cu", &out));
	CHECK(strstr(out.buf, "ks_rc_keep(blockIdx.x, gridDim.x)") != NULL);
	body = strstr(out.buf, "#line 1 \"/a/k\\\"1.cu\"\n#include <cstdio>\n");
	CHECK(body != NULL);
	for (p = out.buf; (p = strstr(p, " KS_RC_SAMPLE")) != NULL; p++)
		n += p > body;
	CHECK_INT_EQ(2, (int)n);
	CHECK(strstr(out.buf, "{ KS_RC_SAMPLE b[0] = a[0] * N; }\n#else\n{}\n") != NULL);
	CHECK(strstr(out.buf, "(float *x)\n{ KS_RC_SAMPLE\n\tx[threadIdx.x] = 0;") != NULL);
	CHECK(strstr(out.buf, "__global__ void decl(int n);\n") != NULL);
	/* the rest byte for byte */
	CHECK(strstr(body, "static const char *s = \"__global__ void q() {\";\n") != NULL);
	ks_buf_reset(&out);
	CHECK_INT_EQ(0, (int)ks_sample_blocks("int f(void) { return 0; }\n", "x.cu", &out));
	CHECK(out.len == 0);
	ks_buf_release(&out);
}

/* The guarded TU compiles for sm_90 (where nvcc is). */
TEST(sample_blocks_compiles)
{
	static const char src[] =
		"template <class T> __global__ void __launch_bounds__(128)\n"
		"k(const T *a, T *b, int n)\n{\n"
		"\t__shared__ T t[128];\n\tint i = blockIdx.x * 128 + threadIdx.x;\n"
		"\tt[threadIdx.x] = i < n ? a[i] : T(0);\n\t__syncthreads();\n"
		"\tif (i < n) b[i] = t[127 - threadIdx.x];\n}\n"
		"template __global__ void k<float>(const float *, float *, int);\n"
		"int main(void) { k<float><<<1, 128>>>(0, 0, 0); return 0; }\n";
	const char *dir = test_tmpdir();
	const char *nvcc = "/usr/local/cuda/bin/nvcc";
	struct ks_buf out = KS_BUF_INIT, err = KS_BUF_INIT, log = KS_BUF_INIT;
	char *cu = ks_xasprintf("%s/s.cu", dir), *o = ks_xasprintf("%s/s.o", dir);
	const char *argv[] = { nvcc, "-arch=sm_90", "-c", cu, "-o", o, NULL };
	struct ks_proc p;

	if (access(nvcc, X_OK))
		SKIP("no nvcc at %s", nvcc);
	CHECK_INT_EQ(1, (int)ks_sample_blocks(src, cu, &out));
	CHECK_INT_EQ(0, ks_fs_write_atomic(cu, out.buf, out.len, &err));
	memset(&p, 0, sizeof(p));
	p.argv = argv;
	p.out = &log;
	p.err_out = &log;
	p.timeout_ms = 120000;
	CHECK_INT_EQ(0, ks_proc_run(&p, &err));
	if (p.status)
		fprintf(stderr, "%s\n", log.buf);
	CHECK_INT_EQ(0, p.status);
	ks_buf_release(&out);
	ks_buf_release(&err);
	ks_buf_release(&log);
	free(cu);
	free(o);
}

void
ks_suite_review(void)
{
	RUN(tol_defaults_and_parse);
	RUN(sample_allowed_only_where_blocks_are_independent);
	RUN(sample_blocks_guards_each_kernel_body);
	RUN(sample_blocks_compiles);
	RUN(tol_scale_term_for_cancelled_results);
	RUN(tol_float_elements);
	RUN(tol_nan_and_inf_positions);
	RUN(tol_half_and_bfloat);
	RUN(tol_integers_exact);
	RUN(check_unwritten_must_stay);
	RUN(check_written_tolerance_and_constant);
	RUN(check_passes_agrees);
	RUN(timing_summary);
	RUN(timing_decision);
	RUN(timing_escaped);
	RUN(shim_typed);
	RUN(shim_deduced_namespace_launcher);
	RUN(shim_cooperative_and_rejects);
	RUN(tol_store_round_trip);
	RUN(occupancy_limits);
	RUN(ncu_csv);
	RUN(build_shared_argv);
	RUN(build_object_has);
	RUN(build_so_once);
	RUN(build_so_adds_the_gpus_target);
	RUN(gpulock_readers_writer);
	RUN(review_argv);
	RUN(review_decide);
	RUN(review_combine);
	RUN(review_run_needs_a_capture);
}
