// A template kernel (t_template): a naive out-of-place transpose, launched
// for float and for double from a template host function, each checked on
// the host. Prints PASS or FAIL and exits 0 only on PASS.
#include <cstdio>
#include <vector>

template <class T>
__global__ void
flip_t(const T *x, T *y, int rows, int cols)
{
	int c = blockIdx.x * blockDim.x + threadIdx.x;
	int r = blockIdx.y * blockDim.y + threadIdx.y;
	if (r < rows && c < cols)
		y[(size_t)c * rows + r] = x[(size_t)r * cols + c];
}

template <class T>
static int
check(int rows, int cols)
{
	const size_t n = (size_t)rows * cols;
	std::vector<T> hx(n), hy(n);
	T *x, *y;

	for (size_t i = 0; i < n; i++)
		hx[i] = (T)(i % 9973) * (T)0.5;
	if (cudaMalloc(&x, n * sizeof(T)) || cudaMalloc(&y, n * sizeof(T))) {
		std::printf("FAIL: cudaMalloc\n");
		return 1;
	}
	cudaMemcpy(x, hx.data(), n * sizeof(T), cudaMemcpyHostToDevice);
	dim3 block(16, 16), grid((cols + 15) / 16, (rows + 15) / 16);
	for (int rep = 0; rep < 3; rep++)
		flip_t<<<grid, block>>>(x, y, rows, cols);
	if (cudaDeviceSynchronize()) {
		std::printf("FAIL: %s\n", cudaGetErrorString(cudaGetLastError()));
		return 1;
	}
	cudaMemcpy(hy.data(), y, n * sizeof(T), cudaMemcpyDeviceToHost);
	cudaFree(x);
	cudaFree(y);
	for (int r = 0; r < rows; r++)
		for (int c = 0; c < cols; c++)
			if (hy[(size_t)c * rows + r] != hx[(size_t)r * cols + c]) {
				std::printf("FAIL: %d-byte y[%d][%d]\n", (int)sizeof(T), c, r);
				return 1;
			}
	return 0;
}

int
main()
{
	if (check<float>(4096, 4000) || check<double>(1000, 3000))
		return 1;
	std::printf("PASS\n");
	return 0;
}
