/* Kernels whose names clang 18 and later mangle unlike nvcc unless told
 * otherwise (tests/unit/test_analysis_dialect.c, tests/suites/analyze.sh
 * compare them with nvcc's PTX). */
#include <type_traits>

/* A non-type template parameter whose type depends on another parameter
 * (enable_if), one of deduced type (auto), a template template
 * parameter: the forms whose mangling clang 18 changed. */
template <typename T,
	  typename std::enable_if<std::is_same<T, float>::value, int>::type = 0>
__global__ void pick_k(unsigned n, T *p)
{
	if (threadIdx.x < n)
		p[threadIdx.x] = 1;
}

template <typename T,
	  typename std::enable_if<!std::is_same<T, float>::value, int>::type = 0>
__global__ void pick_k(unsigned n, T *p)
{
	if (threadIdx.x < n)
		p[threadIdx.x] = 2;
}

template <auto N>
__global__ void auto_k(int *p)
{
	p[threadIdx.x] = (int)N;
}

template <typename T> struct box { T v; };

template <template <typename> class B, typename T>
__global__ void tt_k(B<T> *p)
{
	p[threadIdx.x].v = 0;
}

template <typename T, std::size_t W = sizeof(T)>
__global__ void width_k(T *p)
{
	p[threadIdx.x] = (T)W;
}

int main()
{
	pick_k<float><<<1, 32>>>(32u, (float *)0);
	pick_k<double><<<1, 32>>>(32u, (double *)0);
	auto_k<5><<<1, 32>>>((int *)0);
	auto_k<'c'><<<1, 32>>>((int *)0);
	tt_k<box, float><<<1, 32>>>((box<float> *)0);
	width_k<short><<<1, 32>>>((short *)0);
	return 0;
}
