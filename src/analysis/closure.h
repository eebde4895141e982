/*
 * closure: what a kernel's meaning depends on, and the kernel key.
 *
 * The closure of a kernel is its definition plus every declaration,
 * type, global variable (__device__, __constant__) and macro it reaches,
 * transitively, each as spelled in the source. It is collected from the
 * AST (references, types, overload sets) and from the preprocessing
 * record (macro expansions inside each collected extent, and macros
 * named in those macros' bodies). Declarations from system headers (the
 * toolkit, CCCL, libstdc++, clang's CUDA wrappers) are represented by
 * their qualified name only: their text belongs to the toolkit, whose
 * version is part of the key, and naming them keeps the key the same
 * whichever libclang computed it.
 *
 * The text is the closure format 1:
 *     ks-closure 1
 *     == <kind> <qualified name>
 *     <text, as spelled>
 *     ...
 *     == system <qualified name>      (sorted, once each, at the end)
 * Sections follow discovery order from the kernel, which depends only on
 * the code, not on where it sits in a file.
 *
 * The kernel key hashes (XXH3-128) the key format, the mangled name, the
 * closure, the arch, the device-code flags and the nvcc version: a
 * change to any of them is a different kernel as far as the cache goes.
 * Ownership: returned strings belong to the caller.
 * May include: libc, core/.
 */
#ifndef KS_ANALYSIS_CLOSURE_H
#define KS_ANALYSIS_CLOSURE_H

struct ks_strv;

#define KS_CLOSURE_FORMAT 1
#define KS_KEY_FORMAT 1

/*
 * Pure: the kernel key as 32 hex digits into `out`. `devflags` are the
 * classifier's device-code flags (args.h); their order is kept, since
 * nvcc's meaning can depend on it (the last -O wins).
 */
void ks_closure_key(const char *mangled, const char *closure, const char *arch,
		    const struct ks_strv *devflags, const char *nvcc_version,
		    char out[33]);

#endif
