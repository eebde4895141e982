/*
 * conf: configuration, one table of items, three sources.
 *
 * Priority: KS_* environment > the config file > built-in defaults. The
 * config file is KS_CONFIG if set, else <dir>/ks.conf (dir from KS_DIR or
 * the default); lines are "name = value", '#' starts a comment. Each item
 * remembers where its value came from, so `ks config` can print it.
 *
 * Loading never dies: a bad value is reported in `err` and the item keeps
 * its previous value (so ks-nvcc passes through instead of failing a build).
 * struct ks_conf owns its strings; ks_conf_release() frees them.
 * May include: libc, buf.h.
 */
#ifndef KS_CORE_CONF_H
#define KS_CORE_CONF_H

struct ks_buf;

enum ks_conf_origin {
	KS_ORIGIN_DEFAULT,
	KS_ORIGIN_FILE,
	KS_ORIGIN_ENV,
};

enum ks_conf_item {
	KS_CONF_DIR,
	KS_CONF_DISABLE,
	KS_CONF_NVCC,
	KS_CONF_LOG,
	KS_CONF_DEBUG,
	KS_CONF_RECORD,
	KS_CONF_LOCK_TIMEOUT,
	KS_CONF_CAPTURE_MAX_BYTES,
	KS_CONF_CAPTURE_MAX_LAUNCHES,
	KS_CONF_REPLAY_TIMEOUT,
	KS_CONF_REVIEW_RANDOM,
	KS_CONF_REVIEW_REPS,
	KS_CONF_REVIEW_MIN_MS,
	KS_CONF_TOL_F64,
	KS_CONF_TOL_F32,
	KS_CONF_TOL_F16,
	KS_CONF_TOL_BF16,
	KS_CONF_CUOBJDUMP,
	KS_CONF_CAPTURE_LIB,
	KS_CONF_LIBCLANG,
	KS_CONF_SKILLS,
	KS_CONF_ANALYSIS_TIMEOUT,
	KS_CONF_NITEMS
};

struct ks_conf {
	char *dir;		/* KS_DIR: state directory */
	int disable;		/* KS_DISABLE: pass everything through */
	char *nvcc;		/* KS_NVCC: the real nvcc ("" = search) */
	char *log;		/* KS_LOG: trace file ("" = none) */
	int debug;		/* KS_DEBUG: trace to stderr */
	int record;		/* KS_RECORD: write build records */
	int lock_timeout_ms;	/* KS_LOCK_TIMEOUT: ms to wait for a lock */
	char *capture_max_bytes;	/* KS_CAPTURE_MAX_BYTES: "1G" */
	int capture_max_launches;	/* KS_CAPTURE_MAX_LAUNCHES */
	int replay_timeout_ms;	/* KS_REPLAY_TIMEOUT: one ks-replay run */
	int review_random;	/* KS_REVIEW_RANDOM: fresh input sets */
	int review_reps;	/* KS_REVIEW_REPS: timed runs at least */
	int review_min_ms;	/* KS_REVIEW_MIN_MS: timed kernel ms at least */
	char *tol_f64;		/* KS_TOL_F64: "ATOL,RTOL" ("" = built in) */
	char *tol_f32;		/* KS_TOL_F32 */
	char *tol_f16;		/* KS_TOL_F16 */
	char *tol_bf16;		/* KS_TOL_BF16 */
	/* Programs and libraries (core/toolkit.h); an empty value set in the
	 * environment or the file means "none", the default "search". */
	char *cuobjdump;	/* KS_CUOBJDUMP */
	char *capture_lib;	/* KS_CAPTURE_LIB: libks-capture.so */
	char *libclang;		/* KS_LIBCLANG */
	char *skills;		/* KS_SKILLS: the skills folder ("" = beside ks) */
	int analysis_timeout_ms;	/* KS_ANALYSIS_TIMEOUT: one TU's analysis */
	char *config_path;	/* the config file consulted (may not exist) */
	enum ks_conf_origin origin[KS_CONF_NITEMS];
};

/* Defaults only; no I/O. */
void ks_conf_init(struct ks_conf *c);

/*
 * The value of a path setting for core/toolkit.h: NULL when it was left at
 * its default (search), else the value ("" for none).
 */
const char *ks_conf_path_setting(const struct ks_conf *c, enum ks_conf_item i);
void ks_conf_release(struct ks_conf *c);

/*
 * Apply the config file then the environment. Returns 0, or -1 when some
 * value was rejected (all others still apply) with the reasons in `err`.
 */
int ks_conf_load(struct ks_conf *c, struct ks_buf *err);

/* Pure: set item `name` (config-file spelling, e.g. "disable") from text. */
int ks_conf_set(struct ks_conf *c, const char *name, const char *value,
		enum ks_conf_origin origin, struct ks_buf *err);

/* Pure: parse config-file text (used by ks_conf_load). */
int ks_conf_parse(struct ks_conf *c, const char *text, const char *what,
		  struct ks_buf *err);

/* Append "name = value  (origin)" lines for every item. */
void ks_conf_describe(const struct ks_conf *c, struct ks_buf *out);

/* Item metadata for docs and `ks config`. */
const char *ks_conf_item_name(enum ks_conf_item i);
const char *ks_conf_item_env(enum ks_conf_item i);
const char *ks_conf_item_help(enum ks_conf_item i);

#endif
