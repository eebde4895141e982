/*
 * ks analyze: the kernels and launches of one CUDA translation unit, their
 * static features and keys, and (with --manifest) the direct-mode
 * manifest that lets ks-nvcc find those keys without libclang.
 *
 *   ks analyze FILE.cu [options] [-- nvcc arguments]
 *   ks analyze --record RECORD.json [options]
 *
 * The TU is parsed with the build's flags: those of the build record, or
 * the nvcc arguments after "--". Without a build record the toolkit is
 * the real nvcc's (KS_NVCC, PATH, CUDA_HOME), as for a build.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../wrapper/args.h"
#include "../../wrapper/manifest.h"
#include "../../wrapper/nvccver.h"
#include "../../wrapper/nvopts.h"
#include "../../wrapper/passthru.h"
#include "../analysis/closure.h"
#include "../analysis/inventory.h"
#include "../core/buf.h"
#include "../core/conf.h"
#include "../core/fs.h"
#include "../core/log.h"
#include "../core/proc.h"
#include "../core/strv.h"
#include "../core/util.h"
#include "ks.h"

#define USAGE                                                                  \
	"usage: ks analyze FILE.cu [--json] [--arch sm_NN] [--closure "        \
	"KERNEL]\n"                                                            \
	"                  [--manifest] [--no-pch] [-- nvcc arguments]\n"      \
	"       ks analyze --record RECORD.json [same options]\n"

/* What one analysis needs to know about the build. */
struct build {
	char *source;
	char *cwd;
	char *nvcc;		/* the real nvcc, or NULL */
	char *nvcc_version;	/* "13.0.88" or "" */
	char *toolkit;		/* or NULL: parse with the minimal prelude */
	char *std;
	char *depfile;
	struct ks_strv argv;	/* nvcc's arguments, as the build gave them */
	struct ks_strv includes, defines, devflags;
	struct ks_strv archs;	/* real archs ("sm_90"), the keys' archs */
};

static void
build_init(struct build *b)
{
	memset(b, 0, sizeof(*b));
	ks_strv_init(&b->argv);
	ks_strv_init(&b->includes);
	ks_strv_init(&b->defines);
	ks_strv_init(&b->devflags);
	ks_strv_init(&b->archs);
}

static void
build_release(struct build *b)
{
	free(b->source);
	free(b->cwd);
	free(b->nvcc);
	free(b->nvcc_version);
	free(b->toolkit);
	free(b->std);
	free(b->depfile);
	ks_strv_release(&b->argv);
	ks_strv_release(&b->includes);
	ks_strv_release(&b->defines);
	ks_strv_release(&b->devflags);
	ks_strv_release(&b->archs);
}

/* <toolkit>/bin/nvcc -> <toolkit>, when it has the CUDA headers. */
static char *
toolkit_of(const char *nvcc)
{
	char *real = nvcc ? ks_fs_realpath(nvcc) : NULL;
	char *slash, *hdr;

	if (real) {
		slash = strrchr(real, '/');
		if (slash)
			*slash = '\0';
		slash = strrchr(real, '/');
		if (slash)
			*slash = '\0';
		hdr = ks_xasprintf("%s/include/cuda_runtime.h", real);
		if (ks_fs_exists(hdr)) {
			free(hdr);
			return real;
		}
		free(hdr);
		free(real);
	}
	return NULL;
}

static char *
toolkit_from_env(void)
{
	static const char *const vars[] = { "CUDA_HOME", "CUDA_PATH" };
	size_t i;

	for (i = 0; i < KS_ARRAY_SIZE(vars) + 1; i++) {
		const char *d = i < KS_ARRAY_SIZE(vars) ? getenv(vars[i])
							 : "/usr/local/cuda";
		char *hdr;

		if (!d || !*d)
			continue;
		hdr = ks_xasprintf("%s/include/cuda_runtime.h", d);
		if (ks_fs_exists(hdr)) {
			free(hdr);
			return ks_fs_realpath(d);
		}
		free(hdr);
	}
	return NULL;
}

