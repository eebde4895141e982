/*
 * features: the static code features of a kernel, computed from its facts.
 *
 * The first 18 are the code features of KernelSkill's policy (research:
 * agents §1.3); the rest are what the skills ask about beyond them
 * (atomics, coalescing, fixed trip counts, synchronization, FP64 in float
 * code, run-time division, divergence, re-tunable launch geometry).
 * docs/FEATURES.md defines each one precisely; this file is that
 * definition in code. Every function here is pure: facts in, features
 * out, so each feature is unit-tested on hand-made facts.
 *
 * Launch-side features (has_multiple_kernels, cudagraph_eligible) read
 * the host facts of the translation unit: which host function launches
 * which kernel where, and where it blocks.
 *
 * Ownership: struct ks_features owns its `why` strings and struct ks_host
 * its arrays; their _release() functions free them (safe on zeroed
 * structs).
 * May include: libc, core/, facts.h.
 */
#ifndef KS_ANALYSIS_FEATURES_H
#define KS_ANALYSIS_FEATURES_H

#include <stddef.h>

struct ks_buf;
struct ks_facts;

enum ks_feature {
	/* KernelSkill's 18 code features */
	KS_F_IS_POINTWISE,
	KS_F_HAS_REUSE,
	KS_F_STREAMING_NO_REUSE,
	KS_F_IS_NAIVE_GEMM,
	KS_F_HAS_K_LOOP,
	KS_F_IS_GEMM_KLOOP,
	KS_F_IS_STENCIL_CONV,
	KS_F_HAS_SHARED_MEMORY_TILE,
	KS_F_USES_VECTOR_TYPES,
	KS_F_HAS_VECTOR_LOAD_STORE,
	KS_F_IS_ALIGNED_VECTOR_ACCESS,
	KS_F_HAS_BOUNDS_CHECK,
	KS_F_HAS_TAIL_HANDLING_OVERHEAD,
	KS_F_USES_TRANSCENDENTALS,
	KS_F_TC_ELIGIBLE,
	KS_F_KERNEL_STRUCTURE,		/* 0-4: S0-S4 */
	KS_F_HAS_MULTIPLE_KERNELS,
	KS_F_CUDAGRAPH_ELIGIBLE,
	/* beyond them */
	KS_F_ATOMICS,
	KS_F_ATOMICS_UNIFORM_ADDRESS,
	KS_F_UNCOALESCED_ACCESSES,
	KS_F_INDIRECT_ACCESSES,
	KS_F_CONST_TRIP_LOOPS,
	KS_F_SYNCTHREADS,
	KS_F_WARP_INTRINSICS,
	KS_F_FP64_IN_FLOAT_CODE,
	KS_F_RUNTIME_DIVMOD_IN_LOOPS,
	KS_F_THREAD_DEPENDENT_BRANCHES,
	KS_F_INDEX_1D,
	KS_F_INDEX_2D,
	KS_F_GEOMETRY_RETUNABLE,
	KS_F_FLAT_QUOTIENT_LOOKUPS,
	KS_F_COUNT
};

/* kernel_structure values */
enum ks_structure {
	KS_S0_STREAMING,
	KS_S1_REUSE,
	KS_S2_IRREGULAR,
	KS_S3_REDUCTION,
	KS_S4_MULTI_KERNEL,
};

struct ks_features {
	int v[KS_F_COUNT];
	char *why[KS_F_COUNT];	/* why the value is what it is, or NULL */
};

void ks_features_release(struct ks_features *f);

/* "is_pointwise", ...; NULL past the end. */
const char *ks_feature_name(int f);
/* The feature named `name` (KernelSkill's spellings kernel_structure_id
 * and has_multiple_kernels_in_forward too), or -1. */
int ks_feature_lookup(const char *name);

/* A launch seen in host code, and a host call that blocks graph capture. */
struct ks_host_launch {
	int kernel;		/* index in the inventory's kernels, or -1 */
	int fn;			/* host function (index in ks_host.fns) */
	unsigned long offset;	/* in the file of the host function */
	/* the enclosing host loop, or 0, 0 */
	unsigned long loop_begin, loop_end;
};

struct ks_host_call {
	int fn;
	unsigned long offset;
	char *name;
};

struct ks_host {
	char **fns;
	size_t nfns;
	struct ks_host_launch *launches;
	size_t nlaunches;
	struct ks_host_call *blocking;
	size_t nblocking;
};

void ks_host_release(struct ks_host *h);
int ks_host_add_fn(struct ks_host *h, const char *name);
void ks_host_add_launch(struct ks_host *h, const struct ks_host_launch *l);
void ks_host_add_blocking(struct ks_host *h, int fn, unsigned long offset,
			  const char *name);

/*
 * Pure: does host function `name` stop a stream from being captured
 * into a CUDA graph (it allocates, frees, synchronizes or copies
 * synchronously)?
 */
int ks_host_is_blocking(const char *name);

/*
 * Pure: the features of kernel number `kernel` from its facts and the
 * TU's host facts (`host` may be NULL: no launches known). `out` must be
 * zeroed or released.
 */
void ks_features_compute(const struct ks_facts *facts,
			 const struct ks_host *host, int kernel,
			 struct ks_features *out);

/*
 * Pure: the evidence behind the extra features as JSON (an object with
 * "atomics", "uncoalesced", "const_trip_loops", "fp64", "divmod_in_loops",
 * "thread_branches", "indirect" arrays of {"line": N, ...}).
 */
void ks_features_details_json(const struct ks_facts *facts, struct ks_buf *out);

#endif
