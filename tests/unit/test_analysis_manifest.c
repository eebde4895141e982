/* Unit tests of src/nvcc/manifest: the direct-mode manifest ks writes and
 * ks-nvcc reads (id, normalized argv, text format, entries, header
 * matching, dependency lists, store and lookup). */
#include <stdlib.h>
#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/core/fs.h"
#include "../../src/core/strv.h"
#include "../../src/nvcc/manifest.h"
#include "test.h"

void ks_suite_analysis_manifest(void);

static const char hash_a[] = "0123456789abcdef0123456789abcdef";
static const char hash_b[] = "fedcba9876543210fedcba9876543210";
static const char key_1[] = "11111111111111111111111111111111";
static const char key_2[] = "22222222222222222222222222222222";

static void
argv_of(struct ks_strv *sv, const char *words)
{
	const char *s = words, *sp;

	while (*s) {
		sp = strchr(s, ' ');
		if (!sp)
			sp = s + strlen(s);
		if (sp > s)
			ks_strv_push_owned(sv, strndup(s, (size_t)(sp - s)));
		s = *sp ? sp + 1 : sp;
	}
}

static char *
normalized(const char *words)
{
	struct ks_strv in = KS_STRV_INIT, out = KS_STRV_INIT;
	struct ks_buf b = KS_BUF_INIT;
	size_t i;

	argv_of(&in, words);
	ks_manifest_normalize_argv(&in, &out);
	for (i = 0; i < out.n; i++)
		ks_buf_addf(&b, "%s%s", i ? " " : "", out.v[i]);
	ks_strv_release(&in);
	ks_strv_release(&out);
	return ks_buf_detach(&b, NULL);
}

TEST(normalize_drops_outputs_and_depfiles)
{
	char *s;

	s = normalized(
		"-O3 -arch=sm_90 -c k.cu -o obj/k.o -MD -MF obj/k.d -MT x");
	CHECK_STR_EQ("-O3 -arch=sm_90 -c k.cu", s);
	free(s);
	s = normalized(
		"--output-file=k.o -c k.cu -MMD -MP --dependency-output k.d");
	CHECK_STR_EQ("-c k.cu", s);
	free(s);
	/* a value that looks like an output option stays with its option */
	s = normalized("-Xcompiler -o -c k.cu -odir out");
	CHECK_STR_EQ("-Xcompiler -o -c k.cu", s);
	free(s);
	s = normalized("-DN=4 -I inc -c k.cu");
	CHECK_STR_EQ("-DN=4 -I inc -c k.cu", s);
	free(s);
}

TEST(manifest_id_follows_what_matters)
{
	struct ks_strv a = KS_STRV_INIT, b = KS_STRV_INIT, c = KS_STRV_INIT;
	char id0[33], id[33];

	argv_of(&a, "-arch=sm_90 -c k.cu -o a.o");
	argv_of(&b, "-arch=sm_90 -c k.cu -o b.o -MD");
	argv_of(&c, "-arch=sm_80 -c k.cu -o a.o");
	ks_manifest_id("tu", 2, "/src", &a, "13.0.88", id0);
	CHECK_INT_EQ(32, strlen(id0));
	ks_manifest_id("tu", 2, "/src", &b, "13.0.88", id);
	CHECK_STR_EQ(id0, id);	/* outputs and depfiles do not matter */
	ks_manifest_id("tu", 2, "/src", &c, "13.0.88", id);
	CHECK(strcmp(id0, id));
	ks_manifest_id("tU", 2, "/src", &a, "13.0.88", id);
	CHECK(strcmp(id0, id));
	ks_manifest_id("tu", 2, "/other", &a, "13.0.88", id);
	CHECK(strcmp(id0, id));
	ks_manifest_id("tu", 2, "/src", &a, "13.1.0", id);
	CHECK(strcmp(id0, id));
	ks_strv_release(&a);
	ks_strv_release(&b);
	ks_strv_release(&c);
}

