/*
 * Unit tests for src/agents: the loop end to end with a fake Reviewer and
 * fake transforms (through the task's ops table), and the Diagnoser's
 * rules. The fake Reviewer decides by the candidate's text, as a script:
 *   "wrong"     -> rejected: outputs differ
 *   "alpha p=1" -> does not compile (an nvcc error in the log)
 *   "alpha p=2" -> correct, 8 ms against the original's 10 (a real gain)
 *   "alpha p=3" -> correct, 7.9 ms; "alpha p=4" -> 9 ms
 *   "beta q=1"  -> correct, 9.6 ms (beta gives the same variant for q=2)
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../src/agents/agents.h"
#include "../../src/agents/llm_agents.h"
#include "../../src/analysis/inventory.h"
#include "../../src/core/buf.h"
#include "../../src/core/fs.h"
#include "../../src/core/util.h"
#include "../../src/memory/knowledge.h"
#include "../../src/review/reviewer.h"
#include "../../src/transforms/transform.h"
#include "test.h"

void ks_suite_agents(void);

static enum ks_xf_result
emit(const char *id, const struct ks_transform *t, const struct ks_xf_point *p,
     struct ks_buf *v)
{
	ks_buf_addf(v, "// ks-nvcc: definition\n__global__ void k() { /* %s %s=%lld */ }\n",
		    id, t->params[0].name, p->v[0]);
	return KS_XF_APPLIED;
}

static const struct ks_transform xf_alpha, xf_beta, xf_wrong;

static enum ks_xf_result
alpha(const struct ks_xf_input *in, const struct ks_xf_point *p, struct ks_buf *v,
      struct ks_buf *r)
{
	(void)in, (void)r;
	return emit("alpha", &xf_alpha, p, v);
}

static enum ks_xf_result
beta(const struct ks_xf_input *in, const struct ks_xf_point *p, struct ks_buf *v,
     struct ks_buf *r)
{
	struct ks_xf_point one = *p;

	(void)in, (void)r;
	/* q has no effect on this kernel: q=2 gives q=1's variant */
	one.v[0] = 1;
	return emit("beta", &xf_beta, &one, v);
}

static enum ks_xf_result
wrong(const struct ks_xf_input *in, const struct ks_xf_point *p, struct ks_buf *v,
      struct ks_buf *r)
{
	(void)in, (void)p, (void)r;
	ks_buf_adds(v, "// ks-nvcc: definition\n__global__ void k() { /* wrong */ }\n");
	return KS_XF_APPLIED;
}

static enum ks_xf_result
gamma_(const struct ks_xf_input *in, const struct ks_xf_point *p, struct ks_buf *v,
       struct ks_buf *r)
{
	(void)in, (void)p, (void)v;
	ks_buf_adds(r, "the kernel has no loop to unroll");
	return KS_XF_DECLINED;
}

/* Declines unless it reads an instance view's plain copy. */
static enum ks_xf_result
viewer(const struct ks_xf_input *in, const struct ks_xf_point *p, struct ks_buf *v,
       struct ks_buf *r)
{
	(void)p;
	if (!in->text || !strstr(in->text, "the instance view"))
		return ks_buf_adds(r, "not the instance view"), KS_XF_DECLINED;
	ks_buf_adds(v, "// ks-nvcc: helpers\n__device__ int ks_k_h;\n"
		       "// ks-nvcc: definition\n__global__ void k() { /* viewer */ }\n");
	return KS_XF_APPLIED;
}

/* Declines unless it reads the base of an instance: the view with the
 * viewer's variant in place of the copy. */
static enum ks_xf_result
on_base(const struct ks_xf_input *in, const struct ks_xf_point *p, struct ks_buf *v,
	struct ks_buf *r)
{
	(void)p;
	if (!in->text || !strstr(in->text, "the instance view") ||
	    !strstr(in->text, "/* viewer */"))
		return ks_buf_adds(r, "not the instance's base"), KS_XF_DECLINED;
	ks_buf_adds(v, "// ks-nvcc: helpers\n__device__ int ks_k_h2;\n"
		       "// ks-nvcc: definition\n__global__ void k() { /* on base */ }\n");
	return KS_XF_APPLIED;
}

static const struct ks_transform xf_on_base = {
	.id = "on_base", .summary = "", .precondition = "", .nparams = 0,
	.apply = on_base,
};

static const struct ks_transform xf_viewer = {
	.id = "viewer", .summary = "", .precondition = "", .nparams = 0,
	.apply = viewer,
};

static const struct ks_transform xf_alpha = {
	.id = "alpha", .summary = "", .precondition = "", .nparams = 1,
	.params = { { "p", "", 1, 4, { 1, 2, 3, 4 } } }, .apply = alpha,
};
static const struct ks_transform xf_beta = {
	.id = "beta", .summary = "", .precondition = "", .nparams = 1,
	.params = { { "q", "", 1, 2, { 1, 2 } } }, .apply = beta,
};
static const struct ks_transform xf_wrong = {
	.id = "wrong", .summary = "", .precondition = "", .nparams = 0,
	.apply = wrong,
};
static const struct ks_transform xf_gamma = {
	.id = "gamma", .summary = "", .precondition = "", .nparams = 0,
	.apply = gamma_,
};

struct fake {
	int calls;		/* reviews asked for */
	int die_at;		/* _exit at this call (a kill), 0: never */
	double gpu_ms;		/* each review's time */
	const char *order[8];	/* the plan */
	int seen_twice;		/* a candidate text reviewed twice */
	struct ks_buf reviewed;	/* the texts, one per line */
	int counters;		/* metrics-only passes asked for */
	struct ks_buf measured;	/* their candidates' texts, one per line */
	double planned_dram;	/* m.dram_pct the last plan was made on */
	size_t planned_n;	/* and how many metrics it had */
};

