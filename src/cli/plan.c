/*
 * ks plan: the Planner's decision for each kernel, explained.
 *
 *   ks plan FILE.cu[:KERNEL] [--json] [--arch sm_NN] [--metrics FILE]
 *           [-- NVCC-ARGS...]
 *   ks plan CAPTURE [--json] [--metrics FILE]
 *
 * The static features come from `ks analyze --json` and the compiler
 * evidence from `ks evidence --json` (run as children: their JSON is the
 * interface), the counters from --metrics (a ks replay result, or an
 * object of metrics) or, for a capture, from the newest `ks replay
 * --metrics` of it. Without counters the cases that need them are
 * skipped and the plan says so. The allowed skills are then re-ranked by
 * the cross-task statistics under KS_DIR/knowledge.
 */
#include "ks.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../core/buf.h"
#include "../core/conf.h"
#include "../core/fs.h"
#include "../core/proc.h"
#include "../core/strv.h"
#include "../core/util.h"
#include "../capture/capture.h"
#include "../memory/knowledge.h"
#include "../memory/skills.h"
#include "../policy/policy.h"
#include "../review/build.h"

static void
set_object(const struct ks_policy *p, struct ks_policy_values *v, const char *prefix,
	   const cJSON *o)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, o) {
		char *name;

		if (!cJSON_IsNumber(it) && !cJSON_IsBool(it))
			continue;
		name = ks_xasprintf("%s.%s", prefix, it->string);
		ks_policy_set(p, v, name, cJSON_IsBool(it) ? cJSON_IsTrue(it) : it->valuedouble);
		free(name);
	}
}

static double
product(const cJSON *dims)
{
	const cJSON *d;
	double n = 1;
	int any = 0;

	cJSON_ArrayForEach(d, dims) {
		if (cJSON_IsNumber(d)) {
			n *= d->valuedouble;
			any = 1;
		}
	}
	return any ? n : 0;
}

void
ks_cli_plan_values(const struct ks_policy *p, struct ks_policy_values *v,
		   const cJSON *kernel, const cJSON *evidence, const cJSON *metrics,
		   const cJSON *block, const cJSON *grid, int fast_math)
{
	const cJSON *params = cJSON_GetObjectItemCaseSensitive(kernel, "params"), *q;
	double n = 0, ptr = 0, cptr = 0, rptr = 0, t;

	set_object(p, v, "f", cJSON_GetObjectItemCaseSensitive(kernel, "features"));
	if (evidence)
		set_object(p, v, "ev", evidence);
	if (metrics)
		set_object(p, v, "m", metrics);
	if (cJSON_IsArray(params)) {
		cJSON_ArrayForEach(q, params) {
			n++;
			if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(q, "pointer")))
				continue;
			ptr++;
			cptr += cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(q, "pointee_const"));
			rptr += cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(q, "restrict"));
		}
		ks_policy_set(p, v, "k.params", n);
		ks_policy_set(p, v, "k.pointer_params", ptr);
		ks_policy_set(p, v, "k.const_pointer_params", cptr);
		ks_policy_set(p, v, "k.restrict_params", rptr);
	}
	{
		const cJSON *br = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(kernel, "details"), "branches");
		double nb = 0;

		/* Data-dependent choices inside loops: a thread scanning data. */
		cJSON_ArrayForEach(q, br) {
			const cJSON *kind = cJSON_GetObjectItemCaseSensitive(q, "kind");

			nb += cJSON_IsString(kind) && !strcmp(kind->valuestring, "data") &&
				cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(q, "in_loop"));
		}
		if (cJSON_IsArray(br))
			ks_policy_set(p, v, "k.loop_data_branches", nb);
	}
	if (block && (t = product(block)) > 0)
		ks_policy_set(p, v, "k.block_threads", t);
	if (grid && (t = product(grid)) > 0)
		ks_policy_set(p, v, "k.grid_blocks", t);
	if (fast_math >= 0)
		ks_policy_set(p, v, "b.fast_math", fast_math);
}

