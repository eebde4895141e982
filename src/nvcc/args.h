/*
 * args: what an nvcc command line asks for.
 *
 * The caller builds the full argument list the way nvcc does: the words of
 * NVCC_PREPEND_FLAGS (ks_args_split_env), then argv[1..], then the words of
 * NVCC_APPEND_FLAGS; then splices options files in (ks_args_expand, the
 * only I/O here); then classifies (ks_args_classify, pure) and asks
 * ks_args_eligible() whether ks-nvcc acts on the command at all. Nothing
 * here changes what is passed to the real nvcc.
 *
 * Every "nvcc does X" below was checked against nvcc 13.0.88 (`--dryrun`,
 * and tiny compiles); tests/unit/test_args.c names each check.
 *
 * Ownership: struct ks_args owns every string and array in it;
 * ks_args_release() frees them and is safe on a zeroed or freshly
 * initialised struct. `rejected` and the reasons of ks_args_eligible()
 * are static strings.
 * args.c is longer than the project's 1,200 lines: it is one pass over
 * nvcc's grammar in nvcc's own order (options files, forwarding options,
 * phases, archs, inputs), and every step reads and writes the same private
 * classification state; the option table (nvopts.c) and the arch names
 * (arch.c) are already apart.
 * May include: libc, core/ (buf.h, grow.h, strv.h, util.h), arch.h,
 * keyflags.h, nvopts.h.
 */
#ifndef KS_WRAPPER_ARGS_H
#define KS_WRAPPER_ARGS_H

#include <stddef.h>

#include "../core/buf.h"
#include "../core/strv.h"

/* Deepest nesting of options files nvcc 13.0 reads: a 16th level fails
 * with "Too many options file opened". */
#define KS_ARGS_OPTF_DEPTH 15

enum ks_mode {
	/* -c, -dc or -dw: sources to objects, no link */
	KS_MODE_COMPILE,
	/* no phase option (or -link) and a source among the inputs */
	KS_MODE_COMPILE_LINK,
	/* no phase option (or -link) and only objects, libraries, ... */
	KS_MODE_LINK,
	KS_MODE_DLINK,		/* -dlink */
	KS_MODE_LIB,		/* -lib */
	KS_MODE_PREPROCESS,	/* -E */
	KS_MODE_DEPS,		/* -M or -MM: dependencies, no compile */
	KS_MODE_DRYRUN,		/* --dryrun; the phase is in `phase` */
	/* --version, --help, --list-gpu-*; or no input at all */
	KS_MODE_INFO,
	/* -ptx -cubin -fatbin -ltoir -optix-ir */
	KS_MODE_DEVICE,
	KS_MODE_CUDA,		/* -cuda */
	KS_MODE_RUN,		/* -run */
	KS_MODE_OTHER,		/* -clean */
};

/*
 * An input's language: the -x value when given (it applies to every
 * input, whatever its suffix, even to .o files; the last -x wins), else
 * the suffix, compared case-sensitively as nvcc does (.CU and .C are
 * refused).
 */
enum ks_lang {
	KS_LANG_CU,	/* .cu */
	KS_LANG_C,	/* .c */
	KS_LANG_CXX,	/* .cc .cxx .cpp */
	/* .o .obj, and .cu.cpp.ii (-cuda's output: nvcc links it as is) */
	KS_LANG_OBJ,
	KS_LANG_LIB,	/* .a .so .lib */
	KS_LANG_PTX,	/* .ptx */
	KS_LANG_CUBIN,	/* .cubin */
	KS_LANG_FATBIN,	/* .fatbin */
	KS_LANG_GPU,	/* .gpu: in nvcc's help, but 13.0 refuses it */
	KS_LANG_I,	/* .i: preprocessed C */
	/* .ii, also .cu.ii and .cpp.ii: preprocessed C++ for the host */
	KS_LANG_II,
	/* .cup: preprocessed CUDA (nvcc has no .cu.ii input form) */
	KS_LANG_CUP,
	KS_LANG_LTOIR,	/* .ltoir: only with -dlto -dlink */
	/* nvcc: "Don't know what to do with" it; also @file (13.0 has no
	 * response files) and "-" (stdin) */
	KS_LANG_OTHER,
};

/*
 * One GPU target: `real` is "sm_90", "sm_90a" or "lto_90" for a binary or
 * LTO image compiled from `virt`, or "" for `virt`'s PTX itself.
 */
struct ks_arch {
	char virt[24];	/* "compute_90", "compute_90a" */
	char real[24];	/* "sm_90", "lto_90", "" for PTX */
};

struct ks_input {
	char *path;
	enum ks_lang lang;
};

