/*
 * ks-replay (replay.h): restore a capture, run the original and a
 * candidate, compare, time, profile. CUDA runtime (shared) for memory and
 * launches through the shims, the driver for modules and attributes.
 */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <errno.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../capture/capture.h"
#include "../../core/buf.h"
#include "../../core/fs.h"
#include "../../core/strv.h"
#include "../../core/util.h"
#include "../diagnose.h"
#include "../fresh.h"
#include "../globals.h"
#include "../metricset.h"
#include "../occupancy.h"
#include "../timing.h"
#include "../gpulock.h"
#include "../tolerance.h"
#include "metrics.h"
#include "replay.h"

#define REPLAY_FORMAT 1
#define WARMUP_RUNS 3
#define MAX_REPS 100000

/* The stages, for the error's "stage" and the seconds each one took. */
static const char *const stage_names[] = {
	"setup", "original", "output-only", "candidate", "random", "timing",
	"metrics",
};
#define NSTAGES (sizeof(stage_names) / sizeof(stage_names[0]))

typedef int (*entry_fn)(void **params, dim3 grid, dim3 block, size_t shmem,
			cudaStream_t s);
typedef int (*function_fn)(void **fn);

struct side {
	const char *label;	/* "original", "candidate" */
	const char *path;
	void *dl;
	entry_fn entry;
	CUfunction fn;
	CUdeviceptr *gaddr;	/* per buffer: this build's copy of a global */
	const char *globals;	/* the map of its globals (globals.h), or NULL */
	char **skip;		/* per buffer: why a global is left alone, or NULL */
	struct ks_strv uses;	/* globals it reaches that the capture lacks */
	int regs, static_smem, driver_blocks;
	struct ks_occ occ;
	double limit_ms;	/* one run's bound (0: none) */
	double best_ms;		/* its fastest plain run, -1 before any */
	char *watch_text;	/* the result left when a run passes the bound */
};

struct opts {
	const char *capture, *original, *candidate, *json;
	const char *original_globals, *candidate_globals;
	unsigned long random, seed, reps;
	double min_ms, max_seconds;
	double bound_min_ms, bound_factor, candidate_factor;
	int time, metrics, once, probe;
	int metrics_only;	/* --metrics-only: counters of one side (the
				 * candidate, else the original), no checks:
				 * a side the review already verified */
	int written_only;	/* output-only detection poisons written buffers only */
	const char *output_only;	/* --output-only: known from an earlier
					 * replay ("-": none), or NULL */
	const char *gpu_lock;	/* --gpu-lock: shared while checking,
				 * exclusive while measuring (gpulock.h) */
};

struct replay {
	struct opts o;
	struct ks_capture cap;
	unsigned char **in, **ref;	/* captured before and after */
	unsigned char **poison;		/* 0xff bytes, for output-only buffers */
	int *written, *output_only;
	CUdeviceptr *dev;		/* fresh allocations (0 for globals) */
	unsigned char *params;		/* relocated parameter bytes */
	void **args;
	struct ks_tol tol[KS_DTYPE_N];
	dim3 grid, block;
	int device;
	struct side orig, cand;
	const char *stage;	/* what was running when an error struck */
	double mark;		/* when the stage began */
	double secs[NSTAGES];	/* seconds spent in each stage */
	long long captured_ns;	/* the captured launch's duration, -1: unknown */
	int unwatched;		/* runs under a profiler: no bound */
	/* Host sets, kept for reuse: at gigabytes, fresh pages and pageable
	 * copies are most of a review's time. Pinned where the driver allows. */
	struct hostset {
		unsigned char **v;
		int pinned, busy;
	} sets[8];
	size_t nsets;
	int in_pinned;		/* in[] and ref[] are registered with the driver */
	struct range {
		int drawn;	/* a float buffer the fresh sets redraw */
		double lo, hi;	/* its captured finite range */
	} *range;		/* per buffer, at the first fresh set */
	unsigned threads;	/* drawing the fresh sets */
	struct ks_gpulock gpu;
};

static int
cu_ok(CUresult r, const char *what, struct ks_buf *err)
{
	const char *s = NULL;

	if (r == CUDA_SUCCESS)
		return 0;
	cuGetErrorString(r, &s);
	return ks_error(err, "%s: %s", what, s ? s : "unknown CUDA error");
}

static int
rt_ok(cudaError_t e, const char *what, struct ks_buf *err)
{
	if (e == cudaSuccess)
		return 0;
	return ks_error(err, "%s: %s", what, cudaGetErrorString(e));
}

static void
usage(void)
{
	fputs("usage: ks-replay --probe\n"
	      "       ks-replay --capture DIR --original ORIG.so [--candidate CAND.so]\n"
	      "                 [--random K] [--seed S] [--time] [--reps N]\n"
	      "                 [--min-ms MS] [--max-seconds S] [--metrics]\n"
	      "                 [--tol DTYPE=ATOL,RTOL[,STOL]]... [--once] [--json FILE]\n"
	      "                 [--original-globals MAP] [--candidate-globals MAP]\n"
	      "                 [--bound-min-ms MS] [--bound-factor F]\n"
	      "                 [--candidate-factor F] [--written-only]\n"
	      "                 [--output-only -|I,J,...] [--gpu-lock PATH]\n"
	      "                 [--metrics-only]\n",
	      stderr);
}

static int
parse_ulong(const char *s, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 10);
	return errno || end == s || *end || *s == '-' ? -1 : 0;
}

static int
parse_args(int argc, char **argv, struct replay *r, struct ks_buf *err)
{
	struct opts *o = &r->o;
	int i;

	o->reps = 20;
	o->min_ms = 200;
	o->max_seconds = 60;
	o->seed = 1;
	o->bound_min_ms = 10000;
	o->bound_factor = 50;
	o->candidate_factor = 20;
	ks_tol_defaults(r->tol);
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		unsigned long n;

		if (!strcmp(a, "--time")) {
			o->time = 1;
		} else if (!strcmp(a, "--metrics")) {
			o->metrics = 1;
		} else if (!strcmp(a, "--once")) {
			o->once = 1;
		} else if (!strcmp(a, "--metrics-only")) {
			o->metrics = o->metrics_only = 1;
		} else if (!strcmp(a, "--probe")) {
			o->probe = 1;
		} else if (!strcmp(a, "--written-only")) {
			o->written_only = 1;
		} else if (!v) {
			return ks_error(err, "'%s' needs a value or is unknown", a);
		} else if (!strcmp(a, "--capture")) {
			o->capture = v, i++;
		} else if (!strcmp(a, "--original")) {
			o->original = v, i++;
		} else if (!strcmp(a, "--candidate")) {
			o->candidate = v, i++;
		} else if (!strcmp(a, "--json")) {
			o->json = v, i++;
		} else if (!strcmp(a, "--original-globals")) {
			o->original_globals = v, i++;
		} else if (!strcmp(a, "--candidate-globals")) {
			o->candidate_globals = v, i++;
		} else if (!strcmp(a, "--output-only")) {
			o->output_only = v, i++;
		} else if (!strcmp(a, "--gpu-lock")) {
			o->gpu_lock = v, i++;
		} else if (!strcmp(a, "--random") || !strcmp(a, "--seed") ||
			   !strcmp(a, "--reps") || !strcmp(a, "--min-ms") ||
			   !strcmp(a, "--max-seconds") || !strcmp(a, "--bound-min-ms") ||
			   !strcmp(a, "--bound-factor") || !strcmp(a, "--candidate-factor")) {
			if (parse_ulong(v, &n))
				return ks_error(err, "%s: '%s' is not a number", a, v);
			i++;
			if (!strcmp(a, "--random"))
				o->random = n;
			else if (!strcmp(a, "--seed"))
				o->seed = n;
			else if (!strcmp(a, "--reps"))
				o->reps = n;
			else if (!strcmp(a, "--min-ms"))
				o->min_ms = (double)n;
			else if (!strcmp(a, "--bound-min-ms"))
				o->bound_min_ms = (double)n;
			else if (!strcmp(a, "--bound-factor"))
				o->bound_factor = (double)n;
			else if (!strcmp(a, "--candidate-factor"))
				o->candidate_factor = (double)n;
			else
				o->max_seconds = (double)n;
		} else if (!strcmp(a, "--tol")) {
			const char *eq = strchr(v, '=');
			char *name = eq ? ks_xstrndup(v, (size_t)(eq - v)) : NULL;
			enum ks_dtype d = ks_dtype_parse(name);
			int bad = !eq || !ks_dtype_is_float(d) ||
				  ks_tol_parse(eq + 1, &r->tol[d], err);

			free(name);
			if (bad)
				return ks_error(err, "--tol: '%s' is not DTYPE=ATOL,RTOL[,STOL] "
						"with DTYPE f64, f32, f16 or bf16", v);
			i++;
		} else {
			return ks_error(err, "unknown option '%s'", a);
		}
	}
	if (o->probe)
		return 0;
	if (!o->capture ||
	    (!o->original && !((o->once || o->metrics_only) && o->candidate)))
		return ks_error(err, "--capture and --original are required");
	return 0;
}

