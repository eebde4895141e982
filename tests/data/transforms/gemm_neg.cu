// Look-alikes of matrix and matrix-vector products that the
// gemm_register_blocking and gemv_warp_per_row transforms must decline,
// each with its reason (tests/suites/xf_gemm.sh).
#include <cuda_runtime.h>

// A sum of two operands, no product.
__global__ void
not_product(const float *A, const float *B, float *C, int M, int N, int K)
{
	int row = blockIdx.y * blockDim.y + threadIdx.y;
	int col = blockIdx.x * blockDim.x + threadIdx.x;

	if (row < M && col < N) {
		float s = 0.0f;

		for (int k = 0; k < K; k++)
			s += A[row * K + k] + B[k * N + col];
		C[row * N + col] = s;
	}
}

// The row of A comes from memory (a gather).
__global__ void
data_index(const float *A, const int *idx, const float *B, float *C, int M,
	   int N, int K)
{
	int row = blockIdx.y * blockDim.y + threadIdx.y;
	int col = blockIdx.x * blockDim.x + threadIdx.x;

	if (row < M && col < N) {
		float s = 0.0f;

		for (int k = 0; k < K; k++)
			s += A[idx[row] * K + k] * B[k * N + col];
		C[row * N + col] = s;
	}
}

// The batch is an outer loop of the thread.
__global__ void
outer_batch(const float *A, const float *B, float *C, int M, int N, int K,
	    int nb)
{
	int row = blockIdx.y * blockDim.y + threadIdx.y;
	int col = blockIdx.x * blockDim.x + threadIdx.x;

	if (row < M && col < N)
		for (int b = 0; b < nb; b++) {
			float s = 0.0f;

			for (int k = 0; k < K; k++)
				s += A[(b * M + row) * K + k] * B[(b * K + k) * N + col];
			C[(b * M + row) * N + col] = s;
		}
}

// A third load joins the product: not a matrix product.
__global__ void
three_loads(const float *A, const float *B, float *C, int M, int N, int K)
{
	int row = blockIdx.y * blockDim.y + threadIdx.y;
	int col = blockIdx.x * blockDim.x + threadIdx.x;

	if (row < M && col < N) {
		float s = 0.0f;

		for (int k = 0; k < K; k++)
			s += A[row * K + k] * B[k * N + col] * A[k];
		C[row * N + col] = s;
	}
}

// Both operands follow the row: a row-wise dot product.
__global__ void
same_dim(const float *A, const float *B, float *C, int M, int N, int K)
{
	int row = blockIdx.y * blockDim.y + threadIdx.y;
	int col = blockIdx.x * blockDim.x + threadIdx.x;

	if (row < M && col < N) {
		float s = 0.0f;

		for (int k = 0; k < K; k++)
			s += A[row * K + k] * B[row * K + k];
		C[row * N + col] = s;
	}
}

// Accumulates in double.
__global__ void
double_acc(const float *A, const float *B, float *C, int M, int N, int K)
{
	int row = blockIdx.y * blockDim.y + threadIdx.y;
	int col = blockIdx.x * blockDim.x + threadIdx.x;

	if (row < M && col < N) {
		double s = 0.0;

		for (int k = 0; k < K; k++)
			s += A[row * K + k] * B[k * N + col];
		C[row * N + col] = (float)s;
	}
}

// A 1-D grid: the output coordinates by division and remainder.
__global__ void
flat_index(const float *A, const float *B, float *C, int M, int N, int K)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	int row = i / N, col = i % N;

	if (i < M * N) {
		float s = 0.0f;

		for (int k = 0; k < K; k++)
			s += A[row * K + k] * B[k * N + col];
		C[i] = s;
	}
}

// The loop runs only where the data says so.
__global__ void
data_guard(const float *A, const float *B, const float *mask, float *C, int M,
	   int N, int K)
{
	int row = blockIdx.y * blockDim.y + threadIdx.y;
	int col = blockIdx.x * blockDim.x + threadIdx.x;

	if (row < M && col < N && mask[row] > 0.0f) {
		float s = 0.0f;

		for (int k = 0; k < K; k++)
			s += A[row * K + k] * B[k * N + col];
		C[row * N + col] = s;
	}
}

// The loop's variable is used after the loop.
__global__ void
kept_index(const float *A, const float *B, float *C, int M, int N, int K)
{
	int row = blockIdx.y * blockDim.y + threadIdx.y;
	int col = blockIdx.x * blockDim.x + threadIdx.x;

	if (row < M && col < N) {
		float s = 0.0f;
		int k;

		for (k = 0; k < K; k++)
			s += A[row * K + k] * B[k * N + col];
		C[row * N + col] = s + k;
	}
}

// A matrix-vector product whose matrix is strided along both.
__global__ void
gemv_strided(const float *A, const float *x, float *y, int M, int N, int ld)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;

	if (r < M) {
		float s = 0.0f;

		for (int j = 0; j < N; j++)
			s += A[r * ld + j * ld * M] * x[j];
		y[r] = s;
	}
}
