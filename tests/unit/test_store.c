/* Unit tests of src/cache/store: the variant cache's put and lookup, the
 * hash check, escaping in variant.json, secondary caches, concurrent
 * writers and readers, removal and the least-recently-used trim. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../src/cache/store.h"
#include "../../src/core/buf.h"
#include "../../src/core/fs.h"
#include "../../src/core/util.h"
#include "test.h"

void ks_suite_store(void);

#define KEY1 "0123456789abcdef0123456789abcdef"
#define KEY2 "fedcba9876543210fedcba9876543210"

static const char variant[] =
	"// scale, verified on sm_90\n"
	"// ks-nvcc: definition\n"
	"__global__ void scale(float *x, float a, int n)\n"
	"{\n"
	"\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"\tif (i < n && n != 0x5eed)\n"
	"\t\tx[i] *= a;\n"
	"}\n";

static void
meta_init(struct ks_store_meta *m, const char *key)
{
	static const char *const caps[] = { "/k/caps/scale/0", "/k/caps/\"q\"\\1" };

	memset(m, 0, sizeof(*m));
	m->kernel = "_Z5scalePffi";
	m->demangled = "scale(float*, float, int)";
	m->key = key;
	m->arch = 900;
	m->source = "/src/a \"b\"\n\tc.cu";
	m->orig_ms = 2.0, m->orig_lo_ms = 1.9, m->orig_hi_ms = 2.1;
	m->var_ms = 1.0, m->var_lo_ms = 0.9, m->var_hi_ms = 1.1;
	m->speedup = 2.0;
	m->captures = caps;
	m->ncaptures = 2;
	m->evidence = "{\"max_abs\": 0, \"runs\": [1, 2]}";
	m->trail = "[\"vectorize\"]";
	m->rounds = 3;
	m->model = "none";
	m->ks_version = "0.1";
}

static int
get1(const char *dir, const char *key, struct ks_store_entry *e,
     unsigned *corrupt)
{
	const char *dirs[] = { dir };
	struct ks_buf err = KS_BUF_INIT;
	int rc = ks_store_get(dirs, 1, key, e, corrupt, &err);

	ks_buf_release(&err);
	return rc;
}

TEST(put_then_get)
{
	const char *cache = test_tmpdir();
	struct ks_store_meta m;
	struct ks_store_entry e = { 0 };
	struct ks_buf err = KS_BUF_INIT, s = KS_BUF_INIT;
	char hash[33];
	unsigned corrupt = 0;
	double num = 0;

	meta_init(&m, KEY1);
	CHECK_INT_EQ(0, ks_store_put(cache, &m, variant, strlen(variant), &err));
	CHECK_INT_EQ(1, get1(cache, KEY1, &e, &corrupt));
	CHECK_INT_EQ(0, corrupt);
	CHECK_INT_EQ(900, e.arch);
	CHECK_STR_EQ("_Z5scalePffi", e.kernel);
	CHECK_INT_EQ(strlen(variant), e.len);
	CHECK(!strcmp(e.variant, variant));
	CHECK(ks_ends_with(e.dir, "/01/" KEY1));
	/* variant.json is JSON, with the strings escaped and the hash. */
	CHECK(ks_store_json_valid(e.json));
	CHECK_INT_EQ(0, ks_store_json_str(e.json, "source", &s));
	CHECK_STR_EQ("/src/a \"b\"\n\tc.cu", s.buf);
	ks_store_hash(variant, strlen(variant), hash);
	ks_buf_reset(&s);
	CHECK_INT_EQ(0, ks_store_json_str(e.json, "variant_xxh3_128", &s));
	CHECK_STR_EQ(hash, s.buf);
	CHECK_INT_EQ(0, ks_store_json_num(e.json, "speedup", &num));
	CHECK(num == 2.0);
	CHECK(strstr(e.json, "\"/k/caps/\\\"q\\\"\\\\1\""));
	CHECK(strstr(e.json, "\"trail\": [\"vectorize\"]"));
	/* A key not there is a miss, not an error. */
	ks_store_entry_release(&e);
	CHECK_INT_EQ(0, get1(cache, KEY2, &e, &corrupt));
	CHECK(e.variant == NULL);
	ks_buf_release(&err);
	ks_buf_release(&s);
}