/*
 * The captured launch's duration from launch.json's "duration_ns" (the
 * capture records it where it could measure it), or -1.
 */
static long long
captured_duration_ns(const char *dir)
{
	struct ks_buf text = KS_BUF_INIT;
	char *path = ks_fs_join(dir, "launch.json");
	long long ns = -1;
	cJSON *j;

	text.max = 64u << 20;
	if (!ks_fs_read(path, &text, NULL) && (j = cJSON_Parse(text.buf)) != NULL) {
		const cJSON *d = cJSON_GetObjectItemCaseSensitive(j, "duration_ns");

		if (cJSON_IsNumber(d) && d->valuedouble >= 0)
			ns = (long long)d->valuedouble;
		cJSON_Delete(j);
	}
	free(path);
	ks_buf_release(&text);
	return ns;
}

static int
load(struct replay *r, struct ks_buf *err)
{
	struct ks_capture *c = &r->cap;
	size_t i;

	if (ks_capture_load(r->o.capture, c, err))
		return -1;
	r->captured_ns = captured_duration_ns(r->o.capture);
	r->in = ks_xcalloc(c->nbuffers + 1, sizeof(*r->in));
	r->ref = ks_xcalloc(c->nbuffers + 1, sizeof(*r->ref));
	r->poison = ks_xcalloc(c->nbuffers + 1, sizeof(*r->poison));
	r->written = ks_xcalloc(c->nbuffers + 1, sizeof(*r->written));
	r->output_only = ks_xcalloc(c->nbuffers + 1, sizeof(*r->output_only));
	for (i = 0; i < c->nbuffers; i++) {
		r->in[i] = ks_capture_read_buffer(r->o.capture, c, i, 0, err);
		r->ref[i] = r->in[i] ? ks_capture_read_buffer(r->o.capture, c, i, 1, err)
				     : NULL;
		if (!r->ref[i])
			return -1;
		r->written[i] = memcmp(r->in[i], r->ref[i], c->buffers[i].size) != 0;
	}
	r->grid.x = c->grid[0], r->grid.y = c->grid[1], r->grid.z = c->grid[2];
	r->block.x = c->block[0], r->block.y = c->block[1], r->block.z = c->block[2];
	return 0;
}

/* Fresh allocations and the parameters rebased onto them. */
static int
setup(struct replay *r, struct ks_buf *err)
{
	struct ks_capture *c = &r->cap;
	size_t i, j, ng, *group;
	unsigned long long *goff, *gsize;
	CUdeviceptr *gbase;

	if (rt_ok(cudaSetDevice(0), "cudaSetDevice", err) ||
	    rt_ok(cudaFree(NULL), "initializing CUDA", err) ||
	    rt_ok(cudaGetDevice(&r->device), "cudaGetDevice", err))
		return -1;
	r->dev = ks_xcalloc(c->nbuffers + 1, sizeof(*r->dev));
	/* Neighbors in the program stay neighbors (ks_capture_layout): one
	 * allocation per group, each buffer at its old offset in it. */
	group = ks_xcalloc(c->nbuffers + 1, sizeof(*group));
	goff = ks_xcalloc(c->nbuffers + 1, sizeof(*goff));
	gsize = ks_xcalloc(c->nbuffers + 1, sizeof(*gsize));
	gbase = ks_xcalloc(c->nbuffers + 1, sizeof(*gbase));
	ng = ks_capture_layout(c, KS_CAPTURE_LAYOUT_GAP, group, goff, gsize);
	for (i = 0; i < ng; i++) {
		void *p = NULL;

		if (rt_ok(cudaMalloc(&p, gsize[i] ? gsize[i] : 1), "cudaMalloc", err))
			break;
		gbase[i] = (CUdeviceptr)(uintptr_t)p;
	}
	for (j = 0; i == ng && j < c->nbuffers; j++)
		if (group[j] != (size_t)-1)
			r->dev[j] = gbase[group[j]] + goff[j];
	free(group);
	free(goff);
	free(gsize);
	free(gbase);
	if (i < ng)
		return -1;
	r->params = ks_xcalloc(c->param_size + 8, 1);
	memcpy(r->params, c->param_bytes, c->param_size);
	r->args = ks_xcalloc(c->nparams + 1, sizeof(*r->args));
	for (i = 0; i < c->nparams; i++) {
		const struct ks_capture_param *p = &c->params[i];

		for (j = 0; j < p->nptrs; j++) {
			unsigned long long v;

			if (c->buffers[p->ptrs[j].buffer].mem == KS_MEM_GLOBAL)
				return ks_error(err, "parameter %zu points into a global", i);
			v = r->dev[p->ptrs[j].buffer] + p->ptrs[j].offset;
			memcpy(r->params + p->offset + p->ptrs[j].at, &v, 8);
		}
		r->args[i] = r->params + p->offset;
	}
	/* Pointers stored in the buffers (arrays of pointers): relocated in
	 * the inputs and in the reference alike. */
	for (i = 0; i < c->nbuffers; i++) {
		if (!c->buffers[i].nptrs)
			continue;
		ks_capture_relocate(c, i, r->in[i], (const unsigned long long *)r->dev);
		ks_capture_relocate(c, i, r->ref[i], (const unsigned long long *)r->dev);
	}
	return 0;
}

/*
 * Read a side's map of globals (globals.h: "<buffer>\t<name>",
 * "<buffer>\t-\t<reason>", "fail\t<buffer>\t<reason>", "uses\t<name>")
 * into names[] (the module's name of each restored buffer) and s->skip.
 */
static int
read_globals_map(struct replay *r, struct side *s, char **names, struct ks_buf *err)
{
	struct ks_buf text = KS_BUF_INIT;
	const char *line;
	int rc = 0;

	text.max = 64u << 20;
	if (ks_fs_read(s->globals, &text, err))
		return ks_error(err, "the %s's map of globals", s->label);
	for (line = text.buf; rc == 0 && *line;) {
		size_t len = strcspn(line, "\n");
		char *l = ks_xstrndup(line, len), *tab = strchr(l, '\t');
		unsigned long i;

		line += len + (line[len] == '\n');
		if (!tab) {
			free(l);
			continue;
		}
		*tab++ = '\0';
		if (!strcmp(l, "uses")) {
			ks_strv_push(&s->uses, tab);
		} else if (!strcmp(l, "fail")) {
			char *why = strchr(tab, '\t');

			rc = ks_error(err, "cannot restore global buffer %s of the capture in "
					   "the %s: %s", tab, s->label, why ? why + 1 : "unknown");
		} else if (!parse_ulong(l, &i) && i < r->cap.nbuffers &&
			   r->cap.buffers[i].mem == KS_MEM_GLOBAL) {
			if (!strncmp(tab, "-\t", 2) || !strcmp(tab, "-")) {
				free(s->skip[i]);
				s->skip[i] = ks_xstrdup(tab[1] ? tab + 2 : "left alone");
			} else {
				free(names[i]);
				names[i] = ks_xstrdup(tab);
			}
		}
		free(l);
	}
	ks_buf_release(&text);
	return rc;
}

static int
open_side(struct replay *r, struct side *s, struct ks_buf *err)
{
	struct ks_capture *c = &r->cap;
	function_fn function;
	void *sym, *fn = NULL;
	CUmodule mod = NULL;
	char **names;
	size_t i;
	int rc, v;

	/* RTLD_LAZY: host functions of the TU that live in other objects of
	 * the program stay unresolved unless called. */
	s->dl = dlopen(s->path, RTLD_LAZY | RTLD_LOCAL);
	if (!s->dl)
		return ks_error(err, "cannot load the %s: %s", s->label, dlerror());
	sym = dlsym(s->dl, "ks_entry");
	if (!sym)
		return ks_error(err, "the %s has no ks_entry", s->label);
	memcpy(&s->entry, &sym, sizeof(s->entry));
	sym = dlsym(s->dl, "ks_entry_function");
	if (!sym)
		return ks_error(err, "the %s has no ks_entry_function", s->label);
	memcpy(&function, &sym, sizeof(function));
	rc = function(&fn);
	if (rc)
		return ks_error(err, "the %s: no kernel function: %s", s->label,
				cudaGetErrorString((cudaError_t)rc));
	s->fn = (CUfunction)fn;
	if (!cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_NUM_REGS, s->fn))
		s->regs = v;
	if (!cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, s->fn))
		s->static_smem = v;
	rc = -1;
	s->gaddr = ks_xcalloc(c->nbuffers + 1, sizeof(*s->gaddr));
	s->skip = ks_xcalloc(c->nbuffers + 1, sizeof(*s->skip));
	names = ks_xcalloc(c->nbuffers + 1, sizeof(*names));
	if (s->globals && read_globals_map(r, s, names, err))
		goto out;
	for (i = 0; i < c->nbuffers; i++) {
		const char *name = names[i] ? names[i] : c->buffers[i].name;
		size_t size = 0;

		if (c->buffers[i].mem != KS_MEM_GLOBAL || s->skip[i])
			continue;
		if (!mod && cu_ok(cuFuncGetModule(&mod, s->fn), "cuFuncGetModule", err))
			goto out;
		if (!cuModuleGetGlobal(&s->gaddr[i], &size, mod, name) &&
		    size == c->buffers[i].size)
			continue;
		s->gaddr[i] = 0;
		if (!s->globals && ks_globals_is_internal(name)) {
			/* No map (no PTX): an internal-linkage name is the program's
			 * main file's, and this build is not that file. */
			s->skip[i] = ks_xstrdup("an internal-linkage name of the captured "
						"program, not found in this build");
			continue;
		}
		if (size)
			ks_error(err, "the %s's global '%s' has %zu bytes, the capture's "
				      "%llu", s->label, name, size, c->buffers[i].size);
		else
			ks_error(err, "the %s has no global '%s' of %llu bytes", s->label,
				 name, c->buffers[i].size);
		goto out;
	}
	rc = 0;
