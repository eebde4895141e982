/*
 * list: the builtin transforms, one KS_XF(id) line each, in the order
 * ks_xf_all() returns them. Each id names a `struct ks_transform
 * ks_xf_<id>` defined in a file of this folder, and the skill of the same
 * id in skills/.
 * May include: nothing (an X-macro list).
 */

/* streaming and pointwise kernels */


/* rows walked by one thread */


/* atomics, histograms, permutations, pooling */
KS_XF(atomic_hierarchical_reduce)
KS_XF(smem_histogram)
KS_XF(smem_tiled_transpose)


/* GEMM, GEMV, convolution, stencils */

