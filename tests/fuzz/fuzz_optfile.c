/* Options files (--options-file/-optf, read by ks-nvcc itself) and the
 * NVCC_PREPEND_FLAGS/NVCC_APPEND_FLAGS and list-option splitters; what
 * they yield goes through the classifier. */
#include "fuzz.h"

#include <unistd.h>

#include "../../src/core/buf.h"
#include "../../src/core/strv.h"
#include "../../src/nvcc/args.h"

static void
classify(const struct ks_strv *words)
{
	struct ks_buf err = KS_BUF_INIT;
	struct ks_args a;
	const char *reason;

	ks_args_init(&a);
	if (ks_args_classify(words, &a, &err) == 0) {
		int ok = ks_args_eligible(&a, &reason);
		fuzz_check(ok ? reason == NULL : reason != NULL);
	}
	ks_args_release(&a);
	ks_buf_release(&err);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ks_strv in = KS_STRV_INIT, out = KS_STRV_INIT;
	struct ks_buf err = KS_BUF_INIT;
	char path[64], *text = fuzz_cstr(data, size);
	int fd = fuzz_memfile(data, size, path);

	ks_strv_push(&in, "-optf");
	ks_strv_push(&in, path);
	ks_strv_push(&in, "-c");
	if (ks_args_expand(&in, &out, &err) == 0)
		classify(&out);
	else
		fuzz_check(err.len > 0);
	close(fd);
	ks_strv_release(&out);
	ks_buf_reset(&err);
	if (ks_args_split_env(text, &out, &err) == 0)
		classify(&out);
	ks_strv_release(&out);
	ks_buf_reset(&err);
	ks_args_split_list(text, &out, &err);
	ks_strv_release(&out);
	ks_strv_release(&in);
	ks_buf_release(&err);
	free(text);
	return 0;
}
