/*
 * nvccmacros: the macros nvcc predefines for a CUDA compile, as -U/-D
 * arguments for another front end (the analysis's clang parse), so that
 * every #if of a TU takes the branch nvcc takes.
 *
 * Asked once per nvcc binary (`nvcc -E -Xcompiler -dM -x cu /dev/null`;
 * nvcc 13 has no -dM of its own) and kept in <dir>/nvcc/<id>.macros,
 * id as in nvccver.h; without an answer, derived from the version.
 * The argument lists are owned by the caller's strv.
 * May include: libc, core/, nvcc/nvccver.h.
 */
#ifndef KS_NVCC_NVCCMACROS_H
#define KS_NVCC_NVCCMACROS_H

struct ks_buf;
struct ks_strv;

/*
 * Pure: from `-dM` output (lines "#define NAME VALUE"), the macros of
 * nvcc's own table (nvccmacros.c: __NVCC__, __CUDACC__, the version
 * macros, and the flag-dependent __CUDACC_RDC__ and friends; never
 * __CUDA_ARCH__, which the parse sets per arch, nor the host compiler's)
 * with integer values, appended to `out` as "-UNAME", "-DNAME=VALUE"
 * pairs. Returns how many macros, or -1 (nothing appended) where the
 * text does not define __NVCC__ and __CUDACC__: not nvcc's answer.
 */
int ks_nvccmacros_parse(const char *text, struct ks_strv *out);

/*
 * Pure: the same pairs from a version alone ("13.0.88": __NVCC__ and
 * __CUDACC__ 1, __CUDACC_VER_MAJOR__ 13, _MINOR__ 0, _BUILD__ 88; a
 * missing build is 0). Returns how many, or -1 for what is not a
 * version (ks_nvccver_valid).
 */
int ks_nvccmacros_from_version(const char *version, struct ks_strv *out);

/*
 * Append nvcc's pairs for `nvcc` (may be NULL) to `out`: the cache under
 * `dir` (NULL: none), else the query, else from `version` (may be NULL
 * or ""). Returns how many, or -1 with the reason in `err` where none of
 * the three answers; `out` is then unchanged.
 */
int ks_nvccmacros_get(const char *dir, const char *nvcc, const char *version,
		      struct ks_strv *out, struct ks_buf *err);

#endif
