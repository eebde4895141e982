#include "key.h"

#include "../core/hash.h"
#include "../core/strv.h"

void
ks_key_kernel(const char *mangled, const char *closure, const char *arch,
	      const struct ks_strv *devflags, const char *nvcc_version,
	      char out[33])
{
	struct ks_hash h = KS_HASH_INIT;
	size_t i;

	ks_hash_init(&h);
	ks_hash_str(&h, "ks-kernel-key");
	ks_hash_u64(&h, KS_KEY_FORMAT);
	ks_hash_str(&h, mangled);
	ks_hash_str(&h, closure);
	ks_hash_str(&h, arch);
	ks_hash_u64(&h, devflags ? devflags->n : 0);
	for (i = 0; devflags && i < devflags->n; i++)
		ks_hash_str(&h, devflags->v[i]);
	ks_hash_str(&h, nvcc_version);
	ks_hash_hex128(&h, out);
	ks_hash_release(&h);
}
