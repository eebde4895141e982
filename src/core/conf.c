#include "conf.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "fs.h"
#include "util.h"

enum type { T_STR, T_BOOL, T_INT };

static const struct item {
	const char *name;
	const char *env;
	enum type type;
	size_t offset;
	const char *def;	/* NULL: computed (dir) */
	const char *help;
} items[KS_CONF_NITEMS] = {
	[KS_CONF_DIR] = { "dir", "KS_DIR", T_STR, offsetof(struct ks_conf, dir),
			  NULL, "state directory: builds, captures, tasks, cache, stats" },
	[KS_CONF_DISABLE] = { "disable", "KS_DISABLE", T_BOOL,
			      offsetof(struct ks_conf, disable), "0",
			      "pass every command straight to nvcc" },
	[KS_CONF_NVCC] = { "nvcc", "KS_NVCC", T_STR, offsetof(struct ks_conf, nvcc),
			   "", "the real nvcc (empty: search PATH, CUDA_HOME, CUDA_PATH)" },
	[KS_CONF_LOG] = { "log", "KS_LOG", T_STR, offsetof(struct ks_conf, log),
			  "", "append traces to this file" },
	[KS_CONF_DEBUG] = { "debug", "KS_DEBUG", T_BOOL,
			    offsetof(struct ks_conf, debug), "0",
			    "write traces to stderr" },
	[KS_CONF_RECORD] = { "record", "KS_RECORD", T_BOOL,
			     offsetof(struct ks_conf, record), "1",
			     "write a build record for each CUDA compile" },
	[KS_CONF_LOCK_TIMEOUT] = { "lock_timeout", "KS_LOCK_TIMEOUT", T_INT,
				   offsetof(struct ks_conf, lock_timeout_ms), "2000",
				   "milliseconds to wait for a lock before giving up" },
	[KS_CONF_CAPTURE_MAX_BYTES] = { "capture_max_bytes", "KS_CAPTURE_MAX_BYTES",
					T_STR, offsetof(struct ks_conf, capture_max_bytes),
					"auto", "buffer bytes one captured launch may hold "
					"(auto: the smaller of 1/4 of host memory and 9/10 "
					"of the free device memory at the launch)" },
	[KS_CONF_CAPTURE_MAX_LAUNCHES] = { "capture_max_launches",
					   "KS_CAPTURE_MAX_LAUNCHES", T_INT,
					   offsetof(struct ks_conf, capture_max_launches),
					   "16", "launches one ks capture run records" },
	[KS_CONF_REPLAY_TIMEOUT] = { "replay_timeout", "KS_REPLAY_TIMEOUT", T_INT,
				     offsetof(struct ks_conf, replay_timeout_ms),
				     "600000", "milliseconds one ks-replay run may take" },
	[KS_CONF_REVIEW_RANDOM] = { "review_random", "KS_REVIEW_RANDOM", T_INT,
				    offsetof(struct ks_conf, review_random), "3",
				    "fresh input sets a candidate must pass" },
	[KS_CONF_REVIEW_REPS] = { "review_reps", "KS_REVIEW_REPS", T_INT,
				  offsetof(struct ks_conf, review_reps), "20",
				  "timed runs of each kernel, at least" },
	[KS_CONF_REVIEW_MIN_MS] = { "review_min_ms", "KS_REVIEW_MIN_MS", T_INT,
				    offsetof(struct ks_conf, review_min_ms), "200",
				    "milliseconds of timed kernel runs, at least" },
	[KS_CONF_TOL_F64] = { "tol_f64", "KS_TOL_F64", T_STR,
			      offsetof(struct ks_conf, tol_f64), "",
			      "fp64 tolerance ATOL,RTOL[,STOL] (empty: 1e-12,1e-9,1e-10)" },
	[KS_CONF_TOL_F32] = { "tol_f32", "KS_TOL_F32", T_STR,
			      offsetof(struct ks_conf, tol_f32), "",
			      "fp32 tolerance ATOL,RTOL[,STOL] (empty: 1e-5,1e-4,1e-5)" },
	[KS_CONF_TOL_F16] = { "tol_f16", "KS_TOL_F16", T_STR,
			      offsetof(struct ks_conf, tol_f16), "",
			      "fp16 tolerance ATOL,RTOL[,STOL] (empty: 1e-3,1e-2,1e-3)" },
	[KS_CONF_TOL_BF16] = { "tol_bf16", "KS_TOL_BF16", T_STR,
			       offsetof(struct ks_conf, tol_bf16), "",
			       "bf16 tolerance ATOL,RTOL[,STOL] (empty: 1e-2,4e-2,4e-3)" },
	[KS_CONF_CUOBJDUMP] = { "cuobjdump", "KS_CUOBJDUMP", T_STR,
				offsetof(struct ks_conf, cuobjdump), "",
				"cuobjdump for SASS and globals (unset: beside nvcc, "
				"CUDA_HOME, CUDA_PATH, /usr/local/cuda, PATH; empty: none)" },
	[KS_CONF_CAPTURE_LIB] = { "capture_lib", "KS_CAPTURE_LIB", T_STR,
				  offsetof(struct ks_conf, capture_lib), "",
				  "libks-capture.so (unset: beside ks, ../lib/ks-nvcc)" },
	[KS_CONF_LIBCLANG] = { "libclang", "KS_LIBCLANG", T_STR,
			       offsetof(struct ks_conf, libclang), "",
			       "libclang to dlopen (unset: libclang 19 to 16, then libclang.so)" },
	[KS_CONF_SKILLS] = { "skills", "KS_SKILLS", T_STR,
			     offsetof(struct ks_conf, skills), "",
			     "the skills folder (empty: skills/ beside ks, else "
			     "../share/ks-nvcc/skills)" },
	[KS_CONF_CACHE_MAX_SIZE] = { "cache_max_size", "KS_CACHE_MAX_SIZE", T_STR,
				     offsetof(struct ks_conf, cache_max_size), "1G",
				     "size limit of the variant cache, least recently "
				     "used entries go first (0: none)" },
	[KS_CONF_CACHE_SECONDARY] = { "cache_secondary", "KS_CACHE_SECONDARY", T_STR,
				      offsetof(struct ks_conf, cache_secondary), "",
				      "read-only variant caches searched after the "
				      "primary, ':'-separated" },
	[KS_CONF_SUBST] = { "subst", "KS_SUBST", T_BOOL,
			    offsetof(struct ks_conf, subst), "1",
			    "ks-nvcc compiles verified variants from the cache" },
	[KS_CONF_STRICT] = { "strict", "KS_STRICT", T_BOOL,
			     offsetof(struct ks_conf, strict), "0",
			     "a substitution that fails fails the compile instead "
			     "of compiling the original" },
	[KS_CONF_SUBST_TIMEOUT] = { "subst_timeout", "KS_SUBST_TIMEOUT", T_INT,
				    offsetof(struct ks_conf, subst_timeout_ms), "30000",
				    "ms ks-nvcc waits for `ks` on a manifest miss, "
				    "then compiles the original" },
	[KS_CONF_KS] = { "ks", "KS_KS", T_STR, offsetof(struct ks_conf, ks), "",
			 "the ks program ks-nvcc asks on a manifest miss (empty: "
			 "beside ks-nvcc, then PATH)" },
	[KS_CONF_REPLAY_BOUND_MIN] = { "replay_bound_min", "KS_REPLAY_BOUND_MIN", T_INT,
				       offsetof(struct ks_conf, replay_bound_min_ms),
				       "10000", "milliseconds any one replayed run may "
				       "take, at least, before it is stopped" },
	[KS_CONF_REPLAY_BOUND_FACTOR] = { "replay_bound_factor", "KS_REPLAY_BOUND_FACTOR",
					  T_INT, offsetof(struct ks_conf, replay_bound_factor),
					  "50", "a run of the original is stopped past this "
					  "many times the captured launch's duration" },
	[KS_CONF_CANDIDATE_BOUND_FACTOR] = { "candidate_bound_factor",
					     "KS_CANDIDATE_BOUND_FACTOR", T_INT,
					     offsetof(struct ks_conf, candidate_bound_factor),
					     "20", "a run of a candidate is stopped past this "
					     "many times the original's time on replay" },
	[KS_CONF_REPLAY] = { "replay", "KS_REPLAY", T_STR, offsetof(struct ks_conf, replay),
			     "", "ks-replay (unset: beside ks, ../lib/ks-nvcc, PATH)" },
	[KS_CONF_LLM_URL] = { "llm_url", "KS_LLM_URL", T_STR,
			      offsetof(struct ks_conf, llm_url), "",
			      "the LLM endpoint of ks optimize (empty: rules only)" },
	[KS_CONF_LLM_API] = { "llm_api", "KS_LLM_API", T_STR,
			      offsetof(struct ks_conf, llm_api), "",
			      "openai or anthropic (empty: from the URL)" },
	[KS_CONF_LLM_MODEL] = { "llm_model", "KS_LLM_MODEL", T_STR,
				offsetof(struct ks_conf, llm_model), "",
				"the model the endpoint is asked for" },
	[KS_CONF_LLM_KEY] = { "llm_key", "KS_LLM_KEY", T_STR,
			      offsetof(struct ks_conf, llm_key), "",
			      "the endpoint's API key (never printed or logged)" },
	[KS_CONF_LLM_TIMEOUT] = { "llm_timeout", "KS_LLM_TIMEOUT", T_INT,
				  offsetof(struct ks_conf, llm_timeout_ms), "120000",
				  "ms one LLM request may take" },
	[KS_CONF_LLM_RETRIES] = { "llm_retries", "KS_LLM_RETRIES", T_INT,
				  offsetof(struct ks_conf, llm_retries), "3",
				  "retries of an LLM request after 429, 5xx or a timeout" },
	[KS_CONF_LLM_TOKENS] = { "llm_tokens", "KS_LLM_TOKENS", T_INT,
				 offsetof(struct ks_conf, llm_tokens), "200000",
				 "LLM tokens one optimize task may spend (0: no limit)" },
	[KS_CONF_MIN_GAIN] = { "min_gain", "KS_MIN_GAIN", T_STR,
			       offsetof(struct ks_conf, min_gain), "1.05",
			       "the speedup over the base that moves it (spreads apart too)" },
	[KS_CONF_ANALYSIS_TIMEOUT] = { "analysis_timeout", "KS_ANALYSIS_TIMEOUT",
				       T_INT, offsetof(struct ks_conf, analysis_timeout_ms),
				       "10000", "milliseconds of CPU one TU's analysis may "
				       "take (parse and walk; 0: no bound)" },
	[KS_CONF_GPU_LOCK] = { "gpu_lock", "KS_GPU_LOCK", T_STR,
			       offsetof(struct ks_conf, gpu_lock), "",
			       "the GPU lock, for every ks sharing one GPU across "
			       "state directories (empty: KS_DIR/gpu)" },
	[KS_CONF_LLM_REPAIRS] = { "llm_repairs", "KS_LLM_REPAIRS", T_INT,
				  offsetof(struct ks_conf, llm_repairs), "2",
				  "LLM repairs of a failed LLM edit, down one chain (0: none)" },
	[KS_CONF_RACECHECK_SAMPLE] = { "racecheck_sample", "KS_RACECHECK_SAMPLE", T_INT,
				       offsetof(struct ks_conf, racecheck_sample), "4194304",
				       "threads of a launch from which compute-sanitizer's "
				       "racecheck checks a sample of its blocks (0: every "
				       "block always)" },
};

