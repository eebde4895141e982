/* The stats file: ks_stats_apply. Its output is a fixed point: applying
 * nothing to it gives it back. */
#include "fuzz.h"

#include "../../src/core/buf.h"
#include "../../src/core/stats.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = { "invocations", "compile" };
	struct ks_buf once = KS_BUF_INIT, twice = KS_BUF_INIT;
	char *text;
	long delta;

	if (!size)
		return 0;
	/* The first byte picks the delta: near zero, or near the limits. */
	delta = data[0] & 0x80 ? (long)(data[0] & 0x7f) - 64 : 1;
	text = fuzz_cstr(data + 1, size - 1);
	ks_stats_apply(text, names, 2, delta, &once);
	ks_stats_apply(once.buf, NULL, 0, 0, &twice);
	fuzz_check(!strcmp(once.buf, twice.buf));
	ks_buf_release(&once);
	ks_buf_release(&twice);
	free(text);
	return 0;
}
