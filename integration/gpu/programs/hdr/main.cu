// t_header: a program whose kernel is defined in a header it includes
// through another (kernels/all.h includes kernels/flip.cuh). Checks the transpose on the host; prints PASS or
// FAIL and exits 0 only on PASS.
#include <cstdio>
#include <vector>

#include "kernels/all.h"

int
main()
{
	const int rows = FLIP_ROWS, cols = FLIP_COLS;
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
	dim3 block(FLIP_BLOCK, FLIP_BLOCK);
	dim3 grid((cols + FLIP_BLOCK - 1) / FLIP_BLOCK, (rows + FLIP_BLOCK - 1) / FLIP_BLOCK);
	for (int rep = 0; rep < 3; rep++)
		flip_h<<<grid, block>>>(x, y, rows, cols);
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
