/*
 * The nvcc option table.
 *
 * Taken from `nvcc --help` of nvcc 13.0.88 (cuda_13.0.r13.0); the value
 * forms of every option were tried with `nvcc --dryrun`. The rows are kept
 * in nvcc's spelling and sorted by long name in strcmp order (upper case
 * first). When nvcc changes, run tests/check-nvopts.sh: it lists options
 * missing from or unknown to the table and value-taking mismatches; add
 * the new rows here by hand and decide their flags (see nvopts.h).
 *
 * Two rows take a value although --help shows no <placeholder> for them:
 * dependency-output (-MF) and qpp-config. dependency-output's short name
 * is -MF; nvcc's own messages call it "--dependency-file", which nvcc does
 * not accept on the command line. no-align-double has no short name.
 */
#include "nvopts.h"

#include <stdlib.h>
#include <string.h>

#include "../core/util.h"

static const struct ks_nvopt opts[] = {
	{ "Ofast-compile", "Ofc", KS_NVOPT_TAKES_ARG |
	  KS_NVOPT_DEVICE_SEMANTIC },
	{ "Wdefault-stream-launch", "Wdefault-stream-launch", 0 },
	{ "Werror", "Werror", KS_NVOPT_TAKES_ARG | KS_NVOPT_LIST },
	{ "Wext-lambda-captures-this", "Wext-lambda-captures-this", 0 },
	{ "Wmissing-launch-bounds", "Wmissing-launch-bounds", 0 },
	{ "Wno-deprecated-declarations", "Wno-deprecated-declarations", 0 },
	{ "Wno-deprecated-gpu-targets", "Wno-deprecated-gpu-targets", 0 },
	{ "Wreorder", "Wreorder", 0 },
	{ "allow-unsupported-compiler", "allow-unsupported-compiler", 0 },
	{ "archive-options", "Xarchive", KS_NVOPT_TAKES_ARG | KS_NVOPT_LIST |
	  KS_NVOPT_FORWARD },
	{ "archiver-binary", "arbin", KS_NVOPT_TAKES_ARG },
	{ "augment-host-linker-script", "aug-hls", 0 },
	{ "brief-diagnostics", "brief-diag", KS_NVOPT_TAKES_ARG |
	  KS_NVOPT_BOOL },
	{ "clean-targets", "clean", KS_NVOPT_MODE },
	{ "compile", "c", KS_NVOPT_MODE },
	{ "compile-as-tools-patch", "astoolspatch", KS_NVOPT_DEVICE_SEMANTIC },
	{ "compiler-bindir", "ccbin", KS_NVOPT_TAKES_ARG },
	{ "compiler-options", "Xcompiler", KS_NVOPT_TAKES_ARG | KS_NVOPT_LIST |
	  KS_NVOPT_FORWARD | KS_NVOPT_DEVICE_SEMANTIC },
	{ "compress-mode", "compress-mode", KS_NVOPT_TAKES_ARG },
	{ "cubin", "cubin", KS_NVOPT_MODE },
	{ "cuda", "cuda", KS_NVOPT_MODE },
	{ "cudadevrt", "cudadevrt", KS_NVOPT_TAKES_ARG },
	{ "cudart", "cudart", KS_NVOPT_TAKES_ARG },
	{ "debug", "g", 0 },
	{ "default-stream", "default-stream", KS_NVOPT_TAKES_ARG |
	  KS_NVOPT_DEVICE_SEMANTIC },
	{ "define-macro", "D", KS_NVOPT_TAKES_ARG | KS_NVOPT_LIST |
	  KS_NVOPT_GLUED | KS_NVOPT_PREPROC },
	{ "dependency-drive-prefix", "ddp", KS_NVOPT_TAKES_ARG },
	{ "dependency-output", "MF", KS_NVOPT_TAKES_ARG | KS_NVOPT_DEPS },
	{ "dependency-target-name", "MT", KS_NVOPT_TAKES_ARG | KS_NVOPT_DEPS },
	{ "device-c", "dc", KS_NVOPT_MODE | KS_NVOPT_DEVICE_SEMANTIC },
	{ "device-debug", "G", KS_NVOPT_DEVICE_SEMANTIC },
	{ "device-entity-has-hidden-visibility",
	  "device-entity-has-hidden-visibility",
	  KS_NVOPT_TAKES_ARG | KS_NVOPT_BOOL | KS_NVOPT_DEVICE_SEMANTIC },
	{ "device-link", "dlink", KS_NVOPT_MODE },
	{ "device-stack-protector", "device-stack-protector",
	  KS_NVOPT_TAKES_ARG | KS_NVOPT_BOOL | KS_NVOPT_DEVICE_SEMANTIC },
	{ "device-w", "dw", KS_NVOPT_MODE | KS_NVOPT_DEVICE_SEMANTIC },
	{ "diag-error", "diag-error", KS_NVOPT_TAKES_ARG | KS_NVOPT_LIST },
	{ "diag-suppress", "diag-suppress", KS_NVOPT_TAKES_ARG |
	  KS_NVOPT_LIST },
	{ "diag-warn", "diag-warn", KS_NVOPT_TAKES_ARG | KS_NVOPT_LIST },
	{ "disable-warnings", "w", 0 },
	{ "display-error-number", "err-no", 0 },
	{ "dlink-time-opt", "dlto", KS_NVOPT_DEVICE_SEMANTIC },
	{ "dont-use-profile", "noprof", KS_NVOPT_DEVICE_SEMANTIC },
	{ "dopt", "dopt", KS_NVOPT_TAKES_ARG | KS_NVOPT_DEVICE_SEMANTIC },
	{ "drive-prefix", "dp", KS_NVOPT_TAKES_ARG },
	{ "dryrun", "dryrun", KS_NVOPT_MODE },
	{ "entries", "e", KS_NVOPT_TAKES_ARG | KS_NVOPT_LIST |
	  KS_NVOPT_DEVICE_SEMANTIC },
	{ "expt-extended-lambda", "expt-extended-lambda",
	  KS_NVOPT_DEVICE_SEMANTIC },
	{ "expt-relaxed-constexpr", "expt-relaxed-constexpr",
	  KS_NVOPT_DEVICE_SEMANTIC },
	{ "extended-lambda", "extended-lambda", KS_NVOPT_DEVICE_SEMANTIC },
	{ "extensible-whole-program", "ewp", KS_NVOPT_DEVICE_SEMANTIC },
	{ "extra-device-vectorization", "extra-device-vectorization",
	  KS_NVOPT_DEVICE_SEMANTIC },
	{ "fatbin", "fatbin", KS_NVOPT_MODE },
	{ "fdevice-syntax-only", "fdevice-syntax-only",
	  KS_NVOPT_DEVICE_SEMANTIC },
	{ "fdevice-time-trace", "fdevice-time-trace", KS_NVOPT_TAKES_ARG },
	{ "fmad", "fmad", KS_NVOPT_TAKES_ARG | KS_NVOPT_BOOL |
	  KS_NVOPT_DEVICE_SEMANTIC },
	{ "force-cl-env-setup", "force-cl-env-setup", 0 },
	{ "forward-unknown-opts", "forward-unknown-opts", 0 },
	{ "forward-unknown-to-host-compiler",
	  "forward-unknown-to-host-compiler", 0 },
	{ "forward-unknown-to-host-linker", "forward-unknown-to-host-linker",
	  0 },
	{ "frandom-seed", "frandom-seed", KS_NVOPT_TAKES_ARG },
	{ "ftemplate-backtrace-limit", "ftemplate-backtrace-limit",
	  KS_NVOPT_TAKES_ARG },
	{ "ftemplate-depth", "ftemplate-depth", KS_NVOPT_TAKES_ARG |
	  KS_NVOPT_DEVICE_SEMANTIC },
	{ "ftz", "ftz", KS_NVOPT_TAKES_ARG | KS_NVOPT_BOOL |
	  KS_NVOPT_DEVICE_SEMANTIC },
	{ "gen-opt-lto", "gen-opt-lto", KS_NVOPT_DEVICE_SEMANTIC },
	{ "generate-code", "gencode", KS_NVOPT_TAKES_ARG | KS_NVOPT_ARCH },
	{ "generate-dependencies", "M", KS_NVOPT_MODE | KS_NVOPT_DEPS },
	{ "generate-dependencies-with-compile", "MD", KS_NVOPT_DEPS },
	{ "generate-dependency-targets", "MP", KS_NVOPT_DEPS },
	{ "generate-line-info", "lineinfo", KS_NVOPT_DEVICE_SEMANTIC },
	{ "generate-nonsystem-dependencies", "MM", KS_NVOPT_MODE |
	  KS_NVOPT_DEPS },
	{ "generate-nonsystem-dependencies-with-compile", "MMD",
	  KS_NVOPT_DEPS },
	{ "gpu-architecture", "arch", KS_NVOPT_TAKES_ARG | KS_NVOPT_ARCH },
	{ "gpu-code", "code", KS_NVOPT_TAKES_ARG | KS_NVOPT_LIST |
	  KS_NVOPT_ARCH },
	{ "help", "h", KS_NVOPT_INFO },
	{ "host-linker-script", "hls", KS_NVOPT_TAKES_ARG },
	{ "include-path", "I", KS_NVOPT_TAKES_ARG | KS_NVOPT_LIST |
	  KS_NVOPT_GLUED | KS_NVOPT_PREPROC },
	{ "input-drive-prefix", "idp", KS_NVOPT_TAKES_ARG },
	{ "jobserver", "jobserver", 0 },
	{ "jump-table-density", "jtd", KS_NVOPT_TAKES_ARG |
	  KS_NVOPT_DEVICE_SEMANTIC },
	{ "keep", "keep", 0 },
	{ "keep-device-functions", "keep-device-functions",
	  KS_NVOPT_DEVICE_SEMANTIC },
	{ "keep-dir", "keep-dir", KS_NVOPT_TAKES_ARG },
	{ "lib", "lib", KS_NVOPT_MODE },
	{ "libdevice-directory", "ldir", KS_NVOPT_TAKES_ARG |
	  KS_NVOPT_DEVICE_SEMANTIC },
	{ "library", "l", KS_NVOPT_TAKES_ARG | KS_NVOPT_LIST | KS_NVOPT_GLUED },
	{ "library-path", "L", KS_NVOPT_TAKES_ARG | KS_NVOPT_LIST |
	  KS_NVOPT_GLUED },
	{ "link", "link", KS_NVOPT_MODE },
	{ "linker-options", "Xlinker", KS_NVOPT_TAKES_ARG | KS_NVOPT_LIST |
	  KS_NVOPT_FORWARD },
	{ "list-gpu-arch", "arch-ls", KS_NVOPT_INFO },
	{ "list-gpu-code", "code-ls", KS_NVOPT_INFO },
	{ "lto", "lto", KS_NVOPT_DEVICE_SEMANTIC },
	{ "ltoir", "ltoir", KS_NVOPT_MODE },
	{ "m64", "m64", 0 },
	{ "machine", "m", KS_NVOPT_TAKES_ARG },
	{ "maxrregcount", "maxrregcount", KS_NVOPT_TAKES_ARG |
	  KS_NVOPT_DEVICE_SEMANTIC },
	{ "no-align-double", NULL, 0 },
	{ "no-compress", "no-compress", 0 },
	{ "no-device-link", "nodlink", 0 },
	{ "no-display-error-number", "no-err-no", 0 },
	{ "no-exceptions", "noeh", KS_NVOPT_DEVICE_SEMANTIC },
	{ "no-host-device-initializer-list", "nohdinitlist",
	  KS_NVOPT_DEVICE_SEMANTIC },
	{ "no-host-device-move-forward", "nohdmoveforward",
	  KS_NVOPT_DEVICE_SEMANTIC },
	{ "nvlink-options", "Xnvlink", KS_NVOPT_TAKES_ARG | KS_NVOPT_LIST |
	  KS_NVOPT_FORWARD },
	{ "objdir-as-tempdir", "objtemp", 0 },
	{ "optimization-info", "opt-info", KS_NVOPT_TAKES_ARG | KS_NVOPT_LIST },
	{ "optimize", "O", KS_NVOPT_TAKES_ARG | KS_NVOPT_GLUED },
	{ "options-file", "optf", KS_NVOPT_TAKES_ARG | KS_NVOPT_LIST },
	{ "optix-ir", "optix-ir", KS_NVOPT_MODE },
	{ "output-directory", "odir", KS_NVOPT_TAKES_ARG },
	{ "output-file", "o", KS_NVOPT_TAKES_ARG },
	{ "pre-include", "include", KS_NVOPT_TAKES_ARG | KS_NVOPT_LIST |
	  KS_NVOPT_PREPROC },
	{ "prec-div", "prec-div", KS_NVOPT_TAKES_ARG | KS_NVOPT_BOOL |
	  KS_NVOPT_DEVICE_SEMANTIC },
	{ "prec-sqrt", "prec-sqrt", KS_NVOPT_TAKES_ARG | KS_NVOPT_BOOL |
	  KS_NVOPT_DEVICE_SEMANTIC },
	{ "preprocess", "E", KS_NVOPT_MODE },
	{ "profile", "pg", 0 },
	{ "ptx", "ptx", KS_NVOPT_MODE },
	{ "ptxas-options", "Xptxas", KS_NVOPT_TAKES_ARG | KS_NVOPT_LIST |
	  KS_NVOPT_FORWARD | KS_NVOPT_DEVICE_SEMANTIC },
	{ "qpp-config", "qpp-config", KS_NVOPT_TAKES_ARG },
	{ "relocatable-device-code", "rdc", KS_NVOPT_TAKES_ARG | KS_NVOPT_BOOL |
	  KS_NVOPT_DEVICE_SEMANTIC },
	{ "relocatable-link", "r", 0 },
	{ "relocatable-ptx", "reloc-ptx", 0 },
	{ "resource-usage", "res-usage", 0 },
	{ "restrict", "restrict", KS_NVOPT_DEVICE_SEMANTIC },
	{ "run", "run", KS_NVOPT_MODE },
	{ "run-args", "run-args", KS_NVOPT_TAKES_ARG | KS_NVOPT_LIST },
	{ "sanitize", "sanitize", KS_NVOPT_TAKES_ARG |
	  KS_NVOPT_DEVICE_SEMANTIC },
	{ "save-temps", "save-temps", 0 },
	{ "shared", "shared", 0 },
	{ "source-in-ptx", "src-in-ptx", KS_NVOPT_DEVICE_SEMANTIC },
	{ "split-compile", "split-compile", KS_NVOPT_TAKES_ARG },
	{ "split-compile-extended", "split-compile-extended",
	  KS_NVOPT_TAKES_ARG | KS_NVOPT_DEVICE_SEMANTIC },
	{ "static-global-template-stub", "static-global-template-stub",
	  KS_NVOPT_TAKES_ARG | KS_NVOPT_BOOL | KS_NVOPT_DEVICE_SEMANTIC },
	{ "std", "std", KS_NVOPT_TAKES_ARG | KS_NVOPT_DEVICE_SEMANTIC },
	{ "system-include", "isystem", KS_NVOPT_TAKES_ARG | KS_NVOPT_LIST |
	  KS_NVOPT_PREPROC },
	{ "target-directory", "target-dir", KS_NVOPT_TAKES_ARG |
	  KS_NVOPT_PREPROC | KS_NVOPT_DEVICE_SEMANTIC },
	{ "threads", "t", KS_NVOPT_TAKES_ARG | KS_NVOPT_GLUED },
	{ "time", "time", KS_NVOPT_TAKES_ARG },
	{ "undefine-macro", "U", KS_NVOPT_TAKES_ARG | KS_NVOPT_LIST |
	  KS_NVOPT_GLUED | KS_NVOPT_PREPROC },
	{ "use-local-env", "use-local-env", 0 },
	{ "use_fast_math", "use_fast_math", KS_NVOPT_DEVICE_SEMANTIC },
	{ "verbose", "v", 0 },
	{ "version", "V", KS_NVOPT_INFO },
	{ "x", "x", KS_NVOPT_TAKES_ARG },
};

