// GEMV shapes for tests/data/transforms/gpu-gemv.sh: a naive row GEMV (y =
// A x, a thread per row walking it) and a naive transposed one (y = A^T x,
// a thread per column walking down it), each launched at three shapes:
// square, tall (many short rows) and wide (few long rows). Each launch's
// outputs are checked against a double sum on the CPU at sampled outputs;
// cuBLAS's SGEMV of the same shape is timed in the same process. Prints
// "PASS <shape>" or "FAIL <shape> ..." and a KSBENCH line per shape
// (cuBLAS's median and the bytes the product must move).
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

#define CK(call)                                                                      \
	do {                                                                          \
		cudaError_t e_ = (call);                                              \
		if (e_ != cudaSuccess) {                                              \
			std::printf("FAIL %s: %s\n", #call, cudaGetErrorString(e_)); \
			std::exit(1);                                                 \
		}                                                                     \
	} while (0)

__global__ void
gemv_rows(const float *A, const float *x, float *y, int M, int N)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < M) {
		float s = 0.0f;
		for (int j = 0; j < N; j++)
			s += A[(size_t)i * N + j] * x[j];
		y[i] = s;
	}
}

__global__ void
gemv_cols(const float *A, const float *x, float *y, int M, int N)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;

	if (j < N) {
		float s = 0.0f;
		for (int i = 0; i < M; i++)
			s += A[(size_t)i * N + j] * x[i];
		y[j] = s;
	}
}

struct shape {
	const char *name;
	int cols; // 0: y = A x, 1: y = A^T x
	int M, N;
};

static unsigned long long rng = 88172645463325252ull;

static float
next_float(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (float)((rng >> 11) * (1.0 / 9007199254740992.0)) * 2.0f - 1.0f;
}

int
main(int argc, char **argv)
{
	// --small: odd sides, for a quick check
	const bool small = argc > 1 && std::string_view(argv[1]) == "--small";
	const shape big[] = {
		{ "rows_square", 0, 8192, 8192 },   { "rows_tall", 0, 1048576, 64 },
		{ "rows_wide", 0, 256, 1048576 },   { "cols_square", 1, 4096, 4096 },
		{ "cols_tall", 1, 1048576, 256 },   { "cols_wide", 1, 256, 1048576 },
	};
	const shape odd[] = {
		{ "rows_square", 0, 1031, 1029 }, { "rows_tall", 0, 70001, 61 },
		{ "rows_wide", 0, 37, 70003 },    { "cols_square", 1, 1031, 1029 },
		{ "cols_tall", 1, 70001, 61 },    { "cols_wide", 1, 37, 70003 },
	};
	const shape *shapes = small ? odd : big;
	cublasHandle_t h;
	int fails = 0;

	if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
		std::printf("FAIL cublasCreate\n");
		return 1;
	}
	for (int s = 0; s < 6; s++) {
		const shape &sh = shapes[s];
		const size_t n = (size_t)sh.M * sh.N;
		const int nx = sh.cols ? sh.M : sh.N, ny = sh.cols ? sh.N : sh.M;
		std::vector<float> hA(n), hx(nx), hy(ny);
		float *A, *x, *y;

		for (auto &v : hA)
			v = next_float();
		for (auto &v : hx)
			v = next_float();
		CK(cudaMalloc(&A, n * sizeof(float)));
		CK(cudaMalloc(&x, nx * sizeof(float)));
		CK(cudaMalloc(&y, ny * sizeof(float)));
		CK(cudaMemcpy(A, hA.data(), n * sizeof(float), cudaMemcpyHostToDevice));
		CK(cudaMemcpy(x, hx.data(), nx * sizeof(float), cudaMemcpyHostToDevice));
		CK(cudaMemset(y, 0, ny * sizeof(float)));
		if (sh.cols)
			gemv_cols<<<(ny + 255) / 256, 256>>>(A, x, y, sh.M, sh.N);
		else
			gemv_rows<<<(ny + 255) / 256, 256>>>(A, x, y, sh.M, sh.N);
		CK(cudaGetLastError());
		CK(cudaMemcpy(hy.data(), y, ny * sizeof(float), cudaMemcpyDeviceToHost));

		// sampled outputs (all where few) against a double sum
		int bad = 0, first = -1;
		const int step = std::max(1, ny / 256);
		for (int o = 0; o < ny; o += step) {
			double want = 0.0, mag = 0.0;
			const int len = sh.cols ? sh.M : sh.N;
			for (int l = 0; l < len; l++) {
				const double a = sh.cols ? hA[(size_t)l * sh.N + o]
							 : hA[(size_t)o * sh.N + l];
				want += a * hx[l];
				mag += std::fabs(a * hx[l]);
			}
			if (std::fabs(hy[o] - want) > 1e-5 + 1e-4 * mag) {
				if (first < 0)
					first = o;
				bad++;
			}
		}
		if (bad) {
			std::printf("FAIL %s: %d sampled outputs off, the first %d\n", sh.name, bad,
				    first);
			fails++;
		} else {
			std::printf("PASS %s\n", sh.name);
		}

		// cuBLAS on the same shape: A row-major M x N is column-major N x M
		const float one = 1.0f, zero = 0.0f;
		cudaEvent_t e0, e1;
		std::vector<float> ms;
		CK(cudaEventCreate(&e0));
		CK(cudaEventCreate(&e1));
		for (int r = 0; r < 25; r++) {
			CK(cudaEventRecord(e0));
			cublasSgemv(h, sh.cols ? CUBLAS_OP_N : CUBLAS_OP_T, sh.N, sh.M, &one, A,
				    sh.N, x, 1, &zero, y, 1);
			CK(cudaEventRecord(e1));
			CK(cudaEventSynchronize(e1));
			float t;
			CK(cudaEventElapsedTime(&t, e0, e1));
			if (r >= 5)
				ms.push_back(t);
		}
		std::sort(ms.begin(), ms.end());
		std::printf("KSBENCH {\"shape\":\"%s\",\"kernel\":\"%s\",\"M\":%d,\"N\":%d,"
			    "\"cublas_ms\":%.6f,\"bytes\":%.6g}\n",
			    sh.name, sh.cols ? "gemv_cols" : "gemv_rows", sh.M, sh.N,
			    ms[ms.size() / 2], (double)(n + nx + ny) * sizeof(float));
		CK(cudaEventDestroy(e0));
		CK(cudaEventDestroy(e1));
		CK(cudaFree(A));
		CK(cudaFree(x));
		CK(cudaFree(y));
	}
	cublasDestroy(h);
	return fails ? 1 : 0;
}
