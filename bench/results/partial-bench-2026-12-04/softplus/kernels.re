^((softplus|softplus_kernel)\(|_Z[0-9]+(softplus|softplus_kernel)[A-Za-z])