static int
cmp_long(const void *key, const void *elem)
{
	const struct ks_nvopt *o = elem;

	return strcmp(key, o->name);
}

/* Short names in strcmp order, filled on first use from `opts`, so that
 * the table above stays the single place to edit. */
static const struct ks_nvopt *by_short[KS_ARRAY_SIZE(opts)];
static size_t nshort;

static int
cmp_short_sort(const void *a, const void *b)
{
	const struct ks_nvopt *const *x = a, *const *y = b;

	return strcmp((*x)->short_name, (*y)->short_name);
}

static int
cmp_short(const void *key, const void *elem)
{
	const struct ks_nvopt *const *o = elem;

	return strcmp(key, (*o)->short_name);
}

static void
index_short(void)
{
	size_t i;

	if (nshort)
		return;
	for (i = 0; i < KS_ARRAY_SIZE(opts); i++)
		if (opts[i].short_name)
			by_short[nshort++] = &opts[i];
	qsort(by_short, nshort, sizeof(by_short[0]), cmp_short_sort);
}

const struct ks_nvopt *
ks_nvopt_find_long(const char *name)
{
	return bsearch(name, opts, KS_ARRAY_SIZE(opts), sizeof(opts[0]),
		       cmp_long);
}

const struct ks_nvopt *
ks_nvopt_find_short(const char *name)
{
	const struct ks_nvopt *const *o;

	index_short();
	o = bsearch(name, by_short, nshort, sizeof(by_short[0]), cmp_short);
	return o ? *o : NULL;
}

