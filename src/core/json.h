/*
 * json: the one set of cJSON getters for the programs that link cJSON (ks,
 * ks-replay, libks-capture.so). Header-only, so that core/ stays libc-only
 * for ks-nvcc, which never includes it.
 * May include: libc, util.h, <cjson/cJSON.h>.
 */
#ifndef KS_CORE_JSON_H
#define KS_CORE_JSON_H

#include <cjson/cJSON.h>

#include "util.h"

/* o[key] when it is a string, else NULL. */
static inline const char *
ks_json_str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A copy of o[key] when it is a string, else NULL. */
static inline char *
ks_json_dup(const cJSON *o, const char *key)
{
	const char *s = ks_json_str(o, key);

	return s ? ks_xstrdup(s) : NULL;
}

/* o[key] when it is a number, else 0. */
static inline double
ks_json_num(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

/* o[key] when it is true, else 0. */
static inline int
ks_json_true(const cJSON *o, const char *key)
{
	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, key));
}

#endif
