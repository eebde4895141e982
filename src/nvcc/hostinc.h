/*
 * hostinc: the host compiler's include directories (where nvcc finds
 * omp.h and the like through the host compiler), for another front end:
 * the analysis's clang parse takes them after its own (-idirafter), so a
 * header only the host compiler has is found and every other one stays
 * clang's.
 *
 * Asked once per compiler binary (`CXX -E -x c++ -v /dev/null`) and kept
 * in <dir>/nvcc/<id>.hostinc (id from the binary's path and stat, as for
 * nvcc's version). The directory lists are owned by the caller's strv.
 * May include: libc, core/, nvcc/nvccver.h.
 */
#ifndef KS_NVCC_HOSTINC_H
#define KS_NVCC_HOSTINC_H

struct ks_buf;
struct ks_strv;

/*
 * Pure: from the compiler's -v report, the directories between
 * '#include <...> search starts here:' and 'End of search list.'
 * (absolute ones only, " (framework directory)" dropped), appended to
 * `out`. Returns how many, or -1 (nothing appended) where the text has no
 * such list.
 */
int ks_hostinc_parse(const char *text, struct ks_strv *out);

/*
 * Pure: the host compiler nvcc runs for a build's -ccbin value (NULL:
 * none): the value when it names a file, DIR/g++ for a directory, else
 * "g++" (nvcc's default on Linux). Returns a malloc'd string; a name
 * without a slash is looked up in PATH by the caller.
 */
char *ks_hostinc_compiler(const char *ccbin, int ccbin_is_dir);

/*
 * Append the include directories of `compiler` (a path or a name looked
 * up in PATH) to `out`: the cache under `dir` (NULL: none), else the
 * query. Returns how many, or -1 with the reason in `err`; `out` is
 * then unchanged.
 */
int ks_hostinc_get(const char *dir, const char *compiler,
		   struct ks_strv *out, struct ks_buf *err);

#endif
