/*
 * Unit tests of src/policy/policy and src/memory/knowledge: the table's
 * load-time checks, the plan on the benchmark fixtures (features and
 * evidence from ks analyze and ks evidence, counters recorded on an H200:
 * tests/data/policy), with and without counters, and the re-ranking by
 * cross-task statistics.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/cli/ks.h"
#include "../../src/core/buf.h"
#include "../../src/core/fs.h"
#include "../../src/core/util.h"
#include "../../src/memory/knowledge.h"
#include "../../src/memory/skills.h"
#include "../../src/policy/policy.h"
#include "test.h"

void ks_suite_policy(void);

/* The shipped skills and policy, loaded once. */
static struct ks_skills lib_skills;
static struct ks_policy lib_policy;

static int
load_library(void)
{
	struct ks_buf err = KS_BUF_INIT, text = KS_BUF_INIT;
	int rc = 0;

	if (lib_policy.file)
		return 0;
	if (ks_skills_load("skills", &lib_skills, &err) ||
	    ks_fs_read("skills/policy.yaml", &text, &err) ||
	    ks_policy_parse("skills/policy.yaml", text.buf, text.len, &lib_skills,
			    &lib_policy, &err)) {
		fprintf(stderr, "%s\n", err.buf);
		rc = -1;
	}
	ks_buf_release(&err);
	ks_buf_release(&text);
	return rc;
}

TEST(policy_library_loads)
{
	CHECK_INT_EQ(0, load_library());
	CHECK(lib_skills.n >= 32);
	CHECK(lib_policy.nbuckets >= 9);
	CHECK(ks_policy_input(&lib_policy, "f.is_naive_gemm") >= 0);
	CHECK(ks_policy_input(&lib_policy, "d.peak_pct") >= 0);
	CHECK_INT_EQ(-1, ks_policy_input(&lib_policy, "f.nonsense"));
}

/* --- load-time errors ----------------------------------------------------- */

static const char mini[] =
	"version: 1\n"					/* 1 */
	"inputs:\n"
	"  f:\n"
	"    bool: [p, q]\n"				/* 4 */
	"    number: [n]\n"
	"  m:\n"
	"    number: [dram_pct]\n"
	"tiers:\n"
	"  - {id: H, when: m.dram_pct < 60}\n"		/* 9 */
	"  - {id: L, when: m.dram_pct >= 60}\n"
	"buckets:\n"
	"  - id: b\n"					/* 12 */
	"    signature: f.p\n"
	"    cases:\n"
	"      - id: one\n"				/* 15 */
	"        when: f.n > 2\n"
	"        allow: [s1]\n"
	"        gain: large\n"
	"      - id: two\n"				/* 19 */
	"        when: f.q\n"
	"        tiers: [H]\n"
	"        allow: [s2, s1]\n"
	"        gain: small\n"
	"vetoes:\n"
	"  - id: v\n"					/* 25 */
	"    when: f.n > 10\n"
	"    forbid: [s1]\n"
	"    why: too big\n";

static const char skill_tmpl[] =
	"---\nid: %s\ntitle: T\ncategory: memory\nintent: i\nmechanism: m\n"
	"requires: [\"%s\"]\nexpected: {dram_pct: up}\nforbidden: [x]\n"
	"risks: {other: o}\ntransform: none\n---\n## Guidance\ng\n"
	"```cuda before\n__global__ void k() {}\n```\n"
	"```cuda after\n__global__ void k() {}\n```\n";

static int
mini_skills(struct ks_skills *sk, const char *req1, const char *req2)
{
	const char *dir = test_tmpdir();
	struct ks_buf a = KS_BUF_INIT, b = KS_BUF_INIT, err = KS_BUF_INIT;
	int rc;

	ks_buf_addf(&a, skill_tmpl, "s1", req1);
	ks_buf_addf(&b, skill_tmpl, "s2", req2);
	test_write(dir, "s1.md", a.buf);
	test_write(dir, "s2.md", b.buf);
	rc = ks_skills_load(dir, sk, &err);
	if (rc)
		fprintf(stderr, "%s\n", err.buf);
	ks_buf_release(&a);
	ks_buf_release(&b);
	ks_buf_release(&err);
	return rc;
}

static char *
replace(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);
	struct ks_buf b = KS_BUF_INIT;

	if (!at)
		return NULL;
	ks_buf_add(&b, text, (size_t)(at - text));
	ks_buf_adds(&b, to);
	ks_buf_adds(&b, at + strlen(from));
	return ks_buf_detach(&b, NULL);
}

