#include "eligibility.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../capture/capture.h"
#include "../core/buf.h"
#include "../core/conf.h"
#include "../core/fs.h"
#include "../core/json.h"
#include "../core/proc.h"
#include "../core/toolkit.h"
#include "../core/util.h"
#include "reviewer.h"

#define KS_ELIG_MAX_BYTES (1u << 20)

/* A row's reason is cut here, so that the table stays a table. */
#define KS_ELIG_WHY_COLUMNS 160

void
ks_elig_release(struct ks_elig *e)
{
	free(e->dir);
	free(e->kernel);
	free(e->demangled);
	free(e->verdict);
	free(e->why);
	memset(e, 0, sizeof(*e));
}

void
ks_elig_format(const struct ks_review_capture *rc, const char *time, struct ks_buf *out)
{
	const char *v = ks_review_verdict_name(rc->verdict);

	ks_buf_addf(out, "{\"format\": 1, \"verdict\": \"%s\", \"reproduces\": %s, \"why\": ",
		    v, rc->verdict == KS_REVIEW_ELIGIBLE ? "true" : "false");
	if (rc->why)
		ks_buf_add_json_str(out, rc->why);
	else
		ks_buf_adds(out, "null");
	ks_buf_adds(out, ", \"stage\": ");
	if (rc->stage)
		ks_buf_add_json_str(out, rc->stage);
	else
		ks_buf_adds(out, "null");
	ks_buf_adds(out, ", \"time\": ");
	ks_buf_add_json_str(out, time ? time : "");
	ks_buf_adds(out, "}\n");
}

int
ks_elig_parse(const char *text, struct ks_elig *e, struct ks_buf *err)
{
	cJSON *j = cJSON_Parse(text);
	const char *v;

	if (!cJSON_IsObject(j)) {
		cJSON_Delete(j);
		return ks_error(err, "not a verdict (no JSON object)");
	}
	v = ks_json_str(j, "verdict");
	if (!v) {
		cJSON_Delete(j);
		return ks_error(err, "not a verdict (no \"verdict\")");
	}
	free(e->verdict);
	free(e->why);
	e->verdict = ks_xstrdup(v);
	e->why = ks_json_dup(j, "why");
	e->reproduces = ks_json_true(j, "reproduces");
	e->checked = 1;
	cJSON_Delete(j);
	return 0;
}

int
ks_elig_load(const char *dir, struct ks_elig *e, struct ks_buf *err)
{
	struct ks_capture c;
	struct ks_buf text = KS_BUF_INIT;
	char *path;
	size_t i;

	memset(e, 0, sizeof(*e));
	memset(&c, 0, sizeof(c));
	if (ks_capture_load(dir, &c, err))
		return -1;
	e->dir = ks_xstrdup(dir);
	e->kernel = ks_xstrdup(c.kernel);
	e->demangled = c.demangled ? ks_xstrdup(c.demangled) : NULL;
	e->launch = c.launch;
	for (i = 0; i < c.nbuffers; i++)
		e->bytes += c.buffers[i].size;
	ks_capture_release(&c);
	path = ks_fs_join(dir, KS_ELIG_FILE);
	text.max = KS_ELIG_MAX_BYTES;
	if (!ks_fs_read(path, &text, NULL))
		ks_elig_parse(text.buf, e, NULL);
	free(path);
	ks_buf_release(&text);
	return 0;
}

/* "1.2 MB": bytes for a person. */
static void
add_bytes(struct ks_buf *out, unsigned long long b)
{
	static const char *const unit[] = { "B", "KB", "MB", "GB", "TB" };
	double v = (double)b;
	size_t u = 0;

	while (v >= 1000 && u + 1 < KS_ARRAY_SIZE(unit)) {
		v /= 1000;
		u++;
	}
	if (u)
		ks_buf_addf(out, "%.1f %s", v, unit[u]);
	else
		ks_buf_addf(out, "%llu B", b);
}

struct row {
	const char *kernel, *name;
	size_t launches, checked, reproduce;
	unsigned long long bytes;
	const char *why;
	struct ks_buf text[3];	/* launches, bytes, reproduces */
};

static void
pad(struct ks_buf *out, const char *s, size_t width)
{
	size_t n = strlen(s);

	ks_buf_adds(out, s);
	while (n++ < width)
		ks_buf_addch(out, ' ');
}

