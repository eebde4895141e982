/*
 * Unit tests of src/llm (the pure parts, then the client against the fake
 * server tests/fake/llm-server.py: retries on 429 and 500, a slow reply,
 * malformed JSON, the response cache, the token budget, the key) and of
 * the loop with an LLM planner (src/agents/llm_agents.c). Without python3
 * the server tests say why and skip.
 */
#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../src/agents/agents.h"
#include "../../src/agents/llm_agents.h"
#include "../../src/analysis/inventory.h"
#include "../../src/analysis/libclang.h"
#include "../../src/capture/capture.h"
#include "../../src/cli/ks.h"
#include "../../src/core/conf.h"
#include "../../src/core/buf.h"
#include "../../src/core/fs.h"
#include "../../src/core/strv.h"
#include "../../src/core/util.h"
#include "../../src/llm/llm.h"
#include "../../src/transforms/transform.h"
#include "test.h"

void ks_suite_llm(void);

#define SERVER "tests/fake/llm-server.py"

TEST(endpoints_and_requests)
{
	struct ks_buf b = KS_BUF_INIT;
	enum ks_llm_api api;
	char *e;

	e = ks_llm_endpoint(KS_LLM_OPENAI, "http://h:8000/v1/");
	CHECK_STR_EQ("http://h:8000/v1/chat/completions", e);
	free(e);
	e = ks_llm_endpoint(KS_LLM_OPENAI, "http://h/v1/chat/completions");
	CHECK_STR_EQ("http://h/v1/chat/completions", e);
	free(e);
	e = ks_llm_endpoint(KS_LLM_ANTHROPIC, "https://api.anthropic.com");
	CHECK_STR_EQ("https://api.anthropic.com/v1/messages", e);
	free(e);
	CHECK(ks_llm_api_of("", "https://api.anthropic.com", &api) == 0 &&
	      api == KS_LLM_ANTHROPIC);
	CHECK(ks_llm_api_of(NULL, "http://localhost:11434/v1", &api) == 0 &&
	      api == KS_LLM_OPENAI);
	CHECK(ks_llm_api_of("gemini", "x", &api) == -1);
	ks_llm_request(KS_LLM_OPENAI, "m", "sys", "a \"q\"", 100, &b);
	CHECK(strstr(b.buf, "\"role\": \"system\", \"content\": \"sys\"") != NULL);
	CHECK(strstr(b.buf, "\"content\": \"a \\\"q\\\"\"") != NULL);
	ks_buf_reset(&b);
	ks_llm_request(KS_LLM_ANTHROPIC, "m", "sys", "q", 100, &b);
	CHECK(strstr(b.buf, "\"system\": \"sys\"") != NULL);
	CHECK(strstr(b.buf, "\"role\": \"system\"") == NULL);
	ks_buf_release(&b);
}

TEST(replies_read)
{
	struct ks_buf t = KS_BUF_INIT, err = KS_BUF_INIT;
	long tok;
	int trunc;

	CHECK(ks_llm_reply(KS_LLM_OPENAI,
			   "{\"choices\": [{\"message\": {\"content\": \"hi\"}, "
			   "\"finish_reason\": \"length\"}], \"usage\": {\"total_tokens\": 7}}",
			   &t, &tok, &trunc, &err) == 0);
	CHECK_STR_EQ("hi", t.buf);
	CHECK_INT_EQ(7, tok);
	CHECK_INT_EQ(1, trunc);
	ks_buf_reset(&t);
	CHECK(ks_llm_reply(KS_LLM_ANTHROPIC,
			   "{\"content\": [{\"type\": \"text\", \"text\": \"a\"}, "
			   "{\"type\": \"text\", \"text\": \"b\"}], \"stop_reason\": \"end_turn\", "
			   "\"usage\": {\"input_tokens\": 3, \"output_tokens\": 4}}",
			   &t, &tok, &trunc, &err) == 0);
	CHECK_STR_EQ("ab", t.buf);
	CHECK_INT_EQ(7, tok);
	CHECK_INT_EQ(0, trunc);
	CHECK(ks_llm_reply(KS_LLM_OPENAI, "{\"choices\": [", &t, &tok, NULL, &err) == -1);
	CHECK(strstr(err.buf, "not JSON") != NULL);
	ks_buf_reset(&err);
	CHECK(ks_llm_reply(KS_LLM_OPENAI, "{\"error\": {\"message\": \"bad model\"}}", &t,
			   &tok, NULL, &err) == -1);
	CHECK(strstr(err.buf, "bad model") != NULL);
	CHECK(ks_llm_retryable(429) && ks_llm_retryable(503) && !ks_llm_retryable(400) &&
	      !ks_llm_retryable(200));
	CHECK_INT_EQ(500, ks_llm_backoff(500, 0));
	CHECK_INT_EQ(2000, ks_llm_backoff(500, 2));
	CHECK_INT_EQ(30000, ks_llm_backoff(500, 20));
	ks_buf_release(&t);
	ks_buf_release(&err);
}

TEST(code_blocks)
{
	struct ks_strv v = KS_STRV_INIT;
	int trunc;
	char *j;

	CHECK_INT_EQ(2, (int)ks_llm_code_blocks("text\n```cuda\nint a;\n```\nmore\n```\nint b;\n```\n",
						&v, &trunc));
	CHECK_STR_EQ("int a;\n", v.v[0]);
	CHECK_STR_EQ("int b;\n", v.v[1]);
	CHECK_INT_EQ(0, trunc);
	ks_strv_release(&v);
	ks_strv_init(&v);
	CHECK_INT_EQ(0, (int)ks_llm_code_blocks("no code here", &v, &trunc));
	ks_strv_release(&v);
	ks_strv_init(&v);
	/* cut off by the token limit: kept, and said so */
	CHECK_INT_EQ(1, (int)ks_llm_code_blocks("```cpp\n__global__ void k() {\n  x = ",
						&v, &trunc));
	CHECK_INT_EQ(1, trunc);
	CHECK_STR_EQ("__global__ void k() {\n  x = ", v.v[0]);
	ks_strv_release(&v);
	ks_strv_init(&v);
	/* a fence inside a line is not a closing fence */
	CHECK_INT_EQ(1, (int)ks_llm_code_blocks("```\na ``` b\n```\n", &v, &trunc));
	CHECK_STR_EQ("a ``` b\n", v.v[0]);
	ks_strv_release(&v);
	j = ks_llm_json_object("Sure! ```json\n{\"skill\": \"x\", \"n\": {\"a\": 1}}\n``` ok");
	CHECK_STR_EQ("{\"skill\": \"x\", \"n\": {\"a\": 1}}", j);
	free(j);
	CHECK(ks_llm_json_object("{not json") == NULL);
}

