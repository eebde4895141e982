/*
 * manifest: from a translation unit's bytes to its kernel keys, without
 * libclang (ccache's direct mode).
 *
 * Computing kernel keys needs libclang and takes a parse; a build calls
 * ks-nvcc thousands of times and must not pay that. So `ks analyze
 * --manifest` writes, for each TU, a manifest: a plain-text file named by
 * the manifest id, an XXH3-128 of the TU's bytes, the working directory,
 * the normalized argv and the nvcc version, holding entries of
 *     (every header the TU included, with its size and XXH3-128)
 *         -> (kernel key, arch, mangled name) for each kernel
 * ks-nvcc, which links only libc, computes the id from what it already
 * has, reads <dir>/manifests/<2 hex>/<id>, and takes the first entry whose
 * headers all still have their recorded bytes. Headers of the CUDA
 * toolkit are listed as `system` and not hashed: the nvcc version in the
 * id covers them. A miss (no manifest, or every entry stale) is not an
 * error: it means "ask ks".
 *
 * Format (docs/MANUAL.md, "Direct-mode manifests"), one record per line,
 * paths last so that they may hold spaces:
 *     ks-manifest 1
 *     source <path>
 *     entry
 *     header <xxh3-128 hex> <size> <path>
 *     system <path>
 *     kernel <key> <arch> <mangled name>
 *     end
 * Entries are newest first; at most KS_MANIFEST_MAX_ENTRIES are kept.
 *
 * Ownership: struct ks_manifest owns its entries and strings;
 * ks_manifest_release() and ks_manifest_entry_release() free them (safe
 * on zeroed structs).
 * May include: libc, core/, derive.h.
 */
#ifndef KS_WRAPPER_MANIFEST_H
#define KS_WRAPPER_MANIFEST_H

#include <stddef.h>

struct ks_buf;
struct ks_strv;

#define KS_MANIFEST_FORMAT 1
#define KS_MANIFEST_MAX_ENTRIES 16
/* The most bytes read of a manifest, a TU, a depfile or nvcc -M output. */
#define KS_MANIFEST_TU_MAX_BYTES (16u << 20)

struct ks_manifest_header {
	char *path;
	char hash[33];		/* XXH3-128, hex; "" for a system header */
	long long size;		/* -1 for a system header */
	int system;
};

struct ks_manifest_kernel {
	char key[33];
	char *arch;
	char *mangled;
};

struct ks_manifest_entry {
	struct ks_manifest_header *headers;
	size_t nheaders;
	struct ks_manifest_kernel *kernels;
	size_t nkernels;
};

struct ks_manifest {
	char *source;
	struct ks_manifest_entry *entries;
	size_t nentries;
};

void ks_manifest_release(struct ks_manifest *m);
void ks_manifest_entry_release(struct ks_manifest_entry *e);

/* Appenders for building an entry. */
void ks_manifest_entry_add_header(struct ks_manifest_entry *e, const char *path,
				  const char *hash, long long size, int system);
void ks_manifest_entry_add_kernel(struct ks_manifest_entry *e, const char *key,
				  const char *arch, const char *mangled);

/*
 * Pure: the argv words that decide what a compile means: `argv` (nvcc's
 * arguments, prepend/append flags and options files already in, no
 * argv[0]) without the output file, the output directory and the
 * dependency-file options, which name files but change no code.
 */
void ks_manifest_normalize_argv(const struct ks_strv *argv,
				struct ks_strv *out);

/*
 * Pure: the manifest id (32 hex digits) of a TU: its bytes, the working
 * directory (relative paths in argv depend on it), the normalized argv
 * and the nvcc version.
 */
void ks_manifest_id(const void *tu, size_t tu_len, const char *cwd,
		    const struct ks_strv *argv, const char *nvcc_version,
		    char out[33]);

/*
 * Pure: the prerequisites of a make-format dependency text (nvcc -M, or a
 * depfile of -MD): every path after a "target:" up to the next rule,
 * with backslash-newlines joined and "\ " read as a space. Phony rules
 * of -MP (a target with no prerequisites) add nothing. Appended to `out`
 * once each, in order.
 */
void ks_manifest_parse_deps(const char *text, struct ks_strv *out);

/* <dir>/manifests/<first 2 hex>/<id> (the caller frees it). */
char *ks_manifest_path(const char *dir, const char *id);

/* Pure: parse manifest text. Returns 0, or -1 with the first bad line. */
int ks_manifest_parse(const char *text, struct ks_manifest *m,
		      struct ks_buf *err);

/* Pure: the text of `m`. */
void ks_manifest_format(const struct ks_manifest *m, struct ks_buf *out);

/*
 * Pure: put a copy of `e` first in `m`, dropping an older entry with the
 * same headers and hashes, and the oldest beyond KS_MANIFEST_MAX_ENTRIES.
 */
void ks_manifest_add_entry(struct ks_manifest *m,
			   const struct ks_manifest_entry *e);

/*
 * How a header is checked: fill `hash` and *size for `path`; return 0, or
 * -1 when it cannot be read. `known_size` lets an implementation skip
 * hashing a file whose size already differs.
 */
typedef int (*ks_manifest_digest_fn)(const char *path, long long known_size,
				     char hash[33], long long *size, void *ctx);

/*
 * Pure given `digest`: the first entry whose non-system headers all
 * match, or NULL.
 */
const struct ks_manifest_entry *ks_manifest_match(const struct ks_manifest *m,
						  ks_manifest_digest_fn digest,
						  void *ctx);

/* The digest of a file on disk (stat, then read and hash if the size
 * matches). A ks_manifest_digest_fn. */
int ks_manifest_file_digest(const char *path, long long known_size,
			    char hash[33], long long *size, void *ctx);

/*
 * Look `id` up under `dir`: 1 and a copy of the matching entry in `out`;
 * 0 when there is no manifest or no entry matches; -1 with a message when
 * the manifest exists but cannot be read or parsed.
 */
int ks_manifest_lookup(const char *dir, const char *id,
		       struct ks_manifest_entry *out, struct ks_buf *err);

/*
 * Add `e` to the manifest `id` (creating it) under a lock, atomically.
 * A manifest that does not parse is replaced.
 */
int ks_manifest_store(const char *dir, const char *id, const char *source,
		      const struct ks_manifest_entry *e, int lock_timeout_ms,
		      struct ks_buf *err);

/* What a manifest is written from (`ks analyze --manifest`). */
struct ks_manifest_build {
	const char *source;	/* the TU, absolute */
	const char *cwd;
	const char *nvcc;	/* runs `nvcc -M`; NULL: the depfile only */
	const char *nvcc_version;
	const char *toolkit;	/* headers under it are listed as system */
	const char *depfile;	/* read when nvcc -M fails; or NULL */
	const struct ks_strv *argv;	/* the build's, without argv[0] */
	int lock_timeout_ms;
};

/*
 * The writer: list the TU's headers (`nvcc -M` with the build's flags,
 * else the build's depfile), hash them, and store an entry mapping them to
 * `kernels` in the manifest of the TU's id. *path gets the manifest's
 * path (the caller frees it).
 */
int ks_manifest_write(const char *dir, const struct ks_manifest_build *b,
		      const struct ks_manifest_kernel *kernels, size_t nkernels,
		      char **path, struct ks_buf *err);

#endif
