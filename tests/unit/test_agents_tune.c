/*
 * Unit tests for the loop's tuner (src/agents/loop.c): after a skill's
 * first point moves the base, its other points are reviewed on the same
 * parent, each competing with the base, until the search's stop rule.
 * The fake Reviewer times "delta d=N" at 9, 7, 9.5 and 9.6 ms against the
 * original's 10; "wrongpt d=2" computes wrong results.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/agents/agents.h"
#include "../../src/analysis/inventory.h"
#include "../../src/core/buf.h"
#include "../../src/core/fs.h"
#include "../../src/core/util.h"
#include "../../src/transforms/transform.h"
#include "test.h"

void ks_suite_agents_tune(void);

static const struct ks_transform xf_delta, xf_wrongpt;

static enum ks_xf_result
apply(const struct ks_transform *x, const struct ks_xf_point *p, struct ks_buf *v)
{
	ks_buf_addf(v, "// ks-nvcc: definition\n__global__ void k() { /* %s d=%lld */ }\n",
		    x->id, p->v[0]);
	return KS_XF_APPLIED;
}

static enum ks_xf_result
delta(const struct ks_xf_input *in, const struct ks_xf_point *p, struct ks_buf *v,
      struct ks_buf *r)
{
	(void)in, (void)r;
	return apply(&xf_delta, p, v);
}

static enum ks_xf_result
wrongpt(const struct ks_xf_input *in, const struct ks_xf_point *p, struct ks_buf *v,
	struct ks_buf *r)
{
	(void)in, (void)r;
	return apply(&xf_wrongpt, p, v);
}

static const struct ks_transform xf_delta = {
	.id = "delta", .summary = "", .precondition = "", .nparams = 1,
	.params = { { "d", "", 1, 4, { 1, 2, 3, 4 } } }, .apply = delta,
};
static const struct ks_transform xf_wrongpt = {
	.id = "wrongpt", .summary = "", .precondition = "", .nparams = 1,
	.params = { { "d", "", 1, 4, { 1, 2, 3, 4 } } }, .apply = wrongpt,
};

struct fake {
	const char *skill;
	int calls;
};

static const struct ks_transform *
fake_transform(void *ctx, const char *id)
{
	(void)ctx;
	if (!strcmp(id, "delta"))
		return &xf_delta;
	if (!strcmp(id, "wrongpt"))
		return &xf_wrongpt;
	return NULL;
}

static int
fake_splice(void *ctx, const struct ks_task *t, const char *variant, const char *vname,
	    struct ks_buf *tu, struct ks_buf *err)
{
	(void)ctx, (void)t, (void)vname, (void)err;
	ks_buf_adds(tu, variant);
	return 0;
}

static int
fake_plan(void *ctx, const struct ks_task *t, size_t n, char *const *names,
	  const double *values, struct ks_agent_plan *out, struct ks_buf *err)
{
	struct fake *f = ctx;

	(void)t, (void)n, (void)names, (void)values, (void)err;
	out->v = ks_xcalloc(1, sizeof(*out->v));
	out->v[0].id = ks_xstrdup(f->skill);
	out->v[0].why = ks_xstrdup("f.test (1)");
	out->n = 1;
	return 0;
}

static void
timed(struct ks_agent_review *o, double cand)
{
	o->orig.have = o->cand.have = 1;
	o->orig.median = 10;
	o->orig.lo = 9.9;
	o->orig.hi = 10.1;
	o->cand.median = cand;
	o->cand.lo = cand * 0.99;
	o->cand.hi = cand * 1.01;
}

static int
fake_review(void *ctx, const struct ks_task *t, const char *candidate,
	    struct ks_agent_review *o, struct ks_buf *err)
{
	static const double ms[] = { 9, 7, 9.5, 9.6 };
	struct fake *f = ctx;
	struct ks_buf text = KS_BUF_INIT;
	const char *d;

