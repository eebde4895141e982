^((avgpool|avgpool_kernel)\(|_Z[0-9]+(avgpool|avgpool_kernel)[A-Za-z])
