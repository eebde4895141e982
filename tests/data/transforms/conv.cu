// Direct convolutions for conv_tiling, one thread per output, 16x16 threads
// over the output plane, blockIdx.z = image * K + output channel (or the
// output channel alone). Every kernel has the same parameters: input x
// [N][C][H][W] (or NHWC), filter w, bias b, output y of Ho x Wo per
// channel. The first five are recognized, the rest are look-alikes.

// NCHW, 3x3, stride 1, padding 1 (the bench's).
__global__ void
nchw3(const float *x, const float *w, const float *b, float *y, int C, int H,
      int W, int K, int Ho, int Wo)
{
	int ox = blockIdx.x * blockDim.x + threadIdx.x;
	int oy = blockIdx.y * blockDim.y + threadIdx.y;
	int n = blockIdx.z / K;
	int k = blockIdx.z % K;
	if (ox >= Wo || oy >= Ho)
		return;
	float acc = b[k];
	for (int c = 0; c < C; c++)
		for (int r = 0; r < 3; r++) {
			int iy = oy + r - 1;
			if (iy < 0 || iy >= H)
				continue;
			for (int q = 0; q < 3; q++) {
				int ix = ox + q - 1;
				if (ix < 0 || ix >= W)
					continue;
				acc += x[(((size_t)n * C + c) * H + iy) * W + ix] *
				       w[((k * C + c) * 3 + r) * 3 + q];
			}
		}
	y[(((size_t)n * K + k) * Ho + oy) * Wo + ox] = acc;
}

// NHWC input and output, filter [K][3][3][C], fmaf, ReLU epilogue.
__global__ void
nhwc3_relu(const float *x, const float *w, const float *b, float *y, int C,
	   int H, int W, int K, int Ho, int Wo)
{
	int ox = blockIdx.x * blockDim.x + threadIdx.x;
	int oy = blockIdx.y * blockDim.y + threadIdx.y;
	int n = blockIdx.z / K;
	int k = blockIdx.z % K;
	if (ox >= Wo || oy >= Ho)
		return;
	float acc = 0.0f;
	for (int c = 0; c < C; c++)
		for (int r = 0; r < 3; r++)
			for (int q = 0; q < 3; q++) {
				int iy = oy + r - 1, ix = ox + q - 1;
				if (iy < 0 || iy >= H || ix < 0 || ix >= W)
					continue;
				acc = fmaf(x[(((size_t)n * H + iy) * W + ix) * C + c],
					   w[((k * 3 + r) * 3 + q) * C + c], acc);
			}
	y[(((size_t)n * Ho + oy) * Wo + ox) * K + k] = fmaxf(acc + b[k], 0.0f);
}

// NCHW, 3x3, stride 2, padding 2, dilation 2: Ho = (H + 1) / 2.
__global__ void
nchw_s2d2(const float *x, const float *w, const float *b, float *y, int C,
	  int H, int W, int K, int Ho, int Wo)
{
	int ox = blockIdx.x * blockDim.x + threadIdx.x;
	int oy = blockIdx.y * blockDim.y + threadIdx.y;
	int n = blockIdx.z / K;
	int k = blockIdx.z % K;
	if (ox < Wo && oy < Ho) {
		float acc = b[k];
		for (int c = 0; c < C; c++)
			for (int r = 0; r < 3; r++)
				for (int q = 0; q < 3; q++) {
					int iy = 2 * oy + 2 * r - 2;
					int ix = 2 * ox + 2 * q - 2;
					if (iy < 0 || ix < 0 || iy >= H || ix >= W)
						continue;
					acc += w[((k * C + c) * 3 + r) * 3 + q] *
					       x[(((size_t)n * C + c) * H + iy) * W + ix];
				}
		y[(((size_t)n * K + k) * Ho + oy) * Wo + ox] = acc;
	}
}

// One image, output channel = blockIdx.z, 5x5 "valid" (no padding):
// Ho = H - 4.
__global__ void
valid5_z(const float *x, const float *w, const float *b, float *y, int C,
	 int H, int W, int K, int Ho, int Wo)
{
	int ox = blockIdx.x * blockDim.x + threadIdx.x;
	int oy = blockIdx.y * blockDim.y + threadIdx.y;
	int k = blockIdx.z;
	if (ox >= Wo || oy >= Ho || k >= K)
		return;
	float s = 0.0f;
	for (int c = 0; c < C; c++)
		for (int r = 0; r < 5; r++)
			for (int q = 0; q < 5; q++)
				s += x[((size_t)c * H + oy + r) * W + ox + q] *
				     w[((k * C + c) * 5 + r) * 5 + q];
	y[((size_t)k * Ho + oy) * Wo + ox] = s + b[k];
}