TEST(format_and_parse_round_trip)
{
	struct ks_manifest m, back;
	struct ks_manifest_entry e;
	struct ks_buf text = KS_BUF_INIT, again = KS_BUF_INIT,
		      err = KS_BUF_INIT;

	memset(&m, 0, sizeof(m));
	memset(&e, 0, sizeof(e));
	m.source = strdup("/src/k.cu");
	ks_manifest_entry_add_header(&e, "/src/inc/a b.h", hash_a, 120, 0);
	ks_manifest_entry_add_header(&e, "/usr/local/cuda/include/cuda.h", NULL,
				     0, 1);
	ks_manifest_entry_add_kernel(&e, key_1, "sm_90", "_Z5scalePffi");
	ks_manifest_add_entry(&m, &e);
	ks_manifest_format(&m, &text);
	CHECK_STR_EQ(
		"ks-manifest 1\n"
		"source /src/k.cu\n"
		"entry\n"
		"header 0123456789abcdef0123456789abcdef 120 /src/inc/a b.h\n"
		"system /usr/local/cuda/include/cuda.h\n"
		"kernel 11111111111111111111111111111111 sm_90 _Z5scalePffi\n"
		"end\n",
		text.buf);
	CHECK_INT_EQ(0, ks_manifest_parse(text.buf, &back, &err));
	ks_manifest_format(&back, &again);
	CHECK_STR_EQ(text.buf, again.buf);
	CHECK_STR_EQ("/src/inc/a b.h", back.entries[0].headers[0].path);
	CHECK(back.entries[0].headers[1].system);
	CHECK_STR_EQ("_Z5scalePffi", back.entries[0].kernels[0].mangled);
	ks_manifest_release(&back);
	ks_manifest_release(&m);
	ks_manifest_entry_release(&e);
	ks_buf_release(&text);
	ks_buf_release(&again);
	ks_buf_release(&err);
}

TEST(parse_rejects_bad_manifests)
{
	static const char *const bad[] = {
		"",
		"ks-manifest 2\n",
		"ks-manifest 1\nentry\n",
		"ks-manifest 1\nend\n",
		"ks-manifest 1\nheader 0123 1 /x\n",
		"ks-manifest 1\nentry\nheader xyz 1 /x\nend\n",
		"ks-manifest 1\nentry\nheader 0123456789abcdef0123456789abcdef "
		"-1 /x\nend\n",
		"ks-manifest 1\nentry\nheader 0123456789abcdef0123456789abcdef "
		"1\nend\n",
		"ks-manifest 1\nentry\nkernel 1111 sm_90 k\nend\n",
		"ks-manifest 1\nentry\nkernel 11111111111111111111111111111111 "
		"sm_90\nend\n",
		"ks-manifest 1\nentry\nfrobnicate\nend\n",
		"ks-manifest 1\nentry\nentry\nend\n",
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ks_manifest m;
		struct ks_buf err = KS_BUF_INIT;

		if (ks_manifest_parse(bad[i], &m, &err) != -1) {
			TEST_FAIL_("accepted bad manifest %zu", i);
			ks_manifest_release(&m);
			return;
		}
		CHECK(err.len > 0);
		ks_buf_release(&err);
	}
}

TEST(entries_newest_first_deduplicated_capped)
{
	struct ks_manifest m;
	struct ks_manifest_entry e;
	int i;

	memset(&m, 0, sizeof(m));
	memset(&e, 0, sizeof(e));
	ks_manifest_entry_add_header(&e, "/a.h", hash_a, 1, 0);
	ks_manifest_entry_add_kernel(&e, key_1, "sm_90", "k");
	ks_manifest_add_entry(&m, &e);
	/* the same headers again (a rebuild): replaces the entry */
	snprintf(e.kernels[0].key, sizeof(e.kernels[0].key), "%s", key_2);
	ks_manifest_add_entry(&m, &e);
	CHECK_INT_EQ(1, m.nentries);
	CHECK_STR_EQ(key_2, m.entries[0].kernels[0].key);
	/* a header changed: a second entry, first */
	snprintf(e.headers[0].hash, sizeof(e.headers[0].hash), "%s", hash_b);
	ks_manifest_add_entry(&m, &e);
	CHECK_INT_EQ(2, m.nentries);
	CHECK_STR_EQ(hash_b, m.entries[0].headers[0].hash);
	for (i = 0; i < 40; i++) {
		snprintf(e.headers[0].hash, sizeof(e.headers[0].hash), "%032x",
			 i);
		ks_manifest_add_entry(&m, &e);
	}
	CHECK_INT_EQ(KS_MANIFEST_MAX_ENTRIES, m.nentries);
	ks_manifest_release(&m);
	ks_manifest_entry_release(&e);
}

/* Headers "exist" with the hash given by the context's pairs. */
static int
fake_digest(const char *path, long long known_size, char hash[33],
	    long long *size, void *ctx)
{
	const char *const *pairs = ctx;

	(void)known_size;
	for (; pairs[0]; pairs += 2) {
		if (!strcmp(pairs[0], path)) {
			snprintf(hash, 33, "%s", pairs[1]);
			*size = 1;
			return 0;
		}
	}
	return -1;
}