TEST(planner_pick_must_be_allowed)
{
	struct ks_agent_skill s[2] = { { (char *)"a", NULL, NULL, NULL, NULL },
				       { (char *)"b", NULL, NULL, NULL, NULL } };
	struct ks_agent_plan p = { s, 2 };
	char *why;

	CHECK_INT_EQ(1, ks_agent_llm_pick(&p, "{\"skill\": \"b\", \"plan\": \"dram 90%\"}", &why));
	CHECK_STR_EQ("dram 90%", why);
	free(why);
	CHECK_INT_EQ(-1, ks_agent_llm_pick(&p, "{\"skill\": \"made_up\"}", &why));
	CHECK_NULL(why);
	CHECK_INT_EQ(-1, ks_agent_llm_pick(&p, "I would vectorize.", &why));
}

/* ---- against the fake server ------------------------------------------------ */

struct server {
	pid_t pid;
	char *url, *log;
};

static int
server_start(struct server *s, const char *script_json)
{
	const char *dir = test_tmpdir();
	char *script = ks_xasprintf("%s/script.json", dir);
	char *portf = ks_xasprintf("%s/port", dir);
	struct ks_buf port = KS_BUF_INIT;
	int i;

	memset(s, 0, sizeof(s[0]));
	s->log = ks_xasprintf("%s/requests.jsonl", dir);
	/* a server before this one in the same test left its own */
	remove(portf);
	remove(s->log);
	test_write(dir, "script.json", script_json);
	s->pid = fork();
	if (s->pid == 0) {
		execlp("python3", "python3", SERVER, script, portf, s->log, (char *)NULL);
		_exit(127);
	}
	for (i = 0; i < 100 && !ks_fs_exists(portf); i++) {
		struct timespec ts = { 0, 50000000 };

		nanosleep(&ts, NULL);
	}
	if (s->pid > 0 && ks_fs_exists(portf) && !ks_fs_read(portf, &port, NULL))
		s->url = ks_xasprintf("http://127.0.0.1:%s/v1", port.buf);
	ks_buf_release(&port);
	free(script);
	free(portf);
	return s->url ? 0 : -1;
}

static void
server_stop(struct server *s)
{
	if (s->pid > 0) {
		kill(s->pid, SIGTERM);
		waitpid(s->pid, NULL, 0);
	}
	free(s->url);
	free(s->log);
}

static int
have_python(void)
{
	return system("python3 -c 'import http.server' >/dev/null 2>&1") == 0 &&
	       ks_fs_exists(SERVER);
}

static void
open_client(struct ks_llm *l, const char *url, int retries, int timeout_ms,
	    const char *cache, long budget)
{
	struct ks_llm_settings s;
	struct ks_buf err = KS_BUF_INIT;

	memset(&s, 0, sizeof(s));
	s.url = url;
	s.model = "test-model";
	s.key = "sk-secret-123";
	s.retries = retries;
	s.timeout_ms = timeout_ms;
	s.backoff_ms = 10;
	s.cache_dir = cache;
	s.budget = budget;
	ks_llm_open(l, &s, &err);
	ks_buf_release(&err);
}

TEST(client_retries_429_and_500_then_answers)
{
	struct server s;
	struct ks_llm l;
	struct ks_buf reply = KS_BUF_INIT, err = KS_BUF_INIT, log = KS_BUF_INIT;
	long tok;

	if (!have_python())
		SKIP("no python3 for the fake LLM server");
	CHECK(server_start(&s, "[{\"status\": 429, \"raw\": \"slow down\"}, "
			       "{\"status\": 500, \"raw\": \"oops\"}, "
			       "{\"status\": 200, \"text\": \"fine\", \"tokens\": 12}]") == 0);
	open_client(&l, s.url, 3, 5000, NULL, 0);
	CHECK(ks_llm_chat(&l, "sys", "hello", &reply, &tok, &err) == 0);
	CHECK_STR_EQ("fine", reply.buf);
	CHECK_INT_EQ(12, tok);
	CHECK_INT_EQ(3, (int)l.requests);
	CHECK_INT_EQ(2, (int)l.retried);
	CHECK(ks_fs_read(s.log, &log, &err) == 0);
	CHECK(strstr(log.buf, "\"authorization\": true") != NULL);
	CHECK(strstr(log.buf, "sk-secret-123") == NULL);	/* not in the body */
	ks_llm_close(&l);
	server_stop(&s);
	ks_buf_release(&reply);
	ks_buf_release(&err);
	ks_buf_release(&log);
}

TEST(client_gives_up_after_the_retries)
{
	struct server s;
	struct ks_llm l;
	struct ks_buf reply = KS_BUF_INIT, err = KS_BUF_INIT;
	long tok;

	if (!have_python())
		SKIP("no python3 for the fake LLM server");
	CHECK(server_start(&s, "[{\"status\": 500, \"raw\": \"down\"}]") == 0);
	open_client(&l, s.url, 2, 5000, NULL, 0);
	CHECK(ks_llm_chat(&l, NULL, "q", &reply, &tok, &err) == -1);
	CHECK(strstr(err.buf, "no reply after 3 attempts") != NULL);
	CHECK(strstr(err.buf, "HTTP 500") != NULL);
	CHECK(strstr(err.buf, "sk-secret") == NULL);
	CHECK_INT_EQ(3, (int)l.requests);
	ks_llm_close(&l);
	server_stop(&s);
	ks_buf_release(&reply);
	ks_buf_release(&err);
}

TEST(client_times_out_on_a_slow_reply)
{
	struct server s;
	struct ks_llm l;
	struct ks_buf reply = KS_BUF_INIT, err = KS_BUF_INIT;
	long tok;

	if (!have_python())
		SKIP("no python3 for the fake LLM server");
	CHECK(server_start(&s, "[{\"status\": 200, \"text\": \"late\", \"delay\": 2}]") == 0);
	open_client(&l, s.url, 0, 300, NULL, 0);
	CHECK(ks_llm_chat(&l, NULL, "q", &reply, &tok, &err) == -1);
	CHECK(strstr(err.buf, "no reply after 1 attempts") != NULL);
	ks_llm_close(&l);
	server_stop(&s);
	ks_buf_release(&reply);
	ks_buf_release(&err);
}