static char *
default_dir(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	if (xdg && *xdg == '/')
		return ks_xasprintf("%s/ks", xdg);
	if (home && *home)
		return ks_xasprintf("%s/.cache/ks", home);
	return ks_xstrdup("/tmp/ks");
}

static int
set_item(struct ks_conf *c, const struct item *it, const char *value,
	 enum ks_conf_origin origin, struct ks_buf *err)
{
	char *field = (char *)c + it->offset;
	long v;
	char *end;

	switch (it->type) {
	case T_STR:
		free(*(char **)field);
		*(char **)field = ks_xstrdup(value);
		break;
	case T_BOOL:
		v = ks_parse_bool(value);
		if (v < 0)
			return ks_error(err, "%s: '%s' is not a boolean", it->name,
					value);
		*(int *)field = (int)v;
		break;
	case T_INT:
		errno = 0;
		v = strtol(value, &end, 10);
		if (errno || end == value || *end || v < 0 || v > INT_MAX)
			return ks_error(err, "%s: '%s' is not a non-negative number",
					it->name, value);
		*(int *)field = (int)v;
		break;
	}
	c->origin[it - items] = origin;
	return 0;
}

void
ks_conf_init(struct ks_conf *c)
{
	size_t i;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < KS_CONF_NITEMS; i++) {
		if (items[i].def) {
			set_item(c, &items[i], items[i].def, KS_ORIGIN_DEFAULT, NULL);
		}
	}
	c->dir = default_dir();
	c->config_path = NULL;
}

