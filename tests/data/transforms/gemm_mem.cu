// Matrix and matrix-vector products that accumulate into their output in
// global memory inside the k-loop (C[i * N + j] += ..., the index fixed
// while the loop runs), some with a factor free of data beside the
// product, as naive code often writes them; and look-alikes that must be
// declined; the operands loaded into locals first. One signature for all, so gemm_check.cpp runs any of them:
// C is M x N (N = 1 for the matrix-vector products), the loop runs K.

// alpha * A * B + beta * C, the scaling of C and the sum both in place.
__global__ void
mem_scaled(int M, int N, int K, float alpha, float beta, float *A, float *B,
	   float *C)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if ((i < M) && (j < N)) {
		C[i * N + j] *= beta;
		int k;
		for (k = 0; k < K; k++) {
			C[i * N + j] += alpha * A[i * K + k] * B[k * N + j];
		}
	}
}

// A stored transposed (K x M), the sum written out as C = C + .., the
// factor after the product.
__global__ void
mem_zero_tn(int M, int N, int K, float alpha, float beta, float *A, float *B,
	    float *C)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if (i < M && j < N) {
		C[i * N + j] = 0.0f;
		for (int k = 0; k < K; k++)
			C[i * N + j] = C[i * N + j] + A[k * M + i] * B[k * N + j] * alpha;
	}
	(void)beta;
}

// y += A x, each row's sum added to what y held.
__global__ void
gemv_mem_rows(int M, int N, int K, float alpha, float beta, float *A, float *B,
	      float *C)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < M) {
		int k;
		for (k = 0; k < K; k++)
			C[i] += A[i * K + k] * B[k];
	}
	(void)N;
	(void)alpha;
	(void)beta;
}

// y = A^T x, A K x M: each thread walks a column.
__global__ void
gemv_mem_cols(int M, int N, int K, float alpha, float beta, float *A, float *B,
	      float *C)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;

	if (j < M) {
		C[j] = 0;
		int k;
		for (k = 0; k < K; k++)
			C[j] += A[k * M + j] * B[k];
	}
	(void)N;
	(void)alpha;
	(void)beta;
}

// The operands loaded into locals in the loop's body, the product of the
// locals in the other order.
__global__ void
locals(int M, int N, int K, float alpha, float beta, float *A, float *B,
       float *C)
{
	int row = blockIdx.y * blockDim.y + threadIdx.y;
	int col = blockIdx.x * blockDim.x + threadIdx.x;

	if (row < M && col < N) {
		float s = 0.0f;

		for (int k = 0; k < K; k++) {
			const float a = A[row * K + k];
			float b = B[k * N + col];
			s += b * a;
		}
		C[row * N + col] = beta * C[row * N + col] + alpha * s;
	}
}

// Operands as arrays of rows of a fixed width (K = N = 67), subscripted
// twice.
__global__ void
arr2d(int M, int N, int K, float alpha, float beta, float A[][67],
      float B[][67], float C[][67])
{
	int i = blockIdx.y * blockDim.y + threadIdx.y;
	int j = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < M && j < 67) {
		float s = 0;

		for (int k = 0; k < 67; ++k)
			s += A[i][k] * B[k][j];
		C[i][j] = s;
	}
	(void)N;
	(void)K;
	(void)alpha;
	(void)beta;
}

// Declined: a local that truncates what it loads.
__global__ void
locals_int(int M, int N, int K, float alpha, float beta, float *A, float *B,
	   float *C)
{
	int row = blockIdx.y * blockDim.y + threadIdx.y;
	int col = blockIdx.x * blockDim.x + threadIdx.x;

	if (row < M && col < N) {
		float s = 0.0f;

		for (int k = 0; k < K; k++) {
			int a = A[row * K + k];
			float b = B[k * N + col];
			s += a * b;
		}
		C[row * N + col] = s;
	}
	(void)alpha;
	(void)beta;
}

// Declined: the loop moves the element it accumulates into.
__global__ void
mem_moving(int M, int N, int K, float alpha, float beta, float *A, float *B,
	   float *C)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < M)
		for (int k = 0; k < K; k++)
			C[i + k] += A[i * K + k] * B[k];
	(void)N;
	(void)alpha;
	(void)beta;
}

// Declined: the accumulator is an element of an operand.
__global__ void
mem_in_operand(int M, int N, int K, float alpha, float beta, float *A, float *B,
	       float *C)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < M)
		for (int k = 0; k < K; k++)
			B[K + i] += A[i * K + k] * B[k];
	(void)N;
	(void)alpha;
	(void)beta;
	(void)C;
}

// Declined: the factor moves with the loop.
__global__ void
loop_factor(int M, int N, int K, float alpha, float beta, float *A, float *B,
	    float *C)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < M) {
		float s = 0.0f;

		for (int k = 0; k < K; k++)
			s += (float)k * A[i * K + k] * B[k];
		C[i] = s;
	}
	(void)N;
	(void)alpha;
	(void)beta;
}

// Declined: the loop's variable, declared before it, is read after it.
__global__ void
var_after(int M, int N, int K, float alpha, float beta, float *A, float *B,
	  float *C)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < M) {
		int k;
		C[i] = 0;
		for (k = 0; k < K; k++)
			C[i] += A[i * K + k] * B[k];
		C[i] += (float)k;
	}
	(void)N;
	(void)alpha;
	(void)beta;
}