TEST(client_refuses_malformed_json_and_caches_good_replies)
{
	struct server s;
	struct ks_llm l;
	struct ks_buf reply = KS_BUF_INIT, err = KS_BUF_INIT;
	char *cache = ks_xasprintf("%s/cache", test_tmpdir());
	long tok;

	if (!have_python())
		SKIP("no python3 for the fake LLM server");
	CHECK(server_start(&s, "[{\"status\": 200, \"raw\": \"{\\\"choices\\\": [\"}, "
			       "{\"status\": 200, \"text\": \"ok\", \"tokens\": 40}]") == 0);
	open_client(&l, s.url, 0, 5000, cache, 50);
	CHECK(ks_llm_chat(&l, NULL, "q", &reply, &tok, &err) == -1);
	CHECK(strstr(err.buf, "not JSON") != NULL);
	ks_buf_reset(&err);
	ks_buf_reset(&reply);
	CHECK(ks_llm_chat(&l, NULL, "q", &reply, &tok, &err) == 0);
	CHECK_STR_EQ("ok", reply.buf);
	CHECK_INT_EQ(40, l.used);
	/* the same request again: from the cache, no request, no tokens */
	ks_buf_reset(&reply);
	CHECK(ks_llm_chat(&l, NULL, "q", &reply, &tok, &err) == 0);
	CHECK_STR_EQ("ok", reply.buf);
	CHECK_INT_EQ(0, tok);
	CHECK_INT_EQ(2, (int)l.requests);
	CHECK_INT_EQ(1, (int)l.cached);
	/* another request would pass the budget of 50 after the 40 spent */
	l.used = 50;
	CHECK(ks_llm_chat(&l, NULL, "other", &reply, &tok, &err) == -1);
	CHECK(strstr(err.buf, "budget") != NULL);
	CHECK_INT_EQ(2, (int)l.requests);
	ks_llm_close(&l);
	server_stop(&s);
	ks_buf_release(&reply);
	ks_buf_release(&err);
	free(cache);
}

/* ---- the loop with an LLM planner ------------------------------------------- */

static enum ks_xf_result
xf_emit(const struct ks_xf_input *in, const struct ks_xf_point *p, struct ks_buf *v,
	struct ks_buf *r)
{
	(void)in, (void)r;
	ks_buf_addf(v, "// ks-nvcc: definition\n__global__ void k() { /* %lld */ }\n", p->v[0]);
	return KS_XF_APPLIED;
}

static const struct ks_transform xf_one = {
	.id = "one", .summary = "", .precondition = "", .nparams = 1,
	.params = { { "p", "", 1, 4, { 1, 2, 3, 4 } } }, .apply = xf_emit,
};
static const struct ks_transform xf_two = {
	.id = "two", .summary = "", .precondition = "", .nparams = 1,
	.params = { { "q", "", 10, 4, { 10, 20, 30, 40 } } }, .apply = xf_emit,
};

static const struct ks_transform *
find_xf(void *ctx, const char *id)
{
	(void)ctx;
	return !strcmp(id, "one") ? &xf_one : !strcmp(id, "two") ? &xf_two : NULL;
}

static int
splice_copy(void *ctx, const struct ks_task *t, const char *variant, const char *vname,
	    struct ks_buf *tu, struct ks_buf *err)
{
	(void)ctx, (void)t, (void)vname, (void)err;
	return ks_buf_adds(tu, variant);
}

static int
plan_two(void *ctx, const struct ks_task *t, size_t n, char *const *names,
	 const double *values, struct ks_agent_plan *out, struct ks_buf *err)
{
	(void)ctx, (void)t, (void)n, (void)names, (void)values, (void)err;
	out->v = ks_xcalloc(2, sizeof(*out->v));
	out->v[0].id = ks_xstrdup("one");
	out->v[1].id = ks_xstrdup("two");
	out->n = 2;
	return 0;
}

static int
review_same(void *ctx, const struct ks_task *t, const char *candidate,
	    struct ks_agent_review *o, struct ks_buf *err)
{
	(void)ctx, (void)t, (void)err;
	memset(o, 0, sizeof(*o));
	o->verdict = ks_xstrdup(candidate ? "correct" : "eligible");
	o->compiled = 1;
	o->orig.have = o->cand.have = 1;
	o->orig.median = o->cand.median = 1;
	o->orig.lo = o->cand.lo = 0.99;
	o->orig.hi = o->cand.hi = 1.01;
	o->gpu_ms = 10;
	return 0;
}

TEST(loop_follows_the_llm_planner_within_its_tokens)
{
	struct server s;
	struct ks_llm l;
	struct ks_task t;
	struct ks_buf err = KS_BUF_INIT;
	static const char *const caps[] = { "c/1" };
	static char kname[] = "k";
	static struct ks_kernel kernel = { .name = kname };
	char *dir = ks_xasprintf("%s/task", test_tmpdir());
	struct ks_buf log = KS_BUF_INIT;
	size_t i, requests = 0;

	if (!have_python())
		SKIP("no python3 for the fake LLM server");
	/* the planner picks "two", the policy's second, with a plan; the
	 * same reply to the Optimizer is no candidate */
	CHECK(server_start(&s, "[{\"status\": 200, \"tokens\": 30, \"text\": "
			       "\"```json\\n{\\\"skill\\\": \\\"two\\\", \\\"plan\\\": "
			       "\\\"dram at 20%: widen loads\\\"}\\n```\"}]") == 0);
	open_client(&l, s.url, 0, 5000, NULL, 0);
	ks_task_init(&t);
	t.id = "k";
	t.dir = dir;
	t.kernel = "_Z1kv";
	t.captures = caps;
	t.ncaptures = 1;
	t.text = "__global__ void k() {}\n";
	t.len = strlen(t.text);
	t.k = &kernel;
	t.arch = 900;
	t.rounds = 15;
	t.tokens = 50;	/* the Optimizer's 30 after the plan's pass it */
	t.long_term = 0;
	t.llm = &l;
	t.ops.review = review_same;
	t.ops.transform = find_xf;
	t.ops.splice = splice_copy;
	t.ops.plan = plan_two;
	CHECK(ks_agents_run(&t, &err) == 0);
	CHECK_STR_EQ("two", t.traj.v[1].skill);
	CHECK(strstr(t.traj.v[1].why, "dram at 20%") != NULL);
	CHECK_INT_EQ(30, t.traj.v[1].tokens);
	CHECK_STR_EQ("test-model", t.traj.v[1].model);
	/* no gain, so no re-plan; after two's points the Optimizer asks for
	 * an edit of two (no code in the reply: declined, its tokens in its
	 * record), and with the budget spent nothing more is asked: one's
	 * points go on rules-only to the end of its space */
	CHECK_INT_EQ(KS_TASK_NO_SKILL, t.end);
	CHECK_INT_EQ(60, t.state.tokens);
	for (i = 0; i < t.traj.n && !(t.traj.v[i].plan && t.traj.v[i].skill); i++)
		;
	CHECK(i < t.traj.n);
	CHECK_STR_EQ("two", t.traj.v[i].skill);
	CHECK_STR_EQ("declined", t.traj.v[i].verdict);
	CHECK(strstr(t.traj.v[i].reason, "no code block") != NULL);
	CHECK_INT_EQ(30, t.traj.v[i].tokens);
	CHECK_STR_EQ("one", t.traj.v[t.traj.n - 1].skill);
	CHECK(t.traj.v[t.traj.n - 1].params != NULL);
	CHECK(ks_fs_read(s.log, &log, &err) == 0);
	for (i = 0; i < log.len; i++)
		requests += log.buf[i] == '\n';
	CHECK_INT_EQ(2, (int)requests);
	ks_buf_release(&log);
	/* the exchange is in the task's transcript */
	{
		char *path = ks_fs_join(dir, "llm.jsonl");
		struct ks_buf text = KS_BUF_INIT;

		CHECK(ks_fs_read(path, &text, &err) == 0);
		CHECK(strstr(text.buf, "\"agent\": \"planner\"") != NULL);
		CHECK(strstr(text.buf, "widen loads") != NULL);
		CHECK(strstr(text.buf, "\"tokens\": 30") != NULL);
		CHECK(strstr(text.buf, "Allowed skills") != NULL);
		ks_buf_release(&text);
		free(path);
	}
	ks_task_release(&t);
	ks_llm_close(&l);
	server_stop(&s);
	ks_buf_release(&err);
	free(dir);
}

