// Kernels for the atomic_hierarchical_reduce and smem_histogram tests:
// atomics into one address (sums in float and double, integer min, max
// and bit operations, 2-D and 3-D grids, grid-stride loops, strides as
// parameters) and look-alikes that must be declined.
#include <cuda_runtime.h>
#include <stddef.h>

// The mean squared error's shape: double sum of float squares.
__global__ void
sq_sum(const float *a, const float *b, size_t n, double *sum)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float d = a[i] - b[i];
	atomicAdd(sum, (double)(d * d));
}

// An integer count and a maximum over a 2-D grid with a strided input.
__global__ void
count_max_2d(const int *x, int rows, int cols, int ld, unsigned *count,
	     int *best)
{
	int c = blockIdx.x * blockDim.x + threadIdx.x;
	int r = blockIdx.y * blockDim.y + threadIdx.y;

	if (r < rows && c < cols) {
		int v = x[(size_t)r * ld + c];

		if (v > 0)
			atomicAdd(count, 1u);
		atomicMax(best, v);
	}
}

// A grid-stride loop of float sums into out[1], and xor into a 64-bit
// checksum; a 3-D launch of it is allowed.
__global__ void
stride_sum(const float *x, long long n, int stride, float *out,
	   unsigned long long *check)
{
	long long i = ((long long)blockIdx.z * gridDim.y + blockIdx.y) *
			      gridDim.x * blockDim.x +
		      (long long)blockIdx.x * blockDim.x + threadIdx.x;
	long long step = (long long)blockDim.x * gridDim.x * gridDim.y * gridDim.z;

	for (; i < n; i += step) {
		float v = x[i * stride];

		atomicAdd(&out[1], v);
		atomicXor(check, (unsigned long long)__float_as_uint(v));
	}
}

// Look-alike: the address depends on the thread.
__global__ void
per_thread(const float *x, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		atomicAdd(&out[i % 7], x[i]);
}

// Look-alike: the atomic's value is used (a counter handing out slots).
__global__ void
compact(const float *x, float *out, int n, int *next)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n && x[i] > 0.0f) {
		int slot = atomicAdd(next, 1);
		out[slot] = x[i];
	}
}

// Look-alike: the accumulator is also read.
__global__ void
read_back(const float *x, float *sum, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		atomicAdd(sum, x[i] - sum[0] * 0.0f);
}

// A histogram: the address depends on data (declined by the reduction,
// taken by smem_histogram).
__global__ void
hist_u8(const unsigned char *x, size_t n, unsigned *hist)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		atomicAdd(&hist[x[i]], 1u);
}

// A weighted float histogram over a 2-D grid, bins from a parameter.
__global__ void
hist_weighted_2d(const float *v, const float *w, int rows, int cols, int nbins,
		 float lo, float inv_width, float *hist)
{
	int c = blockIdx.x * blockDim.x + threadIdx.x;
	int r = blockIdx.y * blockDim.y + threadIdx.y;

	if (r >= rows || c >= cols)
		return;
	int b = (int)((v[r * cols + c] - lo) * inv_width);
	b = b < 0 ? 0 : (b >= nbins ? nbins - 1 : b);
	atomicAdd(hist + b, w[r * cols + c]);
}

// Look-alike for the histogram: the bins are also read.
__global__ void
hist_read(const int *x, int n, int *hist)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n && hist[x[i] & 255] < 100)
		atomicAdd(&hist[x[i] & 255], 1);
}

void
run(const float *a, const float *b, size_t n, double *sum, const int *xi,
    unsigned *count, int *best, float *out, unsigned long long *check,
    const unsigned char *u8, unsigned *hist, float *fh, int *ih, int *next,
    float *outf)
{
	sq_sum<<<(unsigned)((n + 255) / 256), 256>>>(a, b, n, sum);
	count_max_2d<<<dim3(8, 8), dim3(16, 16)>>>(xi, 100, 100, 128, count,
						    best);
	stride_sum<<<dim3(4, 2, 2), 96>>>(a, (long long)n, 1, out, check);
	per_thread<<<4, 256>>>(a, outf, 1000);
	compact<<<4, 256>>>(a, outf, 1000, next);
	read_back<<<4, 256>>>(a, outf, 1000);
	hist_u8<<<(unsigned)((n + 255) / 256), 256>>>(u8, n, hist);
	hist_weighted_2d<<<dim3(4, 4), dim3(32, 8)>>>(a, b, 30, 100, 64, 0.0f,
						       1.0f, fh);
	hist_read<<<4, 256>>>(xi, 1000, ih);
}

// A double-precision weighted histogram (8192 counters would need 64 KiB).
__global__ void
hist_f64(const int *bin, const double *w, int n, double *hist)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		atomicAdd(&hist[bin[i]], w[i]);
}

// The bin clamped under a data-dependent condition: the address still
// depends on data (not the uniform nbins - 1 of the last assignment).
__global__ void
hist_clamped(const float *x, size_t n, unsigned *hist, int nbins, float lo,
	     float hi, float scale)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v = x[i];
	if (v >= lo && v < hi) {
		int b = (int)((v - lo) * scale);
		if (b > nbins - 1)
			b = nbins - 1;
		atomicAdd(&hist[b], 1u);
	}
}

// Sums per row of blocks (the address depends on the block only) and a
// grid-wide integer minimum in one kernel.
__global__ void
row_sums(const float *x, int rows, int cols, float *row_sum, int *lowest)
{
	int c = blockIdx.x * blockDim.x + threadIdx.x;
	int r = blockIdx.y;

	if (c < cols && r < rows) {
		float v = x[(size_t)r * cols + c];

		atomicAdd(&row_sum[r], v);
		atomicMin(lowest, (int)v);
	}
}

// Look-alike: the right shape inside a namespace (helper kernels could not
// be declared in every pass).
namespace ns {
__global__ void
ns_sum(const float *x, int n, float *sum)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		atomicAdd(sum, x[i]);
}
}