static const struct {
	const char *from, *to, *want;
} bad_tables[] = {
	{ "version: 1\n", "version: 2\n", "p.yaml:1: 'version: 1' is required" },
	{ "        when: f.n > 2\n", "        when: f.nn > 2\n",
	  "p.yaml:16: case b/one: column 1: unknown name 'f.nn'" },
	{ "        when: f.n > 2\n", "        when: f.n + 2\n",
	  "p.yaml:16: case b/one must be true/false, and 'f.n + 2' is a number" },
	{ "        when: f.n > 2\n", "        when: f.p > 2\n",
	  "p.yaml:16: case b/one: column 1: '>' needs a number, and 'f.p' is true/false" },
	{ "        when: f.n > 2\n", "        when: (f.n > 2\n", "expected ')'" },
	{ "        allow: [s1]\n", "        allow: [s9]\n",
	  "p.yaml:17: case b/one: no skill 's9' in the skills folder" },
	{ "        gain: large\n", "        gain: huge\n", "gain 'huge' is not small, medium or large" },
	{ "        tiers: [H]\n", "        tiers: [X]\n", "p.yaml:21: case b/two: no tier 'X'" },
	{ "        when: f.q\n", "        when: f.n > 2\n",
	  "p.yaml:19: case b/two is unreachable: case one (line 15) matches whenever it does" },
	{ "        when: f.n > 2\n", "        when: 1 > 2\n",
	  "p.yaml:15: case b/one is unreachable: its 'when' is always false" },
	{ "        when: f.n > 2\n", "        when: \"true\"\n",
	  "p.yaml:19: case b/two is unreachable" },
	{ "    signature: f.p\n", "    signature: \"false\"\n",
	  "p.yaml:12: bucket b is unreachable" },
	{ "    bool: [p, q]\n", "    bool: [p, q, p]\n", "p.yaml:4: 'f.p' is declared twice" },
	{ "    why: too big\n", "    why: too big\n    colour: red\n", "a veto: unknown field 'colour'" },
	{ "    forbid: [s1]\n", "    forbid: []\n", "veto v forbids no skill" },
};

TEST(policy_load_errors)
{
	struct ks_skills sk = { 0 };
	struct ks_policy p = { 0 };
	struct ks_buf err = KS_BUF_INIT;
	size_t i;
	int failed = 0;

	CHECK_INT_EQ(0, mini_skills(&sk, "f.p", "f.n > 0"));
	CHECK_INT_EQ(0, ks_policy_parse("p.yaml", mini, strlen(mini), &sk, &p, &err));
	ks_policy_release(&p);
	for (i = 0; i < KS_ARRAY_SIZE(bad_tables); i++) {
		char *text = replace(mini, bad_tables[i].from, bad_tables[i].to);

		ks_buf_reset(&err);
		if (!text || ks_policy_parse("p.yaml", text, strlen(text), &sk, &p, &err) == 0 ||
		    !strstr(err.buf, bad_tables[i].want)) {
			fprintf(stderr, "table %zu: want '%s', got '%s'\n", i, bad_tables[i].want,
				err.buf);
			failed = 1;
		}
		ks_policy_release(&p);
		free(text);
	}
	ks_skills_release(&sk);
	/* A skill's precondition is checked against the table's names, and
	 * the error points into the skill's file. */
	CHECK_INT_EQ(0, mini_skills(&sk, "f.p && m.l2_pct > 3", "f.n > 0"));
	ks_buf_reset(&err);
	CHECK_INT_EQ(-1, ks_policy_parse("p.yaml", mini, strlen(mini), &sk, &p, &err));
	CHECK(strstr(err.buf, "s1.md:7: requires: column 8: unknown name 'm.l2_pct'") != NULL);
	ks_skills_release(&sk);
	ks_buf_release(&err);
	CHECK(!failed);
}

/*
 * A skill the plan does not allow promises what the skipped buckets and
 * cases that would allow it promise: a skipped bucket, the most of its
 * cases; a skipped case, its own; "small" where none allows it.
 */
TEST(policy_unjudged_gain)
{
	struct ks_skills sk = { 0 };
	struct ks_policy p = { 0 };
	struct ks_buf err = KS_BUF_INIT;
	struct ks_policy_values v;
	struct ks_plan pl;

	CHECK_INT_EQ(0, mini_skills(&sk, "f.p", "f.n > 0"));
	CHECK_INT_EQ(0, ks_policy_parse("p.yaml", mini, strlen(mini), &sk, &p, &err));
	/* f.p unknown: bucket b is skipped, its cases one (large, s1) and
	   two (small, s2 and s1) */
	ks_policy_values_init(&v, &p);
	ks_policy_set(&p, &v, "f.n", 1);
	ks_policy_plan(&p, &v, &pl);
	CHECK_INT_EQ(1, pl.nskipped);
	CHECK_STR_EQ("bucket b", pl.skipped[0].what);
	CHECK_INT_EQ(2, (int)pl.skipped[0].nskills);
	CHECK_STR_EQ("large", ks_plan_unjudged_gain(&pl, "s1"));
	CHECK_STR_EQ("large", ks_plan_unjudged_gain(&pl, "s2"));
	CHECK_STR_EQ("small", ks_plan_unjudged_gain(&pl, "s9"));
	/* ks plan says what the skipped bucket would allow */
	{
		struct ks_buf text = KS_BUF_INIT;

		ks_plan_format(&pl, &text);
		CHECK(strstr(text.buf, "bucket b: needs f.p; would allow s1, s2 (gain large)") !=
		      NULL);
		ks_buf_reset(&text);
		ks_plan_json(&pl, &text);
		CHECK(strstr(text.buf, "\"would_allow\": [\"s1\", \"s2\"], \"gain\": \"large\"") !=
		      NULL);
		ks_buf_release(&text);
	}
	ks_plan_release(&pl);
	/* f.p known, no counters: only case two is skipped (it needs the
	   tier); one does not hold */
	ks_policy_set(&p, &v, "f.p", 1);
	ks_policy_set(&p, &v, "f.q", 1);
	ks_policy_plan(&p, &v, &pl);
	CHECK_INT_EQ(1, pl.nskipped);
	CHECK_STR_EQ("case b/two", pl.skipped[0].what);
	CHECK_STR_EQ("small", ks_plan_unjudged_gain(&pl, "s2"));
	CHECK_STR_EQ("small", ks_plan_unjudged_gain(&pl, "s1"));
	ks_plan_release(&pl);
	ks_policy_values_release(&v);
	ks_policy_release(&p);
	ks_skills_release(&sk);
	ks_buf_release(&err);
}

