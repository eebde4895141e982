// mse_loss: mean squared error of a prediction vector against a target
// vector, reduced to one scalar (2 x 64M floats: 512 MiB in, 4 bytes out).
// One thread per element computes its squared difference and atomically
// adds it to a single global accumulator; a one-thread kernel then divides
// by n. The accumulator is zeroed before each launch (part of the timed job).
//
// Why the accumulator is a double: the terms here are at most ~0.25 (mean
// 1/12), and once a float running sum reaches 2^22 the spacing of floats
// there is 0.5, so every further term rounds away. Whatever the order of the
// atomics, a float accumulator stops near 2^22 and returns about 0.0625
// instead of 0.0833 for n = 2^26; no tolerance could accept that while
// rejecting a wrong kernel.
// atomicAdd on a double is native on sm_60 and later.
//
// Vendor: cub::DeviceReduce::TransformReduce over the indices, with the same
// per-element squared difference (float) accumulated in double, followed by
// the same divide: the same job.
#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <climits>

#include "bench.h"
#include "ref.h"

__global__ void
mse_atomic_kernel(const float *pred, const float *target, size_t n, double *sum)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float d = pred[i] - target[i];
	atomicAdd(sum, (double)(d * d));
}

__global__ void
mse_finish_kernel(const double *sum, size_t n, float *out)
{
	*out = (float)(*sum / (double)n);
}

// The squared difference of element i, as the naive kernel computes it.
struct sq_diff_op {
	const float *pred, *target;
	__host__ __device__ double operator()(int i) const
	{
		float d = pred[i] - target[i];
		return (double)(d * d);
	}
};

int
main(int argc, char **argv)
{
	bench_init("mse_loss", argc, argv);
	const size_t n = bench_small() ? 100003 : (size_t)1 << 26;
	if (n > (size_t)INT_MAX)
		return bench_finish(false, "size exceeds the int item count used for CUB");

	// Targets in [-1, 1); predictions off by up to 0.5 either way.
	std::vector<float> hp(n), ht(n), noise(n);
	bench_fill(ht, 191, -1.0f, 1.0f);
	bench_fill(noise, 192, -0.5f, 0.5f);
	for (size_t i = 0; i < n; i++)
		hp[i] = ht[i] + noise[i];
	const float want = (float)mse_ref(hp.data(), ht.data(), n);

	float *dp = bench_to_device(hp);
	float *dt = bench_to_device(ht);
	double *dsum = nullptr, *dsum_v = nullptr;
	float *dout = nullptr, *dout_v = nullptr;
	BENCH_CK(cudaMalloc(&dsum, sizeof(double)));
	BENCH_CK(cudaMalloc(&dsum_v, sizeof(double)));
	BENCH_CK(cudaMalloc(&dout, sizeof(float)));
	BENCH_CK(cudaMalloc(&dout_v, sizeof(float)));
	// All-ones bytes are a NaN: a result never written fails the check.
	BENCH_CK(cudaMemset(dout, 0xff, sizeof(float)));
	BENCH_CK(cudaMemset(dout_v, 0xff, sizeof(float)));

	const thrust::counting_iterator<int> idx(0);
	const sq_diff_op sq{dp, dt};
	size_t temp_bytes = 0;
	BENCH_CK(cub::DeviceReduce::TransformReduce(nullptr, temp_bytes, idx, dsum_v, (int)n,
						    cuda::std::plus<double>{}, sq, 0.0));
	void *dtemp = nullptr;
	BENCH_CK(cudaMalloc(&dtemp, temp_bytes ? temp_bytes : 1));

	const int threads = 256;
	const unsigned blocks = (unsigned)((n + threads - 1) / threads);
	auto launch = [&]() {
		BENCH_CK(cudaMemsetAsync(dsum, 0, sizeof(double)));
		mse_atomic_kernel<<<blocks, threads>>>(dp, dt, n, dsum);
		mse_finish_kernel<<<1, 1>>>(dsum, n, dout);
	};
	auto launch_cub = [&]() {
		BENCH_CK(cub::DeviceReduce::TransformReduce(dtemp, temp_bytes, idx, dsum_v,
							    (int)n, cuda::std::plus<double>{},
							    sq, 0.0));
		mse_finish_kernel<<<1, 1>>>(dsum_v, n, dout_v);
	};

	// Tolerance: d = pred - target rounded to float is within 2^-24
	// relative, d * d within 3 * 2^-24; every term is >= 0, so the sum of
	// the computed terms is within 3 * 2^-24 relative of the exact sum. The
	// double accumulation, in whatever order the atomics land, adds at most
	// n * 2^-53 (7.5e-9 at n = 2^26) relative, and the final rounding to
	// float 2^-24: at most ~2.5e-7 relative in all. rtol 1e-6.
	const double atol = 0.0, rtol = 1e-6;
	launch();
	BENCH_CK(cudaGetLastError());
	launch_cub();
	BENCH_CK(cudaGetLastError());
	BENCH_CK(cudaDeviceSynchronize());
	float got = bench_to_host(dout, 1)[0];
	bool ok = bench_check("mse_atomic", &got, &want, 1, atol, rtol);
	got = bench_to_host(dout_v, 1)[0];
	ok = bench_check("cub_reduce", &got, &want, 1, atol, rtol) && ok;

	// Minimum: read both vectors once, write one float. Flops: 3 per
	// element (subtract, multiply, add) and the final divide.
	const double bytes = 2.0 * sizeof(float) * (double)n + sizeof(float);
	const double flops = 3.0 * (double)n + 1.0;
	bench_stats s = bench_time(launch);
	bench_report("mse_atomic", "naive", s, bytes, flops);
	s = bench_time(launch_cub);
	bench_report("cub_reduce", "vendor", s, bytes, flops);

	got = bench_to_host(dout, 1)[0];
	ok = bench_check("mse_atomic after timing", &got, &want, 1, atol, rtol) && ok;
	got = bench_to_host(dout_v, 1)[0];
	ok = bench_check("cub_reduce after timing", &got, &want, 1, atol, rtol) && ok;

	BENCH_CK(cudaFree(dtemp));
	BENCH_CK(cudaFree(dp));
	BENCH_CK(cudaFree(dt));
	BENCH_CK(cudaFree(dsum));
	BENCH_CK(cudaFree(dsum_v));
	BENCH_CK(cudaFree(dout));
	BENCH_CK(cudaFree(dout_v));
	return bench_finish(ok);
}
