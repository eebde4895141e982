^((jacobi2d|jacobi2d_kernel)\(|_Z[0-9]+(jacobi2d|jacobi2d_kernel)[A-Za-z])
