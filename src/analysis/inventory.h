/*
 * inventory: the kernels and launch sites of one CUDA translation unit.
 *
 * ks_inventory_build() parses the TU with libclang as CUDA, with the
 * build's own flags (include paths, macros, -std, the target arch), and
 * lists every __global__ function defined in the TU's own files (system
 * headers are skipped), every <<<>>> launch, and per kernel its facts,
 * static features (features.h) and source closure (closure.h). A TU that
 * does not parse cleanly (any error diagnostic) gives no inventory at all,
 * only the reason: never a partial, possibly wrong one.
 *
 * Extents are what the rewriter needs to replace a kernel or a launch in
 * the source text: absolute file names as clang opened them, byte offsets
 * [begin, end) into that file, and 1-based lines and columns. These
 * structs are a stable interface: fields are only ever added.
 *
 * How it parses: -x cuda --cuda-device-only (kernel bodies as the device
 * compiler sees them, __CUDA_ARCH__ defined, real mangled names) for one
 * real arch; the toolkit's include/cccl; a stub texture_fetch_functions.h
 * (CUDA 13 removed it, clang's wrapper still includes it) written under
 * <state_dir>/clang/; and a precompiled header of clang's CUDA prelude
 * plus the TU's leading system includes (cub, thrust, ...), built with
 * function bodies skipped and cached under <state_dir>/clang/ by
 * (libclang, toolkit, flags, includes): the first analysis costs about
 * what a plain parse does, the next ones a fraction. A PCH that fails to
 * load is deleted and the TU parsed plainly. Without a toolkit the TU is
 * parsed with -nocudainc and a minimal prelude of ks's own (enough for
 * self-contained kernels; for tests and machines without CUDA).
 *
 * Ownership: struct ks_inventory owns everything in it;
 * ks_inventory_release() frees it (safe on a zeroed struct). Strings
 * are never NULL unless a comment says so.
 * May include: libc, core/, cache/rewrite.h, facts.h, features.h.
 */
#ifndef KS_ANALYSIS_INVENTORY_H
#define KS_ANALYSIS_INVENTORY_H

#include <stddef.h>

#include "../cache/rewrite.h"
#include "../core/strv.h"
#include "facts.h"
#include "features.h"

struct ks_buf;

#define KS_INVENTORY_FORMAT 1

/* A range of source text. */
struct ks_extent {
	char *file;		/* absolute path, or "" when unknown */
	unsigned long begin;	/* byte offset of the first byte */
	unsigned long end;	/* byte offset one past the last byte */
	unsigned line, col;	/* of `begin`, 1-based */
	unsigned end_line, end_col;	/* of the last byte, 1-based */
};

struct ks_param {
	char *name;		/* "" for an unnamed parameter */
	char *type;		/* as spelled: "const float *__restrict" */
	long long size;		/* bytes; -1 when dependent (templates) */
	long long align;	/* bytes; -1 when dependent */
	int is_pointer;
	int pointee_const;
	int is_restrict;
};

/* One instantiation of a template kernel used by the TU. */
struct ks_instance {
	char *mangled;		/* "_Z2tkIfEvPT_PKS0_i" */
	char *display;		/* "tk<float>" */
};

struct ks_kernel_key {
	char *mangled;
	char *arch;		/* "sm_90" */
	char key[33];		/* 32 hex digits */
	/* a GPU the build runs on without naming its target (through PTX,
	 * or an older SASS of its major): printed apart */
	int reached;
};

struct ks_kernel {
	char *name;		/* "scale" */
	char *qualified;	/* "ns::scale" */
	char *display;		/* "scale(float *, float, int)" */
	char *mangled;		/* NULL for a template: see `inst` */
	int is_template;
	struct ks_instance *inst;
	size_t ninst;
	struct ks_param *params;
	size_t nparams;
	/* The whole definition: from `template` or the first specifier
	 * (static, __global__, __launch_bounds__) to the closing brace. */
	struct ks_extent extent;
	struct ks_extent body;	/* the braces and what is between them */
	struct ks_extent name_ext;	/* the name in the definition */
	/* __launch_bounds__(max threads, min blocks, max cluster): the text
	 * between the parentheses (NULL: none), and the values that are
	 * integer literals or macros for one (-1 otherwise). */
	char *launch_bounds;
	long long lb[3];
	int nlb;
	int in_main_file;	/* defined in the TU's own file, not a header */
	struct ks_facts facts;
	struct ks_features features;
	/* The closure (closure.h): definition and everything it reaches, as
	 * spelled; the input of the kernel key. */
	char *closure;
	/* Kernel keys, one per (mangled name, arch), once
	 * ks_inventory_set_keys() has run. */
	struct ks_kernel_key *keys;
	size_t nkeys;
};

