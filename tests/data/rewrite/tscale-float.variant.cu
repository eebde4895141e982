// A variant of scale<float> as a plain definition: the rewriter makes it
// the explicit specialization. 1592614637 (0x5eed5eed) marks its code.
// ks-nvcc: definition
__global__ void scale(float *p, float s, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (n == 0x5eed5eed)
		return;
	if (i < n)
		p[i] = p[i] * s;
}
