/*
 * record: one build record per compiled CUDA translation unit.
 *
 * <dir>/builds/<id>.json, id = hash of (cwd, source, output): a rebuild of
 * the same object replaces its record. The record holds what `ks` needs to
 * compile the translation unit again exactly as the build did: the real
 * nvcc, its version, cwd, the argv after --options-file expansion, the
 * NVCC_PREPEND_FLAGS/NVCC_APPEND_FLAGS in effect, and the classification
 * (source, output, language, target archs, device-code flags, depfile).
 * A one-command build (`nvcc a.cu b.cpp -o app`, onecmd.h) has one record
 * per CUDA source: its argv is that source's compile alone, its output
 * and depfile the command's, and `command_argv`/`source_index` give the
 * whole command and where the source stands in it (format 2; for a -c
 * build command_argv is argv).
 * Written atomically (temp + rename), so make -j never shows a torn record.
 * The JSON is produced here without a JSON library (ks-nvcc links only
 * libc); `ks` reads it with cJSON through the one reader below
 * (record_read.c, the only file of nvcc/ that needs cJSON, linked into ks
 * and never into ks-nvcc). Format: docs/MANUAL.md, "Build records".
 * May include: libc, core/, args.h, onecmd.h.
 */
#ifndef KS_WRAPPER_RECORD_H
#define KS_WRAPPER_RECORD_H

struct ks_args;
struct ks_buf;
struct ks_strv;

#include <stddef.h>

#include "../core/strv.h"

#define KS_RECORD_FORMAT 2
/* The most bytes of a record file read: a record is an argv long, so a
 * bigger file is not one of ours. */
#define KS_RECORD_MAX_BYTES (16u << 20)

struct ks_record_info {
	const char *cwd;
	const char *nvcc;		/* the real nvcc */
	const char *nvcc_version;	/* "13.0.88" or "" */
	const struct ks_strv *argv;	/* the user's argv, options files expanded */
	const char *prepend_flags;	/* NVCC_PREPEND_FLAGS or NULL */
	const char *append_flags;	/* NVCC_APPEND_FLAGS or NULL */
	long long time;			/* seconds since the epoch */
	/* A one-command build's (all NULL for a -c build): */
	const char *mode;		/* "compile-link" or "lib" */
	const struct ks_strv *command_argv;	/* the whole command */
	long source_index;		/* the source's word in it */
	const char *output, *depfile;	/* the command's, as given */
};

/* Pure: the record's JSON text, appended to `out`. */
void ks_record_format(const struct ks_args *a, const struct ks_record_info *ri,
		      struct ks_buf *out);

/* Pure: the record's file name under <dir>/builds/ ("<hex>.json"). */
char *ks_record_name(const struct ks_args *a, const char *cwd);

/* Pure: the same for a record whose output is `output` (NULL: a's). */
char *ks_record_name_for(const struct ks_args *a, const char *cwd,
			 const char *output);

/* Write the record of `a` into <dir>/builds/. */
int ks_record_write(const char *dir, const struct ks_args *a,
		    const struct ks_record_info *ri, struct ks_buf *err);

/* ---- the reader (record_read.c; ks only) ---------------------------- */

struct ks_build_rec_arch {
	char *virt, *real;	/* "compute_90", "sm_90"; either may be NULL */
};

/* One build record as read back. Strings are NULL where the record has none. */
struct ks_build_rec {
	char *path;		/* the record file */
	char *source;		/* absolute */
	char *cwd;
	char *output;		/* the object, absolute */
	char *depfile;
	char *nvcc;		/* the real nvcc that built it */
	char *nvcc_version;
	char *time;
	char *std;
	char *prepend_flags, *append_flags;
	struct ks_strv argv;	/* nvcc's arguments, without argv[0] */
	/* "compile", or for a one-command build "compile-link" or "lib"
	 * (format 1 records: "compile"). */
	char *mode;
	/* The whole command (format 1 records, -c builds: argv) and the
	 * index of the source's word in it (-1 when none is found). */
	struct ks_strv command_argv;
	long source_index;
	struct ks_strv includes, defines, devflags;
	struct ks_build_rec_arch *archs;
	size_t narchs;
	char *text;		/* the record's JSON text, as read */
};

/* Frees everything; safe on a zeroed struct. */
void ks_build_rec_release(struct ks_build_rec *r);

/*
 * Pure: parse record text (`len` bytes; a NUL inside or bytes after the
 * object are refused) named `path` in messages. A record needs a source,
 * a cwd and an argv of strings.
 */
int ks_build_rec_parse(const char *text, size_t len, const char *path,
		       struct ks_build_rec *r, struct ks_buf *err);

/* Read one build record (at most KS_RECORD_MAX_BYTES). */
int ks_build_rec_load(const char *path, struct ks_build_rec *r,
		      struct ks_buf *err);

/*
 * Every readable record under <dir>/builds, in no order: `fn` gets each
 * (it may take the record over by copying it and zeroing `*r`), or the
 * path and the reason of one that cannot be read (`r` NULL). Stops and
 * returns fn's value when it is not 0.
 */
int ks_build_rec_each(const char *dir,
		      int (*fn)(struct ks_build_rec *r, const char *path,
				const char *why, void *ctx),
		      void *ctx);

/*
 * The newest record (by its time) under <dir>/builds for which `match`
 * says 1. Returns 0, or -1 when there is none (no message: the caller
 * knows what it looked for).
 */
int ks_build_rec_newest(const char *dir,
			int (*match)(const struct ks_build_rec *r, void *ctx),
			void *ctx, struct ks_build_rec *best);

#endif
