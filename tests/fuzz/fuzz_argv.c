/*
 * The command line. The bytes, cut at NULs, are an nvcc argv (at most 64
 * words). In process: options files, the classifier, the eligibility
 * decision and the build record, which is always UTF-8 JSON; for a
 * one-command build, each CUDA source's compile alone (one input, that
 * source, a compile) and the command with it replaced. Then, when
 * KS_FUZZ_KSNVCC names a ks-nvcc binary, that ks-nvcc is run with the
 * words and KS_NVCC=$KS_FUZZ_RECORDER (argv_recorder.c): the words must
 * arrive unchanged and ks-nvcc must exit with the recorder's status 0.
 * KS_FUZZ_WORK is the directory it runs in (its KS_DIR below it); its
 * environment holds only PATH and those.
 */
#include "fuzz.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../src/core/buf.h"
#include "../../src/core/fs.h"
#include "../../src/core/strv.h"
#include "../../src/core/util.h"
#include "../../src/nvcc/args.h"
#include "../../src/nvcc/onecmd.h"
#include "../../wrapper/ksnvcc.h"
#include "../../src/nvcc/record.h"

#define MAX_WORDS 64

/* The sources of a one-command build, one by one (nvcc/onecmd.h). */
static void
one_command(const struct ks_strv *expanded, const struct ks_args *a)
{
	const char *const *v = (const char *const *)expanded->v;
	struct ks_buf err = KS_BUF_INIT;
	size_t k;

	fuzz_check(ks_onecmd_input_word(v, expanded->n, a->ninputs) == -1);
	for (k = 0; k < a->ninputs; k++) {
		struct ks_strv one = KS_STRV_INIT, swapped = KS_STRV_INIT;
		struct ks_args s;
		long at = ks_onecmd_input_word(v, expanded->n, k);

		fuzz_check(at >= 0 && !strcmp(v[at], a->inputs[k].path));
		if (a->inputs[k].lang != KS_LANG_CU)
			continue;
		fuzz_check(ks_onecmd_compile_argv(v, expanded->n, (size_t)at,
						  &one, &err) == 0);
		ks_args_init(&s);
		fuzz_check(ks_args_classify(&one, &s, &err) == 0);
		fuzz_check(s.ninputs == 1 && !strcmp(s.inputs[0].path, v[at]));
		fuzz_check(s.mode == KS_MODE_COMPILE);
		fuzz_check(ks_onecmd_replace_source(v, expanded->n, (size_t)at,
						    "/v/x.cu", &swapped, &err) == 0);
		fuzz_check(!strcmp(swapped.v[at], "/v/x.cu"));
		ks_args_release(&s);
		ks_strv_release(&one);
		ks_strv_release(&swapped);
	}
	ks_buf_release(&err);
}

static void
in_process(const struct ks_strv *words)
{
	struct ks_strv expanded = KS_STRV_INIT;
	struct ks_buf err = KS_BUF_INIT, rec = KS_BUF_INIT;
	struct ks_args a;
	const char *reason;
	cJSON *o;
	int classified;

	ks_args_init(&a);
	classified = ks_args_expand(words, &expanded, &err) == 0 &&
		     ks_args_classify(&expanded, &a, &err) == 0;
	if (classified && ks_args_eligible(&a, &reason)) {
		struct ks_record_info ri = {
			.cwd = "/work/dir", .nvcc = "/usr/local/cuda/bin/nvcc",
			.nvcc_version = "13.0.88", .argv = &expanded,
			.time = 1700000000,
		};
		ks_record_format(&a, &ri, &rec);
		fuzz_check(ks_utf8_valid(rec.buf, rec.len));
		o = cJSON_ParseWithOpts(rec.buf, NULL, 1);
		fuzz_check(cJSON_IsObject(o));
		cJSON_Delete(o);
	} else if (classified && ks_args_eligible_command(&a, &reason)) {
		one_command(&expanded, &a);
	}
	ks_args_release(&a);
	ks_strv_release(&expanded);
	ks_buf_release(&err);
	ks_buf_release(&rec);
}

/* Run ks-nvcc with `words`; compare what the recorder received. */
static void
through_ks_nvcc(const char *ksnvcc, const struct ks_strv *words)
{
	const char *work = getenv("KS_FUZZ_WORK"), *rec = getenv("KS_FUZZ_RECORDER");
	char **argv = calloc(words->n + 2, sizeof(*argv));
	char *out, *ksdir;
	struct ks_buf got = KS_BUF_INIT, want = KS_BUF_INIT;
	posix_spawn_file_actions_t fa;
	char *env[5];
	size_t i;
	int status;
	pid_t pid;

	if (!argv || !work || !rec)
		abort();
	out = ks_xasprintf("%s/argv", work);
	ksdir = ks_xasprintf("%s/ks", work);
	unlink(out);
	argv[0] = (char *)ksnvcc;
	for (i = 0; i < words->n; i++) {
		argv[i + 1] = words->v[i];
		ks_buf_add(&want, words->v[i], strlen(words->v[i]) + 1);
	}
	/* posix_spawn (vfork): forking a sanitized process is slow. */
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addchdir_np(&fa, work);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	env[0] = ks_xasprintf("KS_DIR=%s", ksdir);
	env[1] = ks_xasprintf("KS_NVCC=%s", rec);
	env[2] = ks_xasprintf("KS_FUZZ_ARGV_OUT=%s", out);
	env[3] = ks_xasprintf("PATH=%s", getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	env[4] = NULL;
	if (posix_spawn(&pid, ksnvcc, &fa, NULL, argv, env))
		abort();
	posix_spawn_file_actions_destroy(&fa);
	for (i = 0; i < 4; i++)
		free(env[i]);
	/* libFuzzer's timeout timer interrupts the wait (SIGALRM). */
	while (waitpid(pid, &status, 0) != pid)
		if (errno != EINTR)
			abort();
	/* A first word that is an executable holding "nvcc" is the launcher
	 * form: a compiler other than the recorder runs; nothing to compare. */
	if (words->n) {
		char *first = ks_fs_join(work, words->v[0]);
		int launcher = ks_nvcc_is_launcher_form(words->v[0],
							ks_fs_is_exec(first));

		free(first);
		if (launcher)
			goto done;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "fuzz: ks-nvcc ended with status %d\n", status);
		abort();
	}
	got.max = 1 << 20;
	fuzz_check(ks_fs_read(out, &got, NULL) == 0);
	fuzz_check(got.len == want.len && !memcmp(got.buf, want.buf, got.len));
done:
	ks_buf_release(&got);
	ks_buf_release(&want);
	free(out);
	free(ksdir);
	free(argv);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ks_strv words = KS_STRV_INIT;
	const char *ksnvcc = getenv("KS_FUZZ_KSNVCC");
	size_t i = 0;

	while (i < size && words.n < MAX_WORDS) {
		const uint8_t *nul = memchr(data + i, 0, size - i);
		size_t n = nul ? (size_t)(nul - (data + i)) : size - i;
		char *w = ks_xstrndup((const char *)data + i, n);

		ks_strv_push(&words, w);
		free(w);
		i += n + 1;
	}
	in_process(&words);
	if (ksnvcc && *ksnvcc)
		through_ks_nvcc(ksnvcc, &words);
	ks_strv_release(&words);
	return 0;
}
