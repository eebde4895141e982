^((cumsum|cumsum_kernel)\(|_Z[0-9]+(cumsum|cumsum_kernel)[A-Za-z])
