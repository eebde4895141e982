/*
 * The kernel key covers device-code flags only: what the classifier puts
 * in `devflags` (nvcc/args.h, nvcc/keyflags.h) and so what the key
 * (cache/key.h) hashes.
 */
#include "test.h"

#include <stdlib.h>

#include "../../src/cache/key.h"
#include "../../src/core/buf.h"
#include "../../src/core/strv.h"
#include "../../src/core/util.h"
#include "../../src/nvcc/args.h"
#include "../../src/nvcc/keyflags.h"

void ks_suite_keyflags(void);

static const char closure[] =
	"ks-closure 1\n== function k(float *)\n"
	"__global__ void k(float *x) { x[0] = 1; }\n";

/* The key of kernel k for the nvcc words `line` (split at spaces) plus
 * "-c k.cu -arch=sm_90", or "" when they do not classify. */
static const char *
key_of(const char *line)
{
	static char key[33];
	struct ks_strv argv = KS_STRV_INIT;
	struct ks_buf err = KS_BUF_INIT;
	struct ks_args a;
	char *copy = ks_xasprintf("%s -c k.cu -arch=sm_90", line), *tok, *save;

	for (tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		ks_strv_push(&argv, tok);
	ks_args_init(&a);
	key[0] = '\0';
	if (ks_args_classify(&argv, &a, &err) == 0 && !a.rejected)
		ks_key_kernel("_Z1kPf", closure, "sm_90", &a.devflags,
			      "13.0.88", key);
	ks_args_release(&a);
	ks_strv_release(&argv);
	ks_buf_release(&err);
	free(copy);
	return key;
}

TEST(host_only_words)
{
	CHECK(ks_keyflags_host_only("-Wall"));
	CHECK(ks_keyflags_host_only("-Wno-unused-parameter"));
	CHECK(ks_keyflags_host_only("-Werror=format"));
	CHECK(ks_keyflags_host_only("-Wl,-rpath,/x"));
	CHECK(ks_keyflags_host_only("-w"));
	CHECK(ks_keyflags_host_only("-O3"));
	CHECK(ks_keyflags_host_only("-g"));
	CHECK(ks_keyflags_host_only("-fPIC"));
	CHECK(ks_keyflags_host_only("-fvisibility=hidden"));
	CHECK(ks_keyflags_host_only("-fdiagnostics-color=always"));
	/* -Wp, passes words to the preprocessor, which the device side
	 * runs too; macros, includes, the dialect, OpenMP, the target
	 * machine change what it sees. */
	CHECK(!ks_keyflags_host_only("-Wp,-DX=1"));
	CHECK(!ks_keyflags_host_only("-DX=1"));
	CHECK(!ks_keyflags_host_only("-UX"));
	CHECK(!ks_keyflags_host_only("-I/x"));
	CHECK(!ks_keyflags_host_only("-std=c++20"));
	CHECK(!ks_keyflags_host_only("-fopenmp"));
	CHECK(!ks_keyflags_host_only("-march=native"));
	CHECK(!ks_keyflags_host_only("-ffast-math"));
	CHECK(!ks_keyflags_host_only("-fno-exceptions"));
	CHECK(!ks_keyflags_host_only("-pedantic"));
	CHECK(!ks_keyflags_host_only(""));
	CHECK(ks_keyflags_ptxas_quiet("-v"));
	CHECK(ks_keyflags_ptxas_quiet("--warn-on-spills"));
	CHECK(!ks_keyflags_ptxas_quiet("-O1"));
	CHECK(!ks_keyflags_ptxas_quiet("-dlcm=ca"));
	CHECK(!ks_keyflags_ptxas_quiet("--suppress-debug-info"));
}

TEST(host_flags_keep_the_key)
{
	static const char *const same[] = {
		"-Xcompiler -Wall", "-Xcompiler=-Wall,-Wextra",
		"--compiler-options -Wno-unused", "-O3", "-O2", "-O0",
		"--optimize 1", "-ccbin g++", "-Xcompiler -fPIC",
		"-Xcompiler -O3,-g", "-Xptxas -v", "-Xptxas=--warn-on-spills",
		"-forward-unknown-to-host-compiler -Wall -Wshadow",
		"-w", "-Werror all-warnings", "-Xlinker -rpath=/x", "-lm",
		"-Iinc", "-isystem /opt/x", "-res-usage", "-g",
	};
	char base[33];
	size_t i;

	strcpy(base, key_of(""));
	CHECK_INT_EQ(32, strlen(base));
	for (i = 0; i < KS_ARRAY_SIZE(same); i++) {
		const char *k = key_of(same[i]);

		if (strcmp(base, k)) {
			TEST_FAIL_("'%s' changed the key", same[i]);
			return;
		}
	}
}

TEST(device_flags_change_the_key)
{
	static const char *const differ[] = {
		"-use_fast_math", "-Xptxas -O1", "-Xptxas=-O1", "-maxrregcount=32",
		"-G", "-std=c++20", "-lineinfo", "-ftz=true", "-DN=4",
		"-UNDEBUG", "-Xcompiler -DX", "-Xcompiler -fopenmp",
		"-Xcompiler=-Wp,-DX", "-forward-unknown-to-host-compiler -fopenmp",
		"-Xcompiler -march=native", "-extended-lambda",
		"-Xptxas -v,-O1",
	};
	char base[33];
	size_t i;

	strcpy(base, key_of(""));
	for (i = 0; i < KS_ARRAY_SIZE(differ); i++) {
		const char *k = key_of(differ[i]);

		if (!*k || !strcmp(base, k)) {
			TEST_FAIL_("'%s' kept the key (or did not classify)",
				   differ[i]);
			return;
		}
	}
	/* A macro's value counts, not only its presence. */
	strcpy(base, key_of("-DN=4"));
	CHECK(strcmp(base, key_of("-DN=8")) != 0);
	/* A host warning next to a device flag: the device flag's key. */
	strcpy(base, key_of("-use_fast_math"));
	CHECK_STR_EQ(base, key_of("-use_fast_math -Xcompiler -Wall -O3"));
}

void
ks_suite_keyflags(void)
{
	RUN(host_only_words);
	RUN(host_flags_keep_the_key);
	RUN(device_flags_change_the_key);
}
