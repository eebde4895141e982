// Device function used across translation units.
#include "poly.h"

__device__ float
poly_eval(const poly &p, float x)
{
	float r = p.c[p.degree];

	for (int k = p.degree - 1; k >= 0; k--)
		r = r * x + p.c[k]; // Horner
	return r;
}
