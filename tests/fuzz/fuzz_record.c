/* Build records: `ks builds` (ks_builds_parse, whose text --json copies
 * out, so what it accepts must be UTF-8 JSON) and the Reviewer's loader
 * (ks_build_rec_load, from a file). */
#include "fuzz.h"

#include <cjson/cJSON.h>
#include <unistd.h>

#include "../../src/cli/ks.h"
#include "../../src/core/buf.h"
#include "../../src/core/util.h"
#include "../../src/review/build.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ks_buf text = KS_BUF_INIT, err = KS_BUF_INIT;
	struct ks_build_rec r;
	char path[64];
	cJSON *o;
	int fd;

	ks_buf_add(&text, data, size);
	o = ks_builds_parse(&text, &err);
	if (o) {
		fuzz_check(cJSON_IsObject(o));
		fuzz_check(ks_utf8_valid(text.buf, text.len));
		fuzz_check(strlen(text.buf) == text.len);
		cJSON_Delete(o);
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