static const struct ks_transform *
fake_transform(void *ctx, const char *id)
{
	static const struct ks_transform *const all[] = { &xf_alpha, &xf_beta,
							  &xf_wrong, &xf_gamma,
							  &xf_viewer, &xf_on_base };
	size_t i;

	(void)ctx;
	for (i = 0; i < KS_ARRAY_SIZE(all); i++)
		if (!strcmp(all[i]->id, id))
			return all[i];
	return NULL;
}

static int
fake_splice(void *ctx, const struct ks_task *t, const char *variant, const char *vname,
	    struct ks_buf *tu, struct ks_buf *err)
{
	(void)ctx, (void)t, (void)vname, (void)err;
	ks_buf_adds(tu, "// the TU\n");
	ks_buf_adds(tu, variant);
	return 0;
}

static int
fake_plan(void *ctx, const struct ks_task *t, size_t n, char *const *names,
	  const double *values, struct ks_agent_plan *out, struct ks_buf *err)
{
	struct fake *f = ctx;
	size_t i;

	(void)t, (void)err;
	f->planned_n = n;
	f->planned_dram = -1;
	for (i = 0; i < n; i++)
		if (!strcmp(names[i], "m.dram_pct"))
			f->planned_dram = values[i];
	for (i = 0; f->order[i]; i++) {
		out->v = ks_xrealloc(out->v, (out->n + 1) * sizeof(*out->v));
		memset(&out->v[out->n], 0, sizeof(*out->v));
		out->v[out->n].id = ks_xstrdup(f->order[i]);
		out->v[out->n].why = ks_xstrdup("f.test (1)");
		out->n++;
	}
	return 0;
}

static void
timed(struct ks_agent_review *o, double orig, double cand)
{
	o->orig.have = o->cand.have = 1;
	o->orig.median = orig;
	o->orig.lo = orig * 0.99;
	o->orig.hi = orig * 1.01;
	o->cand.median = cand;
	o->cand.lo = cand * 0.99;
	o->cand.hi = cand * 1.01;
}

static int
fake_review(void *ctx, const struct ks_task *t, const char *candidate,
	    struct ks_agent_review *o, struct ks_buf *err)
{
	struct fake *f = ctx;
	struct ks_buf text = KS_BUF_INIT;
	char *line;

	(void)t, (void)err;
	memset(o, 0, sizeof(*o));
	f->calls++;
	if (f->die_at && f->calls == f->die_at)
		_exit(9);	/* killed in the middle of a review */
	o->gpu_ms = f->gpu_ms;
	o->compiled = 1;
	if (!candidate) {
		o->verdict = ks_xstrdup("eligible");
		timed(o, 10, 10);
		o->nmetrics = 1;
		o->mnames = ks_xcalloc(1, sizeof(char *));
		o->mvalues = ks_xcalloc(1, sizeof(double));
		o->mnames[0] = ks_xstrdup("m.dram_pct");
		o->mvalues[0] = 20;
		return 0;
	}
	if (ks_fs_read(candidate, &text, err))
		return -1;
	line = strstr(text.buf, "/* ");
	line = line ? ks_xstrndup(line, strcspn(line, "\n")) : ks_xstrdup("?");
	if (strstr(f->reviewed.buf, line))
		f->seen_twice = 1;
	ks_buf_addf(&f->reviewed, "%s\n", line);
	free(line);
	if (strstr(text.buf, "wrong")) {
		o->verdict = ks_xstrdup("rejected");
		o->stage = ks_xstrdup("candidate");
		o->why = ks_xstrdup("3 of 10 f32 elements differ from the reference");
	} else if (strstr(text.buf, "alpha p=1")) {
		o->verdict = ks_xstrdup("rejected");
		o->stage = ks_xstrdup("compile");
		o->compiled = 0;
		o->why = ks_xstrdup("it does not compile: nvcc failed");
		o->log = ks_xstrdup("r2.variant.cu(2): error: identifier \"x\" is undefined\n"
				    "1 error detected\n");
	} else if (strstr(text.buf, "on base")) {
		o->verdict = ks_xstrdup("correct");
		timed(o, 10, 5);
	} else if (strstr(text.buf, "alpha p=2")) {
		o->verdict = ks_xstrdup("correct");
		timed(o, 10, 8);
	} else if (strstr(text.buf, "alpha p=3")) {
		o->verdict = ks_xstrdup("correct");
		timed(o, 10, 7.9);
	} else if (strstr(text.buf, "alpha p=4")) {
		o->verdict = ks_xstrdup("correct");
		timed(o, 10, 9);
	} else {
		const char *q = strstr(text.buf, "q=");

		o->verdict = ks_xstrdup("correct");
		timed(o, 10, 9.5 + (q ? atoi(q + 2) : 0) / 10.0);
	}
	ks_buf_release(&text);
	return 0;
}

/* ops.counters: the candidate's counters (m.dram_pct 55), 0.5 s of GPU. */
static int
fake_counters(void *ctx, const struct ks_task *t, const char *candidate,
	      struct ks_agent_review *o, struct ks_buf *err)
{
	struct fake *f = ctx;
	struct ks_buf text = KS_BUF_INIT;

