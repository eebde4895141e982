^((stencil3d7|stencil3d7_kernel)\(|_Z[0-9]+(stencil3d7|stencil3d7_kernel)[A-Za-z])