/* ---- the LLM Optimizer and Repairer ---------------------------------------- */

/*
 * The fake Reviewer of these tests reads markers in the candidate:
 *   LLM_NOCOMPILE  does not compile (an nvcc error in the log)
 *   LLM_WRONG      rejected: outputs differ
 *   LLM_FAST       correct, 6 ms against the original's 10
 *   LLM_FIXED      correct, 7 ms
 *   a builtin's    correct: point 1 at 9 ms, the others at 9.5 ms
 */
struct markers {
	int calls;		/* reviews, the seed's included */
	int seen_twice;		/* a candidate text reviewed twice */
	struct ks_buf reviewed;
};

static void
timed_at(struct ks_agent_review *o, double cand)
{
	o->orig.have = o->cand.have = 1;
	o->orig.median = 10;
	o->orig.lo = 9.9;
	o->orig.hi = 10.1;
	o->cand.median = cand;
	o->cand.lo = cand * 0.99;
	o->cand.hi = cand * 1.01;
}

static int
review_markers(void *ctx, const struct ks_task *t, const char *candidate,
	       struct ks_agent_review *o, struct ks_buf *err)
{
	struct markers *m = ctx;
	struct ks_buf text = KS_BUF_INIT;
	char *body;

	(void)t;
	memset(o, 0, sizeof(*o));
	m->calls++;
	o->compiled = 1;
	o->gpu_ms = 100;
	if (!candidate) {
		o->verdict = ks_xstrdup("eligible");
		timed_at(o, 10);
		return 0;
	}
	if (ks_fs_read(candidate, &text, err))
		return -1;
	/* the text after the variant's header line */
	body = strchr(text.buf, '\n');
	body = body ? body + 1 : text.buf;
	if (m->reviewed.len && strstr(m->reviewed.buf, body))
		m->seen_twice = 1;
	ks_buf_addf(&m->reviewed, "%s\n@@\n", body);
	o->verdict = ks_xstrdup("correct");
	if (strstr(text.buf, "LLM_NOCOMPILE")) {
		free(o->verdict);
		o->verdict = ks_xstrdup("rejected");
		o->stage = ks_xstrdup("compile");
		o->compiled = 0;
		o->why = ks_xstrdup("it does not compile: nvcc failed");
		o->log = ks_xstrdup("r1.variant.cu(4): error: identifier \"tmp\" is undefined\n"
				    "1 error detected\n");
	} else if (strstr(text.buf, "LLM_WRONG")) {
		free(o->verdict);
		o->verdict = ks_xstrdup("rejected");
		o->stage = ks_xstrdup("candidate");
		o->why = ks_xstrdup("3 of 10 f32 elements differ from the reference");
	} else if (strstr(text.buf, "LLM_FAST")) {
		timed_at(o, 6);
	} else if (strstr(text.buf, "LLM_FIXED")) {
		timed_at(o, 7);
	} else {
		timed_at(o, strstr(text.buf, "/* 1 */") ? 9 : 9.5);
	}
	ks_buf_release(&text);
	return 0;
}

static const char *plan_skills[4];

/* The policy's plan: plan_skills, in order ("one" has a builtin
 * transform; "ilp", "mlp" have none). */
static int
plan_listed(void *ctx, const struct ks_task *t, size_t n, char *const *names,
	    const double *values, struct ks_agent_plan *out, struct ks_buf *err)
{
	size_t i;

	(void)ctx, (void)t, (void)n, (void)names, (void)values, (void)err;
	for (i = 0; plan_skills[i]; i++) {
		out->v = ks_xrealloc(out->v, (out->n + 1) * sizeof(*out->v));
		memset(&out->v[out->n], 0, sizeof(*out->v));
		out->v[out->n].id = ks_xstrdup(plan_skills[i]);
		out->v[out->n].why = ks_xstrdup("f.test (1)");
		out->n++;
	}
	return 0;
}

static char kernel_k[] = "k";
static struct ks_kernel kernel_named = { .name = kernel_k };

static void
llm_task(struct ks_task *t, struct markers *m, const char *dir, struct ks_llm *l)
{
	static const char *const caps[] = { "c/1" };

	memset(m, 0, sizeof(*m));
	m->reviewed = (struct ks_buf)KS_BUF_INIT;
	ks_task_init(t);
	t->id = "k";
	t->dir = dir;
	t->kernel = "_Z1kPf";
	t->captures = caps;
	t->ncaptures = 1;
	t->text = "__global__ void k(float *a)\n{\n\ta[0] = 1;\n}\n";
	t->len = strlen(t->text);
	t->k = &kernel_named;
	t->arch = 900;
	t->rounds = 15;
	t->long_term = 0;
	t->llm = l;
	t->ops.ctx = m;
	t->ops.review = review_markers;
	t->ops.transform = find_xf;
	t->ops.splice = splice_copy;
	t->ops.plan = plan_listed;
}

/* One scripted reply answering requests that contain `match`. */
static void
scripted(struct ks_buf *s, const char *match, int times, long tokens, double delay,
	 const char *text)
{
	ks_buf_adds(s, s->len ? ", {" : "[{");
	ks_buf_adds(s, "\"match\": ");
	ks_buf_add_json_str(s, match);
	if (times)
		ks_buf_addf(s, ", \"times\": %d", times);
	ks_buf_addf(s, ", \"tokens\": %ld, \"delay\": %g, \"text\": ", tokens, delay);
	ks_buf_add_json_str(s, text);
	ks_buf_adds(s, "}");
}

