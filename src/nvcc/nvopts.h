/*
 * nvopts: what ks-nvcc knows about nvcc's options, as a table.
 *
 * One row per option of `nvcc --help` (nvcc 13.0.88, 143 options), in
 * nvcc's own spelling: the long name is used as `--name`, the short name as
 * `-name`. nvcc accepts no other mix (`--c` and `-compile` are unknown
 * options). A value follows as `--name=v`, `--name v`, `-short=v` or
 * `-short v`; only the options flagged KS_NVOPT_GLUED also take `-Dv`.
 * tests/check-nvopts.sh compares the table with a real nvcc.
 *
 * Everything here is static data and pure functions; pointers returned
 * point into the table and must not be freed.
 * May include: libc, core/util.h.
 */
#ifndef KS_WRAPPER_NVOPTS_H
#define KS_WRAPPER_NVOPTS_H

#include <stddef.h>

enum ks_nvopt_flag {
	/* A value is required: the rest of the word after '=' (or after a
	 * glued short name), else the next argv word, whatever it looks
	 * like (`-o -x` names the output "-x"). */
	KS_NVOPT_TAKES_ARG = 1 << 0,
	/* The value is a comma-separated list (see ks_args_split_list) and
	 * repeated uses add up; other valued options keep the last value. */
	KS_NVOPT_LIST = 1 << 1,
	/* The value must be exactly "true" or "false"; nvcc rejects a bare
	 * `-rdc` ("argument expected") and `-rdc=yes`. */
	KS_NVOPT_BOOL = 1 << 2,
	/* The short name may be glued to its value: -DX, -I/x, -O3, -lm,
	 * -L/x, -t4. Not -o, -x, -e, -isystem, -include, -arch. */
	KS_NVOPT_GLUED = 1 << 3,
	/* Selects the compilation phase (-c, -E, -ptx, -dlink, -lib, ...). */
	KS_NVOPT_MODE = 1 << 4,
	/* Prints information and exits before compiling anything. */
	KS_NVOPT_INFO = 1 << 5,
	/* Can change the generated device code: hashed into the kernel cache
	 * key. Chosen conservatively: options whose words reach the device
	 * side preprocessing (-Xcompiler, -noeh: their flags appear on
	 * nvcc's `gcc -E -D__CUDA_ARCH__=N` line) count too, less the
	 * host-only words of keyflags.h. Not nvcc's -O, which optimizes host
	 * code only (nvcc --help; the cicc and ptxas lines of --dryrun are
	 * the same for -O0 and -O3): its one device-side trace, __OPTIMIZE__
	 * in that preprocessing, is keyflags.h's -O. Diagnostics, speed (-t,
	 * -split-compile), outputs and host linking do not count. */
	KS_NVOPT_DEVICE_SEMANTIC = 1 << 6,
	/* Changes preprocessing: -D -U -I -isystem -include -target-dir. */
	KS_NVOPT_PREPROC = 1 << 7,
	/* Dependency generation: -M -MM -MD -MMD -MF -MT -MP. */
	KS_NVOPT_DEPS = 1 << 8,
	/* Passes its list to another tool: -Xcompiler -Xlinker -Xarchive
	 * -Xptxas -Xnvlink. Its values are never input files. */
	KS_NVOPT_FORWARD = 1 << 9,
	/* Chooses GPU targets: -arch -code -gencode (see ks_args archs). */
	KS_NVOPT_ARCH = 1 << 10,
};

struct ks_nvopt {
	const char *name;	/* long name, without "--" */
	const char *short_name;	/* without "-"; NULL if nvcc has none */
	unsigned flags;		/* enum ks_nvopt_flag bits */
};

/* How nvcc reads one argv word. */
enum ks_nvopt_word {
	KS_NVOPT_WORD_INPUT,	/* not an option: an input file ("-" too) */
	KS_NVOPT_WORD_OPTION,	/* a known option */
	KS_NVOPT_WORD_UNKNOWN,	/* '-' and more, but no nvcc option */
	KS_NVOPT_WORD_BAD,	/* a known option that takes no value, given
				 * one: nvcc fails ("no argument expected") */
};

/* The option whose long or short name is `name` (no leading dashes), or
 * NULL. Binary search; long names are tried first (no name is the long
 * name of one option and the short name of another). */
const struct ks_nvopt *ks_nvopt_find(const char *name);

/* As ks_nvopt_find, restricted to long or to short names. */
const struct ks_nvopt *ks_nvopt_find_long(const char *name);
const struct ks_nvopt *ks_nvopt_find_short(const char *name);

/* The whole table, sorted by long name (strcmp order); *n gets its size. */
const struct ks_nvopt *ks_nvopt_table(size_t *n);

/*
 * Read one argv word as nvcc 13.0 does. For KS_NVOPT_WORD_OPTION and
 * KS_NVOPT_WORD_BAD, *opt is the option; *value points into `word` at an
 * attached value (`--x=cu`, `-x=cu`, `-DFOO`), or is NULL: then an option
 * that takes a value reads the next argv word. Unknown options never take
 * the next word (nvcc treats `-foo bar` as an option and an input).
 */
enum ks_nvopt_word ks_nvopt_parse(const char *word,
				  const struct ks_nvopt **opt,
				  const char **value);

#endif
