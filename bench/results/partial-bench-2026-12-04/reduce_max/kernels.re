^((reduce_max|reduce_max_kernel)\(|_Z[0-9]+(reduce_max|reduce_max_kernel)[A-Za-z])
