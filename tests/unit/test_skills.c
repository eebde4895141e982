/*
 * Unit tests of src/memory/skills and src/memory/yaml: a valid skill file,
 * and every class of malformed file giving a clear error with file and
 * line; prompt rendering.
 */
#include <stdlib.h>
#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/core/util.h"
#include "../../src/memory/skills.h"
#include "../../src/memory/yaml.h"
#include "test.h"

void ks_suite_skills(void);

static const char good[] =
	"---\n"				/* 1 */
	"id: demo\n"			/* 2 */
	"title: A demo\n"
	"category: memory\n"
	"intent: show the format\n"
	"mechanism: nothing\n"
	"requires:\n"
	"  - \"f.is_pointwise\"\n"	/* 8 */
	"expected:\n"
	"  duration_ns: down\n"		/* 10 */
	"forbidden: [\"nothing\"]\n"
	"risks:\n"
	"  precision: none\n"
	"transform: none\n"
	"planned_transform: demo\n"	/* 15 */
	"---\n"				/* 16 */
	"# A demo\n"			/* 17 */
	"\n"
	"## Guidance\n"			/* 19 */
	"\n"
	"Do it.\n"
	"\n"
	"```cuda before\n"		/* 23 */
	"__global__ void k(float *x) { x[0] = 1; }\n"	/* 24 */
	"```\n"
	"\n"
	"```cuda after\n"		/* 27 */
	"__global__ void k(float *x) { x[0] = 2; }\n"	/* 28 */
	"```\n";

TEST(skill_parse_good)
{
	struct ks_skill s = { 0 };
	struct ks_buf err = KS_BUF_INIT;

	CHECK_INT_EQ(0, ks_skill_parse("skills/demo.md", good, strlen(good), &s, &err));
	CHECK_STR_EQ("demo", s.id);
	CHECK_STR_EQ("memory", s.category);
	CHECK_INT_EQ(1, s.nrequires);
	CHECK_STR_EQ("f.is_pointwise", s.requires[0].text);
	CHECK_INT_EQ(8, s.requires[0].line);
	CHECK_INT_EQ(1, s.nexpected);
	CHECK_STR_EQ("duration_ns", s.expected[0].metric);
	CHECK_INT_EQ(-1, s.expected[0].direction);
	CHECK_INT_EQ(10, s.expected[0].line);
	CHECK_NULL(s.transform);
	CHECK_STR_EQ("demo", s.planned_transform);
	CHECK_STR_EQ("Do it.", s.guidance);
	CHECK_INT_EQ(24, s.before.line);
	CHECK_INT_EQ(28, s.after.line);
	CHECK(strstr(s.after.text, "x[0] = 2") != NULL);
	CHECK_STR_EQ("none", s.risk_precision);
	ks_skill_release(&s);
	ks_buf_release(&err);
}

/* `good` with the first occurrence of `from` replaced by `to`. */
static char *
variant(const char *from, const char *to)
{
	const char *at = strstr(good, from);
	struct ks_buf b = KS_BUF_INIT;

	if (!at)
		return NULL;
	ks_buf_add(&b, good, (size_t)(at - good));
	ks_buf_adds(&b, to);
	ks_buf_adds(&b, at + strlen(from));
	return ks_buf_detach(&b, NULL);
}

/* Each malformed file: the message must name the file and the line. */
static const struct {
	const char *from, *to, *want;
} bad[] = {
	{ "---\nid: demo", "id: demo", "skills/demo.md:1: a skill file starts with a '---'" },
	{ "---\n# A demo", "# A demo", "skills/demo.md:1: the front matter does not end" },
	{ "title: A demo\n", "title: [A demo\n", "skills/demo.md:4: did not find expected ',' or ']' while parsing a flow sequence (started on line 3)" },
	{ "title: A demo\n", "", "skills/demo.md:2: 'title' is missing" },
	{ "title: A demo\n", "title: A demo\ncolour: red\n", "skills/demo.md:4: unknown field 'colour'" },
	{ "title: A demo\n", "title: [a, b]\n", "skills/demo.md:3: 'title' must be text, not a list" },
	{ "id: demo\n", "id: other\n", "skills/demo.md:2: id 'other' does not match the file name" },
	{ "category: memory\n", "category: magic\n", "skills/demo.md:4: unknown category 'magic'" },
	{ "  duration_ns: down\n", "  duration_ns: sideways\n", "skills/demo.md:10: expected 'duration_ns': the direction must be up or down" },
	{ "  duration_ns: down\n", "  duration_ns: down\n  duration_ns: up\n", "skills/demo.md:11: 'duration_ns' appears twice" },
	{ "  precision: none\n", "  luck: none\n", "skills/demo.md:13: unknown risk 'luck'" },
	{ "transform: none\n", "transform: demo\n", "skills/demo.md:15: 'planned_transform' is only for 'transform: none'" },
	{ "requires:\n  - \"f.is_pointwise\"\n", "requires:\n  - [1, 2]\n", "skills/demo.md:8: each entry of 'requires' must be text, not a list" },
	{ "## Guidance\n", "## Advice\n", "skills/demo.md:17: no '## Guidance' section" },
	{ "\nDo it.\n", "\n", "skills/demo.md:19: the guidance is empty" },
	{ "```cuda after\n", "```cuda before\n", "skills/demo.md:27: a second '```cuda before' block" },
	{ "x[0] = 2; }\n```\n", "x[0] = 2; }\n", "skills/demo.md:27: the example block does not end" },
	{ "```cuda after\n__global__ void k(float *x) { x[0] = 2; }\n```\n", "", "skills/demo.md:17: no '```cuda after' example block" },
	{ "forbidden: [\"nothing\"]\n", "forbidden: []\n", "skills/demo.md:11: 'forbidden' is empty" },
	{ "---\n# A demo", "parameters:\n  - {name: v, values: [1, 2], default: 3, doc: x}\n---\n# A demo",
	  "skills/demo.md:17: parameter 'v': the default is not one of the values" },
	{ "---\n# A demo", "parameters: [{name: v, values: [a], default: 1, doc: x}]\n---\n# A demo",
	  "skills/demo.md:16: parameter 'v': values must be integers" },
};

