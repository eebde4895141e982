/*
 * Unit tests for src/memory/trajectory.c: the records and the rules of
 * the short-term memory.
 */
#include <stdlib.h>
#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/core/util.h"
#include "../../src/memory/trajectory.h"
#include "test.h"

void ks_suite_trajectory(void);

static struct ks_traj_timing
tm(double median, double lo, double hi)
{
	struct ks_traj_timing t = { 1, median, lo, hi };

	return t;
}

/* A reviewed round: skill at params on parent, with a verdict and times. */
static void
add(struct ks_traj *t, int parent, const char *phase, const char *skill,
    const char *params, const char *verdict, const char *hash,
    struct ks_traj_timing orig, struct ks_traj_timing cand)
{
	struct ks_traj_round r;

	ks_traj_round_init(&r);
	r.round = (int)t->n;
	r.parent = parent;
	r.phase = ks_xstrdup(phase);
	r.skill = skill ? ks_xstrdup(skill) : NULL;
	r.params = params ? ks_xstrdup(params) : NULL;
	r.verdict = ks_xstrdup(verdict);
	r.compile = strcmp(phase, "seed") ? ks_xstrdup("ok") : NULL;
	r.hash = hash ? ks_xstrdup(hash) : NULL;
	r.orig = orig;
	r.cand = cand;
	r.gpu_ms = 1000;
	ks_traj_push(t, &r);
}

TEST(gain_needs_spreads_apart_and_the_ratio)
{
	struct ks_traj_timing base = tm(10, 9.5, 10.5);
	struct ks_traj_timing c1 = tm(8, 7.8, 8.2), c2 = tm(9.6, 9.4, 9.8),
			      c3 = tm(9, 8, 9.6), none = { 0, 0, 0, 0 };

	CHECK(ks_traj_is_gain(&base, &c1, 1.05));	/* 1.25x, apart */
	CHECK(!ks_traj_is_gain(&base, &c2, 1.05));	/* 1.04x */
	CHECK(!ks_traj_is_gain(&base, &c3, 1.05));	/* 1.11x, overlapping */
	CHECK(!ks_traj_is_gain(&base, &c1, 1.3));	/* below a set ratio */
	CHECK(!ks_traj_is_gain(&base, &none, 1.05));
	CHECK(!ks_traj_is_gain(&none, &c1, 1.05));
}

TEST(seen_hash_and_repeat_rules)
{
	struct ks_traj t = { 0 };
	struct ks_traj_timing o = tm(10, 9.9, 10.1);

	add(&t, -1, "seed", NULL, NULL, "eligible", NULL, o, o);
	add(&t, 0, "optimize", "vectorize_memory", "vec=4", "correct", "aaaa", o,
	    tm(9, 8.9, 9.1));
	CHECK_INT_EQ(1, ks_traj_seen(&t, "aaaa"));
	CHECK_INT_EQ(-1, ks_traj_seen(&t, "bbbb"));
	CHECK_INT_EQ(-1, ks_traj_seen(&t, NULL));
	/* the same skill, parent and parameters: a repeat */
	CHECK_INT_EQ(1, ks_traj_repeats(&t, 0, "vectorize_memory", "vec=4", NULL));
	/* a stated difference: other parameters, another plan, another parent */
	CHECK_INT_EQ(-1, ks_traj_repeats(&t, 0, "vectorize_memory", "vec=2", NULL));
	CHECK_INT_EQ(-1, ks_traj_repeats(&t, 0, "vectorize_memory", "vec=4",
					 "unroll the tail too"));
	CHECK_INT_EQ(-1, ks_traj_repeats(&t, 1, "vectorize_memory", "vec=4", NULL));
	CHECK_INT_EQ(-1, ks_traj_repeats(&t, 0, "launch_geometry", "vec=4", NULL));
	ks_traj_release(&t);
}

TEST(base_moves_only_on_a_real_gain)
{
	struct ks_traj t = { 0 };
	struct ks_traj_state s;

	add(&t, -1, "seed", NULL, NULL, "eligible", NULL, tm(10, 9.9, 10.1),
	    tm(10, 9.9, 10.1));
	/* 1.03x: no move */
	add(&t, 0, "optimize", "a", "x=1", "correct", "h1", tm(10, 9.9, 10.1),
	    tm(9.7, 9.6, 9.8));
	ks_traj_state(&t, 1.05, &s);
	CHECK_INT_EQ(0, s.base);
	/* 1.25x, apart: moves */
	add(&t, 0, "optimize", "a", "x=2", "correct", "h2", tm(10, 9.9, 10.1),
	    tm(8, 7.9, 8.1));
	ks_traj_state(&t, 1.05, &s);
	CHECK_INT_EQ(2, s.base);
	CHECK_INT_EQ(2, s.best);
	/* faster than the original but not than the base: stays */
	add(&t, 2, "optimize", "b", "", "correct", "h3", tm(10, 9.9, 10.1),
	    tm(7.9, 7.8, 8.0));
	ks_traj_state(&t, 1.05, &s);
	CHECK_INT_EQ(2, s.base);
	/* the GPU ran 20% slower in this review: 8 * 1.2 = 9.6 is the base's
	 * time beside it, and 8.5 is 1.13x of that */
	add(&t, 2, "optimize", "c", "", "correct", "h4", tm(12, 11.9, 12.1),
	    tm(8.5, 8.4, 8.6));
	ks_traj_state(&t, 1.05, &s);
	CHECK_INT_EQ(4, s.base);
	/* a wrong candidate never moves the base, however fast */
	add(&t, 4, "optimize", "d", "", "rejected", "h5", tm(10, 9.9, 10.1),
	    tm(1, 0.9, 1.1));
	ks_traj_state(&t, 1.05, &s);
	CHECK_INT_EQ(4, s.base);
	CHECK_INT_EQ(5, s.open_failure);
	CHECK_INT_EQ(5, (int)s.reviews);
	CHECK(s.gpu_ms > 5999 && s.gpu_ms < 6001);
	CHECK(s.seeded);
	ks_traj_release(&t);
}

