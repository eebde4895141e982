/*
 * Unit tests of src/nvcc/: the record reader (what ks-nvcc's writer
 * writes, it reads back field by field; what is not one record is
 * refused), the argv deriver's tables and the arch parser.
 */
#include <stdlib.h>
#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/core/strv.h"
#include "../../src/core/util.h"
#include "../../src/nvcc/arch.h"
#include "../../src/nvcc/args.h"
#include "../../src/nvcc/derive.h"
#include "../../src/nvcc/record.h"
#include "test.h"

void ks_suite_nvcc(void);

TEST(record_round_trip)
{
	struct ks_strv argv = KS_STRV_INIT;
	struct ks_args a;
	struct ks_buf err = KS_BUF_INIT, json = KS_BUF_INIT;
	struct ks_build_rec r;
	struct ks_record_info ri = {
		.cwd = "/work", .nvcc = "/usr/local/cuda/bin/nvcc",
		.nvcc_version = "13.0.88", .append_flags = "-lineinfo",
	};
	const char *words[] = { "-O3", "-arch=sm_90", "-DX=\"a b\"", "-Iinc",
				"-std=c++17", "-use_fast_math", "-c", "k.cu",
				"-o", "obj/k.o" };
	int rc;

	ks_strv_pushv(&argv, words, KS_ARRAY_SIZE(words));
	ks_args_init(&a);
	CHECK_INT_EQ(0, ks_args_classify(&argv, &a, &err));
	ks_record_format(&a, &ri, &json);
	rc = ks_build_rec_parse(json.buf, json.len, "r.json", &r, &err);
	ks_args_release(&a);
	ks_strv_release(&argv);
	ks_buf_release(&json);
	CHECK_INT_EQ(0, rc);
	CHECK_STR_EQ("r.json", r.path);
	CHECK_STR_EQ("/work/k.cu", r.source);
	CHECK_STR_EQ("/work", r.cwd);
	CHECK_STR_EQ("/work/obj/k.o", r.output);
	CHECK_STR_EQ("/usr/local/cuda/bin/nvcc", r.nvcc);
	CHECK_STR_EQ("13.0.88", r.nvcc_version);
	CHECK_STR_EQ("1970-01-01T00:00:00Z", r.time);
	CHECK_STR_EQ("-lineinfo", r.append_flags);
	CHECK_NULL(r.prepend_flags);
	CHECK_INT_EQ(KS_ARRAY_SIZE(words), r.argv.n);
	CHECK_STR_EQ("-DX=\"a b\"", r.argv.v[2]);
	/* -arch=sm_90 is SASS for sm_90 and PTX for compute_90. */
	CHECK_INT_EQ(2, r.narchs);
	CHECK_STR_EQ("compute_90", r.archs[0].virt);
	CHECK_STR_EQ("sm_90", r.archs[0].real);
	CHECK_STR_EQ("compute_90", r.archs[1].virt);
	CHECK(!r.archs[1].real || !*r.archs[1].real);
	CHECK(r.includes.n == 1 && strstr(r.includes.v[0], "inc"));
	CHECK(r.defines.n == 1);
	CHECK(r.devflags.n >= 1);
	CHECK(r.text && strstr(r.text, "\"format\": 2"));
	CHECK_STR_EQ("compile", r.mode);
	CHECK_INT_EQ(KS_ARRAY_SIZE(words), r.command_argv.n);
	CHECK_INT_EQ(7, r.source_index);
	ks_build_rec_release(&r);
	ks_buf_release(&err);
}

/* A one-command build's record: the source's compile alone as argv, the
 * command's output, the whole command and where the source is in it. */
