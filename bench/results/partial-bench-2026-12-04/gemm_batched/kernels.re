^((gemm_batched_naive|gemm_batched_naive_kernel)\(|_Z[0-9]+(gemm_batched_naive|gemm_batched_naive_kernel)[A-Za-z])