struct ks_args {
	enum ks_mode mode;
	/* The mode --dryrun hides; equal to `mode` otherwise. */
	enum ks_mode phase;
	int relocatable;	/* -rdc=true, -dc (-dw: 0) */
	struct ks_input *inputs;
	size_t ninputs;
	/*
	 * The file the command writes, as nvcc names it: -o as given (-odir
	 * is then ignored); else -odir/<default>, where the default is the
	 * input's basename with its last suffix replaced (x.cu -c -> x.o,
	 * -ptx -> x.ptx, -cubin, -fatbin, -ltoir, -optix-ir -> x.optixir),
	 * x.cu.cpp.ii for -cuda, a.out for a link or -run, a.a for -lib,
	 * a_dlink.o for -dlink. -M/-MM write to -o, else -MF. NULL when the
	 * output goes to stdout (-E, -M without -o/-MF), for --version and
	 * the like, and for a per-input mode with several inputs.
	 */
	char *output;
	/*
	 * Every (virtual, real) pair, deduplicated, in nvcc's order: -arch
	 * and -code first, then each -gencode. -arch=sm_NN means compute_NN
	 * with sm_NN and its PTX; -arch=compute_NN means PTX only;
	 * -arch=lto_NN means lto_NN only. An arch-specific -arch=sm_NNa or
	 * sm_NNf also gets a generic compute_NN PTX. -dlto turns the sm_NN
	 * of -arch into lto_NN and adds lto_NN to compute_NN. A real target
	 * is named as nvcc builds it (-arch=compute_100f -code=sm_103 gives
	 * sm_103f). No target option at all means -arch=sm_75 (13.0's
	 * default). Targets nvcc refuses set `rejected` to "arch".
	 */
	struct ks_arch *archs;
	size_t narchs;
	/* -arch=native, all or all-major: the target list depends on the
	 * machine or the nvcc version, so `archs` holds only the -gencode
	 * pairs; arch_symbol is that word. */
	int arch_symbolic;
	char *arch_symbol;
	int arch_default;	/* no target option: DEFAULT_ARCH's pairs */
	int dlto;		/* -dlto / -lto */
	/*
	 * What the kernel key hashes besides the closure: the options that
	 * can change device code (KS_NVOPT_DEVICE_SEMANTIC) in order,
	 * spelled "-<short>" or "-<short>=<value>" whatever form was used,
	 * list values split into one entry each: "-use_fast_math",
	 * "-ftz=true", "-maxrregcount=64", "-std=c++17", "-Xptxas=-O2",
	 * "-Xcompiler=-fopenmp"; and the macros, as in `defines` ("-DN=4",
	 * "-UX"), since the closure sees neither a macro a kernel tests with
	 * #ifdef nor a value given on the command line. Unknown options
	 * forwarded to the host compiler count as "-Xcompiler=<option>".
	 * Left out: the host-only -Xcompiler words and the ptxas words that
	 * only change messages (keyflags.h), nvcc's -O (host optimization),
	 * -ccbin; targets (archs) and relocation (relocatable), which the key
	 * takes from elsewhere; include paths (the closure holds the text of
	 * what they find).
	 */
	struct ks_strv devflags;
	/* "-I<dir>", "-isystem<dir>", "-include<file>" in order. */
	struct ks_strv includes;
	/* "-D<name[=value]>", "-U<name>" in order. */
	struct ks_strv defines;
	char *std;		/* last -std value, e.g. "c++17" */
	char *ccbin;		/* last -ccbin value */
	/*
	 * The dependency file nvcc writes: for -MD/-MMD, -MF, else -o with
	 * its last suffix replaced by .d (app -> app.d), else
	 * -odir/<input basename>.d; for -M/-MM, -o, else -MF, else NULL
	 * (stdout). NULL when none is written.
	 */
	char *depfile;
	int dep_md, dep_mmd, dep_mp;
	/* The -MT target; nvcc keeps only the last one. */
	struct ks_strv dep_targets;
	int verbose, keep, dryrun, save_temps;
	char *keep_dir, *odir;
	int info;		/* --version, --help, --list-gpu-* seen */
	/* -forward-unknown-to-host-compiler, -to-host-linker or
	 * -forward-unknown-opts seen: unknown options are accepted. */
	int forward_unknown;
	struct ks_strv unknown;	/* unknown options, in order */
	/*
	 * NULL, or why nvcc 13.0 would refuse the command, as a static
	 * word: "unknown-option", "unknown-input" (a suffix nvcc does not
	 * know, @file, "-"), "bad-option" (-G=1), "bad-value"
	 * (-rdc=yes, -x none, a stray quote in a list), "phase-conflict"
	 * (-lib -link, -c -run), "rdc-conflict" (-dc -dw, -dc -rdc=false),
	 * "deps-conflict" (-MF without -M/-MD, -MD with -E),
	 * "output-multiple-inputs", "arch" (a target nvcc refuses),
	 * "dlto-conflict" (-dlto with -code/-gencode), "options-file" (left
	 * unexpanded).
	 */
	const char *rejected;
	struct ks_strv argv;	/* the words classified */
};

void ks_args_init(struct ks_args *a);
void ks_args_release(struct ks_args *a);

