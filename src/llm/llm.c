/*
 * llm: requests built and replies read with cJSON, sent with libcurl's
 * easy interface, one request at a time.
 */
#include "llm.h"

#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/buf.h"
#include "../core/fs.h"
#include "../core/hash.h"
#include "../core/log.h"
#include "../core/strv.h"
#include "../core/util.h"

/* Replies larger than this are refused, not read into memory. */
#define LLM_MAX_BODY (16 << 20)

int
ks_llm_api_of(const char *name, const char *url, enum ks_llm_api *out)
{
	if (!name || !*name) {
		*out = url && strstr(url, "anthropic") ? KS_LLM_ANTHROPIC : KS_LLM_OPENAI;
		return 0;
	}
	if (!strcmp(name, "openai"))
		*out = KS_LLM_OPENAI;
	else if (!strcmp(name, "anthropic"))
		*out = KS_LLM_ANTHROPIC;
	else
		return -1;
	return 0;
}

char *
ks_llm_endpoint(enum ks_llm_api api, const char *url)
{
	size_t n = strlen(url);

	while (n && url[n - 1] == '/')
		n--;
	if (api == KS_LLM_OPENAI) {
		if (n >= 17 && !strncmp(url + n - 17, "/chat/completions", 17))
			return ks_xstrndup(url, n);
		return ks_xasprintf("%.*s/chat/completions", (int)n, url);
	}
	if (n >= 9 && !strncmp(url + n - 9, "/messages", 9))
		return ks_xstrndup(url, n);
	if (n >= 3 && !strncmp(url + n - 3, "/v1", 3))
		return ks_xasprintf("%.*s/messages", (int)n, url);
	return ks_xasprintf("%.*s/v1/messages", (int)n, url);
}

void
ks_llm_request(enum ks_llm_api api, const char *model, const char *system,
	       const char *user, long max_tokens, struct ks_buf *out)
{
	ks_buf_adds(out, "{\"model\": ");
	ks_buf_add_json_str(out, model ? model : "");
	ks_buf_addf(out, ", \"max_tokens\": %ld, \"temperature\": 0", max_tokens);
	if (api == KS_LLM_ANTHROPIC) {
		ks_buf_adds(out, ", \"system\": ");
		ks_buf_add_json_str(out, system ? system : "");
		ks_buf_adds(out, ", \"messages\": [{\"role\": \"user\", \"content\": ");
		ks_buf_add_json_str(out, user);
		ks_buf_adds(out, "}]}");
		return;
	}
	ks_buf_adds(out, ", \"messages\": [");
	if (system && *system) {
		ks_buf_adds(out, "{\"role\": \"system\", \"content\": ");
		ks_buf_add_json_str(out, system);
		ks_buf_adds(out, "}, ");
	}
	ks_buf_adds(out, "{\"role\": \"user\", \"content\": ");
	ks_buf_add_json_str(out, user);
	ks_buf_adds(out, "}]}");
}

static long
num(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(v) ? (long)v->valuedouble : 0;
}

int
ks_llm_reply(enum ks_llm_api api, const char *body, struct ks_buf *text,
	     long *tokens, int *truncated, struct ks_buf *err)
{
	cJSON *j = cJSON_Parse(body);
	const cJSON *usage, *e;
	const char *stop = NULL;
	int rc = -1;

	*tokens = 0;
	if (truncated)
		*truncated = 0;
	if (!cJSON_IsObject(j)) {
		ks_error(err, "the reply is not JSON");
		goto out;
	}
	e = cJSON_GetObjectItemCaseSensitive(j, "error");
	if (e && !cJSON_IsNull(e)) {
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(e, "message");

		ks_error(err, "the endpoint says: %s",
			 cJSON_IsString(m) ? m->valuestring :
			 cJSON_IsString(e) ? e->valuestring : "an error");
		goto out;
	}
	usage = cJSON_GetObjectItemCaseSensitive(j, "usage");
	if (api == KS_LLM_ANTHROPIC) {
		const cJSON *c, *parts = cJSON_GetObjectItemCaseSensitive(j, "content");
		int any = 0;

		cJSON_ArrayForEach(c, parts) {
			const cJSON *t = cJSON_GetObjectItemCaseSensitive(c, "text");

			if (cJSON_IsString(t)) {
				ks_buf_adds(text, t->valuestring);
				any = 1;
			}
		}
		if (!any) {
			ks_error(err, "the reply has no text content");
			goto out;
		}
		*tokens = num(usage, "input_tokens") + num(usage, "output_tokens");
		e = cJSON_GetObjectItemCaseSensitive(j, "stop_reason");
		stop = cJSON_IsString(e) ? e->valuestring : NULL;
		if (truncated)
			*truncated = stop && !strcmp(stop, "max_tokens");
	} else {
		const cJSON *ch = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "choices"), 0);
		const cJSON *msg = cJSON_GetObjectItemCaseSensitive(ch, "message");
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(msg, "content");

		if (!cJSON_IsString(c)) {
			ks_error(err, "the reply has no choices[0].message.content");
			goto out;
		}
		ks_buf_adds(text, c->valuestring);
		*tokens = num(usage, "total_tokens");
		if (!*tokens)
			*tokens = num(usage, "prompt_tokens") + num(usage, "completion_tokens");
		e = cJSON_GetObjectItemCaseSensitive(ch, "finish_reason");
		stop = cJSON_IsString(e) ? e->valuestring : NULL;
		if (truncated)
			*truncated = stop && !strcmp(stop, "length");
	}
	rc = 0;