/*
 * The archs a kernel key is made for: the real ones ("sm_90"), which are
 * what a variant is verified on; the virtual ones only for a PTX-only
 * build.
 */
static void
add_arch(struct ks_strv *reals, struct ks_strv *virts, const char *real,
	 const char *virt)
{
	if (real && *real && ks_strv_find(reals, real) < 0)
		ks_strv_push(reals, real);
	if (virt && *virt && ks_strv_find(virts, virt) < 0)
		ks_strv_push(virts, virt);
}

static void
archs_done(struct ks_strv *reals, struct ks_strv *virts, struct ks_strv *out)
{
	struct ks_strv *use = reals->n ? reals : virts;

	ks_strv_pushv(out, (const char *const *)use->v, use->n);
	ks_strv_release(reals);
	ks_strv_release(virts);
}

static void
archs_of(const struct ks_args *a, struct ks_strv *out)
{
	struct ks_strv reals = KS_STRV_INIT, virts = KS_STRV_INIT;
	size_t i;

	for (i = 0; i < a->narchs; i++)
		add_arch(&reals, &virts, a->archs[i].real, a->archs[i].virt);
	archs_done(&reals, &virts, out);
}

/* The arch to parse for: the newest of the build's targets. */
static const char *
parse_arch(const struct ks_strv *archs)
{
	const char *best = NULL;
	int bn = -1;
	size_t i;

	for (i = 0; i < archs->n; i++) {
		const char *d = strchr(archs->v[i], '_');
		int n = d ? atoi(d + 1) : -1;

		if (n > bn) {
			bn = n;
			best = archs->v[i];
		}
	}
	return best;
}

static int
from_args(struct build *b, const char *file, char **argv, int argc,
	  struct ks_conf *conf, struct ks_buf *err)
{
	struct ks_args a;
	char *self = ks_passthru_self();
	struct ks_buf ver = KS_BUF_INIT, ignored = KS_BUF_INIT;
	int i, have_file = 0, rc = -1;

	ks_args_init(&a);
	for (i = 0; i < argc; i++) {
		ks_strv_push(&b->argv, argv[i]);
		have_file |= !strcmp(argv[i], file);
	}
	if (!have_file)
		ks_strv_push(&b->argv, file);
	if (ks_args_classify(&b->argv, &a, err))
		goto out;
	b->source = ks_xstrdup(file);
	b->cwd = ks_fs_getcwd();
	b->nvcc = ks_passthru_find(conf->nvcc, self, &ignored);
	if (b->nvcc && ks_nvccver_get(conf->dir, b->nvcc, &ver, &ignored) == 0)
		b->nvcc_version = ks_buf_detach(&ver, NULL);
	else
		b->nvcc_version = ks_xstrdup("");
	b->toolkit = toolkit_of(b->nvcc);
	if (!b->toolkit)
		b->toolkit = toolkit_from_env();
	b->std = a.std ? ks_xstrdup(a.std) : NULL;
	b->depfile = a.depfile ? ks_xstrdup(a.depfile) : NULL;
	ks_strv_pushv(&b->includes, (const char *const *)a.includes.v,
		      a.includes.n);
	ks_strv_pushv(&b->defines, (const char *const *)a.defines.v,
		      a.defines.n);
	ks_strv_pushv(&b->devflags, (const char *const *)a.devflags.v,
		      a.devflags.n);
	archs_of(&a, &b->archs);
	rc = 0;
out:
	ks_args_release(&a);
	ks_buf_release(&ver);
	ks_buf_release(&ignored);
	free(self);
	return rc;
}

static char *
json_dup(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? ks_xstrdup(v->valuestring) : NULL;
}

static void
json_strv(const cJSON *o, const char *key, struct ks_strv *out)
{
	const cJSON *v, *arr = cJSON_GetObjectItemCaseSensitive(o, key);

	cJSON_ArrayForEach(v, arr)
		if (cJSON_IsString(v))
			ks_strv_push(out, v->valuestring);
}

