/*
 * Unit tests of ks optimize (src/cli/optimize.c) end to end without a GPU:
 * a kernel parsed with libclang, a build record and a capture written
 * here, the builtin transforms in their fixed order, the real splice, and
 * the real Reviewer library over an nvcc that only creates its -o file and
 * a ks-replay that hands back a prepared result: the original reproduces
 * its capture, every candidate is correct and twice as fast. What is
 * checked is the command's glue: the task found from the captures, the
 * trajectory, the base moving once, the variant cache, the report, and a
 * second run resuming instead of starting over.
 */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../src/analysis/libclang.h"
#include "../../src/capture/capture.h"
#include "../../src/cli/ks.h"
#include "../../src/core/buf.h"
#include "../../src/core/conf.h"
#include "../../src/core/fs.h"
#include "../../src/core/util.h"
#include "../../src/memory/knowledge.h"
#include "../../src/memory/trajectory.h"
#include "test.h"

void ks_suite_optimize(void);

#define TIMED                                                                 \
	"\"timing\": {\"original\": {\"n\": 20, \"median_ms\": 2.0, "         \
	"\"lo_ms\": 1.9, \"hi_ms\": 2.1, \"min_ms\": 1.8, \"max_ms\": 2.4}, "   \
	"\"candidate\": {\"n\": 20, \"median_ms\": 1.0, \"lo_ms\": 0.95, "     \
	"\"hi_ms\": 1.05, \"min_ms\": 0.9, \"max_ms\": 1.2}, "                 \
	"\"verdict\": \"faster\", \"speedup\": 2.0}, "

static const char kernel_src[] =
	"__global__ void scale(const float *x, float *y, int n)\n"
	"{\n"
	"\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"\tif (i < n)\n"
	"\t\ty[i] = 2.0f * x[i];\n"
	"}\n"
	"\n"
	"__global__ void shift(const float *x, float *y, int n)\n"
	"{\n"
	"\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"\tif (i < n)\n"
	"\t\ty[i] = x[i] + 1.0f;\n"
	"}\n"
	"\n"
	"int main()\n"
	"{\n"
	"\tfloat *x = 0, *y = 0;\n"
	"\tscale<<<4, 256>>>(x, y, 1000);\n"
	"\tshift<<<4, 256>>>(x, y, 1000);\n"
	"\treturn 0;\n"
	"}\n";

static void
script(const char *dir, const char *name, const char *text)
{
	char *bin = ks_xasprintf("%s/bin", dir), *p = ks_xasprintf("%s/%s", bin, name);

	ks_fs_mkdirs(bin, NULL);
	test_write(bin, name, text);
	chmod(p, 0755);
	free(bin);
	free(p);
}

/* The duration_ns the next capture() records (0: not measured), its
 * time (NULL: none) and its int argument's first byte. */
static unsigned long long capture_ns;
static char *capture_time;
static unsigned char capture_arg;

/* A capture of kernel `mangled` at launch 1, of the fixture's build. */
static int
capture(const char *dir, const char *mangled, const char *pretty, struct ks_buf *err)
{
	char api[] = "cuLaunchKernel", t0[] = "const float *", t1[] = "float *", t2[] = "int";
	char *kernel = ks_xstrdup(mangled), *demangled = ks_xstrdup(pretty);
	char *capdir = ks_xasprintf("%s/captures/%s/1", dir, kernel);
	char *record = ks_xasprintf("%s/builds/k.json", dir);
	unsigned char bytes[20] = { 0 };
	struct ks_capture c;
	int rc;

	memset(&c, 0, sizeof(c));
	c.kernel = kernel;
	c.demangled = demangled;
	c.api = api;
	c.grid[0] = 4, c.grid[1] = c.grid[2] = 1;
	c.block[0] = 256, c.block[1] = c.block[2] = 1;
	c.launch = 1;
	c.duration_ns = capture_ns;
	c.time = capture_time;
	bytes[16] = capture_arg;
	c.cc_major = 9;
	c.cc_minor = 0;
	c.param_size = 20;
	c.param_bytes = bytes;
	c.nparams = 3;
	c.params = ks_xcalloc(3, sizeof(*c.params));
	c.params[0].size = 8;
	c.params[0].type = t0;
	c.params[1].offset = 8;
	c.params[1].size = 8;
	c.params[1].type = t1;
	c.params[2].offset = 16;
	c.params[2].size = 4;
	c.params[2].type = t2;
	c.record = record;
	rc = ks_fs_mkdirs(capdir, err) || ks_capture_save(capdir, &c, err);
	free(c.params);
	free(kernel);
	free(demangled);
	free(capdir);
	free(record);
	return rc;
}

