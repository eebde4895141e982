^((reduce_sum|reduce_sum_kernel)\(|_Z[0-9]+(reduce_sum|reduce_sum_kernel)[A-Za-z])