	(void)t;
	memset(o, 0, sizeof(*o));
	f->counters++;
	if (!candidate || ks_fs_read(candidate, &text, err))
		return -1;
	ks_buf_addf(&f->measured, "%.*s\n", (int)strcspn(strstr(text.buf, "/* ") ?
							   strstr(text.buf, "/* ") : "?", "\n"),
		    strstr(text.buf, "/* ") ? strstr(text.buf, "/* ") : "?");
	ks_buf_release(&text);
	o->verdict = ks_xstrdup("correct");
	o->compiled = 1;
	o->gpu_ms = 500;
	o->cost.s[KS_TRAJ_COST_SETUP] = 0.2;
	o->cost.s[KS_TRAJ_COST_METRICS] = 0.3;
	o->cost.s[KS_TRAJ_COST_COMPILE] = 1.0;
	o->nmetrics = 1;
	o->mnames = ks_xcalloc(1, sizeof(char *));
	o->mvalues = ks_xcalloc(1, sizeof(double));
	o->mnames[0] = ks_xstrdup("m.dram_pct");
	o->mvalues[0] = 55;
	return 0;
}

static void
fake_init(struct fake *f)
{
	memset(f, 0, sizeof(*f));
	f->gpu_ms = 1000;
	f->order[0] = "wrong";
	f->order[1] = "alpha";
	f->order[2] = "gamma";
	f->order[3] = "beta";
	f->reviewed = (struct ks_buf)KS_BUF_INIT;
	f->measured = (struct ks_buf)KS_BUF_INIT;
}

static void
task_setup(struct ks_task *t, struct fake *f, const char *dir)
{
	static const char *const caps[] = { "cap/1", "cap/2" };
	static char text[] = "__global__ void k() {}\n";
	static struct ks_kernel kernel;	/* the fake transforms read nothing */

	ks_task_init(t);
	t->id = "k";
	t->dir = ks_xasprintf("%s/tasks/k", dir);
	t->ks_dir = dir;
	t->kernel = "_Z1kv";
	t->captures = caps;
	t->ncaptures = 2;
	t->text = text;
	t->len = strlen(text);
	t->k = &kernel;
	t->arch = 900;
	t->rounds = 6;
	t->ops.ctx = f;
	t->ops.review = fake_review;
	t->ops.transform = fake_transform;
	t->ops.splice = fake_splice;
	t->ops.plan = fake_plan;
}

static void
task_done(struct ks_task *t)
{
	free((char *)t->dir);
	ks_task_release(t);
}

/* No (parent, skill, params) and no hash reaches the Reviewer twice. */
static int
no_repeats(const struct ks_traj *tr)
{
	size_t i, j;

	for (i = 0; i < tr->n; i++)
		for (j = i + 1; j < tr->n; j++) {
			const struct ks_traj_round *a = &tr->v[i], *b = &tr->v[j];

			if (!a->compile || !b->compile)
				continue;
			if (!strcmp(a->hash, b->hash))
				return 0;
			if (a->parent == b->parent && !strcmp(a->skill, b->skill) &&
			    !strcmp(a->params ? a->params : "", b->params ? b->params : ""))
				return 0;
		}
	return 1;
}

TEST(loop_repairs_rejects_and_never_repeats)
{
	const char *dir = test_tmpdir();
	struct ks_task t;
	struct fake f;
	struct ks_buf err = KS_BUF_INIT;
	struct ks_knowledge k = { 0 };
	const struct ks_traj *tr;

	fake_init(&f);
	task_setup(&t, &f, dir);
	CHECK(ks_agents_run(&t, &err) == 0);
	tr = &t.traj;
	if (getenv("KS_TEST_DUMP")) {
		struct ks_buf d = KS_BUF_INIT;
		for (size_t i = 0; i < tr->n; i++)
			ks_traj_round_json(&tr->v[i], &d);
		fprintf(stderr, "%s\nend %s %s\n", d.buf, ks_task_end_name(t.end), err.buf);
		ks_buf_release(&d);
	}
	CHECK_INT_EQ(KS_TASK_NO_SKILL, t.end);
	CHECK_INT_EQ(4, (int)t.state.reviews);
	CHECK_INT_EQ(5, f.calls);	/* the seed and four candidates */
	/* r1: the wrong candidate is rejected and its skill dropped */
	CHECK_STR_EQ("wrong", tr->v[1].skill);
	CHECK_STR_EQ("rejected", tr->v[1].verdict);
	CHECK_STR_EQ("verdict", tr->v[1].diag.cls);
	/* r2 does not compile; r3 repairs it at the next point, and gains */
	CHECK_STR_EQ("p=1", tr->v[2].params);
	CHECK_STR_EQ("failed", tr->v[2].compile);
	CHECK_STR_EQ("nvcc", tr->v[2].diag.cls);
	CHECK(strstr(tr->v[2].diag.evidence, "identifier") != NULL);
	CHECK_STR_EQ("repair", tr->v[3].phase);
	CHECK_INT_EQ(2, tr->v[3].repairs);
	CHECK_STR_EQ("p=2", tr->v[3].params);
	CHECK(tr->v[3].gain);
	CHECK_INT_EQ(3, t.state.base);
	CHECK_INT_EQ(3, ks_task_best(&t));
	/* on the new base: alpha is in it, so not applied again; the skill
	 * that declines is recorded once; beta's second point gives its first
	 * variant again: seen, not reviewed */
	CHECK_STR_EQ("gamma", tr->v[4].skill);
	CHECK_STR_EQ("declined", tr->v[4].verdict);
	CHECK_INT_EQ(3, tr->v[4].parent);
	CHECK_STR_EQ("q=1", tr->v[5].params);
	CHECK_STR_EQ("correct", tr->v[5].verdict);
	CHECK_STR_EQ("q=2", tr->v[6].params);
	CHECK_STR_EQ("seen", tr->v[6].verdict);
	CHECK_INT_EQ(7, (int)tr->n);
	CHECK(!f.seen_twice);
	CHECK(no_repeats(tr));
	/* every reviewed outcome went to the statistics */
	CHECK(ks_knowledge_load(dir, &k, &err) == 0);
	CHECK_INT_EQ(4, (int)k.n);
	CHECK_STR_EQ("incorrect", k.v[0].result);
	CHECK_STR_EQ("failed", k.v[1].result);
	CHECK_STR_EQ("faster", k.v[2].result);
	ks_knowledge_release(&k);
	ks_buf_release(&f.reviewed);
	ks_buf_release(&err);
	task_done(&t);
}

