/*
 * libclang: find and load libclang at run time, once per process.
 *
 * `ks` runs without libclang (everything but analysis works), so the
 * library is dlopen'ed, never linked. The search: KS_LIBCLANG when set
 * (a path or a soname, tried alone), else libclang 19 down to 16 by soname
 * and in /usr/lib/llvm-N/lib, then the unversioned libclang.so.1 and
 * libclang.so. The first library that opens and exports every function
 * of cx.h wins. Once loaded, the library stays for the life of the process
 * (unloading LLVM at exit is known to crash).
 *
 * This header is clang-free so that any module (ks doctor) can ask; the
 * function table itself is in cx.h, for src/analysis only.
 * Ownership: the returned strings are static, valid for the process.
 * May include: libc, core/.
 */
#ifndef KS_ANALYSIS_LIBCLANG_H
#define KS_ANALYSIS_LIBCLANG_H

struct ks_buf;
struct ks_strv;

/*
 * The libclang setting (KS_LIBCLANG in the config table, core/conf.h) that
 * ks_libclang_load() uses: a path, or "" for the built-in search. A
 * program that loads no configuration (the unit tests) does not call it,
 * and the environment's KS_LIBCLANG is read instead.
 */
void ks_libclang_configure(const char *setting);

/*
 * Load libclang (a no-op after a success; a failure is remembered too, so
 * the search runs once). Returns 0, or -1 with the reason in `err`: every
 * candidate tried and why it failed, or what KS_LIBCLANG named.
 */
int ks_libclang_load(struct ks_buf *err);

/*
 * clang's cuda_wrappers directory (its <new>, <cmath>, <algorithm>,
 * <complex> with the device overloads), or NULL: the clang driver adds
 * it to CUDA parses from its own install path, which libclang (without
 * one) computes wrongly and then silently drops, so ks passes it. Found
 * at load among ks_libclang_wrapper_candidates() (the first with `new`).
 */
const char *ks_libclang_cuda_wrappers(void);

/* Pure: where the cuda_wrappers of the libclang at `file` (the loaded
 * library, NULL if unknown) with `version` (clang_getClangVersion) may
 * be, most likely first, appended to `out`. */
void ks_libclang_wrapper_candidates(const char *file, const char *version,
				    struct ks_strv *out);

/* The library loaded ("libclang-19.so.1"), or NULL before a success. */
const char *ks_libclang_path(void);

/* clang_getClangVersion() ("Debian clang version 19.1.7 ..."), or NULL. */
const char *ks_libclang_version(void);

/* The major version (19), 0 when unknown or not loaded. */
int ks_libclang_major(void);

/*
 * Pure: the candidates in search order, given KS_LIBCLANG's value
 * (NULL or empty: the built-in list).
 */
void ks_libclang_candidates(const char *env, struct ks_strv *out);

/*
 * Behave as with libclang 16, which lacks the operator-kind queries of
 * 17: operators are then read from the tokens. For tests of that path on
 * a newer libclang; `on` 0 restores the library's own functions.
 */
void ks_libclang_emulate_16(int on);

/* Pure: the major version in a clang version string, or 0. */
int ks_libclang_parse_major(const char *version);

#endif
