/*
 * store: the variant cache, KS_DIR/cache/<2 hex>/<key>/{variant.cu,
 * variant.json}: only verified variants enter, and ks-nvcc compiles them.
 *
 * The optimize loop puts an entry once the Reviewer verified a variant on
 * every capture of its kernel; ks-nvcc looks entries up by kernel key
 * during a user's build. An entry is the variant file (the format
 * ks_rewrite_variant_split() reads: helpers, definition, launcher) and its
 * metadata; variant.json records an XXH3-128 of variant.cu, and every read
 * checks it, so a corrupt or truncated entry is never compiled. Writes go
 * to temporary names and are renamed into place under a lock on the entry,
 * so concurrent `make -j` builds and `ks optimize` runs see an entry whole
 * or not at all.
 *
 * Ownership: struct ks_store_meta borrows every string it points to (the
 * writer's); struct ks_store_entry owns what a lookup returns and is freed
 * by ks_store_entry_release() (safe on a zeroed struct).
 * libc only, so that ks-nvcc can link it.
 * May include: libc, core/.
 */
#ifndef KS_CACHE_STORE_H
#define KS_CACHE_STORE_H

#include <stddef.h>

struct ks_buf;

#define KS_STORE_FORMAT 1

/* What variant.json says about a variant (the writer fills it). */
struct ks_store_meta {
	const char *kernel;	/* mangled name */
	const char *demangled;	/* or NULL */
	const char *key;	/* the kernel key, 32 hex digits */
	unsigned arch;		/* the verified __CUDA_ARCH__: 900 */
	const char *source;	/* the TU the variant was made from */
	double orig_ms, orig_lo_ms, orig_hi_ms;	/* median, p10..p90 */
	double var_ms, var_lo_ms, var_hi_ms;
	double speedup;		/* orig_ms / var_ms */
	const char *const *captures;	/* the captures it was verified on */
	size_t ncaptures;
	const char *evidence;	/* the verification, a JSON value's text, or NULL */
	const char *trail;	/* the skill trail, a JSON array's text, or NULL */
	unsigned rounds;
	const char *model;	/* "none" for rules-only */
	const char *ks_version;
};

/*
 * Put `len` bytes of `variant` and its metadata under <cache_dir>/<2
 * hex>/<key>/, replacing an entry of the same key. Refuses a key that is
 * not 32 hex digits and a variant that ks_rewrite_variant_split() would
 * refuse.
 */
int ks_store_put(const char *cache_dir, const struct ks_store_meta *m,
		 const char *variant, size_t len, struct ks_buf *err);

/* One entry found by a lookup. */
struct ks_store_entry {
	char *dir;		/* the entry's directory */
	char *variant;		/* variant.cu, NUL-terminated */
	size_t len;
	char *json;		/* variant.json, NUL-terminated */
	unsigned arch;
	char *kernel;
};

void ks_store_entry_release(struct ks_store_entry *e);

/*
 * Look `key` up in each of `dirs` in order (the primary cache, then the
 * secondary ones). Returns 1 with `e` filled for the first entry whose
 * variant.cu matches its recorded hash, 0 when none does (entries that
 * fail the check are skipped; *corrupt, when not NULL, counts them), -1
 * on an error that is not a miss.
 */
int ks_store_get(const char *const *dirs, size_t ndirs, const char *key,
		 struct ks_store_entry *e, unsigned *corrupt, struct ks_buf *err);

#endif
