/*
 * Unit tests of src/nvcc/nvopts: the table's shape, lookups, and how one
 * argv word is read. Every expectation about nvcc was checked against
 * nvcc 13.0.88 with `nvcc --dryrun -c k.cu -o x.o <word>` (an unknown
 * option reads "nvcc fatal : Unknown option '<word>'").
 */
#include "test.h"

#include "../../src/nvcc/nvopts.h"

void ks_suite_nvopts(void);

TEST(table_shape)
{
	size_t n, i, j;
	const struct ks_nvopt *t = ks_nvopt_table(&n);

	/* `nvcc --help` of 13.0.88 lists 143 options. */
	CHECK_INT_EQ(143, n);
	for (i = 0; i + 1 < n; i++)
		if (strcmp(t[i].name, t[i + 1].name) >= 0) {
			TEST_FAIL_("not sorted: %s, %s", t[i].name,
				   t[i + 1].name);
			return;
		}
	for (i = 0; i < n; i++) {
		unsigned f = t[i].flags;

		/* Lists, booleans and glued values are all values. */
		if ((f & (KS_NVOPT_LIST | KS_NVOPT_BOOL | KS_NVOPT_GLUED)) &&
		    !(f & KS_NVOPT_TAKES_ARG)) {
			TEST_FAIL_("%s: value flags without TAKES_ARG",
				   t[i].name);
			return;
		}
		if ((f & KS_NVOPT_GLUED) && strlen(t[i].short_name) != 1) {
			TEST_FAIL_("%s: glued needs a one-letter name",
				   t[i].name);
			return;
		}
		for (j = 0; j < n; j++) {
			/* No name means two options. */
			if (j != i && t[j].short_name &&
			    (!strcmp(t[i].name, t[j].short_name) ||
			     (t[i].short_name &&
			      !strcmp(t[i].short_name, t[j].short_name)))) {
				TEST_FAIL_("%s clashes with %s", t[i].name,
					   t[j].name);
				return;
			}
		}
	}
}

TEST(glued_options)
{
	/* Verified: -DFOO -UFOO -I/x -L/x -lm -O3 -t2 are accepted; -ox.o,
	 * -includeh.h, -isystem/x, -archsm_90, -MTx, -ek, -xcu are unknown
	 * options. (-m64 is an option of its own.) */
	static const char *const glued = "DILOUlt";
	size_t n, i, count = 0;
	const struct ks_nvopt *t = ks_nvopt_table(&n);

	for (i = 0; i < n; i++)
		if (t[i].flags & KS_NVOPT_GLUED) {
			count++;
			CHECK(strchr(glued, t[i].short_name[0]) != NULL);
		}
	CHECK_INT_EQ(strlen(glued), count);
}

TEST(find)
{
	const struct ks_nvopt *o;

	o = ks_nvopt_find("c");
	CHECK(o != NULL);
	CHECK_STR_EQ("compile", o->name);
	CHECK(ks_nvopt_find("compile") == o);
	CHECK(ks_nvopt_find_short("compile") == NULL);
	CHECK(ks_nvopt_find_long("c") == NULL);
	o = ks_nvopt_find("Xcompiler");
	CHECK(o != NULL);
	CHECK_STR_EQ("compiler-options", o->name);
	CHECK(o->flags & KS_NVOPT_FORWARD);
	CHECK(o->flags & KS_NVOPT_LIST);
	/* --help lists it as "--no-align-double  --no-align-double". */
	o = ks_nvopt_find("no-align-double");
	CHECK(o != NULL);
	CHECK_NULL(o->short_name);
	/* -MF takes a file although --help shows no placeholder; nvcc's
	 * messages call it --dependency-file, which it does not accept. */
	o = ks_nvopt_find("MF");
	CHECK(o != NULL);
	CHECK_STR_EQ("dependency-output", o->name);
	CHECK(o->flags & KS_NVOPT_TAKES_ARG);
	CHECK_NULL(ks_nvopt_find("dependency-file"));
	/* First and last rows, and names around them. */
	CHECK(ks_nvopt_find("Ofast-compile") != NULL);
	CHECK(ks_nvopt_find("x") != NULL);
	CHECK_NULL(ks_nvopt_find(""));
	CHECK_NULL(ks_nvopt_find("A"));
	CHECK_NULL(ks_nvopt_find("zz"));
	CHECK_NULL(ks_nvopt_find("-c"));
}

