/*
 * diagnoser: a failed review -> a structured diagnosis, by rules over the
 * stage, the reason and the build log. Each class names the Repairer's
 * rule: "point" (another parameter point of the same skill may pass: a
 * resource limit, a size the point chose) or "skill" (the skill itself is
 * at fault on this kernel: wrong results, a fault every point shares).
 */
#include "agents.h"

#include <stdlib.h>
#include <string.h>

#include "../core/buf.h"
#include "../core/util.h"

/* Failed candidates of one skill in a row after which its points stop. */
#define DIAG_CHAIN_MAX 2

struct rule {
	const char *cls;
	const char *stage;	/* the stage it needs, or NULL: any */
	const char *const needles[8];	/* in the reason or the log, any */
	const char *what, *cause, *fix, *next;
};

/* First match wins: the specific classes before the general ones. */
static const struct rule rules[] = {
	{ "ptxas", NULL,
	  { "uses too much shared data", "too much shared data",
	    "ptxas error", "ptxas fatal", "registers exceed", NULL },
	  "ptxas refused the variant's device code",
	  "the point asks for more registers or shared memory than the arch has",
	  "a smaller parameter point (fewer threads, a smaller tile)", "point" },
	{ "link", NULL,
	  { "nvlink error", "undefined reference", "multiple definition",
	    "undefined symbol", NULL },
	  "the candidate does not link or load",
	  "a symbol the variant needs is missing or defined twice",
	  "keep helpers static and inside the variant", "skill" },
	{ "nvcc", "compile",
	  { "error", NULL },
	  "nvcc rejected the candidate's source",
	  "the variant's text does not compile in this translation unit",
	  "the next parameter point; the transform's output is a bug to report",
	  "point" },
	{ "hang", NULL,
	  { "timed out", "did not finish", "was killed", NULL },
	  "the candidate did not finish in time",
	  "a loop that does not end for this launch, or a deadlock at a barrier",
	  "the next skill", "skill" },
	{ "runtime", NULL,
	  { "illegal memory access", "misaligned address", "out of bounds",
	    "invalid argument", "too many resources requested", NULL },
	  "the candidate faulted or could not launch",
	  "an access outside its buffers, or a launch the point cannot make",
	  "a smaller parameter point; else the next skill", "point" },
	{ "sanitizer", NULL,
	  { "compute-sanitizer", "racecheck", "memcheck", NULL },
	  "compute-sanitizer found errors in a candidate that passed",
	  "a race or an out-of-bounds access the outputs did not show",
	  "the next skill", "skill" },
	{ "verdict", NULL,
	  { "incorrect", "differ", "mismatch", "tolerance", "leaves alone",
	    "constant where", "misplaced", NULL },
	  "the candidate computes different outputs",
	  "the transform changed what the kernel computes",
	  "the next skill (a transform that claims a kernel must keep it correct)",
	  "skill" },
};

static int
has(const char *hay, const char *needle)
{
	return hay && strstr(hay, needle);
}

/* The first lines of `log` that say "error", joined, at most 3. */
static char *
error_lines(const char *log, const char *why)
{
	struct ks_buf out = KS_BUF_INIT;
	const char *l = log;
	int n = 0;

	while (l && *l && n < 3) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);

		if (len && (memmem(l, len, "error", 5) || memmem(l, len, "ptxas", 5))) {
			if (n++)
				ks_buf_addch(&out, '\n');
			ks_buf_add(&out, l, len < 400 ? len : 400);
		}
		l = nl ? nl + 1 : NULL;
	}
	if (!out.len && why)
		ks_buf_add(&out, why, strlen(why) < 400 ? strlen(why) : 400);
	return ks_buf_detach(&out, NULL);
}

void
ks_agent_diagnose(const char *stage, const char *why, const char *log,
		  size_t chain, struct ks_traj_diag *out)
{
	size_t i, j;
	const struct rule *hit = NULL;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < KS_ARRAY_SIZE(rules) && !hit; i++) {
		const struct rule *r = &rules[i];

		if (r->stage && (!stage || strcmp(stage, r->stage)))
			continue;
		for (j = 0; j < KS_ARRAY_SIZE(r->needles) && r->needles[j]; j++)
			if (has(why, r->needles[j]) || has(log, r->needles[j])) {
				hit = r;
				break;
			}
	}
	if (!hit && stage && !strcmp(stage, "compile"))
		hit = &rules[2];
	out->evidence = error_lines(log, why);
	if (!hit) {
		out->cls = ks_xstrdup("unknown");
		out->what = ks_xstrdup(why && *why ? why : "the candidate failed");
		out->cause = ks_xstrdup("no rule knows this failure");
		out->fix = ks_xstrdup("the next skill");
		out->next = ks_xstrdup("skill");
		return;
	}
	out->cls = ks_xstrdup(hit->cls);
	out->what = ks_xstrdup(hit->what);
	out->cause = ks_xstrdup(hit->cause);
	out->fix = ks_xstrdup(hit->fix);
	/* The chain: a skill whose points keep failing the same way is done. */
	out->next = ks_xstrdup(chain >= DIAG_CHAIN_MAX ? "skill" : hit->next);
}