	(void)t;
	memset(o, 0, sizeof(*o));
	f->calls++;
	o->gpu_ms = 100;
	o->compiled = 1;
	if (!candidate) {
		o->verdict = ks_xstrdup("eligible");
		timed(o, 10);
		return 0;
	}
	if (ks_fs_read(candidate, &text, err))
		return -1;
	d = strstr(text.buf, "d=");
	if (strstr(text.buf, "wrongpt d=2")) {
		o->verdict = ks_xstrdup("rejected");
		o->stage = ks_xstrdup("candidate");
		o->why = ks_xstrdup("3 of 10 f32 elements differ from the reference");
	} else {
		o->verdict = ks_xstrdup("correct");
		timed(o, ms[(d ? atoi(d + 2) : 1) - 1]);
	}
	ks_buf_release(&text);
	return 0;
}

static void
setup(struct ks_task *t, struct fake *f, const char *dir, const char *skill)
{
	static const char *const caps[] = { "cap/1" };
	static char text[] = "__global__ void k() {}\n";
	static struct ks_kernel kernel;

	memset(f, 0, sizeof(*f));
	f->skill = skill;
	ks_task_init(t);
	t->id = "k";
	t->dir = ks_xasprintf("%s/tasks/k", dir);
	t->ks_dir = dir;
	t->kernel = "_Z1kv";
	t->captures = caps;
	t->ncaptures = 1;
	t->text = text;
	t->len = strlen(text);
	t->k = &kernel;
	t->arch = 900;
	t->rounds = 15;
	t->ops.ctx = f;
	t->ops.review = fake_review;
	t->ops.transform = fake_transform;
	t->ops.splice = fake_splice;
	t->ops.plan = fake_plan;
}

TEST(tuner_reviews_the_winning_skills_other_points)
{
	const char *dir = test_tmpdir();
	struct ks_task t;
	struct fake f;
	struct ks_buf err = KS_BUF_INIT;
	const struct ks_traj *tr;

	setup(&t, &f, dir, "delta");
	CHECK(ks_agents_run(&t, &err) == 0);
	tr = &t.traj;
	CHECK_INT_EQ(KS_TASK_NO_SKILL, t.end);
	/* d=1 moves the base; d=2 on the same parent beats it; d=3 and d=4
	 * do not, and two points without a win stop the search */
	CHECK_INT_EQ(5, (int)tr->n);
	CHECK_STR_EQ("d=1", tr->v[1].params);
	CHECK(tr->v[1].gain);
	CHECK_STR_EQ("d=2", tr->v[2].params);
	CHECK_INT_EQ(0, tr->v[2].parent);
	CHECK(tr->v[2].gain);
	CHECK_STR_EQ("d=3", tr->v[3].params);
	CHECK_INT_EQ(0, tr->v[3].parent);
	CHECK(!tr->v[3].gain);
	CHECK_STR_EQ("d=4", tr->v[4].params);
	CHECK_INT_EQ(2, t.state.base);
	CHECK_INT_EQ(2, ks_task_best(&t));
	CHECK_INT_EQ(5, f.calls);
	ks_buf_release(&err);
	free((char *)t.dir);
	ks_task_release(&t);
}

TEST(tuner_stops_at_a_wrong_point)
{
	const char *dir = test_tmpdir();
	struct ks_task t;
	struct fake f;
	struct ks_buf err = KS_BUF_INIT;
	const struct ks_traj *tr;

	setup(&t, &f, dir, "wrongpt");
	CHECK(ks_agents_run(&t, &err) == 0);
	tr = &t.traj;
	/* d=1 wins, d=2 computes wrong results: no point of it after that */
	CHECK_INT_EQ(3, (int)tr->n);
	CHECK_STR_EQ("rejected", tr->v[2].verdict);
	CHECK_INT_EQ(1, t.state.base);
	ks_buf_release(&err);
	free((char *)t.dir);
	ks_task_release(&t);
}

void
ks_suite_agents_tune(void)
{
	RUN(tuner_reviews_the_winning_skills_other_points);
	RUN(tuner_stops_at_a_wrong_point);
}
