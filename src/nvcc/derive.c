#include "derive.h"

#include <string.h>

#include "../core/buf.h"
#include "../core/strv.h"
#include "../core/util.h"
#include "nvopts.h"

static const char *const outputs[] = { "output-file", "output-directory" };

static const char *const deps_names[] = {
	"output-file", "output-directory", "keep", "keep-dir", "save-temps",
	"verbose",
};

static const char *const shared_names[] = {
	"output-file", "output-directory", "cudart",
};

static const char *const evidence_names[] = {
	"dryrun", "fdevice-time-trace", "jobserver", "keep", "keep-dir",
	"output-directory", "output-file", "save-temps", "split-compile",
	"split-compile-extended", "threads", "time", "verbose",
};

/* What only the link (or the archive) of a one-command build reads, and
 * what names the command's outputs. nvcc --dryrun -c is the same with and
 * without each of the link options. */
static const char *const compile_only_names[] = {
	"archive-options", "augment-host-linker-script", "cudadevrt", "cudart",
	"host-linker-script", "lib", "library", "library-path", "link",
	"linker-options", "no-device-link", "nvlink-options",
	"output-directory", "output-file", "run-args", "shared",
};

/* Phase options that already ask for a compile to an object. */
static const char *const compile_names[] = {
	"compile", "device-c", "device-w",
};

const struct ks_derive ks_derive_manifest = {
	"the manifest id", KS_NVOPT_DEPS, KS_NVOPT_MODE,
	outputs, KS_ARRAY_SIZE(outputs), 0, 0, 0, 0,
};

const struct ks_derive ks_derive_deps = {
	"nvcc -M", KS_NVOPT_DEPS | KS_NVOPT_MODE, 0,
	deps_names, KS_ARRAY_SIZE(deps_names), 0, 0, 0, 0,
};

const struct ks_derive ks_derive_shared = {
	"the Reviewer's shared objects", KS_NVOPT_DEPS | KS_NVOPT_MODE, 0,
	shared_names, KS_ARRAY_SIZE(shared_names), 1, 0, 1, 1,
};

const struct ks_derive ks_derive_evidence = {
	"the evidence compile", KS_NVOPT_DEPS, 0,
	evidence_names, KS_ARRAY_SIZE(evidence_names), 0, 1, 0, 0,
};

const struct ks_derive ks_derive_compile_only = {
	"a one-command build's compile", KS_NVOPT_DEPS, 0,
	compile_only_names, KS_ARRAY_SIZE(compile_only_names), 1, 0, 0, 1,
};

static int
in_names(const char *name, const char *const *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(name, list[i]))
			return 1;
	return 0;
}

int
ks_derive_argv(const struct ks_derive *d, const char *const *argv, size_t argc,
	       struct ks_strv *out, struct ks_derived *info, struct ks_buf *err)
{
	return ks_derive_argv_keep(d, argv, argc, (size_t)-1, out, info, err);
}

int
ks_derive_argv_keep(const struct ks_derive *d, const char *const *argv,
		    size_t argc, size_t keep, struct ks_strv *out,
		    struct ks_derived *info, struct ks_buf *err)
{
	struct ks_derived seen = { 0, 0 };
	size_t i;

	for (i = 0; i < argc; i++) {
		const struct ks_nvopt *opt = NULL;
		const char *value = NULL;
		enum ks_nvopt_word w = ks_nvopt_parse(argv[i], &opt, &value);
		int is_opt = opt && (w == KS_NVOPT_WORD_OPTION ||
				     (d->bad_words_are_options && w == KS_NVOPT_WORD_BAD));
		int takes = is_opt && (opt->flags & KS_NVOPT_TAKES_ARG) && !value;
		int drop = 0;

		if (takes && i + 1 >= argc && d->strict)
			return ks_error(err, "'%s' lacks its value", argv[i]);
		if (w == KS_NVOPT_WORD_INPUT)
			drop = d->drop_inputs && i != keep;
		if (is_opt) {
			if (!strcmp(opt->name, "device-c")) {
				seen.device_c = 1;
				if (d->rdc_in_place)
					ks_strv_push(out, "-rdc=true");
			}
			if (in_names(opt->name, compile_names,
				     KS_ARRAY_SIZE(compile_names)))
				seen.compiles = 1;
			drop = ((opt->flags & d->drop_flags) &&
				!(opt->flags & d->unless_flags)) ||
			       in_names(opt->name, d->drop_names, d->ndrop_names);
		}
		if (!drop)
			ks_strv_push(out, argv[i]);
		if (takes && i + 1 < argc) {
			i++;
			if (!drop)
				ks_strv_push(out, argv[i]);
		}
	}
	if (info)
		*info = seen;
	return 0;
}
