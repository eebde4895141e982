/* Explicit instantiations nvcc emits kernels for: of a kernel, of a host
 * template that launches one (in a namespace), and both through a macro
 * used once per type. */
#include <cstdint>

namespace lib {
namespace detail {

template <typename T> struct pair_of { T a, b; };

template <typename T, int B>
__global__ void swap_k(pair_of<T> *p, uint64_t n)
{
	uint64_t i = blockIdx.x * (uint64_t)B + threadIdx.x;

	if (i < n) {
		T t = p[i].a;
		p[i].a = p[i].b;
		p[i].b = t;
	}
}

template <typename T>
uint64_t swap_all(pair_of<T> *p, uint64_t n)
{
	const int b = 128;

	swap_k<T, b><<<(unsigned)((n + b - 1) / b), b>>>(p, n);
	return n;
}

template <typename T>
__global__ void fill_k(T *p, T v)
{
	p[threadIdx.x] = v;
}

template uint64_t swap_all<double>(pair_of<double> *, uint64_t);

#define EXPORT(T)                                                   \
	template uint64_t swap_all<T>(pair_of<T> *, const uint64_t); \
	template __global__ void fill_k<T>(T *, T);

EXPORT(float)
EXPORT(int)

} // namespace detail
} // namespace lib

template __global__ void lib::detail::fill_k<char>(char *, char);
