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
 * The kernel key over a closure is cache/key.h (libc only, for ks-nvcc).
 * Ownership: returned strings belong to the caller.
 * May include: libc, core/.
 */
#ifndef KS_ANALYSIS_CLOSURE_H
#define KS_ANALYSIS_CLOSURE_H

#define KS_CLOSURE_FORMAT 1

#endif