out:
	for (i = 0; i < c->nbuffers; i++)
		free(names[i]);
	free(names);
	return rc;
}

static CUdeviceptr
addr(const struct replay *r, const struct side *s, size_t i)
{
	return r->cap.buffers[i].mem == KS_MEM_GLOBAL ? s->gaddr[i] : r->dev[i];
}

/* A global this side leaves alone (its kernel never reaches it). */
static int
skipped(const struct side *s, size_t i)
{
	return s->skip && s->skip[i];
}

static const unsigned char *
poison_of(struct replay *r, size_t i)
{
	if (!r->poison[i]) {
		r->poison[i] = ks_xmalloc(r->cap.buffers[i].size + 1);
		memset(r->poison[i], 0xff, r->cap.buffers[i].size);
	}
	return r->poison[i];
}

/* Load `inputs` into the buffers `s` sees; poisoned[i]: 0xff bytes. */
static int
set_inputs(struct replay *r, const struct side *s, unsigned char **inputs,
	   const int *poisoned, struct ks_buf *err)
{
	size_t i;

	for (i = 0; i < r->cap.nbuffers; i++) {
		void *dst = (void *)(uintptr_t)addr(r, s, i);
		size_t size = r->cap.buffers[i].size;

		if (skipped(s, i))
			continue;
		if (poisoned && poisoned[i]) {
			if (rt_ok(cudaMemset(dst, 0xff, size), "cudaMemset", err))
				return -1;
		} else if (rt_ok(cudaMemcpy(dst, inputs[i], size, cudaMemcpyHostToDevice),
				 "copying inputs", err)) {
			return -1;
		}
	}
	return 0;
}

static int
get_outputs(struct replay *r, const struct side *s, unsigned char **out,
	    struct ks_buf *err)
{
	size_t i;

	for (i = 0; i < r->cap.nbuffers; i++) {
		if (skipped(s, i)) {
			/* Left alone: it holds what it held before. */
			memcpy(out[i], r->in[i], r->cap.buffers[i].size);
			continue;
		}
		if (rt_ok(cudaMemcpy(out[i], (void *)(uintptr_t)addr(r, s, i),
				     r->cap.buffers[i].size, cudaMemcpyDeviceToHost),
			  "copying outputs", err))
			return -1;
	}
	return 0;
}

static double
now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Hold the GPU alone (measuring) or shared (checking), with --gpu-lock;
 * without it, nothing to do. The wait is the GPU's, not this replay's.
 */
static int
gpu_alone(struct replay *r, int alone, struct ks_buf *err)
{
	double t0 = now_seconds();
	int rc;

	if (!r->o.gpu_lock || r->o.once)
		return 0;
	rc = alone ? ks_gpulock_exclusive(&r->gpu, r->o.gpu_lock, 24 * 3600 * 1000, err)
		   : ks_gpulock_shared(&r->gpu, r->o.gpu_lock, 24 * 3600 * 1000, err);
	r->mark += now_seconds() - t0;
	return rc;
}

/* Enter a stage; the time since the last one goes to that one's account. */
static void
stage(struct replay *r, const char *name)
{
	double t = now_seconds();
	size_t i;

	for (i = 0; r->stage && i < NSTAGES; i++)
		if (!strcmp(r->stage, stage_names[i]))
			r->secs[i] += t - r->mark;
	r->stage = name;
	r->mark = t;
}

static void
json_seconds(struct replay *r, struct ks_buf *j)
{
	size_t i, n = 0;

	stage(r, r->stage);
	ks_buf_adds(j, ",\n \"seconds\": {");
	for (i = 0; i < NSTAGES; i++)
		if (r->secs[i] > 0)
			ks_buf_addf(j, "%s\"%s\": %.3f", n++ ? ", " : "", stage_names[i],
				    r->secs[i]);
	ks_buf_addch(j, '}');
}

/*
 * The watchdog: a run past its side's bound cannot be stopped from inside
 * the process (a kernel runs until it ends), so a thread leaves the result
 * the bound decides and ends the process; the context goes with it.
 */
static struct {
	pthread_mutex_t mu;
	int started;
	double deadline;	/* monotonic seconds, 0: no run watched */
	const char *text;	/* the result to leave */
	const char *json;	/* --json, or NULL: stdout */
	const char *why;
} watch = { PTHREAD_MUTEX_INITIALIZER, 0, 0, NULL, NULL, NULL };

static void *
watch_main(void *arg)
{
	(void)arg;
	for (;;) {
		struct timespec ts = { 0, 20 * 1000 * 1000 };

		nanosleep(&ts, NULL);
		pthread_mutex_lock(&watch.mu);
		if (watch.deadline > 0 && now_seconds() > watch.deadline) {
			if (watch.json)
				ks_fs_write_atomic(watch.json, watch.text, strlen(watch.text),
						   NULL);
			else
				fputs(watch.text, stdout);
			fflush(stdout);
			fprintf(stderr, "ks-replay: the %s did not finish within its "
					"time bound\n", watch.why);
			_exit(3);
		}
		pthread_mutex_unlock(&watch.mu);
	}
	return NULL;
}

/* The result a run of `s` stopped at its bound leaves. */
static void
watch_text(struct replay *r, struct side *s)
{
	struct ks_buf j = KS_BUF_INIT, why = KS_BUF_INIT;
	int cand = s == &r->cand;

	ks_bound_why(cand, s->limit_ms,
		     cand ? r->orig.best_ms :
			    r->captured_ns >= 0 ? (double)r->captured_ns / 1e6 : -1,
		     &why);
	ks_buf_addf(&j, "{\"format\": %d, \"capture\": ", REPLAY_FORMAT);
	ks_buf_add_json_str(&j, r->o.capture);
	ks_buf_adds(&j, ", \"kernel\": ");
	ks_buf_add_json_str(&j, r->cap.kernel);
	ks_buf_addf(&j, ",\n \"bound\": {\"side\": \"%s\", \"limit_ms\": %.3f, "
		       "\"captured_ns\": %lld},\n ", s->label, s->limit_ms,
		    r->captured_ns);
	if (cand) {
		ks_buf_adds(&j, "\"original\": {\"reproduces\": true, \"why\": null},\n "
				"\"candidate\": {\"correct\": false, \"why\": ");
		ks_buf_add_json_str(&j, why.buf);
		ks_buf_adds(&j, "},\n \"verdict\": \"incorrect\", \"error\": null}\n");
	} else {
		ks_buf_adds(&j, "\"original\": {\"reproduces\": false, \"why\": ");
		ks_buf_add_json_str(&j, why.buf);
		ks_buf_adds(&j, "},\n \"verdict\": \"ineligible\", \"error\": null}\n");
	}
	free(s->watch_text);
	s->watch_text = ks_buf_detach(&j, NULL);
	ks_buf_release(&why);
}

/* Watch the run of `s` that starts now (nothing when it has no bound). */
static void
watch_arm(struct replay *r, struct side *s)
{
	if (r->unwatched || r->o.once)
		return;
	if (s == &r->cand && !s->limit_ms)
		s->limit_ms = ks_bound_candidate_ms(r->orig.best_ms, r->o.bound_min_ms,
						    r->o.candidate_factor);
	if (!s->limit_ms)
		return;
	if (!s->watch_text)
		watch_text(r, s);
	pthread_mutex_lock(&watch.mu);
	if (!watch.started) {
		pthread_t t;

		watch.started = !pthread_create(&t, NULL, watch_main, NULL);
		if (watch.started)
			pthread_detach(t);
	}
	watch.text = s->watch_text;
	watch.json = r->o.json;
	watch.why = s->label;
	watch.deadline = now_seconds() + s->limit_ms / 1000;
	pthread_mutex_unlock(&watch.mu);
}