const struct ks_nvopt *
ks_nvopt_find(const char *name)
{
	const struct ks_nvopt *o = ks_nvopt_find_long(name);

	return o ? o : ks_nvopt_find_short(name);
}

const struct ks_nvopt *
ks_nvopt_table(size_t *n)
{
	*n = KS_ARRAY_SIZE(opts);
	return opts;
}

/* The option of a single-letter short name that nvcc lets glue its value
 * (-DFOO), tried only when the whole word names no option. */
static const struct ks_nvopt *
find_glued(const char *word)
{
	char name[2];
	const struct ks_nvopt *o;

	if (!word[1] || !word[2])
		return NULL;
	name[0] = word[1];
	name[1] = '\0';
	o = ks_nvopt_find_short(name);
	return o && (o->flags & KS_NVOPT_GLUED) ? o : NULL;
}

enum ks_nvopt_word
ks_nvopt_parse(const char *word, const struct ks_nvopt **opt,
	       const char **value)
{
	const char *name, *eq;
	char buf[64];
	size_t len;
	const struct ks_nvopt *o = NULL;
	int dashes;

	*opt = NULL;
	*value = NULL;
	if (word[0] != '-' || !word[1])
		return KS_NVOPT_WORD_INPUT;
	dashes = word[1] == '-' ? 2 : 1;
	name = word + dashes;
	eq = strchr(name, '=');
	len = eq ? (size_t)(eq - name) : strlen(name);
	/* Every nvcc option name is shorter than this. */
	if (len < sizeof(buf)) {
		memcpy(buf, name, len);
		buf[len] = '\0';
		o = dashes == 2 ? ks_nvopt_find_long(buf)
				: ks_nvopt_find_short(buf);
	}
	if (!o) {
		if (dashes == 1)
			o = find_glued(word);
		if (!o)
			return KS_NVOPT_WORD_UNKNOWN;
		*opt = o;
		*value = word + 2;
		return KS_NVOPT_WORD_OPTION;
	}
	*opt = o;
	if (eq) {
		if (!(o->flags & KS_NVOPT_TAKES_ARG))
			return KS_NVOPT_WORD_BAD;
		*value = eq + 1;
	}
	return KS_NVOPT_WORD_OPTION;
}
