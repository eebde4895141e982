/*
 * dtype: the element type of a captured buffer, and how it is compared.
 *
 * A buffer's dtype comes from the spelled type of a pointer parameter that
 * points into it ("const float *__restrict__" gives f32). The analysis
 * module supplies the spellings; without one the dtype is "bytes", which is
 * compared exactly: reading an int buffer as floats would let small integers
 * pass as denormals within any absolute tolerance.
 *
 * Knowledge is data here: a table of spellings. Everything is pure.
 * May include: libc.
 */
#ifndef KS_CAPTURE_DTYPE_H
#define KS_CAPTURE_DTYPE_H

#include <stddef.h>

enum ks_dtype {
	KS_DTYPE_BYTES,		/* unknown: exact comparison */
	KS_DTYPE_INT,		/* any integer or bool: exact, never redrawn */
	KS_DTYPE_F64,
	KS_DTYPE_F32,
	KS_DTYPE_F16,
	KS_DTYPE_BF16,
	KS_DTYPE_N
};

/* "bytes", "int", "f64", "f32", "f16", "bf16". */
const char *ks_dtype_name(enum ks_dtype d);

/* The dtype named `name`; KS_DTYPE_BYTES for NULL or an unknown name. */
enum ks_dtype ks_dtype_parse(const char *name);

/* Bytes per element (1 for bytes and int: ints are compared bytewise). */
size_t ks_dtype_size(enum ks_dtype d);

/* 1 for the floating-point dtypes. */
int ks_dtype_is_float(enum ks_dtype d);

/*
 * The dtype of what a pointer type points to: "const float *" gives f32,
 * "__half2 *" f16, "int *" int, "grid2d *" bytes. A type that is not a
 * pointer, or NULL, gives bytes.
 */
enum ks_dtype ks_dtype_of_pointer(const char *type);

/* The dtype of a value type ("float", "unsigned int"...), bytes if none. */
enum ks_dtype ks_dtype_of_value(const char *type);

#endif
