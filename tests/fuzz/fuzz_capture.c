/* Captures: launch.json through ks_capture_parse_json. What it accepts
 * is consistent: every parameter lies inside the parameter buffer and
 * every pointer names a buffer. */
#include "fuzz.h"

#include "../../src/capture/capture.h"
#include "../../src/core/buf.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size);
	struct ks_buf err = KS_BUF_INIT;
	struct ks_capture c;
	size_t i, j;

	if (ks_capture_parse_json(text, &c, &err) == 0) {
		fuzz_check(c.kernel && *c.kernel);
		for (i = 0; i < c.nparams; i++) {
			fuzz_check(c.params[i].offset + c.params[i].size <=
				   c.param_size);
			for (j = 0; j < c.params[i].nptrs; j++)
				fuzz_check(c.params[i].ptrs[j].buffer < c.nbuffers);
		}
		ks_capture_release(&c);
	} else {
		fuzz_check(err.len > 0);
	}
	ks_buf_release(&err);
	free(text);
	return 0;
}
