/*
 * shim: the entry shim that lets ks-replay launch a kernel from a raw
 * parameter buffer.
 *
 * The shim is CUDA C++ text compiled together with the kernel's translation
 * unit (it #includes it) into a shared object, with the TU's own flags plus
 * -shared -Xcompiler -fPIC. It exports, with C linkage:
 *
 *   int ks_entry(void **params, dim3 grid, dim3 block, size_t shmem,
 *                cudaStream_t s);
 *	params[i] points at parameter i's bytes. Unpacks them into typed
 *	arguments and launches with <<<>>> (or calls the variant's launcher
 *	ks_launch_<kernel>, or launches cooperatively). Returns 0, a
 *	cudaError_t from the launch, or -1 when the kernel's parameter list
 *	does not have the captured sizes.
 *   int ks_entry_function(void **fn);
 *	the kernel's cudaFunction_t (a CUfunction): its module holds the
 *	TU's globals, its attributes the register count.
 *   const char ks_entry_kernel[];
 *	the kernel as the shim names it.
 *
 * Typed mode: every parameter's spelled type is known (the analysis gave
 * it); each gets an alias and a static_assert on its captured size.
 * Deduced mode: some type is unknown; the types are deduced from the
 * kernel's own signature by a variadic template and the sizes are checked
 * when ks_entry runs. A kernel in a namespace is called from a helper inside
 * that namespace, so that types spelled without qualification resolve.
 *
 * Pure: ks_shim_generate() and ks_shim_for_capture() only build text.
 * May include: libc, core/buf.h, capture/capture.h.
 */
#ifndef KS_REVIEW_SHIM_H
#define KS_REVIEW_SHIM_H

#include <stddef.h>

struct ks_buf;
struct ks_capture;

struct ks_shim_param {
	const char *type;	/* "const float *__restrict__", or NULL: unknown */
	size_t size;		/* captured size in bytes */
};

struct ks_shim {
	const char *include;	/* the TU to #include (a path), or NULL */
	const char *kernel;	/* callable spelling: "saxpy", "ns::k", "tk<float>" */
	const struct ks_shim_param *params;
	size_t nparams;
	int launcher;		/* call ks_launch_<name>(grid, block, shmem, s, args) */
	int cooperative;	/* cudaLaunchCooperativeKernel */
};

/*
 * Append the shim's source to `out`. Fails (-1, message) on a spelling that
 * cannot be a C++ name or type (quotes, braces, ';', newlines...), or on
 * launcher and cooperative together.
 */
int ks_shim_generate(const struct ks_shim *s, struct ks_buf *out,
		     struct ks_buf *err);

/*
 * The shim for capture `c`: its parameters' types and sizes, calling
 * `callable`, including `include` (or nothing); cooperative as captured
 * unless `launcher`.
 */
int ks_shim_for_capture(const struct ks_capture *c, const char *callable,
			const char *include, int launcher, struct ks_buf *out,
			struct ks_buf *err);

#endif
