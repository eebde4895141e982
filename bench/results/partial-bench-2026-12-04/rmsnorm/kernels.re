^((rmsnorm|rmsnorm_kernel)\(|_Z[0-9]+(rmsnorm|rmsnorm_kernel)[A-Za-z])
