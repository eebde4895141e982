// The vecops library: GPU routines with host-array interfaces.
#ifndef VECOPS_H
#define VECOPS_H

#include <stddef.h>

// A row-major rows x cols matrix, passed to the transpose kernel by value.
struct mat_desc {
	int rows;
	int cols;
};

// Each returns NULL on success or a CUDA error message.
const char *vecops_axpby(int n, float a, float b, const float *x, float *y);
const char *vecops_transpose(mat_desc d, const float *in, float *out);
const char *vecops_device_name(char *buf, size_t len);

#endif