TEST(flags)
{
	/* -rdc, -ftz and friends need exactly true or false: a bare -rdc
	 * is "argument expected after '-rdc'", -rdc=yes is "'yes':
	 * expected true or false". */
	CHECK(ks_nvopt_find("rdc")->flags & KS_NVOPT_BOOL);
	CHECK(ks_nvopt_find("ftz")->flags & KS_NVOPT_BOOL);
	CHECK(ks_nvopt_find("ftz")->flags & KS_NVOPT_DEVICE_SEMANTIC);
	CHECK(ks_nvopt_find("use_fast_math")->flags &
	      KS_NVOPT_DEVICE_SEMANTIC);
	CHECK(ks_nvopt_find("Xptxas")->flags & KS_NVOPT_DEVICE_SEMANTIC);
	/* -Xcompiler words reach nvcc's device-side `gcc -E
	 * -D__CUDA_ARCH__=750` line (seen in --dryrun): semantic, less the
	 * host-only words (keyflags.h). nvcc's -O optimizes host code only:
	 * the cicc and ptxas lines of --dryrun are the same for -O0 and
	 * -O3. */
	CHECK(ks_nvopt_find("Xcompiler")->flags & KS_NVOPT_DEVICE_SEMANTIC);
	CHECK(!(ks_nvopt_find("O")->flags & KS_NVOPT_DEVICE_SEMANTIC));
	/* Speed and diagnostics are not. */
	CHECK(!(ks_nvopt_find("t")->flags & KS_NVOPT_DEVICE_SEMANTIC));
	CHECK(!(ks_nvopt_find("w")->flags & KS_NVOPT_DEVICE_SEMANTIC));
	CHECK(!(ks_nvopt_find("Werror")->flags & KS_NVOPT_DEVICE_SEMANTIC));
	CHECK(ks_nvopt_find("c")->flags & KS_NVOPT_MODE);
	CHECK(ks_nvopt_find("M")->flags & KS_NVOPT_MODE);
	CHECK(ks_nvopt_find("M")->flags & KS_NVOPT_DEPS);
	CHECK(!(ks_nvopt_find("MD")->flags & KS_NVOPT_MODE));
	CHECK(ks_nvopt_find("V")->flags & KS_NVOPT_INFO);
	CHECK(ks_nvopt_find("arch-ls")->flags & KS_NVOPT_INFO);
	CHECK(ks_nvopt_find("D")->flags & KS_NVOPT_PREPROC);
	CHECK(ks_nvopt_find("gencode")->flags & KS_NVOPT_ARCH);
	/* -compress-mode=size,speed is passed on whole, not split. */
	CHECK(!(ks_nvopt_find("compress-mode")->flags & KS_NVOPT_LIST));
}

