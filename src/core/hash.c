#include "hash.h"

#include <stdio.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "util.h"

void
ks_hash_init(struct ks_hash *h)
{
	XXH3_state_t *st = XXH3_createState();

	if (!st)
		ks_die(KS_EXIT_NOMEM, "out of memory");
	XXH3_128bits_reset(st);
	h->state = st;
}

void
ks_hash_release(struct ks_hash *h)
{
	if (h->state)
		XXH3_freeState(h->state);
	h->state = NULL;
}

void
ks_hash_bytes(struct ks_hash *h, const void *data, size_t n)
{
	XXH3_128bits_update(h->state, data, n);
}

void
ks_hash_u64(struct ks_hash *h, uint64_t v)
{
	unsigned char b[8];
	int i;

	for (i = 0; i < 8; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	ks_hash_bytes(h, b, sizeof(b));
}

void
ks_hash_str(struct ks_hash *h, const char *s)
{
	if (!s) {
		ks_hash_u64(h, UINT64_MAX);
		return;
	}
	ks_hash_u64(h, strlen(s));
	ks_hash_bytes(h, s, strlen(s));
}

void
ks_hash_hex128(struct ks_hash *h, char out[33])
{
	XXH128_hash_t d = XXH3_128bits_digest(h->state);

	snprintf(out, 33, "%016llx%016llx", (unsigned long long)d.high64,
		 (unsigned long long)d.low64);
}

void
ks_hash_hex64(struct ks_hash *h, char out[17])
{
	XXH128_hash_t d = XXH3_128bits_digest(h->state);

	snprintf(out, 17, "%016llx", (unsigned long long)d.high64);
}

void
ks_hash_once_hex64(const void *data, size_t n, char out[17])
{
	snprintf(out, 17, "%016llx", (unsigned long long)XXH3_64bits(data, n));
}
