// Template kernels for the instance view (tests/suites/transforms.sh):
// each transform reads one instance's plain copy.
#include <cuda_runtime.h>

template <class T>
__global__ void
scale_t(const T *x, T *y, T a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		y[i] = a * x[i];
}

template <class T>
void
run_scale(const T *x, T *y, int n)
{
	scale_t<<<(n + 255) / 256, 256>>>(x, y, (T)2, n);
}

template <class T, int B>
__global__ void __launch_bounds__(B)
add_b(const T *x, T *y, int n)
{
	int i = blockIdx.x * B + threadIdx.x;

	if (i < n)
		y[i] = x[i] + y[i] + (T)B;
}

template <class T>
__global__ void
flip_t(const T *x, T *y, int rows, int cols)
{
	int c = blockIdx.x * blockDim.x + threadIdx.x;
	int r = blockIdx.y * blockDim.y + threadIdx.y;

	if (r < rows && c < cols)
		y[(size_t)c * rows + r] = x[(size_t)r * cols + c];
}

void
go(const float *xf, float *yf, const double *xd, double *yd,
   const unsigned int *xu, unsigned int *yu, int n)
{
	run_scale(xf, yf, n);
	run_scale(xd, yd, n);
	scale_t<float><<<1, 32>>>(xf, yf, 3.0f, 32);
	add_b<unsigned int, 128><<<(n + 127) / 128, 128>>>(xu, yu, n);
	flip_t<<<dim3(64, 64), dim3(16, 16)>>>(xd, yd, 1024, 1024);
}
