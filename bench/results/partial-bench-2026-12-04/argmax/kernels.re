^((argmax|argmax_kernel)\(|_Z[0-9]+(argmax|argmax_kernel)[A-Za-z])