out:
	cJSON_Delete(j);
	return rc;
}

int
ks_llm_retryable(long status)
{
	return status == 429 || (status >= 500 && status <= 599);
}

long
ks_llm_backoff(int first_ms, int attempt)
{
	long w = first_ms > 0 ? first_ms : 500;

	while (attempt-- > 0 && w < 30000)
		w *= 2;
	return w < 30000 ? w : 30000;
}

size_t
ks_llm_code_blocks(const char *text, struct ks_strv *out, int *truncated)
{
	const char *p = text;
	size_t n = 0;

	if (truncated)
		*truncated = 0;
	while ((p = strstr(p, "```"))) {
		const char *body = strchr(p + 3, '\n'), *end;

		if (!body) {
			/* A fence and nothing after it: cut off. */
			if (truncated)
				*truncated = 1;
			break;
		}
		body++;
		end = body;
		/* The closing fence opens a line. */
		for (;;) {
			end = strstr(end, "```");
			if (!end || end == body || end[-1] == '\n')
				break;
			end += 3;
		}
		if (!end) {
			if (truncated)
				*truncated = 1;
			ks_strv_push(out, body);
			n++;
			break;
		}
		ks_strv_push_owned(out, ks_xstrndup(body, (size_t)(end - body)));
		n++;
		p = strchr(end + 3, '\n');
		if (!p)
			break;
	}
	return n;
}

char *
ks_llm_json_object(const char *text)
{
	const char *p;

	for (p = strchr(text, '{'); p; p = strchr(p + 1, '{')) {
		const char *end = NULL;
		cJSON *j = cJSON_ParseWithOpts(p, &end, 0);

		if (cJSON_IsObject(j)) {
			cJSON_Delete(j);
			return ks_xstrndup(p, (size_t)(end - p));
		}
		cJSON_Delete(j);
	}
	return NULL;
}

/* ---- the client ------------------------------------------------------------ */

int
ks_llm_open(struct ks_llm *l, const struct ks_llm_settings *s, struct ks_buf *err)
{
	memset(l, 0, sizeof(*l));
	if (!s->url || !*s->url)
		return ks_error(err, "no LLM endpoint (KS_LLM_URL or --llm URL)");
	if (strncmp(s->url, "http://", 7) && strncmp(s->url, "https://", 8))
		return ks_error(err, "the LLM endpoint '%s' is no http(s) URL", s->url);
	if (ks_llm_api_of(s->api, s->url, &l->api))
		return ks_error(err, "unknown LLM API '%s' (openai, anthropic)", s->api);
	l->url = ks_llm_endpoint(l->api, s->url);
	l->model = ks_xstrdup(s->model && *s->model ? s->model : "default");
	l->key = s->key && *s->key ? ks_xstrdup(s->key) : NULL;
	l->cache_dir = s->cache_dir ? ks_xstrdup(s->cache_dir) : NULL;
	l->timeout_ms = s->timeout_ms > 0 ? s->timeout_ms : 120000;
	l->retries = s->retries;
	l->backoff_ms = s->backoff_ms > 0 ? s->backoff_ms : 500;
	l->max_tokens = s->max_tokens > 0 ? s->max_tokens : 4096;
	l->budget = s->budget;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	return 0;
}

void
ks_llm_close(struct ks_llm *l)
{
	free(l->url);
	free(l->model);
	if (l->key) {
		memset(l->key, 0, strlen(l->key));
		free(l->key);
	}
	free(l->cache_dir);
	memset(l, 0, sizeof(*l));
}

const char *
ks_llm_model(const struct ks_llm *l)
{
	return l->model;
}

static size_t
on_body(char *data, size_t size, size_t n, void *ctx)
{
	struct ks_buf *b = ctx;

	return ks_buf_add(b, data, size * n) ? 0 : size * n;
}

