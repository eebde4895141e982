/*
 * ks explain: the decision trail of one optimize task, from its
 * trajectory (KS_DIR/tasks/<task>/trajectory.jsonl): for each step the
 * base it worked on, the phase, the skill and why the policy allowed it,
 * the parameters, what the Reviewer said and measured, the diagnosis of a
 * failure, and where the base moved.
 *
 *   ks explain TASK [--json]
 *
 * TASK is the task's name (ks optimize prints it), a capture of the
 * kernel, or a path to the task's folder.
 */
#include "ks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../capture/capture.h"
#include "../core/buf.h"
#include "../core/conf.h"
#include "../core/fs.h"
#include "../core/util.h"
#include "../memory/trajectory.h"

static char *
task_dir_of(const struct ks_conf *conf, const char *arg)
{
	char *p = ks_fs_join(arg, "trajectory.jsonl"), *cap, *kdir = NULL, *d;
	struct ks_capture c;

	if (ks_fs_exists(p)) {
		free(p);
		return ks_xstrdup(arg);
	}
	free(p);
	d = ks_traj_task_dir(conf->dir, arg);
	p = ks_traj_path(d);
	if (ks_fs_exists(p)) {
		free(p);
		return d;
	}
	free(p);
	free(d);
	/* A capture names its kernel's task. */
	memset(&c, 0, sizeof(c));
	cap = ks_capture_find(conf->dir, arg);
	if (cap && !ks_capture_load(cap, &c, NULL))
		kdir = ks_capture_kernel_dir(c.kernel);
	ks_capture_release(&c);
	free(cap);
	if (!kdir)
		return NULL;
	d = ks_traj_task_dir(conf->dir, kdir);
	free(kdir);
	return d;
}

static void
timing(const char *what, const struct ks_traj_timing *t)
{
	if (t->have)
		printf("%s %.4f ms [%.4f, %.4f]", what, t->median, t->lo, t->hi);
}

/* "GPU 28.3 s: setup 3.0, random 6.1, ...; compile 2.1 s on the CPU, 0.4 s
 * waiting for the GPU": where a step's (or a task's) time went. */
static void
print_cost(const char *what, double gpu_ms, const struct ks_traj_cost *c)
{
	size_t i, n = 0;

	printf("%sGPU %.1f s", what, gpu_ms / 1e3);
	for (i = 0; i < KS_TRAJ_COST_N; i++) {
		if (i == KS_TRAJ_COST_COMPILE || i == KS_TRAJ_COST_LOCK_WAIT ||
		    c->s[i] <= 0)
			continue;
		printf("%s%s %.1f", n++ ? ", " : ": ",
		       ks_traj_cost_name((enum ks_traj_cost_phase)i), c->s[i]);
	}
	if (c->s[KS_TRAJ_COST_COMPILE] > 0)
		printf("; compile %.1f s on the CPU", c->s[KS_TRAJ_COST_COMPILE]);
	if (c->s[KS_TRAJ_COST_LOCK_WAIT] > 0)
		printf("; %.1f s waiting for the GPU", c->s[KS_TRAJ_COST_LOCK_WAIT]);
	printf("\n");
}

