/*
 * evidence: what the compiler says about each kernel, without a GPU.
 *
 * Three sources, each read by a pure parser:
 *   - `ptxas -v` (stderr of nvcc -Xptxas -v): per kernel and real arch,
 *     registers, spill bytes, stack frame, static shared memory, constant
 *     memory, named barriers;
 *   - the PTX of each virtual arch (nvcc -keep): per .entry, counts of the
 *     instructions the policy cares about (128-bit global accesses, local
 *     memory, tensor cores, FP64, special functions, atomics, barriers,
 *     shuffles), callees' counts folded into their callers;
 *   - the SASS (cuobjdump -sass), when a cuobjdump is at hand: the same
 *     counts from the machine code that really runs.
 * ks_evidence_features() turns them into the named features of
 * docs/EVIDENCE.md for the policy. ks_evidence_argv() (pure) derives the
 * compile from a build record's argv and ks_evidence_collect() runs it in a
 * temporary directory: the only function here that does I/O.
 *
 * Ownership: struct ks_evidence owns its records and their strings;
 * ks_evidence_release() frees them (safe on KS_EVIDENCE_INIT). Pointers
 * returned by ks_evidence_find() point into it.
 * May include: libc, core/, nvcc/derive.h.
 */
#ifndef KS_EVIDENCE_EVIDENCE_H
#define KS_EVIDENCE_EVIDENCE_H

#include <stddef.h>

struct ks_buf;
struct ks_strv;

/* Where a record's numbers came from (bits of ks_evidence_kernel.sources). */
#define KS_EVIDENCE_PTXAS 1u
#define KS_EVIDENCE_PTX 2u
#define KS_EVIDENCE_SASS 4u

/* Instruction counts of one function in one listing (PTX or SASS). */
struct ks_evidence_counts {
	long instructions;
	long vec128_global_loads, vec128_global_stores;
	long vec64_global_loads, vec64_global_stores;
	long local_loads, local_stores;
	long tensor_ops;
	long fp64_ops;
	long sfu_ops;
	long atomics;
	long barriers;
	long shuffles;
};

/*
 * One kernel (mangled name) on one arch. `arch` is spelled as ptxas and
 * cuobjdump spell it ("sm_90", "sm_90a"); PTX records use the .target of
 * the PTX ("sm_80" for compute_80). Numbers from ptxas are -1 when ptxas
 * did not state them.
 */
struct ks_evidence_kernel {
	char *name;
	char *arch;
	unsigned sources;
	long regs;
	long barriers_used;
	long stack_frame;
	long spill_stores, spill_loads;
	long smem_static;
	long cmem;
	struct ks_evidence_counts ptx, sass;
};

struct ks_evidence {
	struct ks_evidence_kernel *k;
	size_t n, alloc;
};
#define KS_EVIDENCE_INIT { NULL, 0, 0 }

/* Free every record; `ev` is then empty (KS_EVIDENCE_INIT). */
void ks_evidence_release(struct ks_evidence *ev);

/* The record of (kernel, arch), or NULL. */
const struct ks_evidence_kernel *
ks_evidence_find(const struct ks_evidence *ev, const char *kernel,
		 const char *arch);

/*
 * Pure parsers. Each adds to or completes the records of `ev`. Lines they
 * do not recognize are skipped (compilers add lines over time); they fail
 * only on text that cannot be what they read (a ptxas line for a kernel
 * without an arch, a PTX file without .target, SASS with no arch).
 */
int ks_evidence_parse_ptxas(struct ks_evidence *ev, const char *text,
			    struct ks_buf *err);
int ks_evidence_parse_ptx(struct ks_evidence *ev, const char *text,
			  struct ks_buf *err);
int ks_evidence_parse_sass(struct ks_evidence *ev, const char *text,
			   struct ks_buf *err);

