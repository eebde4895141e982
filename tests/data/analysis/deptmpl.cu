// A member template of a dependent class named without `template`, as
// nvcc takes it (clang, as the standard, reads `<` as less-than and errs
// at the instantiation): the kernels' instances are those of nvcc's PTX.
#include <cstddef>

template <typename D, typename S>
struct conv {
	template <size_t N>
	__device__ static void cast(D *d, const S *s)
	{
		for (size_t i = 0; i < N; ++i)
			d[i] = (D)s[i];
	}
};

template <>
struct conv<float, double> {
	template <size_t N>
	__device__ static void cast(float *d, const double *s)
	{
		for (size_t i = 0; i < N; ++i)
			d[i] = (float)(s[i] * 2.0);
	}
};

template <typename T, size_t N>
struct vec {
	T v[N];
	__device__ T *ptr() { return v; }
};

template <typename D, typename S, size_t N>
__device__ void cast_to(vec<D, N> &d, const vec<S, N> &s)
{
	conv<D, S>::cast<N>(
		d.ptr(), const_cast<vec<S, N> *>(&s)->ptr());
}

template <typename T, size_t N>
__global__ void widen_k(T *out, const double *in)
{
	vec<T, N> a;
	vec<double, N> b;

	for (size_t i = 0; i < N; ++i)
		b.v[i] = in[threadIdx.x * N + i];
	cast_to<T, double, N>(a, b);
	for (size_t i = 0; i < N; ++i)
		out[threadIdx.x * N + i] = a.v[i];
}

int main(void)
{
	float *f = 0;
	double *d = 0;

	widen_k<float, 4><<<1, 32>>>(f, d);
	widen_k<double, 2><<<1, 32>>>(d, d);
	return 0;
}
