^((cross_entropy|cross_entropy_kernel)\(|_Z[0-9]+(cross_entropy|cross_entropy_kernel)[A-Za-z])