TEST(declines_and_seen_hashes_cost_no_round)
{
	struct ks_traj t = { 0 };
	struct ks_traj_state s;
	struct ks_traj_timing none = { 0, 0, 0, 0 };

	add(&t, -1, "seed", NULL, NULL, "eligible", NULL, tm(10, 9.9, 10.1),
	    tm(10, 9.9, 10.1));
	add(&t, 0, "optimize", "a", NULL, "declined", NULL, none, none);
	add(&t, 0, "optimize", "b", "k=1", "seen", "h", none, none);
	ks_traj_state(&t, 1.05, &s);
	CHECK_INT_EQ(0, (int)s.reviews);
	ks_traj_release(&t);
}

TEST(repair_chain_oldest_first)
{
	struct ks_traj t = { 0 };
	struct ks_traj_timing o = tm(10, 9.9, 10.1), none = { 0, 0, 0, 0 };
	int chain[8];
	size_t n;

	add(&t, -1, "seed", NULL, NULL, "eligible", NULL, o, o);
	add(&t, 0, "optimize", "a", "x=1", "rejected", "h1", none, none);
	add(&t, 0, "repair", "a", "x=2", "rejected", "h2", none, none);
	t.v[2].repairs = 1;
	add(&t, 0, "repair", "a", "x=3", "rejected", "h3", none, none);
	t.v[3].repairs = 2;
	n = ks_traj_repair_chain(&t, 3, chain, 8);
	CHECK_INT_EQ(3, (int)n);
	CHECK_INT_EQ(1, chain[0]);
	CHECK_INT_EQ(2, chain[1]);
	CHECK_INT_EQ(3, chain[2]);
	/* a round that did not fail has no chain */
	CHECK_INT_EQ(0, (int)ks_traj_repair_chain(&t, 0, chain, 8));
	ks_traj_release(&t);
}

TEST(records_round_trip_and_an_interrupted_write_is_dropped)
{
	struct ks_traj t = { 0 }, back = { 0 };
	struct ks_buf text = KS_BUF_INIT, err = KS_BUF_INIT;
	int dropped = 0;

	add(&t, -1, "seed", NULL, NULL, "eligible", NULL, tm(1, 0.9, 1.1),
	    tm(1, 0.9, 1.1));
	add(&t, 0, "optimize", "a \"quoted\"", "x=1", "rejected", "h1",
	    tm(1, 0.9, 1.1), tm(2, 1.9, 2.1));
	t.v[1].diag.cls = ks_xstrdup("nvcc");
	t.v[1].diag.evidence = ks_xstrdup("a.cu(3): error: x\nsecond line");
	t.v[1].nmetrics = 1;
	t.v[1].mnames = ks_xcalloc(1, sizeof(char *));
	t.v[1].mvalues = ks_xcalloc(1, sizeof(double));
	t.v[1].mnames[0] = ks_xstrdup("m.dram_pct");
	t.v[1].mvalues[0] = 42.5;
	ks_traj_round_json(&t.v[0], &text);
	ks_traj_round_json(&t.v[1], &text);
	/* the kill came in the middle of the third line */
	ks_buf_adds(&text, "{\"format\": 1, \"round\": 2, \"par");
	CHECK(ks_traj_parse("t", text.buf, &back, &dropped, &err) == 0);
	CHECK_INT_EQ(1, dropped);
	CHECK_INT_EQ(2, (int)back.n);
	CHECK_STR_EQ("a \"quoted\"", back.v[1].skill);
	CHECK_STR_EQ("nvcc", back.v[1].diag.cls);
	CHECK_STR_EQ("a.cu(3): error: x\nsecond line", back.v[1].diag.evidence);
	CHECK_STR_EQ("m.dram_pct", back.v[1].mnames[0]);
	CHECK(back.v[1].mvalues[0] == 42.5);
	CHECK(back.v[1].cand.have && back.v[1].cand.median == 2);
	CHECK_INT_EQ(0, back.v[1].parent);
	/* a broken line in the middle is an error, with its line */
	ks_traj_release(&back);
	ks_buf_reset(&text);
	ks_buf_adds(&text, "{\"round\": 0, \"phase\": \"seed\"}\nnot json\n{}\n");
	CHECK(ks_traj_parse("t", text.buf, &back, NULL, &err) == -1);
	CHECK(strstr(err.buf, "t:2:") != NULL);
	ks_traj_release(&back);
	ks_traj_release(&t);
	ks_buf_release(&text);
	ks_buf_release(&err);
}

