/*
 * ks builds: the compiles ks-nvcc recorded, newest first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/buf.h"
#include "../core/conf.h"
#include "../core/fs.h"
#include "../core/grow.h"
#include "../core/util.h"
#include "../nvcc/record.h"
#include "ks.h"

struct rec {
	char *time, *source, *output, *archs;
	char *text;
};

struct list {
	struct rec *recs;
	size_t n, alloc;
};

static int
cmp_time(const void *a, const void *b)
{
	return strcmp(((const struct rec *)b)->time, ((const struct rec *)a)->time);
}

static char *
or_dash(const char *s)
{
	return ks_xstrdup(s ? s : "-");
}

static int
add_rec(struct ks_build_rec *r, const char *path, const char *why, void *ctx)
{
	struct list *l = ctx;
	struct ks_buf as = KS_BUF_INIT;
	struct rec *x;
	size_t i;

	if (!r) {
		fprintf(stderr, "ks: warning: skipping unreadable record '%s': %s\n",
			path, why);
		return 0;
	}
	l->recs = KS_GROW(l->recs, l->n, &l->alloc);
	x = &l->recs[l->n++];
	x->time = or_dash(r->time);
	x->source = or_dash(r->source);
	x->output = or_dash(r->output);
	for (i = 0; i < r->narchs; i++) {
		const char *s = r->archs[i].real && *r->archs[i].real ? r->archs[i].real :
			r->archs[i].virt ? r->archs[i].virt : "?";

		ks_buf_addf(&as, "%s%s", as.len ? "," : "", s);
	}
	x->archs = ks_buf_detach(&as, NULL);
	x->text = r->text;
	r->text = NULL;
	return 0;
}

int
ks_cmd_builds(int argc, char **argv, struct ks_conf *conf)
{
	int json = argc == 2 && !strcmp(argv[1], "--json");
	struct list l = { NULL, 0, 0 };
	struct rec *recs;
	size_t n, i;

	if (argc > 1 && !json) {
		fprintf(stderr, "usage: ks builds [--json]\n");
		return KS_EXIT_USAGE;
	}
	ks_build_rec_each(conf->dir, add_rec, &l);
	recs = l.recs;
	n = l.n;
	if (n)
		qsort(recs, n, sizeof(*recs), cmp_time);
	if (json)
		printf("[");
	for (i = 0; i < n; i++) {
		if (json)
			printf("%s%s", i ? "," : "", recs[i].text);
		else
			printf("%s  %-10s %s -> %s\n", recs[i].time, recs[i].archs,
			       recs[i].source, recs[i].output);
		free(recs[i].time);
		free(recs[i].source);
		free(recs[i].output);
		free(recs[i].archs);
		free(recs[i].text);
	}
	if (json)
		printf("]\n");
	free(recs);
	return 0;
}
