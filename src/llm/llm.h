/*
 * llm: the one user of libcurl. A chat client for any OpenAI-compatible
 * endpoint (vLLM, SGLang, Ollama, llama.cpp's server, hosted services:
 * POST <url>/chat/completions) and for the Anthropic messages API (POST
 * <url>/v1/messages), with a time limit per request, retries with
 * exponential backoff on 429 and 5xx, a token budget, and a response
 * cache keyed by the request (the same request is never paid twice, and
 * a resumed task replays its replies).
 *
 * The API key is sent in a header and nowhere else: never logged, never
 * in a transcript, never in the cache key's text or in an error message.
 *
 * What can be decided without the network is pure and unit-tested: the
 * request body, the reply's text and token counts, which statuses retry,
 * the backoff, and the code taken from a reply (one or several fenced
 * blocks, none, a block cut off by the token limit).
 *
 * Ownership: struct ks_llm copies its settings; ks_llm_close() frees
 * them. The caller owns every buffer.
 * May include: libc, core/, <curl/curl.h>, <cjson/cJSON.h>.
 */
#ifndef KS_LLM_LLM_H
#define KS_LLM_LLM_H

#include <stddef.h>

struct ks_buf;
struct ks_strv;

enum ks_llm_api {
	KS_LLM_OPENAI,		/* /chat/completions */
	KS_LLM_ANTHROPIC,	/* /v1/messages */
};

struct ks_llm_settings {
	const char *url;	/* the endpoint's base URL */
	const char *api;	/* "openai", "anthropic", or "" / NULL: from the URL */
	const char *model;
	const char *key;	/* or NULL / "" */
	int timeout_ms;		/* one request; 0: 120 s */
	int retries;		/* after the first attempt */
	long max_tokens;	/* of one reply; 0: 4096 */
	long budget;		/* tokens over the client's life; 0: none */
	const char *cache_dir;	/* replies by request hash, or NULL: none */
	int backoff_ms;		/* the first retry's wait; 0: 500 */
};

struct ks_llm {
	char *url;		/* the full endpoint */
	enum ks_llm_api api;
	char *model, *key, *cache_dir;
	int timeout_ms, retries, backoff_ms;
	long max_tokens, budget;
	long used;		/* tokens spent (cached replies cost none) */
	unsigned requests, cached, retried;
};

/* Check and copy the settings. */
int ks_llm_open(struct ks_llm *l, const struct ks_llm_settings *s, struct ks_buf *err);
void ks_llm_close(struct ks_llm *l);

const char *ks_llm_model(const struct ks_llm *l);

/*
 * One exchange: `system` and `user` in, the reply's text out. *tokens
 * gets what it cost (0 from the cache). Fails when the budget is spent,
 * after the retries, or on a reply that is not the API's JSON.
 */
int ks_llm_chat(struct ks_llm *l, const char *system, const char *user,
		struct ks_buf *reply, long *tokens, struct ks_buf *err);

/* ---- pure ------------------------------------------------------------------ */

/* "openai" / "anthropic" / "" -> the API (from the URL when empty). */
int ks_llm_api_of(const char *name, const char *url, enum ks_llm_api *out);

/* The endpoint for a base URL: <url>/chat/completions, <url>/v1/messages
 * (a URL that already ends so is kept). The caller frees it. */
char *ks_llm_endpoint(enum ks_llm_api api, const char *url);

/* The request body. */
void ks_llm_request(enum ks_llm_api api, const char *model, const char *system,
		    const char *user, long max_tokens, struct ks_buf *out);

/*
 * The reply's text and tokens (prompt + completion) from a response
 * body; *truncated (may be NULL) is set when the model stopped at the
 * token limit.
 */
int ks_llm_reply(enum ks_llm_api api, const char *body, struct ks_buf *text,
		 long *tokens, int *truncated, struct ks_buf *err);

/* Does an HTTP status deserve another attempt (429, 5xx)? */
int ks_llm_retryable(long status);

/* The wait before retry `attempt` (0-based): first * 2^attempt, at most
 * 30 s. */
long ks_llm_backoff(int first_ms, int attempt);

/*
 * The code of a reply: every fenced block (``` with or without a
 * language tag), in order, into `out`. A block cut off before its closing
 * fence is kept and *truncated set. A reply without fences gives none.
 * Returns how many.
 */
size_t ks_llm_code_blocks(const char *text, struct ks_strv *out, int *truncated);

/* The first JSON object in a reply (inside a fence or not), or NULL; the
 * caller frees it. */
char *ks_llm_json_object(const char *text);

#endif