TEST(hash_is_xxh3_128)
{
	char hash[33];

	/* XXH3-128 of "" (xxh128sum /dev/null). */
	ks_store_hash("", 0, hash);
	CHECK_STR_EQ("99aa06d3014798d86001c324468d497f", hash);
}

TEST(put_refuses)
{
	const char *cache = test_tmpdir();
	struct ks_store_meta m;
	struct ks_buf err = KS_BUF_INIT;
	char path[4096];

	meta_init(&m, "0123");
	CHECK_INT_EQ(-1, ks_store_put(cache, &m, variant, strlen(variant), &err));
	CHECK(strstr(err.buf, "not a kernel key"));
	ks_buf_reset(&err);
	meta_init(&m, "0123456789ABCDEF0123456789ABCDEF");
	CHECK_INT_EQ(-1, ks_store_put(cache, &m, variant, strlen(variant), &err));
	ks_buf_reset(&err);
	meta_init(&m, KEY1);
	CHECK_INT_EQ(-1, ks_store_put(cache, &m, "no markers\n", 11, &err));
	CHECK(strstr(err.buf, "_Z5scalePffi"));
	ks_buf_reset(&err);
	m.evidence = "{\"a\": }";
	CHECK_INT_EQ(-1, ks_store_put(cache, &m, variant, strlen(variant), &err));
	CHECK(strstr(err.buf, "evidence is not JSON"));
	ks_buf_reset(&err);
	meta_init(&m, KEY1);
	m.arch = 0;
	CHECK_INT_EQ(-1, ks_store_put(cache, &m, variant, strlen(variant), &err));
	/* Nothing was left behind by the refusals. */
	snprintf(path, sizeof(path), "%s/01", cache);
	CHECK(!ks_fs_exists(path));
	ks_buf_release(&err);
}

