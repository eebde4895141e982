^((log_softmax|log_softmax_kernel)\(|_Z[0-9]+(log_softmax|log_softmax_kernel)[A-Za-z])