/* The record's targets: its "archs" and the words of its argv that say
 * them (the fixture's default: -arch=sm_90, what the capture's GPU is). */
static const char *rec_archs =
	"[{\"virtual\": \"compute_90\", \"real\": \"sm_90\"}]";
static const char *rec_words = "\"-arch=sm_90\", ";

static int
fixture(const char *dir, struct ks_conf *conf, struct ks_buf *err)
{
	struct ks_buf rec = KS_BUF_INIT;
	char *builds = ks_xasprintf("%s/builds", dir), *path;
	int rc;

	test_write(dir, "k.cu", kernel_src);
	script(dir, "nvcc",
	       "#!/bin/sh\necho \"$*\" >>\"$FAKE_DIR/nvcc.args\"\n"
	       "out=\nprev=\nfor a; do [ \"$prev\" = -o ] && out=$a; prev=$a; done\n"
	       "[ -n \"$out\" ] && : >\"$out\"\nexit 0\n");
	test_write(dir, "eligible.json",
		   "{\"format\": 1, \"capture\": \"c\", \"kernel\": \"_Z5scalePKfPfi\", "
		   "\"original\": {\"reproduces\": true, \"why\": null}, "
		   "\"timing\": {\"original\": {\"n\": 20, \"median_ms\": 2.0, \"lo_ms\": 1.9, "
		   "\"hi_ms\": 2.1, \"min_ms\": 1.8, \"max_ms\": 2.4}}, "
		   "\"verdict\": \"eligible\", \"error\": null}\n");
	test_write(dir, "correct.json",
		   "{\"format\": 1, \"capture\": \"c\", \"kernel\": \"_Z5scalePKfPfi\", "
		   "\"original\": {\"reproduces\": true, \"why\": null}, "
		   "\"candidate\": {\"correct\": true, \"why\": null, "
		   "\"random\": {\"sets\": 2, \"passed\": 2}}, " TIMED
		   "\"verdict\": \"correct\", \"error\": null}\n");
	script(dir, "ks-replay",
	       "#!/bin/sh\nprev=\nr=$FAKE_DIR/eligible.json\n"
	       "for a; do [ \"$prev\" = --json ] && j=$a; [ \"$a\" = --candidate ] && "
	       "r=$FAKE_DIR/correct.json; prev=$a; done\n"
	       "echo x >>\"$FAKE_DIR/replays\"\ncp \"$r\" \"$j\"\n");
	/* compute-sanitizer (found under CUDA_HOME): clean, unless told */
	script(dir, "compute-sanitizer",
	       "#!/bin/sh\necho \"$*\" >>\"$FAKE_DIR/sanitizer.args\"\n"
	       "if [ -n \"$FAKE_SANITIZER_FAILS\" ]; then\n"
	       "echo '========= Invalid __global__ read of size 4'; exit 99; fi\n"
	       "echo '========= ERROR SUMMARY: 0 errors'\nexit 0\n");
	setenv("CUDA_HOME", dir, 1);
	path = ks_xasprintf("%s/bin:/usr/bin:/bin", dir);
	setenv("PATH", path, 1);
	free(path);
	setenv("FAKE_DIR", dir, 1);
	ks_fs_mkdirs(builds, NULL);
	ks_buf_addf(&rec, "{\"format\": 1, \"source\": \"%s/k.cu\", \"cwd\": \"%s\", "
		    "\"output\": \"%s/k.o\", \"nvcc\": \"%s/bin/nvcc\", "
		    "\"time\": \"2026-12-01T10:00:00Z\", "
		    "\"archs\": %s, "
		    "\"argv\": [\"-O3\", %s\"-c\", \"k.cu\", \"-o\", \"k.o\"]}\n",
		    dir, dir, dir, dir, rec_archs, rec_words);
	test_write(builds, "k.json", rec.buf);
	ks_buf_release(&rec);
	rc = capture(dir, "_Z5scalePKfPfi", "scale(float const*, float*, int)", err);
	free(builds);
	setenv("KS_DIR", dir, 1);
	unsetenv("KS_CONFIG");
	ks_conf_init(conf);
	return rc || ks_conf_load(conf, err);
}

