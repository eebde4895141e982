// Matrix products and matrix-vector products in the forms the
// gemm_register_blocking and gemv_warp_per_row transforms recognize (other
// index orders, strides as parameters, transposed operands, a batch in z,
// alpha/beta and elementwise epilogues, fmaf, early exits), and a program
// that runs each at sizes that are no multiple of any tile (K below the
// k-slice too) and checks it against a CPU reference in double. Built as
// it is or with one kernel replaced (`ks transform --tu`), it prints one
// PASS or FAIL line per kernel and exits 0 only when all pass.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

// Strides as parameters, alpha/beta epilogue reading C.
__global__ void
nn_strided(const float *A, const float *B, float *C, int M, int N, int K,
	   int lda, int ldb, int ldc, float alpha, float beta)
{
	int row = blockIdx.y * blockDim.y + threadIdx.y;
	int col = blockIdx.x * blockDim.x + threadIdx.x;

	if (row < M && col < N) {
		float acc = 0.0f;

		for (int k = 0; k < K; k++)
			acc += A[row * lda + k] * B[k * ldb + col];
		C[row * ldc + col] = alpha * acc + beta * C[row * ldc + col];
	}
}

// A stored K x M (transposed), fmaf, an early exit.
__global__ void
tn_fma(const float *A, const float *B, float *C, int M, int N, int K)
{
	int row = blockIdx.y * blockDim.y + threadIdx.y;
	int col = blockIdx.x * blockDim.x + threadIdx.x;

	if (row >= M || col >= N)
		return;
	float s = 0.0f;
	for (int k = 0; k < K; ++k)
		s = fmaf(A[k * M + row], B[k * N + col], s);
	C[row * N + col] = s;
}

// B stored N x K (transposed), bias and ReLU.
__global__ void
nt_bias_relu(const float *A, const float *Bt, const float *bias, float *C,
	     int M, int N, int K)
{
	int row = blockIdx.y * blockDim.y + threadIdx.y;
	int col = blockIdx.x * blockDim.x + threadIdx.x;

	if (row < M && col < N) {
		float acc = 0.0f;

		for (int k = 0; k < K; k++)
			acc = acc + A[(size_t)row * K + k] * Bt[(size_t)col * K + k];
		C[(size_t)row * N + col] = fmaxf(acc + bias[col], 0.0f);
	}
}

// Both transposed, the row along x and the column along y, C column-major.
__global__ void
tt_swapped(const float *At, const float *Bt, float *C, int M, int N, int K)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	int col = blockIdx.y * blockDim.y + threadIdx.y;

	if (row < M && col < N) {
		float acc = 0.0f;

		for (int k = 0; k < K; k++)
			acc += At[k * M + row] * Bt[col * K + k];
		C[col * M + row] = acc;
	}
}

// A batch in blockIdx.z with batch strides as parameters, scaled.
__global__ void
batched_strided(const float *A, const float *B, float *C, int M, int N,
		int K, long long sA, long long sB, long long sC, float s)
{
	int b = blockIdx.z;
	int row = blockIdx.y * blockDim.y + threadIdx.y;
	int col = blockIdx.x * blockDim.x + threadIdx.x;

	if (row < M && col < N) {
		float acc = 0.0f;

		for (int k = 0; k < K; k++)
			acc += A[b * sA + row * K + k] * B[b * sB + k * N + col];
		C[b * sC + row * N + col] = s * acc;
	}
}

// Every stride a parameter: contiguity is known only at run time.
__global__ void
any_strides(const float *A, const float *B, float *C, int M, int N, int K,
	    int ar, int ak, int bk, int bc)
{
	int row = blockIdx.y * blockDim.y + threadIdx.y;
	int col = blockIdx.x * blockDim.x + threadIdx.x;

	if (row < M && col < N) {
		float acc = 0.0f;

		for (int k = 0; k < K; k++)
			acc += A[row * ar + k * ak] * B[k * bk + col * bc];
		C[row * N + col] = acc;
	}
}

// y = alpha A x + beta y, A row-major with a leading dimension.
__global__ void
gemv_rows(const float *A, const float *x, float *y, int M, int N, int lda,
	  float alpha, float beta)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;

	if (r < M) {
		float acc = 0.0f;

		for (int j = 0; j < N; j++)
			acc += A[(size_t)r * lda + j] * x[j];
		y[r] = alpha * acc + beta * y[r];
	}
}

