^((gemm_tn_naive|gemm_tn_naive_kernel)\(|_Z[0-9]+(gemm_tn_naive|gemm_tn_naive_kernel)[A-Za-z])