#define EDIT(body)                                                            \
	"Section A: the steps.\n\nSection B:\n```cuda\n__global__ void k(float *a)\n{\n" \
	body "\n}\n```\n"

static int
count_lines(const char *path)
{
	struct ks_buf b = KS_BUF_INIT;
	int n = 0;
	size_t i;

	if (!ks_fs_read(path, &b, NULL))
		for (i = 0; i < b.len; i++)
			n += b.buf[i] == '\n';
	ks_buf_release(&b);
	return n;
}

TEST(llm_repairs_an_edit_that_does_not_compile)
{
	struct server s;
	struct ks_llm l;
	struct ks_task t;
	struct markers m;
	struct ks_buf script = KS_BUF_INIT, err = KS_BUF_INIT, tr = KS_BUF_INIT;
	char *dir = ks_xasprintf("%s/task", test_tmpdir()), *path;
	const struct ks_traj_round *r1, *r2;

	if (!have_python())
		SKIP("no python3 for the fake LLM server");
	scripted(&script, "optimizer of ks-nvcc", 1, 40, 0, EDIT("\ta[0] = tmp; /* LLM_NOCOMPILE */"));
	scripted(&script, "repairer of ks-nvcc", 1, 50, 0,
		 EDIT("\tfloat tmp = 2;\n\ta[0] = tmp; /* LLM_FIXED */") "Declared tmp.\n");
	ks_buf_adds(&script, "]");
	CHECK(server_start(&s, script.buf) == 0);
	open_client(&l, s.url, 0, 5000, NULL, 0);
	plan_skills[0] = "ilp";
	plan_skills[1] = NULL;
	llm_task(&t, &m, dir, &l);
	CHECK(ks_agents_run(&t, &err) == 0);
	CHECK_INT_EQ(3, (int)t.traj.n);
	r1 = &t.traj.v[1];
	r2 = &t.traj.v[2];
	/* the edit of a skill without a builtin transform: reviewed, fails */
	CHECK_STR_EQ("optimize", r1->phase);
	CHECK_STR_EQ("ilp", r1->skill);
	CHECK(r1->plan != NULL && strstr(r1->plan, "Carry out the skill ilp") != NULL);
	CHECK_NULL(r1->params);
	CHECK_STR_EQ("failed", r1->compile);
	CHECK_STR_EQ("nvcc", r1->diag.cls);
	CHECK_INT_EQ(40, r1->tokens);
	/* the repair, from the diagnosis and the log, reviewed and kept */
	CHECK_STR_EQ("repair", r2->phase);
	CHECK_INT_EQ(1, r2->repairs);
	CHECK_INT_EQ(0, r2->parent);
	CHECK_STR_EQ("ilp", r2->skill);
	CHECK_STR_EQ("ok", r2->compile);
	CHECK_STR_EQ("correct", r2->verdict);
	CHECK(r2->gain);
	CHECK_INT_EQ(50, r2->tokens);
	CHECK_INT_EQ(2, ks_task_best(&t));
	CHECK_INT_EQ(90, t.state.tokens);
	CHECK_INT_EQ(KS_TASK_NO_SKILL, t.end);	/* the new base holds ilp */
	CHECK_INT_EQ(3, m.calls);
	CHECK(!m.seen_twice);
	CHECK_INT_EQ(2, count_lines(s.log));
	/* the Repairer was shown the failed candidate, its log and diagnosis */
	path = ks_fs_join(dir, "llm.jsonl");
	CHECK(ks_fs_read(path, &tr, &err) == 0);
	free(path);
	CHECK(strstr(tr.buf, "\"agent\": \"optimizer\"") != NULL);
	CHECK(strstr(tr.buf, "\"agent\": \"repairer\"") != NULL);
	CHECK(strstr(tr.buf, "identifier \\\"tmp\\\" is undefined") != NULL);
	CHECK(strstr(tr.buf, "nvcc rejected the candidate's source") != NULL);
	CHECK(strstr(tr.buf, "a[0] = tmp; /* LLM_NOCOMPILE */") != NULL);
	path = ks_fs_join(dir, "r1.log");
	CHECK(ks_fs_exists(path));
	free(path);
	ks_task_release(&t);
	ks_llm_close(&l);
	server_stop(&s);
	ks_buf_release(&m.reviewed);
	ks_buf_release(&script);
	ks_buf_release(&err);
	ks_buf_release(&tr);
	free(dir);
}

TEST(llm_wrong_edit_is_rejected_and_a_duplicate_never_reviewed)
{
	struct server s;
	struct ks_llm l;
	struct ks_task t;
	struct markers m;
	struct ks_buf script = KS_BUF_INIT, err = KS_BUF_INIT;
	char *dir = ks_xasprintf("%s/task", test_tmpdir());
	size_t i;
	int wrong = -1, dup = -1, fast = -1;

	if (!have_python())
		SKIP("no python3 for the fake LLM server");
	/* the planner's answer names no skill: the policy's order stands */
	scripted(&script, "planner of a CUDA", 0, 5, 0, "Both look fine to me.");
	scripted(&script, "Carry out the skill ilp", 1, 20, 0, EDIT("\ta[0] = 3; /* LLM_WRONG */"));
	/* the "repair" is the wrong candidate again, as it was */
	scripted(&script, "repairer of ks-nvcc", 0, 20, 0, EDIT("\ta[0] = 3; /* LLM_WRONG */"));
	scripted(&script, "Carry out the skill mlp", 1, 20, 0,
		 "```cuda\n__device__ static float one(void) { return 1; }\n"
		 "__global__ void k(float *a)\n{\n\ta[0] = one(); /* LLM_FAST */\n}\n```\n");
	ks_buf_adds(&script, "]");
	CHECK(server_start(&s, script.buf) == 0);
	open_client(&l, s.url, 0, 5000, NULL, 0);
	plan_skills[0] = "ilp";
	plan_skills[1] = "mlp";
	plan_skills[2] = NULL;
	llm_task(&t, &m, dir, &l);
	CHECK(ks_agents_run(&t, &err) == 0);
	for (i = 1; i < t.traj.n; i++) {
		const struct ks_traj_round *r = &t.traj.v[i];

		if (r->verdict && !strcmp(r->verdict, "rejected"))
			wrong = r->round;
		if (r->verdict && !strcmp(r->verdict, "seen"))
			dup = r->round;
		if (r->skill && !strcmp(r->skill, "mlp") && r->compile)
			fast = r->round;
	}
	CHECK(wrong > 0 && dup > wrong && fast > dup);
	CHECK_STR_EQ("verdict", t.traj.v[wrong].diag.cls);
	/* the duplicate: recorded with its hash, not reviewed */
	CHECK_STR_EQ("repair", t.traj.v[dup].phase);
	CHECK_INT_EQ(wrong, t.traj.v[dup].repairs);
	CHECK_STR_EQ(t.traj.v[wrong].hash, t.traj.v[dup].hash);
	CHECK_NULL(t.traj.v[dup].compile);
	CHECK(strstr(t.traj.v[dup].reason, "the same candidate as round") != NULL);
	CHECK_INT_EQ(20, t.traj.v[dup].tokens);
	/* the seed, the wrong edit, the right one: no text reviewed twice */
	CHECK_INT_EQ(3, m.calls);
	CHECK(!m.seen_twice);
	/* the wrong one is never the base nor the best: what gets cached */
	CHECK_INT_EQ(fast, ks_task_best(&t));
	CHECK_INT_EQ(fast, t.state.base);
	CHECK(t.traj.v[fast].gain && !t.traj.v[wrong].gain);
	CHECK_INT_EQ(KS_TASK_NO_SKILL, t.end);
	ks_task_release(&t);
	ks_llm_close(&l);
	server_stop(&s);
	ks_buf_release(&m.reviewed);
	ks_buf_release(&script);
	ks_buf_release(&err);
	free(dir);
}

