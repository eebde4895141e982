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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../analysis/closure.h"
#include "../analysis/inventory.h"
#include "../core/buf.h"
#include "../core/conf.h"
#include "../core/fs.h"
#include "../core/grow.h"
#include "../core/log.h"
#include "../core/proc.h"
#include "../core/strv.h"
#include "../core/util.h"
#include "../nvcc/arch.h"
#include "../nvcc/args.h"
#include "../nvcc/hostinc.h"
#include "../nvcc/manifest.h"
#include "../nvcc/nvccmacros.h"
#include "../nvcc/nvccver.h"
#include "../nvcc/nvopts.h"
#include "../nvcc/passthru.h"
#include "../nvcc/record.h"
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
	struct ks_strv archs;	/* real archs ("sm_90") */
	/* the keys' archs: `archs`, then the GPUs the build's code reaches
	 * without naming them (key_archs_of) */
	struct ks_strv keyarchs;
	struct ks_strv macros;	/* nvcc's predefined macros, as -U/-D */
	char *ccbin;		/* the build's -ccbin, or NULL */
	struct ks_strv hostinc;	/* the host compiler's include dirs */
	char *arch_list;	/* __CUDA_ARCH_LIST__ of the build, or NULL */
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
	ks_strv_init(&b->keyarchs);
	ks_strv_init(&b->macros);
	ks_strv_init(&b->hostinc);
}