/* Run `ks ARGS...` and parse what it prints. */
static cJSON *
run_self_json(struct ks_strv *args, struct ks_buf *err)
{
	char *self = ks_fs_realpath("/proc/self/exe");
	struct ks_buf out = KS_BUF_INIT, e = KS_BUF_INIT;
	struct ks_proc p;
	cJSON *j = NULL;

	if (!self) {
		ks_error(err, "cannot find the ks program");
		return NULL;
	}
	ks_strv_insert(args, 0, self);
	memset(&p, 0, sizeof(p));
	p.argv = (const char *const *)args->v;
	out.max = 64 << 20;
	e.max = 1 << 20;
	p.out = &out;
	p.err_out = &e;
	if (!ks_proc_run(&p, err)) {
		if (p.status) {
			ks_buf_rtrim(&e);
			ks_error(err, "ks %s failed: %s", args->v[1], e.buf);
		} else if (!(j = cJSON_Parse(out.buf))) {
			ks_error(err, "ks %s printed no JSON", args->v[1]);
		}
	}
	ks_buf_release(&out);
	ks_buf_release(&e);
	free(self);
	return j;
}

/* The capture directory CAPTURE names, or NULL. */
static char *
find_capture(const char *dir, const char *arg)
{
	char *p = ks_fs_join(arg, "launch.json"), *kdir, *best = NULL;
	DIR *d;
	struct dirent *de;
	long bestn = -1;

	if (ks_fs_exists(p)) {
		free(p);
		return ks_fs_realpath(arg);
	}
	free(p);
	kdir = ks_xasprintf("%s/captures/%s", dir, arg);
	p = ks_fs_join(kdir, "launch.json");
	if (ks_fs_exists(p)) {
		free(p);
		return kdir;
	}
	free(p);
	d = opendir(kdir);
	while (d && (de = readdir(d))) {
		char *end;
		long n = strtol(de->d_name, &end, 10);

		if (*end || end == de->d_name || n <= bestn)
			continue;
		p = ks_xasprintf("%s/%s/launch.json", kdir, de->d_name);
		if (ks_fs_exists(p)) {
			bestn = n;
			free(best);
			best = ks_xasprintf("%s/%s", kdir, de->d_name);
		}
		free(p);
	}
	if (d)
		closedir(d);
	free(kdir);
	return best;
}

/* The metrics of the original in the newest `ks replay` of a capture. */
static cJSON *
newest_review_metrics(const char *dir, const char *kernel, unsigned long launch)
{
	char *kdir = ks_capture_kernel_dir(kernel);
	char *prefix = ks_xasprintf("%s-%lu-", kdir, launch);
	char *rdir, *best = NULL;
	time_t best_t = 0;
	DIR *d;
	struct dirent *de;
	cJSON *j = NULL, *m;

	rdir = ks_fs_join(dir, "replay");
	d = opendir(rdir);

	while (d && (de = readdir(d))) {
		struct stat st;
		char *p;

		if (!ks_starts_with(de->d_name, prefix))
			continue;
		p = ks_xasprintf("%s/%s/review.json", rdir, de->d_name);
		if (!stat(p, &st) && st.st_mtime >= best_t) {
			best_t = st.st_mtime;
			free(best);
			best = p;
		} else {
			free(p);
		}
	}
	if (d)
		closedir(d);
	if (best) {
		struct ks_buf text = KS_BUF_INIT, err = KS_BUF_INIT;

		if (!ks_fs_read(best, &text, &err))
			j = cJSON_Parse(text.buf);
		ks_buf_release(&text);
		ks_buf_release(&err);
	}
	m = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "metrics"),
					     "original");
	m = m ? cJSON_DetachItemViaPointer(cJSON_GetObjectItemCaseSensitive(j, "metrics"), m) :
		NULL;
	cJSON_Delete(j);
	free(best);
	free(rdir);
	free(prefix);
	free(kdir);
	return m;
}

