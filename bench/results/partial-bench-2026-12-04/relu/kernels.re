^((relu|relu_kernel)\(|_Z[0-9]+(relu|relu_kernel)[A-Za-z])