void
ks_conf_release(struct ks_conf *c)
{
	size_t i;

	for (i = 0; i < KS_CONF_NITEMS; i++)
		if (items[i].type == T_STR)
			free(*(char **)((char *)c + items[i].offset));
	free(c->config_path);
	memset(c, 0, sizeof(*c));
}

int
ks_conf_set(struct ks_conf *c, const char *name, const char *value,
	    enum ks_conf_origin origin, struct ks_buf *err)
{
	size_t i;

	for (i = 0; i < KS_CONF_NITEMS; i++)
		if (!strcmp(items[i].name, name))
			return set_item(c, &items[i], value, origin, err);
	return ks_error(err, "unknown configuration item '%s'", name);
}

int
ks_conf_parse(struct ks_conf *c, const char *text, const char *what,
	      struct ks_buf *err)
{
	const char *line = text;
	int lineno = 0, rc = 0;

	while (*line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char *l = ks_xstrndup(line, len), *eq, *name, *value, *p;

		lineno++;
		if ((p = strchr(l, '#')))
			*p = '\0';
		name = l + strspn(l, " \t\r");
		if (*name) {
			eq = strchr(name, '=');
			if (!eq) {
				ks_error(err, "%s:%d: expected 'name = value'", what,
					 lineno);
				rc = -1;
			} else {
				*eq = '\0';
				value = eq + 1 + strspn(eq + 1, " \t");
				for (p = eq; p > name && strchr(" \t", p[-1]); p--)
					p[-1] = '\0';
				for (p = value + strlen(value);
				     p > value && strchr(" \t\r", p[-1]); p--)
					p[-1] = '\0';
				if (ks_conf_set(c, name, value, KS_ORIGIN_FILE, err)) {
					ks_error(err, "in %s:%d", what, lineno);
					rc = -1;
				}
			}
		}
		free(l);
		line += len + (nl ? 1 : 0);
	}
	return rc;
}