// NCHW 3x3 with a data-dependent epilogue after the nest (leaky ReLU) and
// the padding tests folded into one condition per tap.
__global__ void
nchw3_leaky(const float *x, const float *w, const float *b, float *y, int C,
	    int H, int W, int K, int Ho, int Wo)
{
	int ox = blockIdx.x * blockDim.x + threadIdx.x;
	int oy = blockIdx.y * blockDim.y + threadIdx.y;
	int n = blockIdx.z / K;
	int k = blockIdx.z % K;
	if (ox >= Wo || oy >= Ho)
		return;
	float acc = b[k];
	for (int c = 0; c < C; c++)
		for (int r = 0; r < 3; r++)
			for (int q = 0; q < 3; q++) {
				int iy = oy + r - 1, ix = ox + q - 1;
				if (iy < 0 || iy >= H || ix < 0 || ix >= W)
					continue;
				acc += x[(((size_t)n * C + c) * H + iy) * W + ix] *
				       w[((k * C + c) * 3 + r) * 3 + q];
			}
	if (acc < 0.0f)
		acc *= 0.125f;
	y[(((size_t)n * K + k) * Ho + oy) * Wo + ox] = acc;
}

// Look-alikes.

// Depthwise: the input channel is the output channel.
__global__ void
depthwise(const float *x, const float *w, const float *b, float *y, int C,
	  int H, int W, int K, int Ho, int Wo)
{
	int ox = blockIdx.x * blockDim.x + threadIdx.x;
	int oy = blockIdx.y * blockDim.y + threadIdx.y;
	int n = blockIdx.z / K;
	int k = blockIdx.z % K;
	if (ox >= Wo || oy >= Ho)
		return;
	float acc = b[k];
	for (int c = 0; c < 1; c++)
		for (int r = 0; r < 3; r++)
			for (int q = 0; q < 3; q++)
				acc += x[(((size_t)n * K + k + c) * H + oy + r) * W + ox + q] *
				       w[(k * 3 + r) * 3 + q];
	y[(((size_t)n * K + k) * Ho + oy) * Wo + ox] = acc;
}

// The padding as a guard (`if (inside) acc += ...`), not a skip.
__global__ void
guarded(const float *x, const float *w, const float *b, float *y, int C,
	int H, int W, int K, int Ho, int Wo)
{
	int ox = blockIdx.x * blockDim.x + threadIdx.x;
	int oy = blockIdx.y * blockDim.y + threadIdx.y;
	int n = blockIdx.z / K;
	int k = blockIdx.z % K;
	if (ox >= Wo || oy >= Ho)
		return;
	float acc = b[k];
	for (int c = 0; c < C; c++)
		for (int r = 0; r < 3; r++)
			for (int q = 0; q < 3; q++) {
				int iy = oy + r - 1, ix = ox + q - 1;
				if (iy >= 0 && iy < H && ix >= 0 && ix < W)
					acc += x[(((size_t)n * C + c) * H + iy) * W + ix] *
					       w[((k * C + c) * 3 + r) * 3 + q];
			}
	y[(((size_t)n * K + k) * Ho + oy) * Wo + ox] = acc;
}

// The filter size is a parameter (Ho - H + 1... here: Wo).
__global__ void
any_filter(const float *x, const float *w, const float *b, float *y, int C,
	   int H, int W, int K, int Ho, int Wo)
{
	int ox = blockIdx.x * blockDim.x + threadIdx.x;
	int oy = blockIdx.y * blockDim.y + threadIdx.y;
	int k = blockIdx.z;
	if (ox >= W - 2 || oy >= H - 2)
		return;
	float s = b[k];
	for (int c = 0; c < C; c++)
		for (int r = 0; r < Ho; r++)
			for (int q = 0; q < Ho; q++)
				s += x[((size_t)c * H + oy + r) * W + ox + q] *
				     w[((k * C + c) * Ho + r) * Ho + q];
	y[((size_t)k * H + oy) * W + ox] = s;
}

// The accumulator is also changed inside the nest.
__global__ void
rescaled(const float *x, const float *w, const float *b, float *y, int C,
	 int H, int W, int K, int Ho, int Wo)
{
	int ox = blockIdx.x * blockDim.x + threadIdx.x;
	int oy = blockIdx.y * blockDim.y + threadIdx.y;
	int k = blockIdx.z;
	if (ox >= Wo || oy >= Ho)
		return;
	float s = b[k];
	for (int c = 0; c < C; c++) {
		for (int r = 0; r < 3; r++)
			for (int q = 0; q < 3; q++)
				s += x[((size_t)c * H + oy + r) * W + ox + q] *
				     w[((k * C + c) * 3 + r) * 3 + q];
		s *= 0.5f;
	}
	y[((size_t)k * Ho + oy) * Wo + ox] = s;
}
