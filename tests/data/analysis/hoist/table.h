// A user header of declarations (a key type with its operators, a
// member template named without `template`, which nvcc's dialect
// allows) that the TU includes before thrust.
#ifndef HOIST_TABLE_H
#define HOIST_TABLE_H
#include <cstdint>

template <uint32_t N>
struct key {
	uint32_t w[N];

	__host__ __device__ bool operator<(const key &o) const
	{
		for (uint32_t i = 0; i < N; i++)
			if (w[i] != o.w[i])
				return w[i] < o.w[i];
		return false;
	}
	__host__ __device__ bool operator!=(const key &o) const
	{
		return *this < o || o < *this;
	}
};

template <typename T>
struct scale {
	template <int M>
	__device__ static T by(T v)
	{
		return v * M;
	}
};

template <typename T, int M>
__device__ T scaled(T v)
{
	return scale<T>::by<M>(v);
}
#endif
