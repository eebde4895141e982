^((sigmoid|sigmoid_kernel)\(|_Z[0-9]+(sigmoid|sigmoid_kernel)[A-Za-z])