static const struct word_case {
	const char *word;
	enum ks_nvopt_word kind;
	const char *name;	/* long name of the option, or NULL */
	const char *value;	/* attached value, or NULL */
} word_cases[] = {
	{ "k.cu", KS_NVOPT_WORD_INPUT, NULL, NULL },
	{ "", KS_NVOPT_WORD_INPUT, NULL, NULL },
	/* "-" is stdin for nvcc (it makes a tmpxft_..._stdin file). */
	{ "-", KS_NVOPT_WORD_INPUT, NULL, NULL },
	/* nvcc 13.0: "Don't know what to do with '@x.rsp'". */
	{ "@x.rsp", KS_NVOPT_WORD_INPUT, NULL, NULL },
	{ "-c", KS_NVOPT_WORD_OPTION, "compile", NULL },
	{ "--compile", KS_NVOPT_WORD_OPTION, "compile", NULL },
	/* Short names take one dash, long names two: both unknown. */
	{ "--c", KS_NVOPT_WORD_UNKNOWN, NULL, NULL },
	{ "-compile", KS_NVOPT_WORD_UNKNOWN, NULL, NULL },
	{ "--arch=sm_90", KS_NVOPT_WORD_UNKNOWN, NULL, NULL },
	{ "-gpu-architecture=sm_90", KS_NVOPT_WORD_UNKNOWN, NULL, NULL },
	{ "--O3", KS_NVOPT_WORD_UNKNOWN, NULL, NULL },
	{ "-version", KS_NVOPT_WORD_UNKNOWN, NULL, NULL },
	/* Same name for both: -cuda and --cuda. */
	{ "-cuda", KS_NVOPT_WORD_OPTION, "cuda", NULL },
	{ "--cuda", KS_NVOPT_WORD_OPTION, "cuda", NULL },
	{ "--no-align-double", KS_NVOPT_WORD_OPTION, "no-align-double",
	  NULL },
	{ "-no-align-double", KS_NVOPT_WORD_UNKNOWN, NULL, NULL },
	/* -o=x.o works, -ox.o does not. */
	{ "-o=x.o", KS_NVOPT_WORD_OPTION, "output-file", "x.o" },
	{ "-o", KS_NVOPT_WORD_OPTION, "output-file", NULL },
	{ "-ox.o", KS_NVOPT_WORD_UNKNOWN, NULL, NULL },
	{ "--output-file=x.o", KS_NVOPT_WORD_OPTION, "output-file", "x.o" },
	{ "-I/x", KS_NVOPT_WORD_OPTION, "include-path", "/x" },
	{ "-I=/x", KS_NVOPT_WORD_OPTION, "include-path", "/x" },
	{ "-DFOO=1", KS_NVOPT_WORD_OPTION, "define-macro", "FOO=1" },
	{ "-D=FOO", KS_NVOPT_WORD_OPTION, "define-macro", "FOO" },
	{ "-UFOO", KS_NVOPT_WORD_OPTION, "undefine-macro", "FOO" },
	{ "-O3", KS_NVOPT_WORD_OPTION, "optimize", "3" },
	{ "-lcudart", KS_NVOPT_WORD_OPTION, "library", "cudart" },
	{ "-L/usr/lib", KS_NVOPT_WORD_OPTION, "library-path", "/usr/lib" },
	{ "-t4", KS_NVOPT_WORD_OPTION, "threads", "4" },
	/* An exact name wins over a glued one: -ldir, -lineinfo, -lib,
	 * -link, -lto, -time, -Ofc are options of their own. */
	{ "-ldir", KS_NVOPT_WORD_OPTION, "libdevice-directory", NULL },
	{ "-lineinfo", KS_NVOPT_WORD_OPTION, "generate-line-info", NULL },
	{ "-lib", KS_NVOPT_WORD_OPTION, "lib", NULL },
	{ "-lto", KS_NVOPT_WORD_OPTION, "lto", NULL },
	{ "-time", KS_NVOPT_WORD_OPTION, "time", NULL },
	{ "-Ofc", KS_NVOPT_WORD_OPTION, "Ofast-compile", NULL },
	/* ... and only then glued: -Ofcmax is -O "fcmax" ("'fcmax':
	 * expected a number"), -target-dirx is -t "arget-dirx". */
	{ "-Ofcmax", KS_NVOPT_WORD_OPTION, "optimize", "fcmax" },
	{ "-target-dirx", KS_NVOPT_WORD_OPTION, "threads", "arget-dirx" },
	{ "-isystem/x", KS_NVOPT_WORD_UNKNOWN, NULL, NULL },
	{ "-includeh.h", KS_NVOPT_WORD_UNKNOWN, NULL, NULL },
	{ "-archsm_90", KS_NVOPT_WORD_UNKNOWN, NULL, NULL },
	{ "-xcu", KS_NVOPT_WORD_UNKNOWN, NULL, NULL },
	{ "-MTx", KS_NVOPT_WORD_UNKNOWN, NULL, NULL },
	{ "-arch=sm_90", KS_NVOPT_WORD_OPTION, "gpu-architecture", "sm_90" },
	{ "-rdc=true", KS_NVOPT_WORD_OPTION, "relocatable-device-code",
	  "true" },
	{ "-Xcompiler=-fPIC", KS_NVOPT_WORD_OPTION, "compiler-options",
	  "-fPIC" },
	{ "--generate-code=arch=compute_90,code=[compute_90,sm_90]",
	  KS_NVOPT_WORD_OPTION, "generate-code",
	  "arch=compute_90,code=[compute_90,sm_90]" },
	{ "-gencode=arch=compute_80,code=sm_80", KS_NVOPT_WORD_OPTION,
	  "generate-code", "arch=compute_80,code=sm_80" },
	/* "no argument expected after '-G'", even with forwarding. */
	{ "-G=true", KS_NVOPT_WORD_BAD, "device-debug", NULL },
	{ "--device-debug=1", KS_NVOPT_WORD_BAD, "device-debug", NULL },
	{ "-c=true", KS_NVOPT_WORD_BAD, "compile", NULL },
	{ "-MF", KS_NVOPT_WORD_OPTION, "dependency-output", NULL },
	{ "--dependency-file", KS_NVOPT_WORD_UNKNOWN, NULL, NULL },
	{ "-Wno-deprecated-gpu-targets", KS_NVOPT_WORD_OPTION,
	  "Wno-deprecated-gpu-targets", NULL },
	{ "-Wall", KS_NVOPT_WORD_UNKNOWN, NULL, NULL },
	{ "-fPIC", KS_NVOPT_WORD_UNKNOWN, NULL, NULL },
	{ "--", KS_NVOPT_WORD_UNKNOWN, NULL, NULL },
	{ "-forward-unknown-to-host-compiler", KS_NVOPT_WORD_OPTION,
	  "forward-unknown-to-host-compiler", NULL },
};

TEST(parse_words)
{
	size_t i;

	for (i = 0; i < sizeof(word_cases) / sizeof(word_cases[0]); i++) {
		const struct word_case *c = &word_cases[i];
		const struct ks_nvopt *o;
		const char *value;
		enum ks_nvopt_word kind = ks_nvopt_parse(c->word, &o, &value);

		if (kind != c->kind) {
			TEST_FAIL_("%s: kind %d, want %d", c->word, (int)kind,
				   (int)c->kind);
			return;
		}
		if ((c->name == NULL) != (o == NULL) ||
		    (c->name && strcmp(c->name, o->name))) {
			TEST_FAIL_("%s: option %s, want %s", c->word,
				   o ? o->name : "(null)",
				   c->name ? c->name : "(null)");
			return;
		}
		if ((c->value == NULL) != (value == NULL) ||
		    (c->value && strcmp(c->value, value))) {
			TEST_FAIL_("%s: value %s, want %s", c->word,
				   value ? value : "(null)",
				   c->value ? c->value : "(null)");
			return;
		}
	}
}

void
ks_suite_nvopts(void)
{
	RUN(table_shape);
	RUN(glued_options);
	RUN(find);
	RUN(flags);
	RUN(parse_words);
}