TEST(loop_resumes_after_a_kill)
{
	const char *dir = test_tmpdir();
	char *ref_dir = ks_xasprintf("%s/ref", dir), *run_dir = ks_xasprintf("%s/run", dir);
	struct ks_task ref, t;
	struct fake f;
	struct ks_buf err = KS_BUF_INIT;
	pid_t pid;
	int status = 0;
	size_t i;

	/* the run nobody interrupts */
	fake_init(&f);
	task_setup(&ref, &f, ref_dir);
	ref.long_term = 0;
	CHECK(ks_agents_run(&ref, &err) == 0);
	ks_buf_release(&f.reviewed);

	/* killed during its fifth review */
	pid = fork();
	CHECK(pid >= 0);
	if (!pid) {
		fake_init(&f);
		f.die_at = 5;
		task_setup(&t, &f, run_dir);
		t.long_term = 0;
		ks_agents_run(&t, &err);
		_exit(0);
	}
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 9);

	fake_init(&f);
	task_setup(&t, &f, run_dir);
	t.long_term = 0;
	CHECK(ks_agents_run(&t, &err) == 0);
	CHECK(t.resumed);
	/* the seed and three candidates were recorded before the kill: only
	 * the rest is reviewed, the one the kill cut short again */
	CHECK_INT_EQ(ref.state.reviews - 3, (size_t)f.calls);
	CHECK_INT_EQ((int)ref.traj.n, (int)t.traj.n);
	for (i = 0; i < t.traj.n; i++) {
		CHECK_STR_EQ(ref.traj.v[i].verdict, t.traj.v[i].verdict);
		CHECK_STR_EQ(ref.traj.v[i].skill ? ref.traj.v[i].skill : "-",
			     t.traj.v[i].skill ? t.traj.v[i].skill : "-");
	}
	CHECK_INT_EQ(ref.state.base, t.state.base);
	CHECK(no_repeats(&t.traj));
	ks_buf_release(&f.reviewed);
	ks_buf_release(&err);
	task_done(&ref);
	task_done(&t);
	free(ref_dir);
	free(run_dir);
}

/* Reviews of the loop under a 5 s budget with these check costs (*n). */
static void
reviews_within(const char *sub, const char *costs, int long_term, size_t *n)
{
	char *dir = ks_xasprintf("%s/%s", test_tmpdir(), sub);
	struct ks_task t;
	struct fake f;
	struct ks_buf err = KS_BUF_INIT;
	fake_init(&f);
	task_setup(&t, &f, dir);
	t.rounds = 15;
	t.gpu_ms = 5000;
	t.long_term = long_term;
	t.check_costs = costs;
	CHECK(ks_agents_run(&t, &err) == 0);
	CHECK_INT_EQ(KS_TASK_GPU_TIME, t.end);
	*n = t.state.reviews;
	ks_buf_release(&f.reviewed);
	ks_buf_release(&f.measured);
	ks_buf_release(&err);
	task_done(&t);
	free(dir);
}

TEST(loop_reserves_what_checks_of_its_skills_cost)
{
	/* checks of a skill in the plan cost 2.5 seeds: after the seed and
	 * one review (2 s), another and the check would end at 5.5 s */
	static const char alpha[] =
		"{\"format\": 1, \"time\": \"2026-12-04T09:00:00Z\", \"kernel\": \"_Z1kv\", "
		"\"skill\": \"alpha\", \"seed_ms\": 1000.000, \"check_ms\": 2500.000}\n"
		"not json\n";
	/* dear checks of a skill the task cannot apply change nothing */
	static const char zeta[] =
		"{\"format\": 1, \"time\": \"2026-12-04T09:00:00Z\", \"kernel\": \"_Z1kv\", "
		"\"skill\": \"zeta\", \"seed_ms\": 1000.000, \"check_ms\": 90000.000}\n";

	size_t n = 0;

	reviews_within("none", NULL, 1, &n);
	CHECK_INT_EQ(2, (int)n);
	reviews_within("alpha", alpha, 1, &n);
	CHECK_INT_EQ(1, (int)n);
	reviews_within("zeta", zeta, 1, &n);
	CHECK_INT_EQ(2, (int)n);
	/* without the long-term memory the statistics are not read */
	reviews_within("noltm", alpha, 0, &n);
	CHECK_INT_EQ(2, (int)n);
}

TEST(loop_stays_within_the_gpu_budget)
{
	const char *dir = test_tmpdir();
	struct ks_task t;
	struct fake f;
	struct ks_buf err = KS_BUF_INIT;

	fake_init(&f);
	task_setup(&t, &f, dir);
	t.rounds = 15;
	/* a seed and reviews of 1 s, the final check reserved at 1.5 s:
	 * after two reviews, a third and the check would end at 5.5 s */
	t.gpu_ms = 5000;
	CHECK(ks_agents_run(&t, &err) == 0);
	CHECK_INT_EQ(KS_TASK_GPU_TIME, t.end);
	CHECK_INT_EQ(2, (int)t.state.reviews);
	CHECK(t.state.gpu_ms + KS_TRAJ_FINAL_PER_SEED * t.state.seed_ms <= t.gpu_ms);
	ks_buf_release(&f.reviewed);
	ks_buf_release(&err);
	task_done(&t);
}