static void
watch_disarm(void)
{
	pthread_mutex_lock(&watch.mu);
	watch.deadline = 0;
	pthread_mutex_unlock(&watch.mu);
}

static int
launch(struct replay *r, const struct side *s, struct ks_buf *err)
{
	int rc = s->entry(r->args, r->grid, r->block, r->cap.shmem, 0);

	if (rc == -1)
		return ks_error(err, "the %s's kernel does not take the captured "
				"parameters (count or sizes differ)", s->label);
	if (rc)
		return ks_error(err, "launching the %s: %s", s->label,
				cudaGetErrorString((cudaError_t)rc));
	return 0;
}

static int
run_once(struct replay *r, struct side *s, struct ks_buf *err)
{
	double start = now_seconds(), ms;
	int rc = 0;

	watch_arm(r, s);
	if (launch(r, s, err) || rt_ok(cudaDeviceSynchronize(), s->label, err) ||
	    rt_ok(cudaGetLastError(), s->label, err))
		rc = -1;
	watch_disarm();
	ms = (now_seconds() - start) * 1000;
	if (!rc && !r->unwatched && (s->best_ms < 0 || ms < s->best_ms))
		s->best_ms = ms;
	return rc;
}

static unsigned char **
host_set_alloc(const struct replay *r, int *pinned)
{
	unsigned char **v = ks_xcalloc(r->cap.nbuffers + 1, sizeof(*v));
	size_t i;

	*pinned = 1;
	for (i = 0; i < r->cap.nbuffers && *pinned; i++) {
		void *p = NULL;

		if (cudaMallocHost(&p, r->cap.buffers[i].size + 1) != cudaSuccess) {
			cudaGetLastError();
			*pinned = 0;
			while (i--)
				cudaFreeHost(v[i]);
			break;
		}
		v[i] = p;
	}
	for (i = 0; !*pinned && i < r->cap.nbuffers; i++)
		v[i] = ks_xmalloc(r->cap.buffers[i].size + 1);
	return v;
}

/* One set of host buffers, a buffer each, from the kept ones if one is free. */
static unsigned char **
host_set(struct replay *r)
{
	struct hostset *h;
	size_t i;

	for (i = 0; i < r->nsets; i++) {
		if (!r->sets[i].busy) {
			r->sets[i].busy = 1;
			return r->sets[i].v;
		}
	}
	if (r->nsets == KS_ARRAY_SIZE(r->sets)) {
		/* Not kept: plain memory, as host_set_free() frees it. */
		unsigned char **v = ks_xcalloc(r->cap.nbuffers + 1, sizeof(*v));

		for (i = 0; i < r->cap.nbuffers; i++)
			v[i] = ks_xmalloc(r->cap.buffers[i].size + 1);
		return v;
	}
	h = &r->sets[r->nsets++];
	h->v = host_set_alloc(r, &h->pinned);
	h->busy = 1;
	return h->v;
}

static void
host_set_drop(const struct replay *r, unsigned char **v, int pinned)
{
	size_t i;

	for (i = 0; v && i < r->cap.nbuffers; i++) {
		if (pinned)
			cudaFreeHost(v[i]);
		else
			free(v[i]);
	}
	free(v);
}

static void
host_set_free(struct replay *r, unsigned char **v)
{
	size_t i;

	for (i = 0; i < r->nsets; i++) {
		if (r->sets[i].v == v) {
			r->sets[i].busy = 0;
			return;
		}
	}
	host_set_drop(r, v, 0);
}

/* Pin the captured states, so that copies from and to them run at full
 * speed; without it they are copied as pageable memory. */
static void
pin_captured(struct replay *r)
{
	size_t i, j;

	for (i = 0; i < r->cap.nbuffers; i++) {
		size_t size = r->cap.buffers[i].size;

		if (size && (cudaHostRegister(r->in[i], size, cudaHostRegisterDefault) !=
				     cudaSuccess ||
			     cudaHostRegister(r->ref[i], size, cudaHostRegisterDefault) !=
				     cudaSuccess)) {
			cudaGetLastError();
			for (j = 0; j <= i; j++) {
				if (!r->cap.buffers[j].size)
					continue;
				cudaHostUnregister(r->in[j]);
				cudaHostUnregister(r->ref[j]);
			}
			cudaGetLastError();
			return;
		}
	}
	r->in_pinned = 1;
}

/*
 * Apply the buffer rules to one run. before[i]: what buffer i held (the
 * poison if poisoned[i]), ref: the reference, got: the run's result,
 * written[i]: the reference run wrote it. Appends a JSON array of per-buffer
 * verdicts to `json` (when not NULL) and the first failure to `why`.
 * Returns the number of failing buffers; with neither `json` nor `why`, 1
 * at the first failing buffer (a yes-or-no question, answered early).
 */
static size_t
check_run(struct replay *r, const struct side *s, unsigned char **before,
	  const int *poisoned, unsigned char **ref, unsigned char **got,
	  const int *written, struct ks_buf *json, struct ks_buf *why)
{
	size_t i, bad = 0;

	if (!json && !why) {
		for (i = 0; i < r->cap.nbuffers; i++) {
			struct ks_check b;

			b.dtype = r->cap.buffers[i].dtype;
			b.size = r->cap.buffers[i].size;
			b.before = poisoned && poisoned[i] ? poison_of(r, i) : before[i];
			b.ref = ref[i];
			b.got = got[i];
			b.written = written[i] || (poisoned && poisoned[i]);
			if (!ks_check_buffer_passes(&b, r->tol))
				return 1;
		}
		return 0;
	}
	if (json)
		ks_buf_addch(json, '[');
	for (i = 0; i < r->cap.nbuffers; i++) {
		struct ks_buf one = KS_BUF_INIT;
		struct ks_check b;
		int ok;

		b.dtype = r->cap.buffers[i].dtype;
		b.size = r->cap.buffers[i].size;
		b.before = poisoned && poisoned[i] ? poison_of(r, i) : before[i];
		b.ref = ref[i];
		b.got = got[i];
		b.written = written[i] || (poisoned && poisoned[i]);
		ok = ks_check_buffer(&b, r->tol, &one);
		if (!ok && skipped(s, i)) {
			ks_buf_reset(&one);
			ks_buf_addf(&one, "the capture saw it change, but the %s leaves it "
					  "alone (%s)", s->label, s->skip[i]);
		}
		if (!ok && !bad++) {
			ks_buf_addf(why, "buffer %zu", i);
			if (r->cap.buffers[i].name)
				ks_buf_addf(why, " (%s)", r->cap.buffers[i].name);
			ks_buf_addf(why, ": %s", one.buf);
		}
		if (json) {
			ks_buf_addf(json, "%s{\"id\": %zu, \"dtype\": \"%s\", \"written\": %s, "
					  "\"poisoned\": %s, \"ok\": %s, ",
				    i ? ", " : "", i, ks_dtype_name(b.dtype),
				    b.written ? "true" : "false",
				    poisoned && poisoned[i] ? "true" : "false",
				    ok ? "true" : "false");
			if (skipped(s, i)) {
				ks_buf_adds(json, "\"left_alone\": ");
				ks_buf_add_json_str(json, s->skip[i]);
				ks_buf_adds(json, ", ");
			}
			ks_buf_adds(json, "\"why\": ");
			if (ok)
				ks_buf_adds(json, "null");
			else
				ks_buf_add_json_str(json, one.buf);
			ks_buf_addch(json, '}');
		}
		ks_buf_release(&one);
	}
	if (json)
		ks_buf_addch(json, ']');
	return bad;
}

/*
 * A buffer is output-only when the original, given it poisoned, still
 * leaves the reference in it (and everywhere else): it never reads what was
 * there. Every allocation is tried, one at a time, written or not: a launch
 * that rewrites the values a buffer already held (the second run of the
 * same kernel) writes it all the same. Globals are tried only when written.
 * A poisoned buffer the kernel reads as indices can make it fault, which
 * ends the context: this runs as stage "output-only", and ks runs the
 * review again with --written-only, where only written buffers are tried.
 */
