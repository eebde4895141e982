^((histogram|histogram_kernel)\(|_Z[0-9]+(histogram|histogram_kernel)[A-Za-z])
