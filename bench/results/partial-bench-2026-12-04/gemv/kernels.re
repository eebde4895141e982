^((gemv_naive|gemv_naive_kernel)\(|_Z[0-9]+(gemv_naive|gemv_naive_kernel)[A-Za-z])
