/*
 * capture: the format of one captured kernel launch (docs/CAPTURE.md).
 *
 * A capture is the directory <KS_DIR>/captures/<kernel>/<n>/: launch.json
 * (this struct) and, for buffer i, b<i>.in (its bytes just before the
 * launch) and b<i>.out (just after it, once the launch completed: the
 * reference output). A buffer is a whole allocation (device, pool, managed
 * or mapped host memory) that a pointer in the parameters, or a pointer
 * stored in another buffer, points into, or a __device__/__constant__
 * global the kernel's module holds. launch.json is written last, so a directory
 * without it is an unfinished capture and is ignored. Format:
 * docs/CAPTURE.md.
 *
 * The writer (ks_capture_format_json) is pure and needs no JSON library, so
 * libks-capture.so links only libc, the CUDA driver and CUPTI. The reader
 * (capture_read.c) uses cJSON and serves ks and ks-replay.
 *
 * Ownership: struct ks_capture owns every string and array in it;
 * ks_capture_release() frees them and is safe on a zeroed struct. Returned
 * strings belong to the caller.
 * May include: libc, core/, dtype.h.
 */
#ifndef KS_CAPTURE_CAPTURE_H
#define KS_CAPTURE_CAPTURE_H

#include <stddef.h>

#include "dtype.h"

struct ks_buf;

#define KS_CAPTURE_FORMAT 1

/* A device pointer found in a parameter's bytes. */
struct ks_capture_ptr {
	size_t at;			/* byte offset inside the parameter */
	size_t buffer;			/* index in ks_capture.buffers */
	unsigned long long offset;	/* where it points inside that buffer */
};

struct ks_capture_param {
	size_t offset;		/* in the raw parameter buffer */
	size_t size;
	char *type;		/* spelled in the source, or NULL: unknown */
	struct ks_capture_ptr *ptrs;
	size_t nptrs;
};

enum ks_capture_mem {
	KS_MEM_DEVICE,		/* cuMemAlloc / cudaMalloc */
	KS_MEM_MANAGED,		/* cuMemAllocManaged */
	KS_MEM_GLOBAL,		/* a __device__ or __constant__ variable */
	KS_MEM_POOL,		/* cuMemAllocAsync / cudaMallocAsync (a pool) */
	KS_MEM_HOST,		/* mapped or registered host memory */
};

struct ks_capture_buffer {
	enum ks_capture_mem mem;
	char *name;		/* the global's symbol, else NULL */
	unsigned long long base;	/* device address at capture time */
	unsigned long long size;	/* bytes */
	enum ks_dtype dtype;
	int written;		/* 1: in and out differ, 0: equal, -1: unknown */
	/* Device pointers stored in the buffer's bytes (`at`: the byte offset
	 * inside this buffer): a replay relocates them (ks_capture_relocate). */
	struct ks_capture_ptr *ptrs;
	size_t nptrs;
};

struct ks_capture {
	char *kernel;		/* mangled name */
	char *demangled;	/* or NULL */
	char *api;		/* the driver call: "cuLaunchKernel", ... */
	unsigned grid[3], block[3];
	unsigned shmem;		/* dynamic shared memory, bytes */
	int cooperative;
	unsigned long launch;	/* which launch of this kernel in the run, from 1 */
	unsigned char *param_bytes;	/* the raw parameter buffer */
	size_t param_size;
	struct ks_capture_param *params;
	size_t nparams;
	struct ks_capture_buffer *buffers;
	size_t nbuffers;
	char *device;		/* "NVIDIA H200" */
	int cc_major, cc_minor;
	int cuda_version;	/* cuDriverGetVersion: 13000 */
	char *program;		/* argv[0] of the captured program, or NULL */
	char *time;		/* UTC, ISO 8601 */
	char *record;		/* the build record of the kernel's TU, or NULL */
	char *note;		/* what the capture could not see, or NULL */
	/* The captured launch's own duration: CUDA events recorded around it
	 * on its stream after the context was idle; 0: not measured. */
	unsigned long long duration_ns;
};

void ks_capture_release(struct ks_capture *c);

/* Pure: append `text` to c->note ("; " between notes). */
void ks_capture_note_add(struct ks_capture *c, const char *text);

/* Pure: the launch.json text of `c`, appended to `out`. */
void ks_capture_format_json(const struct ks_capture *c, struct ks_buf *out);

/* Parse launch.json text into `c` (zeroed first). */
int ks_capture_parse_json(const char *text, struct ks_capture *c,
			  struct ks_buf *err);