/* The fixture with the repository's skill library, so the policy plans
 * (the tests run at the root). */
static int
fixture_with_policy(const char *dir, struct ks_conf *conf, struct ks_buf *err)
{
	char *skills = realpath("skills", NULL);
	int rc;

	if (!skills)
		return -1;
	setenv("KS_SKILLS", skills, 1);
	free(skills);
	rc = fixture(dir, conf, err);
	unsetenv("KS_SKILLS");
	return rc;
}

/* What the last optimize() wrote on stderr. */
static struct ks_buf last_stderr = KS_BUF_INIT;

/* Run ks optimize with stdout into `out`, stderr into last_stderr. */
static int
optimize(struct ks_conf *conf, const char *const *args, struct ks_buf *out)
{
	char *argv[16], *path = ks_xasprintf("%s/stdout.txt", test_tmpdir());
	char *epath = ks_xasprintf("%s/stderr.txt", test_tmpdir());
	int argc = 0, rc, saved, esaved;
	FILE *f, *ef;

	argv[argc++] = (char *)"optimize";
	while (*args && argc < 15)
		argv[argc++] = (char *)*args++;
	argv[argc] = NULL;
	fflush(stdout);
	fflush(stderr);
	saved = dup(1);
	esaved = dup(2);
	f = fopen(path, "w");
	ef = fopen(epath, "w");
	dup2(fileno(f), 1);
	dup2(fileno(ef), 2);
	rc = ks_cli_optimize(argc, argv, conf, 0);
	fflush(stdout);
	fflush(stderr);
	dup2(saved, 1);
	dup2(esaved, 2);
	close(saved);
	close(esaved);
	fclose(f);
	fclose(ef);
	ks_buf_reset(out);
	ks_fs_read(path, out, NULL);
	ks_buf_reset(&last_stderr);
	ks_fs_read(epath, &last_stderr, NULL);
	free(path);
	free(epath);
	return rc;
}

static size_t
count_files(const char *pattern)
{
	glob_t g;
	size_t n;

	memset(&g, 0, sizeof(g));
	n = glob(pattern, 0, NULL, &g) ? 0 : g.gl_pathc;
	globfree(&g);
	return n;
}

