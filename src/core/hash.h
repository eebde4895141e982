/*
 * hash: XXH3 digests for cache keys and file names.
 *
 * xxHash is used header-only (XXH_INLINE_ALL, in hash.c alone), so ks-nvcc
 * links no xxHash library. Strings are fed length-prefixed, so that
 * ("ab","c") and ("a","bc") never hash alike. A struct ks_hash owns its
 * state: ks_hash_release() frees it (safe on KS_HASH_INIT).
 * May include: libc.
 */
#ifndef KS_CORE_HASH_H
#define KS_CORE_HASH_H

#include <stddef.h>
#include <stdint.h>

struct ks_hash {
	void *state;
};
#define KS_HASH_INIT { NULL }

void ks_hash_init(struct ks_hash *h);
void ks_hash_release(struct ks_hash *h);
void ks_hash_bytes(struct ks_hash *h, const void *data, size_t n);
/* Length-prefixed string; NULL hashes differently from "". */
void ks_hash_str(struct ks_hash *h, const char *s);
void ks_hash_u64(struct ks_hash *h, uint64_t v);
/* 128-bit digest as 32 lowercase hex digits plus NUL. */
void ks_hash_hex128(struct ks_hash *h, char out[33]);
/* 64-bit digest as 16 hex digits plus NUL. */
void ks_hash_hex64(struct ks_hash *h, char out[17]);

/* One-shot 64-bit hex digest of a buffer. */
void ks_hash_once_hex64(const void *data, size_t n, char out[17]);

#endif