/*
 * The capture directory `arg` names: a directory holding launch.json, else
 * <ks_dir>/captures/<arg> (a "<kernel>/<n>"), else the newest capture
 * (highest <n>) under <ks_dir>/captures/<arg>. A fresh string, or NULL.
 */
char *ks_capture_find(const char *ks_dir, const char *arg);

/* Read <dir>/launch.json. */
int ks_capture_load(const char *dir, struct ks_capture *c, struct ks_buf *err);

/* Write <dir>/launch.json atomically. */
int ks_capture_save(const char *dir, const struct ks_capture *c,
		    struct ks_buf *err);

/*
 * Pure: the directory name for a kernel: its mangled name with every
 * character outside [A-Za-z0-9_.-] replaced by '_', cut to 100 bytes with
 * a hash of the whole name appended when it was cut.
 */
char *ks_capture_kernel_dir(const char *kernel);

/* Pure: "<dir>/b<i>.in" or "<dir>/b<i>.out". */
char *ks_capture_buffer_path(const char *dir, size_t i, int out);

/*
 * Read buffer `i` (`out`: the after-state) into fresh memory of exactly
 * buffers[i].size bytes (at least 1 byte is allocated). NULL on error.
 */
void *ks_capture_read_buffer(const char *dir, const struct ks_capture *c,
			     size_t i, int out, struct ks_buf *err);

/*
 * Pure: set the parameters' spelled types (types[i] may be NULL; extra or
 * missing entries are ignored) and derive each buffer's dtype from the
 * first typed pointer parameter that points into it.
 */
void ks_capture_apply_types(struct ks_capture *c, const char *const *types,
			    size_t n);

/* Pure: the index of the parameter holding byte `offset`, or -1. */
long ks_capture_param_at(const struct ks_capture *c, size_t offset);

/*
 * Pure: the callable name of the kernel in C++ ("saxpy", "ns::scale",
 * "tk<float>") from its demangled name ("void tk<float>(float *, int)"),
 * or NULL when there is none.
 */
char *ks_capture_callable(const char *demangled);

/*
 * Pure: the device variables named in `cuobjdump -symbols` output: the last
 * word of every STT_OBJECT line, except the compiler's own ("$str...",
 * names starting with '.' or '$'), each name once, appended to `out` (a
 * struct ks_strv).
 */
struct ks_strv;
void ks_capture_parse_symbols(const char *text, struct ks_strv *out);

/* Which launches libks-capture.so records, and how much. */
struct ks_capture_policy {
	unsigned long launch;		/* 0: all; else this launch of a kernel, from 1 */
	unsigned long max_launches;	/* captures per run */
	unsigned long long max_bytes;	/* buffer bytes per capture (before-state) */
	/* distinct:N: up to N launches of each kernel that differ in geometry
	 * or scalar arguments (launch is then ignored); 0: off. */
	unsigned long distinct;
};

/* The default of --launch: the first launch of each distinct shape, up to
 * this many per kernel (one capture for a kernel that runs at one shape). */
#define KS_CAPTURE_LAUNCH_DEFAULT "distinct:3"

/* Parse --launch: "first" (1), "all" (0) or a number from 1. */
int ks_capture_parse_launch(const char *s, unsigned long *launch,
			    struct ks_buf *err);

/* Parse a byte count: digits with an optional K, M or G (powers of 1024). */
int ks_capture_parse_bytes(const char *s, unsigned long long *v,
			   struct ks_buf *err);

/*
 * Pure: record the launch numbered `ordinal` (from 1) of a matching kernel,
 * with `captured` captures already made in this run? (Not in distinct
 * mode: see ks_capture_policy_wants_key.)
 */
int ks_capture_policy_wants(const struct ks_capture_policy *p,
			    unsigned long ordinal, unsigned long captured);

/*
 * Parse --launch into `p`: "first", "all", a number from 1, "distinct"
 * (distinct:3) or "distinct:N" (N from 1). Sets p->launch and p->distinct.
 */
int ks_capture_parse_launch_mode(const char *s, struct ks_capture_policy *p,
				 struct ks_buf *err);

/*
 * Pure: the key that tells a launch's shape: its grid, block and dynamic
 * shared memory and the bytes of its parameters with every device pointer
 * found in them (params[].ptrs) left out. Two launches are the same shape
 * when their keys are equal.
 */
unsigned long long ks_capture_launch_key(const struct ks_capture *c);

