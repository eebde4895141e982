/*
 * One-command builds (nvcc/onecmd.h): one source's compile out of a
 * command that compiles and links, and the command with a source
 * replaced. Pure functions over words.
 */
#include "test.h"

#include <stdlib.h>

#include "../../src/core/buf.h"
#include "../../src/core/strv.h"
#include "../../src/core/util.h"
#include "../../src/nvcc/args.h"
#include "../../src/nvcc/onecmd.h"

void ks_suite_onecmd(void);

static struct ks_strv words_;
static char joined_[4096];
static struct ks_buf err_ = KS_BUF_INIT;

/* Split `line` at spaces into words_ (no test word holds one). */
static const char *const *
w(const char *line)
{
	char *copy = ks_xstrdup(line), *tok, *save;

	ks_strv_release(&words_);
	ks_strv_init(&words_);
	for (tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		ks_strv_push(&words_, tok);
	free(copy);
	return (const char *const *)words_.v;
}

static const char *
join(const struct ks_strv *sv)
{
	size_t i, len = 0;

	joined_[0] = '\0';
	for (i = 0; i < sv->n; i++)
		len += (size_t)snprintf(joined_ + len, sizeof(joined_) - len,
					"%s%s", i ? " " : "", sv->v[i]);
	return joined_;
}

/* The compile of input word `src` of `line`, joined; "ERROR: ..." on -1. */
static const char *
compile_of(const char *line, size_t src)
{
	struct ks_strv out = KS_STRV_INIT;
	const char *const *argv = w(line);

	ks_buf_reset(&err_);
	if (ks_onecmd_compile_argv(argv, words_.n, src, &out, &err_))
		snprintf(joined_, sizeof(joined_), "ERROR: %s", err_.buf);
	else
		join(&out);
	ks_strv_release(&out);
	return joined_;
}

static const char *
replaced(const char *line, size_t src, const char *path)
{
	struct ks_strv out = KS_STRV_INIT;
	const char *const *argv = w(line);

	ks_buf_reset(&err_);
	if (ks_onecmd_replace_source(argv, words_.n, src, path, &out, &err_))
		snprintf(joined_, sizeof(joined_), "ERROR: %s", err_.buf);
	else
		join(&out);
	ks_strv_release(&out);
	return joined_;
}

TEST(input_words)
{
	const char *const *argv = w("-O3 a.cu b.cpp -o app -Xcompiler x.cu c.o");

	CHECK_INT_EQ(1, ks_onecmd_input_word(argv, words_.n, 0));
	CHECK_INT_EQ(2, ks_onecmd_input_word(argv, words_.n, 1));
	/* -o's and -Xcompiler's values are not inputs. */
	CHECK_INT_EQ(7, ks_onecmd_input_word(argv, words_.n, 2));
	CHECK_INT_EQ(-1, ks_onecmd_input_word(argv, words_.n, 3));
	/* --x=cu and -x cu both take their value. */
	argv = w("--x=cu -x cu k.c");
	CHECK_INT_EQ(3, ks_onecmd_input_word(argv, words_.n, 0));
	argv = w("a.cu -o");
	CHECK_INT_EQ(-1, ks_onecmd_input_word(argv, words_.n, 0));
}

TEST(compile_of_one_source)
{
	CHECK_STR_EQ("-O3 prog.cu -c", compile_of("-O3 prog.cu -o prog", 1));
	CHECK_STR_EQ("a.cu -arch=sm_90 -Iinc -DN=4 -c",
		     compile_of("a.cu b.cpp -o app -arch=sm_90 -Iinc -DN=4", 0));
	/* -x applies to every input: the .c is CUDA, the object goes. */
	CHECK_STR_EQ("-x cu foo.c -c", compile_of("-x cu foo.c main.o -o x", 2));
	/* The second of two sources; -rdc and -gencode stay, the device
	 * runtime library and its path go. */
	CHECK_STR_EQ("-rdc=true -gencode arch=compute_90,code=sm_90 b.cu -c",
		     compile_of("-rdc=true -gencode arch=compute_90,code=sm_90 "
				"a.cu b.cu -lcudadevrt -L/opt/lib -o app", 4));
	/* Host compiler and its options stay; the link's, the outputs'
	 * and the depfile's go, in every spelling. */
	CHECK_STR_EQ("-ccbin g++-12 -Xcompiler -fopenmp,-Wall a.cu -c",
		     compile_of("-ccbin g++-12 -Xcompiler -fopenmp,-Wall -Xlinker "
				"-rpath=/x -lm -shared -cudart shared a.cu -o "
				"liba.so -MD -MF a.d --library=z "
				"--linker-options=-s -Xnvlink -v", 10));
	CHECK_STR_EQ("a.cu -c", compile_of("-lib a.cu -o liba.a", 1));
	CHECK_STR_EQ("a.cu -c", compile_of("a.cu -link -odir out", 0));
	/* A compile is left a compile. */
	CHECK_STR_EQ("-c a.cu", compile_of("-c a.cu -o a.o", 1));
	CHECK_STR_EQ("-dc a.cu", compile_of("-dc a.cu -o a.o", 1));
	/* Not an input: an option, an option's value, past the end. */
	CHECK(ks_starts_with(compile_of("-o app a.cu", 1), "ERROR: argument 2 is not an input"));
	CHECK(ks_starts_with(compile_of("-o app a.cu", 0), "ERROR:"));
	CHECK(ks_starts_with(compile_of("-o app a.cu", 3), "ERROR:"));
	CHECK(ks_starts_with(compile_of("a.cu -I", 0), "ERROR:"));
}

/* Each CUDA source's compile classifies as the single-source compile ks
 * records, with the whole command's targets, flags, macros, paths,
 * dialect, host compiler and relocation. */
TEST(compile_keeps_the_classification)
{
	static const char *const lines[] = {
		"-O3 -arch=sm_90 -use_fast_math prog.cu -o prog",
		"-gencode arch=compute_80,code=sm_80 -gencode "
		"arch=compute_90,code=[sm_90,compute_90] -Iinc -DN=4 -UM "
		"-std=c++20 a.cu b.cpp c.cu -lcublas -o app",
		"-x cu foo.c bar.c -ccbin clang++ -Xcompiler -fopenmp -o x",
		"-rdc=true -dlto -arch=sm_90 a.cu b.cu -Xptxas -O1 -maxrregcount=32 -o app",
		"-lib -G -lineinfo k.cu -o libk.a",
		"-forward-unknown-to-host-compiler -fopenmp -Wall a.cu -o a",
	};
	size_t l;

	for (l = 0; l < KS_ARRAY_SIZE(lines); l++) {
		struct ks_strv cmd = KS_STRV_INIT;
		struct ks_args whole;
		size_t i, k, n = 0;

		w(lines[l]);
		ks_strv_pushv(&cmd, (const char *const *)words_.v, words_.n);
		ks_args_init(&whole);
		CHECK_INT_EQ(0, ks_args_classify(&cmd, &whole, &err_));
		CHECK(whole.rejected == NULL);
		for (k = 0; k < whole.ninputs; k++) {
			struct ks_strv one = KS_STRV_INIT;
			struct ks_args a;
			const char *why = NULL;
			long at = ks_onecmd_input_word((const char *const *)cmd.v,
						       cmd.n, k);
			char *flags;

			if (whole.inputs[k].lang != KS_LANG_CU)
				continue;
			n++;
			CHECK(at >= 0);
			CHECK_INT_EQ(0, ks_onecmd_compile_argv(
				(const char *const *)cmd.v, cmd.n, (size_t)at,
				&one, &err_));
			ks_args_init(&a);
			CHECK_INT_EQ(0, ks_args_classify(&one, &a, &err_));
			ks_strv_release(&one);
			if (!ks_args_eligible(&a, &why)) {
				TEST_FAIL_("'%s' source %zu: %s", lines[l], k, why);
				return;
			}
			CHECK_STR_EQ(whole.inputs[k].path, a.inputs[0].path);
			CHECK_INT_EQ(whole.narchs, a.narchs);
			for (i = 0; i < a.narchs; i++) {
				CHECK_STR_EQ(whole.archs[i].virt, a.archs[i].virt);
				CHECK_STR_EQ(whole.archs[i].real, a.archs[i].real);
			}
			flags = ks_xstrdup(join(&whole.devflags));
			CHECK_STR_EQ(flags, join(&a.devflags));
			free(flags);
			flags = ks_xstrdup(join(&whole.defines));
			CHECK_STR_EQ(flags, join(&a.defines));
			free(flags);
			flags = ks_xstrdup(join(&whole.includes));
			CHECK_STR_EQ(flags, join(&a.includes));
			free(flags);
			CHECK_INT_EQ(whole.relocatable, a.relocatable);
			CHECK_INT_EQ(whole.dlto, a.dlto);
			CHECK((!whole.std && !a.std) ||
			      (whole.std && a.std && !strcmp(whole.std, a.std)));
			CHECK((!whole.ccbin && !a.ccbin) ||
			      (whole.ccbin && a.ccbin &&
			       !strcmp(whole.ccbin, a.ccbin)));
			ks_args_release(&a);
		}
		CHECK(n > 0);
		ks_args_release(&whole);
		ks_strv_release(&cmd);
	}
}

TEST(replace_a_source)
{
	CHECK_STR_EQ("-O3 /t/v.cu b.cpp -o app",
		     replaced("-O3 a.cu b.cpp -o app", 1, "/t/v.cu"));
	CHECK_STR_EQ("-x cu /t/v.cu bar.c -o x",
		     replaced("-x cu foo.c bar.c -o x", 2, "/t/v.cu"));
	/* A -c build: the trivial replacement, plus the object's name
	 * nvcc took from the source. */
	CHECK_STR_EQ("-c /t/v.cu -o k.o -MF k.o.d",
		     replaced("-c k.cu -o k.o -MF k.o.d", 1, "/t/v.cu"));
	CHECK_STR_EQ("-c /t/v.cu -o k.o", replaced("-c k.cu", 1, "/t/v.cu"));
	CHECK_STR_EQ("-c /t/v.cu -odir obj -MD -o obj/k.o -MF obj/k.d",
		     replaced("-c k.cu -odir obj -MD", 1, "/t/v.cu"));
	CHECK_STR_EQ("-c /t/v.cu -o x.o -MD",
		     replaced("-c k.cu -o x.o -MD", 1, "/t/v.cu"));
	/* A link without -o: a.out whatever the sources. */
	CHECK_STR_EQ("/t/v.cu b.o -o a.out", replaced("k.cu b.o", 0, "/t/v.cu"));
	CHECK(ks_starts_with(replaced("-o app a.cu", 1, "/t/v.cu"), "ERROR: argument 2"));
	CHECK(ks_starts_with(replaced("a.cu", 1, "/t/v.cu"), "ERROR:"));
	CHECK(ks_starts_with(replaced("a.cu -o", 0, "/t/v.cu"), "ERROR:"));
}

/* Sources `a` and `b` of `line` replaced by /t/A.cu and /t/B.cu. */
static const char *
replaced2(const char *line, size_t a, size_t b)
{
	struct ks_strv out = KS_STRV_INIT;
	const char *const *argv = w(line);
	const size_t src[] = { a, b };
	const char *const paths[] = { "/t/A.cu", "/t/B.cu" };

	ks_buf_reset(&err_);
	if (ks_onecmd_replace_sources(argv, words_.n, src, paths, 2, &out, &err_))
		snprintf(joined_, sizeof(joined_), "ERROR: %s", err_.buf);
	else
		join(&out);
	ks_strv_release(&out);
	return joined_;
}

TEST(replace_several_sources)
{
	CHECK_STR_EQ("-O3 /t/A.cu main.cpp /t/B.cu -lm -o app",
		     replaced2("-O3 a.cu main.cpp b.cu -lm -o app", 1, 3));
	/* In any order. */
	CHECK_STR_EQ("/t/B.cu -x cu /t/A.cu -o x",
		     replaced2("foo.c -x cu bar.cpp -o x", 3, 0));
	/* nvcc's a.out named once, not once per source. */
	CHECK_STR_EQ("/t/A.cu /t/B.cu -o a.out", replaced2("a.cu b.cu", 0, 1));
	/* An option's value is not a source. */
	CHECK(ks_starts_with(replaced2("a.cu -o b.cu", 0, 2), "ERROR: argument 3"));
	{
		struct ks_strv out = KS_STRV_INIT;

		CHECK_INT_EQ(-1, ks_onecmd_replace_sources(w("a.cu"), 1, NULL, NULL,
							  0, &out, &err_));
		CHECK_INT_EQ(0, (long)out.n);
		ks_strv_release(&out);
	}
}

void
ks_suite_onecmd(void)
{
	ks_strv_init(&words_);
	RUN(input_words);
	RUN(compile_of_one_source);
	RUN(compile_keeps_the_classification);
	RUN(replace_a_source);
	RUN(replace_several_sources);
	ks_strv_release(&words_);
	ks_buf_release(&err_);
}