TEST(skill_parse_malformed)
{
	size_t i;
	int failed = 0;

	for (i = 0; i < KS_ARRAY_SIZE(bad); i++) {
		char *text = variant(bad[i].from, bad[i].to);
		struct ks_skill s = { 0 };
		struct ks_buf err = KS_BUF_INIT;

		if (!text) {
			fprintf(stderr, "case %zu: '%s' not in the good file\n", i, bad[i].from);
			failed = 1;
			continue;
		}
		if (ks_skill_parse("skills/demo.md", text, strlen(text), &s, &err) == 0 ||
		    strncmp(err.buf, bad[i].want, strlen(bad[i].want))) {
			fprintf(stderr, "case %zu: want '%s', got '%s'\n", i, bad[i].want, err.buf);
			failed = 1;
		}
		ks_skill_release(&s);
		ks_buf_release(&err);
		free(text);
	}
	CHECK(!failed);
}

TEST(skills_load_dir)
{
	const char *dir = test_tmpdir();
	char *two = variant("id: demo\n", "id: demo2\n");
	struct ks_skills sk = { 0 };
	struct ks_buf err = KS_BUF_INIT;

	test_write(dir, "demo.md", good);
	test_write(dir, "demo2.md", two);
	test_write(dir, "README.md", "not a skill\n");
	CHECK_INT_EQ(0, ks_skills_load(dir, &sk, &err));
	CHECK_INT_EQ(2, sk.n);
	CHECK_STR_EQ("demo", sk.v[0].id);
	CHECK(ks_skills_find(&sk, "demo2") != NULL);
	CHECK_NULL(ks_skills_find(&sk, "demo3"));
	ks_skills_release(&sk);
	/* Two broken files: both are reported, one line each. */
	test_write(dir, "demo.md", "no front matter\n");
	test_write(dir, "demo2.md", "---\nid: demo2\n");
	CHECK_INT_EQ(-1, ks_skills_load(dir, &sk, &err));
	CHECK(strstr(err.buf, "demo.md:1: a skill file starts") != NULL);
	CHECK(strstr(err.buf, "\n") != NULL);
	CHECK(strstr(err.buf, "demo2.md:1: the front matter does not end") != NULL);
	ks_buf_release(&err);
	free(two);
}

TEST(skill_render_prompt)
{
	struct ks_skill s = { 0 };
	struct ks_buf err = KS_BUF_INIT, out = KS_BUF_INIT;

	CHECK_INT_EQ(0, ks_skill_parse("skills/demo.md", good, strlen(good), &s, &err));
	CHECK_INT_EQ(0, ks_skill_render("p.md", "# {{title}} ({{id}})\n{{guidance}}\n"
					"{{expected}}\n{{plan}}\n", &s, &out, &err));
	CHECK_STR_EQ("# A demo (demo)\nDo it.\nduration_ns down\n{{plan}}\n", out.buf);
	ks_buf_reset(&out);
	CHECK_INT_EQ(-1, ks_skill_render("p.md", "a\nb {{nonsense}}\n", &s, &out, &err));
	CHECK(strstr(err.buf, "p.md:2: unknown placeholder {{nonsense}}") != NULL);
	ks_skill_release(&s);
	ks_buf_release(&err);
	ks_buf_release(&out);
}

TEST(yaml_lines_and_duplicates)
{
	struct ks_buf err = KS_BUF_INIT;
	const char text[] = "a: 1\nb:\n  - x\n  - y\nc: {d: 2}\n";
	struct ks_ynode *n = ks_yaml_parse("t.yaml", text, strlen(text), 1, &err);
	const struct ks_ynode *b;

	CHECK(n != NULL);
	CHECK_INT_EQ(KS_Y_MAP, n->kind);
	b = ks_ynode_get(n, "b");
	CHECK(b && b->kind == KS_Y_SEQ && b->n == 2);
	CHECK_INT_EQ(4, b->items[1]->line);
	CHECK_STR_EQ("y", b->items[1]->str);
	ks_ynode_free(n);
	n = ks_yaml_parse("t.yaml", "a: 1\na: 2\n", 10, 1, &err);
	CHECK_NULL(n);
	CHECK(strstr(err.buf, "t.yaml:2: 'a' appears twice") != NULL);
	ks_buf_release(&err);
}

void
ks_suite_skills(void)
{
	RUN(skill_parse_good);
	RUN(skill_parse_malformed);
	RUN(skills_load_dir);
	RUN(skill_render_prompt);
	RUN(yaml_lines_and_duplicates);
}