TEST(optimize_end_to_end_with_a_fake_ks_replay)
{
	const char *dir = test_tmpdir();
	static const char *const args[] = { "--no-long-term-memory", "--rounds", "3",
					    "--llm", "none", "--json", NULL };
	struct ks_conf conf;
	struct ks_buf err = KS_BUF_INIT, out = KS_BUF_INIT;
	struct ks_traj t = { 0 };
	struct ks_traj_state s;
	char *traj = ks_xasprintf("%s/tasks/_Z5scalePKfPfi/trajectory.jsonl", dir);
	char *cache = ks_xasprintf("%s/cache/*/*/variant.cu", dir);
	size_t i, reviewed = 0, n1;

	if (ks_libclang_load(&err))
		SKIP("no libclang: %s", err.buf);
	CHECK(fixture(dir, &conf, &err) == 0);
	i = (size_t)optimize(&conf, args, &out);
	if (getenv("KS_TEST_DUMP"))
		fprintf(stderr, "%s\n", out.buf);
	CHECK_INT_EQ(0, (int)i);
	CHECK(strstr(out.buf, "\"kernel\": \"scale(float const*, float*, int)\"") != NULL);
	CHECK(strstr(out.buf, "\"speedup\": 2.0000") != NULL);
	CHECK(strstr(out.buf, "\"cache\": \"cached\"") != NULL);
	CHECK(strstr(out.buf, "\"end\": \"round budget spent\"") != NULL);
	CHECK(ks_traj_load(traj, &t, &err) == 0);
	CHECK(t.n >= 4);
	CHECK_STR_EQ("seed", t.v[0].phase);
	CHECK_STR_EQ("eligible", t.v[0].verdict);
	for (i = 1; i < t.n; i++) {
		if (!t.v[i].compile)
			continue;
		reviewed++;
		CHECK_STR_EQ("correct", t.v[i].verdict);
		CHECK(t.v[i].hash != NULL);
	}
	CHECK_INT_EQ(3, (int)reviewed);
	ks_traj_state(&t, 1.05, &s);
	/* the first candidate doubles the original; the next ones, also at
	 * 2x the original, are no gain over that base */
	CHECK(s.base > 0);
	CHECK_INT_EQ(s.base, s.best);
	CHECK(t.v[s.base].gain);
	CHECK_INT_EQ(1, (int)count_files(cache));
	n1 = t.n;
	ks_traj_release(&t);

	/* the same command again: the task resumes, the seed is not redone
	 * and nothing is reviewed past the budget */
	CHECK_INT_EQ(0, optimize(&conf, args, &out));
	CHECK(ks_traj_load(traj, &t, &err) == 0);
	CHECK_INT_EQ((int)n1, (int)t.n);

	/* the same launch captured again, in another run (another time and
	 * duration): the same test case, so the task resumes */
	{
		static char when[] = "2026-12-04T09:00:00Z";
		char *old = ks_xasprintf("%s/tasks/_Z5scalePKfPfi/trajectory.1.jsonl", dir);

		capture_time = when;
		capture_ns = 4242;
		CHECK(capture(dir, "_Z5scalePKfPfi", "scale(float const*, float*, int)", &err) == 0);
		capture_time = NULL;
		capture_ns = 0;
		ks_traj_release(&t);
		CHECK_INT_EQ(0, optimize(&conf, args, &out));
		CHECK(!ks_fs_exists(old));
		CHECK(ks_traj_load(traj, &t, &err) == 0);
		CHECK_INT_EQ((int)n1, (int)t.n);
		free(old);
	}

	/* the source changed: the old trajectory is set aside, a new task
	 * starts from its seed */
	{
		char *src = ks_xasprintf("%s/k.cu", dir), *old;
		struct ks_buf text = KS_BUF_INIT;

		ks_buf_adds(&text, kernel_src);
		ks_buf_adds(&text, "/* edited */\n");
		CHECK(ks_fs_write_atomic(src, text.buf, text.len, &err) == 0);
		ks_traj_release(&t);
		CHECK_INT_EQ(0, optimize(&conf, args, &out));
		old = ks_xasprintf("%s/tasks/_Z5scalePKfPfi/trajectory.1.jsonl", dir);
		CHECK(ks_fs_exists(old));
		CHECK(ks_traj_load(traj, &t, &err) == 0);
		CHECK_STR_EQ("seed", t.v[0].phase);
		CHECK(t.v[0].task != NULL);
		free(old);
		free(src);
		ks_buf_release(&text);
	}

	/* another argument: another test case, set aside in turn */
	{
		char *old = ks_xasprintf("%s/tasks/_Z5scalePKfPfi/trajectory.2.jsonl", dir);

		capture_arg = 7;
		CHECK(capture(dir, "_Z5scalePKfPfi", "scale(float const*, float*, int)", &err) == 0);
		capture_arg = 0;
		ks_traj_release(&t);
		CHECK_INT_EQ(0, optimize(&conf, args, &out));
		CHECK(ks_fs_exists(old));
		free(old);
	}

	/* a selector that names nothing is an error */
	{
		static const char *const none[] = { "^no_such_kernel$", NULL };

		CHECK_INT_EQ(105, optimize(&conf, none, &out));
		CHECK(strstr(last_stderr.buf, "no captured kernel matches") != NULL);
	}
	ks_traj_release(&t);
	ks_conf_release(&conf);
	ks_buf_release(&err);
	ks_buf_release(&out);
	free(traj);
	free(cache);
}