TEST(append_then_load_resumes_the_state)
{
	const char *dir = test_tmpdir();
	struct ks_traj t = { 0 }, back = { 0 };
	struct ks_traj_state a, b;
	struct ks_buf err = KS_BUF_INIT;
	char *path = ks_xasprintf("%s/trajectory.jsonl", dir);
	size_t i;

	add(&t, -1, "seed", NULL, NULL, "eligible", NULL, tm(10, 9.9, 10.1),
	    tm(10, 9.9, 10.1));
	add(&t, 0, "optimize", "a", "x=1", "correct", "h1", tm(10, 9.9, 10.1),
	    tm(8, 7.9, 8.1));
	add(&t, 1, "optimize", "b", "", "rejected", "h2", tm(10, 9.9, 10.1), tm(0, 0, 0));
	for (i = 0; i < t.n; i++)
		CHECK(ks_traj_append(path, &t.v[i], &err) == 0);
	CHECK(ks_traj_load(path, &back, &err) == 0);
	CHECK_INT_EQ(3, (int)back.n);
	ks_traj_state(&t, 1.05, &a);
	ks_traj_state(&back, 1.05, &b);
	CHECK_INT_EQ(a.base, b.base);
	CHECK_INT_EQ(1, b.base);
	CHECK_INT_EQ((int)a.reviews, (int)b.reviews);
	CHECK_INT_EQ(2, b.open_failure);
	free(path);
	ks_traj_release(&t);
	ks_traj_release(&back);
	ks_buf_release(&err);
}

TEST(budget_keeps_room_for_a_review_and_the_final_check)
{
	struct ks_traj_state s;

	memset(&s, 0, sizeof(s));
	s.seed_ms = 20e3;	/* the check reserved: 30 s */
	s.max_ms = 50e3;
	s.gpu_ms = 100e3;
	CHECK(ks_traj_budget_allows(&s, 0, 0));
	CHECK(ks_traj_budget_allows(&s, 180e3, 0));
	CHECK(!ks_traj_budget_allows(&s, 179.9e3, 0));
	/* the costliest review, not the last, sets the next one's guess */
	s.gpu_ms = 110e3;
	CHECK(!ks_traj_budget_allows(&s, 180e3, 0));
	/* a seed dearer than every review is the guess after it */
	memset(&s, 0, sizeof(s));
	s.seed_ms = s.max_ms = s.gpu_ms = 60e3;
	CHECK(ks_traj_budget_allows(&s, 210e3, 0));
	CHECK(!ks_traj_budget_allows(&s, 200e3, 0));
	/* checks that cost 10 seeds before: 100 + 10 + 100 s reserved */
	memset(&s, 0, sizeof(s));
	s.seed_ms = 10e3;
	s.max_ms = 10e3;
	s.gpu_ms = 100e3;
	CHECK(ks_traj_budget_allows(&s, 125e3, 0));
	CHECK(!ks_traj_budget_allows(&s, 209.9e3, 10));
	CHECK(ks_traj_budget_allows(&s, 210e3, 10));
	/* a learned ratio below the default does not lower the reserve */
	CHECK(!ks_traj_budget_allows(&s, 124.9e3, 0.5));
}

TEST(state_counts_the_seed_and_the_costliest_review)
{
	struct ks_traj t = { 0 };
	struct ks_traj_state s;

	add(&t, -1, "seed", NULL, NULL, "eligible", NULL, tm(10, 9.9, 10.1),
	    tm(10, 9.9, 10.1));
	add(&t, 0, "optimize", "a", "x=1", "correct", "h1", tm(10, 9.9, 10.1),
	    tm(8, 7.9, 8.1));
	add(&t, 1, "optimize", "b", "", "rejected", "h2", tm(10, 9.9, 10.1), tm(0, 0, 0));
	t.v[0].gpu_ms = 7;
	t.v[1].gpu_ms = 30;
	t.v[2].gpu_ms = 11;
	ks_traj_state(&t, 1.05, &s);
	CHECK(s.seed_ms == 7);
	CHECK(s.max_ms == 30);
	CHECK(s.gpu_ms == 48);
	ks_traj_release(&t);
}

void
ks_suite_trajectory(void)
{
	RUN(gain_needs_spreads_apart_and_the_ratio);
	RUN(seen_hash_and_repeat_rules);
	RUN(base_moves_only_on_a_real_gain);
	RUN(declines_and_seen_hashes_cost_no_round);
	RUN(repair_chain_oldest_first);
	RUN(records_round_trip_and_an_interrupted_write_is_dropped);
	RUN(append_then_load_resumes_the_state);
	RUN(budget_keeps_room_for_a_review_and_the_final_check);
	RUN(state_counts_the_seed_and_the_costliest_review);
}
