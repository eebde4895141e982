/*
 * list: the builtin transforms, one KS_XF(id) line each, in the order
 * ks_xf_all() returns them. Each id names a `struct ks_transform
 * ks_xf_<id>` defined in a file of this folder, and the skill of the same
 * id in skills/.
 * May include: nothing (an X-macro list).
 */

/* streaming and pointwise kernels */
KS_XF(launch_geometry)
KS_XF(vectorize_memory)
KS_XF(restrict_readonly)
KS_XF(unroll_constant_loops)
KS_XF(fp32_promotion_fix)
KS_XF(fast_math_intrinsics)


/* rows walked by one thread */
KS_XF(coop_rows)


/* atomics, histograms, permutations, pooling */
KS_XF(atomic_hierarchical_reduce)
KS_XF(smem_histogram)
KS_XF(smem_tiled_transpose)
KS_XF(derived_grid)
KS_XF(pool_window_rows)


/* GEMM, GEMV, convolution, stencils */
KS_XF(gemm_register_blocking)
KS_XF(gemv_warp_per_row)
KS_XF(conv_tiling)
KS_XF(stencil_smem_halo)