/*
 * A build that names no target (sm_75 and compute_75's PTX) captured on an
 * sm_90 GPU: the Reviewer builds with sm_90's target added, and the
 * variant is cached under the kernel's sm_90 key. A build whose targets do
 * not reach the GPU at all (-arch=native, which the classifier cannot
 * read) is refused before any GPU time.
 */
TEST(optimize_a_build_the_gpu_reaches_through_ptx)
{
	const char *dir = test_tmpdir();
	static const char *const args[] = { "--no-long-term-memory", "--rounds", "1",
					    "--llm", "none", NULL };
	struct ks_conf conf;
	struct ks_buf err = KS_BUF_INIT, out = KS_BUF_INIT, text = KS_BUF_INIT;
	char *nvargs = ks_xasprintf("%s/nvcc.args", dir);
	char *meta = ks_xasprintf("%s/cache/*/*/variant.json", dir);
	char *replays = ks_xasprintf("%s/replays", dir);
	glob_t g;

	if (ks_libclang_load(&err))
		SKIP("no libclang: %s", err.buf);
	rec_archs = "[{\"virtual\": \"compute_75\", \"real\": \"sm_75\"}, "
		    "{\"virtual\": \"compute_75\", \"real\": \"\"}]";
	rec_words = "";
	CHECK(fixture(dir, &conf, &err) == 0);
	CHECK_INT_EQ(0, optimize(&conf, args, &out));
	CHECK(ks_fs_read(nvargs, &text, &err) == 0);
	CHECK(strstr(text.buf, "-arch=sm_75 -gencode arch=compute_90,code=sm_90") != NULL);
	memset(&g, 0, sizeof(g));
	CHECK(glob(meta, 0, NULL, &g) == 0 && g.gl_pathc == 1);
	ks_buf_reset(&text);
	if (g.gl_pathc == 1)
		CHECK(ks_fs_read(g.gl_pathv[0], &text, &err) == 0);
	CHECK(text.buf && strstr(text.buf, "\"arch\": 90") != NULL);
	globfree(&g);
	ks_conf_release(&conf);

	rec_archs = "[]";
	rec_words = "\"-arch=native\", ";
	CHECK(fixture(dir, &conf, &err) == 0);
	CHECK(system("rm -rf \"$FAKE_DIR/tasks\" \"$FAKE_DIR/replays\"") == 0);
	CHECK_INT_EQ(1, optimize(&conf, args, &out));
	CHECK(strstr(out.buf, "names no target this GPU (sm_90) runs") != NULL);
	CHECK(!ks_fs_exists(replays));
	rec_archs = "[{\"virtual\": \"compute_90\", \"real\": \"sm_90\"}]";
	rec_words = "\"-arch=sm_90\", ";
	ks_conf_release(&conf);
	ks_buf_release(&err);
	ks_buf_release(&out);
	ks_buf_release(&text);
	free(nvargs);
	free(meta);
	free(replays);
}

TEST(optimize_two_kernels_in_two_workers)
{
	const char *dir = test_tmpdir();
	static const char *const args[] = { "--no-long-term-memory", "--rounds", "2",
					    "--jobs", "2", "--json", NULL };
	struct ks_conf conf;
	struct ks_buf err = KS_BUF_INIT, out = KS_BUF_INIT;
	char *cache = ks_xasprintf("%s/cache/*/*/variant.cu", dir);
	char *t1 = ks_xasprintf("%s/tasks/_Z5scalePKfPfi/trajectory.jsonl", dir);
	char *t2 = ks_xasprintf("%s/tasks/_Z5shiftPKfPfi/trajectory.jsonl", dir);

	if (ks_libclang_load(&err))
		SKIP("no libclang: %s", err.buf);
	CHECK(fixture(dir, &conf, &err) == 0);
	/* shift took the program longer: its task comes first */
	capture_ns = 5000000;
	CHECK(capture(dir, "_Z5shiftPKfPfi", "shift(float const*, float*, int)", &err) == 0);
	capture_ns = 0;
	CHECK_INT_EQ(0, optimize(&conf, args, &out));
	{
		const char *a = strstr(out.buf, "\"kernel\": \"scale(float const*, float*, int)\"");
		const char *b = strstr(out.buf, "\"kernel\": \"shift(float const*, float*, int)\"");

		CHECK(a != NULL && b != NULL && b < a);
	}
	CHECK(ks_fs_exists(t1) && ks_fs_exists(t2));
	CHECK_INT_EQ(2, (int)count_files(cache));
	ks_conf_release(&conf);
	ks_buf_release(&err);
	ks_buf_release(&out);
	free(cache);
	free(t1);
	free(t2);
}