TEST(record_of_one_command_build)
{
	const char *cmd[] = { "-O3", "-arch=sm_90", "-x", "cu", "m.c", "k.c",
			      "h.o", "-lm", "-o", "app", "-MD" };
	const char *one[] = { "-O3", "-arch=sm_90", "-x", "cu", "k.c", "-c" };
	struct ks_strv cmdv = KS_STRV_INIT, onev = KS_STRV_INIT;
	struct ks_args a;
	struct ks_buf err = KS_BUF_INIT, json = KS_BUF_INIT;
	struct ks_build_rec r;
	struct ks_record_info ri = {
		.cwd = "/w", .nvcc = "/cuda/bin/nvcc", .nvcc_version = "13.0.88",
		.mode = "compile-link", .source_index = 5, .output = "app",
		.depfile = "app.d",
	};
	char *n1, *n2;
	int rc;

	ks_strv_pushv(&cmdv, cmd, KS_ARRAY_SIZE(cmd));
	ks_strv_pushv(&onev, one, KS_ARRAY_SIZE(one));
	ri.argv = &onev;
	ri.command_argv = &cmdv;
	ks_args_init(&a);
	CHECK_INT_EQ(0, ks_args_classify(&onev, &a, &err));
	ks_record_format(&a, &ri, &json);
	/* Two sources of one command: two records, whatever the output. */
	n1 = ks_record_name_for(&a, "/w", "app");
	n2 = ks_record_name(&a, "/w");
	CHECK(strcmp(n1, n2) != 0);
	free(n1);
	free(n2);
	ks_args_release(&a);
	rc = ks_build_rec_parse(json.buf, json.len, "r.json", &r, &err);
	ks_buf_release(&json);
	ks_strv_release(&cmdv);
	ks_strv_release(&onev);
	CHECK_INT_EQ(0, rc);
	CHECK_STR_EQ("/w/k.c", r.source);
	CHECK_STR_EQ("/w/app", r.output);
	CHECK_STR_EQ("/w/app.d", r.depfile);
	CHECK_STR_EQ("compile-link", r.mode);
	CHECK_INT_EQ(KS_ARRAY_SIZE(one), r.argv.n);
	CHECK_STR_EQ("-c", r.argv.v[5]);
	CHECK_INT_EQ(KS_ARRAY_SIZE(cmd), r.command_argv.n);
	CHECK_INT_EQ(5, r.source_index);
	CHECK_STR_EQ("k.c", r.command_argv.v[r.source_index]);
	CHECK(strstr(r.text, "\"language\": \"cu\""));
	ks_build_rec_release(&r);
	ks_buf_release(&err);
}

/* A format 1 record (before one-command builds) reads as a -c build. */
TEST(record_format_1_reads)
{
	const char text[] = "{\"format\": 1, \"source\": \"/w/k.cu\", "
			    "\"cwd\": \"/w\", \"argv\": [\"-o\", \"k.o\", "
			    "\"-c\", \"k.cu\"]}";
	struct ks_buf err = KS_BUF_INIT;
	struct ks_build_rec r;

	CHECK_INT_EQ(0, ks_build_rec_parse(text, strlen(text), "x", &r, &err));
	CHECK_STR_EQ("compile", r.mode);
	CHECK_INT_EQ(4, r.command_argv.n);
	CHECK_INT_EQ(3, r.source_index);
	ks_build_rec_release(&r);
	ks_buf_release(&err);
}

TEST(record_refuses_what_is_not_one)
{
	static const char *const bad[] = {
		"", "[]", "{\"cwd\": \"/w\", \"argv\": []}",
		"{\"source\": \"/s\", \"cwd\": \"/w\"}",
		"{\"source\": \"/s\", \"cwd\": \"/w\", \"argv\": [1]}",
		"{\"source\": \"/s\", \"cwd\": \"/w\", \"argv\": []} {}",
	};
	const char good[] = "{\"source\": \"/s\", \"cwd\": \"/w\", \"argv\": []}";
	struct ks_buf err = KS_BUF_INIT;
	struct ks_build_rec r;
	size_t i;

	for (i = 0; i < KS_ARRAY_SIZE(bad); i++) {
		ks_buf_reset(&err);
		CHECK_INT_EQ(-1, ks_build_rec_parse(bad[i], strlen(bad[i]), "x", &r, &err));
		CHECK(err.len > 0);
	}
	/* A NUL inside the file hides what follows it: refused. */
	CHECK_INT_EQ(-1, ks_build_rec_parse(good, sizeof(good), "x", &r, &err));
	CHECK_INT_EQ(0, ks_build_rec_parse(good, strlen(good), "x", &r, &err));
	CHECK_INT_EQ(0, (long long)r.narchs);
	ks_build_rec_release(&r);
	ks_buf_release(&err);
}

