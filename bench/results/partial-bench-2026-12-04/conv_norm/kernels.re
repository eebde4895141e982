^((batchnorm|batchnorm_kernel|conv2d|conv2d_kernel|relu|relu_kernel)\(|_Z[0-9]+(batchnorm|batchnorm_kernel|conv2d|conv2d_kernel|relu|relu_kernel)[A-Za-z])
