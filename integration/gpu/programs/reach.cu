// A program built without -arch (t_reach): a naive out-of-place transpose of
// 4096 x 4096 floats, checked on the host. Prints PASS or FAIL and exits 0
// only on PASS.
#include <cstdio>
#include <vector>

__global__ void
flip(const float *x, float *y, int rows, int cols)
{
	int c = blockIdx.x * blockDim.x + threadIdx.x;
	int r = blockIdx.y * blockDim.y + threadIdx.y;
	if (r < rows && c < cols)
		y[(size_t)c * rows + r] = x[(size_t)r * cols + c];
}

int
main()
{
	const int rows = 4096, cols = 4096;
	const size_t n = (size_t)rows * cols;
	std::vector<float> hx(n), hy(n);
	float *x, *y;

	for (size_t i = 0; i < n; i++)
		hx[i] = (float)(i % 9973) * 0.5f;
	if (cudaMalloc(&x, n * sizeof(float)) || cudaMalloc(&y, n * sizeof(float))) {
		std::printf("FAIL: cudaMalloc\n");
		return 1;
	}
	cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice);
	dim3 block(16, 16), grid((cols + 15) / 16, (rows + 15) / 16);
	for (int rep = 0; rep < 3; rep++)
		flip<<<grid, block>>>(x, y, rows, cols);
	if (cudaDeviceSynchronize()) {
		std::printf("FAIL: %s\n", cudaGetErrorString(cudaGetLastError()));
		return 1;
	}
	cudaMemcpy(hy.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost);
	for (int r = 0; r < rows; r++)
		for (int c = 0; c < cols; c++)
			if (hy[(size_t)c * rows + r] != hx[(size_t)r * cols + c]) {
				std::printf("FAIL: y[%d][%d]\n", c, r);
				return 1;
			}
	std::printf("PASS\n");
	return 0;
}