TEST(policy_plan_mini)
{
	struct ks_skills sk = { 0 };
	struct ks_policy p = { 0 };
	struct ks_buf err = KS_BUF_INIT, out = KS_BUF_INIT;
	struct ks_policy_values v;
	struct ks_plan pl;

	CHECK_INT_EQ(0, mini_skills(&sk, "f.p", "f.n > 0"));
	CHECK_INT_EQ(0, ks_policy_parse("p.yaml", mini, strlen(mini), &sk, &p, &err));
	/* No counters: case two needs the tier, so it is skipped; one holds. */
	ks_policy_values_init(&v, &p);
	ks_policy_set(&p, &v, "f.p", 1);
	ks_policy_set(&p, &v, "f.q", 1);
	ks_policy_set(&p, &v, "f.n", 1);
	ks_policy_plan(&p, &v, &pl);
	CHECK_NULL(pl.tier);
	CHECK_INT_EQ(0, pl.nallowed);
	CHECK_INT_EQ(1, pl.nskipped);
	CHECK_STR_EQ("case b/two", pl.skipped[0].what);
	ks_plan_release(&pl);
	/* Counters at tier H: case two, s2 then s1; s1's precondition holds. */
	ks_policy_set(&p, &v, "m.dram_pct", 30);
	ks_policy_plan(&p, &v, &pl);
	CHECK_STR_EQ("H", pl.tier);
	CHECK_INT_EQ(2, pl.nallowed);
	CHECK_STR_EQ("s2", pl.allowed[0].skill);
	CHECK_STR_EQ("two", pl.allowed[0].case_id);
	CHECK_STR_EQ("f.p (f.p = 1); f.q (f.q = 1); tier H", pl.allowed[0].why);
	ks_plan_release(&pl);
	/* The veto forbids s1; a false precondition forbids s2 (f.n > 0). */
	ks_policy_set(&p, &v, "f.n", 11);
	ks_policy_set(&p, &v, "f.q", 0);
	ks_policy_plan(&p, &v, &pl);
	CHECK_INT_EQ(0, pl.nallowed);
	CHECK_INT_EQ(1, pl.nforbidden);
	CHECK_STR_EQ("s1", pl.forbidden[0].skill);
	CHECK_STR_EQ("veto v", pl.forbidden[0].rule);
	CHECK_STR_EQ("too big: f.n > 10 (f.n = 11)", pl.forbidden[0].why);
	ks_plan_json(&pl, &out);
	CHECK(strstr(out.buf, "\"rule\": \"veto v\"") != NULL);
	CHECK(strstr(out.buf, "{\"predicate\": \"f.n > 10\", \"values\": {\"f.n\": 11}}") != NULL);
	ks_plan_release(&pl);
	ks_policy_set(&p, &v, "f.n", 0);
	ks_policy_set(&p, &v, "f.q", 1);
	ks_policy_plan(&p, &v, &pl);
	CHECK_INT_EQ(1, pl.nallowed);
	CHECK_STR_EQ("s1", pl.allowed[0].skill);
	CHECK_STR_EQ("s2", pl.forbidden[0].skill);
	CHECK_STR_EQ("precondition", pl.forbidden[0].rule);
	CHECK_STR_EQ("f.n > 0 is false: f.n > 0 (f.n = 0)", pl.forbidden[0].why);
	ks_plan_release(&pl);
	ks_policy_values_release(&v);
	ks_policy_release(&p);
	ks_skills_release(&sk);
	ks_buf_release(&err);
	ks_buf_release(&out);
}

/* --- the benchmark fixtures ----------------------------------------------- */

struct expect {
	const char *program, *kernel, *top, *names;	/* names: in the top's why */
};

/*
 * What an expert would pick first for each benchmark kernel, and the
 * evidence the justification must name. Elementwise kernels at tens of
 * percent of their floor: vectorization; one thread per row: cooperative
 * rows; naive GEMMs: register blocking; single-address atomics:
 * hierarchical reduction; strided copies: a shared-memory tile; pooling
 * and batch norm, whose SMs are busy with 64-bit index division while
 * memory is not: cheaper index arithmetic.
 */