static int
from_record(struct build *b, const char *path, struct ks_buf *err)
{
	struct ks_strv reals = KS_STRV_INIT, virts = KS_STRV_INIT;
	struct ks_buf text = KS_BUF_INIT;
	const cJSON *arr, *v;
	cJSON *o = NULL;
	int rc = -1;

	text.max = 1 << 22;
	if (ks_fs_read(path, &text, err))
		goto out;
	o = cJSON_Parse(text.buf);
	if (!o) {
		ks_error(err, "'%s' is not a build record (not JSON)", path);
		goto out;
	}
	b->source = json_dup(o, "source");
	b->cwd = json_dup(o, "cwd");
	if (!b->source || !b->cwd) {
		ks_error(err, "'%s' is not a build record (no source or cwd)",
			 path);
		goto out;
	}
	b->nvcc = json_dup(o, "nvcc");
	b->nvcc_version = json_dup(o, "nvcc_version");
	if (!b->nvcc_version)
		b->nvcc_version = ks_xstrdup("");
	b->std = json_dup(o, "std");
	b->depfile = json_dup(o, "depfile");
	b->toolkit = toolkit_of(b->nvcc);
	json_strv(o, "argv", &b->argv);
	json_strv(o, "includes", &b->includes);
	json_strv(o, "defines", &b->defines);
	json_strv(o, "device_flags", &b->devflags);
	arr = cJSON_GetObjectItemCaseSensitive(o, "archs");
	cJSON_ArrayForEach(v, arr) {
		const cJSON *r = cJSON_GetObjectItemCaseSensitive(v, "real");
		const cJSON *vi =
			cJSON_GetObjectItemCaseSensitive(v, "virtual");

		add_arch(&reals, &virts,
			 cJSON_IsString(r) ? r->valuestring : NULL,
			 cJSON_IsString(vi) ? vi->valuestring : NULL);
	}
	archs_done(&reals, &virts, &b->archs);
	rc = 0;
out:
	cJSON_Delete(o);
	ks_buf_release(&text);
	return rc;
}

/* ---- the manifest -------------------------------------------------------- */

/* nvcc's argv for `nvcc -M`: the compile without outputs and phases. */
static void
deps_argv(const struct ks_strv *argv, struct ks_strv *out)
{
	struct ks_strv norm = KS_STRV_INIT;
	size_t i;
	int rdc = 0;

	ks_manifest_normalize_argv(argv, &norm);
	for (i = 0; i < norm.n; i++) {
		const struct ks_nvopt *opt = NULL;
		const char *value = NULL;

		if (ks_nvopt_parse(norm.v[i], &opt, &value) ==
			    KS_NVOPT_WORD_OPTION &&
		    opt &&
		    ((opt->flags & KS_NVOPT_MODE) ||
		     !strcmp(opt->name, "keep") ||
		     !strcmp(opt->name, "keep-dir") ||
		     !strcmp(opt->name, "save-temps") ||
		     !strcmp(opt->name, "verbose"))) {
			if (!strcmp(opt->name, "device-c"))
				rdc = 1;
			if ((opt->flags & KS_NVOPT_TAKES_ARG) && !value)
				i++;
			continue;
		}
		ks_strv_push(out, norm.v[i]);
	}
	if (rdc)
		ks_strv_push(out, "-rdc=true");
	ks_strv_push(out, "-M");
	ks_strv_release(&norm);
}