static void
sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts))
		;
}

/* One POST: the status and body, or -1 when nothing came back. */
static int
post(const struct ks_llm *l, const struct ks_buf *req, long *status,
     struct ks_buf *body, struct ks_buf *err)
{
	struct curl_slist *h = NULL;
	CURL *c = curl_easy_init();
	char *auth = NULL;
	CURLcode rc;

	if (!c)
		return ks_error(err, "cannot start an HTTP request");
	h = curl_slist_append(h, "Content-Type: application/json");
	if (l->api == KS_LLM_ANTHROPIC) {
		h = curl_slist_append(h, "anthropic-version: 2023-06-01");
		if (l->key)
			auth = ks_xasprintf("x-api-key: %s", l->key);
	} else if (l->key) {
		auth = ks_xasprintf("Authorization: Bearer %s", l->key);
	}
	if (auth)
		h = curl_slist_append(h, auth);
	curl_easy_setopt(c, CURLOPT_URL, l->url);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, req->buf);
	curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)req->len);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, body);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)l->timeout_ms);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)(l->timeout_ms < 10000 ?
							     l->timeout_ms : 10000));
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_NOPROXY, "localhost,127.0.0.1");
	rc = curl_easy_perform(c);
	*status = 0;
	if (rc == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	if (auth) {
		memset(auth, 0, strlen(auth));
		free(auth);
	}
	/* The message names the endpoint, never the headers. */
	if (rc != CURLE_OK)
		return ks_error(err, "%s: %s", l->url, curl_easy_strerror(rc));
	return 0;
}

static char *
cache_path(const struct ks_llm *l, const struct ks_buf *req)
{
	struct ks_hash h;
	char hex[33];

	if (!l->cache_dir)
		return NULL;
	ks_hash_init(&h);
	ks_hash_str(&h, l->url);
	ks_hash_bytes(&h, req->buf, req->len);
	ks_hash_hex128(&h, hex);
	ks_hash_release(&h);
	return ks_xasprintf("%s/%s.json", l->cache_dir, hex);
}

int
ks_llm_chat(struct ks_llm *l, const char *system, const char *user,
	    struct ks_buf *reply, long *tokens, struct ks_buf *err)
{
	struct ks_buf req = KS_BUF_INIT, body = KS_BUF_INIT, e = KS_BUF_INIT;
	char *cpath;
	long status = 0;
	int attempt, rc = -1;

	*tokens = 0;
	if (l->budget > 0 && l->used >= l->budget)
		return ks_error(err, "the LLM token budget (%ld) is spent", l->budget);
	ks_llm_request(l->api, l->model, system, user, l->max_tokens, &req);
	cpath = cache_path(l, &req);
	body.max = LLM_MAX_BODY;
	if (cpath && ks_fs_exists(cpath) && !ks_fs_read(cpath, &body, NULL) &&
	    !ks_llm_reply(l->api, body.buf, reply, tokens, NULL, &e)) {
		ks_log("llm: reply from the cache (%s)", cpath);
		l->cached++;
		*tokens = 0;
		rc = 0;
		goto out;
	}
	for (attempt = 0; attempt <= l->retries; attempt++) {
		ks_buf_reset(&body);
		ks_buf_reset(&e);
		if (attempt) {
			l->retried++;
			sleep_ms(ks_llm_backoff(l->backoff_ms, attempt - 1));
		}
		l->requests++;
		if (post(l, &req, &status, &body, &e)) {
			ks_log("llm: attempt %d: %s", attempt + 1, e.buf);
			continue;	/* a timeout or a refused connection */
		}
		ks_log("llm: attempt %d: HTTP %ld, %zu bytes", attempt + 1, status, body.len);
		if (ks_llm_retryable(status)) {
			ks_error(&e, "%s: HTTP %ld", l->url, status);
			continue;
		}
		if (status != 200) {
			ks_error(err, "%s: HTTP %ld", l->url, status);
			goto out;
		}
		ks_buf_reset(reply);
		if (ks_llm_reply(l->api, body.buf, reply, tokens, NULL, err))
			goto out;
		l->used += *tokens;
		if (cpath && !ks_fs_mkdirs(l->cache_dir, NULL))
			ks_fs_write_atomic(cpath, body.buf, body.len, NULL);
		rc = 0;
		goto out;
	}
	ks_error(err, "no reply after %d attempts: %s", l->retries + 1, e.buf);
out:
	free(cpath);
	ks_buf_release(&req);
	ks_buf_release(&body);
	ks_buf_release(&e);
	return rc;
}
