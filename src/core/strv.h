/*
 * strv: a growable, NULL-terminated vector of owned strings (an argv).
 *
 * `v` is never NULL after KS_STRV_INIT/ks_strv_init and v[n] == NULL, so it
 * can be passed to execv directly. The vector owns every string in it:
 * ks_strv_push copies, ks_strv_push_owned takes ownership of a malloc'd
 * string. ks_strv_release frees all and re-inits. A zeroed struct is valid
 * only after ks_strv_init.
 * May include: libc, util.h.
 */
#ifndef KS_CORE_STRV_H
#define KS_CORE_STRV_H

#include <stddef.h>

struct ks_strv {
	char **v;
	size_t n;
	size_t alloc;
};

extern char *ks_strv_empty[];
#define KS_STRV_INIT { ks_strv_empty, 0, 0 }

void ks_strv_init(struct ks_strv *sv);
void ks_strv_release(struct ks_strv *sv);
void ks_strv_push(struct ks_strv *sv, const char *s);
void ks_strv_push_owned(struct ks_strv *sv, char *s);
void ks_strv_pushv(struct ks_strv *sv, const char *const *v, size_t n);
/* Insert a copy of `s` at index `at` (0 <= at <= n). */
void ks_strv_insert(struct ks_strv *sv, size_t at, const char *s);
/* Remove the string at `at`, freeing it. */
void ks_strv_remove(struct ks_strv *sv, size_t at);
/* Index of the first string equal to `s`, or -1. */
long ks_strv_find(const struct ks_strv *sv, const char *s);

#endif