static int
find_output_only(struct replay *r, struct ks_buf *err)
{
	size_t n = r->cap.nbuffers, i, j;
	unsigned char **got = host_set(r);
	int *mask = ks_xcalloc(n + 1, sizeof(*mask));
	int rc = -1;

	for (i = 0; i < n; i++) {
		if (((r->cap.buffers[i].mem == KS_MEM_GLOBAL || r->o.written_only) &&
		     !r->written[i]) || skipped(&r->orig, i))
			continue;
		/* Poisoned pointers would send the original anywhere. */
		if (r->cap.buffers[i].nptrs)
			continue;
		for (j = 0; j < n; j++)
			mask[j] = j == i;
		if (set_inputs(r, &r->orig, r->in, mask, err) ||
		    run_once(r, &r->orig, err) || get_outputs(r, &r->orig, got, err))
			goto out;
		r->output_only[i] = !check_run(r, &r->orig, r->in, mask, r->ref, got,
					       r->written, NULL, NULL);
	}
	rc = 0;
out:
	host_set_free(r, got);
	free(mask);
	return rc;
}

/* --output-only: "-", or buffer numbers separated by commas. */
static int
known_output_only(struct replay *r, const char *list, struct ks_buf *err)
{
	const char *p = list;

	if (!strcmp(list, "-"))
		return 0;
	while (*p) {
		char *end;
		unsigned long i = strtoul(p, &end, 10);

		if (end == p || i >= r->cap.nbuffers || (*end && *end != ','))
			return ks_error(err, "--output-only: '%s' is not a list of "
					"buffer numbers of this capture", list);
		r->output_only[i] = 1;
		p = *end ? end + 1 : end;
	}
	return 0;
}

/*
 * Fresh inputs: floats redrawn over their captured finite range (fresh.h:
 * the same values, drawn on several threads; each buffer's range computed
 * once, from the captured inputs). An output-only buffer is poisoned, not
 * loaded, so nothing is copied into it.
 */
static void
draw_inputs(struct replay *r, uint64_t *state, unsigned char **inputs)
{
	size_t i;

	if (!r->range) {
		r->range = ks_xcalloc(r->cap.nbuffers + 1, sizeof(*r->range));
		for (i = 0; i < r->cap.nbuffers; i++) {
			enum ks_dtype d = r->cap.buffers[i].dtype;

			r->range[i].drawn = ks_dtype_is_float(d) && !r->output_only[i] &&
				r->cap.buffers[i].mem != KS_MEM_GLOBAL &&
				ks_fresh_range(d, r->in[i], r->cap.buffers[i].size /
							       ks_dtype_size(d),
					       &r->range[i].lo, &r->range[i].hi);
		}
	}
	for (i = 0; i < r->cap.nbuffers; i++) {
		enum ks_dtype d = r->cap.buffers[i].dtype;
		size_t size = r->cap.buffers[i].size;

		if (r->range[i].drawn)
			*state = ks_fresh_draw(d, r->in[i], inputs[i], size / ks_dtype_size(d),
					       r->range[i].lo, r->range[i].hi, *state,
					       r->threads);
		else if (!r->output_only[i])
			memcpy(inputs[i], r->in[i], size);
	}
}

/* The candidate against the original on `k` fresh input sets. */
static size_t
random_sets(struct replay *r, struct ks_buf *why, struct ks_buf *err, int *failed)
{
	unsigned char **inputs = host_set(r), **ref = host_set(r), **got = host_set(r);
	int *written = ks_xcalloc(r->cap.nbuffers + 1, sizeof(*written));
	uint64_t state = r->o.seed;
	size_t k, i, passed = 0;

	*failed = 0;
	for (k = 0; k < r->o.random; k++) {
		struct ks_buf one = KS_BUF_INIT;

		draw_inputs(r, &state, inputs);
		if (set_inputs(r, &r->orig, inputs, r->output_only, err) ||
		    run_once(r, &r->orig, err) || get_outputs(r, &r->orig, ref, err) ||
		    set_inputs(r, &r->cand, inputs, r->output_only, err) ||
		    run_once(r, &r->cand, err) || get_outputs(r, &r->cand, got, err)) {
			*failed = 1;
			break;
		}
		for (i = 0; i < r->cap.nbuffers; i++)
			written[i] = r->output_only[i] ||
				     memcmp(inputs[i], ref[i], r->cap.buffers[i].size);
		if (check_run(r, &r->cand, inputs, r->output_only, ref, got, written, NULL,
			      &one)) {
			if (!why->len)
				ks_buf_addf(why, "input set %zu: %s", k + 1, one.buf);
		} else {
			passed++;
		}
		ks_buf_release(&one);
	}
	host_set_free(r, inputs);
	host_set_free(r, ref);
	host_set_free(r, got);
	free(written);
	return passed;
}

/*
 * The candidate's outputs checked once more against the reference on the
 * captured inputs: after running it again (`rerun`), or as the last run
 * left them. Returns 1 when they fail (why: `what` and the first failing
 * buffer), else 0; *failed when the run itself failed.
 */
static int
again_check(struct replay *r, int rerun, const char *what, struct ks_buf *why,
	    struct ks_buf *err, int *failed)
{
	unsigned char **got = host_set(r);
	struct ks_buf one = KS_BUF_INIT;
	int bad = 0;

	*failed = 0;
	if ((rerun && (set_inputs(r, &r->cand, r->in, r->output_only, err) ||
		       run_once(r, &r->cand, err))) ||
	    get_outputs(r, &r->cand, got, err)) {
		*failed = 1;
	} else if (check_run(r, &r->cand, r->in, r->output_only, r->ref, got, r->written,
			     NULL, &one)) {
		bad = 1;
		ks_buf_addf(why, "%s: %s", what, one.buf);
	}
	host_set_free(r, got);
	ks_buf_release(&one);
	return bad;
}

struct timer {
	void *scratch;
	size_t scratch_size;
	CUdeviceptr *pristine;	/* device copies of the inputs to restore */
	cudaEvent_t start, stop;
};

/* Restore the inputs a run changes, then evict the L2. */
static int
prepare_run(struct replay *r, const struct side *s, struct timer *t, int rep,
	    struct ks_buf *err)
{
	size_t i;

	for (i = 0; i < r->cap.nbuffers; i++) {
		if (skipped(s, i))
			continue;
		if (r->output_only[i]) {
			/* A run that leaves them alone must not find last run's
			 * results there. */
			if (rt_ok(cudaMemsetAsync((void *)(uintptr_t)addr(r, s, i), 0xff,
						  r->cap.buffers[i].size, 0),
				  "poisoning outputs", err))
				return -1;
			continue;
		}
		if (!r->written[i])
			continue;
		if (rt_ok(cudaMemcpyAsync((void *)(uintptr_t)addr(r, s, i),
					  (void *)(uintptr_t)t->pristine[i],
					  r->cap.buffers[i].size,
					  cudaMemcpyDeviceToDevice, 0),
			  "restoring inputs", err))
			return -1;
	}
	return rt_ok(cudaMemsetAsync(t->scratch, rep & 0xff, t->scratch_size, 0),
		     "flushing the L2", err);
}

/*
 * One timed run: *ms by the events around the launch, *tail_ms how long the
 * GPU stayed busy after the stop event (work on another stream).
 */
static int
timed_run(struct replay *r, struct side *s, struct timer *t, int rep,
	  double *ms, double *tail_ms, struct ks_buf *err)
{
	float f = 0;
	int rc = -1;
	double t1 = 0;

	if (prepare_run(r, s, t, rep, err) ||
	    rt_ok(cudaEventRecord(t->start, 0), "cudaEventRecord", err))
		return -1;
	watch_arm(r, s);
	if (!launch(r, s, err) &&
	    !rt_ok(cudaEventRecord(t->stop, 0), "cudaEventRecord", err) &&
	    !rt_ok(cudaEventSynchronize(t->stop), s->label, err) &&
	    (t1 = now_seconds(), !rt_ok(cudaDeviceSynchronize(), s->label, err)) &&
	    !rt_ok(cudaEventElapsedTime(&f, t->start, t->stop), "cudaEventElapsedTime",
		   err)) {
		*tail_ms = (now_seconds() - t1) * 1000;
		rc = 0;
	}
	watch_disarm();
	*ms = f;
	return rc;
}

/*
 * Time one or two sides interleaved (ABBA order, so that neither always
 * runs second) until each has --reps runs and --min-ms of kernel time, or
 * --max-seconds passed. tail[k]: the median time the GPU stayed busy after
 * side k's stop event. The last side runs once more at the end, as a timed
 * run, so that its outputs are there to check.
 */