TEST(loop_ends_when_no_skill_is_left)
{
	const char *dir = test_tmpdir();
	struct ks_task t;
	struct fake f;
	struct ks_buf err = KS_BUF_INIT;

	fake_init(&f);
	f.order[0] = "gamma";
	f.order[1] = "wrong";
	f.order[2] = "nonexistent";
	f.order[3] = NULL;
	task_setup(&t, &f, dir);
	t.rounds = 15;
	CHECK(ks_agents_run(&t, &err) == 0);
	CHECK_INT_EQ(KS_TASK_NO_SKILL, t.end);
	CHECK_INT_EQ(1, (int)t.state.reviews);	/* only the wrong one */
	CHECK_INT_EQ(0, ks_task_best(&t));
	CHECK_INT_EQ(2, (int)t.plan.n);	/* no transform: not planned */
	ks_buf_release(&f.reviewed);
	ks_buf_release(&err);
	task_done(&t);
}

/* A template's instance: the transforms read the plain copy in the
 * instance view, and every variant holds the aliases first among its
 * helpers. */
TEST(an_instance_is_transformed_through_its_view)
{
	static char view[] = "template <class T> __global__ void k() {}\n"
			     "/* the instance view */ __global__ void k() {}\n";
	static struct ks_kernel copy;
	const char *dir = test_tmpdir();
	struct ks_task t;
	struct fake f;
	struct ks_buf err = KS_BUF_INIT, v = KS_BUF_INIT;
	char *path;

	fake_init(&f);
	f.order[0] = "viewer";
	f.order[1] = NULL;
	task_setup(&t, &f, dir);
	t.rounds = 2;
	t.inst_args = "float";
	t.inst_k = &copy;
	t.inst_text = view;
	t.inst_len = strlen(view);
	t.inst_aliases = "typedef float ks_tp_k_T;\n";
	CHECK(ks_agents_run(&t, &err) == 0);
	CHECK_INT_EQ(1, (int)t.state.reviews);
	path = ks_xasprintf("%s/r1.variant.cu", t.dir);
	CHECK_INT_EQ(0, ks_fs_read(path, &v, &err));
	CHECK(v.buf && strstr(v.buf, "// ks-nvcc: helpers\ntypedef float ks_tp_k_T;\n"
				     "__device__ int ks_k_h;\n// ks-nvcc: definition\n"));
	free(path);
	ks_buf_release(&v);
	ks_buf_release(&f.reviewed);
	ks_buf_release(&err);
	task_done(&t);
}

/* ops.base_kernel: the base's source must be the view with the base's
 * variant in place of the copy. */
static int
fake_base_kernel(void *ctx, const struct ks_task *t, const char *path,
		 const struct ks_kernel **k, struct ks_buf *err)
{
	static struct ks_kernel base;
	struct ks_buf text = KS_BUF_INIT;
	int ok;

	(void)ctx, (void)t;
	if (ks_fs_read(path, &text, err))
		return -1;
	ok = strstr(text.buf, "template <class T> __global__ void k() {}\n"
			      "/* the instance view */ typedef float ks_tp_k_T;\n"
			      "__device__ int ks_k_h;\n__global__ void k() { /* viewer */ }\n") &&
	     !strstr(text.buf, "__global__ void k() {}\n\n");
	ks_buf_release(&text);
	if (!ok)
		return ks_error(err, "the base's source is not the view with the base");
	*k = &base;
	return 0;
}

/* A round on an instance's base: the transform reads the view with the
 * base in place of the copy, and the aliases stay first, once. */
TEST(an_instance_round_reads_its_base_in_the_view)
{
	static char view[] = "template <class T> __global__ void k() {}\n"
			     "/* the instance view */ __global__ void k() {}\n";
	static struct ks_kernel copy;
	const char *dir = test_tmpdir();
	struct ks_task t;
	struct fake f;
	struct ks_buf err = KS_BUF_INIT, v = KS_BUF_INIT;
	char *path;

	fake_init(&f);
	f.order[0] = "viewer";
	f.order[1] = "on_base";
	f.order[2] = NULL;
	task_setup(&t, &f, dir);
	t.rounds = 3;
	t.ops.base_kernel = fake_base_kernel;
	copy.extent.begin = (size_t)(strstr(view, "*/ ") + 3 - view);
	copy.extent.end = strlen(view) - 1;
	t.inst_args = "float";
	t.inst_k = &copy;
	t.inst_text = view;
	t.inst_len = strlen(view);
	t.inst_aliases = "typedef float ks_tp_k_T;\n";
	CHECK(ks_agents_run(&t, &err) == 0);
	CHECK_INT_EQ(2, (int)t.state.reviews);
	path = ks_xasprintf("%s/r2.variant.cu", t.dir);
	CHECK_INT_EQ(0, ks_fs_read(path, &v, &err));
	CHECK(v.buf && strstr(v.buf, "// ks-nvcc: helpers\ntypedef float ks_tp_k_T;\n"
				     "__device__ int ks_k_h;\n__device__ int ks_k_h2;\n"
				     "// ks-nvcc: definition\n__global__ void k() { /* on base */ }"));
	CHECK(v.buf && !strstr(strstr(v.buf, "typedef float") + 1, "typedef float"));
	CHECK_INT_EQ(2, ks_task_best(&t));
	free(path);
	ks_buf_release(&v);
	ks_buf_release(&f.reviewed);
	ks_buf_release(&err);
	task_done(&t);
}

