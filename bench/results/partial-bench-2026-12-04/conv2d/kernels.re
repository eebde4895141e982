^((conv2d|conv2d_kernel)\(|_Z[0-9]+(conv2d|conv2d_kernel)[A-Za-z])
