/* Unit tests of src/core/workers: the --gpus lists, the visible GPUs, and
 * the task queue over worker processes (each task once, on its worker's
 * GPU; a task whose worker died runs again on another GPU). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../src/core/buf.h"
#include "../../src/core/fs.h"
#include "../../src/core/strv.h"
#include "../../src/core/util.h"
#include "../../src/core/workers.h"
#include "test.h"

void ks_suite_workers(void);

static int
gpus(const char *spec, const char *visible, char *got, size_t size, struct ks_buf *err)
{
	struct ks_strv vis, out;
	size_t i;
	int rc;

	ks_strv_init(&vis);
	ks_strv_init(&out);
	if (visible)
		ks_workers_visible(visible, "/nonexistent", &vis);
	rc = ks_workers_gpus(spec, &vis, &out, err);
	got[0] = '\0';
	for (i = 0; i < out.n; i++) {
		strncat(got, i ? "," : "", size - strlen(got) - 1);
		strncat(got, out.v[i], size - strlen(got) - 1);
	}
	ks_strv_release(&vis);
	ks_strv_release(&out);
	return rc;
}

TEST(gpus_all_count_and_list)
{
	char got[128];
	struct ks_buf err = KS_BUF_INIT;

	CHECK_INT_EQ(0, gpus("all", "0,1,2", got, sizeof(got), &err));
	CHECK_STR_EQ("0,1,2", got);
	CHECK_INT_EQ(0, gpus("2", "3, 5,7", got, sizeof(got), &err));
	CHECK_STR_EQ("3,5", got);
	CHECK_INT_EQ(0, gpus("2,0", "0,1,2", got, sizeof(got), &err));
	CHECK_STR_EQ("2,0", got);
	CHECK_INT_EQ(0, gpus("GPU-8a1b", "GPU-8a1b,GPU-77", got, sizeof(got), &err));
	CHECK_STR_EQ("GPU-8a1b", got);
	/* Nothing to check the ids against: taken as given. */
	CHECK_INT_EQ(0, gpus("1,3", NULL, got, sizeof(got), &err));
	CHECK_STR_EQ("1,3", got);
	CHECK_INT_EQ(0, gpus("2", NULL, got, sizeof(got), &err));
	CHECK_STR_EQ("0,1", got);
	CHECK_STR_EQ("", err.buf);
	ks_buf_release(&err);
}

TEST(gpus_refuses_what_it_cannot_mean)
{
	char got[128];
	struct ks_buf err = KS_BUF_INIT;

	CHECK_INT_EQ(-1, gpus("3", "0,1", got, sizeof(got), &err));
	CHECK(strstr(err.buf, "only 2 GPUs are visible"));
	ks_buf_reset(&err);
	CHECK_INT_EQ(-1, gpus("0", "0,1", got, sizeof(got), &err));
	CHECK(strstr(err.buf, "at least one GPU"));
	ks_buf_reset(&err);
	CHECK_INT_EQ(-1, gpus("1,4", "0,1", got, sizeof(got), &err));
	CHECK(strstr(err.buf, "GPU '4' is not visible here"));
	ks_buf_reset(&err);
	CHECK_INT_EQ(-1, gpus("1,1", "0,1", got, sizeof(got), &err));
	CHECK(strstr(err.buf, "named twice"));
	ks_buf_reset(&err);
	CHECK_INT_EQ(-1, gpus("all", NULL, got, sizeof(got), &err));
	CHECK(strstr(err.buf, "no GPU is visible"));
	ks_buf_reset(&err);
	CHECK_INT_EQ(-1, gpus("0;rm", "0,1", got, sizeof(got), &err));
	CHECK(strstr(err.buf, "is not a GPU id"));
	ks_buf_reset(&err);
	CHECK_INT_EQ(-1, gpus(",", "0,1", got, sizeof(got), &err));
	CHECK(strstr(err.buf, "no GPU id"));
	ks_buf_release(&err);
}

TEST(visible_gpus_from_device_nodes)
{
	const char *d = test_tmpdir();
	struct ks_strv v;

	test_write(d, "nvidia0", "");
	test_write(d, "nvidia1", "");
	test_write(d, "nvidiactl", "");
	test_write(d, "nvidia-uvm", "");
	ks_strv_init(&v);
	ks_workers_visible(NULL, d, &v);
	CHECK_INT_EQ(2, v.n);
	CHECK_STR_EQ("0", v.v[0]);
	CHECK_STR_EQ("1", v.v[1]);
	ks_strv_release(&v);
	ks_strv_init(&v);
	ks_workers_visible("", d, &v);
	CHECK_INT_EQ(0, v.n);	/* CUDA_VISIBLE_DEVICES="" hides every GPU */
	ks_strv_release(&v);
}

/* The fake task: a file per task naming the worker's GPU and pid; the task
 * listed in `die_on` kills its worker the first time it runs. */
struct fake {
	const char *dir;
	long die_on;
	size_t barrier;	/* workers that must each hold a task first */
};

/* Each worker's first task waits (10 s at most) until `n` workers hold
 * one: then every worker has taken a task, however loaded the machine. */
static void
fake_barrier(const struct fake *f, size_t worker)
{
	static int waited;	/* per worker process */
	char path[512];
	size_t i, n;
	int tries;
	FILE *fp;

	if (!f->barrier || waited)
		return;
	waited = 1;
	snprintf(path, sizeof(path), "%s/start-%zu", f->dir, worker);
	fp = fopen(path, "w");
	if (fp)
		fclose(fp);
	for (tries = 0; tries < 10000; tries++) {
		for (i = n = 0; i < f->barrier; i++) {
			snprintf(path, sizeof(path), "%s/start-%zu", f->dir, i);
			n += access(path, F_OK) == 0;
		}
		if (n == f->barrier)
			return;
		usleep(1000);
	}
}