/* The reviewed candidates of a run, one line each: what rules decide. */
static void
reviewed_trail(const struct ks_task *t, struct ks_buf *out)
{
	size_t i;

	for (i = 1; i < t->traj.n; i++) {
		const struct ks_traj_round *r = &t->traj.v[i];

		if (!r->compile)
			continue;
		ks_buf_addf(out, "%s %s %s %.3f %d\n", r->skill, r->params ? r->params : "-",
			    r->verdict, r->speedup, r->gain);
	}
	if (ks_task_best(t))
		ks_buf_addf(out, "best %.3f\n", t->traj.v[ks_task_best(t)].speedup);
}

/* A run of plan {ilp, one} against `script` (NULL: rules only). */
static void
run_with(const char *script, int timeout_ms, struct ks_buf *trail, struct ks_task *t,
	 struct markers *m, int *requests)
{
	struct server s;
	struct ks_llm l;
	struct ks_buf err = KS_BUF_INIT;
	char *dir = ks_xasprintf("%s/task%d", test_tmpdir(), script ? timeout_ms : 0);
	int up = script && server_start(&s, script) == 0;

	if (up)
		open_client(&l, s.url, 0, timeout_ms, NULL, 0);
	plan_skills[0] = "ilp";
	plan_skills[1] = "one";
	plan_skills[2] = NULL;
	llm_task(t, m, dir, up ? &l : NULL);
	if (ks_agents_run(t, &err))
		ks_buf_addf(trail, "error: %s\n", err.buf);
	reviewed_trail(t, trail);
	*requests = 0;
	if (up) {
		/* the exchanges as the task saw them (a single-threaded server
		 * may not have read a request the client gave up on) */
		char *path = ks_fs_join(dir, "llm.jsonl");

		*requests = count_lines(path);
		free(path);
		ks_llm_close(&l);
		server_stop(&s);
	}
	t->llm = NULL;
	t->dir = NULL;
	free(dir);
	ks_buf_release(&err);
}

TEST(llm_garbage_or_silence_leaves_the_rules_only_result)
{
	struct ks_task t;
	struct markers m;
	struct ks_buf rules = KS_BUF_INIT, garbage = KS_BUF_INIT, slow = KS_BUF_INIT;
	int requests;
	size_t i, declined = 0;

	if (!have_python())
		SKIP("no python3 for the fake LLM server");
	run_with(NULL, 0, &rules, &t, &m, &requests);
	ks_task_release(&t);
	ks_buf_release(&m.reviewed);
	CHECK(strstr(rules.buf, "one p=1 correct 1.111 1\n") != NULL);
	CHECK(strstr(rules.buf, "best 1.111") != NULL);

	/* every reply is prose (no JSON for the Planner, no code for the
	 * Optimizer): the same candidates, the same verdicts, the same best */
	run_with("[{\"status\": 200, \"tokens\": 7, \"text\": \"I cannot help with that.\"}]",
		 5000, &garbage, &t, &m, &requests);
	CHECK_STR_EQ(rules.buf, garbage.buf);
	CHECK(requests >= 2);
	for (i = 0; i < t.traj.n; i++)
		if (t.traj.v[i].plan && !strcmp(t.traj.v[i].verdict, "declined")) {
			CHECK(strstr(t.traj.v[i].reason, "no code block") != NULL);
			declined++;
		}
	CHECK(declined >= 2);	/* ilp, and one once its points are spent */
	/* every reply's tokens are in some record (the Planner's in the
	 * step it decided) */
	CHECK_INT_EQ(7 * requests, t.state.tokens);
	ks_task_release(&t);
	ks_buf_release(&m.reviewed);

	/* an endpoint slower than the time limit: after two requests without
	 * a reply the task goes on without it, with the same result */
	run_with("[{\"status\": 200, \"tokens\": 7, \"delay\": 3, \"text\": \"late\"}]", 300,
		 &slow, &t, &m, &requests);
	CHECK_STR_EQ(rules.buf, slow.buf);
	CHECK_INT_EQ(2, requests);
	CHECK_INT_EQ(0, t.state.tokens);
	ks_task_release(&t);
	ks_buf_release(&m.reviewed);
	ks_buf_release(&rules);
	ks_buf_release(&garbage);
	ks_buf_release(&slow);
}

/* ---- ks optimize with an LLM, end to end ------------------------------------ */

/*
 * The command over the real Reviewer library, with an nvcc and a ks-replay
 * that read markers in what they are given (the candidate TU, or the
 * shim's #include of it): LLM_NOCOMPILE fails to compile, LLM_WRONG makes
 * ks-replay find wrong outputs; everything else is correct and twice as
 * fast as the original.
 */
static const char e2e_src[] =
	"__global__ void scale(const float *x, float *y, int n)\n"
	"{\n"
	"\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"\tif (i < n)\n"
	"\t\ty[i] = 2.0f * x[i];\n"
	"}\n"
	"\n"
	"int main()\n"
	"{\n"
	"\tfloat *x = 0, *y = 0;\n"
	"\tscale<<<4, 256>>>(x, y, 1000);\n"
	"\treturn 0;\n"
	"}\n";

#define E2E_EDIT(line)                                                        \
	"```cuda\n__global__ void scale(const float *x, float *y, int n)\n{\n"     \
	"\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n\tif (i < n)\n\t\t"      \
	line "\n}\n```\n"

static void
e2e_script(const char *dir, const char *name, const char *text)
{
	char *bin = ks_xasprintf("%s/bin", dir), *p = ks_xasprintf("%s/%s", bin, name);

	ks_fs_mkdirs(bin, NULL);
	test_write(bin, name, text);
	chmod(p, 0755);
	free(bin);
	free(p);
}