TEST(without_short_term_memory_the_same_candidate_returns)
{
	const char *dir = test_tmpdir();
	struct ks_task t;
	struct fake f;
	struct ks_buf err = KS_BUF_INIT;

	fake_init(&f);
	f.order[0] = "beta";
	f.order[1] = NULL;
	task_setup(&t, &f, dir);
	t.short_term = 0;
	t.rounds = 3;
	CHECK(ks_agents_run(&t, &err) == 0);
	CHECK_INT_EQ(KS_TASK_ROUNDS, t.end);
	/* the ablation: nothing stops the default point coming back */
	CHECK(f.seen_twice);
	ks_buf_release(&f.reviewed);
	ks_buf_release(&err);
	task_done(&t);
}

TEST(ineligible_kernel_is_reported_with_the_reason)
{
	const char *dir = test_tmpdir();
	struct ks_task t;
	struct fake f;
	struct ks_buf err = KS_BUF_INIT;

	fake_init(&f);
	task_setup(&t, &f, dir);
	f.die_at = 0;
	t.ops.review = NULL;
	CHECK(ks_agents_run(&t, &err) == -1);	/* no Reviewer: refused */
	ks_buf_reset(&err);
	task_done(&t);
	ks_buf_release(&f.reviewed);
	ks_buf_release(&err);
}

TEST(diagnoser_classes)
{
	struct ks_traj_diag d;

	ks_agent_diagnose("compile", "it does not compile",
			  "a.cu(3): error: expected a \";\"\n", 0, &d);
	CHECK_STR_EQ("nvcc", d.cls);
	CHECK_STR_EQ("point", d.next);
	CHECK(strstr(d.evidence, "expected a") != NULL);
	free(d.cls), free(d.what), free(d.evidence), free(d.cause), free(d.fix), free(d.next);

	ks_agent_diagnose("compile", "it does not compile",
			  "ptxas error   : Entry function 'k' uses too much shared data "
			  "(0x12000 bytes, 0xc000 max)\n", 0, &d);
	CHECK_STR_EQ("ptxas", d.cls);
	CHECK_STR_EQ("point", d.next);
	free(d.cls), free(d.what), free(d.evidence), free(d.cause), free(d.fix), free(d.next);

	ks_agent_diagnose("candidate", "launching the candidate: an illegal memory "
			  "access was encountered", NULL, 0, &d);
	CHECK_STR_EQ("runtime", d.cls);
	free(d.cls), free(d.what), free(d.evidence), free(d.cause), free(d.fix), free(d.next);

	ks_agent_diagnose("process", "ks-replay did not finish within 60000 ms and "
			  "was killed", NULL, 0, &d);
	CHECK_STR_EQ("hang", d.cls);
	CHECK_STR_EQ("skill", d.next);
	free(d.cls), free(d.what), free(d.evidence), free(d.cause), free(d.fix), free(d.next);

	ks_agent_diagnose("random", "input set 2: 5 of 100 f32 elements differ from "
			  "the reference", NULL, 0, &d);
	CHECK_STR_EQ("verdict", d.cls);
	CHECK_STR_EQ("skill", d.next);
	free(d.cls), free(d.what), free(d.evidence), free(d.cause), free(d.fix), free(d.next);

	/* the chain: the second repair of one failure class gives up on it */
	ks_agent_diagnose("compile", "x", "b.cu(1): error: y\n", 2, &d);
	CHECK_STR_EQ("nvcc", d.cls);
	CHECK_STR_EQ("skill", d.next);
	free(d.cls), free(d.what), free(d.evidence), free(d.cause), free(d.fix), free(d.next);

	ks_agent_diagnose("candidate", "something new", NULL, 0, &d);
	CHECK_STR_EQ("unknown", d.cls);
	free(d.cls), free(d.what), free(d.evidence), free(d.cause), free(d.fix), free(d.next);
}

TEST(base_source_puts_the_variant_in_place)
{
	const char *text = "#include <x.h>\n__global__ void k(float *a) { a[0] = 1; }\nint main() {}\n";
	const char *variant = "// header\n// ks-nvcc: helpers\n__device__ float h() { return 2; }\n"
			      "// ks-nvcc: definition\n__global__ void k(float *a) { a[0] = h(); }\n";
	struct ks_buf out = KS_BUF_INIT, err = KS_BUF_INIT;
	const char *def = strstr(text, "__global__"), *end = strstr(text, "}\n") + 1;

	CHECK(ks_agent_base_source(text, strlen(text), (size_t)(def - text),
				   (size_t)(end - text), variant, &out, &err) == 0);
	CHECK_STR_EQ("#include <x.h>\n__device__ float h() { return 2; }\n"
		     "__global__ void k(float *a) { a[0] = h(); }\n\nint main() {}\n",
		     out.buf);
	ks_buf_release(&out);
	ks_buf_release(&err);
}

/* A candidate built from the original must be able to beat the base. */
TEST(gain_can_pass)
{
	CHECK_INT_EQ(1, ks_agent_gain_can_pass("small", 1.2));
	CHECK_INT_EQ(0, ks_agent_gain_can_pass("small", 1.5));
	CHECK_INT_EQ(1, ks_agent_gain_can_pass("medium", 1.5));
	CHECK_INT_EQ(0, ks_agent_gain_can_pass("medium", 13.7));
	CHECK_INT_EQ(1, ks_agent_gain_can_pass("large", 13.7));
	CHECK_INT_EQ(1, ks_agent_gain_can_pass(NULL, 13.7));	/* not judged */
}


/* ---- the LLM's replies into variants (llm_agents.c, pure) ------------------ */

static int
llm_variant(const char *reply, struct ks_buf *out, struct ks_buf *why)
{
	ks_buf_reset(out);
	ks_buf_reset(why);
	return ks_agent_llm_variant(reply, "k", out, why);
}

