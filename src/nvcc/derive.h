/*
 * derive: the one way ks derives an nvcc command from a recorded one.
 *
 * Every derived compile (the manifest id, `nvcc -M` for the headers, the
 * Reviewer's shared objects, the evidence compile, one source's compile
 * out of a one-command build) starts from the argv a
 * build record holds and drops what would be wrong in the new compile:
 * options by their flags in the option table (nvopts.h) and by name,
 * with their values, and (for the shim builds) the input file. Which
 * options each of them drops is data: the tables below. What each adds
 * (-M, -shared, -o ...) is its caller's.
 *
 * Pure; pointers in the tables are static.
 * May include: libc, core/, nvopts.h.
 */
#ifndef KS_NVCC_DERIVE_H
#define KS_NVCC_DERIVE_H

#include <stddef.h>

struct ks_buf;
struct ks_strv;

struct ks_derive {
	const char *what;		/* for docs and messages */
	unsigned drop_flags;		/* drop options with any of these KS_NVOPT_* */
	unsigned unless_flags;		/* ...unless they also have one of these */
	const char *const *drop_names;	/* and options of these long names */
	size_t ndrop_names;
	int drop_inputs;		/* drop the input files too */
	int bad_words_are_options;	/* a known option given a bad value is
					 * dropped or kept as an option */
	int rdc_in_place;		/* -dc becomes -rdc=true where it stood */
	int strict;			/* an option without its value is an error */
};

/* What the derivation saw on the way. */
struct ks_derived {
	int device_c;		/* --device-c (-dc) was there */
	int compiles;		/* a phase option that compiles to an object
				 * (--compile, --device-c, --device-w) */
};

/* The manifest id's argv: without output and dependency-file options,
 * which name files but change no code. */
extern const struct ks_derive ks_derive_manifest;
/* `nvcc -M`'s argv: the compile without outputs, phases, -keep, -v. */
extern const struct ks_derive ks_derive_deps;
/* The Reviewer's shared objects (review/build.h): no input, no phase, no
 * output, no dependency files, no -cudart. */
extern const struct ks_derive ks_derive_shared;
/* The evidence compile (evidence/evidence.h): no outputs, nothing that
 * garbles ptxas's report (--threads, --split-compile run several ptxas at
 * once), no dependency files. */
extern const struct ks_derive ks_derive_evidence;

/* One source's compile out of a one-command build (onecmd.h): no other
 * input, no output or dependency-file options, nothing only the link or
 * the archive reads (-l, -L, -Xlinker, -Xnvlink, -Xarchive, -shared,
 * -cudart, -cudadevrt, -nodlink, -hls, -aug-hls, -run-args), no -link or
 * -lib. Strict. */
extern const struct ks_derive ks_derive_compile_only;

/*
 * Pure: append to `out` the words of `argc` words `argv` that `d` keeps;
 * `info` (may be NULL) gets what was seen. Returns 0, or -1 with a
 * message for a strict derivation whose last option lacks its value.
 */
int ks_derive_argv(const struct ks_derive *d, const char *const *argv,
		   size_t argc, struct ks_strv *out, struct ks_derived *info,
		   struct ks_buf *err);

/*
 * Pure: as ks_derive_argv, but the input word at index `keep` stays
 * whatever d->drop_inputs says ((size_t)-1: none does).
 */
int ks_derive_argv_keep(const struct ks_derive *d, const char *const *argv,
			size_t argc, size_t keep, struct ks_strv *out,
			struct ks_derived *info, struct ks_buf *err);

#endif