static int
time_sides(struct replay *r, struct side **sides, int nsides, struct ks_timing *out,
	   double *tail, size_t *flush_bytes, struct ks_buf *err)
{
	struct timer t;
	struct ks_timing tt;
	double *ms[2] = { NULL, NULL }, *tails[2] = { NULL, NULL }, start = now_seconds();
	double dummy, dtail;
	size_t n[2] = { 0, 0 }, alloc = 1024, i;
	int l2 = 0, rep, k, rc = -1, enough;

	memset(&t, 0, sizeof(t));
	cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, r->device);
	t.scratch_size = (size_t)l2 * 2 > (64u << 20) ? (size_t)l2 * 2 : (64u << 20);
	*flush_bytes = t.scratch_size;
	t.pristine = ks_xcalloc(r->cap.nbuffers + 1, sizeof(*t.pristine));
	if (rt_ok(cudaMalloc(&t.scratch, t.scratch_size), "cudaMalloc", err) ||
	    rt_ok(cudaEventCreate(&t.start), "cudaEventCreate", err) ||
	    rt_ok(cudaEventCreate(&t.stop), "cudaEventCreate", err))
		goto out;
	for (i = 0; i < r->cap.nbuffers; i++) {
		void *p = NULL;

		if (!r->written[i] || r->output_only[i])
			continue;
		if (rt_ok(cudaMalloc(&p, r->cap.buffers[i].size), "cudaMalloc", err) ||
		    rt_ok(cudaMemcpy(p, r->in[i], r->cap.buffers[i].size,
				     cudaMemcpyHostToDevice), "copying inputs", err))
			goto out;
		t.pristine[i] = (CUdeviceptr)(uintptr_t)p;
	}
	for (k = 0; k < nsides; k++) {
		ms[k] = ks_xmalloc(alloc * sizeof(double));
		tails[k] = ks_xmalloc(alloc * sizeof(double));
		if (set_inputs(r, sides[k], r->in, r->output_only, err))
			goto out;
		for (rep = 0; rep < WARMUP_RUNS; rep++)
			if (timed_run(r, sides[k], &t, rep, &dummy, &dtail, err))
				goto out;
	}
	for (rep = 0; rep < MAX_REPS; rep++) {
		for (k = 0; k < nsides; k++) {
			int which = nsides == 2 && (rep & 1) ? 1 - k : k;

			if (n[which] == alloc) {
				alloc *= 2;
				for (i = 0; i < (size_t)nsides; i++) {
					ms[i] = ks_xrealloc(ms[i], alloc * sizeof(double));
					tails[i] = ks_xrealloc(tails[i], alloc * sizeof(double));
				}
			}
			if (timed_run(r, sides[which], &t, rep, &ms[which][n[which]],
				      &tails[which][n[which]], err))
				goto out;
			n[which]++;
		}
		enough = 1;
		for (k = 0; k < nsides; k++) {
			ks_timing_summarize(ms[k], n[k], &out[k]);
			enough &= ks_timing_enough(&out[k], r->o.reps, r->o.min_ms,
						   (now_seconds() - start) * 1000);
		}
		if (enough || now_seconds() - start > r->o.max_seconds)
			break;
	}
	for (k = 0; k < nsides; k++) {
		ks_timing_summarize(tails[k], n[k], &tt);
		tail[k] = tt.median;
	}
	if (timed_run(r, sides[nsides - 1], &t, rep, &dummy, &dtail, err))
		goto out;
	rc = 0;
out:
	for (i = 0; i < r->cap.nbuffers; i++)
		if (t.pristine[i])
			cudaFree((void *)(uintptr_t)t.pristine[i]);
	free(t.pristine);
	if (t.scratch)
		cudaFree(t.scratch);
	if (t.start)
		cudaEventDestroy(t.start);
	if (t.stop)
		cudaEventDestroy(t.stop);
	free(ms[0]);
	free(ms[1]);
	free(tails[0]);
	free(tails[1]);
	return rc;
}

static void
json_timing(struct ks_buf *j, const char *key, const struct ks_timing *t)
{
	ks_buf_addf(j, "\"%s\": {\"n\": %zu, \"median_ms\": %.6f, \"lo_ms\": %.6f, "
		       "\"hi_ms\": %.6f, \"min_ms\": %.6f, \"max_ms\": %.6f, "
		       "\"total_ms\": %.3f}",
		    key, t->n, t->median, t->lo, t->hi, t->min, t->max, t->total);
}

/* Registers, shared memory and occupancy of a side's kernel. */
static void
occupancy(struct replay *r, struct side *s)
{
	struct ks_occ_device d;
	struct ks_occ_kernel k;
	int v;

	memset(&d, 0, sizeof(d));
	cuDeviceGetAttribute(&d.max_threads_sm,
			     CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, r->device);
	cuDeviceGetAttribute(&d.max_blocks_sm,
			     CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, r->device);
	cuDeviceGetAttribute(&d.regs_sm,
			     CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, r->device);
	cuDeviceGetAttribute(&d.smem_sm,
			     CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
			     r->device);
	cuDeviceGetAttribute(&d.smem_reserved_block,
			     CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK, r->device);
	k.threads = (int)(r->block.x * r->block.y * r->block.z);
	k.regs = s->regs;
	k.smem = s->static_smem + (int)r->cap.shmem;
	ks_occupancy(&d, &k, &s->occ);
	if (!cuOccupancyMaxActiveBlocksPerMultiprocessor(&v, s->fn, k.threads,
							  r->cap.shmem))
		s->driver_blocks = v;
}

static void
json_side_static(struct ks_buf *j, const struct side *s)
{
	ks_buf_addf(j, "\"registers\": %d, \"static_smem\": %d, \"occupancy\": "
		       "{\"blocks_per_sm\": %d, \"driver_blocks_per_sm\": %d, "
		       "\"theoretical_pct\": %.1f, \"limiter\": \"%s\", "
		       "\"by_warps\": %d, \"by_registers\": %d, \"by_shared\": %d, "
		       "\"by_blocks\": %d}",
		    s->regs, s->static_smem, s->occ.blocks, s->driver_blocks,
		    s->occ.occupancy_pct, s->occ.limiter ? s->occ.limiter : "",
		    s->occ.by_warps, s->occ.by_regs, s->occ.by_smem, s->occ.by_blocks);
}

struct profiled {
	struct replay *r;
	struct side *s;
};

static int
profiled_run(void *arg)
{
	struct profiled *p = arg;
	struct ks_buf err = KS_BUF_INIT;
	int rc = run_once(p->r, p->s, &err);

	ks_buf_release(&err);
	return rc;
}

static void
metrics_of(struct replay *r, struct side *s, struct ks_buf *j, struct ks_buf *why)
{
	size_t n, i, ranges = 0;
	const struct ks_metric_def *defs = ks_metricset(&n);
	double *values = ks_xcalloc(n, sizeof(*values));
	int *have = ks_xcalloc(n, sizeof(*have)), first = 1;
	struct ks_buf err = KS_BUF_INIT;
	struct profiled p = { r, s };

	r->unwatched = 1;	/* a profiler replays the kernel pass after pass */
	if (set_inputs(r, s, r->in, r->output_only, &err) ||
	    ks_metrics_collect(r->device, profiled_run, &p, values, have, &ranges,
			       &err)) {
		if (!why->len)
			ks_buf_addf(why, "%s: %s", s->label, err.buf);
		ks_buf_addf(j, "\"%s\": null", s->label);
		goto out;
	}
	ks_buf_addf(j, "\"%s\": {\"ranges\": %zu", s->label, ranges);
	for (i = 0; i < n; i++) {
		if (have[i])
			ks_buf_addf(j, ", \"%s\": %.6g", defs[i].name, values[i]);
	}
	ks_buf_adds(j, ", \"unavailable\": [");
	for (i = 0; i < n; i++) {
		if (!have[i]) {
			ks_buf_addf(j, "%s\"%s\"", first ? "" : ", ", defs[i].name);
			first = 0;
		}
	}
	ks_buf_adds(j, "]}");
out:
	free(values);
	free(have);
	ks_buf_release(&err);
}

static int
write_result(const struct replay *r, struct ks_buf *j)
{
	struct ks_buf err = KS_BUF_INIT;
	int rc = 0;

	if (!r->o.json) {
		fputs(j->buf, stdout);
		fflush(stdout);
	} else if (ks_fs_write_atomic(r->o.json, j->buf, j->len, &err)) {
		fprintf(stderr, "ks-replay: error: %s\n", err.buf);
		rc = -1;
	}
	ks_buf_release(&err);
	return rc;
}

/* "; the kernel reaches globals the capture does not hold: a, b". */
static void
uses_clause(const struct replay *r, struct ks_buf *why)
{
	size_t i;

	if (!r->orig.uses.n)
		return;
	ks_buf_adds(why, "; the kernel reaches globals the capture does not hold (their "
			 "values at the launch are unknown): ");
	for (i = 0; i < r->orig.uses.n && i < 3; i++)
		ks_buf_addf(why, "%s%s", i ? ", " : "", r->orig.uses.v[i]);
	if (r->orig.uses.n > 3)
		ks_buf_addf(why, " and %zu more", r->orig.uses.n - 3);
}