static void
build_release(struct build *b)
{
	free(b->source);
	free(b->cwd);
	free(b->nvcc);
	free(b->nvcc_version);
	ks_strv_release(&b->macros);
	ks_strv_release(&b->hostinc);
	free(b->ccbin);
	free(b->arch_list);
	free(b->toolkit);
	free(b->std);
	free(b->depfile);
	ks_strv_release(&b->argv);
	ks_strv_release(&b->includes);
	ks_strv_release(&b->defines);
	ks_strv_release(&b->devflags);
	ks_strv_release(&b->archs);
	ks_strv_release(&b->keyarchs);
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

/*
 * The keys' archs: the build's own, then each GPU its code runs on only
 * through its PTX or an older SASS of the same major (ks_args_reaches 2),
 * where a capture may run and a variant be verified; ks-nvcc compiles such
 * a variant in with that GPU's target added.
 */
static void
key_archs_of(const struct ks_args *a, const struct ks_strv *archs,
	     struct ks_strv *out)
{
	unsigned long n, i;
	const char *const *known = ks_arch_known_reals(&n);

	ks_strv_pushv(out, (const char *const *)archs->v, archs->n);
	for (i = 0; i < n; i++)
		if (ks_args_reaches(a, known[i]) == 2 && ks_strv_find(out, known[i]) < 0)
			ks_strv_push(out, known[i]);
}

/* Mark the keys of the archs key_archs_of() added to the build's own. */
static void
mark_reached(struct ks_inventory *inv, const struct ks_strv *archs)
{
	size_t i, j;

	for (i = 0; i < inv->nkernels; i++)
		for (j = 0; j < inv->kernels[i].nkeys; j++)
			inv->kernels[i].keys[j].reached =
				ks_strv_find(archs, inv->kernels[i].keys[j].arch) < 0;
}

/* nvcc's __CUDA_ARCH_LIST__ for the build's virtual archs. */
static char *
arch_list_of(const struct ks_strv *virts)
{
	return ks_tu_arch_list((const char *const *)virts->v, virts->n);
}

/* The arch to parse for: the newest of the build's targets. */
static const char *
parse_arch(const struct ks_strv *archs)
{
	return ks_arch_newest((const char *const *)archs->v, archs->n);
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
	b->ccbin = a.ccbin ? ks_xstrdup(a.ccbin) : NULL;
	ks_strv_pushv(&b->includes, (const char *const *)a.includes.v,
		      a.includes.n);
	ks_strv_pushv(&b->defines, (const char *const *)a.defines.v,
		      a.defines.n);
	ks_strv_pushv(&b->devflags, (const char *const *)a.devflags.v,
		      a.devflags.n);
	archs_of(&a, &b->archs);
	key_archs_of(&a, &b->archs, &b->keyarchs);
	{
		struct ks_strv virts = KS_STRV_INIT;

		for (i = 0; i < (int)a.narchs; i++)
			ks_strv_push(&virts, a.archs[i].virt);
		b->arch_list = arch_list_of(&virts);
		ks_strv_release(&virts);
	}
	rc = 0;
out:
	ks_args_release(&a);
	ks_buf_release(&ver);
	ks_buf_release(&ignored);
	free(self);
	return rc;
}

static int
from_record(struct build *b, const char *path, struct ks_buf *err)
{
	struct ks_strv reals = KS_STRV_INIT, virts = KS_STRV_INIT;
	struct ks_build_rec r;
	size_t i;

	if (ks_build_rec_load(path, &r, err))
		return -1;
	b->source = ks_xstrdup(r.source);
	b->cwd = ks_xstrdup(r.cwd);
	b->nvcc = r.nvcc ? ks_xstrdup(r.nvcc) : NULL;
	b->nvcc_version = ks_xstrdup(r.nvcc_version ? r.nvcc_version : "");
	b->std = r.std ? ks_xstrdup(r.std) : NULL;
	b->depfile = r.depfile ? ks_xstrdup(r.depfile) : NULL;
	b->toolkit = toolkit_of(b->nvcc);
	ks_strv_pushv(&b->argv, (const char *const *)r.argv.v, r.argv.n);
	ks_strv_pushv(&b->includes, (const char *const *)r.includes.v, r.includes.n);
	ks_strv_pushv(&b->defines, (const char *const *)r.defines.v, r.defines.n);
	ks_strv_pushv(&b->devflags, (const char *const *)r.devflags.v, r.devflags.n);
	for (i = 0; i < r.narchs; i++)
		add_arch(&reals, &virts, r.archs[i].real, r.archs[i].virt);
	b->arch_list = arch_list_of(&virts);
	archs_done(&reals, &virts, &b->archs);
	ks_build_rec_release(&r);
	{
		/* the record keeps argv; -ccbin is read back from it */
		struct ks_args a;
		struct ks_buf ignored = KS_BUF_INIT;

		ks_args_init(&a);
		if (!ks_args_classify(&b->argv, &a, &ignored)) {
			if (a.ccbin)
				b->ccbin = ks_xstrdup(a.ccbin);
			key_archs_of(&a, &b->archs, &b->keyarchs);
		} else {
			ks_strv_pushv(&b->keyarchs, (const char *const *)b->archs.v,
				      b->archs.n);
		}
		ks_args_release(&a);
		ks_buf_release(&ignored);
	}
	return 0;
}

/* ---- the manifest -------------------------------------------------------- */

/* The TU's manifest (nvcc/manifest.h) from the build and the inventory. */
static char *
write_manifest(const struct build *b, const char *source,
	       const struct ks_inventory *inv, struct ks_conf *conf,
	       struct ks_buf *err)
{
	struct ks_manifest_build mb;
	struct ks_manifest_kernel *ks = NULL;
	size_t i, j, n = 0, alloc = 0;
	char *path = NULL;

	memset(&mb, 0, sizeof(mb));
	mb.source = source;
	mb.cwd = b->cwd;
	mb.nvcc = b->nvcc;
	mb.nvcc_version = b->nvcc_version;
	mb.toolkit = b->toolkit;
	mb.depfile = b->depfile;
	mb.argv = &b->argv;
	mb.lock_timeout_ms = conf->lock_timeout_ms;
	for (i = 0; i < inv->nkernels; i++)
		for (j = 0; j < inv->kernels[i].nkeys; j++) {
			ks = KS_GROW(ks, n, &alloc);
			memcpy(ks[n].key, inv->kernels[i].keys[j].key, sizeof(ks[n].key));
			ks[n].arch = inv->kernels[i].keys[j].arch;
			ks[n].mangled = inv->kernels[i].keys[j].mangled;
			n++;
		}
	if (ks_manifest_write(conf->dir, &mb, ks, n, &path, err))
		path = NULL;
	free(ks);
	return path;
}

/* Pure: "sm_NN", "compute_NN", with an optional "a" or "f" after NN. */
static int
valid_arch(const char *arch)
{
	const char *p = ks_starts_with(arch, "sm_")	  ? arch + 3
			: ks_starts_with(arch, "compute_") ? arch + 8
							   : NULL;
	size_t n = p ? strspn(p, "0123456789") : 0;

	if (n < 2 || n > 3)
		return 0;
	p += n;
	return !*p || (strchr("af", *p) && !p[1]);
}

/*
 * nvcc's predefined macros for the parse, so that its #if branches are
 * the compile's: asked of the build's nvcc (cached), else from the
 * recorded version; with neither, the parse goes without them.
 */
static void
nvcc_macros_of(struct build *b, const struct ks_conf *conf)
{
	struct ks_buf why = KS_BUF_INIT;

	if (ks_nvccmacros_get(conf->dir, b->nvcc, b->nvcc_version, &b->macros,
			      &why) < 0)
		ks_log("analysis without nvcc's macros: %s", why.buf);
	ks_buf_release(&why);
}

/*
 * The host compiler's include directories (omp.h and the like), which
 * nvcc's host compile searches and clang lacks: asked of the build's host
 * compiler (cached); without an answer the parse goes without them.
 */
static void
host_includes_of(struct build *b, const struct ks_conf *conf)
{
	struct ks_buf why = KS_BUF_INIT;
	struct stat st;
	char *cxx = ks_hostinc_compiler(
		b->ccbin, b->ccbin && !stat(b->ccbin, &st) && S_ISDIR(st.st_mode));

	if (ks_hostinc_get(conf->dir, cxx, &b->hostinc, &why) < 0)
		ks_log("analysis without the host compiler's includes: %s",
		       why.buf);
	free(cxx);
	ks_buf_release(&why);
}

/* The parse options of the TU a build describes, for `arch` (NULL: the
 * build's newest); fills the build's macros and host includes. */
static void
tu_opts_of(struct build *b, const char *arch, const struct ks_conf *conf,
	   struct ks_tu_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->source = b->source;
	o->cwd = b->cwd;
	o->toolkit = b->toolkit;
	o->state_dir = conf->dir;
	o->arch = arch ? arch : parse_arch(&b->archs);
	o->includes = &b->includes;
	o->defines = &b->defines;
	nvcc_macros_of(b, conf);
	o->nvcc_macros = &b->macros;
	o->arch_list = b->arch_list;
	host_includes_of(b, conf);
	o->host_includes = &b->hostinc;
	o->timeout_ms = conf->analysis_timeout_ms > 0
				? (unsigned long)conf->analysis_timeout_ms
				: 0;
	o->std = b->std;
}

/* A directory or a missing file says so, before libclang is asked. */
static int
not_a_file(const char *path, struct ks_buf *err)
{
	struct stat st;

	if (stat(path, &st))
		return ks_error_errno(err, "cannot read '%s'", path);
	if (S_ISDIR(st.st_mode))
		return ks_error(err, "'%s' is a directory, not a source file", path);
	if (!S_ISREG(st.st_mode))
		return ks_error(err, "'%s' is not a regular file", path);
	return 0;
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
	if (arch && !valid_arch(arch)) {
		fprintf(stderr, "ks: error: --arch '%s' is not an arch like "
			"sm_90, sm_90a or compute_90\n%s", arch, USAGE);
		goto out;
	}
	rc = KS_EXIT_FAILED;
	if (not_a_file(file ? file : record, &err))
		goto out;
	if (record ? from_record(&b, record, &err)
		   : from_args(&b, file, nvcc_argv, nvcc_argc, conf, &err))
		goto out;
	tu_opts_of(&b, arch, conf, &o);
	o.no_pch = no_pch;
	if (ks_inventory_build(&o, &inv, &err))
		goto out;
	ks_inventory_set_keys(&inv, &b.keyarchs, &b.devflags, b.nvcc_version);
	mark_reached(&inv, &b.archs);
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
	return ks_analyze_inventory_as(record, file, nvcc_argv, nvcc_argc, arch,
				       NULL, conf, inv, arch_used, err);
}

int
ks_analyze_inventory_as(const char *record, const char *file, char **nvcc_argv,
			int nvcc_argc, const char *arch, const char *as,
			struct ks_conf *conf, struct ks_inventory *inv,
			char **arch_used, struct ks_buf *err)
{
	struct build b;
	struct ks_tu_opts o;
	int rc = -1;

	build_init(&b);
	if (record ? from_record(&b, record, err)
		   : from_args(&b, file, nvcc_argv, nvcc_argc, conf, err))
		goto out;
	if (as) {
		/* Another file in the source's place: its quoted includes
		 * are looked for where the source's are. */
		char *src = b.source[0] == '/' || !b.cwd ? ks_xstrdup(b.source)
							 : ks_fs_join(b.cwd, b.source);
		char *slash = strrchr(src, '/');

		if (slash && slash != src) {
			char *inc;

			*slash = '\0';
			inc = ks_xasprintf("-I%s", src);
			ks_strv_insert(&b.includes, 0, inc);
			free(inc);
		}
		free(src);
		free(b.source);
		b.source = ks_xstrdup(as);
	}
	tu_opts_of(&b, arch, conf, &o);
	if (ks_inventory_build(&o, inv, err))
		goto out;
	ks_inventory_set_keys(inv, &b.keyarchs, &b.devflags, b.nvcc_version);
	mark_reached(inv, &b.archs);
	*arch_used = ks_xstrdup(o.arch ? o.arch : "sm_75");
	rc = 0;
out:
	build_release(&b);
	return rc;
}