/*
 * Pure, distinct mode: record a launch of key `key` of a kernel whose
 * `nseen` keys so far are seen[], with `captured` captures made in this run?
 */
int ks_capture_policy_wants_key(const struct ks_capture_policy *p,
				unsigned long captured,
				const unsigned long long *seen, size_t nseen,
				unsigned long long key);

/*
 * Pure, distinct mode, once a kernel has its N shapes (threads[] of the n
 * kept, n >= p->distinct): should a launch of `t` threads replace one? A
 * launch of at least KS_CAPTURE_GROW times the threads of the largest kept
 * replaces the smallest: its index, or -1. Wavefront and multi-level
 * kernels start on their smallest launches; this way their captures end on
 * the large ones that hold their time, at the cost of at most log2 of the
 * size range in extra captures.
 */
#define KS_CAPTURE_GROW 2
long ks_capture_policy_replace(const struct ks_capture_policy *p,
			       unsigned long captured,
			       const unsigned long long *threads, size_t n,
			       unsigned long long t);

/* Allocations closer than this keep their layout on replay. */
#define KS_CAPTURE_LAYOUT_GAP (64ull << 10)

/*
 * Pure: the layout a replay gives the buffers. Buffers other than globals
 * that lie less than `gap` bytes apart (or overlap) form one group, to be
 * placed in one allocation of gsize[g] bytes at the offsets they had from
 * the group's lowest base: group[i] and offset[i] for buffer i (group
 * (size_t)-1 for a global). Small cudaMallocs lie 0x200 apart, so the end
 * pointer `a + n` of one allocation is the start of the next; in separate
 * fresh allocations it would point into an unrelated one, and a loop
 * bounded by it would run wild. In one group every such pointer, and a
 * read past an end into the neighbor, stays as it was. The arrays hold
 * c->nbuffers entries; returns the number of groups, numbered by their
 * first member.
 */
size_t ks_capture_layout(const struct ks_capture *c, unsigned long long gap,
			 size_t *group, unsigned long long *offset,
			 unsigned long long *gsize);

/*
 * Pure: feed into `h` what makes two captures the same test case: the
 * kernel, its geometry, the device and its arch, the parameters (pointer bytes as
 * the buffer and offset they name, every other byte as it is), and each
 * buffer's kind, size, dtype, stored pointers and place in the replay's
 * layout. Not the addresses, times, paths or durations a capture of the
 * same launch in another run of the program differs by; nor the buffers'
 * contents (b<i>.in and .out: the caller hashes the files).
 */
struct ks_hash;
void ks_capture_identity(const struct ks_capture *c, struct ks_hash *h);

/* Pure: the index of the buffer whose extent holds address `v` (its end
 * included, up to `slack` bytes past it; of several, the one with the
 * highest base), or -1. Globals included. */
long ks_capture_buffer_at(const struct ks_capture *c, unsigned long long v,
			  unsigned long long slack);

/*
 * Pure: write into `data` (the bytes of buffer `i`) every device pointer
 * stored in it, relocated: bases[j] is where buffer j now lies. A pointer
 * whose target has base 0 in bases[] is left as it is.
 */
void ks_capture_relocate(const struct ks_capture *c, size_t i,
			 unsigned char *data, const unsigned long long *bases);

/*
 * Pure: the default capture limit (capture_max_bytes = auto): a quarter of
 * the host's memory (a replay holds the before, reference and result
 * images of every buffer) and nine tenths of the free device memory (a
 * replay needs the buffers and a copy of the written ones, while the
 * program's own allocations are gone), the smaller, in whole MiB, at least
 * 64 MiB. 0 for either: unknown, not a bound.
 */
unsigned long long ks_capture_auto_limit(unsigned long long host_bytes,
					 unsigned long long dev_free_bytes);

/* The host's physical memory in bytes (sysconf), 0 if unknown. */
unsigned long long ks_capture_host_memory(void);

/* For `ks config`: one line saying what capture_max_bytes = auto comes to
 * on this host. */
void ks_capture_describe_auto(struct ks_buf *out);

/*
 * Every capture `arg` names, oldest first, appended to `out` (a struct
 * ks_strv of fresh directory paths): a capture directory or a
 * "<kernel>/<n>" is one; a kernel (its directory name under
 * <ks_dir>/captures, or its mangled name) is every capture of it. Returns
 * the number appended.
 */
size_t ks_capture_find_all(const char *ks_dir, const char *arg,
			   struct ks_strv *out);

#endif