TEST(optimize_caches_nothing_the_sanitizer_rejects)
{
	const char *dir = test_tmpdir();
	static const char *const args[] = { "--no-long-term-memory", "--rounds", "1",
					    "--json", NULL };
	struct ks_conf conf;
	struct ks_buf err = KS_BUF_INIT, out = KS_BUF_INIT;
	char *cache = ks_xasprintf("%s/cache/*/*/variant.cu", dir);

	if (ks_libclang_load(&err))
		SKIP("no libclang: %s", err.buf);
	CHECK(fixture(dir, &conf, &err) == 0);
	setenv("FAKE_SANITIZER_FAILS", "1", 1);
	CHECK_INT_EQ(1, optimize(&conf, args, &out));
	CHECK(strstr(out.buf, "not cached: the final check with compute-sanitizer") != NULL);
	CHECK_INT_EQ(0, (int)count_files(cache));
	ks_conf_release(&conf);
	ks_buf_release(&err);
	ks_buf_release(&out);
	free(cache);
}

/*
 * The final check's racecheck of a launch of racecheck_sample threads or
 * more runs on the candidate built to run a sample of its blocks (its own
 * shared object, the guard in its TU); memcheck on the whole grid. Under
 * the threshold, or with sampling off, racecheck runs the candidate.
 */
static void
final_check_racecheck(int threshold, int want_sampled)
{
	const char *dir = test_tmpdir();
	static const char *const args[] = { "--no-long-term-memory", "--rounds", "1",
					    "--json", NULL };
	struct ks_conf conf;
	struct ks_buf err = KS_BUF_INIT, out = KS_BUF_INIT, log = KS_BUF_INIT;
	char *path = ks_xasprintf("%s/sanitizer.args", dir);
	const char *mc, *rc;

	if (ks_libclang_load(&err))
		SKIP("no libclang: %s", err.buf);
	CHECK(fixture(dir, &conf, &err) == 0);
	conf.racecheck_sample = threshold;	/* the launch: 4 x 256 threads */
	CHECK_INT_EQ(0, optimize(&conf, args, &out));
	CHECK(strstr(out.buf, "\"cache\": \"cached\"") != NULL);
	CHECK_INT_EQ(0, ks_fs_read(path, &log, &err));
	mc = strstr(log.buf, "--tool memcheck");
	rc = strstr(log.buf, "--tool racecheck");
	CHECK(mc && rc);
	CHECK(strstr(mc, "/candidate.so") != NULL && strstr(mc, "/candidate.so") < rc);
	CHECK(!strstr(log.buf, "sampled") == !want_sampled);
	if (want_sampled)
		CHECK(strstr(rc, "/sampled.so") != NULL);
	else
		CHECK(strstr(rc, "/candidate.so") != NULL);
	ks_conf_release(&conf);
	ks_buf_release(&err);
	ks_buf_release(&out);
	ks_buf_release(&log);
	free(path);
}

TEST(optimize_racechecks_a_sample_of_a_large_launch)
{
	final_check_racecheck(1024, 1);
}

TEST(optimize_racechecks_every_block_of_a_small_launch)
{
	final_check_racecheck(1025, 0);
}

TEST(optimize_racechecks_every_block_with_sampling_off)
{
	final_check_racecheck(0, 0);
}