static void
json_globals(struct ks_buf *j, const struct replay *r, const struct side *s)
{
	size_t i, restored = 0, left = 0;

	for (i = 0; i < r->cap.nbuffers; i++) {
		if (r->cap.buffers[i].mem != KS_MEM_GLOBAL)
			continue;
		if (skipped(s, i))
			left++;
		else
			restored++;
	}
	ks_buf_addf(j, ", \"globals\": {\"restored\": %zu, \"left_alone\": %zu, "
		       "\"uncaptured\": [", restored, left);
	for (i = 0; i < s->uses.n; i++) {
		ks_buf_adds(j, i ? ", " : "");
		ks_buf_add_json_str(j, s->uses.v[i]);
	}
	ks_buf_adds(j, "]}");
}

/*
 * The original's run failed (a fault, a launch error): ineligible, with
 * the error and what the capture could not restore.
 */
static void
original_failed(struct replay *r, struct ks_buf *j, const struct ks_buf *err)
{
	struct ks_buf why = KS_BUF_INIT, hints = KS_BUF_INIT;

	ks_buf_addf(&why, "the original failed on replay (%s)",
		    err->len ? err->buf : "unknown error");
	if (ks_diagnose_unrestored(&r->cap, (const unsigned char *const *)r->in, &hints))
		ks_buf_addf(&why, "; %s", hints.buf);
	else
		ks_buf_adds(&why, "; every pointer in the parameters points into a "
				  "captured buffer and no buffer holds a device "
				  "address: the kernel reaches memory some other way "
				  "(an address computed or read at run time)");
	uses_clause(r, &why);
	ks_buf_adds(j, "\"original\": {\"so\": ");
	ks_buf_add_json_str(j, r->orig.path);
	json_globals(j, r, &r->orig);
	ks_buf_adds(j, ", \"reproduces\": false, \"failed\": true, \"why\": ");
	ks_buf_add_json_str(j, why.buf);
	ks_buf_adds(j, "},\n \"verdict\": \"ineligible\"");
	ks_buf_release(&why);
	ks_buf_release(&hints);
}

/*
 * The original did not reproduce its capture: run it again on the same
 * inputs and say whether two runs differ from each other (the kernel is not
 * deterministic) or agree (the capture differs from both: something the
 * launch read was not restored). Returns 1 (they agree), 0 (they differ),
 * -1 (the second run failed).
 */
static int
explain_mismatch(struct replay *r, unsigned char **first, struct ks_buf *why)
{
	unsigned char **again = host_set(r);
	struct ks_buf err = KS_BUF_INIT, hints = KS_BUF_INIT;
	size_t i;
	int det = 1;

	if (set_inputs(r, &r->orig, r->in, NULL, &err) || run_once(r, &r->orig, &err) ||
	    get_outputs(r, &r->orig, again, &err)) {
		ks_buf_addf(why, "; a second run of the original failed (%s)", err.buf);
		det = -1;
		goto out;
	}
	for (i = 0; i < r->cap.nbuffers; i++) {
		enum ks_dtype d = r->cap.buffers[i].dtype;
		struct ks_cmp c;

		if (ks_tol_compare(d, again[i], first[i], r->cap.buffers[i].size, &r->tol[d],
				   &c))
			continue;
		det = 0;
		ks_buf_addf(why, "; two runs of the original differ from each other too "
				 "(buffer %zu: %zu of %zu elements, first at %zu",
			    i, c.bad, c.elems ? c.elems : (size_t)r->cap.buffers[i].size,
			    c.first_bad);
		if (ks_dtype_is_float(d))
			ks_buf_addf(why, ": %.9g then %.9g", c.want_first, c.got_first);
		ks_buf_adds(why, "): the kernel is not deterministic (the order of "
				 "floating-point atomics, a race)");
		break;
	}
	if (det) {
		ks_buf_adds(why, "; two runs of the original agree with each other: the "
				 "capture differs from both");
		if (ks_diagnose_unrestored(&r->cap, (const unsigned char *const *)r->in,
					   &hints))
			ks_buf_addf(why, "; %s", hints.buf);
	}
	uses_clause(r, why);
out:
	host_set_free(r, again);
	ks_buf_release(&err);
	ks_buf_release(&hints);
	return det;
}

/* The steps after loading, filling `j`; returns -1 on a replay error. */
static int
review(struct replay *r, struct ks_buf *j, struct ks_buf *err)
{
	unsigned char **got = host_set(r);
	struct ks_buf why = KS_BUF_INIT;
	struct side *sides[2];
	struct ks_timing t[2];
	struct ks_buf cj = KS_BUF_INIT, tj = KS_BUF_INIT;
	double tail[2] = { 0, 0 };
	const char *verdict;
	size_t bad, flush = 0;
	int rc = -1, correct = 1, failed = 0;

	if (r->o.once) {
		struct side *s = r->o.candidate ? &r->cand : &r->orig;

		stage(r, s->label);
		if (set_inputs(r, s, r->in, NULL, err) || run_once(r, s, err))
			goto out;
		ks_buf_addf(j, "\"once\": \"%s\", \"verdict\": \"ran\"", s->label);
		rc = 0;
		goto out;
	}

	if (r->o.metrics_only) {
		/* The counters of a side verified before (a candidate that
		 * became the base): what the Planner reads, nothing more. */
		struct side *s = r->o.candidate ? &r->cand : &r->orig;

		if (r->o.output_only && known_output_only(r, r->o.output_only, err))
			goto out;
		stage(r, "metrics");
		if (gpu_alone(r, 1, err))
			goto out;
		ks_buf_adds(j, "\"metrics\": {\"source\": \"cupti-range-profiler\", ");
		metrics_of(r, s, j, &why);
		ks_buf_adds(j, ", \"error\": ");
		if (why.len)
			ks_buf_add_json_str(j, why.buf);
		else
			ks_buf_adds(j, "null");
		ks_buf_addf(j, "},\n \"measured\": \"%s\", \"verdict\": \"measured\"",
			    s->label);
		rc = 0;
		goto out;
	}

	/* 1. The original reproduces the captured outputs. */
	stage(r, "original");
	if (set_inputs(r, &r->orig, r->in, NULL, err) || run_once(r, &r->orig, err) ||
	    get_outputs(r, &r->orig, got, err)) {
		original_failed(r, j, err);
		rc = 0;
		goto out;
	}
	ks_buf_adds(j, "\"original\": {\"so\": ");
	ks_buf_add_json_str(j, r->orig.path);
	ks_buf_adds(j, ", ");
	json_side_static(j, &r->orig);
	json_globals(j, r, &r->orig);
	ks_buf_adds(j, ", \"buffers\": ");
	bad = check_run(r, &r->orig, r->in, NULL, r->ref, got, r->written, j, &why);
	if (bad) {
		int det = explain_mismatch(r, got, &why);

		ks_buf_addf(j, ", \"deterministic\": %s",
			    det < 0 ? "null" : det ? "true" : "false");
	}
	ks_buf_addf(j, ", \"reproduces\": %s, \"why\": ", bad ? "false" : "true");
	if (bad) {
		ks_buf_add_json_str(j, why.buf);
		ks_buf_adds(j, "},\n \"verdict\": \"ineligible\"");
		rc = 0;
		goto out;
	}
	ks_buf_adds(j, "null");

	/* 2. Output-only buffers (an earlier replay of the same original on
	 * the same capture may have found them). */
	stage(r, "output-only");
	if (r->o.output_only) {
		if (known_output_only(r, r->o.output_only, err))
			goto out;
	} else if (find_output_only(r, err)) {
		goto out;
	}
	stage(r, "original");
	ks_buf_adds(j, ", \"output_only\": [");
	{
		size_t i, first = 1;

		for (i = 0; i < r->cap.nbuffers; i++) {
			if (r->output_only[i]) {
				ks_buf_addf(j, "%s%zu", first ? "" : ", ", i);
				first = 0;
			}
		}
	}
	ks_buf_adds(j, "]}");

	/* 3 and 4. The candidate on the captured and on fresh inputs, then
	 * on the captured ones again: what it computes must not depend on
	 * what it saw before. */
	if (r->o.candidate) {
		stage(r, "candidate");
		ks_buf_reset(&why);
		if (set_inputs(r, &r->cand, r->in, r->output_only, err) ||
		    run_once(r, &r->cand, err) || get_outputs(r, &r->cand, got, err))
			goto out;
		ks_buf_adds(&cj, ",\n \"candidate\": {\"so\": ");
		ks_buf_add_json_str(&cj, r->cand.path);
		ks_buf_adds(&cj, ", ");
		json_side_static(&cj, &r->cand);
		ks_buf_adds(&cj, ", \"buffers\": ");
		bad = check_run(r, &r->cand, r->in, r->output_only, r->ref, got, r->written,
				&cj, &why);
		correct = !bad;
		if (correct && r->o.random) {
			/* Its host set is the fresh sets' first: at gigabytes a
			 * pinned set more costs as much as a set drawn. */
			host_set_free(r, got);
			got = NULL;
			stage(r, "random");
			size_t passed = random_sets(r, &why, err, &failed);

			if (failed)
				goto out;
			ks_buf_addf(&cj, ", \"random\": {\"sets\": %lu, \"passed\": %zu, "
					"\"seed\": %lu}", r->o.random, passed, r->o.seed);
			correct = passed == r->o.random;
			if (correct) {
				stage(r, "candidate");
				correct = !again_check(r, 1, "the captured inputs again, "
							  "after the fresh ones", &why, err,
						       &failed);
				if (failed)
					goto out;
				ks_buf_addf(&cj, ", \"again\": %s", correct ? "true" : "false");
			}
		}
	}

	/* 5. Timing: only what passed. The outputs are poisoned before every
	 * timed run and checked after the last; work still running after the
	 * stop event is work moved out of the timed region. */
	if (r->o.time && correct) {
		int ns = 0;
		double speedup = 0;

		stage(r, "timing");
		if (gpu_alone(r, 1, err))
			goto out;
		sides[ns++] = &r->orig;
		if (r->o.candidate)
			sides[ns++] = &r->cand;
		if (time_sides(r, sides, ns, t, tail, &flush, err))
			goto out;
		ks_buf_adds(&tj, ",\n \"timing\": {");
		json_timing(&tj, "original", &t[0]);
		ks_buf_addf(&tj, ", \"original_tail_ms\": %.6f", tail[0]);
		if (ns == 2) {
			enum ks_speed sp = ks_timing_decide(&t[0], &t[1], r->o.reps, &speedup);

			ks_buf_adds(&tj, ", ");
			json_timing(&tj, "candidate", &t[1]);
			ks_buf_addf(&tj, ", \"candidate_tail_ms\": %.6f", tail[1]);
			ks_buf_addf(&tj, ", \"verdict\": \"%s\", \"speedup\": %.4f",
				    ks_speed_name(sp), speedup);
			if (ks_timing_escaped(tail[0], tail[1])) {
				correct = 0;
				ks_buf_addf(&why, "work left running past the timed region: "
						  "the GPU stayed busy %.3f ms after the stop "
						  "event (median; the original's %.3f ms), the "
						  "timed run took %.3f ms",
					    tail[1], tail[0], t[1].median);
			} else {
				correct = !again_check(r, 0, "after the last timed run", &why,
						       err, &failed);
				if (failed)
					goto out;
			}
			ks_buf_addf(&cj, ", \"after_timing\": %s", correct ? "true" : "false");
		}
		ks_buf_addf(&tj, ", \"l2_flush_bytes\": %zu, \"warmup\": %d}", flush,
			    WARMUP_RUNS);
		if (gpu_alone(r, 0, err))
			goto out;
	}
	if (r->o.candidate) {
		ks_buf_add(j, cj.buf, cj.len);
		ks_buf_addf(j, ", \"correct\": %s, \"why\": ", correct ? "true" : "false");
		if (correct)
			ks_buf_adds(j, "null}");
		else {
			ks_buf_add_json_str(j, why.buf);
			ks_buf_addch(j, '}');
		}
	}
	ks_buf_add(j, tj.buf, tj.len);

	/* 6. Counters. */
	if (r->o.metrics && correct) {
		stage(r, "metrics");
		if (gpu_alone(r, 1, err))
			goto out;
		ks_buf_reset(&why);
		ks_buf_adds(j, ",\n \"metrics\": {\"source\": \"cupti-range-profiler\", ");
		metrics_of(r, &r->orig, j, &why);
		if (r->o.candidate) {
			ks_buf_adds(j, ", ");
			metrics_of(r, &r->cand, j, &why);
		}
		ks_buf_adds(j, ", \"error\": ");
		if (why.len)
			ks_buf_add_json_str(j, why.buf);
		else
			ks_buf_adds(j, "null");
		ks_buf_addch(j, '}');
	}
	verdict = !r->o.candidate ? "eligible" : correct ? "correct" : "incorrect";
	ks_buf_addf(j, ",\n \"verdict\": \"%s\"", verdict);
	rc = 0;
out:
	host_set_free(r, got);
	ks_buf_release(&why);
	ks_buf_release(&cj);
	ks_buf_release(&tj);
	return rc;
}