struct ks_launch {
	int kernel;		/* index in kernels, -1 if not defined here */
	char *callee;		/* as spelled: "scale", "tk<float>" */
	char *mangled;		/* of what is launched, or NULL */
	/* Configuration expressions as spelled; shmem and stream NULL when
	 * left out. */
	char *grid, *block, *shmem, *stream;
	char *caller;		/* enclosing function ("run_scale") */
	int in_loop;		/* inside a host loop */
	int device_side;	/* in a __device__ function */
	char **argtext;		/* the kernel arguments as spelled */
	size_t nargs;
	struct ks_extent extent;	/* k<<<...>>>(...) */
	struct ks_extent callee_ext;	/* "scale" or "tk<float>" */
	struct ks_extent config;	/* "<<<...>>>" */
	struct ks_extent args;	/* "(...)" */
	/* The instances of a template kernel this site launches, by mangled
	 * name: one for a site outside templates, one per instantiation of
	 * the enclosing template function for a site inside one (whose
	 * `mangled` is then NULL: the site launches several). */
	char **inst;
	size_t ninst;
	/* A launch produced by a macro's expansion: the macro's name (then
	 * `extent` is the macro's use; `callee_ext`, `config` and `args` are
	 * empty; callee, grid, block, ... are read where they are spelled,
	 * in the macro's body or the use's arguments) and the reason the
	 * rewriter gives; both NULL otherwise. */
	char *macro;
	char *not_rewritable;
};

struct ks_inventory {
	char *source;		/* absolute path of the TU */
	char *arch;		/* the arch parsed for ("sm_90") */
	char *clang;		/* libclang version */
	int prelude;		/* parsed without the toolkit (-nocudainc) */
	struct ks_kernel *kernels;
	size_t nkernels;
	struct ks_launch *launches;
	size_t nlaunches;
	struct ks_host host;
	/* The direct-mode manifest written for the TU (ks analyze
	 * --manifest), or NULL. */
	char *manifest;
	/* Every file the parse read (the TU first), absolute. */
	struct ks_strv files;
	double parse_seconds;
	int used_pch;		/* the parse took a PCH of system headers */
	/* ... one of headers that the plain parse includes after user
	 * code (none of which sees their declarations) */
	int pch_past_code;
	/* Host code clang did not understand and nvcc accepts, set aside
	 * because no kernel, launch or template depends on it, as
	 * "file:line:col: message" (tu.h, ks_walk_host_errors). */
	struct ks_strv host_errors;
};

/* How to parse a TU: the build's view of it. */
struct ks_tu_opts {
	const char *source;		/* the .cu file */
	const char *cwd;		/* of relative paths; NULL: ours */
	const char *toolkit;		/* CUDA toolkit root, or NULL */
	const char *state_dir;		/* KS_DIR: stub and PCH live under it */
	const char *arch;		/* "sm_90"; NULL: sm_75 */
	/* "-I<dir>", "-isystem<dir>", "-include<file>" */
	const struct ks_strv *includes;
	const struct ks_strv *defines;	/* "-DX=1", "-UY" */
	/* nvcc's predefined macros ("-U__CUDACC__", "-D__CUDACC__=1", ...;
	 * nvcc/nvccmacros.h), before the build's own; NULL: none */
	const struct ks_strv *nvcc_macros;
	/* __CUDA_ARCH_LIST__ as nvcc defines it for the build ("750,900":
	 * ks_tu_arch_list); NULL: not defined. CCCL names its inline
	 * namespaces after it (cub::CUB_300001_SM_900), so a kernel with a
	 * cub type among its template arguments is mangled as nvcc's PTX
	 * names it only with it. */
	const char *arch_list;
	/* clang's cuda_wrappers directory, searched before the C++ library
	 * (-isystem; libclang.h, ks_libclang_cuda_wrappers); NULL: libclang's
	 * own search (ks_tu_parse fills it in with a toolkit). */
	const char *cuda_wrappers;
	/* The host compiler's include directories (nvcc/hostinc.h), searched
	 * after clang's own (-idirafter); NULL: none */
	const struct ks_strv *host_includes;
	const char *std;		/* "c++17"; NULL: c++17 */
	int no_pch;			/* parse without the cached PCH */
	/* Steps of the kernel walk (statements and expressions evaluated)
	 * before the TU's analysis stops; 0: KS_ANALYSIS_MAX_STEPS. */
	unsigned long max_steps;
	/* Milliseconds of CPU time the parse and walk of the TU may take,
	 * the PCH's one-time build aside (KS_ANALYSIS_TIMEOUT); 0: no bound.
	 * Past it the TU gets "analysis took longer than N ms of CPU time"
	 * and no inventory
	 * (tu.h, ks_tu_watch_start: a libclang call that does not return
	 * ends the process with that reason). */
	unsigned long timeout_ms;
};