static int
e2e_fixture(const char *dir, struct ks_conf *conf, struct ks_buf *err)
{
	struct ks_buf rec = KS_BUF_INIT;
	char *builds = ks_xasprintf("%s/builds", dir), *capdir, *record;
	char api[] = "cuLaunchKernel", t0[] = "const float *", t1[] = "float *", t2[] = "int";
	char kname[] = "_Z5scalePKfPfi", pretty[] = "scale(float const*, float*, int)";
	unsigned char bytes[20] = { 0 };
	struct ks_capture c;
	int rc;

	test_write(dir, "k.cu", e2e_src);
	e2e_script(dir, "nvcc",
		   "#!/bin/sh\nout=\nprev=\nwrong=\n"
		   "for a; do [ \"$prev\" = -o ] && out=$a; prev=$a; done\n"
		   "for a; do case $a in *.cu) ;; *) continue ;; esac\n"
		   "  for f in \"$a\" $(sed -n 's/^#include \"\\(.*\\)\"$/\\1/p' \"$a\"); do\n"
		   "    [ -f \"$f\" ] || continue\n"
		   "    if grep -q LLM_NOCOMPILE \"$f\"; then\n"
		   "      echo \"$f(6): error: identifier \\\"tmp\\\" is undefined\" >&2; exit 2; fi\n"
		   "    grep -q LLM_WRONG \"$f\" && wrong=1\n"
		   "  done\ndone\n"
		   "[ -n \"$out\" ] && { if [ -n \"$wrong\" ]; then echo WRONG >\"$out\"; "
		   "else : >\"$out\"; fi; }\nexit 0\n");
	test_write(dir, "eligible.json",
		   "{\"format\": 1, \"capture\": \"c\", \"kernel\": \"_Z5scalePKfPfi\", "
		   "\"original\": {\"reproduces\": true, \"why\": null}, "
		   "\"timing\": {\"original\": {\"n\": 20, \"median_ms\": 2.0, \"lo_ms\": 1.9, "
		   "\"hi_ms\": 2.1, \"min_ms\": 1.8, \"max_ms\": 2.4}}, "
		   "\"verdict\": \"eligible\", \"error\": null}\n");
	test_write(dir, "correct.json",
		   "{\"format\": 1, \"capture\": \"c\", \"kernel\": \"_Z5scalePKfPfi\", "
		   "\"original\": {\"reproduces\": true, \"why\": null}, "
		   "\"candidate\": {\"correct\": true, \"why\": null, "
		   "\"random\": {\"sets\": 2, \"passed\": 2}}, "
		   "\"timing\": {\"original\": {\"n\": 20, \"median_ms\": 2.0, "
		   "\"lo_ms\": 1.9, \"hi_ms\": 2.1, \"min_ms\": 1.8, \"max_ms\": 2.4}, "
		   "\"candidate\": {\"n\": 20, \"median_ms\": 1.0, \"lo_ms\": 0.95, "
		   "\"hi_ms\": 1.05, \"min_ms\": 0.9, \"max_ms\": 1.2}, "
		   "\"verdict\": \"faster\", \"speedup\": 2.0}, "
		   "\"verdict\": \"correct\", \"error\": null}\n");
	test_write(dir, "wrong.json",
		   "{\"format\": 1, \"capture\": \"c\", \"kernel\": \"_Z5scalePKfPfi\", "
		   "\"original\": {\"reproduces\": true, \"why\": null}, "
		   "\"candidate\": {\"correct\": false, \"why\": \"y: 3 of 1000 f32 elements "
		   "differ from the reference\"}, \"verdict\": \"incorrect\", \"error\": null}\n");
	e2e_script(dir, "ks-replay",
		   "#!/bin/sh\nprev=\nr=$FAKE_DIR/eligible.json\n"
		   "for a; do [ \"$prev\" = --json ] && j=$a\n"
		   "  if [ \"$prev\" = --candidate ]; then r=$FAKE_DIR/correct.json\n"
		   "    grep -q WRONG \"$a\" && r=$FAKE_DIR/wrong.json; fi\n"
		   "  prev=$a; done\ncp \"$r\" \"$j\"\n");
	e2e_script(dir, "compute-sanitizer",
		   "#!/bin/sh\necho '========= ERROR SUMMARY: 0 errors'\nexit 0\n");
	setenv("CUDA_HOME", dir, 1);
	{
		char *path = ks_xasprintf("%s/bin:/usr/bin:/bin", dir);

		setenv("PATH", path, 1);
		free(path);
	}
	setenv("FAKE_DIR", dir, 1);
	ks_fs_mkdirs(builds, NULL);
	ks_buf_addf(&rec, "{\"format\": 1, \"source\": \"%s/k.cu\", \"cwd\": \"%s\", "
		    "\"output\": \"%s/k.o\", \"nvcc\": \"%s/bin/nvcc\", "
		    "\"time\": \"2026-12-01T10:00:00Z\", "
		    "\"archs\": [{\"virtual\": \"compute_90\", \"real\": \"sm_90\"}], "
		    "\"argv\": [\"-O3\", \"-arch=sm_90\", \"-c\", \"k.cu\", \"-o\", \"k.o\"]}\n",
		    dir, dir, dir, dir);
	test_write(builds, "k.json", rec.buf);
	ks_buf_release(&rec);
	memset(&c, 0, sizeof(c));
	c.kernel = kname;
	c.demangled = pretty;
	c.api = api;
	c.grid[0] = 4, c.grid[1] = c.grid[2] = 1;
	c.block[0] = 256, c.block[1] = c.block[2] = 1;
	c.launch = 1;
	c.cc_major = 9;
	c.param_size = 20;
	c.param_bytes = bytes;
	c.nparams = 3;
	c.params = ks_xcalloc(3, sizeof(*c.params));
	c.params[0].size = 8;
	c.params[0].type = t0;
	c.params[1].offset = 8;
	c.params[1].size = 8;
	c.params[1].type = t1;
	c.params[2].offset = 16;
	c.params[2].size = 4;
	c.params[2].type = t2;
	capdir = ks_xasprintf("%s/captures/%s/1", dir, kname);
	record = ks_xasprintf("%s/builds/k.json", dir);
	c.record = record;
	rc = ks_fs_mkdirs(capdir, err) || ks_capture_save(capdir, &c, err);
	free(c.params);
	free(capdir);
	free(record);
	free(builds);
	setenv("KS_DIR", dir, 1);
	unsetenv("KS_CONFIG");
	ks_conf_init(conf);
	return rc || ks_conf_load(conf, err);
}