TEST(optimize_keeps_what_the_final_check_cost)
{
	const char *dir = test_tmpdir();
	static const char *const args[] = { "--rounds", "2", "--json", NULL };
	struct ks_conf conf;
	struct ks_buf err = KS_BUF_INIT, out = KS_BUF_INIT, text = KS_BUF_INIT;

	if (ks_libclang_load(&err))
		SKIP("no libclang: %s", err.buf);
	CHECK(fixture_with_policy(dir, &conf, &err) == 0);
	if (optimize(&conf, args, &out) > 1)
		fprintf(stderr, "%s\n%s\n", out.buf, last_stderr.buf);
	if (getenv("KS_TEST_DUMP"))
		fprintf(stderr, "%s\n", out.buf);
	CHECK(strstr(out.buf, "\"cache\": \"cached\"") != NULL);
	/* with the long-term memory: the check's cost beside the seed's,
	 * under the skill of the variant checked */
	CHECK(ks_knowledge_checks_load(dir, &text, &err) == 0);
	CHECK(strstr(text.buf, "\"kernel\": \"_Z5scalePKfPfi\", \"skill\": \"") != NULL);
	CHECK(strstr(text.buf, "\"seed_ms\": ") != NULL);
	CHECK(strstr(text.buf, "\"seed_ms\": 0.000") == NULL);
	ks_conf_release(&conf);
	ks_buf_release(&err);
	ks_buf_release(&out);
	ks_buf_release(&text);
}

/*
 * With the policy and no counters (the fake ks-replay measures none), the
 * transforms no case allowed follow the allowed ones. Once a variant with
 * a launcher has moved the base to 2x, a skill built from the original
 * competes with it whole: an unjudged one promises at most what the
 * skipped cases that allow it promise (launch_geometry, allowed by the
 * skipped occupancy case, a medium gain: still tried), a small gain where
 * none does, and is then declined without a review.
 */
TEST(optimize_declines_unjudged_skills_a_moved_base_outruns)
{
	const char *dir = test_tmpdir();
	static const char *const args[] = { "--rounds", "15", "--no-cache", "--json", NULL };
	struct ks_conf conf;
	struct ks_buf err = KS_BUF_INIT, out = KS_BUF_INIT;
	struct ks_traj t = { 0 };
	char *traj = ks_xasprintf("%s/tasks/_Z5scalePKfPfi/trajectory.jsonl", dir);
	size_t i, declined = 0, small_reviewed = 0;
	int base = 0;

	if (ks_libclang_load(&err))
		SKIP("no libclang: %s", err.buf);
	CHECK(fixture_with_policy(dir, &conf, &err) == 0);
	CHECK(optimize(&conf, args, &out) <= 1);
	CHECK(ks_traj_load(traj, &t, &err) == 0);
	for (i = 1; i < t.n; i++) {
		const struct ks_traj_round *r = &t.v[i];
		int unjudged = r->why && strstr(r->why, "could not judge") != NULL;

		if (getenv("KS_TEST_DUMP"))
			fprintf(stderr, "%zu %s %s %s | %s | %s\n", i, r->skill ? r->skill : "-",
				r->verdict ? r->verdict : "-", r->source ? r->source : "-",
				r->why ? r->why : "-", r->reason ? r->reason : "-");
		if (unjudged && r->reason &&
		    strstr(r->reason, "unjudged, it promises at most a small gain, short of "
				      "the base's 2.00x"))
			declined++;
		else if (unjudged && strstr(r->why, "at most a small gain") && base &&
			 r->compile && r->source && !strcmp(r->source, "original"))
			small_reviewed++;
		if (r->gain)
			base = 1;
	}
	CHECK(base);
	CHECK(declined >= 1);
	CHECK_INT_EQ(0, (int)small_reviewed);
	ks_traj_release(&t);
	ks_conf_release(&conf);
	ks_buf_release(&err);
	ks_buf_release(&out);
	free(traj);
}

void
ks_suite_optimize(void)
{
	RUN(optimize_declines_unjudged_skills_a_moved_base_outruns);
	RUN(optimize_keeps_what_the_final_check_cost);
	RUN(optimize_caches_nothing_the_sanitizer_rejects);
	RUN(optimize_racechecks_a_sample_of_a_large_launch);
	RUN(optimize_racechecks_every_block_of_a_small_launch);
	RUN(optimize_racechecks_every_block_with_sampling_off);
	RUN(optimize_end_to_end_with_a_fake_ks_replay);
	RUN(optimize_two_kernels_in_two_workers);
	RUN(optimize_a_build_the_gpu_reaches_through_ptx);
}