// y = A^T x with A stored N x M: coalesced across threads already.
__global__ void
gemv_cols(const float *A, const float *x, float *y, int M, int N)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;

	if (r >= M)
		return;
	float acc = 0.0f;
	for (int j = 0; j < N; j++)
		acc += A[j * M + r] * x[j];
	y[r] = acc;
}

// x read with a stride.
__global__ void
gemv_incx(const float *A, const float *x, int incx, float *y, int M, int N)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;

	if (r < M) {
		float acc = 0.0f;

		for (int j = 0; j < N; j++)
			acc += A[r * N + j] * x[j * incx];
		y[r] = acc;
	}
}

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

static float *
dev(const std::vector<float> &h)
{
	float *d = nullptr;

	if (cudaMalloc(&d, h.size() * sizeof(float) + 16) != cudaSuccess) {
		std::printf("FAIL cudaMalloc\n");
		std::exit(1);
	}
	cudaMemcpy(d, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice);
	return d;
}

static void
check(const char *what, int M, int N, int K, float *d,
      const std::vector<double> &want)
{
	std::vector<float> got(want.size());
	cudaError_t e = cudaDeviceSynchronize();
	size_t bad = 0, first = 0;

	cudaMemcpy(got.data(), d, got.size() * sizeof(float), cudaMemcpyDeviceToHost);
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
}