static void
overwrite(const char *dir, const char *name, const char *text)
{
	char *p = ks_fs_join(dir, name);
	FILE *f = fopen(p, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
	free(p);
}

TEST(corrupt_entries_are_skipped_and_counted)
{
	const char *cache = test_tmpdir();
	struct ks_store_meta m;
	struct ks_store_entry e = { 0 };
	struct ks_buf err = KS_BUF_INIT, text = KS_BUF_INIT;
	char *dir, *cu;
	unsigned corrupt = 0;

	meta_init(&m, KEY1);
	CHECK_INT_EQ(0, ks_store_put(cache, &m, variant, strlen(variant), &err));
	dir = ks_store_entry_path(cache, KEY1);
	cu = ks_fs_join(dir, "variant.cu");
	/* Truncated. */
	CHECK_INT_EQ(0, truncate(cu, 20));
	CHECK_INT_EQ(0, get1(cache, KEY1, &e, &corrupt));
	CHECK_INT_EQ(1, corrupt);
	/* Same length, one byte changed. */
	{
		char *bad = ks_xstrdup(variant);
		bad[strlen(bad) - 3] = 'X';
		overwrite(dir, "variant.cu", bad);
		free(bad);
	}
	CHECK_INT_EQ(0, get1(cache, KEY1, &e, &corrupt));
	CHECK_INT_EQ(2, corrupt);
	/* Back to the right bytes: a hit again. */
	overwrite(dir, "variant.cu", variant);
	CHECK_INT_EQ(1, get1(cache, KEY1, &e, &corrupt));
	ks_store_entry_release(&e);
	/* A json that is not JSON, or that names another key. */
	CHECK_INT_EQ(0, ks_fs_read(ks_fs_join(dir, "variant.json"), &text, &err));
	overwrite(dir, "variant.json", "{\"format\": 1, ");
	CHECK_INT_EQ(0, get1(cache, KEY1, &e, &corrupt));
	CHECK_INT_EQ(3, corrupt);
	{
		char *p = strstr(text.buf, KEY1);
		p[0] = 'f';
		overwrite(dir, "variant.json", text.buf);
	}
	CHECK_INT_EQ(0, get1(cache, KEY1, &e, &corrupt));
	CHECK_INT_EQ(4, corrupt);
	/* A missing variant.cu is corrupt too (the json says there is one). */
	unlink(cu);
	CHECK_INT_EQ(0, get1(cache, KEY1, &e, &corrupt));
	free(dir);
	free(cu);
	ks_buf_release(&err);
	ks_buf_release(&text);
}

TEST(secondary_searched_after_primary)
{
	const char *base = test_tmpdir();
	char *prim = ks_fs_join(base, "primary"), *sec = ks_fs_join(base, "sec");
	const char *dirs[] = { prim, sec };
	struct ks_store_meta m;
	struct ks_store_entry e = { 0 };
	struct ks_buf err = KS_BUF_INIT;
	char *cu;
	unsigned corrupt = 0;

	meta_init(&m, KEY1);
	m.arch = 800;
	CHECK_INT_EQ(0, ks_store_put(sec, &m, variant, strlen(variant), &err));
	CHECK_INT_EQ(1, ks_store_get(dirs, 2, KEY1, &e, &corrupt, &err));
	CHECK_INT_EQ(1, e.from);
	CHECK_INT_EQ(800, e.arch);
	ks_store_entry_release(&e);
	m.arch = 900;
	CHECK_INT_EQ(0, ks_store_put(prim, &m, variant, strlen(variant), &err));
	CHECK_INT_EQ(1, ks_store_get(dirs, 2, KEY1, &e, &corrupt, &err));
	CHECK_INT_EQ(0, e.from);
	CHECK_INT_EQ(900, e.arch);
	ks_store_entry_release(&e);
	/* A corrupt primary falls through to the secondary, counted. */
	cu = ks_fs_join(ks_store_entry_path(prim, KEY1), "variant.cu");
	overwrite(ks_store_entry_path(prim, KEY1), "variant.cu", "junk");
	CHECK_INT_EQ(1, ks_store_get(dirs, 2, KEY1, &e, &corrupt, &err));
	CHECK_INT_EQ(1, e.from);
	CHECK_INT_EQ(1, corrupt);
	ks_store_entry_release(&e);
	free(cu);
	free(prim);
	free(sec);
	ks_buf_release(&err);
}

TEST(replace_and_remove)
{
	const char *cache = test_tmpdir();
	struct ks_store_meta m;
	struct ks_store_entry e = { 0 };
	struct ks_store_item *items;
	struct ks_buf err = KS_BUF_INIT;
	size_t n;

	meta_init(&m, KEY1);
	CHECK_INT_EQ(0, ks_store_put(cache, &m, variant, strlen(variant), &err));
	m.arch = 800;
	CHECK_INT_EQ(0, ks_store_put(cache, &m, variant, strlen(variant), &err));
	CHECK_INT_EQ(1, get1(cache, KEY1, &e, NULL));
	CHECK_INT_EQ(800, e.arch);
	ks_store_entry_release(&e);
	meta_init(&m, KEY2);
	CHECK_INT_EQ(0, ks_store_put(cache, &m, variant, strlen(variant), &err));
	CHECK_INT_EQ(0, ks_store_list(cache, &items, &n, &err));
	CHECK_INT_EQ(2, n);
	CHECK_STR_EQ(KEY1, items[0].key);
	CHECK_STR_EQ(KEY2, items[1].key);
	CHECK(items[0].bytes > (long long)strlen(variant));
	ks_store_items_release(items, n);
	CHECK_INT_EQ(0, ks_store_remove(cache, KEY1, &err));
	CHECK_INT_EQ(0, get1(cache, KEY1, &e, NULL));
	CHECK_INT_EQ(-1, ks_store_remove(cache, KEY1, &err));
	CHECK(strstr(err.buf, "no entry"));
	CHECK_INT_EQ(0, ks_store_list(cache, &items, &n, &err));
	CHECK_INT_EQ(1, n);
	ks_store_items_release(items, n);
	ks_buf_release(&err);
}

TEST(json_reader)
{
	struct ks_buf s = KS_BUF_INIT;
	double v = 0;
	const char *j = "{ \"a\": [1, {\"b\": \"x\"}], \"s\": \"\\u00e9\\ud83d\\ude00\\n\","
			" \"n\": -1.5e2 }";

	CHECK(ks_store_json_valid(j));
	CHECK(!ks_store_json_valid("{\"a\": 1,}"));
	CHECK(!ks_store_json_valid("[1] 2"));
	CHECK(!ks_store_json_valid("\"\\ud800\""));
	CHECK(!ks_store_json_valid("01"));
	CHECK_INT_EQ(0, ks_store_json_str(j, "s", &s));
	CHECK_STR_EQ("\xc3\xa9\xf0\x9f\x98\x80\n", s.buf);
	CHECK_INT_EQ(0, ks_store_json_num(j, "n", &v));
	CHECK(v == -150.0);
	CHECK_INT_EQ(-1, ks_store_json_num(j, "s", &v));
	CHECK_INT_EQ(-1, ks_store_json_str(j, "b", &s));	/* not top level */
	ks_buf_release(&s);
}

TEST(trim_plan_least_recently_used)
{
	struct ks_store_item it[4];
	size_t n = 0, i;

	memset(it, 0, sizeof(it));
	for (i = 0; i < 4; i++) {
		snprintf(it[i].key, sizeof(it[i].key), "%032zu", i);
		it[i].bytes = 100;
	}
	it[0].used = 40, it[1].used = 10, it[2].used = 30, it[3].used = 20;
	CHECK_INT_EQ(0, ks_store_plan_trim(it, 4, 400, NULL, &n));
	CHECK_INT_EQ(0, n);
	CHECK_INT_EQ(0, ks_store_plan_trim(it, 4, 0, NULL, &n));
	/* 400 bytes, limit 300: down to 270, two go: the oldest two. */
	CHECK_INT_EQ(1, ks_store_plan_trim(it, 4, 300, NULL, &n));
	CHECK_INT_EQ(2, n);
	CHECK_INT_EQ(10, it[0].used);
	CHECK_INT_EQ(20, it[1].used);
	/* The entry just written is kept even when it is the oldest. */
	it[0].used = 40, it[1].used = 10, it[2].used = 30, it[3].used = 20;
	memcpy(it[1].key, "k", 2);
	CHECK_INT_EQ(1, ks_store_plan_trim(it, 4, 300, "k", &n));
	CHECK_INT_EQ(2, n);
	CHECK_INT_EQ(20, it[0].used);
	CHECK_INT_EQ(30, it[1].used);
}

TEST(parse_size)
{
	long long b = 0;

	CHECK_INT_EQ(0, ks_store_parse_size("1G", &b));
	CHECK_INT_EQ(1LL << 30, b);
	CHECK_INT_EQ(0, ks_store_parse_size("64k", &b));
	CHECK_INT_EQ(65536, b);
	CHECK_INT_EQ(0, ks_store_parse_size("0", &b));
	CHECK_INT_EQ(0, b);
	CHECK_INT_EQ(-1, ks_store_parse_size("1X", &b));
	CHECK_INT_EQ(-1, ks_store_parse_size("-1", &b));
	CHECK_INT_EQ(-1, ks_store_parse_size("", &b));
}

TEST(trim_by_setting_keeps_newest)
{
	const char *cache = test_tmpdir();
	struct ks_store_meta m;
	struct ks_store_entry e = { 0 };
	struct ks_buf err = KS_BUF_INIT;
	char key[33];
	int i;

	/* Each entry is ~1.1 KB; a 3K limit keeps two. */
	setenv("KS_CACHE_MAX_SIZE", "3K", 1);
	for (i = 0; i < 6; i++) {
		char *dir;
		struct timespec t[2];

		snprintf(key, sizeof(key), "%032x", i + 1);
		meta_init(&m, key);
		CHECK_INT_EQ(0, ks_store_put(cache, &m, variant, strlen(variant), &err));
		/* Use times a second apart, oldest first. */
		dir = ks_store_entry_path(cache, key);
		t[0].tv_sec = t[1].tv_sec = 1000000 + i;
		t[0].tv_nsec = t[1].tv_nsec = 0;
		utimensat(0, dir, t, 0);
		free(dir);
	}
	snprintf(key, sizeof(key), "%032x", 6);
	CHECK_INT_EQ(1, get1(cache, key, &e, NULL));
	ks_store_entry_release(&e);
	snprintf(key, sizeof(key), "%032x", 1);
	CHECK_INT_EQ(0, get1(cache, key, &e, NULL));
	{
		struct ks_store_item *items;
		size_t n;
		long long total = 0;
		size_t j;

		CHECK_INT_EQ(0, ks_store_list(cache, &items, &n, &err));
		for (j = 0; j < n; j++)
			total += items[j].bytes;
		CHECK(n >= 1 && n < 6);
		CHECK(total <= 3 * 1024 + 1200);
		ks_store_items_release(items, n);
	}
	ks_buf_release(&err);
}

/*
 * Writers replace one entry with two different variants while readers
 * look it up: every read is a hit on one of the two, whole, and nothing
 * is ever counted corrupt.
 */
TEST(concurrent_put_and_get)
{
	const char *cache = test_tmpdir();
	struct ks_store_meta m;
	struct ks_buf err = KS_BUF_INIT, other = KS_BUF_INIT;
	pid_t pids[4];
	int i, status, bad = 0;

	ks_buf_adds(&other, variant);
	ks_buf_adds(&other, "// a longer second version\n");
	meta_init(&m, KEY1);
	CHECK_INT_EQ(0, ks_store_put(cache, &m, variant, strlen(variant), &err));
	for (i = 0; i < 4; i++) {
		pids[i] = fork();
		CHECK(pids[i] >= 0);
		if (pids[i] == 0) {
			int j, rc = 0;

			for (j = 0; j < 150; j++) {
				if (i < 2) {
					const char *t = (j + i) % 2 ? other.buf : variant;
					if (ks_store_put(cache, &m, t, strlen(t), &err))
						rc = 1;
				} else {
					struct ks_store_entry e = { 0 };
					unsigned c = 0;
					int g = get1(cache, KEY1, &e, &c);

					if (c || g < 0)
						rc = 2;
					if (g == 1 && strcmp(e.variant, variant) &&
					    strcmp(e.variant, other.buf))
						rc = 3;
					ks_store_entry_release(&e);
				}
			}
			_exit(rc);
		}
	}
	for (i = 0; i < 4; i++) {
		waitpid(pids[i], &status, 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			bad = i + 1;
	}
	CHECK_INT_EQ(0, bad);
	{
		struct ks_store_entry e = { 0 };
		CHECK_INT_EQ(1, get1(cache, KEY1, &e, NULL));
		ks_store_entry_release(&e);
	}
	ks_buf_release(&err);
	ks_buf_release(&other);
}

TEST(put_raw_checks)
{
	const char *base = test_tmpdir();
	char *a = ks_fs_join(base, "a"), *b = ks_fs_join(base, "b");
	struct ks_store_meta m;
	struct ks_store_entry e = { 0 };
	struct ks_buf err = KS_BUF_INIT;

	meta_init(&m, KEY1);
	CHECK_INT_EQ(0, ks_store_put(a, &m, variant, strlen(variant), &err));
	CHECK_INT_EQ(1, get1(a, KEY1, &e, NULL));
	CHECK_INT_EQ(0, ks_store_put_raw(b, KEY1, e.json, e.variant, e.len, &err));
	CHECK_INT_EQ(-1, ks_store_put_raw(b, KEY2, e.json, e.variant, e.len, &err));
	CHECK(strstr(err.buf, "another key"));
	ks_buf_reset(&err);
	CHECK_INT_EQ(-1, ks_store_put_raw(b, KEY1, e.json, e.variant, e.len - 1, &err));
	CHECK(strstr(err.buf, "hash"));
	ks_store_entry_release(&e);
	CHECK_INT_EQ(1, get1(b, KEY1, &e, NULL));
	ks_store_entry_release(&e);
	free(a);
	free(b);
	ks_buf_release(&err);
}

void
ks_suite_store(void)
{
	RUN(put_then_get);
	RUN(hash_is_xxh3_128);
	RUN(put_refuses);
	RUN(corrupt_entries_are_skipped_and_counted);
	RUN(secondary_searched_after_primary);
	RUN(replace_and_remove);
	RUN(json_reader);
	RUN(trim_plan_least_recently_used);
	RUN(parse_size);
	RUN(trim_by_setting_keeps_newest);
	RUN(concurrent_put_and_get);
	RUN(put_raw_checks);
}
