^((gemm_naive|gemm_naive_kernel)\(|_Z[0-9]+(gemm_naive|gemm_naive_kernel)[A-Za-z])