/*
 * Read each --options-file/-optf file (comma lists allowed) and splice
 * its words in place of the option, recursively up to KS_ARGS_OPTF_DEPTH
 * levels. Paths are relative to the working directory, also inside a
 * file. A file's words are split as nvcc does: at blanks and newlines
 * outside double quotes; a backslash yields the next character (a blank
 * or a quote too); then the double quotes not right after a backslash go.
 * Single quotes and '#' are ordinary. A file cannot lend its last option
 * the next word as value. A -optf that is the value of another option is
 * left alone; @file is not expanded (nvcc 13.0 refuses it).
 * Appends the words to `out`. Returns 0, or -1 with a message in `err`
 * (unreadable file, unbalanced quote, too deep, option without value).
 */
int ks_args_expand(const struct ks_strv *in, struct ks_strv *out,
		   struct ks_buf *err);

/*
 * Split an NVCC_PREPEND_FLAGS/NVCC_APPEND_FLAGS value into words as nvcc
 * does: on spaces and tabs (not newlines) outside double quotes; the
 * quotes stay in the word (`-DA="x y"` is one word, quotes included);
 * inside quotes a backslash keeps the next character from ending them;
 * single quotes are ordinary. Appends to `out`; returns 0, or -1 on an
 * unbalanced quote (nvcc: "Stray '"' character").
 */
int ks_args_split_env(const char *value, struct ks_strv *out,
		      struct ks_buf *err);

/*
 * Split a list option's value (-D, -I, -Xcompiler, -code, -optf, ...) as
 * nvcc does: at commas outside double quotes; a backslash yields the next
 * character literally (`1\,2` -> "1,2"); double quotes stay; each item
 * loses its leading and trailing spaces and tabs (escaped or not, but
 * not inside quotes), and empty items are dropped. Appends to `out`;
 * returns 0, or -1 on an unbalanced quote or a trailing backslash.
 */
int ks_args_split_list(const char *value, struct ks_strv *out,
		       struct ks_buf *err);

/*
 * Classify an nvcc argument list (argv[0] excluded; prepend/append words
 * and options files already in it). Pure. `out` must be freshly
 * initialised; release it whatever the result. Returns 0, or -1 only
 * when the words cannot be read at all (an option missing its value at
 * the end). Commands that nvcc would refuse classify fine, with
 * `rejected` set.
 */
int ks_args_classify(const struct ks_strv *argv, struct ks_args *out,
		     struct ks_buf *err);

/*
 * Pure decision: does ks-nvcc act on this command (record it, later
 * substitute its kernels)? Only a single-input CUDA compile to an object
 * (-c/-dc/-dw) that nvcc would accept, without -v, -keep or a machine-
 * dependent target list. Returns 1 with *reason NULL, or 0 with a short
 * static word used as a stats counter name: the `rejected` word,
 * "mode-<mode>" (mode-link, mode-preprocess, ...), "dryrun", "no-input",
 * "verbose", "keep", "multiple-inputs", "not-cuda", "arch-symbolic".
 */
int ks_args_eligible(const struct ks_args *a, const char **reason);

/*
 * Pure decision for a one-command build: does ks-nvcc record the CUDA
 * sources of this compile-and-link (or -lib) command, one record each
 * (onecmd.h)? One that nvcc would accept, without -v, -keep or a
 * machine-dependent target list, with at least one CUDA source (a .cu, or
 * any source under -x cu). Returns 1 with *reason NULL, or 0 with a
 * static word as in ks_args_eligible: the `rejected` word, "mode-<mode>"
 * for another mode, "verbose", "keep", "arch-symbolic", "not-cuda".
 */
int ks_args_eligible_command(const struct ks_args *a, const char **reason);

/* Pure: the language nvcc gives an input by its suffix alone (no -x). */
enum ks_lang ks_args_lang_of(const char *path);

/* The mode's name ("compile", "link", ...), for logs. */
const char *ks_args_mode_name(enum ks_mode mode);

/* The language's name ("cu", "cxx", "obj", ...), for logs. */
const char *ks_args_lang_name(enum ks_lang lang);

/*
 * Pure: how the compile's device code reaches a GPU of arch `real` ("sm_90";
 * no suffix): 1 when it builds that SASS; 2 when the GPU runs it anyway, by
 * compiling an older PTX target at load time or through an older SASS of
 * the same major (sm_80 on an sm_86), so a variant verified on that GPU
 * needs the target added; 0 otherwise (no such target, a symbolic -arch
 * whose list this classifier does not know, an arch-specific or LTO name).
 */
int ks_args_reaches(const struct ks_args *a, const char *real);

/*
 * Pure: the words that add the SASS of `real` to the compile where
 * ks_args_reaches() says 2: "-gencode arch=compute_NN,code=sm_NN", after
 * "-arch=sm_75" when the command named no target (nvcc drops its default
 * once any -gencode is given). Pushes them to `out` and returns how many;
 * 0 and nothing pushed otherwise.
 */
int ks_args_reach_words(const struct ks_args *a, const char *real,
			struct ks_strv *out);

#endif
