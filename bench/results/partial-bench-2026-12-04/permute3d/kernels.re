^((permute3d|permute3d_kernel)\(|_Z[0-9]+(permute3d|permute3d_kernel)[A-Za-z])