TEST(llm_reply_into_a_variant)
{
	struct ks_buf v = KS_BUF_INIT, why = KS_BUF_INIT;

	/* plain code: helpers before the definition, trailing blanks gone */
	CHECK(llm_variant("Here it is:\n```cuda\n__device__ float h(float x) { return x; }\n\n"
			  "__global__ void k(float *a)   \n{\n\ta[0] = h(1);\n}\n```\nDone.\n",
			  &v, &why) == 0);
	CHECK_STR_EQ("// ks-nvcc variant: written by the LLM\n"
		     "// ks-nvcc: helpers\n__device__ float h(float x) { return x; }\n"
		     "// ks-nvcc: definition\n__global__ void k(float *a)\n{\n\ta[0] = h(1);\n}\n",
		     v.buf);
	/* Section A's snippet first, the variant last; a launcher after it */
	CHECK(llm_variant("A: step 1 is\n```cuda\na[0] = h(1);\n```\nB:\n```cuda\n"
			  "__global__ void k(float *a) { a[0] = 2; }\n"
			  "static void ks_launch_k(dim3 g, dim3 b, size_t s, cudaStream_t st, "
			  "float *a)\n{\n\tk<<<1, 32, 0, st>>>(a);\n}\n```\n", &v, &why) == 0);
	CHECK(strstr(v.buf, "// ks-nvcc: definition\n__global__ void k(float *a) { a[0] = 2; }\n"
			    "// ks-nvcc: launcher\nstatic void ks_launch_k(") != NULL);
	/* the contract's marked parts, as they are */
	CHECK(llm_variant("```\n// ks-nvcc: helpers\n#define TWO 2\n// ks-nvcc: definition\n"
			  "__global__ void k(float *a) { a[0] = TWO; }\n```", &v, &why) == 0);
	CHECK_STR_EQ("// ks-nvcc variant: written by the LLM\n// ks-nvcc: helpers\n#define TWO 2\n"
		     "// ks-nvcc: definition\n__global__ void k(float *a) { a[0] = TWO; }\n", v.buf);
	/* what is no candidate, and why */
	CHECK(llm_variant("I would vectorize the loads.", &v, &why) == -1);
	CHECK(strstr(why.buf, "no code block") != NULL);
	CHECK(llm_variant("```cuda\n__global__ void k(float *a)\n{\n\ta[0] =", &v, &why) == -1);
	CHECK(strstr(why.buf, "cut off") != NULL);
	CHECK(llm_variant("```cuda\n__global__ void other(float *a) { a[0] = 1; }\n```", &v,
			  &why) == -1);
	CHECK(strstr(why.buf, "defines the kernel k") != NULL);
	CHECK(llm_variant("```cuda\n__global__ void k(float *a) { a[0] = 1; }\n"
			  "int main() { k<<<1, 1>>>(0); }\n```", &v, &why) == -1);
	CHECK(strstr(why.buf, "not its launcher ks_launch_k") != NULL);
	CHECK(llm_variant("```cuda\n__global__ void k(float *a) { a[0] = 1; }\n"
			  "static void ks_launch_k(dim3 g, dim3 b, size_t s, cudaStream_t st, "
			  "float *a)\n{\n\tfloat *t; cudaMalloc(&t, 4);\n\tk<<<g, b>>>(a);\n}\n```",
			  &v, &why) == -1);
	CHECK(strstr(why.buf, "calls cudaMalloc") != NULL);
	CHECK(llm_variant("```\n// ks-nvcc: definition\n__global__ void j() {}\n```", &v, &why) == -1);
	CHECK(strstr(why.buf, "does not define the kernel k") != NULL);
	ks_buf_release(&v);
	ks_buf_release(&why);
}

TEST(llm_same_code_is_whitespace_blind)
{
	CHECK(ks_agent_llm_same_code("// ks-nvcc: definition\n__global__ void k() { a = 1; }\n",
				     "// a header\n// ks-nvcc: definition\n__global__ void k()\n{\n"
				     "\ta = 1;\n}\n"));
	CHECK(!ks_agent_llm_same_code("// ks-nvcc: definition\n__global__ void k() { a = 1; }\n",
				      "// ks-nvcc: definition\n__global__ void k() { a = 2; }\n"));
	CHECK(!ks_agent_llm_same_code("// ks-nvcc: definition\n__global__ void k() {}\n",
				      "// ks-nvcc: helpers\nint x;\n// ks-nvcc: definition\n"
				      "__global__ void k() {}\n"));
}

TEST(llm_prompt_fills_each_placeholder_once)
{
	struct ks_buf out = KS_BUF_INIT, err = KS_BUF_INIT;
	const char *names[] = { "source", "id" };
	const char *values[] = { "int a[2][2] = {{1, 2}, {3, 4}}; /* {{plan}} */", "ilp" };

	/* the source's own braces are text, not placeholders */
	CHECK(ks_agent_llm_prompt("t.md", "S: {{source}}\nP: {{plan}}\nI: {{id}}\nG: {{guidance}}\n",
				  NULL, names, values, 2, &out, &err) == 0);
	CHECK_STR_EQ("S: int a[2][2] = {{1, 2}, {3, 4}}; /* {{plan}} */\nP: (none)\nI: ilp\n"
		     "G: (not in the skill library)\n", out.buf);
	ks_buf_reset(&out);
	CHECK(ks_agent_llm_prompt("t.md", "{{nonsense}}", NULL, names, values, 2, &out, &err) == -1);
	CHECK(strstr(err.buf, "unknown placeholder {{nonsense}}") != NULL);
	ks_buf_release(&out);
	ks_buf_release(&err);
}

