/* Unit tests of the replay's time bounds (review/timing.h), of what
 * review/diagnose.h says about a capture ks cannot fully restore, and of
 * the ks-replay arguments that carry both. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/capture/capture.h"
#include "../../src/core/buf.h"
#include "../../src/core/strv.h"
#include "../../src/review/diagnose.h"
#include "../../src/review/review.h"
#include "../../src/review/timing.h"
#include "test.h"

void ks_suite_bounds(void);

TEST(bound_of_the_original)
{
	/* 50 x 2 ms = 100 ms < the 10 s floor */
	CHECK(ks_bound_original_ms(2000000, 10000, 50) == 10000);
	/* 50 x 1 s = 50 s over the floor */
	CHECK(ks_bound_original_ms(1000000000LL, 10000, 50) == 50000);
	/* unknown duration: the floor */
	CHECK(ks_bound_original_ms(-1, 10000, 50) == 10000);
	CHECK(ks_bound_original_ms(0, 10000, 50) == 10000);
	/* no floor, no factor: no bound */
	CHECK(ks_bound_original_ms(5000000, 0, 0) == 0);
	CHECK(ks_bound_original_ms(-1, 0, 50) == 0);
	CHECK(ks_bound_original_ms(4000000, 0, 50) == 200);
}

TEST(bound_of_a_candidate)
{
	CHECK(ks_bound_candidate_ms(0.05, 10000, 20) == 10000);
	CHECK(ks_bound_candidate_ms(2000, 10000, 20) == 40000);
	CHECK(ks_bound_candidate_ms(-1, 10000, 20) == 10000);
	CHECK(ks_bound_candidate_ms(2000, 0, 0) == 0);
	CHECK_INT_EQ(0, ks_bound_exceeded(9999, 10000));
	CHECK_INT_EQ(1, ks_bound_exceeded(10001, 10000));
	CHECK_INT_EQ(0, ks_bound_exceeded(1e9, 0));
}

TEST(bound_reasons)
{
	struct ks_buf why = KS_BUF_INIT;

	ks_bound_why(0, 10000, 0.052, &why);
	CHECK_STR_EQ("did not finish in 10 s (captured launch took 0.052 ms)", why.buf);
	ks_buf_reset(&why);
	ks_bound_why(0, 50000, -1, &why);
	CHECK_STR_EQ("did not finish in 50 s (the captured launch's duration is unknown)",
		     why.buf);
	ks_buf_reset(&why);
	ks_bound_why(1, 10000, 0.041, &why);
	CHECK_STR_EQ("did not finish in 10 s (the original took 0.041 ms on replay)",
		     why.buf);
	ks_buf_release(&why);
}

TEST(argv_carries_maps_and_bounds)
{
	struct ks_review_opts o;
	struct ks_strv v = KS_STRV_INIT;
	struct ks_buf t = KS_BUF_INIT;
	size_t i;

	memset(&o, 0, sizeof(o));
	o.replay = "ks-replay";
	o.capture = "/c";
	o.original = "/o.so";
	o.original_globals = "/w/original.globals";
	o.candidate_globals = "/w/candidate.globals";
	o.bounds = 1;
	o.bound_min_ms = 10000;
	o.bound_factor = 50;
	o.candidate_factor = 20;
	ks_review_argv(&o, NULL, 0, &v);
	for (i = 0; i < v.n; i++)
		ks_buf_addf(&t, "%s%s", i ? " " : "", v.v[i]);
	/* No candidate: no candidate map. */
	CHECK_STR_EQ("ks-replay --capture /c --original /o.so --original-globals "
		     "/w/original.globals --bound-min-ms 10000 --bound-factor 50 "
		     "--candidate-factor 20", t.buf);
	ks_strv_release(&v);
	ks_strv_init(&v);
	ks_buf_reset(&t);
	o.candidate = "/c.so";
	ks_review_argv(&o, NULL, 1, &v);
	for (i = 0; i < v.n; i++)
		ks_buf_addf(&t, "%s%s", i ? " " : "", v.v[i]);
	/* A candidate run alone (sanitizer, ncu) has its own map, no bounds. */
	CHECK_STR_EQ("ks-replay --capture /c --candidate /c.so --candidate-globals "
		     "/w/candidate.globals --once", t.buf);
	ks_strv_release(&v);
	ks_buf_release(&t);
}

