/*
 * nvccver: which nvcc is this, cheaply.
 *
 * Build records and cache keys name the nvcc version. Asking nvcc costs a
 * process per compile, so the answer is kept in <dir>/nvcc/<id>, where id
 * hashes the binary's real path, size, mtime and inode: a toolkit upgrade
 * changes the id and the question is asked again.
 * May include: libc, core/.
 */
#ifndef KS_WRAPPER_NVCCVER_H
#define KS_WRAPPER_NVCCVER_H

#include <stddef.h>

struct ks_buf;

/*
 * Where an answer of `program` is kept: <dir>/nvcc/<id><ext>, the id an
 * XXH3-64 of `salt` (when not NULL), the program's real path, size, mtime
 * and inode, so that an upgraded program is asked again. NULL when `dir`
 * is NULL or the program cannot be found. The caller frees the path.
 */
char *ks_nvccver_cache_path(const char *dir, const char *program,
			    const char *salt, const char *ext);

/*
 * Append the version of `nvcc` ("13.0.88") to `out`. Uses and fills the
 * cache under `dir` (dir may be NULL: no cache).
 */
int ks_nvccver_get(const char *dir, const char *nvcc, struct ks_buf *out,
		   struct ks_buf *err);

/*
 * Pure: is `s` (len bytes) a version as nvcc prints it: two or more
 * dot-separated groups of digits, at most KS_NVCCVER_MAX bytes ("13.0.88";
 * not "13.", "13", ".0" or "13.0.88x"). A cache entry that is not is
 * asked again.
 */
#define KS_NVCCVER_MAX 32
int ks_nvccver_valid(const char *s, size_t len);

/* Pure: the "V13.0.88" token of `nvcc --version` output, without the V. */
int ks_nvccver_parse(const char *text, struct ks_buf *out, struct ks_buf *err);

#endif