static void
fake_run(void *ctx, size_t task, size_t worker)
{
	const struct fake *f = ctx;
	char path[512], mark[512];
	const char *dev = getenv("CUDA_VISIBLE_DEVICES");
	FILE *fp;

	snprintf(mark, sizeof(mark), "%s/died-%zu", f->dir, task);
	if ((long)task == f->die_on && access(mark, F_OK) != 0) {
		fp = fopen(mark, "w");
		if (fp) {
			fprintf(fp, "%s\n", dev ? dev : "-");
			fclose(fp);
		}
		_exit(3);
	}
	fake_barrier(f, worker);
	usleep(2000);
	snprintf(path, sizeof(path), "%s/task-%zu", f->dir, task);
	fp = fopen(path, "a");
	if (fp) {
		fprintf(fp, "%s %ld\n", dev ? dev : "-", (long)getpid());
		fclose(fp);
	}
}

static int
fake_done(void *ctx, size_t task)
{
	const struct fake *f = ctx;
	char path[512];

	snprintf(path, sizeof(path), "%s/task-%zu", f->dir, task);
	return access(path, F_OK) == 0;
}

static int
read_task(const char *dir, size_t task, char *dev, size_t size, int *lines)
{
	char path[512], line[128];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/task-%zu", dir, task);
	fp = fopen(path, "r");
	if (!fp)
		return -1;
	*lines = 0;
	while (fgets(line, sizeof(line), fp)) {
		if (!(*lines)++)
			sscanf(line, "%63s", dev);
	}
	(void)size;
	fclose(fp);
	return 0;
}

TEST(every_task_once_on_its_workers_gpu)
{
	const char *devs[] = { "0", "1" };
	struct fake f = { test_tmpdir(), -1, 4 };
	struct ks_workers w;
	struct ks_buf err = KS_BUF_INIT;
	size_t i, on0 = 0, on1 = 0;

	memset(&w, 0, sizeof(w));
	w.ntasks = 20;
	w.devices = devs;
	w.ndevices = 2;
	w.per_device = 2;
	w.run = fake_run;
	w.done = fake_done;
	w.ctx = &f;
	CHECK_INT_EQ(0, ks_workers_run(&w, &err));
	CHECK_INT_EQ(4, w.workers);
	CHECK_INT_EQ(0, w.rerun);
	for (i = 0; i < 20; i++) {
		char dev[64] = "";
		int lines = 0;

		CHECK_INT_EQ(0, read_task(f.dir, i, dev, sizeof(dev), &lines));
		CHECK_INT_EQ(1, lines);
		if (!strcmp(dev, "0"))
			on0++;
		else if (!strcmp(dev, "1"))
			on1++;
	}
	CHECK_INT_EQ(20, on0 + on1);
	/* Both GPUs took tasks. */
	CHECK(on0 > 0 && on1 > 0);
	ks_buf_release(&err);
}

TEST(a_task_whose_worker_died_runs_on_another_gpu)
{
	const char *devs[] = { "GPU-a", "GPU-b" };
	struct fake f = { test_tmpdir(), 3, 0 };
	struct ks_workers w;
	struct ks_buf err = KS_BUF_INIT, died = KS_BUF_INIT;
	char dev[64] = "", mark[512];
	size_t i;
	int lines = 0;

	memset(&w, 0, sizeof(w));
	w.ntasks = 8;
	w.devices = devs;
	w.ndevices = 2;
	w.per_device = 1;
	w.run = fake_run;
	w.done = fake_done;
	w.ctx = &f;
	CHECK_INT_EQ(0, ks_workers_run(&w, &err));
	CHECK_INT_EQ(1, w.rerun);
	for (i = 0; i < 8; i++)
		CHECK_INT_EQ(0, read_task(f.dir, i, dev, sizeof(dev), &lines));
	CHECK_INT_EQ(0, read_task(f.dir, 3, dev, sizeof(dev), &lines));
	CHECK_INT_EQ(1, lines);
	snprintf(mark, sizeof(mark), "%s/died-3", f.dir);
	CHECK_INT_EQ(0, ks_fs_read(mark, &died, NULL));
	/* It died on one GPU and ran on the other. */
	CHECK(strncmp(died.buf, dev, strlen(dev)) != 0);
	ks_buf_release(&died);
	ks_buf_release(&err);
}

TEST(without_gpus_the_environment_is_left_alone)
{
	struct fake f = { test_tmpdir(), -1, 0 };
	struct ks_workers w;
	struct ks_buf err = KS_BUF_INIT;
	char dev[64] = "";
	int lines = 0;

	setenv("CUDA_VISIBLE_DEVICES", "7", 1);
	memset(&w, 0, sizeof(w));
	w.ntasks = 3;
	w.per_device = 5;
	w.run = fake_run;
	w.done = fake_done;
	w.ctx = &f;
	CHECK_INT_EQ(0, ks_workers_run(&w, &err));
	unsetenv("CUDA_VISIBLE_DEVICES");
	CHECK_INT_EQ(3, w.workers);	/* no more workers than tasks */
	CHECK_INT_EQ(0, read_task(f.dir, 2, dev, sizeof(dev), &lines));
	CHECK_STR_EQ("7", dev);
	ks_buf_release(&err);
}

void
ks_suite_workers(void)
{
	RUN(gpus_all_count_and_list);
	RUN(gpus_refuses_what_it_cannot_mean);
	RUN(visible_gpus_from_device_nodes);
	RUN(every_task_once_on_its_workers_gpu);
	RUN(a_task_whose_worker_died_runs_on_another_gpu);
	RUN(without_gpus_the_environment_is_left_alone);
}
