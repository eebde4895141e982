/*
 * toolkit: where ks finds the programs it runs but does not build (the CUDA
 * toolkit's cuobjdump, ncu, compute-sanitizer, cu++filt) and its own
 * companions (ks-replay, libks-capture.so). One search order for each
 * kind, so that a setting that works for one command works for all.
 *
 * A toolkit program NAME, first hit wins:
 *   1. its setting (KS_CUOBJDUMP, ...) when the caller has one: that path
 *      as given; an empty setting means "none";
 *   2. beside the nvcc in use (the configured KS_NVCC, or the nvcc a build
 *      record names), when that is a path;
 *   3. $CUDA_HOME/bin, then $CUDA_PATH/bin;
 *   4. /usr/local/cuda/bin;
 *   5. PATH.
 * A companion NAME, first hit wins:
 *   1. its setting (KS_CAPTURE_LIB, ...) when non-empty;
 *   2. beside the running program (/proc/self/exe);
 *   3. <that directory>/../lib/ks-nvcc/ (the installed layout);
 *   4. PATH.
 * nvcc itself is found by the wrapper (nvcc/passthru.h: KS_NVCC, PATH,
 * CUDA_HOME, CUDA_PATH, /usr/local/cuda/bin, skipping ks-nvcc) and libclang
 * by analysis/libclang.h (KS_LIBCLANG, then the LLVM versions it knows),
 * each for reasons their headers give.
 *
 * Returned strings belong to the caller; NULL when nothing was found.
 * May include: libc, fs.h, util.h.
 */
#ifndef KS_CORE_TOOLKIT_H
#define KS_CORE_TOOLKIT_H

/* A toolkit program by the order above; `setting` and `nvcc` may be NULL. */
char *ks_toolkit_program(const char *name, const char *setting, const char *nvcc);

/* A companion of ks by the order above; `setting` may be NULL. */
char *ks_toolkit_companion(const char *name, const char *setting);

#endif