void
ks_elig_table(const struct ks_elig *v, size_t n, struct ks_buf *out)
{
	struct row *rows = ks_xcalloc(n + 1, sizeof(*rows));
	size_t nrows = 0, i, k, w[4] = { 6, 8, 5, 10 };

	for (i = 0; i < n; i++) {
		struct row *r = NULL;

		for (k = 0; k < nrows; k++)
			if (!strcmp(rows[k].kernel, v[i].kernel))
				r = &rows[k];
		if (!r) {
			r = &rows[nrows++];
			r->kernel = v[i].kernel;
			r->name = v[i].demangled ? v[i].demangled : v[i].kernel;
		}
		r->launches++;
		r->bytes += v[i].bytes;
		if (v[i].checked) {
			r->checked++;
			r->reproduce += v[i].reproduces;
			if (!v[i].reproduces && !r->why)
				r->why = v[i].why ? v[i].why : v[i].verdict;
		}
	}
	for (k = 0; k < nrows; k++) {
		struct row *r = &rows[k];

		ks_buf_addf(&r->text[0], "%zu", r->launches);
		add_bytes(&r->text[1], r->bytes);
		if (!r->checked)
			ks_buf_adds(&r->text[2], "not checked");
		else if (r->reproduce == r->checked && r->checked == r->launches)
			ks_buf_adds(&r->text[2], "yes");
		else if (!r->reproduce)
			ks_buf_adds(&r->text[2], "no");
		else
			ks_buf_addf(&r->text[2], "%zu of %zu", r->reproduce, r->launches);
		if (strlen(r->name) > w[0])
			w[0] = strlen(r->name);
		for (i = 0; i < 3; i++)
			if (r->text[i].len > w[i + 1])
				w[i + 1] = r->text[i].len;
	}
	if (w[0] > 60)
		w[0] = 60;
	pad(out, "kernel", w[0] + 2);
	pad(out, "launches", w[1] + 2);
	pad(out, "bytes", w[2] + 2);
	pad(out, "reproduces", w[3] + 2);
	ks_buf_adds(out, "reason\n");
	for (k = 0; k < nrows; k++) {
		struct row *r = &rows[k];
		size_t len = strlen(r->name);

		if (len > w[0]) {
			ks_buf_add(out, r->name, w[0] - 3);
			ks_buf_adds(out, "...  ");
		} else {
			pad(out, r->name, w[0] + 2);
		}
		for (i = 0; i < 3; i++)
			pad(out, r->text[i].buf, w[i + 1] + 2);
		if (r->why && strlen(r->why) > KS_ELIG_WHY_COLUMNS) {
			ks_buf_add(out, r->why, KS_ELIG_WHY_COLUMNS - 3);
			ks_buf_adds(out, "...");
		} else {
			ks_buf_adds(out, r->why ? r->why : r->checked ? "" : "-");
		}
		ks_buf_rtrim(out);
		ks_buf_addch(out, '\n');
		for (i = 0; i < 3; i++)
			ks_buf_release(&r->text[i]);
	}
	free(rows);
}

int
ks_elig_probe(const struct ks_conf *conf, struct ks_buf *why)
{
	const char *argv[3] = { NULL, "--probe", NULL };
	char *replay = ks_toolkit_companion("ks-replay", conf->replay);
	struct ks_buf out = KS_BUF_INIT, err = KS_BUF_INIT;
	struct ks_proc p;
	int rc = -1;

	if (!replay) {
		ks_buf_adds(why, "ks-replay not found (built only with the CUDA toolkit)");
		return -1;
	}
	argv[0] = replay;
	memset(&p, 0, sizeof(p));
	p.argv = argv;
	out.max = err.max = 64 << 10;
	p.out = &out;
	p.err_out = &err;
	p.timeout_ms = 120 * 1000;
	if (ks_proc_run(&p, &err)) {
		ks_buf_addf(why, "%s", err.buf);
	} else if (p.status) {
		ks_buf_rtrim(&err);
		/* 126, 127: it cannot even start (no driver library here). */
		ks_buf_addf(why, "%s%s", p.status == 126 || p.status == 127 ?
			    "ks-replay cannot start: " : "", err.len ? err.buf : "no GPU");
	} else {
		rc = 0;
	}
	free(replay);
	ks_buf_release(&out);
	ks_buf_release(&err);
	return rc;
}

static void
now_iso(char *buf, size_t n)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* One capture's check, in a child process. */
static void
check_one(const struct ks_conf *conf, const char *dir, const char *lock)
{
	struct ks_review_request rq;
	struct ks_review_result res;
	struct ks_buf err = KS_BUF_INIT, out = KS_BUF_INIT;
	const char *dirs[1] = { dir };
	char stamp[32], *path = ks_fs_join(dir, KS_ELIG_FILE);

	ks_review_request_init(&rq);
	rq.conf = conf;
	rq.captures = dirs;
	rq.ncaptures = 1;
	rq.random = 0;
	rq.gpu_lock = lock;
	rq.gpu_alone = 1;	/* every capture of a run at once would not fit */
	now_iso(stamp, sizeof(stamp));
	if (ks_review_run(&rq, &res, &err)) {
		struct ks_review_capture rc;

		memset(&rc, 0, sizeof(rc));
		rc.verdict = KS_REVIEW_ERROR;
		rc.why = err.buf;
		ks_elig_format(&rc, stamp, &out);
	} else {
		ks_elig_format(&res.per[0], stamp, &out);
		ks_review_result_release(&res);
	}
	ks_fs_write_atomic(path, out.buf, out.len, NULL);
	free(path);
	ks_buf_release(&err);
	ks_buf_release(&out);
}

size_t
ks_elig_check(const struct ks_conf *conf, const char *const *dirs, size_t n,
	      unsigned jobs)
{
	/* The lock of ks optimize too: a capture's check and a review's
	 * timing in one state directory take turns. */
	char *lock = ks_conf_gpu_lock(conf);
	size_t started = 0, running = 0, done = 0;

	if (!jobs) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);

		jobs = cpus > 0 ? (unsigned)cpus : 1;
	}
	fflush(NULL);
	while (done < n) {
		int status;

		if (started < n && running < jobs) {
			pid_t pid = fork();

			if (pid == 0) {
				check_one(conf, dirs[started], lock);
				_exit(0);
			}
			if (pid < 0) {
				/* No process to spare: this one here, in turn. */
				check_one(conf, dirs[started], lock);
				done++;
			} else {
				running++;
			}
			started++;
			continue;
		}
		if (wait(&status) < 0)
			break;
		running--;
		done++;
	}
	free(lock);
	return done;
}
