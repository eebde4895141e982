/* Racecheck's block sample (src/review/sample.h) over any text: the
 * scanner ends, and the guarded TU is the guard's definition, a #line, and
 * the input with " KS_RC_SAMPLE" added as many times as it says, after a
 * '{' each time: nothing else of the input changes (checked where the
 * input has no such mark of its own). */
#include "fuzz.h"

#include "../../src/core/buf.h"
#include "../../src/review/sample.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char mark[] = " KS_RC_SAMPLE";
	char *text = fuzz_cstr(data, size);
	struct ks_buf out = KS_BUF_INIT, why = KS_BUF_INIT, back = KS_BUF_INIT;
	size_t n = ks_sample_blocks(text, "f.cu", &out), found = 0;
	const char *body, *p, *q;

	if (!ks_sample_allowed(text, &why))
		fuzz_check(why.len > 0);
	if (!n) {
		fuzz_check(out.len == 0);
	} else if (!strstr(text, mark)) {
		/* (an input with the mark of its own cannot be read back
		   unambiguously: only the scanner's ending is checked) */
		body = strstr(out.buf, "#line 1 \"f.cu\"\n");
		fuzz_check(body != NULL);
		body += strlen("#line 1 \"f.cu\"\n");
		/* the input back, without the marks the guarding added */
		for (p = body; (q = strstr(p, mark)) != NULL; p = q + strlen(mark)) {
			ks_buf_add(&back, p, (size_t)(q - p));
			fuzz_check(q > body && q[-1] == '{');
			found++;
		}
		ks_buf_adds(&back, p);
		fuzz_check(found == n);
		fuzz_check(back.len == strlen(text) && !memcmp(back.buf, text, back.len));
	}
	ks_buf_release(&out);
	ks_buf_release(&why);
	ks_buf_release(&back);
	free(text);
	return 0;
}
