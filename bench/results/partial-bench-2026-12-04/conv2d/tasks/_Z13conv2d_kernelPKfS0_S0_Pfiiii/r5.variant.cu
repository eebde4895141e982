// conv2d_kernel: unroll_constant_loops, 2 edits (builtin transform, arch 900)
// ks-nvcc: definition
__global__ void
conv2d_kernel(const float *x, const float *w, const float *b, float *y,
	      int C, int H, int W, int K)
{
	int ox = blockIdx.x * blockDim.x + threadIdx.x;
	int oy = blockIdx.y * blockDim.y + threadIdx.y;
	int n = blockIdx.z / K;
	int k = blockIdx.z % K;
	if (ox >= W || oy >= H)
		return;
	float acc = b[k];
	for (int c = 0; c < C; c++)
		#pragma unroll
		for (int r = 0; r < 3; r++) {
			int iy = oy + r - 1;
			if (iy < 0 || iy >= H)
				continue;
			#pragma unroll
			for (int q = 0; q < 3; q++) {
				int ix = ox + q - 1;
				if (ix < 0 || ix >= W)
					continue;
				acc += x[(((size_t)n * C + c) * H + iy) * W + ix] *
				       w[((k * C + c) * 3 + r) * 3 + q];
			}
		}
	y[(((size_t)n * K + k) * H + oy) * W + ox] = acc;
}