/* A --metrics file: a replay result (its original's metrics) or metrics. */
static cJSON *
load_metrics(const char *path, struct ks_buf *err)
{
	struct ks_buf text = KS_BUF_INIT;
	cJSON *j = NULL, *m;

	if (ks_fs_read(path, &text, err))
		goto out;
	j = cJSON_Parse(text.buf);
	if (!cJSON_IsObject(j)) {
		ks_error(err, "%s: not a JSON object", path);
		cJSON_Delete(j);
		j = NULL;
		goto out;
	}
	m = cJSON_GetObjectItemCaseSensitive(j, "metrics");
	if (cJSON_IsObject(m) && cJSON_GetObjectItemCaseSensitive(m, "original")) {
		cJSON *o = cJSON_DetachItemViaPointer(m, cJSON_GetObjectItemCaseSensitive(m,
											"original"));

		cJSON_Delete(j);
		j = o;
	}
out:
	ks_buf_release(&text);
	return j;
}

/* The newest build record of `source` under <dir>/builds, if any. */
static int
newest_record_of(const char *dir, const char *source, struct ks_build_rec *best)
{
	char *builds = ks_fs_join(dir, "builds");
	DIR *d = opendir(builds);
	struct dirent *de;
	int found = 0;

	while (d && (de = readdir(d))) {
		struct ks_build_rec r;
		struct ks_buf err = KS_BUF_INIT;
		char *path;

		if (!ks_ends_with(de->d_name, ".json"))
			continue;
		memset(&r, 0, sizeof(r));
		path = ks_fs_join(builds, de->d_name);
		if (!ks_build_rec_load(path, &r, &err) && r.source && !strcmp(r.source, source) &&
		    (!found || strcmp(r.time ? r.time : "", best->time ? best->time : "") > 0)) {
			ks_build_rec_release(best);
			*best = r;
			found = 1;
		} else {
			ks_build_rec_release(&r);
		}
		ks_buf_release(&err);
		free(path);
	}
	if (d)
		closedir(d);
	free(builds);
	return found;
}

static int
has_fast_math(const struct ks_strv *args)
{
	size_t i;

	for (i = 0; i < args->n; i++)
		if (!strcmp(args->v[i], "-use_fast_math") ||
		    !strcmp(args->v[i], "--use_fast_math"))
			return 1;
	return 0;
}

/*
 * Does kernel object `k` match `want` (its name, qualified or mangled
 * name, or one of a template's instances, mangled or displayed)? *inst
 * gets the instance's mangled name where `want` names one (or the
 * template has one alone), else NULL.
 */
static int
kernel_matches(const cJSON *k, const char *want, const char **inst)
{
	static const char *const keys[] = { "name", "qualified", "mangled", NULL };
	const cJSON *insts = cJSON_GetObjectItemCaseSensitive(k, "instances"), *i1;
	size_t i;
	int match = !want;

	*inst = NULL;
	if (!want)
		match = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(k, "in_main_file"));
	for (i = 0; want && keys[i] && !match; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(k, keys[i]);

		match = cJSON_IsString(v) && !strcmp(v->valuestring, want);
	}
	cJSON_ArrayForEach(i1, insts) {
		const char *m = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(i1, "mangled"));
		const char *d = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(i1, "display"));

		if (want && ((m && !strcmp(m, want)) || (d && !strcmp(d, want)))) {
			*inst = m;
			return 1;
		}
	}
	if (match && cJSON_GetArraySize(insts) == 1)
		*inst = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
			cJSON_GetArrayItem(insts, 0), "mangled"));
	return match;
}

/*
 * A template's instance: its facts are those of its plain copy in the
 * instance view (the template's own are of its dependent types), as ks
 * optimize plans. The view's analysis as JSON (owned, NULL when no view
 * can be made: the reason in `why`); *kobj its copy's object.
 */
