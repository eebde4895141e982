^((softmax|softmax_kernel)\(|_Z[0-9]+(softmax|softmax_kernel)[A-Za-z])