TEST(match_takes_the_first_current_entry)
{
	struct ks_manifest m;
	struct ks_manifest_entry e;
	const struct ks_manifest_entry *hit;
	const char *now_a[] = { "/a.h", hash_a, NULL };
	const char *now_b[] = { "/a.h", hash_b, NULL };
	const char *gone[] = { NULL };

	memset(&m, 0, sizeof(m));
	memset(&e, 0, sizeof(e));
	ks_manifest_entry_add_header(&e, "/a.h", hash_a, 1, 0);
	ks_manifest_entry_add_header(&e, "/cuda/x.h", NULL, 0, 1);
	ks_manifest_entry_add_kernel(&e, key_1, "sm_90", "k");
	ks_manifest_add_entry(&m, &e);
	hit = ks_manifest_match(&m, fake_digest, now_a);
	CHECK(hit);
	CHECK_STR_EQ(key_1, hit->kernels[0].key);
	CHECK_NULL(ks_manifest_match(&m, fake_digest, now_b));	/* edited */
	CHECK_NULL(ks_manifest_match(&m, fake_digest, gone));	/* deleted */
	ks_manifest_release(&m);
	ks_manifest_entry_release(&e);
}

TEST(dependency_lists)
{
	struct ks_strv d = KS_STRV_INIT;

	ks_manifest_parse_deps("obj/k.o: k.cu /usr/include/stdio.h \\\n"
			       "  inc/my\\ header.h inc/a.h\n"
			       "inc/a.h:\n"
			       "\n", &d);
	CHECK_INT_EQ(4, d.n);
	CHECK_STR_EQ("k.cu", d.v[0]);
	CHECK_STR_EQ("/usr/include/stdio.h", d.v[1]);
	CHECK_STR_EQ("inc/my header.h", d.v[2]);
	CHECK_STR_EQ("inc/a.h", d.v[3]);
	ks_strv_release(&d);
	ks_manifest_parse_deps("k.o : k.cu\r\nk2.o: k.cu b.h", &d);
	CHECK_INT_EQ(2, d.n);
	CHECK_STR_EQ("b.h", d.v[1]);
	ks_strv_release(&d);
}

TEST(store_then_lookup_on_disk)
{
	const char *dir = test_tmpdir();
	char header[512];
	struct ks_manifest_entry e, got;
	struct ks_buf err = KS_BUF_INIT;
	char hash[33], *path;
	long long size;

	snprintf(header, sizeof(header), "%s",
		 test_write(dir, "a.h", "#define A 1\n"));
	memset(&e, 0, sizeof(e));
	CHECK_INT_EQ(0, ks_manifest_file_digest(header, -1, hash, &size, NULL));
	CHECK_INT_EQ(12, size);
	ks_manifest_entry_add_header(&e, header, hash, size, 0);
	ks_manifest_entry_add_kernel(&e, key_1, "sm_90", "_Z1kv");
	/* none yet */
	CHECK_INT_EQ(0, ks_manifest_lookup(dir, hash_a, &got, &err));
	CHECK_INT_EQ(
		0, ks_manifest_store(dir, hash_a, "/src/k.cu", &e, 1000, &err));
	path = ks_manifest_path(dir, hash_a);
	CHECK(ks_fs_exists(path));
	CHECK(strstr(path, "/manifests/01/0123456789abcdef"));
	free(path);
	CHECK_INT_EQ(1, ks_manifest_lookup(dir, hash_a, &got, &err));
	CHECK_INT_EQ(1, got.nkernels);
	CHECK_STR_EQ("_Z1kv", got.kernels[0].mangled);
	ks_manifest_entry_release(&got);
	/* the header changes (same size, other bytes): no entry matches */
	test_write(dir, "a.h", "#define A 2\n");
	CHECK_INT_EQ(0, ks_manifest_lookup(dir, hash_a, &got, &err));
	/* a corrupt manifest is an error for lookup, replaced by store */
	path = ks_manifest_path(dir, hash_a);
	CHECK_INT_EQ(0, ks_fs_write_atomic(path, "junk\n", 5, &err));
	CHECK_INT_EQ(-1, ks_manifest_lookup(dir, hash_a, &got, &err));
	ks_buf_reset(&err);
	CHECK_INT_EQ(
		0, ks_manifest_store(dir, hash_a, "/src/k.cu", &e, 1000, &err));
	CHECK_INT_EQ(0, ks_manifest_lookup(dir, hash_a, &got, &err));
	free(path);
	ks_manifest_entry_release(&e);
	ks_buf_release(&err);
}

void
ks_suite_analysis_manifest(void)
{
	RUN(normalize_drops_outputs_and_depfiles);
	RUN(manifest_id_follows_what_matters);
	RUN(format_and_parse_round_trip);
	RUN(parse_rejects_bad_manifests);
	RUN(entries_newest_first_deduplicated_capped);
	RUN(match_takes_the_first_current_entry);
	RUN(dependency_lists);
	RUN(store_then_lookup_on_disk);
}
