/* Build records: the one reader (ks_build_rec_parse, from text, and
 * ks_build_rec_load, from a file) that ks builds, ks analyze, ks evidence
 * and the Reviewer share. `ks builds --json` copies an accepted record's
 * text out, so what it accepts must be UTF-8 JSON. */
#include "fuzz.h"

#include <string.h>
#include <unistd.h>

#include "../../src/core/buf.h"
#include "../../src/core/util.h"
#include "../../src/nvcc/record.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ks_buf text = KS_BUF_INIT, err = KS_BUF_INIT;
	struct ks_build_rec r;
	char path[64];
	int fd;

	ks_buf_add(&text, data, size);
	if (ks_build_rec_parse(text.buf, text.len, "fuzz", &r, &err) == 0) {
		fuzz_check(r.source && r.cwd);
		fuzz_check(ks_utf8_valid(r.text, strlen(r.text)));
		fuzz_check(strlen(text.buf) == text.len);
		ks_build_rec_release(&r);
	} else {
		fuzz_check(err.len > 0);
	}
	ks_buf_reset(&err);
	fd = fuzz_memfile(data, size, path);
	if (ks_build_rec_load(path, &r, &err) == 0) {
		fuzz_check(r.source && r.cwd);
		ks_build_rec_release(&r);
	} else {
		fuzz_check(err.len > 0);
	}
	close(fd);
	ks_buf_release(&text);
	ks_buf_release(&err);
	return 0;
}