int
ks_replay_main(int argc, char **argv)
{
	struct replay r;
	struct ks_buf err = KS_BUF_INIT, j = KS_BUF_INIT, body = KS_BUF_INIT;
	struct cudaDeviceProp prop;
	int rc = 1;

	ks_progname = "ks-replay";
	memset(&r, 0, sizeof(r));
	r.gpu = (struct ks_gpulock)KS_GPULOCK_INIT;
	r.orig.label = "original";
	r.cand.label = "candidate";
	r.orig.best_ms = r.cand.best_ms = -1;
	{
		long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

		/* Several reviews share the machine: at most 8 each. */
		r.threads = ncpu > 8 ? 8 : ncpu > 0 ? (unsigned)ncpu : 1;
	}
	ks_strv_init(&r.orig.uses);
	ks_strv_init(&r.cand.uses);
	if (parse_args(argc, argv, &r, &err)) {
		fprintf(stderr, "ks-replay: error: %s\n", err.buf);
		usage();
		ks_buf_release(&err);
		return 2;
	}
	if (r.o.probe) {
		/* Is there a device to replay on? (ks capture asks first.) */
		int count = 0;
		cudaError_t e = cudaGetDeviceCount(&count);

		if (e != cudaSuccess || !count) {
			fprintf(stderr, "no GPU: %s\n",
				e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device");
			return 4;
		}
		if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess)
			printf("%s\n", prop.name);
		return 0;
	}
	r.orig.path = r.o.original;
	r.cand.path = r.o.candidate;
	r.orig.globals = r.o.original_globals;
	r.cand.globals = r.o.candidate_globals;
	ks_buf_addf(&j, "{\"format\": %d, \"capture\": ", REPLAY_FORMAT);
	ks_buf_add_json_str(&j, r.o.capture);
	r.mark = now_seconds();
	stage(&r, "setup");
	if (gpu_alone(&r, 0, &err))
		goto out;
	if (load(&r, &err) || setup(&r, &err))
		goto out;
	pin_captured(&r);
	ks_buf_adds(&j, ", \"kernel\": ");
	ks_buf_add_json_str(&j, r.cap.kernel);
	if (cudaGetDeviceProperties(&prop, r.device) == cudaSuccess) {
		ks_buf_adds(&j, ", \"device\": ");
		ks_buf_add_json_str(&j, prop.name);
		ks_buf_addf(&j, ", \"cc\": \"%d.%d\"", prop.major, prop.minor);
	}
	stage(&r, "original");
	r.orig.limit_ms = ks_bound_original_ms(r.captured_ns, r.o.bound_min_ms,
					       r.o.bound_factor);
	if (r.orig.path && open_side(&r, &r.orig, &err)) {
		if (!r.orig.fn)
			goto out;
		/* The kernel is there but its globals cannot be restored. */
		ks_buf_adds(&body, "\"original\": {\"so\": ");
		ks_buf_add_json_str(&body, r.orig.path);
		ks_buf_adds(&body, ", \"reproduces\": false, \"failed\": true, \"why\": ");
		ks_buf_add_json_str(&body, err.buf);
		ks_buf_adds(&body, "},\n \"verdict\": \"ineligible\"");
		rc = 0;
		goto out;
	}
	stage(&r, "candidate");
	if (r.cand.path && open_side(&r, &r.cand, &err))
		goto out;
	if (r.orig.path)
		occupancy(&r, &r.orig);
	if (r.cand.path)
		occupancy(&r, &r.cand);
	if (review(&r, &body, &err))
		goto out;
	rc = 0;
out:
	if (!rc) {
		ks_buf_adds(&j, ",\n ");
		ks_buf_add(&j, body.buf, body.len);
		ks_buf_adds(&j, ",\n \"error\": null");
	} else {
		ks_buf_addf(&j, ",\n \"stage\": \"%s\", \"error\": ", r.stage);
		ks_buf_add_json_str(&j, err.len ? err.buf : "unknown failure");
	}
	json_seconds(&r, &j);
	ks_buf_addf(&j, ",\n \"lock_wait_s\": %.3f", r.gpu.waited_ms / 1e3);
	ks_gpulock_release(&r.gpu);
	ks_buf_adds(&j, "}\n");
	if (write_result(&r, &j))
		rc = 1;
	if (rc)
		fprintf(stderr, "ks-replay: error: %s\n", err.buf);
	ks_buf_release(&err);
	ks_buf_release(&j);
	ks_buf_release(&body);
	/* The process ends here: the CUDA context and the loaded objects go
	 * with it, which is the point of one process per candidate. */
	return rc;
}
