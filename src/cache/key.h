/*
 * key: the kernel key, the name under which the cache keeps a kernel's
 * verified variants.
 *
 * The key hashes (XXH3-128) the key format, the mangled name, the closure
 * (analysis/closure.h: the kernel's definition and everything it reaches,
 * as spelled), the arch, the device-code flags and the nvcc version: a
 * change to any of them is a different kernel as far as the cache goes.
 * libc only, so that ks-nvcc can compute a key from a manifest's closure.
 * May include: libc, core/.
 */
#ifndef KS_CACHE_KEY_H
#define KS_CACHE_KEY_H

struct ks_strv;

#define KS_KEY_FORMAT 1

/*
 * Pure: the kernel key as 32 hex digits into `out`. `devflags` are the
 * classifier's device-code flags (nvcc/args.h); their order is kept, since
 * nvcc's meaning can depend on it (the last -O wins).
 */
void ks_key_kernel(const char *mangled, const char *closure, const char *arch,
		   const struct ks_strv *devflags, const char *nvcc_version,
		   char out[33]);

#endif