/*
 * With ops.counters the candidates' reviews carry no counters: the one
 * candidate that moves the base is measured once, in its own record, and
 * the Planner re-plans on those counters; the pass's GPU time and phases
 * are the round's. The record says where the time went, and reads back.
 */
TEST(loop_measures_counters_of_new_bases_only)
{
	const char *dir = test_tmpdir();
	struct ks_task t;
	struct fake f;
	struct ks_buf err = KS_BUF_INIT, line = KS_BUF_INIT;
	struct ks_traj back = { 0 };
	const struct ks_traj *tr;
	size_t i, moved = 0;

	fake_init(&f);
	task_setup(&t, &f, dir);
	t.ops.counters = fake_counters;
	CHECK(ks_agents_run(&t, &err) == 0);
	tr = &t.traj;
	for (i = 1; i < tr->n; i++) {
		if (tr->v[i].gain) {
			moved++;
			CHECK_INT_EQ(1, (long long)tr->v[i].nmetrics);
			CHECK_STR_EQ("m.dram_pct", tr->v[i].mnames[0]);
			CHECK(tr->v[i].mvalues[0] == 55);
			/* the review's second and the pass's half */
			CHECK(tr->v[i].gpu_ms == 1500);
			CHECK(tr->v[i].cost.s[KS_TRAJ_COST_BASE_METRICS] > 0.49 &&
			      tr->v[i].cost.s[KS_TRAJ_COST_BASE_METRICS] < 0.51);
			CHECK(tr->v[i].cost.s[KS_TRAJ_COST_COMPILE] == 1.0);
		} else {
			CHECK_INT_EQ(0, (long long)tr->v[i].nmetrics);
			CHECK(tr->v[i].cost.s[KS_TRAJ_COST_BASE_METRICS] == 0);
		}
	}
	CHECK_INT_EQ(1, (long long)moved);
	CHECK_INT_EQ(1, f.counters);
	CHECK(strstr(f.measured.buf, "alpha p=2") != NULL);
	/* the plan after the move was made on the new base's counters */
	CHECK_INT_EQ(1, (long long)f.planned_n);
	CHECK(f.planned_dram == 55);
	/* the GPU budget counts the pass */
	CHECK(t.state.gpu_ms == 1000.0 * f.calls + 500);
	/* cost: written, read back */
	ks_traj_round_json(&tr->v[t.state.base], &line);
	CHECK(strstr(line.buf, "\"cost\": {\"compile\": 1.000") != NULL);
	CHECK(strstr(line.buf, "\"base-metrics\": 0.500") != NULL);
	CHECK_INT_EQ(0, ks_traj_parse("t", line.buf, &back, NULL, &err));
	CHECK_INT_EQ(1, (long long)back.n);
	CHECK(back.v[0].cost.s[KS_TRAJ_COST_BASE_METRICS] == 0.5);
	CHECK(back.v[0].cost.s[KS_TRAJ_COST_COMPILE] == 1.0);
	CHECK(back.v[0].cost.s[KS_TRAJ_COST_RANDOM] == 0);
	ks_traj_release(&back);
	ks_buf_release(&line);
	ks_buf_release(&f.reviewed);
	ks_buf_release(&f.measured);
	ks_buf_release(&err);
	task_done(&t);
}

/* The cost of one capture's review into the step's, and its GPU part. */
TEST(agent_cost_sums_phases)
{
	struct ks_review_capture c;
	struct ks_traj_cost cost;

	memset(&c, 0, sizeof(c));
	memset(&cost, 0, sizeof(cost));
	c.setup_s = 1.5;
	c.random_s = 6;
	c.metrics_s = 4;
	c.sanitizer_s = 8;
	c.compile_s = 3;
	c.lock_wait_s = 10;
	ks_agent_cost_add(&cost, &c);
	ks_agent_cost_add(&cost, &c);
	CHECK(cost.s[KS_TRAJ_COST_SETUP] == 3 && cost.s[KS_TRAJ_COST_RANDOM] == 12);
	CHECK(cost.s[KS_TRAJ_COST_COMPILE] == 6 && cost.s[KS_TRAJ_COST_LOCK_WAIT] == 20);
	/* the CPU's compile and the waits are no GPU time */
	CHECK(ks_agent_cost_gpu_s(&cost) == 3 + 12 + 8 + 16);
	CHECK_STR_EQ("output-only", ks_traj_cost_name(KS_TRAJ_COST_OUTPUT_ONLY));
	CHECK_INT_EQ(KS_TRAJ_COST_RANDOM, ks_traj_cost_phase_of("random"));
	CHECK_INT_EQ(KS_TRAJ_COST_N, ks_traj_cost_phase_of("nothing"));
}

void
ks_suite_agents(void)
{
	RUN(gain_can_pass);
	RUN(loop_repairs_rejects_and_never_repeats);
	RUN(loop_resumes_after_a_kill);
	RUN(loop_stays_within_the_gpu_budget);
	RUN(loop_reserves_what_checks_of_its_skills_cost);
	RUN(loop_ends_when_no_skill_is_left);
	RUN(an_instance_is_transformed_through_its_view);
	RUN(an_instance_round_reads_its_base_in_the_view);
	RUN(without_short_term_memory_the_same_candidate_returns);
	RUN(ineligible_kernel_is_reported_with_the_reason);
	RUN(diagnoser_classes);
	RUN(base_source_puts_the_variant_in_place);
	RUN(llm_reply_into_a_variant);
	RUN(llm_same_code_is_whitespace_blind);
	RUN(llm_prompt_fills_each_placeholder_once);
	RUN(loop_measures_counters_of_new_bases_only);
	RUN(agent_cost_sums_phases);
}
