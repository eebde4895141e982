/*
 * The program of gpu-check.sh: runs saxpy through run2/run3/run4 of a
 * (rewritten) saxpy.cu, checks every element against the CPU, and says how
 * many times the variant's launcher ran and which image the kernel came from.
 */
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

int launcher_calls;	/* the test variant's launcher counts itself here */

__global__ void saxpy(float a, const float *x, float *y, int n);
void run2(float a, const float *x, float *y, int n);
void run3(float a, const float *x, float *y, int n);
void run4(float a, const float *x, float *y, int n, cudaStream_t s);

int
main(void)
{
	const int n = (1 << 20) + 3;
	float *hx = (float *)malloc(n * sizeof(float));
	float *hy = (float *)malloc(n * sizeof(float));
	float *x, *y;
	cudaStream_t s;
	cudaFuncAttributes fa;
	int errors = 0, round, i;

	cudaMalloc(&x, n * sizeof(float));
	cudaMalloc(&y, n * sizeof(float));
	cudaStreamCreate(&s);
	for (round = 0; round < 3; round++) {
		for (i = 0; i < n; i++) {
			hx[i] = (float)(i % 5);
			hy[i] = (float)(i % 7);
		}
		cudaMemcpy(x, hx, n * sizeof(float), cudaMemcpyHostToDevice);
		cudaMemcpy(y, hy, n * sizeof(float), cudaMemcpyHostToDevice);
		if (round == 0)
			run2(2.0f, x, y, n);
		else if (round == 1)
			run3(2.0f, x, y, n);
		else
			run4(2.0f, x, y, n, s);
		if (cudaDeviceSynchronize() != cudaSuccess) {
			printf("error %s\n", cudaGetErrorString(cudaGetLastError()));
			return 1;
		}
		cudaMemcpy(hy, y, n * sizeof(float), cudaMemcpyDeviceToHost);
		for (i = 0; i < n; i++)
			if (hy[i] != 2.0f * (float)(i % 5) + (float)(i % 7))
				errors++;
	}
	cudaFuncGetAttributes(&fa, saxpy);
	printf("launcher_calls=%d errors=%d ptxVersion=%d binaryVersion=%d\n",
	       launcher_calls, errors, fa.ptxVersion, fa.binaryVersion);
	return errors ? 1 : 0;
}
