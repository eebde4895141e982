/*
 * globals: which of a capture's __device__/__constant__ globals the built
 * kernel uses, and under which name its module holds each.
 *
 * A capture names the globals of the captured program's module. The
 * Reviewer builds the kernel's TU again inside an entry shim, which is a
 * different main file: nvcc names every internal-linkage entity after the
 * main file's path (a "_INTERNAL_<hash>_<len>_<file>_..." source name, an
 * anonymous namespace "_GLOBAL__N__<hash>_...", and under -rdc a
 * "__nv_static_<len>__<hash>_..._" prefix), so such names never match
 * between the program and the shim. Two rules make the restore hold:
 *
 *  - Only globals the kernel's code can reach are restored: those named in
 *    the PTX bodies of the kernel's entry and of every function it calls,
 *    and in the initializers of those globals (a pointer to another). The
 *    empty objects libcu++ puts in every TU (cpo::begin, ignore, ...) are
 *    never reached and are left alone.
 *  - A name is matched exactly, else by its key: the name with each
 *    path-dependent part replaced by a marker (ks_globals_key), which is
 *    the same for the same entity whatever the main file.
 *
 * A reached global the capture does not hold is reported too: its value
 * at the launch is unknown, which names why a replay can differ.
 *
 * Everything here is pure (text in, decisions out).
 * Ownership: returned strings and the arrays of struct ks_globals_ptx
 * belong to the caller; ks_globals_ptx_release() frees them.
 * May include: libc, core/.
 */
#ifndef KS_REVIEW_GLOBALS_H
#define KS_REVIEW_GLOBALS_H

#include <stddef.h>

#include "../core/strv.h"

struct ks_buf;

/*
 * Pure: the path-independent key of a mangled (or plain) symbol name:
 * "_ZN34_INTERNAL_259fcb26_7_main_cu_table4cuda3std3__45__cpo5beginE" and
 * "_ZN34_INTERNAL_1e49ee56_7_shim_cu_table4cuda3std3__45__cpo5beginE" both
 * give "_ZN@I4cuda3std3__45__cpo5beginE". A name without such parts is its
 * own key. A fresh string.
 */
char *ks_globals_key(const char *name);

/* Pure: does the name hold a path-dependent part (its key differs)? */
int ks_globals_is_internal(const char *name);

/* What the PTX of a built module says about its globals. */
struct ks_globals_ptx {
	struct ks_strv vars;	/* every .global/.const variable declared */
	int *used;		/* [vars.n]: reached from the kernel's code */
	int found_kernel;	/* the kernel's entry was found: `used` is its
				 * closure, else every function's references */
};

/*
 * Pure: scan `ptx` (several modules' PTX may be concatenated) for the
 * globals reached from the entry of `kernel` (matched exactly, else by
 * key). Fills `out` (zeroed first).
 */
void ks_globals_ptx_scan(const char *ptx, const char *kernel,
			 struct ks_globals_ptx *out);

void ks_globals_ptx_release(struct ks_globals_ptx *p);

/* What to do with one captured global on replay. */
enum ks_global_fate {
	KS_GLOBAL_RESTORE,	/* restore it under `name`, compare it after */
	KS_GLOBAL_UNUSED,	/* the kernel's code never reaches it: leave it */
	KS_GLOBAL_ABSENT,	/* the module has no such global (nor by key) */
	KS_GLOBAL_AMBIGUOUS,	/* several of the module's globals have its key */
};

struct ks_global_map {
	enum ks_global_fate fate;
	const char *name;	/* the module's name (borrowed from the scan) */
	int by_key;		/* matched by key, not exactly */
};

/* Pure: the fate of captured global `captured` in the scanned module. */
void ks_globals_map(const struct ks_globals_ptx *p, const char *captured,
		    struct ks_global_map *out);

/*
 * Pure: the map file ks-replay reads (--original-globals): one line per
 * captured global, "<buffer>\t<name>" to restore it under that name or
 * "<buffer>\t-\t<reason>" to leave it alone; then "uses\t<name>" for each
 * reached global no captured one maps to. `names[i]` is buffer i's global
 * name, NULL for a buffer that is not a global. Appends to `out`; returns
 * the number of globals that could not be mapped (absent and reached, or
 * ambiguous), each with a reason line "fail\t<buffer>\t<reason>".
 */
size_t ks_globals_map_file(const struct ks_globals_ptx *p,
			   const char *const *names, size_t n,
			   struct ks_buf *out);

#endif