/* The default bound on the walk of one TU: far above what real kernels
 * take (thousands), so that only a runaway walk meets it. */
#define KS_ANALYSIS_MAX_STEPS 2000000UL

void ks_inventory_release(struct ks_inventory *inv);

/*
 * Parse and inventory. Returns 0, or -1 with the reason in `err`: no
 * libclang, a file that cannot be read, the TU's first errors as
 * "file:line:col: message" (up to three), or a walk past its bound
 * ("analysis stopped after N steps"), a walk past its time bound
 * ("analysis took longer than N ms of CPU time"); then `inv` holds no
 * kernels.
 */
int ks_inventory_build(const struct ks_tu_opts *o, struct ks_inventory *inv,
		       struct ks_buf *err);

/*
 * Pure: the clang arguments for `o` (without the source file): the
 * language, arch, toolkit or prelude, stub directory, the build's flags.
 * `stub_dir` and `prelude` (a header path; used only without a toolkit)
 * come from the caller, so the function does no I/O.
 */
void ks_tu_args(const struct ks_tu_opts *o, const char *stub_dir,
		const char *prelude, struct ks_strv *out);

/*
 * Pure: the TU's leading angle-bracket includes (`#include <cub/cub.cuh>`
 * lines before anything but blanks, comments and `#pragma once`),
 * appended to `out` without the brackets. Returns how many.
 */
int ks_tu_prefix(const char *text, struct ks_strv *out);

/*
 * Pure: the clang arch for a build target: "sm_90" for sm_90, compute_90
 * or lto_90; arch-specific suffixes kept (sm_90a); NULL for what clang
 * cannot take. libclang 19 knows sm_20..sm_90a; newer targets fall back
 * to the newest it knows, which parses the same source.
 */
const char *ks_tu_clang_arch(const char *target, char *buf, size_t size);

/*
 * Pure: __CUDA_ARCH_LIST__ for a build's targets, as nvcc 13 defines it:
 * the virtual archs' numbers times ten, ascending, once each ("750,900"
 * for compute_90 and compute_75; compute_90a gives 900). Names that do
 * not parse are skipped; NULL when none does. The caller frees.
 */
char *ks_tu_arch_list(const char *const *targets, size_t n);

/*
 * Pure: compute every kernel's keys (closure.h) for each real arch in
 * `archs` ("sm_90"), the build's device-code flags and nvcc version.
 * Replaces keys computed before.
 */
void ks_inventory_set_keys(struct ks_inventory *inv,
			   const struct ks_strv *archs,
			   const struct ks_strv *devflags,
			   const char *nvcc_version);

/* The kernel named `name` (plain or qualified) or with that mangled name
 * (of itself or of an instantiation), or NULL. */
const struct ks_kernel *ks_inventory_find(const struct ks_inventory *inv,
					  const char *name);

/* Pure: the inventory as JSON (format KS_INVENTORY_FORMAT; MANUAL.md). */
void ks_inventory_format_json(const struct ks_inventory *inv,
			      struct ks_buf *out);
/* Pure: the inventory as a table for people. */
void ks_inventory_format_text(const struct ks_inventory *inv,
			      struct ks_buf *out);

/*
 * Pure: the rewriter's view of kernel `k` of inventory `inv`:
 * its definition's extent and its launches in the TU's own file. Fails for
 * a kernel defined outside that file. `out` owns copies; release it with
 * ks_rewrite_kernel_release().
 */
int ks_rewrite_kernel_from_inventory(const struct ks_inventory *inv,
				     const struct ks_kernel *k,
				     struct ks_rewrite_kernel *out,
				     struct ks_buf *err);

/*
 * Pure: the template arguments of instance `in` as its display writes
 * them ("float, 64" for "fill<float, 64>"), for ks_rewrite_instances();
 * a malloc'd string, "" when the display has none.
 */
char *ks_inventory_instance_args(const struct ks_instance *in);

#endif