static cJSON *
instance_facts(struct ks_conf *conf, const struct ks_build_rec *rec,
	       const char *file, const struct ks_strv *nvargs, const char *arch,
	       const char *mangled, const cJSON **kobj, struct ks_buf *why)
{
	struct ks_inventory inv;
	struct ks_inst_view v;
	struct ks_inst_view_in in;
	struct ks_buf text = KS_BUF_INIT, j = KS_BUF_INIT;
	char *used = NULL;
	cJSON *an = NULL;

	*kobj = NULL;
	memset(&inv, 0, sizeof(inv));
	memset(&in, 0, sizeof(in));
	in.record = rec->path;
	in.file = rec->path ? NULL : file;
	in.nvcc_argv = rec->path ? NULL : nvargs->v;
	in.nvcc_argc = rec->path ? 0 : (int)nvargs->n;
	if (ks_analyze_inventory(in.record, in.file, in.nvcc_argv, in.nvcc_argc, arch,
				 conf, &inv, &used, why))
		goto out;
	in.arch = used;
	in.conf = conf;
	in.k = ks_inventory_find(&inv, mangled);
	in.source = inv.source;
	in.name = mangled;
	text.max = 64 << 20;
	if (!in.k || ks_fs_read(inv.source, &text, why))
		goto out;
	in.text = text.buf;
	in.len = text.len;
	if (ks_inst_view_make(&in, &v, why))
		goto out;
	ks_inventory_format_json(&v.inv, &j);
	an = cJSON_Parse(j.buf);
	if (an && v.k->mangled) {
		const cJSON *k;

		cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(an, "kernels")) {
			const char *m = cJSON_GetStringValue(
				cJSON_GetObjectItemCaseSensitive(k, "mangled"));

			if (m && !strcmp(m, v.k->mangled))
				*kobj = k;
		}
	}
	ks_inst_view_release(&v);
out:
	if (an && !*kobj) {
		cJSON_Delete(an);
		an = NULL;
	}
	ks_inventory_release(&inv);
	ks_buf_release(&text);
	ks_buf_release(&j);
	free(used);
	return an;
}

/* The evidence features of `mangled` on `arch` (NULL: the newest real arch). */
static const cJSON *
evidence_of(const cJSON *ev, const char *mangled, const char *arch)
{
	const cJSON *r, *best = NULL;

	cJSON_ArrayForEach(r, ev) {
		const cJSON *k = cJSON_GetObjectItemCaseSensitive(r, "kernel");
		const cJSON *a = cJSON_GetObjectItemCaseSensitive(r, "arch");

		if (!cJSON_IsString(k) || strcmp(k->valuestring, mangled) || !cJSON_IsString(a))
			continue;
		if (arch ? !strcmp(a->valuestring, arch) :
		    (!best || strcmp(a->valuestring,
				     cJSON_GetObjectItemCaseSensitive(best, "arch")->valuestring) > 0))
			best = r;
	}
	return best ? cJSON_GetObjectItemCaseSensitive(best, "features") : NULL;
}