/* The features of docs/EVIDENCE.md, in this order. */
enum ks_evidence_feature {
	KS_EVF_REGS_PER_THREAD,
	KS_EVF_SPILL_STORES_BYTES,
	KS_EVF_SPILL_LOADS_BYTES,
	KS_EVF_SPILLS,
	KS_EVF_STACK_FRAME_BYTES,
	KS_EVF_SMEM_STATIC_BYTES,
	KS_EVF_CMEM_BYTES,
	KS_EVF_BARRIERS_USED,
	KS_EVF_USES_LOCAL_MEMORY,
	KS_EVF_LOCAL_LOADS,
	KS_EVF_LOCAL_STORES,
	KS_EVF_HAS_VEC128_GLOBAL,
	KS_EVF_VEC128_GLOBAL_LOADS,
	KS_EVF_VEC128_GLOBAL_STORES,
	KS_EVF_VEC64_GLOBAL_LOADS,
	KS_EVF_VEC64_GLOBAL_STORES,
	KS_EVF_USES_TENSOR_CORES,
	KS_EVF_TENSOR_OPS,
	KS_EVF_FP64_OPS,
	KS_EVF_SFU_OPS,
	KS_EVF_ATOMICS,
	KS_EVF_BARRIERS,
	KS_EVF_SHUFFLES,
	KS_EVF_INSTRUCTIONS,
	KS_EVF_FROM_SASS,
	KS_EVF_COUNT
};

struct ks_evidence_features {
	double value[KS_EVF_COUNT];
	unsigned char known[KS_EVF_COUNT];
	/* Which records served: ptxas and SASS of `arch`, PTX of `ptx_arch`. */
	unsigned sources;
	const char *ptx_arch;	/* points into the evidence, or NULL */
};

/* The feature's name ("regs_per_thread"), or NULL past the end. */
const char *ks_evidence_feature_name(int f);
/* The feature with that name, or -1. */
int ks_evidence_feature_lookup(const char *name);

/*
 * Pure: the features of `kernel` on the real arch `arch`. ptxas and SASS
 * numbers come from that arch's record; PTX numbers from the PTX nvcc
 * compiled that arch from: the same arch, else the highest plain target
 * not above it (compute_80 PTX serves sm_86). Counts come from SASS when
 * there is SASS, else from PTX. Returns -1 with a message when nothing at
 * all is known about the kernel on that arch.
 */
int ks_evidence_features(const struct ks_evidence *ev, const char *kernel,
			 const char *arch, struct ks_evidence_features *out,
			 struct ks_buf *err);

/*
 * Pure: every (kernel, arch) with ptxas or SASS numbers (the real archs
 * compiled), and PTX-only kernels at their PTX arch, as JSON:
 * [{"kernel": ..., "arch": ..., "sources": [...], "features": {...}}, ...]
 * Unknown features are left out.
 */
void ks_evidence_format_json(const struct ks_evidence *ev, struct ks_buf *out);
/* Pure: the same as text, one "kernel arch" line then "  name value" lines. */
void ks_evidence_format_text(const struct ks_evidence *ev, struct ks_buf *out);

/*
 * Pure: the nvcc arguments (without argv[0]) that compile the recorded
 * command again for evidence: the recorded `argv`, read with nvcc's option
 * table, without its outputs (-o, dependency files, -keep, -odir, -time)
 * and without what would garble ptxas's report (-v, --dryrun, --threads,
 * --split-compile), plus `-Xptxas -v -keep -keep-dir <tmpdir>
 * -o <tmpdir>/ks-evidence.o` (and -c when it has no -c, -dc or -dw).
 */
void ks_evidence_argv(const char *const *argv, size_t argc, const char *tmpdir,
		      struct ks_strv *out);

struct ks_evidence_request {
	const char *nvcc;		/* the real nvcc */
	const char *const *argv;	/* the recorded arguments, no argv[0] */
	size_t argc;
	const char *cwd;		/* where the build ran it, or NULL */
	const char *prepend_flags;	/* the build's NVCC_PREPEND_FLAGS */
	const char *append_flags;	/* the build's NVCC_APPEND_FLAGS */
	const char *cuobjdump;		/* or NULL: no SASS */
	int timeout_ms;			/* for each child; 0: none */
};

/*
 * Compile in a fresh temporary directory (removed afterwards), then parse
 * ptxas's report, every PTX file and, with a cuobjdump, the SASS of the
 * object. nvcc failing is an error whose message holds nvcc's first error
 * line. A cuobjdump that fails costs only the SASS (the reason is logged):
 * the rest of the evidence stands.
 */
int ks_evidence_collect(const struct ks_evidence_request *req,
			struct ks_evidence *ev, struct ks_buf *err);

#endif