/* The files the TU includes, from nvcc -M, else the build's depfile. */
static int
included_files(const struct build *b, struct ks_strv *files, struct ks_buf *err)
{
	struct ks_strv argv = KS_STRV_INIT;
	struct ks_buf out = KS_BUF_INIT, eout = KS_BUF_INIT, text = KS_BUF_INIT;
	/* the argv already holds NVCC_PREPEND/APPEND_FLAGS' words */
	static const char *const env[] = { "NVCC_PREPEND_FLAGS=",
					   "NVCC_APPEND_FLAGS=", NULL };
	int rc = -1;

	out.max = eout.max = text.max = 1 << 24;
	if (b->nvcc) {
		struct ks_proc p;

		memset(&p, 0, sizeof(p));
		ks_strv_push(&argv, b->nvcc);
		deps_argv(&b->argv, &argv);
		p.argv = (const char *const *)argv.v;
		p.env = env;
		p.cwd = b->cwd;
		p.out = &out;
		p.err_out = &eout;
		p.timeout_ms = 120000;
		if (ks_proc_run(&p, err) == 0 && p.status == 0 &&
		    !p.timed_out) {
			ks_manifest_parse_deps(out.buf, files);
			rc = 0;
			goto out;
		}
		ks_log("analyze: nvcc -M failed (status %d): %s", p.status,
		       eout.buf);
	}
	if (b->depfile && ks_fs_read(b->depfile, &text, err) == 0) {
		ks_manifest_parse_deps(text.buf, files);
		rc = 0;
		goto out;
	}
	ks_buf_reset(err);
	ks_error(err, "cannot list the headers of '%s' (nvcc -M failed and no "
		      "depfile)", b->source);
out:
	ks_strv_release(&argv);
	ks_buf_release(&out);
	ks_buf_release(&eout);
	ks_buf_release(&text);
	return rc;
}

static char *
write_manifest(const struct build *b, const char *source,
	       const struct ks_inventory *inv, struct ks_conf *conf,
	       struct ks_buf *err)
{
	struct ks_strv files = KS_STRV_INIT;
	struct ks_manifest_entry e;
	struct ks_buf tu = KS_BUF_INIT;
	char *toolkit = b->toolkit ? ks_fs_realpath(b->toolkit) : NULL;
	char *path = NULL;
	char id[33];
	size_t i, j;

	memset(&e, 0, sizeof(e));
	if (included_files(b, &files, err) || ks_fs_read(source, &tu, err))
		goto out;
	for (i = 0; i < files.n; i++) {
		char *abs = files.v[i][0] == '/' ? ks_fs_realpath(files.v[i])
						 : NULL;
		char hash[33];
		long long size;

		if (!abs) {
			char *p = ks_fs_join(b->cwd, files.v[i]);

			abs = ks_fs_realpath(p);
			free(p);
		}
		if (!abs) {
			ks_error(err, "cannot find header '%s'", files.v[i]);
			goto out;
		}
		if (!strcmp(abs, source)) {
			free(abs);
			continue;
		}
		if (toolkit && ks_starts_with(abs, toolkit) &&
		    abs[strlen(toolkit)] == '/') {
			ks_manifest_entry_add_header(&e, abs, NULL, -1, 1);
		} else if (ks_manifest_file_digest(abs, -1, hash, &size,
						   NULL) == 0) {
			ks_manifest_entry_add_header(&e, abs, hash, size, 0);
		} else {
			ks_error(err, "cannot read header '%s'", abs);
			free(abs);
			goto out;
		}
		free(abs);
	}
	for (i = 0; i < inv->nkernels; i++)
		for (j = 0; j < inv->kernels[i].nkeys; j++)
			ks_manifest_entry_add_kernel(
				&e, inv->kernels[i].keys[j].key,
				inv->kernels[i].keys[j].arch,
				inv->kernels[i].keys[j].mangled);
	ks_manifest_id(tu.buf, tu.len, b->cwd, &b->argv, b->nvcc_version, id);
	if (ks_manifest_store(conf->dir, id, source, &e, conf->lock_timeout_ms,
			      err))
		goto out;
	path = ks_manifest_path(conf->dir, id);
out:
	ks_manifest_entry_release(&e);
	ks_strv_release(&files);
	ks_buf_release(&tu);
	free(toolkit);
	return path;
}