int
ks_conf_load(struct ks_conf *c, struct ks_buf *err)
{
	struct ks_buf text = KS_BUF_INIT, ferr = KS_BUF_INIT;
	const char *env_dir = getenv("KS_DIR"), *cfg = getenv("KS_CONFIG");
	int rc = 0;
	size_t i;

	free(c->config_path);
	if (cfg && *cfg)
		c->config_path = ks_xstrdup(cfg);
	else if (env_dir && *env_dir)
		c->config_path = ks_fs_join(env_dir, "ks.conf");
	else
		c->config_path = ks_fs_join(c->dir, "ks.conf");

	text.max = 1 << 20;
	if (ks_fs_read(c->config_path, &text, &ferr) == 0) {
		if (ks_conf_parse(c, text.buf, c->config_path, err))
			rc = -1;
	} else if ((cfg && *cfg) || (errno != ENOENT && errno != ENOTDIR)) {
		/* A file named explicitly must exist; the default one may not. */
		ks_error(err, "%s", ferr.buf);
		rc = -1;
	}
	for (i = 0; i < KS_CONF_NITEMS; i++) {
		const char *v = getenv(items[i].env);
		if (!v)
			continue;
		if (set_item(c, &items[i], v, KS_ORIGIN_ENV, err)) {
			ks_error(err, "from %s", items[i].env);
			rc = -1;
		}
	}
	ks_buf_release(&text);
	ks_buf_release(&ferr);
	return rc;
}

