/* Does not parse: the inventory must be refused, not guessed. */
__global__ void broken(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = undeclared_thing(i);
}
