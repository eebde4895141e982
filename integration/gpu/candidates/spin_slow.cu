// Correct but far too slow: the same loop, repeated ten million times
// (the same result each time). The candidate's time bound stops it.
__global__ void
spin(const long long *iters, float *out)
{
	float acc = 0;

	for (long long r = 0; r < 10000000; r++) {
		/* volatile: each repetition reads the count again, so none is
		 * hoisted out of the loop */
		long long n = *(volatile const long long *)iters;

		acc = (float)threadIdx.x;
		for (long long i = 0; i < n; i++)
			acc = acc * 0.999999f + 1.0f;
	}
	out[threadIdx.x] = acc;
}