static void
join(const struct ks_strv *v, struct ks_buf *out)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		ks_buf_addf(out, "%s%s", i ? " " : "", v->v[i]);
}

/* Each derivation drops its own set, values with their options. */
TEST(derive_tables)
{
	const char *argv[] = { "-dc", "-O3", "-Xcompiler", "-v", "-o", "k.o",
			       "-MD", "-MF", "k.d", "--keep", "-v", "k.cu" };
	struct ks_strv out = KS_STRV_INIT;
	struct ks_buf text = KS_BUF_INIT, err = KS_BUF_INIT;
	struct ks_derived seen;

	ks_derive_argv(&ks_derive_manifest, argv, KS_ARRAY_SIZE(argv), &out, &seen, NULL);
	join(&out, &text);
	CHECK_STR_EQ("-dc -O3 -Xcompiler -v --keep -v k.cu", text.buf);
	CHECK(seen.device_c && seen.compiles);
	ks_strv_release(&out);
	ks_buf_reset(&text);
	/* -Xcompiler's value "-v" is its value, not --verbose. */
	ks_derive_argv(&ks_derive_deps, argv, KS_ARRAY_SIZE(argv), &out, NULL, NULL);
	join(&out, &text);
	CHECK_STR_EQ("-O3 -Xcompiler -v k.cu", text.buf);
	ks_strv_release(&out);
	ks_buf_reset(&text);
	CHECK_INT_EQ(0, ks_derive_argv(&ks_derive_shared, argv, KS_ARRAY_SIZE(argv),
				       &out, NULL, &err));
	join(&out, &text);
	CHECK_STR_EQ("-rdc=true -O3 -Xcompiler -v --keep -v", text.buf);
	ks_strv_release(&out);
	ks_buf_reset(&text);
	CHECK_INT_EQ(-1, ks_derive_argv(&ks_derive_shared, argv, 5, &out, NULL, &err));
	CHECK(strstr(err.buf, "'-o' lacks its value"));
	ks_strv_release(&out);
	ks_derive_argv(&ks_derive_evidence, argv + 1, KS_ARRAY_SIZE(argv) - 1, &out,
		       &seen, NULL);
	join(&out, &text);
	CHECK_STR_EQ("-O3 -Xcompiler -v k.cu", text.buf);
	CHECK(!seen.compiles);
	ks_strv_release(&out);
	ks_buf_release(&text);
	ks_buf_release(&err);
}

TEST(arch_parse)
{
	static const char *const bad[] = { "", "sm", "sm_", "sm_x", "sm_90b",
					   "sm_90af", "compute_90 ", "gfx90" };
	const char *names[] = { "compute_80", "sm_100f", "sm_90a", "junk" };
	struct ks_arch_target a;
	size_t i;

	CHECK_INT_EQ(0, ks_arch_parse("sm_90a", &a));
	CHECK_INT_EQ(KS_ARCH_SM, a.kind);
	CHECK_INT_EQ(90, a.number);
	CHECK_INT_EQ('a', a.suffix);
	CHECK_STR_EQ("90a", a.digits);
	CHECK_INT_EQ(0, ks_arch_parse("compute_100f", &a));
	CHECK_INT_EQ(KS_ARCH_COMPUTE, a.kind);
	CHECK_INT_EQ(100, a.number);
	CHECK_INT_EQ('f', a.suffix);
	CHECK_INT_EQ(0, ks_arch_parse("lto_75", &a));
	CHECK_INT_EQ(KS_ARCH_LTO, a.kind);
	CHECK_INT_EQ(0, a.suffix);
	CHECK_STR_EQ("lto_", ks_arch_prefix(a.kind));
	for (i = 0; i < KS_ARRAY_SIZE(bad); i++)
		CHECK_INT_EQ(-1, ks_arch_parse(bad[i], &a));
	CHECK_STR_EQ("sm_100f", ks_arch_newest(names, 4));
	CHECK_NULL(ks_arch_newest(names + 3, 1));
}

void
ks_suite_nvcc(void)
{
	RUN(record_round_trip);
	RUN(record_refuses_what_is_not_one);
	RUN(record_of_one_command_build);
	RUN(record_format_1_reads);
	RUN(derive_tables);
	RUN(arch_parse);
}