static const struct expect expected[] = {
	{ "argmax", "argmax_kernel", "coop_rows", "f.uncoalesced_accesses" },
	{ "avgpool", "avgpool_kernel", "reduce_index_arithmetic", "m.sm_pct d.mem_pct" },
	{ "conv2d", "conv2d_kernel", "conv_tiling", "f.is_stencil_conv f.has_k_loop" },
	{ "conv_norm", "conv2d_kernel", "conv_tiling", "f.is_stencil_conv" },
	{ "conv_norm", "batchnorm_kernel", "vectorize_memory", "f.flat_quotient_lookups" },
	{ "conv_norm", "relu_kernel", "vectorize_memory", "f.streaming_no_reuse ev.has_vec128_global" },
	{ "cross_entropy", "cross_entropy_kernel", "coop_rows", "f.kernel_structure" },
	{ "cumsum", "cumsum_kernel", "coop_rows", "f.uncoalesced_accesses" },
	{ "gelu", "gelu_kernel", "vectorize_memory", "f.streaming_no_reuse" },
	{ "gemm_batched", "gemm_batched_naive", "gemm_register_blocking", "f.is_naive_gemm" },
	{ "gemm_bias_act_scale", "gemm_naive", "gemm_register_blocking", "f.is_gemm_kloop f.is_naive_gemm" },
	{ "gemm_bias_act_scale", "add_bias", "vectorize_memory", "f.streaming_no_reuse" },
	{ "gemm_bias_act_scale", "gelu", "vectorize_memory", "ev.has_vec128_global" },
	{ "gemm_bias_act_scale", "scale", "vectorize_memory", "f.streaming_no_reuse" },
	{ "gemm_square", "gemm_naive", "gemm_register_blocking", "f.is_naive_gemm" },
	{ "gemm_tall_skinny", "gemm_naive", "gemm_register_blocking", "f.is_naive_gemm" },
	{ "gemm_transposed", "gemm_tn_naive", "gemm_register_blocking", "f.is_naive_gemm" },
	{ "gemv", "gemv_naive", "gemv_warp_per_row", "f.has_k_loop f.uncoalesced_accesses" },
	{ "histogram", "histogram_kernel", "smem_histogram", "f.atomics" },
	{ "layernorm", "layernorm_kernel", "coop_rows", "f.kernel_structure" },
	{ "log_softmax", "log_softmax_kernel", "coop_rows", "f.uncoalesced_accesses" },
	{ "maxpool", "maxpool_kernel", "reduce_index_arithmetic", "m.sm_pct" },
	{ "mse_loss", "mse_atomic_kernel", "atomic_hierarchical_reduce", "f.atomics_uniform_address d.memory_idle" },
	{ "mse_loss", "mse_finish_kernel", "kernel_fusion", "m.duration_ns f.cudagraph_eligible" },
	{ "permute3d", "permute3d_kernel", "smem_tiled_transpose", "m.l2_pct m.dram_pct" },
	{ "reduce_max", "reduce_max_kernel", "increase_ilp", "f.kernel_structure" },
	{ "reduce_sum", "reduce_sum_kernel", "coop_rows", "f.uncoalesced_accesses" },
	{ "relu", "relu_kernel", "vectorize_memory", "f.streaming_no_reuse" },
	{ "rmsnorm", "rmsnorm_kernel", "coop_rows", "f.uncoalesced_accesses" },
	{ "sigmoid", "sigmoid_kernel", "vectorize_memory", "f.streaming_no_reuse" },
	{ "softmax", "softmax_kernel", "coop_rows", "f.kernel_structure f.uncoalesced_accesses" },
	{ "softplus", "softplus_kernel", "vectorize_memory", "f.streaming_no_reuse" },
	{ "transpose", "transpose_kernel", "smem_tiled_transpose", "f.uncoalesced_accesses" },
};

static cJSON *
load_fixture(const char *program)
{
	char *path = ks_xasprintf("tests/data/policy/bench/%s.json", program);
	struct ks_buf text = KS_BUF_INIT, err = KS_BUF_INIT;
	cJSON *j = NULL;

	if (!ks_fs_read(path, &text, &err))
		j = cJSON_Parse(text.buf);
	ks_buf_release(&text);
	ks_buf_release(&err);
	free(path);
	return j;
}

static const cJSON *
fixture_kernel(const cJSON *fx, const char *name)
{
	const cJSON *k;

	cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(fx, "kernels")) {
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(k, "kernel");

		if (cJSON_IsString(n) && !strcmp(n->valuestring, name))
			return k;
	}
	return NULL;
}

/* The plan for a fixture kernel; `counters` 0 leaves the metrics out. */
static int
plan_fixture(const cJSON *k, int counters, struct ks_policy_values *v, struct ks_plan *pl)
{
	ks_policy_values_init(v, &lib_policy);
	ks_cli_plan_values(&lib_policy, v, k, cJSON_GetObjectItemCaseSensitive(k, "evidence"),
			   counters ? cJSON_GetObjectItemCaseSensitive(k, "metrics") : NULL,
			   cJSON_GetObjectItemCaseSensitive(k, "block"),
			   cJSON_GetObjectItemCaseSensitive(k, "grid"), 0);
	ks_policy_plan(&lib_policy, v, pl);
	return 0;
}

