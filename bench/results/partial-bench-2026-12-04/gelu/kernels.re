^((gelu|gelu_kernel)\(|_Z[0-9]+(gelu|gelu_kernel)[A-Za-z])