void
ks_conf_describe(const struct ks_conf *c, struct ks_buf *out)
{
	static const char *const origins[] = { "default", "config file",
					       "environment" };
	size_t i;

	for (i = 0; i < KS_CONF_NITEMS; i++) {
		const char *field = (const char *)c + items[i].offset;

		ks_buf_addf(out, "%-14s = ", items[i].name);
		if (i == KS_CONF_LLM_KEY && **(char *const *)field)
			ks_buf_adds(out, "(set, not shown)");
		else if (items[i].type == T_STR)
			ks_buf_adds(out, *(char *const *)field);
		else
			ks_buf_addf(out, "%d", *(const int *)field);
		ks_buf_addf(out, "  (%s%s%s)\n", origins[c->origin[i]],
			    c->origin[i] == KS_ORIGIN_ENV ? ": " : "",
			    c->origin[i] == KS_ORIGIN_ENV ? items[i].env : "");
	}
	ks_buf_addf(out, "config file    = %s%s\n", c->config_path ? c->config_path : "",
		    c->config_path && ks_fs_exists(c->config_path) ? "" : "  (absent)");
}

const char *
ks_conf_item_name(enum ks_conf_item i)
{
	return items[i].name;
}

const char *
ks_conf_item_env(enum ks_conf_item i)
{
	return items[i].env;
}

const char *
ks_conf_item_help(enum ks_conf_item i)
{
	return items[i].help;
}

const char *
ks_conf_path_setting(const struct ks_conf *c, enum ks_conf_item i)
{
	const char *v = *(char *const *)((const char *)c + items[i].offset);

	return c->origin[i] == KS_ORIGIN_DEFAULT ? NULL : v ? v : "";
}

char *
ks_conf_gpu_lock_for(const struct ks_conf *c, const char *visible)
{
	char *base = c->gpu_lock && *c->gpu_lock ? ks_xstrdup(c->gpu_lock)
						 : ks_fs_join(c->dir, "gpu");
	size_t n = visible ? strcspn(visible, ",") : 0, i;
	char *id, *path;

	while (n && (*visible == ' ' || *visible == '\t'))
		visible++, n--;
	while (n && (visible[n - 1] == ' ' || visible[n - 1] == '\t'))
		n--;
	/* GPU 0, the one a process that names none uses, keeps the bare
	 * path: a run without CUDA_VISIBLE_DEVICES and one with "0" share
	 * their GPU's lock. */
	if (!n || (n == 1 && visible[0] == '0'))
		return base;
	id = ks_xstrndup(visible, n);
	for (i = 0; id[i]; i++)
		if (!isalnum((unsigned char)id[i]) && id[i] != '-')
			id[i] = '_';
	path = ks_xasprintf("%s.%s", base, id);
	free(base);
	free(id);
	return path;
}

char *
ks_conf_gpu_lock(const struct ks_conf *c)
{
	return ks_conf_gpu_lock_for(c, getenv("CUDA_VISIBLE_DEVICES"));
}
