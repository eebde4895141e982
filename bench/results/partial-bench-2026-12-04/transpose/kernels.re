^((transpose|transpose_kernel)\(|_Z[0-9]+(transpose|transpose_kernel)[A-Za-z])
