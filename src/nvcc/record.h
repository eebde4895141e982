/*
 * record: one build record per compiled CUDA translation unit.
 *
 * <dir>/builds/<id>.json, id = hash of (cwd, source, output): a rebuild of
 * the same object replaces its record. The record holds what `ks` needs to
 * compile the translation unit again exactly as the build did: the real
 * nvcc, its version, cwd, the argv after --options-file expansion, the
 * NVCC_PREPEND_FLAGS/NVCC_APPEND_FLAGS in effect, and the classification
 * (source, output, language, target archs, device-code flags, depfile).
 * Written atomically (temp + rename), so make -j never shows a torn record.
 * The JSON is produced here without a JSON library (ks-nvcc links only
 * libc); `ks` reads it with cJSON. Format: docs/MANUAL.md, "Build records".
 * May include: libc, core/, args.h.
 */
#ifndef KS_WRAPPER_RECORD_H
#define KS_WRAPPER_RECORD_H

struct ks_args;
struct ks_buf;
struct ks_strv;

#define KS_RECORD_FORMAT 1

struct ks_record_info {
	const char *cwd;
	const char *nvcc;		/* the real nvcc */
	const char *nvcc_version;	/* "13.0.88" or "" */
	const struct ks_strv *argv;	/* the user's argv, options files expanded */
	const char *prepend_flags;	/* NVCC_PREPEND_FLAGS or NULL */
	const char *append_flags;	/* NVCC_APPEND_FLAGS or NULL */
	long long time;			/* seconds since the epoch */
};

/* Pure: the record's JSON text, appended to `out`. */
void ks_record_format(const struct ks_args *a, const struct ks_record_info *ri,
		      struct ks_buf *out);

/* Pure: the record's file name under <dir>/builds/ ("<hex>.json"). */
char *ks_record_name(const struct ks_args *a, const char *cwd);

/* Write the record of `a` into <dir>/builds/. */
int ks_record_write(const char *dir, const struct ks_args *a,
		    const struct ks_record_info *ri, struct ks_buf *err);

#endif
