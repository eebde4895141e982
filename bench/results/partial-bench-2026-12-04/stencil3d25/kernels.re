^((stencil3d25|stencil3d25_kernel)\(|_Z[0-9]+(stencil3d25|stencil3d25_kernel)[A-Za-z])