static void
run(int M, int N, int K)
{
	const int batch = 3, lda = K + 3, ldb = N + 1, ldc = N + 2;
	const dim3 blk(16, 16), grid((N + 15) / 16, (M + 15) / 16);
	std::vector<float> a = fill((size_t)M * lda + (size_t)K * M, 1);
	std::vector<float> b = fill((size_t)K * ldb + (size_t)N * K, 2);
	std::vector<float> c0 = fill((size_t)M * ldc + (size_t)M * N, 3);
	std::vector<float> bias = fill(N, 4);
	std::vector<float> ab = fill((size_t)batch * M * K, 5);
	std::vector<float> bb = fill((size_t)batch * K * N, 6);
	float *dA = dev(a), *dB = dev(b), *dC = dev(c0), *dbias = dev(bias);
	float *dAb = dev(ab), *dBb = dev(bb);
	float *dCb = dev(std::vector<float>((size_t)batch * M * N, 0.0f));
	std::vector<double> w;

	// nn_strided: C = 0.5 A B - 2 C with leading dimensions
	w.assign((size_t)M * ldc, 0.0);
	for (int i = 0; i < M; i++)
		for (int j = 0; j < ldc; j++) {
			double s = 0;

			if (j >= N) {
				w[(size_t)i * ldc + j] = c0[(size_t)i * ldc + j];
				continue;
			}
			for (int k = 0; k < K; k++)
				s += (double)a[(size_t)i * lda + k] * b[(size_t)k * ldb + j];
			w[(size_t)i * ldc + j] = 0.5 * s - 2.0 * c0[(size_t)i * ldc + j];
		}
	nn_strided<<<grid, blk>>>(dA, dB, dC, M, N, K, lda, ldb, ldc, 0.5f, -2.0f);
	check("nn_strided", M, N, K, dC, w);

	// tn_fma: A read as K x M
	w.assign((size_t)M * N, 0.0);
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++) {
			double s = 0;

			for (int k = 0; k < K; k++)
				s += (double)a[(size_t)k * M + i] * b[(size_t)k * N + j];
			w[(size_t)i * N + j] = s;
		}
	tn_fma<<<grid, blk>>>(dA, dB, dC, M, N, K);
	check("tn_fma", M, N, K, dC, w);

	// nt_bias_relu: B read as N x K
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++) {
			double s = 0;

			for (int k = 0; k < K; k++)
				s += (double)a[(size_t)i * K + k] * b[(size_t)j * K + k];
			s += bias[j];
			w[(size_t)i * N + j] = s > 0 ? s : 0;
		}
	nt_bias_relu<<<grid, blk>>>(dA, dB, dbias, dC, M, N, K);
	check("nt_bias_relu", M, N, K, dC, w);

	// tt_swapped: the row along x; C column-major
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++) {
			double s = 0;

			for (int k = 0; k < K; k++)
				s += (double)a[(size_t)k * M + i] * b[(size_t)j * K + k];
			w[(size_t)j * M + i] = s;
		}
	tt_swapped<<<dim3((M + 15) / 16, (N + 15) / 16), blk>>>(dA, dB, dC, M, N, K);
	check("tt_swapped", M, N, K, dC, w);

	// batched_strided
	w.assign((size_t)batch * M * N, 0.0);
	for (int z = 0; z < batch; z++)
		for (int i = 0; i < M; i++)
			for (int j = 0; j < N; j++) {
				double s = 0;

				for (int k = 0; k < K; k++)
					s += (double)ab[(size_t)z * M * K + (size_t)i * K + k] *
					     bb[(size_t)z * K * N + (size_t)k * N + j];
				w[(size_t)z * M * N + (size_t)i * N + j] = 3.0 * s;
			}
	batched_strided<<<dim3(grid.x, grid.y, batch), blk>>>(
		dAb, dBb, dCb, M, N, K, (long long)M * K, (long long)K * N,
		(long long)M * N, 3.0f);
	check("batched_strided", M, N, K, dCb, w);

	// any_strides: A row-major (ak = 1), B transposed (bk = 1)
	w.assign((size_t)M * N, 0.0);
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++) {
			double s = 0;

			for (int k = 0; k < K; k++)
				s += (double)a[(size_t)i * lda + k] * b[(size_t)j * K + k];
			w[(size_t)i * N + j] = s;
		}
	any_strides<<<grid, blk>>>(dA, dB, dC, M, N, K, lda, 1, 1, K);
	check("any_strides", M, N, K, dC, w);

	// gemv_rows: y = 2 A x + 0.5 y over the first M rows of a, N = K
	{
		const int R = M * 7, L = K * 5 + 3, ld = L + 1;
		std::vector<float> A2 = fill((size_t)R * ld, 7), x = fill(L, 8);
		std::vector<float> y0 = fill(R, 9);
		float *dA2 = dev(A2), *dx = dev(x), *dy = dev(y0);

		w.assign(R, 0.0);
		for (int i = 0; i < R; i++) {
			double s = 0;

			for (int j = 0; j < L; j++)
				s += (double)A2[(size_t)i * ld + j] * x[j];
			w[i] = 2.0 * s + 0.5 * y0[i];
		}
		gemv_rows<<<(R + 255) / 256, 256>>>(dA2, dx, dy, R, L, ld, 2.0f, 0.5f);
		check("gemv_rows", R, 1, L, dy, w);

		for (int i = 0; i < R; i++) {
			double s = 0;

			for (int j = 0; j < L; j++)
				s += (double)A2[(size_t)j * R + i] * x[j];
			w[i] = s;
		}
		gemv_cols<<<(R + 127) / 128, 128>>>(dA2, dx, dy, R, L);
		check("gemv_cols", R, 1, L, dy, w);

		const int L2 = L / 2;
		for (int i = 0; i < R; i++) {
			double s = 0;

			for (int j = 0; j < L2; j++)
				s += (double)A2[(size_t)i * L2 + j] * x[(size_t)j * 2];
			w[i] = s;
		}
		gemv_incx<<<(R + 255) / 256, 256>>>(dA2, dx, 2, dy, R, L2);
		check("gemv_incx", R, 1, L2, dy, w);
		cudaFree(dA2);
		cudaFree(dx);
		cudaFree(dy);
	}
	cudaFree(dA);
	cudaFree(dB);
	cudaFree(dC);
	cudaFree(dbias);
	cudaFree(dAb);
	cudaFree(dBb);
	cudaFree(dCb);
}

int
main(void)
{
	run(37, 29, 5);		// K below the k-slice
	run(131, 67, 45);	// no multiple of a tile
	run(260, 136, 33);	// several tiles, tails in every dimension
	if (failures)
		std::printf("FAIL gemm: %d checks failed\n", failures);
	else
		std::printf("PASS gemm\n");
	return failures != 0;
}
