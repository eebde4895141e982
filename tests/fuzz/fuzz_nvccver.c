/* The nvcc version: `nvcc --version` output (ks_nvccver_parse) and the
 * cache entries (ks_nvccver_valid). A parsed version is always a valid
 * cache entry, and a valid entry is what a parse of it as "V<entry>" gives. */
#include "fuzz.h"

#include "../../src/core/buf.h"
#include "../../src/nvcc/nvccver.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size);
	struct ks_buf v = KS_BUF_INIT, err = KS_BUF_INIT, line = KS_BUF_INIT;

	if (ks_nvccver_parse(text, &v, &err) == 0)
		fuzz_check(ks_nvccver_valid(v.buf, v.len));
	else
		fuzz_check(err.len > 0);
	if (ks_nvccver_valid(text, strlen(text))) {
		ks_buf_reset(&v);
		ks_buf_addf(&line, "release x, V%s\n", text);
		fuzz_check(ks_nvccver_parse(line.buf, &v, &err) == 0);
		fuzz_check(!strcmp(v.buf, text));
	}
	ks_buf_release(&v);
	ks_buf_release(&err);
	ks_buf_release(&line);
	free(text);
	return 0;
}