int
ks_cmd_plan(int argc, char **argv, struct ks_conf *conf)
{
	const char *target = NULL, *metrics_file = NULL, *arch = NULL;
	struct ks_strv nvargs = KS_STRV_INIT, aargs = KS_STRV_INIT, eargs = KS_STRV_INIT;
	struct ks_buf err = KS_BUF_INIT, out = KS_BUF_INIT;
	struct ks_skills sk = { 0 };
	struct ks_policy pol = { 0 };
	struct ks_knowledge know = { 0 };
	struct ks_build_rec rec;
	cJSON *an = NULL, *ev = NULL, *metrics = NULL, *launch = NULL, *k;
	char *cap = NULL, *file = NULL, *kernel = NULL, *mangled = NULL, *archbuf = NULL;
	char *abs = NULL;
	int json = 0, dashes = 0, fast = -1, rc = KS_EXIT_FAILED, i, nplanned = 0;

	memset(&rec, 0, sizeof(rec));
	for (i = 1; i < argc; i++) {
		if (dashes)
			ks_strv_push(&nvargs, argv[i]);
		else if (!strcmp(argv[i], "--"))
			dashes = 1;
		else if (!strcmp(argv[i], "--json"))
			json = 1;
		else if (!strcmp(argv[i], "--metrics") && i + 1 < argc)
			metrics_file = argv[++i];
		else if (!strcmp(argv[i], "--arch") && i + 1 < argc)
			arch = argv[++i];
		else if (argv[i][0] != '-' && !target)
			target = argv[i];
		else
			target = NULL, argc = -1;
	}
	if (!target || argc < 0) {
		fprintf(stderr, "usage: ks plan FILE.cu[:KERNEL] [--json] [--arch sm_NN] "
			"[--metrics FILE] [-- NVCC-ARGS...]\n"
			"       ks plan CAPTURE [--json] [--metrics FILE]\n");
		rc = KS_EXIT_USAGE;
		goto out;
	}
	if (ks_cli_load_library(conf, &sk, &pol, &err))
		goto fail;
	if (ks_knowledge_load(conf->dir, &know, &err))
		goto fail;
	if (metrics_file && !(metrics = load_metrics(metrics_file, &err)))
		goto fail;

	ks_strv_push(&aargs, "analyze");
	ks_strv_push(&eargs, "evidence");
	ks_strv_push(&eargs, "--json");
	cap = dashes ? NULL : find_capture(conf->dir, target);
	if (cap) {
		struct ks_buf text = KS_BUF_INIT;
		char *lp = ks_fs_join(cap, "launch.json");
		const cJSON *mg, *cc, *rp;

		if (ks_fs_read(lp, &text, &err) || !(launch = cJSON_Parse(text.buf))) {
			ks_error(&err, "cannot read %s", lp);
			free(lp);
			ks_buf_release(&text);
			goto fail;
		}
		free(lp);
		ks_buf_release(&text);
		mg = cJSON_GetObjectItemCaseSensitive(launch, "kernel");
		if (!cJSON_IsString(mg)) {
			ks_error(&err, "%s: no kernel name in launch.json", cap);
			goto fail;
		}
		mangled = ks_xstrdup(mg->valuestring);
		kernel = ks_xstrdup(mangled);
		/* The record the capture names, else the newest that built it. */
		rp = cJSON_GetObjectItemCaseSensitive(launch, "record");
		if (!(cJSON_IsString(rp) && ks_fs_exists(rp->valuestring) &&
		      !ks_build_rec_load(rp->valuestring, &rec, &err)) &&
		    ks_build_rec_find(conf->dir, mangled, &rec, &err))
			goto fail;
		ks_buf_reset(&err);
		ks_strv_push(&aargs, "--record");
		ks_strv_push(&aargs, rec.path);
		ks_strv_push(&aargs, "--json");
		ks_strv_push(&eargs, rec.source);
		fast = has_fast_math(&rec.argv);
		cc = cJSON_GetObjectItemCaseSensitive(launch, "cc");
		if (!arch && cJSON_GetArraySize(cc) == 2) {
			archbuf = ks_xasprintf("sm_%d%d", cJSON_GetArrayItem(cc, 0)->valueint,
					       cJSON_GetArrayItem(cc, 1)->valueint);
			arch = archbuf;
		}
		if (!metrics)
			metrics = newest_review_metrics(conf->dir, mangled,
				(unsigned long)cJSON_GetNumberValue(
					cJSON_GetObjectItemCaseSensitive(launch, "launch")));
	} else {
		const char *colon = strrchr(target, ':');

		if (colon && ks_ends_with(target, ".cu") == 0 && !ks_fs_exists(target)) {
			file = ks_xstrndup(target, (size_t)(colon - target));
			kernel = ks_xstrdup(colon + 1);
		} else {
			file = ks_xstrdup(target);
		}
		if (!ks_fs_exists(file)) {
			ks_error(&err, "'%s' is neither a capture nor a file", target);
			goto fail;
		}
		abs = ks_fs_realpath(file);
		if (!dashes && abs && newest_record_of(conf->dir, abs, &rec)) {
			/* Built through ks-nvcc: analyze it with the build's flags. */
			ks_strv_push(&aargs, "--record");
			ks_strv_push(&aargs, rec.path);
			fast = has_fast_math(&rec.argv);
		} else {
			ks_strv_push(&aargs, file);
		}
		ks_strv_push(&aargs, "--json");
		ks_strv_push(&eargs, file);
		if (dashes) {
			size_t j;

			ks_strv_push(&aargs, "--");
			ks_strv_push(&eargs, "--");
			for (j = 0; j < nvargs.n; j++) {
				ks_strv_push(&aargs, nvargs.v[j]);
				ks_strv_push(&eargs, nvargs.v[j]);
			}
			fast = has_fast_math(&nvargs);
		}
	}
	if (!(an = run_self_json(&aargs, &err)))
		goto fail;
	ev = run_self_json(&eargs, &err);
	if (!ev) {
		/* No evidence is a weaker plan, not no plan. */
		fprintf(stderr, "ks: warning: no compiler evidence: %s\n", err.buf);
		ks_buf_reset(&err);
	}
	if (json)
		ks_buf_adds(&out, "[");
	cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(an, "kernels")) {
		struct ks_policy_values vals;
		struct ks_plan plan;
		const cJSON *mg = cJSON_GetObjectItemCaseSensitive(k, "mangled");
		const cJSON *nm = cJSON_GetObjectItemCaseSensitive(k, "qualified");
		const char *mname = cJSON_IsString(mg) ? mg->valuestring : "";
		const char *inst = NULL;
		const cJSON *facts = k;
		cJSON *view = NULL;

		if (!kernel_matches(k, kernel, &inst))
			continue;
		if (inst) {
			struct ks_buf why = KS_BUF_INIT;

			mname = inst;
			view = instance_facts(conf, &rec, file, &nvargs, arch, inst,
					      &facts, &why);
			if (!view) {
				fprintf(stderr, "ks: warning: %s: the template's own "
					"facts (no instance view: %s)\n", inst, why.buf);
				facts = k;
			}
			ks_buf_release(&why);
		}
		ks_policy_values_init(&vals, &pol);
		ks_cli_plan_values(&pol, &vals, facts, evidence_of(ev, mname, arch), metrics,
				   cJSON_GetObjectItemCaseSensitive(launch, "block"),
				   cJSON_GetObjectItemCaseSensitive(launch, "grid"), fast);
		ks_policy_plan(&pol, &vals, &plan);
		ks_policy_rank(&pol, &vals, &know, &plan);
		if (json) {
			ks_buf_adds(&out, nplanned ? ",\n{\"kernel\": " : "{\"kernel\": ");
			ks_buf_add_json_str(&out, cJSON_IsString(nm) ? nm->valuestring : "");
			ks_buf_adds(&out, ", \"mangled\": ");
			ks_buf_add_json_str(&out, mname);
			ks_buf_adds(&out, ", \"plan\": ");
			ks_plan_json(&plan, &out);
			ks_buf_rtrim(&out);
			ks_buf_adds(&out, "}");
		} else {
			ks_buf_addf(&out, "%skernel %s (%s)\n", nplanned ? "\n" : "",
				    cJSON_IsString(nm) ? nm->valuestring : "?", mname);
			ks_plan_format(&plan, &out);
		}
		nplanned++;
		ks_plan_release(&plan);
		ks_policy_values_release(&vals);
		cJSON_Delete(view);
	}
	if (json)
		ks_buf_adds(&out, "]\n");
	if (!nplanned) {
		ks_error(&err, "no kernel%s%s in %s", kernel ? " named " : "",
			 kernel ? kernel : "", cap ? cap : file);
		goto fail;
	}
	fputs(out.buf, stdout);
	rc = 0;
	goto out;
fail:
	fprintf(stderr, "ks: error: %s\n", err.buf);
out:
	cJSON_Delete(an);
	cJSON_Delete(ev);
	cJSON_Delete(metrics);
	cJSON_Delete(launch);
	ks_strv_release(&nvargs);
	ks_strv_release(&aargs);
	ks_strv_release(&eargs);
	ks_buf_release(&err);
	ks_buf_release(&out);
	ks_build_rec_release(&rec);
	ks_knowledge_release(&know);
	ks_policy_release(&pol);
	ks_skills_release(&sk);
	free(cap);
	free(file);
	free(kernel);
	free(mangled);
	free(archbuf);
	free(abs);
	return rc;
}

/* For ks optimize, which gathers the same facts per task. */
cJSON *
ks_cli_self_json(struct ks_strv *args, struct ks_buf *err)
{
	return run_self_json(args, err);
}

const cJSON *
ks_cli_evidence_of(const cJSON *ev, const char *mangled, const char *arch)
{
	return evidence_of(ev, mangled, arch);
}
