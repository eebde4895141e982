^((mse_atomic|mse_atomic_kernel)\(|_Z[0-9]+(mse_atomic|mse_atomic_kernel)[A-Za-z])
