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
	/* A template kernel's instance: its template arguments as the
	 * analysis displays them ("float, 64"), which substitution hands to
	 * the rewriter; NULL for a plain kernel. */
	const char *instance;
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
	size_t from;		/* the index in `dirs` it was found in */
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

/* Pure: is `key` 32 lowercase hex digits? */
int ks_store_key_valid(const char *key);

/* <cache_dir>/<2 hex>/<key> (the caller frees it). */
char *ks_store_entry_path(const char *cache_dir, const char *key);

/* Pure: the XXH3-128 of `len` bytes as 32 hex digits (variant.json's
 * "variant_xxh3_128"; `xxh128sum` prints the same). */
void ks_store_hash(const char *data, size_t len, char out[33]);

/*
 * Pure: the text of variant.json for `m` and a variant of `len` bytes
 * hashing to `hash`. Refuses a bad key, a missing kernel or arch, and
 * evidence or a trail that is not JSON text.
 */
int ks_store_format_meta(const struct ks_store_meta *m, const char *hash,
			 size_t len, long long created, struct ks_buf *out,
			 struct ks_buf *err);

/*
 * Pure: the checks every read makes: `json` is variant.json of format
 * KS_STORE_FORMAT for `key` (NULL: any key) and `variant` has the
 * recorded hash. Fills *arch and `kernel` (either may be NULL); -1 with
 * the reason in `why`.
 */
int ks_store_check_text(const char *key, const char *json, const char *variant,
			size_t len, unsigned *arch, struct ks_buf *kernel,
			struct ks_buf *why);

/* Check the entry `key` of one cache: 0, or -1 with the reason. */
int ks_store_check(const char *cache_dir, const char *key, struct ks_buf *why);

/* Pure JSON helpers over variant.json (no cJSON in cache/): is `text`
 * one JSON value; a top-level string member (decoded, appended); a
 * top-level number member. -1 when absent or of another type. */
int ks_store_json_valid(const char *text);
int ks_store_json_str(const char *json, const char *key, struct ks_buf *out);
int ks_store_json_num(const char *json, const char *key, double *v);

/* An entry as a listing sees it. */
struct ks_store_item {
	char key[33];
	char *dir;
	long long bytes;	/* of its files */
	long long used;		/* last use: the entry directory's mtime */
};

/*
 * Every entry of one cache, sorted by key (a missing cache is empty).
 * ks_store_items_release() frees the array.
 */
int ks_store_list(const char *cache_dir, struct ks_store_item **items,
		  size_t *n, struct ks_buf *err);
void ks_store_items_release(struct ks_store_item *items, size_t n);

/* Remove the entry `key` under its lock (renamed away, then deleted). */
int ks_store_remove(const char *cache_dir, const char *key, struct ks_buf *err);

/*
 * Mark an entry used now (its directory's mtime), for the
 * least-recently-used cleanup. ks-nvcc calls it for entries of the
 * primary cache only: secondary caches are read-only.
 */
void ks_store_touch(const struct ks_store_entry *e);

/*
 * Pure: with the cache over `max_bytes` (<= 0: no limit), reorder
 * `items` so that the first *nremove are the least recently used ones
 * whose removal brings it down to 90% of the limit, never `keep` (may be
 * NULL). Returns 1 when something is to go, else 0.
 */
int ks_store_plan_trim(struct ks_store_item *items, size_t n,
		       long long max_bytes, const char *keep, size_t *nremove);

/*
 * Apply the plan: remove least recently used entries until the cache
 * holds at most `max_bytes` (one trimmer at a time: when another holds
 * the trim lock, return 0 at once). *removed counts them.
 */
int ks_store_trim(const char *cache_dir, long long max_bytes, const char *keep,
		  size_t *removed, struct ks_buf *err);

/*
 * ks_store_trim() with the limit of the cache_max_size setting
 * (KS_CACHE_MAX_SIZE, core/conf.h); ks_store_put() calls it after each
 * write, keeping the entry it wrote. Never fails: a cache over its
 * limit still works.
 */
void ks_store_trim_setting(const char *cache_dir, const char *keep);

/* Pure: "512", "64K", "10M", "1G", "1.5T" as bytes; -1 when not a size. */
int ks_store_parse_size(const char *s, long long *bytes);

/*
 * Install an entry copied from elsewhere (`ks cache import`): checks
 * `json` and `variant` as a read does, then puts them in place under
 * <cache_dir> atomically, under the entry's lock.
 */
int ks_store_put_raw(const char *cache_dir, const char *key, const char *json,
		     const char *variant, size_t len, struct ks_buf *err);

#endif