// As a program (nvcc, a GPU): each kernel above that the transforms take
// runs at sizes no tile divides and is checked against a CPU reference in
// double; built as it is or with one kernel replaced (`ks transform
// --tu`), it prints one PASS or FAIL line per kernel and size and exits 0
// only when all pass.
#ifdef __CUDACC__
#include <cmath>
#include <cstdio>
#include <vector>

static int failures;

static std::vector<float>
fill(size_t n, unsigned seed)
{
	std::vector<float> v(n);

	for (size_t i = 0; i < n; i++) {
		seed = seed * 1664525u + 1013904223u;
		v[i] = (float)((seed >> 8) & 0xffff) / 32768.0f - 1.0f;
	}
	return v;
}

typedef void (*kernel_fn)(int, int, int, float, float, float *, float *, float *);

// Runs k on copies of a, b, c and compares C with want.
static void
check(const char *what, kernel_fn k, dim3 grid, dim3 block, int M, int N, int K,
      const std::vector<float> &a, const std::vector<float> &b,
      const std::vector<float> &c, const std::vector<double> &want)
{
	const float alpha = 1.5f, beta = -0.75f;
	float *d[3] = { nullptr, nullptr, nullptr };
	const std::vector<float> *h[3] = { &a, &b, &c };
	std::vector<float> got(c.size());
	size_t bad = 0, first = 0;

	for (int i = 0; i < 3; i++) {
		cudaMalloc(&d[i], h[i]->size() * sizeof(float) + 16);
		cudaMemcpy(d[i], h[i]->data(), h[i]->size() * sizeof(float),
			   cudaMemcpyHostToDevice);
	}
	k<<<grid, block>>>(M, N, K, alpha, beta, d[0], d[1], d[2]);
	cudaError_t e = cudaDeviceSynchronize();
	cudaMemcpy(got.data(), d[2], got.size() * sizeof(float), cudaMemcpyDeviceToHost);
	for (size_t i = 0; i < want.size(); i++)
		if (!(std::fabs(got[i] - want[i]) <= 1e-4 * (K + 1) + 1e-5 * std::fabs(want[i])))
			if (!bad++)
				first = i;
	if (e != cudaSuccess || bad) {
		std::printf("FAIL %s %dx%dx%d: %s, %zu of %zu wrong (first %zu: %g, want %g)\n",
			    what, M, N, K, cudaGetErrorString(e), bad, want.size(), first,
			    bad ? got[first] : 0.0f, bad ? want[first] : 0.0);
		failures++;
	} else {
		std::printf("PASS %s %dx%dx%d\n", what, M, N, K);
	}
	for (int i = 0; i < 3; i++)
		cudaFree(d[i]);
}

static void
run(int M, int N, int K)
{
	const double alpha = 1.5, beta = -0.75;
	const dim3 blk(16, 16), grid((N + 15) / 16, (M + 15) / 16);
	const dim3 blk1(128), grid1((M + 127) / 128);
	std::vector<float> a = fill((size_t)M * K, 1), b = fill((size_t)K * N + M, 2);
	std::vector<float> c = fill((size_t)M * N, 3);
	std::vector<double> w((size_t)M * N), w1(M);

	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++) {
			double s = 0, t = 0;

			for (int k = 0; k < K; k++) {
				s += (double)a[(size_t)i * K + k] * b[(size_t)k * N + j];
				t += (double)a[(size_t)k * M + i] * b[(size_t)k * N + j];
			}
			w[(size_t)i * N + j] = alpha * s + beta * c[(size_t)i * N + j];
		}
	check("mem_scaled", mem_scaled, grid, blk, M, N, K, a, b, c, w);
	check("locals", locals, grid, blk, M, N, K, a, b, c, w);
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++) {
			double t = 0;

			for (int k = 0; k < K; k++)
				t += (double)a[(size_t)k * M + i] * b[(size_t)k * N + j];
			w[(size_t)i * N + j] = alpha * t;
		}
	check("mem_zero_tn", mem_zero_tn, grid, blk, M, N, K, a, b, c, w);
	std::vector<float> c1(c.begin(), c.begin() + M);
	for (int i = 0; i < M; i++) {
		double s = 0, t = 0;

		for (int k = 0; k < K; k++) {
			s += (double)a[(size_t)i * K + k] * b[k];
			t += (double)a[(size_t)k * M + i] * b[k];
		}
		w1[i] = c1[i] + s;
		w[i] = t;
	}
	check("gemv_mem_rows", gemv_mem_rows, grid1, blk1, M, 1, K, a, b, c1, w1);
	w1.assign(w.begin(), w.begin() + M);
	check("gemv_mem_cols", gemv_mem_cols, grid1, blk1, M, 1, K, a, b, c1, w1);
}

int
main(void)
{
	run(37, 29, 5);		// K below the k-slice
	run(131, 67, 45);	// no multiple of a tile
	run(260, 136, 33);	// several tiles, tails in every dimension
	if (failures)
		std::printf("FAIL gemm_mem: %d checks failed\n", failures);
	return failures != 0;
}
#endif

// y = A x with a read of threadIdx.y: its threads along y are not
// repeats of each other, so 2-D launches stay on the original.
__global__ void
gemv_mem_y(int M, int N, int K, float alpha, float beta, float *A, float *B,
	   float *C)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	const int ty = threadIdx.y;

	if (i < M) {
		float s = 0.0f;
		for (int k = 0; k < K; k++)
			s += A[i * K + k] * B[k];
		C[i] = s + (float)ty;
	}
	(void)N;
	(void)alpha;
	(void)beta;
}