static void
explain_round(const struct ks_traj *t, const struct ks_traj_round *r)
{
	size_t i;

	printf("round %d  %s", r->round, r->phase);
	if (r->parent == 0)
		printf(" on the original");
	else if (r->parent > 0)
		printf(" on round %d", r->parent);
	if (r->repairs >= 0)
		printf(", repairing round %d", r->repairs);
	printf("\n");
	if (r->skill)
		printf("  skill     %s%s%s (reads the %s)\n", r->skill,
		       r->params && *r->params ? " " : "", r->params ? r->params : "",
		       r->source ? r->source : "original");
	if (r->why)
		printf("  because   %s\n", r->why);
	if (r->plan)
		printf("  plan      %s\n", r->plan);
	if (r->nmetrics && (r->parent < 0 || r->gain)) {
		printf("  metrics  ");
		for (i = 0; i < r->nmetrics; i++)
			printf(" %s=%.4g", r->mnames[i], r->mvalues[i]);
		printf("\n");
	}
	printf("  result    %s", r->verdict ? r->verdict : "?");
	if (r->compile)
		printf(" (compile %s)", r->compile);
	if (r->reason)
		printf(": %s", r->reason);
	printf("\n");
	if (r->orig.have || r->cand.have) {
		printf("  measured ");
		timing(" original", &r->orig);
		if (r->parent >= 0)
			timing(", candidate", &r->cand);
		if (r->speedup > 0 && r->parent >= 0)
			printf(", %.3fx", r->speedup);
		printf("\n");
	}
	if (r->diag.cls) {
		printf("  diagnosis %s: %s\n", r->diag.cls, r->diag.what ? r->diag.what : "");
		if (r->diag.evidence && *r->diag.evidence)
			printf("  evidence  %s\n", r->diag.evidence);
		if (r->diag.cause)
			printf("  cause     %s\n", r->diag.cause);
		if (r->diag.fix)
			printf("  fix       %s (next: %s)\n", r->diag.fix,
			       r->diag.next ? r->diag.next : "?");
	}
	if (r->gain)
		printf("  the base moves here\n");
	if (r->hash && r->file)
		printf("  candidate %s (%s)\n", r->file, r->hash);
	if (r->gpu_ms > 0 || ks_traj_cost_any(&r->cost))
		print_cost("  cost      ", r->gpu_ms, &r->cost);
	(void)t;
}

int
ks_cmd_explain(int argc, char **argv, struct ks_conf *conf)
{
	struct ks_traj t = { 0 };
	struct ks_traj_state s;
	struct ks_buf err = KS_BUF_INIT;
	const char *arg = NULL;
	char *dir = NULL, *path = NULL;
	int json = 0, rc = KS_EXIT_FAILED, i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = 1;
		else if (argv[i][0] != '-' && !arg)
			arg = argv[i];
		else
			arg = NULL, i = argc + 1;
	}
	if (!arg || i > argc) {
		fprintf(stderr, "usage: ks explain TASK [--json]\n");
		return KS_EXIT_USAGE;
	}
	dir = task_dir_of(conf, arg);
	path = dir ? ks_traj_path(dir) : NULL;
	if (!path || !ks_fs_exists(path)) {
		ks_error(&err, "no optimize task '%s' (ks optimize names its tasks)", arg);
		goto fail;
	}
	if (ks_traj_load(path, &t, &err))
		goto fail;
	if (json) {
		struct ks_buf j = KS_BUF_INIT;

		ks_buf_adds(&j, "[");
		for (size_t k = 0; k < t.n; k++) {
			if (k)
				ks_buf_adds(&j, ",\n ");
			ks_traj_round_json(&t.v[k], &j);
			ks_buf_rtrim(&j);
		}
		ks_buf_adds(&j, "]\n");
		fputs(j.buf, stdout);
		ks_buf_release(&j);
	} else {
		double gain = conf->min_gain ? atof(conf->min_gain) : 0;

		printf("task %s (%s)\n\n", ks_basename(dir), dir);
		for (size_t k = 0; k < t.n; k++) {
			explain_round(&t, &t.v[k]);
			printf("\n");
		}
		ks_traj_state(&t, gain >= 1 ? gain : KS_TRAJ_MIN_GAIN, &s);
		{
			struct ks_traj_cost all;

			memset(&all, 0, sizeof(all));
			for (size_t k = 0; k < t.n; k++)
				for (size_t p = 0; p < KS_TRAJ_COST_N; p++)
					all.s[p] += t.v[k].cost.s[p];
			if (ks_traj_cost_any(&all))
				print_cost("cost      ", s.gpu_ms, &all);
		}
		if (s.best)
			printf("best      round %d, %.3fx over the original, after %zu reviews "
			       "(%.1f s of GPU)\n", s.best, t.v[s.best].speedup, s.reviews,
			       s.gpu_ms / 1e3);
		else
			printf("best      the original (no real gain in %zu reviews)\n", s.reviews);
	}
	rc = 0;
	goto out;
fail:
	fprintf(stderr, "ks: error: %s\n", err.buf);
out:
	ks_traj_release(&t);
	ks_buf_release(&err);
	free(dir);
	free(path);
	return rc;
}