int
ks_cmd_analyze(int argc, char **argv, struct ks_conf *conf)
{
	struct build b;
	struct ks_inventory inv;
	struct ks_tu_opts o;
	struct ks_buf err = KS_BUF_INIT, out = KS_BUF_INIT;
	const char *file = NULL, *record = NULL, *arch = NULL, *closure = NULL;
	int json = 0, manifest = 0, no_pch = 0, i, rc = KS_EXIT_USAGE;
	int nvcc_argc = 0;
	char **nvcc_argv = NULL;

	build_init(&b);
	memset(&inv, 0, sizeof(inv));
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			nvcc_argv = argv + i + 1;
			nvcc_argc = argc - i - 1;
			break;
		} else if (!strcmp(argv[i], "--json")) {
			json = 1;
		} else if (!strcmp(argv[i], "--manifest")) {
			manifest = 1;
		} else if (!strcmp(argv[i], "--no-pch")) {
			no_pch = 1;
		} else if (!strcmp(argv[i], "--record") && i + 1 < argc) {
			record = argv[++i];
		} else if (!strcmp(argv[i], "--arch") && i + 1 < argc) {
			arch = argv[++i];
		} else if (!strcmp(argv[i], "--closure") && i + 1 < argc) {
			closure = argv[++i];
		} else if (argv[i][0] == '-' || file) {
			fprintf(stderr, "ks: error: unexpected '%s'\n%s",
				argv[i], USAGE);
			goto out;
		} else {
			file = argv[i];
		}
	}
	if (!file == !record || (record && nvcc_argv)) {
		fputs(USAGE, stderr);
		goto out;
	}
	rc = KS_EXIT_FAILED;
	if (record ? from_record(&b, record, &err)
		   : from_args(&b, file, nvcc_argv, nvcc_argc, conf, &err))
		goto out;
	memset(&o, 0, sizeof(o));
	o.source = b.source;
	o.cwd = b.cwd;
	o.toolkit = b.toolkit;
	o.state_dir = conf->dir;
	o.arch = arch ? arch : parse_arch(&b.archs);
	o.includes = &b.includes;
	o.defines = &b.defines;
	o.std = b.std;
	o.no_pch = no_pch;
	if (ks_inventory_build(&o, &inv, &err))
		goto out;
	ks_inventory_set_keys(&inv, &b.archs, &b.devflags, b.nvcc_version);
	if (closure) {
		const struct ks_kernel *k = ks_inventory_find(&inv, closure);

		if (!k) {
			ks_error(&err, "no kernel '%s' in %s", closure,
				 inv.source);
			goto out;
		}
		fputs(k->closure, stdout);
		rc = 0;
		goto out;
	}
	if (manifest) {
		inv.manifest = write_manifest(&b, inv.source, &inv, conf, &err);
		if (!inv.manifest)
			goto out;
	}
	if (json)
		ks_inventory_format_json(&inv, &out);
	else
		ks_inventory_format_text(&inv, &out);
	fputs(out.buf, stdout);
	rc = 0;
out:
	if (rc == KS_EXIT_FAILED)
		fprintf(stderr, "ks: error: %s\n", err.buf);
	ks_inventory_release(&inv);
	build_release(&b);
	ks_buf_release(&err);
	ks_buf_release(&out);
	return rc;
}

/*
 * The inventory of the TU a build record (or, without one, `file` with
 * the nvcc arguments `nvcc_argv`) compiled, parsed for `arch` (NULL: the build's
 * newest). *arch_used gets the arch parsed for (caller frees). Shared by
 * ks transform and ks try.
 */
int
ks_analyze_inventory(const char *record, const char *file, char **nvcc_argv,
		     int nvcc_argc, const char *arch, struct ks_conf *conf,
		     struct ks_inventory *inv, char **arch_used, struct ks_buf *err)
{
	struct build b;
	struct ks_tu_opts o;
	int rc = -1;

	build_init(&b);
	if (record ? from_record(&b, record, err)
		   : from_args(&b, file, nvcc_argv, nvcc_argc, conf, err))
		goto out;
	memset(&o, 0, sizeof(o));
	o.source = b.source;
	o.cwd = b.cwd;
	o.toolkit = b.toolkit;
	o.state_dir = conf->dir;
	o.arch = arch ? arch : parse_arch(&b.archs);
	o.includes = &b.includes;
	o.defines = &b.defines;
	o.std = b.std;
	if (ks_inventory_build(&o, inv, err))
		goto out;
	ks_inventory_set_keys(inv, &b.archs, &b.devflags, b.nvcc_version);
	*arch_used = ks_xstrdup(o.arch ? o.arch : "sm_75");
	rc = 0;
out:
	build_release(&b);
	return rc;
}
