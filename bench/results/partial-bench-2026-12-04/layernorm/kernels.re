^((layernorm|layernorm_kernel)\(|_Z[0-9]+(layernorm|layernorm_kernel)[A-Za-z])