/* ks optimize ARGS, its stdout into `out` (its stderr into the void). */
static int
e2e_optimize(struct ks_conf *conf, char **argv, int argc, struct ks_buf *out)
{
	char *path = ks_xasprintf("%s/stdout.txt", test_tmpdir());
	int saved, esaved, rc, null = open("/dev/null", O_WRONLY);
	FILE *f;

	fflush(stdout);
	fflush(stderr);
	saved = dup(1);
	esaved = dup(2);
	f = fopen(path, "w");
	dup2(fileno(f), 1);
	dup2(null, 2);
	rc = ks_cli_optimize(argc, argv, conf, 0);
	fflush(stdout);
	fflush(stderr);
	dup2(saved, 1);
	dup2(esaved, 2);
	close(saved);
	close(esaved);
	close(null);
	fclose(f);
	ks_buf_reset(out);
	ks_fs_read(path, out, NULL);
	free(path);
	return rc;
}

TEST(optimize_with_an_llm_repairs_rejects_and_caches_only_the_verified)
{
	const char *dir = test_tmpdir();
	struct server s;
	struct ks_conf conf;
	struct ks_buf script = KS_BUF_INIT, err = KS_BUF_INIT, out = KS_BUF_INIT,
		      cached = KS_BUF_INIT;
	struct ks_traj t = { 0 };
	char *traj = ks_xasprintf("%s/tasks/_Z5scalePKfPfi/trajectory.jsonl", dir);
	char *argv[12];
	size_t i;
	int argc = 0, root = -1, rep1 = -1, rep2 = -1;
	glob_t g;

	if (!have_python())
		SKIP("no python3 for the fake LLM server");
	if (ks_libclang_load(&err))
		SKIP("no libclang: %s", err.buf);
	/* the first edit does not compile; its repair computes wrong
	 * results; the repair of that is right; nothing more is answered
	 * but the Planner's questions, with prose */
	scripted(&script, "planner of a CUDA", 0, 10, 0, "No opinion.");
	scripted(&script, "optimizer of ks-nvcc", 1, 100, 0,
		 E2E_EDIT("y[i] = tmp * x[i]; /* LLM_NOCOMPILE */"));
	scripted(&script, "repairer of ks-nvcc", 1, 100, 0,
		 E2E_EDIT("y[i] = 3.0f * x[i]; /* LLM_WRONG */"));
	scripted(&script, "repairer of ks-nvcc", 1, 100, 0,
		 E2E_EDIT("y[i] = x[i] + x[i]; /* LLM_FIXED */"));
	ks_buf_adds(&script, "]");
	CHECK(e2e_fixture(dir, &conf, &err) == 0);
	CHECK(server_start(&s, script.buf) == 0);
	argv[argc++] = (char *)"optimize";
	argv[argc++] = (char *)"--no-long-term-memory";
	argv[argc++] = (char *)"--rounds";
	argv[argc++] = (char *)"40";
	argv[argc++] = (char *)"--llm";
	argv[argc++] = s.url;
	argv[argc++] = (char *)"--json";
	argv[argc] = NULL;
	setenv("KS_LLM_RETRIES", "0", 1);
	ks_conf_release(&conf);
	ks_conf_init(&conf);
	CHECK(ks_conf_load(&conf, &err) == 0);
	CHECK_INT_EQ(0, e2e_optimize(&conf, argv, argc, &out));
	if (getenv("KS_TEST_DUMP"))
		fprintf(stderr, "%s\n", out.buf);
	CHECK(strstr(out.buf, "\"cache\": \"cached\"") != NULL);
	CHECK(ks_traj_load(traj, &t, &err) == 0);
	for (i = 1; i < t.n; i++) {
		const struct ks_traj_round *r = &t.v[i];

		if (r->plan && r->repairs < 0 && r->compile)
			root = r->round;
		else if (r->plan && r->repairs == root && root >= 0 && r->compile)
			rep1 = r->round;
		else if (r->plan && r->repairs == rep1 && rep1 >= 0 && r->compile)
			rep2 = r->round;
	}
	CHECK(root > 0 && rep1 > root && rep2 > rep1);
	CHECK_STR_EQ("failed", t.v[root].compile);
	CHECK_STR_EQ("nvcc", t.v[root].diag.cls);
	CHECK_STR_EQ("rejected", t.v[rep1].verdict);
	CHECK_STR_EQ("verdict", t.v[rep1].diag.cls);
	CHECK_STR_EQ("correct", t.v[rep2].verdict);
	CHECK_STR_EQ("repair", t.v[rep2].phase);
	CHECK_INT_EQ(100, t.v[rep2].tokens);
	/* the LLM's candidates went through the real splice */
	{
		char *tu = ks_xasprintf("%s/tasks/_Z5scalePKfPfi/r%d.cu", dir, rep2);
		struct ks_buf text = KS_BUF_INIT;

		CHECK(ks_fs_read(tu, &text, &err) == 0);
		CHECK(strstr(text.buf, "x[i] + x[i]; /* LLM_FIXED */") != NULL);
		CHECK(strstr(text.buf, "__CUDA_ARCH__") != NULL);
		ks_buf_release(&text);
		free(tu);
	}
	/* one variant cached, and not the wrong one */
	{
		char *pat = ks_xasprintf("%s/cache/*/*/variant.cu", dir);

		memset(&g, 0, sizeof(g));
		CHECK(glob(pat, 0, NULL, &g) == 0);
		CHECK_INT_EQ(1, (int)g.gl_pathc);
		CHECK(ks_fs_read(g.gl_pathv[0], &cached, &err) == 0);
		CHECK(strstr(cached.buf, "LLM_WRONG") == NULL);
		globfree(&g);
		free(pat);
	}
	ks_traj_release(&t);
	server_stop(&s);
	ks_conf_release(&conf);
	ks_buf_release(&script);
	ks_buf_release(&err);
	ks_buf_release(&out);
	ks_buf_release(&cached);
	free(traj);
}

void
ks_suite_llm(void)
{
	RUN(endpoints_and_requests);
	RUN(replies_read);
	RUN(code_blocks);
	RUN(planner_pick_must_be_allowed);
	RUN(client_retries_429_and_500_then_answers);
	RUN(client_gives_up_after_the_retries);
	RUN(client_times_out_on_a_slow_reply);
	RUN(client_refuses_malformed_json_and_caches_good_replies);
	RUN(loop_follows_the_llm_planner_within_its_tokens);
	RUN(llm_repairs_an_edit_that_does_not_compile);
	RUN(llm_wrong_edit_is_rejected_and_a_duplicate_never_reviewed);
	RUN(llm_garbage_or_silence_leaves_the_rules_only_result);
	RUN(optimize_with_an_llm_repairs_rejects_and_caches_only_the_verified);
}