TEST(policy_bench_fixtures)
{
	size_t i, kernels = 0;
	int failed = 0;
	cJSON *fx;

	CHECK_INT_EQ(0, load_library());
	for (i = 0; i < KS_ARRAY_SIZE(expected); i++) {
		const struct expect *e = &expected[i];
		const cJSON *k, *m;
		struct ks_policy_values v;
		struct ks_plan pl;
		char *names, *tok, *save = NULL;

		fx = load_fixture(e->program);
		k = fx ? fixture_kernel(fx, e->kernel) : NULL;
		m = k ? cJSON_GetObjectItemCaseSensitive(k, "metrics") : NULL;
		if (!k || !cJSON_GetObjectItemCaseSensitive(m, "dram_pct")) {
			fprintf(stderr, "%s:%s: no fixture with counters\n", e->program, e->kernel);
			failed = 1;
			cJSON_Delete(fx);
			continue;
		}
		kernels++;
		plan_fixture(k, 1, &v, &pl);
		if (!pl.tier || !pl.counters || !pl.nallowed ||
		    strcmp(pl.allowed[0].skill, e->top)) {
			fprintf(stderr, "%s:%s: want %s first, got %s\n", e->program, e->kernel,
				e->top, pl.nallowed ? pl.allowed[0].skill : "nothing");
			failed = 1;
		} else {
			names = ks_xstrdup(e->names);
			for (tok = strtok_r(names, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
				if (!strstr(pl.allowed[0].why, tok)) {
					fprintf(stderr, "%s:%s: the justification '%s' does not "
						"name %s\n", e->program, e->kernel,
						pl.allowed[0].why, tok);
					failed = 1;
				}
			free(names);
		}
		ks_plan_release(&pl);
		ks_policy_values_release(&v);
		cJSON_Delete(fx);
	}
	CHECK(!failed);
	CHECK_INT_EQ(KS_ARRAY_SIZE(expected), kernels);
}

/* Every kernel of every fixture is in the table above. */
TEST(policy_fixtures_all_expected)
{
	static const char *const programs[] = {
		"argmax", "avgpool", "conv2d", "conv_norm", "cross_entropy", "cumsum",
		"gelu", "gemm_batched", "gemm_bias_act_scale", "gemm_square",
		"gemm_tall_skinny", "gemm_transposed", "gemv", "histogram", "layernorm",
		"log_softmax", "maxpool", "mse_loss", "permute3d", "reduce_max",
		"reduce_sum", "relu", "rmsnorm", "sigmoid", "softmax", "softplus",
		"transpose", NULL,
	};
	size_t i, j, n = 0;
	int failed = 0;

	for (i = 0; programs[i]; i++) {
		cJSON *fx = load_fixture(programs[i]);
		const cJSON *k;

		CHECK(fx != NULL);
		cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(fx, "kernels")) {
			const char *name = cJSON_GetObjectItemCaseSensitive(k, "kernel")->valuestring;
			int found = 0;

			for (j = 0; j < KS_ARRAY_SIZE(expected); j++)
				found |= !strcmp(expected[j].program, programs[i]) &&
					!strcmp(expected[j].kernel, name);
			if (!found) {
				fprintf(stderr, "%s:%s has no expected skill\n", programs[i], name);
				failed = 1;
			}
			n++;
		}
		cJSON_Delete(fx);
	}
	CHECK(!failed);
	CHECK_INT_EQ(KS_ARRAY_SIZE(expected), n);
}

/*
 * Without counters (no CUPTI, no ncu) the features and the compiler
 * evidence alone still give the expert's pick for these, and the plan
 * says which cases it skipped and why.
 */
TEST(policy_without_counters)
{
	static const struct expect nocounters[] = {
		{ "gemm_square", "gemm_naive", "gemm_register_blocking", "f.is_naive_gemm" },
		{ "softmax", "softmax_kernel", "coop_rows", "f.uncoalesced_accesses" },
		{ "mse_loss", "mse_atomic_kernel", "atomic_hierarchical_reduce", "f.atomics_uniform_address" },
		{ "transpose", "transpose_kernel", "smem_tiled_transpose", "f.uncoalesced_accesses" },
		{ "relu", "relu_kernel", "vectorize_memory", "f.streaming_no_reuse" },
		{ "gemv", "gemv_naive", "gemv_warp_per_row", "f.has_k_loop" },
		{ "conv2d", "conv2d_kernel", "conv_tiling", "f.is_stencil_conv" },
		{ "layernorm", "layernorm_kernel", "coop_rows", "f.kernel_structure" },
	};
	size_t i;
	int failed = 0;

	CHECK_INT_EQ(0, load_library());
	for (i = 0; i < KS_ARRAY_SIZE(nocounters); i++) {
		const struct expect *e = &nocounters[i];
		cJSON *fx = load_fixture(e->program);
		const cJSON *k = fx ? fixture_kernel(fx, e->kernel) : NULL;
		struct ks_policy_values v;
		struct ks_plan pl;
		struct ks_buf text = KS_BUF_INIT;

		if (!k) {
			failed = 1;
			cJSON_Delete(fx);
			continue;
		}
		plan_fixture(k, 0, &v, &pl);
		ks_plan_format(&pl, &text);
		if (pl.counters || pl.tier || !pl.nallowed || strcmp(pl.allowed[0].skill, e->top) ||
		    !strstr(pl.allowed[0].why, e->names) || !pl.nskipped ||
		    !strstr(text.buf, "no counters") || !strstr(text.buf, "needs m.")) {
			fprintf(stderr, "%s:%s without counters: want %s first, got:\n%s",
				e->program, e->kernel, e->top, text.buf);
			failed = 1;
		}
		ks_buf_release(&text);
		ks_plan_release(&pl);
		ks_policy_values_release(&v);
		cJSON_Delete(fx);
	}
	CHECK(!failed);
}

/* Tier L caps the promise; vetoes and preconditions show in the plan. */
TEST(policy_tier_cap_and_vetoes)
{
	cJSON *fx;
	const cJSON *k;
	struct ks_policy_values v;
	struct ks_plan pl;
	size_t i;
	int fast_math_forbidden = 0, geometry_precondition = 0;

	CHECK_INT_EQ(0, load_library());
	fx = load_fixture("reduce_max");
	k = fixture_kernel(fx, "reduce_max_kernel");
	CHECK(k != NULL);
	plan_fixture(k, 1, &v, &pl);
	CHECK_STR_EQ("L", pl.tier);		/* DRAM at 87% of peak */
	CHECK_STR_EQ("small", pl.allowed[0].gain);
	ks_plan_release(&pl);
	ks_policy_values_release(&v);
	cJSON_Delete(fx);
	fx = load_fixture("conv_norm");
	k = fixture_kernel(fx, "batchnorm_kernel");
	plan_fixture(k, 1, &v, &pl);
	for (i = 0; i < pl.nforbidden; i++) {
		fast_math_forbidden |= !strcmp(pl.forbidden[i].rule, "veto precision");
		geometry_precondition |= !strcmp(pl.forbidden[i].skill, "launch_geometry") &&
			!strcmp(pl.forbidden[i].rule, "precondition") &&
			strstr(pl.forbidden[i].why, "f.geometry_retunable = 0") != NULL;
	}
	CHECK(!fast_math_forbidden);	/* no transcendental: never allowed */
	CHECK(geometry_precondition);
	ks_plan_release(&pl);
	ks_policy_values_release(&v);
	cJSON_Delete(fx);
	/* Divergence: softplus's data branch splits warps; relu runs no
	 * branch at all (branch_uniform_pct 0 means none executed). */
	{
		static const char *const progs[] = { "softplus", "relu" };
		int j;

		for (j = 0; j < 2; j++) {
			int divergent = 0;

			fx = load_fixture(progs[j]);
			k = fixture_kernel(fx, j ? "relu_kernel" : "softplus_kernel");
			plan_fixture(k, 1, &v, &pl);
			for (i = 0; i < pl.nallowed; i++)
				divergent |= !strcmp(pl.allowed[i].skill, "warp_uniform_control_flow");
			CHECK_INT_EQ(!j, divergent);
			ks_plan_release(&pl);
			ks_policy_values_release(&v);
			cJSON_Delete(fx);
		}
	}
	fx = load_fixture("sigmoid");
	k = fixture_kernel(fx, "sigmoid_kernel");
	plan_fixture(k, 1, &v, &pl);
	for (i = 0; i < pl.nallowed; i++)
		CHECK(strcmp(pl.allowed[i].skill, "fast_math_intrinsics"));
	ks_plan_release(&pl);
	ks_policy_values_release(&v);
	cJSON_Delete(fx);
}

/* The rank of `skill` among the allowed, or -1. */
static int
allowed_rank(const struct ks_plan *pl, const char *skill)
{
	for (size_t i = 0; i < pl->nallowed; i++)
		if (!strcmp(pl->allowed[i].skill, skill))
			return (int)i;
	return -1;
}

/*
 * A flat index divided by uniform values only to look up per-slice
 * values (batchnorm's shape, f.flat_quotient_lookups): vectorize_memory
 * first, before derived_grid, whatever the counters say; without the
 * fact (any other kernel the SMs keep busy) derived_grid keeps its place
 * in compute_bound's case and vectorize_memory comes after it; a kernel
 * already 128-bit gets neither from this rule.
 */
TEST(policy_flat_quotients_rank_vectorize_first)
{
	cJSON *fx;
	const cJSON *k;
	struct ks_policy_values v;
	struct ks_plan pl;
	int vm, dg;

	CHECK_INT_EQ(0, load_library());
	fx = load_fixture("conv_norm");
	k = fixture_kernel(fx, "batchnorm_kernel");
	CHECK(k != NULL);
	plan_fixture(k, 1, &v, &pl);
	vm = allowed_rank(&pl, "vectorize_memory");
	dg = allowed_rank(&pl, "derived_grid");
	CHECK_INT_EQ(0, vm);
	CHECK(dg > vm);
	CHECK_STR_EQ("quotient_lookups", pl.allowed[0].bucket);
	CHECK(strstr(pl.allowed[0].why, "f.flat_quotient_lookups") != NULL);
	ks_plan_release(&pl);
	/* without the fact: compute_bound's derived_grid before it */
	ks_policy_set(&lib_policy, &v, "f.flat_quotient_lookups", 0);
	ks_policy_plan(&lib_policy, &v, &pl);
	vm = allowed_rank(&pl, "vectorize_memory");
	dg = allowed_rank(&pl, "derived_grid");
	CHECK(dg >= 0);
	CHECK(vm < 0 || vm > dg);
	ks_plan_release(&pl);
	/* with no counters the rule still holds: it reads facts only */
	ks_policy_values_release(&v);
	plan_fixture(k, 0, &v, &pl);
	CHECK_INT_EQ(0, allowed_rank(&pl, "vectorize_memory"));
	ks_plan_release(&pl);
	/* already 128-bit: the veto removes vectorize_memory */
	ks_policy_values_release(&v);
	plan_fixture(k, 1, &v, &pl);
	ks_plan_release(&pl);
	ks_policy_set(&lib_policy, &v, "ev.has_vec128_global", 1);
	ks_policy_plan(&lib_policy, &v, &pl);
	CHECK_INT_EQ(-1, allowed_rank(&pl, "vectorize_memory"));
	ks_plan_release(&pl);
	ks_policy_values_release(&v);
	cJSON_Delete(fx);
}

/* --- cross-task statistics ------------------------------------------------ */

static void
outcome(struct ks_outcome *o, const char *skill, const char *bucket, const char *result,
	double speedup, int structure)
{
	memset(o, 0, sizeof(*o));
	o->time = ks_xstrdup("2026-12-01T10:00:00Z");
	o->skill = ks_xstrdup(skill);
	o->params = ks_xstrdup("");
	o->kernel = ks_xstrdup("_Z1kv");
	o->bucket = ks_xstrdup(bucket);
	o->case_id = ks_xstrdup("c");
	o->result = ks_xstrdup(result);
	o->speedup = speedup;
	o->nfeatures = 2;
	o->fnames = ks_xcalloc(2, sizeof(*o->fnames));
	o->fvalues = ks_xcalloc(2, sizeof(*o->fvalues));
	o->fnames[0] = ks_xstrdup("f.kernel_structure");
	o->fvalues[0] = structure;
	o->fnames[1] = ks_xstrdup("f.is_pointwise");
	o->fvalues[1] = structure == 0;
}

TEST(knowledge_check_costs)
{
	const char *dir = test_tmpdir();
	struct ks_check_cost a = { "_Z1kv", "gemm_register_blocking", 7000, 155600 };
	struct ks_check_cost b = { "_Z1kv", "vectorize_memory", 8000, 12000 };
	static const char *const gemm[] = { "coop_rows", "gemm_register_blocking" };
	static const char *const vec[] = { "vectorize_memory" };
	static const char *const other[] = { "coop_rows" };
	struct ks_buf line = KS_BUF_INIT, text = KS_BUF_INIT, err = KS_BUF_INIT;

	ks_check_cost_json(&a, "2026-12-04T09:00:00Z", &line);
	CHECK_STR_EQ("{\"format\": 1, \"time\": \"2026-12-04T09:00:00Z\", \"kernel\": "
		     "\"_Z1kv\", \"skill\": \"gemm_register_blocking\", \"seed_ms\": "
		     "7000.000, \"check_ms\": 155600.000}\n", line.buf);
	/* none kept yet: an empty text */
	CHECK(ks_knowledge_checks_load(dir, &text, &err) == 0);
	CHECK_INT_EQ(0, (int)text.len);
	CHECK(ks_knowledge_check_append(dir, &a, 1000, &err) == 0);
	CHECK(ks_knowledge_check_append(dir, &b, 1000, &err) == 0);
	CHECK(ks_knowledge_checks_load(dir, &text, &err) == 0);
	/* the dearest check of the skills asked about, in seeds */
	CHECK(fabs(ks_check_ratio(text.buf, gemm, 2) - 155600.0 / 7000) < 1e-9);
	CHECK(fabs(ks_check_ratio(text.buf, vec, 1) - 1.5) < 1e-9);
	CHECK(ks_check_ratio(text.buf, other, 1) == 0);
	CHECK(ks_check_ratio(text.buf, NULL, 0) == 0);
	/* the dear check ages out after KS_CHECK_RECENT newer ones of its
	   skill (a cheaper checker since): the dearest of the recent ones */
	a.check_ms = 21000;
	for (int i = 0; i < KS_CHECK_RECENT - 1; i++)
		CHECK(ks_knowledge_check_append(dir, &a, 1000, &err) == 0);
	ks_buf_reset(&text);
	CHECK(ks_knowledge_checks_load(dir, &text, &err) == 0);
	CHECK(fabs(ks_check_ratio(text.buf, gemm, 2) - 155600.0 / 7000) < 1e-9);
	a.check_ms = 14000;
	CHECK(ks_knowledge_check_append(dir, &a, 1000, &err) == 0);
	ks_buf_reset(&text);
	CHECK(ks_knowledge_checks_load(dir, &text, &err) == 0);
	CHECK(fabs(ks_check_ratio(text.buf, gemm, 2) - 3.0) < 1e-9);
	CHECK(fabs(ks_check_ratio(text.buf, vec, 1) - 1.5) < 1e-9);
	/* a line that does not parse, or has no seed, is passed over */
	CHECK(ks_check_ratio("garbage\n{\"skill\": \"coop_rows\", \"seed_ms\": 0, "
			     "\"check_ms\": 5}\n", other, 1) == 0);
	ks_buf_release(&line);
	ks_buf_release(&text);
	ks_buf_release(&err);
}

TEST(knowledge_store_and_rank)
{
	const char *dir = test_tmpdir();
	struct ks_outcome o;
	struct ks_knowledge k = { 0 };
	struct ks_buf err = KS_BUF_INIT, out = KS_BUF_INIT, exp = KS_BUF_INIT;
	struct ks_policy_values v;
	struct ks_plan pl;
	cJSON *fx;
	const cJSON *kj;
	size_t added, i;

	CHECK_INT_EQ(0, load_library());
	/* Two measured outcomes on pointwise S0 kernels: launch geometry won
	 * 1.5x, vectorization failed once. */
	outcome(&o, "launch_geometry", "streaming", "faster", 1.5, 0);
	CHECK_INT_EQ(0, ks_knowledge_append(dir, &o, 1000, &err));
	ks_outcome_json(&o, &exp);
	ks_outcome_release(&o);
	outcome(&o, "vectorize_memory", "streaming", "incorrect", 0, 0);
	CHECK_INT_EQ(0, ks_knowledge_append(dir, &o, 1000, &err));
	ks_outcome_json(&o, &exp);
	ks_outcome_release(&o);
	/* One on a different kind of kernel (S3, not pointwise) does not
	 * count for this one. */
	outcome(&o, "restrict_readonly", "streaming", "faster", 4.0, 3);
	CHECK_INT_EQ(0, ks_knowledge_append(dir, &o, 1000, &err));
	ks_outcome_release(&o);
	CHECK_INT_EQ(0, ks_knowledge_load(dir, &k, &err));
	CHECK_INT_EQ(3, k.n);
	CHECK_STR_EQ("incorrect", k.v[1].result);
	ks_knowledge_summary(&k, 0, &out);
	CHECK(strstr(out.buf, "launch_geometry") && strstr(out.buf, "1.50x"));

	fx = load_fixture("relu");
	kj = fixture_kernel(fx, "relu_kernel");
	plan_fixture(kj, 1, &v, &pl);
	CHECK_STR_EQ("vectorize_memory", pl.allowed[0].skill);
	CHECK_STR_EQ("launch_geometry", pl.allowed[1].skill);
	ks_policy_rank(&lib_policy, &v, &k, &pl);
	/* Re-ranked: the measured winner first, the failure last; the rest
	 * keep the policy's order. */
	CHECK_STR_EQ("launch_geometry", pl.allowed[0].skill);
	CHECK_INT_EQ(1, pl.allowed[0].evidence);
	CHECK(pl.allowed[0].score > 0);
	CHECK_STR_EQ("vectorize_memory", pl.allowed[pl.nallowed - 1].skill);
	CHECK(pl.allowed[pl.nallowed - 1].score < 0);
	for (i = 1; i + 2 < pl.nallowed; i++)
		CHECK(pl.allowed[i].policy_rank < pl.allowed[i + 1].policy_rank);
	for (i = 0; i < pl.nallowed; i++)
		if (!strcmp(pl.allowed[i].skill, "restrict_readonly"))
			CHECK_INT_EQ(0, pl.allowed[i].evidence);
	ks_plan_release(&pl);
	ks_policy_values_release(&v);
	cJSON_Delete(fx);

	/* Import: lines already there are skipped, new ones added once. */
	ks_buf_adds(&exp, "\n");
	outcome(&o, "coop_rows", "row_serial", "faster", 6.0, 3);
	ks_outcome_json(&o, &exp);
	ks_outcome_json(&o, &exp);
	ks_outcome_release(&o);
	CHECK_INT_EQ(0, ks_knowledge_import(dir, "x.jsonl", exp.buf, 1000, &added, &err));
	CHECK_INT_EQ(1, added);
	ks_knowledge_release(&k);
	CHECK_INT_EQ(0, ks_knowledge_load(dir, &k, &err));
	CHECK_INT_EQ(4, k.n);
	ks_knowledge_release(&k);
	CHECK_INT_EQ(-1, ks_knowledge_parse("bad.jsonl", "{\"format\": 1}\n", &k, &err));
	CHECK(strstr(err.buf, "bad.jsonl:1: an outcome needs") != NULL);
	ks_knowledge_release(&k);
	ks_buf_release(&err);
	ks_buf_release(&out);
	ks_buf_release(&exp);
}

void
ks_suite_policy(void)
{
	RUN(policy_library_loads);
	RUN(policy_load_errors);
	RUN(policy_unjudged_gain);
	RUN(policy_plan_mini);
	RUN(policy_bench_fixtures);
	RUN(policy_fixtures_all_expected);
	RUN(policy_without_counters);
	RUN(policy_tier_cap_and_vetoes);
	RUN(policy_flat_quotients_rank_vectorize_first);
	RUN(knowledge_store_and_rank);
	RUN(knowledge_check_costs);
	ks_policy_release(&lib_policy);
	ks_skills_release(&lib_skills);
}
