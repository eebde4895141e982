// Shared by the kernels (saxpy.cu, stencil.cu) and the host code (host.cpp).
// host.cpp is compiled by nvcc as plain C++, so CUDA qualifiers are spelled
// through APP_HD.
#ifndef MAKE_APP_H
#define MAKE_APP_H

#include <stddef.h>

#ifdef __CUDACC__
#define APP_HD __host__ __device__
#else
#define APP_HD
#endif

// A 2-D grid of nx * ny floats, row-major, passed to the stencil kernel by
// value.
struct grid2d {
	int nx;
	int ny;
	float w_center;
	float w_side;
};

// One 5-point Jacobi step at an interior point.
APP_HD inline float
stencil_point(const grid2d &g, float c, float n, float s, float w, float e)
{
	return g.w_center * c + g.w_side * (n + s + w + e);
}

// GPU side (saxpy.cu, stencil.cu). Each returns NULL on success or a CUDA
// error message; host arrays in, host arrays out.
const char *gpu_saxpy(int n, float a, const float *x, float *y);
const char *gpu_sum(int n, const float *x, double *sum);
const char *gpu_stencil(const grid2d &g, int steps, float *field);
const char *gpu_device_name(char *buf, size_t len);

#endif
