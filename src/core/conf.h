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
	KS_CONF_CACHE_MAX_SIZE,
	KS_CONF_CACHE_SECONDARY,
	KS_CONF_SUBST,
	KS_CONF_STRICT,
	KS_CONF_SUBST_TIMEOUT,
	KS_CONF_KS,
	KS_CONF_REPLAY_BOUND_MIN,
	KS_CONF_REPLAY_BOUND_FACTOR,
	KS_CONF_CANDIDATE_BOUND_FACTOR,
	KS_CONF_REPLAY,
	KS_CONF_LLM_URL,
	KS_CONF_LLM_API,
	KS_CONF_LLM_MODEL,
	KS_CONF_LLM_KEY,
	KS_CONF_LLM_TIMEOUT,
	KS_CONF_LLM_RETRIES,
	KS_CONF_LLM_TOKENS,
	KS_CONF_MIN_GAIN,
	KS_CONF_ANALYSIS_TIMEOUT,
	KS_CONF_GPU_LOCK,
	KS_CONF_LLM_REPAIRS,
	KS_CONF_RACECHECK_SAMPLE,
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
	char *capture_max_bytes;	/* KS_CAPTURE_MAX_BYTES: "auto" or "8G" */
	int capture_max_launches;	/* KS_CAPTURE_MAX_LAUNCHES */
	int replay_timeout_ms;	/* KS_REPLAY_TIMEOUT: one ks-replay run */
	int review_random;	/* KS_REVIEW_RANDOM: fresh input sets */
	int review_reps;	/* KS_REVIEW_REPS: timed runs at least */
	int review_min_ms;	/* KS_REVIEW_MIN_MS: timed kernel ms at least */
	char *tol_f64;		/* KS_TOL_F64: "ATOL,RTOL[,STOL]" ("" = built in) */
	char *tol_f32;		/* KS_TOL_F32 */
	char *tol_f16;		/* KS_TOL_F16 */
	char *tol_bf16;		/* KS_TOL_BF16 */
	/* Programs and libraries (core/toolkit.h); an empty value set in the
	 * environment or the file means "none", the default "search". */
	char *cuobjdump;	/* KS_CUOBJDUMP */
	char *capture_lib;	/* KS_CAPTURE_LIB: libks-capture.so */
	char *libclang;		/* KS_LIBCLANG */
	char *skills;		/* KS_SKILLS: the skills folder ("" = beside ks) */
	char *cache_max_size;	/* KS_CACHE_MAX_SIZE: "1G" ("0" = no limit) */
	char *cache_secondary;	/* KS_CACHE_SECONDARY: read-only caches, ':' list */
	int subst;		/* KS_SUBST: ks-nvcc compiles verified variants */
	int strict;		/* KS_STRICT: a failed substitution fails the build */
	int subst_timeout_ms;	/* KS_SUBST_TIMEOUT: the `ks` child of a manifest miss */
	char *ks;		/* KS_KS: the ks program ("" = beside ks-nvcc, PATH) */
	/* Bounded replay time (review/timing.h). */
	int replay_bound_min_ms;	/* KS_REPLAY_BOUND_MIN: floor of a run's bound */
	int replay_bound_factor;	/* KS_REPLAY_BOUND_FACTOR: x the captured time */
	int candidate_bound_factor;	/* KS_CANDIDATE_BOUND_FACTOR: x the original's */
	char *replay;		/* KS_REPLAY: the ks-replay program */
	/* The optimize loop's LLM (src/llm) and its base rule. */
	char *llm_url;		/* KS_LLM_URL: "" = rules only */
	char *llm_api;		/* KS_LLM_API: openai, anthropic, "" = from the URL */
	char *llm_model;	/* KS_LLM_MODEL */
	char *llm_key;		/* KS_LLM_KEY: never printed */
	int llm_timeout_ms;	/* KS_LLM_TIMEOUT: one request */
	int llm_retries;	/* KS_LLM_RETRIES: on 429, 5xx, timeouts */
	int llm_tokens;		/* KS_LLM_TOKENS: per task, 0 = no limit */
	char *min_gain;		/* KS_MIN_GAIN: the ratio that moves the base */
	int analysis_timeout_ms;	/* KS_ANALYSIS_TIMEOUT: one TU's analysis */
	char *gpu_lock;		/* KS_GPU_LOCK: the GPU lock ("" = KS_DIR/gpu) */
	int llm_repairs;	/* KS_LLM_REPAIRS: LLM repairs down one chain */
	int racecheck_sample;	/* KS_RACECHECK_SAMPLE: threads of a launch from
				 * which racecheck checks a sample of blocks */
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

/*
 * The GPU lock's path (gpulock.h) for the GPU this process uses:
 * KS_GPU_LOCK, else KS_DIR/gpu, for GPU 0 (no CUDA_VISIBLE_DEVICES, or
 * "0" first in it); "<path>.<id>" for another first id (`ks optimize
 * --gpus` runs one worker per GPU, each with its GPU's lock). malloc'd.
 * _for: the same from a CUDA_VISIBLE_DEVICES value (NULL: unset); pure.
 */
char *ks_conf_gpu_lock(const struct ks_conf *c);
char *ks_conf_gpu_lock_for(const struct ks_conf *c, const char *visible);
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
