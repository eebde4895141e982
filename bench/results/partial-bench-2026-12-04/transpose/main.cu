// transpose: out-of-place transpose of a row-major [rows x cols] matrix
// (16384 x 16384 floats: 1 GiB in, 1 GiB out), one thread per element in
// 16 x 16 blocks. A warp reads along an input row (coalesced) and writes
// down an output column (each write to a different row, cols floats apart).
// Vendor: cublasSgeam with op(A) = A^T, alpha = 1, beta = 0.
#include <cublas_v2.h>

#include "bench.h"
#include "ref.h"

#define CUBLAS_CK(call)                                                         \
	do {                                                                    \
		cublasStatus_t st_ = (call);                                    \
		if (st_ != CUBLAS_STATUS_SUCCESS) {                             \
			std::printf("FAIL %s: %s at %s:%d: status %d\n", bench_prog, \
				    #call, __FILE__, __LINE__, (int)st_);       \
			std::exit(1);                                           \
		}                                                               \
	} while (0)

__global__ void
transpose_kernel(const float *x, float *y, int rows, int cols)
{
	int c = blockIdx.x * blockDim.x + threadIdx.x;
	int r = blockIdx.y * blockDim.y + threadIdx.y;
	if (r < rows && c < cols)
		y[(size_t)c * rows + r] = x[(size_t)r * cols + c];
}

int
main(int argc, char **argv)
{
	bench_init("transpose", argc, argv);
	// Small: a non-square shape whose sides are not multiples of 16.
	const int rows = bench_small() ? 45 : 16384;
	const int cols = bench_small() ? 70 : 16384;
	const size_t n = (size_t)rows * cols;

	std::vector<float> hx(n);
	bench_fill(hx, 131, -1.0f, 1.0f);
	std::vector<float> want(n);
	transpose_ref(hx.data(), want.data(), rows, cols);

	float *dx = bench_to_device(hx);
	float *dy = nullptr, *dv = nullptr;
	BENCH_CK(cudaMalloc(&dy, n * sizeof(float)));
	BENCH_CK(cudaMalloc(&dv, n * sizeof(float)));
	// All-ones bytes are a NaN: an element the kernel misses fails the check.
	BENCH_CK(cudaMemset(dy, 0xff, n * sizeof(float)));
	// cublasSgeam reads B (here the output itself) and scales it by beta = 0;
	// start from zeros so that 0 * NaN cannot leak into the result.
	BENCH_CK(cudaMemset(dv, 0, n * sizeof(float)));

	cublasHandle_t handle;
	CUBLAS_CK(cublasCreate(&handle));
	const float one = 1.0f, zero = 0.0f;

	const dim3 threads(16, 16);
	const dim3 blocks((cols + 15) / 16, (rows + 15) / 16);
	auto launch = [&]() { transpose_kernel<<<blocks, threads>>>(dx, dy, rows, cols); };
	// Column-major view: x is a cols x rows matrix A with lda = cols, and y
	// is the rows x cols matrix C = A^T with ldc = rows. B aliases C
	// (allowed with transb = N and ldb = ldc) and is multiplied by 0.
	auto launch_cublas = [&]() {
		CUBLAS_CK(cublasSgeam(handle, CUBLAS_OP_T, CUBLAS_OP_N, rows, cols, &one, dx,
				      cols, &zero, dv, rows, dv, rows));
	};

	// A transpose copies values: the result must be exact.
	launch();
	BENCH_CK(cudaGetLastError());
	launch_cublas();
	BENCH_CK(cudaGetLastError());
	BENCH_CK(cudaDeviceSynchronize());
	std::vector<float> got = bench_to_host(dy, n);
	bool ok = bench_check("transpose", got.data(), want.data(), n, 0.0, 0.0);
	got = bench_to_host(dv, n);
	ok = bench_check("cublas_sgeam", got.data(), want.data(), n, 0.0, 0.0) && ok;

	// Minimum: read x once, write y once; no floating-point work.
	const double bytes = 2.0 * sizeof(float) * (double)n;
	bench_stats s = bench_time(launch);
	bench_report("transpose", "naive", s, bytes, 0.0);
	s = bench_time(launch_cublas);
	bench_report("cublas_sgeam", "vendor", s, bytes, 0.0);

	got = bench_to_host(dy, n);
	ok = bench_check("transpose after timing", got.data(), want.data(), n, 0.0, 0.0) && ok;
	got = bench_to_host(dv, n);
	ok = bench_check("cublas_sgeam after timing", got.data(), want.data(), n, 0.0, 0.0) &&
	     ok;

	CUBLAS_CK(cublasDestroy(handle));
	BENCH_CK(cudaFree(dx));
	BENCH_CK(cudaFree(dy));
	BENCH_CK(cudaFree(dv));
	return bench_finish(ok);
}
