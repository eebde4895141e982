^((maxpool|maxpool_kernel)\(|_Z[0-9]+(maxpool|maxpool_kernel)[A-Za-z])