/* A capture of two buffers, a parameter block of three 8-byte words. */
static void
two_buffers(struct ks_capture *c, struct ks_capture_param *p,
	    struct ks_capture_ptr *ptr, struct ks_capture_buffer *b,
	    unsigned char *params)
{
	memset(c, 0, sizeof(*c));
	memset(b, 0, 2 * sizeof(*b));
	memset(p, 0, 3 * sizeof(*p));
	b[0].mem = KS_MEM_DEVICE;
	b[0].base = 0x7f0000000000ull;
	b[0].size = 64;
	b[1].mem = KS_MEM_DEVICE;
	b[1].base = 0x7f0000100000ull;
	b[1].size = 32;
	ptr->at = 0;
	ptr->buffer = 0;
	ptr->offset = 0;
	p[0].offset = 0, p[0].size = 8, p[0].ptrs = ptr, p[0].nptrs = 1;
	p[1].offset = 8, p[1].size = 8;
	p[2].offset = 16, p[2].size = 8;
	memcpy(params, &b[0].base, 8);
	memset(params + 8, 0, 16);
	params[8] = 100;	/* an integer */
	c->buffers = b;
	c->nbuffers = 2;
	c->params = p;
	c->nparams = 3;
	c->param_bytes = params;
	c->param_size = 24;
}

TEST(diagnose_nothing_to_say)
{
	struct ks_capture c;
	struct ks_capture_param p[3];
	struct ks_capture_ptr ptr;
	struct ks_capture_buffer b[2];
	unsigned char params[24], in0[64], in1[32];
	const unsigned char *in[2] = { in0, in1 };
	struct ks_buf out = KS_BUF_INIT;

	two_buffers(&c, p, &ptr, b, params);
	memset(in0, 0, sizeof(in0));
	memset(in1, 0x3f, sizeof(in1));
	CHECK_INT_EQ(0, ks_diagnose_unrestored(&c, in, &out));
	CHECK(!out.len);
	ks_buf_release(&out);
}

TEST(diagnose_stored_and_stray_pointers)
{
	struct ks_capture c;
	struct ks_capture_param p[3];
	struct ks_capture_ptr ptr;
	struct ks_capture_buffer b[2];
	unsigned char params[24], in0[64], in1[32];
	const unsigned char *in[2] = { in0, in1 };
	struct ks_buf out = KS_BUF_INIT;
	char note[] = "a note";
	uint64_t v;

	two_buffers(&c, p, &ptr, b, params);
	memset(in0, 0, sizeof(in0));
	memset(in1, 0, sizeof(in1));
	/* Buffer 0 holds two pointers into buffer 1 (an array of pointers). */
	v = b[1].base + 8;
	memcpy(in0 + 16, &v, 8);
	v = b[1].base + 16;
	memcpy(in0 + 24, &v, 8);
	/* and one to an allocation the capture did not hold */
	v = b[1].base + (1ull << 30);
	memcpy(in0 + 40, &v, 8);
	/* Parameter 2: 0x200 past buffer 0's end, an allocation not captured. */
	v = b[0].base + b[0].size + 0x200;
	memcpy(params + 16, &v, 8);
	c.note = note;
	CHECK_INT_EQ(3, ks_diagnose_unrestored(&c, in, &out));
	CHECK(strstr(out.buf, "buffer 0 holds 3 device addresses of the capture run "
			      "(first at byte 16; 2 into captured buffers, 1 into memory "
			      "the capture did not hold), which dangle on replay") == out.buf);
	CHECK(strstr(out.buf, "; parameter 2 holds 0x7f0000000240, 513 bytes past the "
			      "end of buffer 0: a pointer into memory the capture did "
			      "not hold") != NULL);
	CHECK(strstr(out.buf, "; the capture notes: a note") != NULL);
	/* A known, rebased pointer (parameter 0) and the integer say nothing. */
	CHECK(strstr(out.buf, "parameter 0") == NULL);
	CHECK(strstr(out.buf, "parameter 1") == NULL);
	ks_buf_release(&out);
}

void
ks_suite_bounds(void)
{
	RUN(bound_of_the_original);
	RUN(bound_of_a_candidate);
	RUN(bound_reasons);
	RUN(argv_carries_maps_and_bounds);
	RUN(diagnose_nothing_to_say);
	RUN(diagnose_stored_and_stray_pointers);
}
