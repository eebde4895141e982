/*
 * Template kernels for the instance tests: a stream benchmark's seven
 * kernels launched from a template host function for float and double,
 * templates instantiated from other templates, a member of a class
 * template, a kernel taken by address, non-type arguments, a namespace,
 * an explicit instantiation, a kernel template never used, and kernels
 * of internal linkage (nvcc's entries have no `L`: _Z7local_kPi).
 */
#define TPB 256

template <class T> __global__ void init_k(T *a, T *b, T *c, T v, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) { a[i] = v; b[i] = v; c[i] = v; }
}
template <class T> __global__ void copy_k(const T *a, T *c, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) c[i] = a[i];
}
template <class T> __global__ void mul_k(T *b, const T *c, T s, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) b[i] = s * c[i];
}
template <class T> __global__ void add_k(const T *a, const T *b, T *c, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) c[i] = a[i] + b[i];
}
template <class T>
__global__ void triad_k(T *a, const T *b, const T *c, T s, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) a[i] = b[i] + s * c[i];
}
template <class T> __global__ void nstream_k(T *a, const T *b, const T *c, T s, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) a[i] += b[i] + s * c[i];
}
template <class T> __global__ void dot_k(const T *a, const T *b, T *sum, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) atomicAdd(sum, a[i] * b[i]);
}

namespace tiles {
template <class T, int W> __global__ void fill(T *p) { p[threadIdx.x % W] = 0; }
}
template <class T> __global__ void by_address(T *p) { p[0] = 1; }
template <class T> __global__ void never_used(T *p) { p[0] = 2; }
static __global__ void local_k(int *p) { p[0] = 3; }
template <class T> static __global__ void local_t(T *p) { p[0] = 4; }

/* one level down: instantiated from run_all<T> */
template <class T> void run_copy(T *a, T *c, int n)
{
	copy_k<T><<<(n + TPB - 1) / TPB, TPB>>>(a, c, n);
}

template <class T> void run_all(T *a, T *b, T *c, T *sum, int n)
{
	int g = (n + TPB - 1) / TPB;
	init_k<<<g, TPB>>>(a, b, c, (T)1, n);
	run_copy(a, c, n);
	mul_k<<<g, TPB>>>(b, c, (T)3, n);
	add_k<<<g, TPB>>>(a, b, c, n);
	triad_k<<<g, TPB>>>(a, b, c, (T)3, n);
	nstream_k<<<g, TPB>>>(a, b, c, (T)3, n);
	dot_k<<<g, TPB>>>(a, b, sum, n);
	void (*f)(T *) = by_address<T>;
	(void)f;
}

template <class T> struct Tiler {
	void go(T *p) { tiles::fill<T, 32><<<1, 32>>>(p); }
};

template __global__ void tiles::fill<int, 8>(int *);

int main(void)
{
	float *fa = 0, *fb = 0, *fc = 0, *fs = 0;
	double *da = 0, *db = 0, *dc = 0, *ds = 0;
	Tiler<float> t;

	run_all(fa, fb, fc, fs, 1 << 20);
	run_all<double>(da, db, dc, ds, 1 << 20);
	t.go(fa);
	tiles::fill<double, 4><<<1, 4>>>(da);
	local_k<<<1, 1>>>((int *)0);
	local_t<<<1, 1>>>(fa);
	return 0;
}
