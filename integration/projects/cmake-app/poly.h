// A polynomial evaluated on the device. poly_eval() is defined in
// poly_eval.cu and called from a kernel in poly_apply.cu, so this target
// needs separable compilation (-rdc=true) and a device link.
#ifndef POLY_H
#define POLY_H

#include <stddef.h>

#define POLY_MAX_DEGREE 7

struct poly {
	int degree;
	float c[POLY_MAX_DEGREE + 1]; // c[0] + c[1] x + ... + c[degree] x^degree
};

#ifdef __CUDACC__
__device__ float poly_eval(const poly &p, float x);
#endif

// Host side (poly_apply.cu): y[i] = p(x[i]). NULL on success, else a CUDA
// error message.
const char *poly_apply_gpu(const poly &p, int n, const float *x, float *y);
const char *poly_device_name(char *buf, size_t len);

#endif
